//! The collision formulas of `uuidkit::collisions`, checked by simulation.
//!
//! Each simulated host is a real generator of the library on a manual clock, with a
//! random source that has only a few bits of entropy per draw: `next_u64` (what seeds
//! counters and draws nodes) keeps `seed_bits` random low bits, `next_u32` (random tails,
//! steps, clock sequences) keeps `tail_bits`. Collisions are then frequent enough to
//! count. Every UUID of every host goes into one map; the colliding pairs counted are
//! compared with what the module's model gives for the same reduced entropy (the bits a
//! mode's derivation counts, with each source cut to the simulated width).
//!
//! Tolerance: the counts are sums of many rare, nearly independent events, so Poisson:
//! a count within 4.5 standard deviations (√E) of E, plus 3% for the approximations of
//! the derivation (counter ranges near the ends of their space). A wrong formula (a bit
//! too many or too few: a factor of 2) falls far outside that at the sizes used here.

use std::collections::HashMap;
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use uuidkit::Uuid;
use uuidkit::Version;
use uuidkit::collisions::{Fleet, Model, SECONDS_PER_YEAR};
use uuidkit::generator::gregorian::GregorianGenerator;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::generator::v8::V8Generator;
use uuidkit::node::NodeStrategy;
use uuidkit::time::ManualClock;
use uuidkit::time::UnixTime;

/// A random source with `seed_bits` random bits in each `next_u64` and `tail_bits` in
/// each `next_u32` (the rest zero).
struct FewBits {
    inner: ChaCha8Rng,
    seed_bits: u32,
    tail_bits: u32,
}

impl FewBits {
    fn new(host: u64, seed_bits: u32, tail_bits: u32) -> FewBits {
        FewBits {
            inner: ChaCha8Rng::seed_from_u64(0x5eed_0000 + host),
            seed_bits,
            tail_bits,
        }
    }
}

