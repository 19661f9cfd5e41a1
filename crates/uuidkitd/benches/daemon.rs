//! uuidkitd's own protocol, measured against the real daemon binary: the round trip of a
//! one-UUID request with 1 and with 32 clients at once (p50 and p99), and bulk v7 through
//! the daemon's leases against the same generator in process.
//!
//! ```sh
//! cargo bench -p uuidkitd --bench daemon
//! ```
//!
//! Not a criterion benchmark: latency needs the whole distribution (p99 with 32 clients
//! competing for 2 cores), so each sample is one timed request. Nothing here asserts a
//! time; the figures are printed as a table for README.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use uuidkit::Uuid;
use uuidkit::generator::unix::{UnixGenerator, V7Method};
use uuidkit::service::client::DaemonClient;
use uuidkit::store::{GeneratorKind, LeaseRequest};

const BIN: &str = env!("CARGO_BIN_EXE_uuidkitd");

/// Requests per client in the latency runs.
const REQUESTS: usize = 20_000;
/// UUIDs in the bulk runs.
const BULK: usize = 20_000_000;

struct Daemon {
    child: Child,
    dir: PathBuf,
    socket: PathBuf,
}

impl Daemon {
    fn start() -> Daemon {
        let dir = std::env::temp_dir().join(format!("uuidkitd-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the bench directory");
        let socket = dir.join("d.sock");
        let child = Command::new(BIN)
            .arg("--socket")
            .arg(&socket)
            .arg("--state")
            .arg(dir.join("state"))
            .stdin(Stdio::null())
            .spawn()
            .expect("start uuidkitd");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            assert!(Instant::now() < deadline, "uuidkitd is not listening");
            std::thread::sleep(Duration::from_millis(10));
        }
        Daemon { child, dir, socket }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What one request is.
#[derive(Clone, Copy)]
enum Op {
    /// One v4 UUID, made by the daemon (`Random { count: 1 }`).
    V4,
    /// A v7 lease of one position at the current millisecond: what a client that wants
    /// exactly one time-ordered UUID from the daemon asks for.
    V7Lease,
}

fn one_request(c: &DaemonClient, op: Op) {
    match op {
        Op::V4 => {
            let v = c.random(1).expect("v4 from the daemon");
            assert_eq!(v.len(), 1);
        }
        Op::V7Lease => {
            let ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .expect("clock after 1970")
                .as_millis();
            let p = ms << 42;
            let lease = c
                .lease_from_daemon(&LeaseRequest::new(GeneratorKind::V7, p, p, 1))
                .expect("daemon reachable")
                .expect("lease granted");
            assert_eq!(lease.len(), 1);
        }
    }
}

/// Per-request latencies in nanoseconds, all clients together.
fn latencies(socket: &PathBuf, clients: usize, op: Op) -> (Vec<u64>, Duration) {
    let barrier = Arc::new(Barrier::new(clients + 1));
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let barrier = barrier.clone();
            let client = DaemonClient::connect(socket).expect("connect");
            std::thread::spawn(move || {
                for _ in 0..200 {
                    one_request(&client, op); // warm up
                }
                barrier.wait();
                let mut out = Vec::with_capacity(REQUESTS);
                for _ in 0..REQUESTS {
                    let t = Instant::now();
                    one_request(&client, op);
                    out.push(t.elapsed().as_nanos() as u64);
                }
                out
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    let mut all = Vec::with_capacity(clients * REQUESTS);
    for h in handles {
        all.extend(h.join().expect("client thread"));
    }
    let wall = start.elapsed();
    all.sort_unstable();
    (all, wall)
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

fn bulk(g: &mut UnixGenerator) -> (Duration, Uuid) {
    let mut batch = vec![Uuid::NIL; 4096];
    let mut last = Uuid::NIL;
    let start = Instant::now();
    let mut made = 0;
    while made < BULK {
        g.fill(&mut batch);
        assert!(batch[0] > last, "v7 went back");
        last = batch[batch.len() - 1];
        made += batch.len();
    }
    (start.elapsed(), last)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter or `--list` from a wider run is ignored.
    let daemon = Daemon::start();
    println!("uuidkitd's own protocol, {REQUESTS} timed requests per client, same run");
    println!();
    println!("| request | clients | p50 | p99 | requests/s (all clients) |");
    println!("|---|---|---|---|---|");
    for (name, op) in [
        ("one v4 UUID", Op::V4),
        ("a v7 lease of one position", Op::V7Lease),
    ] {
        for clients in [1, 32] {
            let (lat, wall) = latencies(&daemon.socket, clients, op);
            println!(
                "| {name} | {clients} | {:.1} µs | {:.1} µs | {:.0} |",
                percentile(&lat, 0.50),
                percentile(&lat, 0.99),
                lat.len() as f64 / wall.as_secs_f64()
            );
        }
    }

    let daemon_client = Arc::new(DaemonClient::connect(&daemon.socket).expect("connect"));
    let mut through_daemon = UnixGenerator::new(V7Method::Counter).with_store(daemon_client);
    let mut in_process = UnixGenerator::new(V7Method::Counter);
    // Alternate, best of three each, so that both see the same machine.
    let mut best_daemon = Duration::MAX;
    let mut best_local = Duration::MAX;
    for _ in 0..3 {
        best_daemon = best_daemon.min(bulk(&mut through_daemon).0);
        best_local = best_local.min(bulk(&mut in_process).0);
    }
    assert!(
        through_daemon.take_store_warnings().is_empty(),
        "the daemon stopped answering"
    );
    let per = |d: Duration| d.as_nanos() as f64 / BULK as f64;
    println!();
    println!("Bulk v7 (`UnixGenerator::fill`, batches of 4096, {BULK} UUIDs, best of 3)");
    println!();
    println!("| generator | ns per UUID | UUIDs/s | ratio |");
    println!("|---|---|---|---|");
    println!(
        "| in process | {:.2} | {:.1} M | 1.00× |",
        per(best_local),
        1e3 / per(best_local)
    );
    println!(
        "| leases from uuidkitd | {:.2} | {:.1} M | {:.2}× |",
        per(best_daemon),
        1e3 / per(best_daemon),
        per(best_daemon) / per(best_local)
    );
}
