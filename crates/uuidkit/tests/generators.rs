//! Each sentence of the generators' documented guarantees, tested with a manual clock
//! and a seeded random source where it matters.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use uuidkit::generator::GenError;
use uuidkit::generator::gregorian::{GregorianGenerator, MAX_AHEAD_TICKS, OverrunPolicy};
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::generator::v8::V8Generator;
use uuidkit::layout::{self, ClockSequence};
use uuidkit::node::NodeStrategy;
use uuidkit::random::SeedableRng;
use uuidkit::time::ManualClock;
use uuidkit::time::{Clock, FnClock, GregorianTimestamp, UnixTime};
use uuidkit::{NodeId, Uuid, Version};

const T0_MS: u64 = 1_700_000_000_000;
const METHODS: [V7Method; 3] = [V7Method::Counter, V7Method::Random, V7Method::Precision];

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Timestamp and clock sequence of a v1 UUID as one number (v1 bytes do not sort).
fn v1_key(u: &Uuid) -> u128 {
    let f = layout::v1::decode(u).unwrap();
    ((f.timestamp.ticks() as u128) << 14) | f.clock_seq.get() as u128
}

fn assert_strictly_increasing(label: &str, mut next: impl FnMut() -> Uuid, n: usize) {
    let mut last = next();
    for i in 1..n {
        let u = next();
        assert!(
            u > last,
            "{label}: UUID {i} ({u}) is not above the one before ({last})"
        );
        last = u;
    }
}

#[test]
fn frozen_clock_20_million_v7_each_method() {
    for m in METHODS {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = V7Generator::with_sources(m, &clock, rng(1));
        assert_strictly_increasing(&format!("v7 {m}"), || g.next(), 20_000_000);
    }
}

#[test]
fn frozen_clock_20_million_v8() {
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = V8Generator::with_sources(&clock, rng(2));
    assert_strictly_increasing("v8", || g.next(), 20_000_000);
}

#[test]
fn frozen_clock_20_million_v6_waits_and_keeps_its_clock_sequence() {
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = GregorianGenerator::with_sources(Version::V6, &clock, rng(3));
    let first = g.next().unwrap();
    let mut last = first;
    for i in 1..20_000_000 {
        let u = g.next().unwrap();
        assert!(u > last, "v6 UUID {i} is not above the one before");
        assert_eq!(u.clock_seq(), first.clock_seq(), "v6 UUID {i}");
        last = u;
    }
    // One 100 ns tick a UUID, and the generator waited for the clock (which a
    // ManualClock simulates by moving itself) rather than run further ahead.
    let ticks = last.timestamp().unwrap().raw() - first.timestamp().unwrap().raw();
    assert_eq!(ticks, 20_000_000 - 1);
    let waited = clock.now().as_millis() as u64 - T0_MS;
    assert!((1_900..=2_001).contains(&waited), "waited {waited} ms");
}

#[test]
fn frozen_clock_20_million_v1_waits_and_stays_distinct() {
    // ManualClock simulates the wait by moving itself: the generator's only way forward.
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(4));
    let mut last = v1_key(&g.next().unwrap());
    for i in 1..20_000_000 {
        let k = v1_key(&g.next().unwrap());
        assert!(k > last, "v1 UUID {i} repeats or goes back");
        last = k;
    }
    // It waited: the clock was moved by the generator, never past its timestamps.
    let waited = clock.now().as_millis() as u64 - T0_MS;
    assert!(
        (1_900..=2_001).contains(&waited),
        "waited {waited} ms for 20 million UUIDs"
    );
}

#[test]
fn v1_overrun_error_after_one_millisecond_of_ticks() {
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(5))
        .with_overrun(OverrunPolicy::Error);
    for _ in 0..=MAX_AHEAD_TICKS {
        g.next().unwrap();
    }
    assert!(matches!(g.next(), Err(GenError::Overrun { .. })));
    assert!(
        matches!(g.next(), Err(GenError::Overrun { .. })),
        "no state was spent"
    );
    clock.advance(Duration::from_nanos(100));
    assert!(g.next().is_ok(), "one new tick, one more UUID");
}

#[test]
fn sub_tick_counter_fills_a_coarse_clock() {
    // A millisecond clock: 10,000 UUIDs fit in a millisecond, one 100 ns tick apart.
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(6));
    let base = g.next().unwrap().timestamp().unwrap().raw();
    for i in 1..10_000u64 {
        assert_eq!(g.next().unwrap().timestamp().unwrap().raw(), base + i);
    }
}

