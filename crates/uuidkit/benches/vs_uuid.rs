//! uuidkit against the `uuid` crate, same group, same run: every row of the performance
//! table in docs/performance.md. Run with `cargo bench -p uuidkit --bench vs_uuid`; the last thing
//! printed is the table, with the ratio `uuid` time / uuidkit time (higher is better).
//!
//! Each iteration goes through 1,024 distinct UUIDs (or their texts), or makes 1,024
//! UUIDs, with `black_box` on inputs and outputs, so neither side can fold a constant; the
//! table divides by 1,024.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use uuidkit::{Case, Format};

const N: usize = 1024;

fn inputs() -> Vec<uuidkit::Uuid> {
    (0..N).map(|_| uuidkit::v4()).collect()
}

fn texts(f: Format) -> Vec<String> {
    inputs()
        .iter()
        .map(|u| u.format(f, Case::Lower).to_string())
        .collect()
}

fn parse(c: &mut Criterion) {
    for (name, f) in [
        ("hyphenated", Format::Hyphenated),
        ("simple", Format::Simple),
        ("braced", Format::Braced),
        ("urn", Format::Urn),
    ] {
        let ts = texts(f);
        let mut g = c.benchmark_group(format!("parse {name}"));
        g.throughput(Throughput::Elements(N as u64));
        // Each iteration goes through all N texts and folds every result into one word
        // (the same way for both crates), which keeps each parse live without storing
        // its whole `Result`; criterion's own `black_box` would read a returned value
        // byte by byte, so the closures return ().
        g.bench_function("uuidkit", |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for t in &ts {
                    acc ^= uuidkit::Uuid::parse_str(black_box(t)).map_or(1, |u| u.as_u128() as u64);
                }
                black_box(acc);
            })
        });
        g.bench_function("uuid", |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for t in &ts {
                    acc ^= uuid::Uuid::parse_str(black_box(t)).map_or(1, |u| u.as_u128() as u64);
                }
                black_box(acc);
            })
        });
        g.finish();
    }
}

fn format(c: &mut Criterion) {
    let ours = inputs();
    let theirs: Vec<uuid::Uuid> = ours
        .iter()
        .map(|u| uuid::Uuid::from_bytes(*u.as_bytes()))
        .collect();
    let mut g = c.benchmark_group("format hyphenated");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| {
            for u in &ours {
                black_box(black_box(u).format(Format::Hyphenated, Case::Lower));
            }
        })
    });
    g.bench_function("uuid", |b| {
        let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
        b.iter(|| {
            for u in &theirs {
                black_box(black_box(u).hyphenated().encode_lower(&mut buf));
            }
        })
    });
    g.finish();
}

