//! Limits: the last position, leases ahead of the clock, zero-length leases, the cap on Gregorian entries.

use super::*;

#[test]
fn exhausted_at_the_last_position() {
    let (disk, store) = memory();
    let max = GeneratorKind::V7.max_position();
    let l = store
        .lease(&req(GeneratorKind::V7, 0, max - 1, 10))
        .unwrap();
    assert_eq!((l.start, l.end), (max - 1, max), "cut at the last position");
    let before = disk.contents();
    assert_eq!(
        store.lease(&req(GeneratorKind::V7, 0, 0, 1)),
        Err(StoreError::Exhausted)
    );
    assert_eq!(disk.contents(), before, "nothing written");
    let (_, fresh) = memory();
    assert_eq!(
        fresh.lease(&req(GREG, 0, GREG.max_position() + 1, 1)),
        Err(StoreError::Exhausted)
    );
}

#[test]
fn ahead_grants_nothing_and_writes_nothing() {
    let (disk, store) = memory();
    store.lease(&req(GeneratorKind::V8, 0, 100, 50)).unwrap();
    let before = disk.contents();
    let r = LeaseRequest {
        max_start: Some(149),
        ..req(GeneratorKind::V8, 0, 0, 1)
    };
    assert_eq!(store.lease(&r), Err(StoreError::Ahead { start: 150 }));
    assert_eq!(disk.contents(), before);
    let ok = store
        .lease(&LeaseRequest {
            max_start: Some(150),
            ..r
        })
        .unwrap();
    assert_eq!(ok.start, 150);
}

#[test]
fn zero_len_is_one() {
    let (_, store) = memory();
    let l = store.lease(&req(GeneratorKind::V7, 0, 9, 0)).unwrap();
    assert_eq!((l.start, l.end), (9, 9));
}

/// Processes with random node IDs each add an entry; the file keeps the newest ones.
#[test]
fn gregorian_entries_are_capped() {
    let (disk, store) = memory();
    store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    for i in 0..300u64 {
        let node = NodeId::from_u64(0x0100_0000_0000 + i).unwrap();
        store
            .lease(&req(
                GeneratorKind::Gregorian(node),
                1000 + u128::from(i),
                0,
                1,
            ))
            .unwrap();
    }
    let snap = store.snapshot().unwrap();
    assert!(snap.damage.is_none());
    let greg: Vec<_> = snap
        .entries
        .iter()
        .filter(|e| matches!(e.kind, GeneratorKind::Gregorian(_)))
        .collect();
    assert_eq!(greg.len(), MAX_GREGORIAN_ENTRIES);
    assert!(greg.iter().all(|e| e.last_clock >= 1000 + 300 - 256));
    assert!(snap.entries.iter().any(|e| e.kind == GeneratorKind::V7));
    assert!(disk.contents().unwrap().len() < 64 * 1024);
}

/// Entries whose write-ahead mark the clock has passed go first, however recent: a
/// lease for their node would start above them anyway. Entries that may still be in
/// use are kept.
#[test]
fn gregorian_entries_past_the_clock_go_first() {
    let (_, store) = memory();
    let node = |i: u64| GeneratorKind::Gregorian(NodeId::from_u64(0x0100_0000_0000 + i).unwrap());
    store.lease(&req(node(0), 2_000_000_000, 0, 1)).unwrap(); // recent, mark passed
    for i in 1..256u64 {
        let from = 4_000_000_000 + 10 * u128::from(i); // older, marks ahead of the clock
        store
            .lease(&req(node(i), 100 + u128::from(i), from, 1))
            .unwrap();
    }
    store
        .lease(&req(node(999), 3_000_000_000, 3_000_000_000, 1))
        .unwrap();
    let kinds: Vec<_> = store
        .snapshot()
        .unwrap()
        .entries
        .iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds.len(), MAX_GREGORIAN_ENTRIES);
    assert!(!kinds.contains(&node(0)));
    assert!(kinds.contains(&node(1)) && kinds.contains(&node(999)));
}
