//! Inserting N rows from C connections in batches, and watching the rate as it goes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::keys::Key;

/// How often the rate is sampled for the curve.
const SAMPLE: Duration = Duration::from_millis(200);

/// Rows per INSERT statement (and per transaction).
pub const BATCH: u64 = 1000;

/// What one engine measured for one key kind, beside the rate.
#[derive(Clone, Debug, Default)]
pub struct Sizes {
    pub table_bytes: Option<u64>,
    pub index_bytes: Option<u64>,
    pub leaf_density: Option<f64>,
    pub wal_bytes: Option<u64>,
    pub fpi: Option<u64>,
}

/// One line of results.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub engine: String,
    pub key: Key,
    pub rows: u64,
    pub connections: usize,
    pub seconds: f64,
    pub sizes: Sizes,
    /// (rows inserted so far, rows per second over the interval that ended there).
    pub curve: Vec<(u64, f64)>,
}

impl Outcome {
    pub fn rows_per_sec(&self) -> f64 {
        self.rows as f64 / self.seconds
    }
}

/// Inserts one batch: rows `first..first + count`. Each connection has its own.
pub type Inserter = Box<dyn FnMut(u64, u64) -> Result<(), String> + Send>;

/// Runs `connections` inserters until `rows` rows are in, each claiming the next batch
/// as it finishes one; samples the rate every 200 ms for the curve, and shows a progress
/// bar when standard error is a terminal. The first error stops every connection.
pub fn insert_all(
    label: &str,
    rows: u64,
    inserters: Vec<Inserter>,
) -> Result<(f64, Vec<(u64, f64)>), String> {
    let next = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let bar = progress(label, rows);
    let start = Instant::now();
    let handles: Vec<_> = inserters
        .into_iter()
        .map(|mut insert| {
            let (next, done, stop) = (next.clone(), done.clone(), stop.clone());
            std::thread::spawn(move || -> Result<Instant, String> {
                while !stop.load(Ordering::Relaxed) {
                    let first = next.fetch_add(BATCH, Ordering::Relaxed);
                    if first >= rows {
                        break;
                    }
                    let count = BATCH.min(rows - first);
                    if let Err(e) = insert(first, count) {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                    done.fetch_add(count, Ordering::Relaxed);
                }
                Ok(Instant::now())
            })
        })
        .collect();
    let mut curve = Vec::new();
    let (mut last_t, mut last_n) = (Duration::ZERO, 0u64);
    while !handles.iter().all(|h| h.is_finished()) {
        // Poll often, sample every 200 ms: the run's end is not rounded to a sample.
        std::thread::sleep(Duration::from_millis(10));
        let (t, n) = (start.elapsed(), done.load(Ordering::Relaxed));
        if t - last_t >= SAMPLE && n > last_n {
            curve.push((n, (n - last_n) as f64 / (t - last_t).as_secs_f64()));
            (last_t, last_n) = (t, n);
        }
        bar.set_position(n);
    }
    bar.finish_and_clear();
    let mut end = start;
    for h in handles {
        end = end.max(
            h.join()
                .map_err(|_| "an inserting thread panicked".to_string())??,
        );
    }
    let seconds = (end - start).as_secs_f64();
    let n = done.load(Ordering::Relaxed);
    if n > last_n {
        curve.push((
            n,
            (n - last_n) as f64 / (seconds - last_t.as_secs_f64()).max(1e-9),
        ));
    }
    Ok((seconds, curve))
}

fn progress(label: &str, rows: u64) -> ProgressBar {
    let bar = ProgressBar::new(rows);
    bar.set_style(
        ProgressStyle::with_template("{msg:28} {bar:40} {pos:>10}/{len} rows {per_sec:>14} {eta}")
            .expect("a valid template"),
    );
    bar.set_message(label.to_string());
    bar
}
