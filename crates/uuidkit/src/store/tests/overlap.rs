//! Leases never overlap: across stores on one file, threads, kinds and nodes.

use super::*;

/// Two stores on one file (two processes, say) interleaved thousands of times, with the
/// clock moving forward and back and every request overlapping earlier grants: each
/// grant starts above every earlier one.
#[test]
fn two_stores_on_one_file_never_overlap() {
    let dir = TempDir::new("two");
    let stores = [StateStore::open(dir.state()), StateStore::open(dir.state())];
    let mut rng = Lcg(7);
    let mut clock: u128 = 139_000_000_000_000_000;
    let mut top = None;
    for _ in 0..3000 {
        clock = match rng.next(10) {
            0 => clock - u128::from(rng.next(1000)),
            _ => clock + u128::from(rng.next(100)),
        };
        let r = LeaseRequest {
            clock_seq: Some(cs(4242)),
            ..req(
                GREG,
                clock,
                clock + u128::from(rng.next(50)),
                1 + u128::from(rng.next(40)),
            )
        };
        let lease = stores[rng.next(2) as usize].lease(&r).unwrap();
        assert!(lease.start >= r.from && lease.end >= lease.start);
        assert!(lease.len() <= r.len);
        assert!(
            top.is_none_or(|t| lease.start > t),
            "{lease:?} overlaps {top:?}"
        );
        assert_eq!(lease.clock_seq, Some(cs(4242)));
        assert!(lease.warning.is_none());
        top = Some(lease.end);
    }
    let snap = read_state(&dir.state()).unwrap();
    assert!(snap.damage.is_none());
    assert_eq!(snap.entries[0].high, top.unwrap());
}

/// Threads with a store each, all on one file, contending for the lock.
#[test]
fn threads_on_one_file_never_overlap() {
    let dir = TempDir::new("threads");
    let path = dir.state();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let store = StateStore::open(path).with_lock_timeout(Duration::from_secs(60));
                let mut rng = Lcg(t);
                (0..250)
                    .map(|i| {
                        let clock = (1_700_000_000_000u128 + i) << 42;
                        let from = clock + u128::from(rng.next(1 << 20));
                        let l = store
                            .lease(&req(GeneratorKind::V7, clock, from, 4096))
                            .unwrap();
                        (l.start, l.end)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all: Vec<(u128, u128)> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    all.sort();
    assert_eq!(all.len(), 1000);
    for w in all.windows(2) {
        assert!(w[1].0 > w[0].1, "{:?} overlaps {:?}", w[0], w[1]);
    }
}

/// Kinds and nodes have separate entries: one's leases do not move another's.
#[test]
fn kinds_and_nodes_have_separate_entries() {
    let (_, store) = memory();
    let other = GeneratorKind::Gregorian(NodeId::from_bytes([1, 2, 3, 4, 5, 6]));
    for kind in [GREG, other, GeneratorKind::V7, GeneratorKind::V8] {
        let l = store.lease(&req(kind, 100, 100, 10)).unwrap();
        assert_eq!((l.start, l.end), (100, 109), "{kind:?}");
    }
    assert_eq!(store.snapshot().unwrap().entries.len(), 4);
}
