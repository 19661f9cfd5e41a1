//! Makes UUIDs in a loop, for counting instructions per UUID under callgrind, where
//! timings on a shared machine are too noisy:
//!
//! ```sh
//! cargo build --release -p uuidkit --example per_uuid
//! valgrind --tool=callgrind target/release/examples/per_uuid v7 1000000
//! ```
//!
//! The operations: `v4`, `v4_fill`, `v7`, `v7_fill`, `random` (16 bytes of the CSPRNG,
//! drawn in bulk), `clock` (one system clock read), and the text codec as the `vs_uuid`
//! bench runs it, over 1,024 distinct texts or UUIDs in turn: `parse` (hyphenated,
//! `Uuid::parse_str`), `format` (hyphenated, lower case, into a stack buffer),
//! `parse_lines` and `encode_lines` (hyphenated lines ended by `\n`, 1,024 a call), and
//! `uuid-parse` and `uuid-format`, the same jobs done by the `uuid` crate. Each run makes
//! the count twice, a warm-up pass (the tick counter's rate is measured in the first
//! milliseconds) and a timed one; instructions per UUID are (count for 2N − count for N)
//! / 2N, which leaves start-up out.

use std::hint::black_box;

use uuidkit::random::{Csprng, RngCore};
use uuidkit::text::{self, LineEnd};
use uuidkit::{Case, Format, Uuid, v4, v4_fill, v7, v7_fill};

/// How many distinct UUIDs (or texts) the text operations go through in turn.
const TEXTS: usize = 1024;

/// `TEXTS` fixed UUIDs (the same in every run, so that two runs count the same work).
fn uuids() -> Vec<Uuid> {
    (0..TEXTS as u128)
        .map(|i| Uuid::from_u128(i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)))
        .collect()
}

/// The hyphenated texts of [`uuids`].
fn texts() -> Vec<String> {
    uuids().iter().map(Uuid::to_string).collect()
}

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
        // As the `vs_uuid` bench: every result folded into one word.
        "parse" => {
            let texts = texts();
            let mut acc = 0u64;
            for t in texts.iter().cycle().take(n) {
                acc ^= Uuid::parse_str(black_box(t)).map_or(1, |u| u.as_u128() as u64);
            }
            black_box(acc);
        }
        "uuid-parse" => {
            let texts = texts();
            let mut acc = 0u64;
            for t in texts.iter().cycle().take(n) {
                acc ^= uuid::Uuid::parse_str(black_box(t)).map_or(1, |u| u.as_u128() as u64);
            }
            black_box(acc);
        }
        "format" => {
            let uuids = uuids();
            for u in uuids.iter().cycle().take(n) {
                black_box(black_box(u).format(Format::Hyphenated, Case::Lower));
            }
        }
        "uuid-format" => {
            let uuids: Vec<uuid::Uuid> = uuids()
                .iter()
                .map(|u| uuid::Uuid::from_bytes(*u.as_bytes()))
                .collect();
            let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
            for u in uuids.iter().cycle().take(n) {
                black_box(black_box(u).hyphenated().encode_lower(&mut buf));
            }
        }
        "encode_lines" => {
            let uuids = uuids();
            let mut out = vec![0u8; TEXTS * 37];
            (0..n / TEXTS).for_each(|_| {
                let written = text::encode_lines(
                    black_box(&uuids),
                    Format::Hyphenated,
                    Case::Lower,
                    LineEnd::Lf,
                    &mut out,
                );
                black_box(&out[..written * 37]);
            })
        }
        "parse_lines" => {
            let lines: Vec<u8> = texts()
                .iter()
                .flat_map(|t| [t.as_bytes(), b"\n"].concat())
                .collect();
            let mut out = vec![Uuid::NIL; TEXTS];
            (0..n / TEXTS).for_each(|_| {
                let taken = text::parse_lines(black_box(&lines), &mut out);
                black_box(&out[..taken.uuids]);
            })
        }
        _ => {
            eprintln!(
                "per_uuid: unknown operation {op:?}: v4, v4_fill, v7, v7_fill, random, clock, \
                 parse, format, parse_lines, encode_lines, uuid-parse, uuid-format"
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
