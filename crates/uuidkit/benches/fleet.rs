//! A leased machine ID against a fixed one: v7 generation through `FleetGenerator`
//! (fenced, under the high-water mark, renewals on their own thread) against
//! `V7Generator::with_machine_id`, one UUID at a time and in batches of 256; and the time
//! to claim an ID from a 3-member etcd cluster (p50, p99 over 200 claims) and the paired
//! ratios (see `paired`), printed before criterion's benchmarks. The bench starts its own etcd on loopback (Debian's etcd-server; see
//! scripts/setup). Run with `cargo bench -p uuidkit --features etcd --bench fleet`.

#[path = "../tests/etcd_cluster.rs"]
mod etcd_cluster;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use uuidkit::Uuid;
use uuidkit::fleet::{FleetConfig, FleetGenerator, LeasedId, Placement};
use uuidkit::generator::machine_id::MachineId;
use uuidkit::generator::v7::{V7Generator, V7Method};

use etcd_cluster::EtcdCluster;

const BATCH: usize = 256;

fn claim_latency(cluster: &EtcdCluster) {
    let cfg = FleetConfig::new(&cluster.endpoints_arg(), "bench-claim", 4).unwrap();
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            let t = Instant::now();
            let id = LeasedId::claim(&cfg).unwrap();
            let took = t.elapsed();
            id.release();
            took
        })
        .collect();
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "claim from a 3-member cluster, 200 claims: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        p(0.5).as_secs_f64() * 1e3,
        p(0.99).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3
    );
}

/// Leased against fixed, paired: 301 rounds, each timing 64 batches (or 16,384 single
/// UUIDs) of one and then of the other, in turn; the median of the rounds' ratios. On a
/// shared machine whose speed drifts by more than the difference between the two,
/// criterion's separate runs (below) can disagree from one call to the next; the ratio of
/// neighbouring rounds does not drift with it.
fn paired(ids: &Ids, fixed: MachineId) {
    for method in V7Method::ALL {
        let mut own = V7Generator::new(method).with_machine_id(fixed).unwrap();
        let mut leased = FleetGenerator::v7(ids.of(method), method).unwrap();
        let mut buf = [Uuid::NIL; BATCH];
        let mut batch_ratios = Vec::new();
        let mut single_ratios = Vec::new();
        for _ in 0..301 {
            let t = Instant::now();
            for _ in 0..64 {
                own.fill(&mut buf);
                black_box(&buf);
            }
            let a = t.elapsed();
            let t = Instant::now();
            for _ in 0..64 {
                leased.try_fill(&mut buf).unwrap();
                black_box(&buf);
            }
            batch_ratios.push(t.elapsed().as_secs_f64() / a.as_secs_f64());
            let t = Instant::now();
            for _ in 0..16_384 {
                black_box(own.next());
            }
            let a = t.elapsed();
            let t = Instant::now();
            for _ in 0..16_384 {
                black_box(leased.try_next().unwrap());
            }
            single_ratios.push(t.elapsed().as_secs_f64() / a.as_secs_f64());
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "v7 {method}: leased / fixed machine ID, median of 301 paired rounds: \
             batches of {BATCH} {:.3}, one at a time {:.3}",
            median(&mut batch_ratios),
            median(&mut single_ratios)
        );
    }
}

/// An ID for each placement the v7 methods need (a fleet has one placement).
struct Ids {
    v7: Arc<LeasedId>,
    random: Arc<LeasedId>,
}

impl Ids {
    fn of(&self, method: V7Method) -> Arc<LeasedId> {
        match Placement::of_v7(method) {
            Placement::V7Random => self.random.clone(),
            _ => self.v7.clone(),
        }
    }
}

fn main() {
    let cluster = EtcdCluster::start(3);
    claim_latency(&cluster);
    let claim = |fleet: &str, placement| {
        let cfg = FleetConfig::new(&cluster.endpoints_arg(), fleet, 4)
            .unwrap()
            .with_placement(placement);
        Arc::new(LeasedId::claim(&cfg).unwrap())
    };
    let ids = Ids {
        v7: claim("bench", Placement::V7),
        random: claim("bench-random", Placement::V7Random),
    };
    let fixed = MachineId::new(ids.v7.machine_id().value(), 4).unwrap();
    paired(&ids, fixed);

    let mut c = Criterion::default().configure_from_args();
    for method in V7Method::ALL {
        let mut g = c.benchmark_group(format!("v7 {method} machine ID, one at a time"));
        g.throughput(Throughput::Elements(1));
        let mut own = V7Generator::new(method).with_machine_id(fixed).unwrap();
        g.bench_function("fixed", |b| b.iter(|| black_box(own.next())));
        let mut leased = FleetGenerator::v7(ids.of(method), method).unwrap();
        g.bench_function("leased", |b| {
            b.iter(|| black_box(leased.try_next().unwrap()))
        });
        g.finish();

        let mut g = c.benchmark_group(format!("v7 {method} machine ID, batches of {BATCH}"));
        g.throughput(Throughput::Elements(BATCH as u64));
        let mut buf = [Uuid::NIL; BATCH];
        g.bench_function("fixed", |b| {
            b.iter(|| {
                own.fill(&mut buf);
                black_box(&buf);
            })
        });
        g.bench_function("leased", |b| {
            b.iter(|| {
                leased.try_fill(&mut buf).unwrap();
                black_box(&buf);
            })
        });
        g.finish();
    }
    c.final_summary();
}