fn generate(c: &mut Criterion) {
    // The floor under every time-based row: one read of the system clock.
    c.bench_function("system clock read", |b| {
        b.iter(|| black_box(std::time::SystemTime::now()))
    });

    // The floor under v4: the default random source's own cost for N × 16 bytes, drawn
    // in one call (whole kilobytes of keystream written straight into the buffer).
    let mut g = c.benchmark_group("random source 16 bytes");
    g.throughput(Throughput::Bytes(16 * N as u64));
    let mut bytes = vec![0u8; 16 * N];
    g.bench_function("uuidkit", |b| {
        b.iter(|| {
            uuidkit::random::RngCore::fill_bytes(&mut uuidkit::random::Csprng, &mut bytes);
            black_box(&bytes);
        })
    });
    // The fallback cipher (no AES instructions), for comparison with the default.
    let mut chacha8 = <rand_chacha::ChaCha8Rng as uuidkit::random::SeedableRng>::from_seed([7; 32]);
    g.bench_function("chacha8", |b| {
        b.iter(|| {
            uuidkit::random::RngCore::fill_bytes(&mut chacha8, &mut bytes);
            black_box(&bytes);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("v4");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| repeat(|| black_box(uuidkit::v4())))
    });
    g.bench_function("uuid", |b| {
        b.iter(|| repeat(|| black_box(uuid::Uuid::new_v4())))
    });
    g.finish();

    // The batch API against as many single calls of `uuid` (which has no batch API).
    let mut batch = vec![uuidkit::Uuid::NIL; N];
    let mut g = c.benchmark_group("v4_fill");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| {
            uuidkit::v4_fill(&mut batch);
            black_box(&batch);
        })
    });
    g.bench_function("uuid", |b| {
        b.iter(|| repeat(|| black_box(uuid::Uuid::new_v4())))
    });
    g.finish();

    let mut g = c.benchmark_group("v7");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| repeat(|| black_box(uuidkit::v7())))
    });
    g.bench_function("uuid", |b| {
        b.iter(|| repeat(|| black_box(uuid::Uuid::now_v7())))
    });
    g.finish();

    let mut g = c.benchmark_group("v7_fill");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| {
            uuidkit::v7_fill(&mut batch);
            black_box(&batch);
        })
    });
    g.bench_function("uuid", |b| {
        b.iter(|| repeat(|| black_box(uuid::Uuid::now_v7())))
    });
    g.finish();

    // Aggregate time per UUID with two threads generating at once: the ratio to the
    // one-thread time is the scaling factor.
    let mut g = c.benchmark_group("v7 2 threads");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter_custom(|iters| two_threads(iters, uuidkit::v7))
    });
    g.bench_function("uuid", |b| {
        b.iter_custom(|iters| {
            two_threads(iters, || {
                uuidkit::Uuid::from_bytes(*uuid::Uuid::now_v7().as_bytes())
            })
        })
    });
    g.finish();
    // The per-thread option: a `V7Generator` of each thread's own, ordered within the
    // thread only (no shared word), on one thread and on two.
    let mut g = c.benchmark_group("v7 per thread");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| repeat(|| black_box(per_thread_v7())))
    });
    g.bench_function("uuid", |b| {
        b.iter(|| repeat(|| black_box(uuid::Uuid::now_v7())))
    });
    g.finish();
    let mut g = c.benchmark_group("v7 per thread 2 threads");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter_custom(|iters| two_threads(iters, per_thread_v7))
    });
    g.bench_function("uuid", |b| {
        b.iter_custom(|iters| {
            two_threads(iters, || {
                uuidkit::Uuid::from_bytes(*uuid::Uuid::now_v7().as_bytes())
            })
        })
    });
    g.finish();
    let mut g = c.benchmark_group("v7_fill 2 threads");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| b.iter_custom(two_threads_fill));
    g.bench_function("uuid", |b| {
        b.iter_custom(|iters| {
            two_threads(iters, || {
                uuidkit::Uuid::from_bytes(*uuid::Uuid::now_v7().as_bytes())
            })
        })
    });
    g.finish();

    let node = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab];
    let mut g = c.benchmark_group("v1");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| repeat(|| black_box(uuidkit::v1())))
    });
    g.bench_function("uuid", |b| {
        b.iter(|| repeat(|| black_box(uuid::Uuid::now_v1(&node))))
    });
    g.finish();
    let mut g = c.benchmark_group("v6");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        b.iter(|| repeat(|| black_box(uuidkit::v6())))
    });
    g.bench_function("uuid", |b| {
        b.iter(|| repeat(|| black_box(uuid::Uuid::now_v6(&node))))
    });
    g.finish();
}

/// Owned generators, one thread: the single-thread rate of each.
fn owned_generators(c: &mut Criterion) {
    use uuidkit::generator::{
        gregorian::GregorianGenerator, v7::V7Generator, v7::V7Method, v8::V8Generator,
    };
    let mut g = c.benchmark_group("generator");
    g.throughput(Throughput::Elements(1));
    for m in [V7Method::Counter, V7Method::Random, V7Method::Precision] {
        let mut gen7 = V7Generator::new(m);
        g.bench_function(format!("v7 {m}"), |b| b.iter(|| black_box(gen7.next())));
        let mut gen7 = V7Generator::new(m);
        let mut batch = [uuidkit::Uuid::NIL; 256];
        g.bench_function(format!("v7 {m} fill 256"), |b| {
            b.iter(|| {
                gen7.fill(&mut batch);
                black_box(&batch);
            })
        });
    }
    let mut gen8 = V8Generator::new();
    g.bench_function("v8", |b| b.iter(|| black_box(gen8.next())));
    let mut gen1 = GregorianGenerator::v1();
    g.bench_function("v1", |b| b.iter(|| black_box(gen1.next())));
    let mut gen6 = GregorianGenerator::v6();
    g.bench_function("v6", |b| b.iter(|| black_box(gen6.next())));
    g.finish();
}

/// A v7 from this thread's own generator (Method 1, the counter): strictly increasing
/// within the thread, apart from other threads' by its random bits.
fn per_thread_v7() -> uuidkit::Uuid {
    use uuidkit::generator::v7::{V7Generator, V7Method};
    thread_local! {
        static GEN: std::cell::RefCell<V7Generator> =
            const { std::cell::RefCell::new(V7Generator::new(V7Method::Counter)) };
    }
    GEN.with(|g| g.borrow_mut().next())
}