fn low(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

impl RngCore for FewBits {
    fn next_u32(&mut self) -> u32 {
        low(self.inner.next_u64(), self.tail_bits) as u32
    }

    fn next_u64(&mut self) -> u64 {
        low(self.inner.next_u64(), self.seed_bits)
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Colliding pairs among `uuids`.
fn colliding_pairs(uuids: impl IntoIterator<Item = Uuid>) -> u64 {
    let mut seen: HashMap<Uuid, u64> = HashMap::new();
    for u in uuids {
        *seen.entry(u).or_default() += 1;
    }
    seen.values().map(|&c| c * (c - 1) / 2).sum()
}

/// The model's expected pairs for `hosts` hosts making `per_unit` UUIDs in each of
/// `units` units of `unit` seconds.
fn expected(model: Model, hosts: u64, units: u64, per_unit: f64) -> f64 {
    let unit = match model {
        Model::PerUnit { unit, .. } | Model::Sequenced { unit, .. } => unit,
        Model::HostIdentity { .. } => 1e-7,
        _ => 1.0,
    };
    let fleet = Fleet {
        hosts: hosts as f64,
        rate: per_unit / unit,
        years: units as f64 * unit / SECONDS_PER_YEAR,
    };
    model.estimate(&fleet).expected_pairs
}

fn assert_within_poisson(what: &str, observed: u64, expected: f64) {
    let tolerance = 4.5 * expected.sqrt() + 0.03 * expected;
    eprintln!("{what}: observed {observed}, expected {expected:.1} ± {tolerance:.1}");
    assert!(
        expected > 50.0,
        "{what}: too few expected to check ({expected})"
    );
    assert!(
        (observed as f64 - expected).abs() <= tolerance,
        "{what}: observed {observed} colliding pairs, the model expects {expected:.1} ± {tolerance:.1}"
    );
}

/// H hosts, each a v7 generator with `method`, making `k` UUIDs in each of `units`
/// milliseconds (or 1/4096 ms units for Precision).
fn simulate_v7(
    method: V7Method,
    hosts: u64,
    units: u64,
    k: usize,
    seed_bits: u32,
    tail_bits: u32,
) -> u64 {
    let step = match method {
        V7Method::Precision => Duration::from_nanos(1_000_000 / 4096 + 1),
        _ => Duration::from_millis(1),
    };
    let mut all = Vec::new();
    for h in 0..hosts {
        let clock = ManualClock::at_millis(1_700_000_000_000);
        let mut g =
            V7Generator::with_sources(method, &clock, FewBits::new(h, seed_bits, tail_bits));
        for _ in 0..units {
            for _ in 0..k {
                all.push(g.next());
            }
            clock.advance(step);
        }
    }
    colliding_pairs(all)
}

#[test]
fn v7_counter_matches_its_model() {
    // 41-bit seed cut to 10 bits, 32-bit tail cut to 10: 20 bits a millisecond.
    let (hosts, units, k) = (8, 4000, 32);
    let observed = simulate_v7(V7Method::Counter, hosts, units, k, 10, 10);
    let model = Model::PerUnit {
        unit: 1e-3,
        bits: 20.0,
    };
    assert_within_poisson(
        "v7 counter",
        observed,
        expected(model, hosts, units, k as f64),
    );
}

#[test]
fn v7_random_matches_its_model() {
    // The 74-bit value's 73-bit seed is two draws: 12 random low bits, and 9 random bits
    // at the top (bits 64–72, the second draw's low 9). Steps of 1 to 32 (tail bits 5)
    // keep a millisecond's 8 values within a span far below 2^12, and far enough apart
    // that two hosts whose spans overlap rarely meet twice (which would bunch the count).
    let (hosts, units, k) = (16, 30_000, 8);
    let observed = simulate_v7(V7Method::Random, hosts, units, k, 12, 5);
    let model = Model::PerUnit {
        unit: 1e-3,
        bits: 21.0,
    };
    assert_within_poisson(
        "v7 random",
        observed,
        expected(model, hosts, units, k as f64),
    );
}

#[test]
fn v7_precision_matches_its_model() {
    // Units of 1/4096 ms; the 30-bit counter's 29-bit seed cut to 10 bits, tail to 10.
    let (hosts, units, k) = (8, 4000, 32);
    let observed = simulate_v7(V7Method::Precision, hosts, units, k, 10, 10);
    let model = Model::PerUnit {
        unit: 1e-3 / 4096.0,
        bits: 20.0,
    };
    assert_within_poisson(
        "v7 precision",
        observed,
        expected(model, hosts, units, k as f64),
    );
}

#[test]
fn v8_time_based_matches_its_model() {
    // 10 ns units; 29-bit seed cut to 10 bits, tail to 10.
    let (hosts, units, k) = (8, 4000, 32);
    let mut all = Vec::new();
    for h in 0..hosts {
        let clock = ManualClock::at_millis(1_700_000_000_000);
        let mut g = V8Generator::with_sources(&clock, FewBits::new(h, 10, 10));
        for _ in 0..units {
            for _ in 0..k {
                all.push(g.next());
            }
            clock.advance(Duration::from_nanos(10));
        }
    }
    let model = Model::PerUnit {
        unit: 1e-8,
        bits: 20.0,
    };
    assert_within_poisson(
        "v8",
        colliding_pairs(all),
        expected(model, hosts, units, k as f64),
    );
}

#[test]
fn v4_matches_the_birthday_bound() {
    // 16 random bytes of which the last 3 vary (the v4 layout keeps them): 24 bits.
    let n = 50_000u64;
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let uuids = (0..n).map(|_| {
        let mut b = [0u8; 16];
        b[13..].copy_from_slice(&rng.next_u32().to_le_bytes()[..3]);
        uuidkit::layout::v4::encode(b)
    });
    let observed = colliding_pairs(uuids);
    let model = Model::Birthday { bits: 24.0 };
    let fleet = Fleet {
        hosts: 1.0,
        rate: n as f64,
        years: 1.0 / SECONDS_PER_YEAR,
    };
    assert_within_poisson("v4", observed, model.estimate(&fleet).expected_pairs);
}

/// v1 hosts on one 100 ns tick clock: in each tick each host makes a UUID with
/// probability `p`. Hosts run one after another (a generator is dropped before the next
/// starts), as on separate machines: in one process the library keeps live generators'
/// clock sequences apart.
fn simulate_v1(
    node: NodeStrategy,
    hosts: u64,
    ticks: u64,
    p: f64,
    seed_bits: u32,
    tail_bits: u32,
) -> Vec<Vec<Uuid>> {
    let mut schedule = ChaCha8Rng::seed_from_u64(1);
    let start = UnixTime::new(1_700_000_000, 0);
    (0..hosts)
        .map(|h| {
            let clock = ManualClock::new(start);
            let mut g = GregorianGenerator::with_sources(
                Version::V1,
                &clock,
                FewBits::new(h, seed_bits, tail_bits),
            )
            .with_node(node.clone());
            let mut mine = Vec::new();
            for _ in 0..ticks {
                if (schedule.next_u64() as f64) < p * u64::MAX as f64 {
                    mine.push(g.next().unwrap());
                }
                clock.advance(Duration::from_nanos(100));
            }
            mine
        })
        .collect()
}

#[test]
fn v1_with_a_node_per_uuid_matches_its_model() {
    // A node per UUID, 8 random bits of its 47; the clock sequence the same for every
    // host (tail bits 0), so only the node keeps two UUIDs of one tick apart.
    let (hosts, ticks, p) = (8, 20_000, 0.5);
    let per_host = simulate_v1(NodeStrategy::Random, hosts, ticks, p, 8, 0);
    let observed = colliding_pairs(per_host.into_iter().flatten());
    let model = Model::PerUnit {
        unit: 1e-7,
        bits: 8.0,
    };
    assert_within_poisson(
        "v1 node per UUID",
        observed,
        expected(model, hosts, ticks, p),
    );
}

#[test]
fn v1_with_a_fixed_node_clashes_by_host_pair_as_its_model_says() {
    // Node per generator: 3 random bits, clock sequence 3: a 6-bit identity. Two hosts
    // with one identity collide at about every tick both use; the model's probability
    // is that of a shared identity, so count host pairs that collided.
    let (hosts, ticks, p) = (96u64, 400, 0.5);
    let per_host = simulate_v1(NodeStrategy::Static, hosts, ticks, p, 3, 3);
    let sets: Vec<std::collections::HashSet<Uuid>> = per_host
        .iter()
        .map(|v| v.iter().copied().collect())
        .collect();
    let mut clashing_pairs = 0u64;
    let mut uuid_pairs = 0u64;
    for a in 0..sets.len() {
        for b in a + 1..sets.len() {
            let common = sets[a].intersection(&sets[b]).count() as u64;
            clashing_pairs += u64::from(common > 0);
            uuid_pairs += common;
        }
    }
    let host_pairs = (hosts * (hosts - 1) / 2) as f64;
    let q = 1.0 - (-(ticks as f64) * p * p).exp();
    let expected_clashing = host_pairs * q / 2f64.powi(6);
    assert_within_poisson(
        "v1 fixed node, clashing host pairs",
        clashing_pairs,
        expected_clashing,
    );
    // And the UUID pairs: the model's expectation (every clash is about ticks·p² pairs).
    let model = Model::HostIdentity { bits: 6.0 };
    let e = expected(model, hosts, ticks, p);
    let per_clash = ticks as f64 * p * p;
    let tolerance = 4.5 * expected_clashing.sqrt() * per_clash + 0.03 * e;
    assert!(
        (uuid_pairs as f64 - e).abs() <= tolerance,
        "v1 fixed node: {uuid_pairs} colliding UUID pairs, the model expects {e:.0} ± {tolerance:.0}"
    );
}

/// H hosts of a draft layout, each making `k` UUIDs in each unit it is active in
/// (active with probability `p`), over `units` units.
fn simulate_draft(layout: &str, hosts: u64, units: u64, k: usize, p: f64, node_bits: u32) -> u64 {
    let layout: uuidkit::layout::Layout = layout.parse().unwrap();
    let mut schedule = ChaCha8Rng::seed_from_u64(2);
    let mut all = Vec::new();
    for h in 0..hosts {
        let clock = ManualClock::at_millis(1_700_000_000_000);
        let mut g = uuidkit::generator::draft::DraftGenerator::with_sources(
            layout,
            &clock,
            FewBits::new(h, node_bits, 0),
        )
        .unwrap();
        for _ in 0..units {
            if (schedule.next_u64() as f64) < p * u64::MAX as f64 {
                for _ in 0..k {
                    all.push(g.next());
                }
            }
            clock.advance(Duration::from_millis(1));
        }
    }
    colliding_pairs(all)
}

#[test]
fn draft_layouts_match_the_sequence_from_zero_model() {
    // draft-v8-48: millisecond units, a sequence from 0, then random node bits (cut to
    // 10). Busy hosts (8 a unit) share 8 sequence values a unit; idle ones (half the
    // units, one UUID) share sequence 0 a quarter of the time.
    let model = Model::Sequenced {
        unit: 1e-3,
        bits: 10.0,
    };
    let observed = simulate_draft("draft-v8-48", 8, 500, 8, 1.0, 10);
    assert_within_poisson(
        "draft-v8-48, 8 a unit",
        observed,
        expected(model, 8, 500, 8.0),
    );
    let observed = simulate_draft("draft-v8-48", 8, 16_000, 1, 0.5, 10);
    assert_within_poisson(
        "draft-v8-48, half the units",
        observed,
        expected(model, 8, 16_000, 0.5),
    );
}
