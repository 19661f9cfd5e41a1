//! Restart, reboot and power loss, and the write-ahead mark that survives them.

use super::*;

/// A new store on the file (a new process) continues above the previous high, even
/// asked for earlier positions, and keeps the stored clock sequence.
#[test]
fn restart_continues_above_previous_high() {
    let dir = TempDir::new("restart");
    let a = StateStore::open(dir.state());
    let first = a.lease(&greg_req(1000, 5)).unwrap();
    let last = a
        .lease(&LeaseRequest {
            len: 10,
            ..greg_req(1000, 5)
        })
        .unwrap();
    assert_eq!((first.start, last.start, last.end), (1000, 1001, 1010));
    drop(a);
    let b = StateStore::open(dir.state());
    let next = b.lease(&greg_req(1200, 9)).unwrap();
    assert_eq!(next.start, 1200);
    let behind = b
        .lease(&LeaseRequest {
            from: 0,
            ..greg_req(1200, 9)
        })
        .unwrap();
    assert_eq!(behind.start, 1201);
    assert_eq!(
        behind.clock_seq,
        Some(cs(5)),
        "the stored one, not the fresh one"
    );
}

/// The scenario the write-ahead mark is for: many leases, most of them written without
/// a sync, then the power fails. The file comes back as last synced, with a `high` far
/// below what was handed out; the boot ID has changed, so the next store starts above
/// the mark, which is above everything handed out.
#[test]
fn power_loss_falls_back_to_the_write_ahead_mark() {
    let (disk, store) = memory();
    let mut rng = Lcg(3);
    let mut top = 0;
    let ms = 1_700_000_000_000u128;
    for i in 0..2000 {
        let clock = (ms + i) << 42;
        let l = store
            .lease(&req(
                GeneratorKind::V7,
                clock,
                clock + u128::from(rng.next(1 << 30)),
                1 + u128::from(rng.next(1 << 12)),
            ))
            .unwrap();
        top = top.max(l.end);
    }
    // 2000 ms of leases fit in one 5 s window: one sync, at the first lease.
    assert_eq!(disk.write_counts(), (2000, 1));
    disk.power_loss();
    let synced = format::parse(&disk.contents().unwrap());
    assert!(synced.problem.is_none());
    assert!(
        synced.state.entries[0].high < top,
        "the power loss lost writes"
    );
    assert!(synced.state.entries[0].durable > top, "but not the mark");

    let after = StateStore::with_storage(Box::new(disk.clone()));
    let l = after.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    assert!(l.start > top);
    assert_eq!(l.start, synced.state.entries[0].durable + 1);
    assert!(l.warning.is_none());
}

/// Repeated power losses with leases crossing the mark in between: every new start is
/// above every earlier grant.
#[test]
fn repeated_power_losses_never_reuse_a_position() {
    let (disk, _) = memory();
    let mut rng = Lcg(11);
    let mut top: Option<u128> = None;
    let mut clock = 1_000_000u128 << 30;
    for _ in 0..50 {
        let store = StateStore::with_storage(Box::new(disk.clone()));
        for _ in 0..rng.next(200) {
            // Sometimes far ahead (past the mark), sometimes behind (a clock set back).
            clock = match rng.next(20) {
                0 => clock.saturating_sub(1 << 40),
                1 => clock + (1 << 40),
                _ => clock + (1 << 20),
            };
            let l = store
                .lease(&req(GeneratorKind::V8, clock, clock, 1 << 16))
                .unwrap();
            assert!(top.is_none_or(|t| l.start > t), "{l:?} at or below {top:?}");
            top = Some(l.end);
        }
        disk.power_loss();
    }
}

/// Same boot: `high` is exact, the next lease continues right above it (not above the
/// mark, which would skip positions for nothing).
#[test]
fn same_boot_trusts_high() {
    let (disk, a) = memory();
    let l = a.lease(&req(GeneratorKind::V8, 50, 50, 10)).unwrap();
    let b = StateStore::with_storage(Box::new(disk));
    assert_eq!(
        b.lease(&req(GeneratorKind::V8, 0, 0, 1)).unwrap().start,
        l.end + 1
    );
}

/// A file from another boot: every entry continues above its mark, not just the one
/// leased, and the file then records the current boot.
#[test]
fn other_boot_starts_above_durable() {
    let (disk, store) = memory();
    disk.set_contents(Some(with_checksum(
        "uuidkit-state 1\nboot 0f-other-boot\n\
         v7 high=100 durable=500 last-clock=90\n\
         v8 high=7 durable=70 last-clock=7\n",
    )));
    let l = store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    assert_eq!(l.start, 501);
    let snap = store.snapshot().unwrap();
    assert_eq!(snap.boot_id, disk.boot_id());
    assert_eq!(snap.entries[1].high, 70);
    assert_eq!(
        store.lease(&req(GeneratorKind::V8, 0, 0, 1)).unwrap().start,
        71
    );
}

/// A file without a boot ID, on a system that has one: the same.
#[test]
fn file_without_boot_id_starts_above_durable() {
    let (disk, store) = memory();
    disk.set_contents(Some(with_checksum(
        "uuidkit-state 1\nboot none\nv7 high=100 durable=500 last-clock=90\n",
    )));
    assert_eq!(
        store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap().start,
        501
    );
}

/// No boot ID on this system: a reboot cannot be told from a restart, so every write
/// is synced and `high` is trusted, even across a power loss.
#[test]
fn without_boot_id_every_write_is_synced() {
    let (disk, store) = memory();
    disk.set_has_boot_id(false);
    let mut top = 0;
    for i in 0..100 {
        top = store.lease(&req(GeneratorKind::V7, i, i, 3)).unwrap().end;
    }
    assert_eq!(disk.write_counts(), (100, 100));
    disk.power_loss();
    let after = StateStore::with_storage(Box::new(disk.clone()));
    assert_eq!(
        after.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap().start,
        top + 1
    );
}

// ---- write-ahead mark ----

/// The mark is set a window above the end when a lease passes it, capped at the last
/// position; leases under the mark leave it and are not synced.
#[test]
fn write_ahead_mark_per_kind() {
    for kind in [GREG, GeneratorKind::V7, GeneratorKind::V8] {
        let (disk, store) = memory();
        let w = kind.write_ahead_window();
        let l = store.lease(&req(kind, 10, 10, 5)).unwrap();
        let e = store.snapshot().unwrap().entries[0];
        assert_eq!((e.high, e.durable), (l.end, l.end + w));
        store.lease(&req(kind, 10, l.end + w - 1, 2)).unwrap(); // ends on the mark
        assert_eq!(disk.write_counts(), (2, 1));
        assert_eq!(store.snapshot().unwrap().entries[0].durable, l.end + w);
        let past = store.lease(&req(kind, 10, 0, 1)).unwrap(); // one past the mark
        assert_eq!(past.start, l.end + w + 1);
        assert_eq!(disk.write_counts(), (3, 2));
        assert_eq!(store.snapshot().unwrap().entries[0].durable, past.end + w);

        let max = kind.max_position();
        store.lease(&req(kind, 10, max - 3, 1)).unwrap();
        assert_eq!(store.snapshot().unwrap().entries[0].durable, max);
    }
}
