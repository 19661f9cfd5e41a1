//! One (node, clock sequence) per live Gregorian generator in a process, and Gregorian
//! generators side by side (`ShardedGregorian`). Each test uses nodes of its own: the
//! pool is process-wide and the tests of this file run in parallel.

use std::collections::HashSet;
use std::time::Duration;

use uuidkit::generator::GenError;
use uuidkit::generator::gregorian::GregorianGenerator;
use uuidkit::generator::sharded::ShardedGregorian;
use uuidkit::layout::{self, ClockSequence};
use uuidkit::node::NodeStrategy;
use uuidkit::random::Csprng;
use uuidkit::time::ManualClock;
use uuidkit::{NodeId, Uuid, Version};

fn node(n: u64) -> NodeId {
    NodeId::from_u64(0x0000_7e57_0000 | n).unwrap()
}

fn v1_on(n: NodeId) -> GregorianGenerator {
    GregorianGenerator::v1().with_node(NodeStrategy::Fixed(n))
}

#[test]
fn a_thousand_generators_of_one_node_hold_a_thousand_clock_sequences() {
    let n = node(1);
    let mut gens: Vec<GregorianGenerator> = (0..1000).map(|_| v1_on(n)).collect();
    let mut seqs = HashSet::new();
    let mut uuids = HashSet::new();
    for g in &mut gens {
        let u = g.next().unwrap();
        assert_eq!(u.node(), Some(n));
        seqs.insert(u.clock_seq().unwrap());
        uuids.insert(u);
    }
    assert_eq!(seqs.len(), 1000, "1,000 distinct clock sequences");
    // Each keeps its own from then on.
    for g in &mut gens {
        let cs = g.clock_seq().get();
        assert_eq!(g.next().unwrap().clock_seq(), Some(cs));
    }
}

#[test]
fn the_16385th_generator_of_a_node_is_an_error_that_says_why() {
    let n = node(2);
    let mut gens = Vec::new();
    for _ in 0..16_384 {
        let mut g = v1_on(n);
        g.reserve_clock_seq().unwrap();
        gens.push(g);
    }
    let mut extra = v1_on(n);
    let e = extra.next().unwrap_err();
    assert_eq!(e, GenError::ClockSequencesExhausted { node: n });
    let text = e.to_string();
    assert!(
        text.contains("all 16,384 clock sequences") && text.contains("no two may share"),
        "{text}"
    );
    // Dropping one frees its clock sequence for the next generator.
    let freed = gens.pop().unwrap().clock_seq();
    assert_eq!(extra.next().unwrap().clock_seq(), Some(freed.get()));
    assert!(ShardedGregorian::with_node(Version::V1, 2, n).is_err());
}

#[test]
fn a_fixed_clock_sequence_held_by_another_is_an_error() {
    let n = node(3);
    let cs = ClockSequence::new(77).unwrap();
    let mut a = v1_on(n).with_clock_seq(cs);
    assert_eq!(a.next().unwrap().clock_seq(), Some(77));
    let mut b = v1_on(n).with_clock_seq(cs);
    assert_eq!(
        b.next().unwrap_err(),
        GenError::ClockSequenceInUse {
            node: n,
            clock_seq: cs
        }
    );
    drop(a);
    assert_eq!(b.next().unwrap().clock_seq(), Some(77), "released on drop");
}

/// v1 takes the next clock sequence when the clock goes back; one another generator holds
/// is passed over.
#[test]
fn a_clock_sequence_change_passes_over_held_ones() {
    let n = node(4);
    let clock = ManualClock::at_millis(1_700_000_000_000);
    let mut a = GregorianGenerator::with_sources(Version::V1, &clock, Csprng)
        .with_node(NodeStrategy::Fixed(n))
        .with_clock_seq(ClockSequence::new(100).unwrap());
    let mut b = GregorianGenerator::with_sources(Version::V1, &clock, Csprng)
        .with_node(NodeStrategy::Fixed(n))
        .with_clock_seq(ClockSequence::new(101).unwrap());
    let (ua, ub) = (a.next().unwrap(), b.next().unwrap());
    assert_eq!((ua.clock_seq(), ub.clock_seq()), (Some(100), Some(101)));
    clock.step_back(Duration::from_secs(1));
    let u = a.next().unwrap();
    assert_eq!(u.clock_seq(), Some(102), "101 is b's");
    // b saw the clock go back too: 102 is a's now, so it takes 103.
    assert_eq!(b.next().unwrap().clock_seq(), Some(103));
    // Without the pool, a at 101 would now meet b's timestamps.
    let mut seen: HashSet<Uuid> = HashSet::new();
    for _ in 0..100_000 {
        assert!(seen.insert(a.next().unwrap()) && seen.insert(b.next().unwrap()));
    }
}

/// A random-node generator holds nothing (its nodes keep it apart), so the pool never
/// stands in its way.
#[test]
fn random_nodes_need_no_clock_sequence() {
    let mut g = GregorianGenerator::v1().with_node(NodeStrategy::Random);
    for _ in 0..10 {
        g.next().unwrap();
    }
}

/// Two threads × 5,000,000 from a sharded v1 generator: no duplicate, and each thread's
/// timestamps increase.
#[test]
fn sharded_v1_two_threads_five_million_each() {
    let g = ShardedGregorian::with_node(Version::V1, 2, node(5)).unwrap();
    assert_eq!(g.shards(), 2);
    let per_thread: Vec<Vec<Uuid>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    (0..5_000_000)
                        .map(|_| g.next().unwrap())
                        .collect::<Vec<Uuid>>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: Vec<u128> = Vec::with_capacity(10_000_000);
    for (t, uuids) in per_thread.iter().enumerate() {
        let mut last = 0;
        for (i, u) in uuids.iter().enumerate() {
            let ticks = layout::v1::decode(u).unwrap().timestamp.ticks();
            assert!(
                ticks > last,
                "thread {t}: UUID {i}'s timestamp does not increase"
            );
            last = ticks;
            all.push(u.as_u128());
        }
        let seqs: HashSet<_> = uuids.iter().map(|u| u.clock_seq()).collect();
        assert_eq!(seqs.len(), 1, "thread {t} keeps to one generator");
    }
    all.sort_unstable();
    let n = all.len();
    all.dedup();
    assert_eq!(all.len(), n, "no duplicate among 10,000,000");
}

#[test]
fn each_thread_keeps_its_shard_and_threads_take_them_in_turn() {
    let g = ShardedGregorian::with_node(Version::V6, 3, node(6)).unwrap();
    let seqs: Vec<u16> = std::thread::scope(|s| {
        (0..3)
            .map(|_| {
                s.spawn(|| {
                    let first = g.next().unwrap();
                    let mut last = first;
                    for _ in 0..1000 {
                        let u = g.next().unwrap();
                        assert!(u > last, "v6 shards: strictly increasing per thread");
                        assert_eq!(u.clock_seq(), first.clock_seq());
                        last = u;
                    }
                    first.clock_seq().unwrap()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect()
    });
    let distinct: HashSet<_> = seqs.iter().collect();
    assert_eq!(distinct.len(), 3, "three threads, three generators");
}