/// N calls a benchmark iteration, like the N inputs of the codec rows.
#[inline(always)]
fn repeat<T>(mut f: impl FnMut() -> T) {
    for _ in 0..N {
        f();
    }
}

fn two_threads(iters: u64, make: fn() -> uuidkit::Uuid) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(move || {
                for _ in 0..iters * N as u64 / 2 {
                    black_box(make());
                }
            });
        }
    });
    start.elapsed()
}

/// Two threads filling batches of N: `iters` batches in all.
fn two_threads_fill(iters: u64) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..2 {
            // Thread 0 takes the odd one out.
            let n = iters / 2 + u64::from(t == 0 && iters % 2 == 1);
            s.spawn(move || {
                let mut batch = vec![uuidkit::Uuid::NIL; N];
                for _ in 0..n {
                    uuidkit::v7_fill(&mut batch);
                    black_box(&batch);
                }
            });
        }
    });
    start.elapsed()
}

/// Criterion's point estimate (mean, ns) for one benchmark, from its saved results.
fn estimate(group: &str, id: &str) -> Option<f64> {
    let dir = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "../../target".into());
    let path = format!("{dir}/criterion/{group}/{id}/new/estimates.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

fn table() {
    println!("\n| operation | uuidkit | uuid | ratio (uuid / uuidkit) |");
    println!("|---|---|---|---|");
    for group in [
        "parse hyphenated",
        "parse simple",
        "parse braced",
        "parse urn",
        "format hyphenated",
        "v4",
        "v4_fill",
        "v7",
        "v7_fill",
        "v7 2 threads",
        "v7_fill 2 threads",
        "v1",
        "v6",
    ] {
        let per_op = |id| estimate(group, id).map(|t| t / N as f64);
        match (per_op("uuidkit"), per_op("uuid")) {
            (Some(a), Some(b)) => println!(
                "| {group} | {a:.2} ns ({:.1} M/s) | {b:.2} ns | {:.2}× |",
                1e3 / a,
                b / a
            ),
            _ => println!("| {group} | (not run) | | |"),
        }
    }
    if let (Some(one), Some(two)) = (
        estimate("v7", "uuidkit"),
        estimate("v7 2 threads", "uuidkit"),
    ) {
        // Both are per N UUIDs, so the ratio needs no scaling.
        println!(
            "\nuuidkit v7, 2 threads aggregate / 1 thread rate: {:.2}×",
            one / two
        );
    }
    if let (Some(one), Some(two)) = (
        estimate("v7_fill", "uuidkit"),
        estimate("v7_fill 2 threads", "uuidkit"),
    ) {
        println!(
            "uuidkit v7_fill, 2 threads aggregate / 1 thread rate: {:.2}×",
            one / two
        );
    }
    if let (Some(rng), Some(v4)) = (
        estimate("random source 16 bytes", "uuidkit"),
        estimate("v4", "uuidkit"),
    ) {
        println!(
            "random source ({}): {:.2} ns per 16 bytes; v4 / random source: {:.2}×",
            uuidkit::random::cipher(),
            rng / N as f64,
            v4 / rng
        );
    }
    if let Some(chacha8) = estimate("random source 16 bytes", "chacha8") {
        println!("ChaCha8: {:.2} ns per 16 bytes", chacha8 / N as f64);
    }
    println!("\n| owned generator, one thread | time per UUID | UUIDs per second |");
    println!("|---|---|---|");
    for id in ["v7 counter", "v7 random", "v7 precision", "v8", "v1", "v6"] {
        if let Some(t) = estimate("generator", id) {
            println!("| {id} | {t:.2} ns | {:.1} M |", 1e3 / t);
        }
    }
    for id in [
        "v7 counter fill 256",
        "v7 random fill 256",
        "v7 precision fill 256",
    ] {
        if let Some(t) = estimate("generator", id) {
            println!(
                "| {id} (per UUID) | {:.2} ns | {:.1} M |",
                t / 256.0,
                256e3 / t
            );
        }
    }
    if let Some(clock) = estimate("system clock read", "") {
        println!("one system clock read (SystemTime::now): {clock:.2} ns");
    }
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    parse(&mut c);
    format(&mut c);
    generate(&mut c);
    owned_generators(&mut c);
    c.final_summary();
    table();
}
