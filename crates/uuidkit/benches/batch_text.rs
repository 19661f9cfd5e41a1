//! The text codec one UUID at a time and a batch at a time, against the `uuid` crate in
//! the same group, same run. Run with `cargo bench -p uuidkit --bench batch_text`; the
//! last thing printed is the table, with the ratio `uuid` time / uuidkit time (higher is
//! better) and, for the batch entry points, their time per UUID against the one-UUID
//! call's.
//!
//! Each iteration goes through 1,024 distinct v4 UUIDs (or their texts), with
//! `black_box` on inputs and outputs; the table divides by 1,024. The batch rows write
//! (or read) 1,024 lines of `hyphenated + \n`, as `uuidkit gen` writes and `uuidkit
//! check` reads them; the `uuid` side does the same job the plain way, a UUID at a time.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use uuidkit::text::{self, LineEnd};
use uuidkit::{Case, Format, Uuid};

const N: usize = 1024;
const LINE: usize = 37;

fn inputs() -> Vec<Uuid> {
    (0..N).map(|_| uuidkit::v4()).collect()
}

fn theirs(ours: &[Uuid]) -> Vec<uuid::Uuid> {
    ours.iter()
        .map(|u| uuid::Uuid::from_bytes(*u.as_bytes()))
        .collect()
}

fn one_at_a_time(c: &mut Criterion) {
    let ours = inputs();
    let texts: Vec<String> = ours.iter().map(Uuid::to_string).collect();
    let mut g = c.benchmark_group("one parse hyphenated");
    g.throughput(Throughput::Elements(N as u64));
    // Every result is folded into one word, the same way for both crates.
    g.bench_function("uuidkit", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for t in &texts {
                acc ^= Uuid::parse_str(black_box(t)).map_or(1, |u| u.as_u128() as u64);
            }
            black_box(acc);
        })
    });
    g.bench_function("uuid", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for t in &texts {
                acc ^= uuid::Uuid::parse_str(black_box(t)).map_or(1, |u| u.as_u128() as u64);
            }
            black_box(acc);
        })
    });
    g.finish();

    let them = theirs(&ours);
    let mut g = c.benchmark_group("one format hyphenated");
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
            for u in &them {
                black_box(black_box(u).hyphenated().encode_lower(&mut buf));
            }
        })
    });
    g.finish();
}

fn batches(c: &mut Criterion) {
    let ours = inputs();
    let them = theirs(&ours);
    let mut g = c.benchmark_group("lines format hyphenated");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        let mut out = vec![0u8; N * LINE];
        b.iter(|| {
            let n = text::encode_lines(
                black_box(&ours),
                Format::Hyphenated,
                Case::Lower,
                LineEnd::Lf,
                &mut out,
            );
            black_box(&out[..n * LINE]);
        })
    });
    g.bench_function("uuid", |b| {
        let mut out = vec![0u8; N * LINE];
        let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
        b.iter(|| {
            for (u, line) in black_box(&them).iter().zip(out.chunks_exact_mut(LINE)) {
                line[..36].copy_from_slice(u.hyphenated().encode_lower(&mut buf).as_bytes());
                line[36] = b'\n';
            }
            black_box(&out);
        })
    });
    g.finish();

    let lines: Vec<u8> = ours
        .iter()
        .flat_map(|u| format!("{u}\n").into_bytes())
        .collect();
    let mut g = c.benchmark_group("lines parse hyphenated");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("uuidkit", |b| {
        let mut out = vec![Uuid::NIL; N];
        b.iter(|| {
            let taken = text::parse_lines(black_box(&lines), &mut out);
            assert_eq!(taken.uuids, N);
            black_box(&out);
        })
    });
    // Validating alone (what `uuidkit check` needs): the same lines, nothing decoded.
    g.bench_function("uuidkit check_lines", |b| {
        b.iter(|| {
            let taken = text::check_lines(black_box(&lines), usize::MAX);
            assert_eq!(taken.uuids, N);
        })
    });
    g.bench_function("uuid", |b| {
        let mut out = vec![uuid::Uuid::nil(); N];
        b.iter(|| {
            let text = black_box(&lines[..]);
            let mut n = 0;
            for line in text
                .strip_suffix(b"\n")
                .unwrap_or(text)
                .split(|&b| b == b'\n')
            {
                match uuid::Uuid::try_parse_ascii(line) {
                    Ok(u) => out[n] = u,
                    Err(_) => break,
                }
                n += 1;
            }
            assert_eq!(n, N);
            black_box(&out);
        })
    });
    g.finish();
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
    let per_uuid = |group, id| estimate(group, id).map(|t| t / N as f64);
    for group in [
        "one parse hyphenated",
        "one format hyphenated",
        "lines parse hyphenated",
        "lines format hyphenated",
    ] {
        match (per_uuid(group, "uuidkit"), per_uuid(group, "uuid")) {
            (Some(a), Some(b)) => println!("| {group} | {a:.2} ns | {b:.2} ns | {:.2}× |", b / a),
            _ => println!("| {group} | (not run) | | |"),
        }
    }
    for (batch, one) in [
        ("lines parse hyphenated", "one parse hyphenated"),
        ("lines format hyphenated", "one format hyphenated"),
    ] {
        if let (Some(b), Some(o)) = (per_uuid(batch, "uuidkit"), per_uuid(one, "uuidkit")) {
            println!("uuidkit {batch} / {one}, per UUID: {:.2}×", b / o);
        }
    }
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    one_at_a_time(&mut c);
    batches(&mut c);
    c.final_summary();
    table();
}
