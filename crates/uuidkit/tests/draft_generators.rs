//! The generators of the 2021 draft's layouts: each guarantee of `DraftGenerator` with a
//! manual clock — frozen, stepped back, a sequence that overflows — the sequence's start
//! at 0, machine-ID bits, and the state store.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use uuidkit::generator::draft::DraftGenerator;
use uuidkit::generator::machine_id::{MachineId, MachineIdError};
use uuidkit::layout::{Layout, decode_as};
use uuidkit::random::SeedableRng;
use uuidkit::store::{MemoryStorage, StateStore};
use uuidkit::time::ManualClock;
use uuidkit::time::UnixTime;
use uuidkit::{Uuid, Version};

const T0_MS: u64 = 1_700_000_000_000;

fn drafts() -> impl Iterator<Item = Layout> {
    Layout::ALL
        .into_iter()
        .filter(|l| !matches!(l, Layout::B1 | Layout::B2))
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// (timestamp, sequence) of a UUID read as `layout`.
fn key(layout: Layout, u: &Uuid) -> (u128, u64) {
    let d = decode_as(u, layout).unwrap();
    (d.timestamp.unwrap(), d.sequence.unwrap())
}

fn sequence_space(layout: Layout) -> u64 {
    1 << layout.sequence_bits().unwrap()
}

#[test]
fn b1_and_b2_are_not_draft_layouts() {
    assert!(DraftGenerator::new(Layout::B1).is_err());
    // The one message for unknown names: b2 is a layout, but none of the draft's.
    let e = DraftGenerator::new(Layout::B2).unwrap_err();
    assert_eq!((e.what(), e.name()), ("2021 draft layout", "b2"));
    assert_eq!(
        e.to_string(),
        "unknown 2021 draft layout \"b2\": expected one of draft-v7-ms, draft-v7-us, \
         draft-v7-ns, draft-v8-32, draft-v8-48, draft-v8-60, draft-v8-64"
    );
}

/// A frozen clock: every UUID above the one before, the sequence counting 0, 1, 2, … in
/// the first unit, then (on overflow) the timestamp one unit on and the sequence at 0.
#[test]
fn frozen_clock_strictly_increasing_and_overflow_moves_one_unit() {
    for layout in drafts() {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = DraftGenerator::with_sources(layout, &clock, rng(1)).unwrap();
        let space = sequence_space(layout);
        let first = g.next();
        assert_eq!(first.version(), Version::V8);
        let (t0, s0) = key(layout, &first);
        assert_eq!(s0, 0, "{layout}: the first sequence of a timestamp is 0");
        let mut last = first;
        // Three overflows' worth.
        for i in 1..space * 3 + 5 {
            let u = g.next();
            assert!(u > last, "{layout}: UUID {i} ({u}) not above {last}");
            let (t, s) = key(layout, &u);
            assert_eq!(
                (t, s),
                (t0 + (i / space) as u128, i % space),
                "{layout}: UUID {i}"
            );
            last = u;
        }
    }
}

#[test]
fn a_new_timestamp_restarts_the_sequence_at_zero() {
    for layout in drafts() {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = DraftGenerator::with_sources(layout, &clock, rng(2)).unwrap();
        for _ in 0..10 {
            g.next();
        }
        // Two seconds: a new unit for every layout, seconds included.
        clock.advance(Duration::from_secs(2));
        let u = g.next();
        assert_eq!(key(layout, &u).1, 0, "{layout}");
        let d = decode_as(&u, layout).unwrap();
        assert_eq!(
            d.time.unwrap().secs(),
            (T0_MS / 1000 + 2) as i64,
            "{layout}: the time follows the clock"
        );
    }
}

#[test]
fn clock_stepped_back_never_decreases_and_follows_again() {
    for layout in drafts() {
        for back in [Duration::from_secs(1), Duration::from_secs(3600)] {
            let clock = ManualClock::at_millis(T0_MS);
            let mut g = DraftGenerator::with_sources(layout, &clock, rng(3)).unwrap();
            let mut last = g.next();
            let (t_before, _) = key(layout, &last);
            clock.step_back(back);
            for _ in 0..10_000 {
                let u = g.next();
                assert!(u > last, "{layout}: {u} not above {last} after a step back");
                assert!(key(layout, &u).0 >= t_before, "{layout}: never jumps back");
                last = u;
            }
            clock.set(UnixTime::from_millis(T0_MS + 10_000));
            let u = g.next();
            assert!(u > last);
            assert_eq!(
                decode_as(&u, layout).unwrap().time.unwrap().secs(),
                (T0_MS / 1000 + 10) as i64,
                "{layout}: follows the clock once it has passed"
            );
        }
    }
}

#[test]
fn any_clock_gives_strictly_increasing_uuids() {
    use proptest::prelude::*;
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 32,
        ..Default::default()
    });
    let moves = proptest::collection::vec(-2_000_000_000i64..2_000_000_000, 1..200);
    runner
        .run(&(moves, any::<u64>()), |(moves, seed)| {
            for layout in drafts() {
                let clock = ManualClock::at_millis(T0_MS);
                let mut g = DraftGenerator::with_sources(layout, &clock, rng(seed)).unwrap();
                let mut last = g.next();
                for m in &moves {
                    if *m >= 0 {
                        clock.advance(Duration::from_nanos(*m as u64));
                    } else {
                        clock.step_back(Duration::from_nanos(m.unsigned_abs()));
                    }
                    let u = g.next();
                    prop_assert!(u > last, "{}", layout);
                    last = u;
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn machine_id_in_every_uuid_right_after_the_sequence() {
    for layout in drafts() {
        let bits = 10;
        let id = MachineId::new(0x2A5, bits).unwrap();
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = DraftGenerator::with_sources(layout, &clock, rng(4))
            .unwrap()
            .with_machine_id(id)
            .unwrap();
        let mut last = Uuid::NIL;
        for _ in 0..5000 {
            let u = g.next();
            assert!(u > last);
            let d = decode_as(&u, layout).unwrap();
            assert_eq!(d.machine_id(bits).unwrap().0, 0x2A5, "{layout}");
            last = u;
        }
        // No room for the ID and a random bit.
        let width = layout.random_bits();
        let e = DraftGenerator::new(layout)
            .unwrap()
            .with_machine_id(MachineId::new(1, width).unwrap())
            .unwrap_err();
        assert!(matches!(e, MachineIdError::NoRoom { .. }), "{layout}");
    }
    let e = MachineId::new(1024, 10).unwrap_err().to_string();
    assert!(e.contains("does not fit in 10 bits"), "{e}");
    assert!(MachineId::new(0, 0).is_err());
    let h = MachineId::from_host_hash(20).unwrap();
    assert_eq!(h, MachineId::from_host_hash(20).unwrap());
    assert!(h.value() < 1 << 20);
}

/// v7 (RFC 9562) with a machine ID: in `rand_b` right after the counter; order kept.
#[test]
fn v7_machine_id_keeps_order() {
    use uuidkit::generator::v7::{V7Generator, V7Method};
    for method in [V7Method::Counter, V7Method::Precision] {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = V7Generator::with_sources(method, &clock, rng(5));
        let m = MachineId::new(0x1234, 16).unwrap();
        let mut last = Uuid::NIL;
        for _ in 0..100_000 {
            let u = m.stamp_v7(g.next()).unwrap();
            assert!(u > last, "{method}");
            assert_eq!((u.as_u128() >> 16) & 0xffff, 0x1234);
            last = u;
        }
    }
    assert!(
        MachineId::new(0, 32)
            .unwrap()
            .stamp_v7(uuidkit::v7())
            .is_err()
    );
}

/// The random (node) bits are never all zero, even with a source that gives only zeros.
#[test]
fn node_never_all_zero() {
    struct Zeros;
    impl uuidkit::random::RngCore for Zeros {
        fn next_u32(&mut self) -> u32 {
            0
        }
        fn next_u64(&mut self) -> u64 {
            0
        }
        fn fill_bytes(&mut self, d: &mut [u8]) {
            d.fill(0);
        }
    }
    for layout in drafts() {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = DraftGenerator::with_sources(layout, &clock, Zeros).unwrap();
        for _ in 0..10 {
            let d = decode_as(&g.next(), layout).unwrap();
            assert_ne!(d.random, 0, "{layout}");
        }
    }
}

/// Generators sharing a store never make the same (timestamp, sequence), on one frozen
/// clock; a generator started later goes on above both.
#[test]
fn generators_sharing_a_store_never_share_a_position() {
    for layout in drafts() {
        let store = Arc::new(StateStore::with_storage(Box::new(MemoryStorage::new())));
        let clock = ManualClock::at_millis(T0_MS);
        let mut a = DraftGenerator::with_sources(layout, &clock, rng(6))
            .unwrap()
            .with_store(store.clone());
        let mut b = DraftGenerator::with_sources(layout, &clock, rng(7))
            .unwrap()
            .with_store(store.clone());
        let mut seen = HashSet::new();
        let (mut la, mut lb) = (Uuid::NIL, Uuid::NIL);
        for _ in 0..3000 {
            let (ua, ub) = (a.next(), b.next());
            assert!(ua > la && ub > lb, "{layout}: each in order");
            assert!(
                seen.insert(key(layout, &ua)),
                "{layout}: {ua} repeats a position"
            );
            assert!(
                seen.insert(key(layout, &ub)),
                "{layout}: {ub} repeats a position"
            );
            (la, lb) = (ua, ub);
        }
        assert!(a.take_store_warnings().is_empty());
        // A restart on a clock set back: continues above everything handed out.
        let high = seen.iter().max().copied().unwrap();
        drop((a, b));
        clock.step_back(Duration::from_secs(60));
        let mut c = DraftGenerator::with_sources(layout, &clock, rng(8))
            .unwrap()
            .with_store(store);
        assert!(key(layout, &c.next()) > high, "{layout}");
    }
}

/// A clock past a layout's end counts as its last unit: nothing panics or wraps to 1970
/// (or 1582), also when the sequence overflows there.
#[test]
fn past_the_end_of_the_range_stays_on_the_last_unit() {
    let ends = [
        ("draft-v7-ms", "4147-08-20T07:32:15.999Z"),
        ("draft-v7-us", "4147-08-20T07:32:15.999999Z"),
        ("draft-v7-ns", "2262-04-11T23:47:16.854775807Z"),
        ("draft-v8-32", "2106-02-07T06:28:15Z"),
        ("draft-v8-48", "+010889-08-02T05:31:50.655Z"),
        ("draft-v8-60", "5236-03-31T21:21:00.6846975Z"),
        ("draft-v8-64", "2554-07-21T23:34:33.709551600Z"),
    ];
    for (name, end) in ends {
        let layout: Layout = name.parse().unwrap();
        let clock = ManualClock::new(UnixTime::new(400_000_000_000, 0));
        let mut g = DraftGenerator::with_sources(layout, &clock, rng(9)).unwrap();
        for _ in 0..sequence_space(layout) + 10 {
            let d = decode_as(&g.next(), layout).unwrap();
            assert_eq!(d.time_rfc3339().unwrap(), end, "{name}");
        }
    }
}