fn step_back_cases() -> [Duration; 2] {
    [Duration::from_secs(1), Duration::from_secs(3600)]
}

#[test]
fn clock_stepped_back_v7_v8_v6_never_decrease() {
    for back in step_back_cases() {
        for m in METHODS {
            let clock = ManualClock::at_millis(T0_MS);
            let mut g = V7Generator::with_sources(m, &clock, rng(7));
            let before = g.next();
            clock.step_back(back);
            assert_strictly_increasing(&format!("v7 {m}"), || g.next(), 10_000);
            let after = g.next();
            assert!(after > before);
            // The embedded time stood still at the last millisecond...
            assert_eq!(
                after.timestamp().unwrap().raw(),
                before.timestamp().unwrap().raw()
            );
            // ...until the clock caught up, and then follows it again.
            clock.advance(back + Duration::from_millis(5));
            let caught_up = g.next();
            assert_eq!(caught_up.timestamp().unwrap().raw(), T0_MS + 5);
        }

        let clock = ManualClock::at_millis(T0_MS);
        let mut g = V8Generator::with_sources(&clock, rng(8));
        let before = g.next();
        clock.step_back(back);
        assert!(g.next() > before);
        assert_strictly_increasing("v8", || g.next(), 10_000);

        let clock = ManualClock::at_millis(T0_MS);
        let mut g = GregorianGenerator::with_sources(Version::V6, &clock, rng(9));
        let before = g.next().unwrap();
        clock.step_back(back);
        let mut last = before;
        for _ in 0..100_000 {
            let u = g.next().unwrap();
            assert!(u > last);
            last = u;
            clock.advance(Duration::from_micros(1));
        }
        clock.advance(back);
        let caught_up = g.next().unwrap();
        assert!(caught_up > last);
        let now = uuidkit::time::GregorianTimestamp::from_unix(clock.now()).unwrap();
        assert_eq!(
            caught_up.timestamp().unwrap().raw(),
            now.ticks(),
            "follows the clock again"
        );
    }
}

#[test]
fn clock_stepped_back_v1_takes_a_new_clock_sequence() {
    for back in step_back_cases() {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(10))
            .with_clock_seq(ClockSequence::new(100).unwrap());
        let mut seen = HashSet::new();
        for _ in 0..1000 {
            assert!(seen.insert(g.next().unwrap()));
        }
        clock.step_back(back);
        let u = g.next().unwrap();
        assert!(seen.insert(u), "no duplicate");
        assert_eq!(u.clock_seq(), Some(101), "clock sequence incremented");
        let t = u.timestamp().unwrap().to_unix();
        assert_eq!(t, clock.now(), "v1 takes the earlier time");
        for _ in 0..1000 {
            assert!(seen.insert(g.next().unwrap()));
        }
    }
}

#[test]
fn node_change_takes_a_new_clock_sequence() {
    let clock = ManualClock::at_millis(T0_MS);
    let a = NodeId::from_u64(0x0000_0000_0001).unwrap();
    let b = NodeId::from_u64(0x0000_0000_0002).unwrap();
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(11))
        .with_node(NodeStrategy::Fixed(a))
        .with_clock_seq(ClockSequence::new(0x3fff).unwrap());
    assert_eq!(g.next().unwrap().clock_seq(), Some(0x3fff));
    g.set_node(NodeStrategy::Fixed(b));
    let u = g.next().unwrap();
    assert_eq!(
        (u.node(), u.clock_seq()),
        (Some(b), Some(0)),
        "wraps from 16383 to 0"
    );
    g.set_node(NodeStrategy::Fixed(b));
    assert_eq!(
        g.next().unwrap().clock_seq(),
        Some(0),
        "same node, same sequence"
    );
}

#[test]
fn clock_seq_function_is_asked_on_every_change() {
    let clock = ManualClock::at_millis(T0_MS);
    let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = calls.clone();
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(12)).with_clock_seq_fn(
        move |prev| {
            log.lock().unwrap().push(prev.map(|c| c.get()));
            ClockSequence::new(prev.map_or(500, |c| c.get() + 10)).unwrap()
        },
    );
    assert_eq!(g.next().unwrap().clock_seq(), Some(500));
    clock.step_back(Duration::from_secs(1));
    assert_eq!(g.next().unwrap().clock_seq(), Some(510));
    assert_eq!(*calls.lock().unwrap(), vec![None, Some(500)]);
}

