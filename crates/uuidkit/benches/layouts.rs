//! The generators beyond RFC 9562's versions: the sharded v1 generator against the one
//! process-wide v1 generator (both from two threads at once, aggregate time per UUID),
//! and each draft layout's generator against the Appendix B.1 v8 generator. Run with
//! `cargo bench -p uuidkit --bench layouts`.
//!
//! Each iteration makes 1,024 UUIDs with `black_box` on each.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use uuidkit::Version;
use uuidkit::generator::draft::DraftGenerator;
use uuidkit::generator::sharded::ShardedGregorian;
use uuidkit::generator::v8::V8Generator;
use uuidkit::layout::Layout;

const N: u64 = 1024;

/// Aggregate time for `iters × N` UUIDs from two threads, each making half.
fn two_threads(iters: u64, make: &(impl Fn() -> uuidkit::Uuid + Sync)) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(move || {
                for _ in 0..iters * N / 2 {
                    black_box(make());
                }
            });
        }
    });
    start.elapsed()
}

fn sharded_v1(c: &mut Criterion) {
    // Past 10 million a second the single generator waits for the clock; two shards have
    // a budget each.
    let mut g = c.benchmark_group("v1 2 threads");
    g.throughput(Throughput::Elements(N));
    g.bench_function("process-wide", |b| {
        b.iter_custom(|iters| two_threads(iters, &uuidkit::v1))
    });
    let sharded = ShardedGregorian::new(Version::V1, 2).expect("two free clock sequences");
    g.bench_function("sharded 2", |b| {
        b.iter_custom(|iters| two_threads(iters, &|| sharded.next().expect("v1 range")))
    });
    g.finish();
}

fn draft_generators(c: &mut Criterion) {
    let mut g = c.benchmark_group("v8 generators");
    g.throughput(Throughput::Elements(N));
    let mut b1 = V8Generator::new();
    g.bench_function("b1", |b| {
        b.iter(|| {
            for _ in 0..N {
                black_box(b1.next());
            }
        })
    });
    for layout in Layout::ALL {
        let Ok(mut gen_) = DraftGenerator::new(layout) else {
            continue;
        };
        g.bench_function(layout.name(), |b| {
            b.iter(|| {
                for _ in 0..N {
                    black_box(gen_.next());
                }
            })
        });
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    sharded_v1(&mut c);
    draft_generators(&mut c);
    c.final_summary();
}
