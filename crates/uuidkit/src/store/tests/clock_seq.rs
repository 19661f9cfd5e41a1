//! The Gregorian clock sequence: fresh, incremented when the clock goes back, wrapped, fixed.

use super::*;

#[test]
fn clock_seq_of_a_new_entry_is_the_fresh_one() {
    let (_, store) = memory();
    assert_eq!(
        store.lease(&greg_req(1000, 321)).unwrap().clock_seq,
        Some(cs(321))
    );
    let (_, store) = memory();
    let fixed = LeaseRequest {
        clock_seq: Some(cs(7)),
        ..greg_req(1000, 321)
    };
    assert_eq!(store.lease(&fixed).unwrap().clock_seq, Some(cs(7)));
    assert_eq!(
        store
            .lease(&req(GeneratorKind::V7, 0, 0, 1))
            .unwrap()
            .clock_seq,
        None
    );
}

/// 5 s of 100 ns ticks: the write-ahead window, and here the tolerance for readings
/// taken before waiting on the lock.
const FIVE_S: u128 = 50_000_000;

/// One step back costs one increment; a reading that trails by less than the tolerance
/// (it was read before waiting on the lock) is no step and does not lower the stored
/// reading.
#[test]
fn clock_going_back_increments_the_clock_seq_once() {
    let (_, store) = memory();
    let seq = |clock| {
        store
            .lease(&greg_req(clock, 0))
            .unwrap()
            .clock_seq
            .unwrap()
            .get()
    };
    let t = 100 * FIVE_S;
    assert_eq!(seq(t), 0);
    assert_eq!(seq(t), 0, "the same reading is not a step back");
    assert_eq!(seq(t - FIVE_S), 0, "a stale reading is not a step back");
    assert_eq!(
        store.snapshot().unwrap().entries[0].last_clock,
        t,
        "nor lowers the stored one"
    );
    assert_eq!(seq(t + 10 * FIVE_S), 0);
    assert_eq!(seq(t), 1, "stepped back by 50 s");
    assert_eq!(
        store.snapshot().unwrap().entries[0].last_clock,
        t,
        "the new reference"
    );
    assert_eq!(seq(t + 1), 1);
    assert_eq!(
        seq(t + 5 * FIVE_S),
        1,
        "below the old high reading: no new step"
    );
    assert_eq!(seq(t + 3 * FIVE_S), 2, "10 s back");
}

/// The tolerance grows with the lock timeout: a lease may have waited that long.
#[test]
fn stale_reading_tolerance_covers_the_lock_timeout() {
    let (disk, _) = memory();
    let store = StateStore::with_storage(Box::new(disk)).with_lock_timeout(Duration::from_secs(60));
    let seq = |clock| {
        store
            .lease(&greg_req(clock, 0))
            .unwrap()
            .clock_seq
            .unwrap()
            .get()
    };
    let t = 1000 * FIVE_S;
    assert_eq!(seq(t), 0);
    assert_eq!(
        seq(t - 11 * FIVE_S),
        0,
        "55 s back, within the 60 s lock timeout"
    );
    assert_eq!(seq(t - 13 * FIVE_S), 1, "65 s back");
}

#[test]
fn clock_seq_wraps_after_16383() {
    let (_, store) = memory();
    let fixed = LeaseRequest {
        clock_seq: Some(cs(ClockSequence::MAX)),
        ..greg_req(1000 * FIVE_S, 0)
    };
    store.lease(&fixed).unwrap();
    assert_eq!(
        store.lease(&greg_req(10, 0)).unwrap().clock_seq,
        Some(cs(0))
    );
}

/// A fixed clock sequence is used even when the clock went back, and stored for the
/// callers that fix none.
#[test]
fn fixed_clock_seq_stays_and_is_stored() {
    let (_, store) = memory();
    store.lease(&greg_req(1000 * FIVE_S, 100)).unwrap();
    let fixed = LeaseRequest {
        clock_seq: Some(cs(9000)),
        ..greg_req(10, 100) // the clock went back
    };
    assert_eq!(store.lease(&fixed).unwrap().clock_seq, Some(cs(9000)));
    assert_eq!(
        store.lease(&greg_req(20, 100)).unwrap().clock_seq,
        Some(cs(9000))
    );
    assert_eq!(
        store.snapshot().unwrap().entries[0].clock_seq,
        Some(cs(9000))
    );
}