#[test]
fn node_strategies() {
    let clock = ManualClock::at_millis(T0_MS);
    // static: one random multicast node for the generator's life.
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(13));
    let n = g.next().unwrap().node().unwrap();
    assert!(n.is_multicast());
    assert!((0..100).all(|_| g.next().unwrap().node() == Some(n)));
    // random: a new one every time, clock sequence unchanged.
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(14))
        .with_node(NodeStrategy::Random);
    let us: Vec<Uuid> = (0..100).map(|_| g.next().unwrap()).collect();
    let nodes: HashSet<NodeId> = us.iter().map(|u| u.node().unwrap()).collect();
    assert_eq!(nodes.len(), 100);
    assert!(nodes.iter().all(NodeId::is_multicast));
    assert!(us.iter().all(|u| u.clock_seq() == us[0].clock_seq()));
    // hash: stable on this host, multicast.
    let h1 = GregorianGenerator::with_sources(Version::V1, &clock, rng(15))
        .with_node(NodeStrategy::Hash)
        .next()
        .unwrap()
        .node()
        .unwrap();
    let h2 = GregorianGenerator::with_sources(Version::V6, &clock, rng(16))
        .with_node(NodeStrategy::Hash)
        .next()
        .unwrap()
        .node()
        .unwrap();
    assert_eq!(h1, h2);
    assert!(h1.is_multicast());
    // mac: the host's MAC (not multicast-forced), or static with a warning.
    let g =
        GregorianGenerator::with_sources(Version::V1, &clock, rng(17)).with_node(NodeStrategy::Mac);
    match uuidkit::__private::primary_mac() {
        Some(mac) => {
            assert_eq!(g.node(), NodeId::from_bytes(mac));
            assert!(g.node_warning().is_none());
        }
        None => {
            assert!(g.node().is_multicast());
            assert!(g.node_warning().unwrap().contains("static"));
        }
    }
    // fixed, and a user function.
    let fixed = NodeId::from_u64(0x0123_4567_89ab).unwrap();
    let mut g = GregorianGenerator::with_sources(Version::V6, &clock, rng(18))
        .with_node(NodeStrategy::Fixed(fixed));
    assert_eq!(g.next().unwrap().node(), Some(fixed));
    let mut g = GregorianGenerator::with_sources(Version::V6, &clock, rng(19))
        .with_node(NodeStrategy::Function(Arc::new(move || fixed)));
    assert_eq!(g.next().unwrap().node(), Some(fixed));
}

#[test]
fn process_wide_generators_across_4_threads() {
    type Gen = fn() -> Uuid;
    let cases: [(&str, Gen, bool); 4] = [
        ("v7", uuidkit::v7, true),
        ("v6", uuidkit::v6, true),
        ("v8", uuidkit::v8, true),
        ("v1", uuidkit::v1, false),
    ];
    for (label, make, ordered) in cases {
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(move || {
                    let mut out = Vec::with_capacity(1_000_000);
                    for _ in 0..1_000_000 {
                        out.push(make());
                    }
                    out
                })
            })
            .collect();
        let mut all = HashSet::with_capacity(4_000_000);
        for t in threads {
            let out = t.join().unwrap();
            if ordered {
                assert!(
                    out.windows(2).all(|w| w[0] < w[1]),
                    "{label}: a thread's sequence decreased"
                );
            }
            for u in out {
                assert!(all.insert(u), "{label}: duplicate {u}");
            }
        }
        assert_eq!(all.len(), 4_000_000);
    }
}

#[test]
fn v2_carries_domain_and_local_id() {
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(20))
        .with_clock_seq(ClockSequence::new(0x33c8).unwrap());
    let u = g.next_v2(layout::v2::Domain::Group, 4242).unwrap();
    let f = layout::v2::decode(&u).unwrap();
    assert_eq!(
        (f.domain, f.local_id, f.clock_seq),
        (layout::v2::Domain::Group, 4242, 0x33)
    );
    let t = uuidkit::time::GregorianTimestamp::from_unix(UnixTime::from_millis(T0_MS)).unwrap();
    assert_eq!(f.timestamp.ticks(), t.ticks() & !0xffff_ffff);
}

