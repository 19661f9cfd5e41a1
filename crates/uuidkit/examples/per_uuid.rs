//! Makes UUIDs in a loop, for counting instructions per UUID under callgrind, where
//! timings on a shared machine are too noisy:
//!
//! ```sh
//! cargo build --release -p uuidkit --example per_uuid
//! valgrind --tool=callgrind target/release/examples/per_uuid v7 1000000
//! ```
//!
//! The operations: `v4`, `v4_fill`, `v7`, `v7_fill`, `random` (16 bytes of the CSPRNG,
//! drawn in bulk), `clock` (one system clock read). Each run makes the count twice, a
//! warm-up pass (the tick counter's rate is measured in the first milliseconds) and a
//! timed one; instructions per UUID are (count for 2N − count for N) / 2N, which
//! leaves start-up out.

use std::hint::black_box;

use uuidkit::random::{Csprng, RngCore};
use uuidkit::{Uuid, v4, v4_fill, v7, v7_fill};

fn run(op: &str, n: usize) {
    let mut batch = vec![Uuid::NIL; 1024];
    match op {
        "v4" => (0..n).for_each(|_| {
            black_box(v4());
        }),
        "v7" => (0..n).for_each(|_| {
            black_box(v7());
        }),
        "v4_fill" => (0..n / 1024).for_each(|_| {
            v4_fill(&mut batch);
            black_box(&batch);
        }),
        "v7_fill" => (0..n / 1024).for_each(|_| {
            v7_fill(&mut batch);
            black_box(&batch);
        }),
        "random" => {
            let mut bytes = vec![0u8; 16 * 1024];
            (0..n / 1024).for_each(|_| {
                Csprng.fill_bytes(&mut bytes);
                black_box(&bytes);
            })
        }
        "clock" => (0..n).for_each(|_| {
            black_box(std::time::SystemTime::now());
        }),
        _ => {
            eprintln!(
                "per_uuid: unknown operation {op:?}: v4, v4_fill, v7, v7_fill, random, clock"
            );
            std::process::exit(2);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("v7", String::as_str);
    let n = match args.get(2).map(|s| s.parse::<usize>()) {
        None => 1_000_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("per_uuid: count {:?}: {e}", args[2]);
            std::process::exit(2);
        }
    };
    run(op, n);
    let start = std::time::Instant::now();
    run(op, n);
    let t = start.elapsed();
    eprintln!(
        "{op}: {n} in {t:?}, {:.2} ns each",
        t.as_nanos() as f64 / n as f64
    );
}