#[derive(Debug, Clone)]
enum Move {
    Forward(u64),
    Back(u64),
    Stay,
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    proptest::collection::vec(
        prop_oneof![
            (0u64..5_000_000).prop_map(Move::Forward),
            (0u64..5_000_000_000).prop_map(Move::Back),
            Just(Move::Stay),
        ],
        1..300,
    )
}

fn apply(clock: &ManualClock, m: &Move) {
    match m {
        Move::Forward(ns) => clock.advance(Duration::from_nanos(*ns)),
        Move::Back(ns) => clock.step_back(Duration::from_nanos(*ns)),
        Move::Stay => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_clock_gives_strictly_increasing_v6_v7_v8(ms in moves(), seed in any::<u64>()) {
        for m in METHODS {
            let clock = ManualClock::at_millis(T0_MS);
            let mut g = V7Generator::with_sources(m, &clock, rng(seed));
            let mut last = g.next();
            for mv in &ms {
                apply(&clock, mv);
                let u = g.next();
                prop_assert!(u > last);
                last = u;
            }
        }
        let clock = ManualClock::at_millis(T0_MS);
        let mut g8 = V8Generator::with_sources(&clock, rng(seed));
        let mut g6 = GregorianGenerator::with_sources(Version::V6, &clock, rng(seed));
        let (mut l8, mut l6) = (g8.next(), g6.next().unwrap());
        for mv in &ms {
            apply(&clock, mv);
            let (u8, u6) = (g8.next(), g6.next().unwrap());
            prop_assert!(u8 > l8);
            prop_assert!(u6 > l6);
            l8 = u8;
            l6 = u6;
        }
    }

    #[test]
    fn any_clock_gives_distinct_v1(ms in moves(), seed in any::<u64>()) {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(seed));
        let mut seen = HashSet::new();
        prop_assert!(seen.insert(g.next().unwrap()));
        for mv in &ms {
            apply(&clock, mv);
            prop_assert!(seen.insert(g.next().unwrap()));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Edges found by adversarial testing: each test below failed before its fix.

fn fixed_node() -> NodeStrategy {
    NodeStrategy::Fixed(NodeId::from_u64(0x0123_4567_89ab).unwrap())
}

/// Two generators that share a node and a clock but started with different clock
/// sequences (two processes on one host) never make the same UUID, at any rate: neither
/// wanders into the other's clock sequence.
#[test]
fn v6_generators_sharing_a_node_stay_in_their_own_clock_sequence() {
    // `None`: the default policy.
    for policy in [
        None,
        Some(OverrunPolicy::Wait),
        Some(OverrunPolicy::Advance),
    ] {
        let clock = ManualClock::at_millis(T0_MS);
        let make = |cs: u16, seed: u64| {
            let g = GregorianGenerator::with_sources(Version::V6, &clock, rng(seed))
                .with_node(fixed_node())
                .with_clock_seq(ClockSequence::new(cs).unwrap());
            match policy {
                Some(p) => g.with_overrun(p),
                None => g,
            }
        };
        // Neighbouring sequences: the first to be met by one that counts on.
        let (mut a, mut b) = (make(100, 30), make(101, 31));
        let mut seen = HashSet::with_capacity(1_000_000);
        for i in 0..500_000 {
            let (ua, ub) = (a.next().unwrap(), b.next().unwrap());
            assert_eq!(ua.clock_seq(), Some(100), "{policy:?}: UUID {i} of a");
            assert_eq!(ub.clock_seq(), Some(101), "{policy:?}: UUID {i} of b");
            assert!(seen.insert(ua) && seen.insert(ub), "{policy:?}: duplicate");
        }
    }
}

/// The order of v6 holds through the public API whatever changes the clock sequence:
/// a wrap from 16383 to 0 while the clock is behind, and a node function that
/// alternates with a clock-sequence function on a frozen clock.
#[test]
fn v6_order_survives_clock_sequence_changes() {
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = GregorianGenerator::with_sources(Version::V6, &clock, rng(32))
        .with_clock_seq(ClockSequence::new(16382).unwrap());
    let a = g.next().unwrap();
    clock.step_back(Duration::from_secs(1));
    let b = g.next().unwrap();
    g.set_node(NodeStrategy::Fixed(NodeId::from_u64(0xB).unwrap()));
    let c = g.next().unwrap();
    assert!(a < b && b < c, "{a} {b} {c}");

    for policy in [OverrunPolicy::Wait, OverrunPolicy::Advance] {
        let clock = ManualClock::at_millis(T0_MS);
        let flip = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let nodes = flip.clone();
        let mut g = GregorianGenerator::with_sources(Version::V6, &clock, rng(33))
            .with_node(NodeStrategy::Function(Arc::new(move || {
                let odd = nodes.fetch_xor(true, std::sync::atomic::Ordering::Relaxed);
                NodeId::from_u64(if odd { 1 } else { 2 }).unwrap()
            })))
            .with_clock_seq_fn(|prev| {
                ClockSequence::from_masked(prev.map_or(16_000, |c| c.get().wrapping_add(7)))
            })
            .with_overrun(policy);
        assert_strictly_increasing(&format!("v6 {policy:?}"), || g.next().unwrap(), 100_000);
    }
}

/// v1 follows a clock that steps back and forth without end and still never repeats:
/// once the clock sequences of a cycle run out, its timestamps stay above every one
/// used before.
#[test]
fn v1_never_repeats_however_often_the_clock_steps_back() {
    type Seq = Box<dyn FnMut(Option<ClockSequence>) -> ClockSequence + Send>;
    let sequences: [(&str, Option<Seq>); 3] = [
        ("increment", None),
        // A function that always answers the same: the generator increments it, so
        // it alternates between two values.
        (
            "constant",
            Some(Box::new(|_| ClockSequence::new(7).unwrap())),
        ),
        (
            "random",
            Some({
                let mut r = rng(34);
                Box::new(move |_| {
                    ClockSequence::from_masked(rand_core::RngCore::next_u32(&mut r) as u16)
                })
            }),
        ),
    ];
    for (label, f) in sequences {
        let clock = ManualClock::at_millis(T0_MS);
        let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(35));
        if let Some(f) = f {
            g = g.with_clock_seq_fn(f);
        }
        let mut seen = HashSet::with_capacity(100_000);
        for i in 0..100_000 {
            if i % 2 == 0 {
                clock.advance(Duration::from_micros(1));
            } else {
                clock.step_back(Duration::from_micros(1));
            }
            let u = g.next().unwrap();
            assert!(seen.insert(u), "{label}: v1 UUID {i} repeats {u}");
        }
    }
}

/// While the clock steps back no more often than the clock sequences allow, v1 still
/// follows it back exactly.
#[test]
fn v1_follows_the_clock_back_16383_times() {
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, rng(36));
    for _ in 0..16_383 {
        clock.advance(Duration::from_micros(1));
        g.next().unwrap();
        clock.step_back(Duration::from_micros(1));
        let u = g.next().unwrap();
        let want = uuidkit::time::GregorianTimestamp::from_unix(clock.now()).unwrap();
        assert_eq!(u.timestamp().unwrap().raw(), want.ticks());
    }
}

/// At the end of the 60-bit Gregorian range every policy reports the end: no wrap to
/// 1582, no endless wait.
#[test]
fn gregorian_range_end_is_an_error_not_1582() {
    use uuidkit::time::GregorianTimestamp;
    let end = GregorianTimestamp::MAX.to_unix();
    for at in [
        end,
        UnixTime::new(end.secs() + 1_000_000, 0),
        UnixTime::new(i64::MAX, 999_999_999),
    ] {
        for version in [Version::V1, Version::V6] {
            for policy in [
                OverrunPolicy::Wait,
                OverrunPolicy::Error,
                OverrunPolicy::Advance,
            ] {
                let clock = ManualClock::new(at);
                let mut g =
                    GregorianGenerator::with_sources(version, &clock, rng(37)).with_overrun(policy);
                let u = g.next().unwrap();
                assert_eq!(
                    u.timestamp().unwrap().raw(),
                    GregorianTimestamp::MAX.ticks()
                );
                for _ in 0..3 {
                    assert!(
                        matches!(g.next(), Err(GenError::TimestampExhausted { .. })),
                        "{version:?} {policy:?} at {at}"
                    );
                }
                let v2 = g.next_v2(layout::v2::Domain::Person, 1);
                assert!(matches!(v2, Err(GenError::TimestampExhausted { .. })));
            }
        }
    }
    // A few ticks before the end: exactly the ticks that are left, then the error.
    let clock = ManualClock::new(
        GregorianTimestamp::from_ticks(GregorianTimestamp::MAX.ticks() - 4)
            .unwrap()
            .to_unix(),
    );
    let mut g = GregorianGenerator::with_sources(Version::V6, &clock, rng(38));
    let mut last = g.next().unwrap();
    for _ in 0..4 {
        let u = g.next().unwrap();
        assert!(u > last);
        last = u;
    }
    let e = g.next().unwrap_err();
    assert!(
        e.to_string().contains("5236-03-31T21:21:00.6846975Z"),
        "{e}"
    );
}

/// Far-future clocks neither panic nor wrap: every generator embeds the last value its
/// field holds and stays strictly increasing there.
#[test]
fn far_future_clocks_saturate() {
    let limits = [
        UnixTime::new(i64::MAX, 999_999_999),
        // Where Method 3's "× 4096" left 64 bits (the year 144,683).
        UnixTime::new(4_503_599_627_370_496 / 1000 + 1, 0),
        // One past the 48-bit millisecond range.
        UnixTime::from_millis(1 << 48),
    ];
    for at in limits {
        for m in METHODS {
            let clock = ManualClock::new(at);
            let mut g = V7Generator::with_sources(m, &clock, rng(39));
            let u = g.next();
            let f = layout::v7::decode(&u).unwrap();
            assert_eq!(f.unix_ts_ms, (1 << 48) - 1, "{m} at {at}");
            if m == V7Method::Precision {
                assert_eq!(f.rand_a, 0xfff, "the last 1/4096 ms");
            }
            assert_strictly_increasing(&format!("v7 {m} at {at}"), || g.next(), 1000);
        }
        let clock = ManualClock::new(at);
        let mut g = V8Generator::with_sources(&clock, rng(40));
        assert_strictly_increasing(&format!("v8 at {at}"), || g.next(), 1000);
    }
}

/// Clocks before an epoch count as the epoch itself, in every generator and layout: the
/// timestamp field is 0 and nothing of the reading's fraction leaks into the finer bits
/// (Method 3's `rand_a`, the draft layouts' sub-second units). The instants are the
/// last nanosecond before the epoch, the last one of the unit before it (where a
/// fraction would be largest), a whole second before, and the earliest instant there is.
#[test]
fn clocks_before_the_epoch_count_as_the_epoch() {
    use uuidkit::generator::draft::DraftGenerator;
    use uuidkit::layout::{Layout, decode_as};
    use uuidkit::time::GregorianTimestamp;

    fn before(epoch: UnixTime) -> [UnixTime; 6] {
        let ns = epoch.as_nanos();
        [
            epoch,
            UnixTime::from_nanos(ns - 1),
            UnixTime::from_nanos(ns - 99),
            UnixTime::from_nanos(ns - 999_999),
            UnixTime::from_nanos(ns - 1_000_000_000 + 1),
            UnixTime::MIN,
        ]
    }

    for at in before(UnixTime::EPOCH) {
        for m in METHODS {
            let clock = ManualClock::new(at);
            let u = V7Generator::with_sources(m, &clock, rng(41)).next();
            let f = layout::v7::decode(&u).unwrap();
            assert_eq!(f.unix_ts_ms, 0, "v7 {m} at {at}: {u}");
            if m == V7Method::Precision {
                assert_eq!(
                    f.rand_a, 0,
                    "v7 {m} at {at}: {u} has a sub-millisecond part"
                );
            }
        }
        let clock = ManualClock::new(at);
        let u = V8Generator::with_sources(&clock, rng(42)).next();
        let d = decode_as(&u, Layout::B1).unwrap();
        assert_eq!(d.timestamp, Some(0), "v8 (b1) at {at}: {u}");
        for layout in Layout::ALL {
            // b1 is the v8 above, b2 holds no time, and draft-v8-60 counts from 1582.
            if matches!(layout, Layout::B1 | Layout::B2) || layout.name() == "draft-v8-60" {
                continue;
            }
            let clock = ManualClock::new(at);
            let u = DraftGenerator::with_sources(layout, &clock, rng(43))
                .unwrap()
                .next();
            let d = decode_as(&u, layout).unwrap();
            assert_eq!(d.timestamp, Some(0), "{layout} at {at}: {u}");
            assert_eq!(d.sequence, Some(0), "{layout} at {at}: {u}");
        }
    }

    // The Gregorian ones: 1582-10-15 is their epoch.
    let gregorian_epoch = GregorianTimestamp::from_ticks(0).unwrap().to_unix();
    for at in before(gregorian_epoch) {
        for version in [Version::V1, Version::V6] {
            let clock = ManualClock::new(at);
            let u = GregorianGenerator::with_sources(version, &clock, rng(44))
                .next()
                .unwrap();
            assert_eq!(u.timestamp().unwrap().raw(), 0, "{version:?} at {at}: {u}");
        }
        let layout: Layout = "draft-v8-60".parse().unwrap();
        let clock = ManualClock::new(at);
        let u = DraftGenerator::with_sources(layout, &clock, rng(45))
            .unwrap()
            .next();
        let d = decode_as(&u, layout).unwrap();
        assert_eq!(d.timestamp, Some(0), "{layout} at {at}: {u}");
        assert_eq!(d.sequence, Some(0), "{layout} at {at}: {u}");
    }
}

/// A clock frozen at `T0_MS` that, once armed, reads that once more and then an hour
/// earlier for good: the step back lands while a generator waits out an overrun. After a
/// million readings past the step it jumps a second past `T0_MS`, so that a wait which
/// ignored the step ends (and the test fails on the count) instead of hanging forever.
struct SetBackDuringWait {
    armed: AtomicBool,
    reads: AtomicU64,
}

impl SetBackDuringWait {
    fn read(&self) -> UnixTime {
        if !self.armed.load(Ordering::SeqCst) {
            return UnixTime::from_millis(T0_MS);
        }
        match self.reads.fetch_add(1, Ordering::SeqCst) {
            0 => UnixTime::from_millis(T0_MS),
            1..1_000_000 => UnixTime::from_millis(T0_MS - 3_600_000),
            _ => UnixTime::from_millis(T0_MS + 1_000),
        }
    }
}

#[test]
fn a_clock_set_back_during_an_overrun_wait_ends_the_wait() {
    for version in [Version::V6, Version::V1] {
        let state = SetBackDuringWait {
            armed: AtomicBool::new(false),
            reads: AtomicU64::new(0),
        };
        let clock = FnClock(|| state.read());
        let mut g = GregorianGenerator::with_sources(version, &clock, rng(40))
            .with_overrun(OverrunPolicy::Wait);
        // Every tick up to MAX_AHEAD_TICKS past the frozen clock: the next UUID must wait.
        let mut last = g.next().unwrap();
        for _ in 0..MAX_AHEAD_TICKS {
            last = g.next().unwrap();
        }
        state.armed.store(true, Ordering::SeqCst);
        let u = g.next().unwrap();
        let reads = state.reads.load(Ordering::SeqCst);
        assert!(
            reads < 1_000,
            "{version:?}: the wait went on through {reads} readings of a clock set back an hour"
        );
        let hour_back =
            GregorianTimestamp::from_unix_clamped(UnixTime::from_millis(T0_MS - 3_600_000)).ticks();
        if version == Version::V6 {
            // v6 keeps its order: it counts on above the last timestamp.
            assert!(u > last, "v6 after the step is not above the one before");
        } else {
            // v1 follows the clock back under a new clock sequence.
            assert_eq!(u.timestamp().unwrap().raw(), hour_back);
            assert_ne!(u.clock_seq(), last.clock_seq());
        }
    }
}

/// The rustdoc of `V7Generator` ("Counter overflow"): with `Random` and a machine ID of B
/// bits, a millisecond holds about 1.5 × 2^(42 − B) UUIDs (the 74 − B bit value is seeded
/// below its middle and steps by 2^31 on average); past that the embedded time borrows
/// the next millisecond, ahead of a clock that stands still, and order holds.
#[test]
fn v7_random_with_a_31_bit_machine_id_borrows_a_millisecond_every_3000_or_so() {
    let clock = ManualClock::at_millis(T0_MS);
    let id = uuidkit::node::machine_id::MachineId::new(0x7fff_ffff, 31).unwrap();
    let mut g = V7Generator::with_sources(V7Method::Random, &clock, rng(43))
        .with_machine_id(id)
        .unwrap();
    let n = 300_000u64;
    let mut last = g.next();
    for _ in 1..n {
        let u = g.next();
        assert!(u > last);
        last = u;
    }
    let ms = layout::v7::decode(&last).unwrap().unix_ts_ms - T0_MS;
    let per_ms = n / ms.max(1);
    assert!(
        (2_000..=4_500).contains(&per_ms),
        "{per_ms} UUIDs a millisecond ({ms} ms ahead of a frozen clock after {n})"
    );
}
