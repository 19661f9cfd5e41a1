//! uuidkitd's own protocol, measured against the real daemon binary: the round trip of a
//! one-UUID request with 1 and with 32 clients at once (p50 and p99), and bulk v7 through
//! the daemon's leases against the same generator in process; then util-linux's protocol,
//! served by util-linux's own `uuidd` (when `/usr/sbin/uuidd` is installed) and by
//! `uuidkitd --uuidd-socket`, in the same run: one time UUID per request (operation 2,
//! what `uuidgen -t` sends) and bulk time UUIDs (operation 4, what libuuid's
//! `uuid_generate_time` sends to fill its cache).
//!
//! ```sh
//! cargo bench -p uuidkitd --bench daemon
//! ```
//!
//! Not a criterion benchmark: latency needs the whole distribution (p99 with 32 clients
//! competing for 2 cores), so each sample is one timed request. Nothing here asserts a
//! time; the figures are printed as a table for docs/performance.md.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use uuidkit::Uuid;
use uuidkit::generator::v7::{V7Generator, V7Method};
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
    uuidd_socket: PathBuf,
}

/// util-linux's `uuidd`, on a socket of its own, killed on drop.
struct UtilLinuxUuidd {
    child: Child,
    socket: PathBuf,
}

const UTIL_LINUX_UUIDD: &str = "/usr/sbin/uuidd";

impl UtilLinuxUuidd {
    fn start(dir: &std::path::Path) -> Option<UtilLinuxUuidd> {
        if !std::path::Path::new(UTIL_LINUX_UUIDD).exists() {
            return None;
        }
        let socket = dir.join("util-linux-uuidd.sock");
        // -F: stay in the foreground, -P: no pid file, -T 0: no idle exit.
        let child = Command::new(UTIL_LINUX_UUIDD)
            .args(["-F", "-P", "-T", "0", "-s"])
            .arg(&socket)
            .stdin(Stdio::null())
            // It reports every probe connection that sends nothing.
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        wait_listening(&socket);
        Some(UtilLinuxUuidd { child, socket })
    }
}

impl Drop for UtilLinuxUuidd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_listening(socket: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::os::unix::net::UnixStream::connect(socket).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing listening on {}",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

impl Daemon {
    fn start() -> Daemon {
        let dir = std::env::temp_dir().join(format!("uuidkitd-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the bench directory");
        let socket = dir.join("d.sock");
        let uuidd_socket = dir.join("uuidd.sock");
        let child = Command::new(BIN)
            .arg("--socket")
            .arg(&socket)
            .arg("--uuidd-socket")
            .arg(&uuidd_socket)
            .arg("--state")
            .arg(dir.join("state"))
            .stdin(Stdio::null())
            .spawn()
            .expect("start uuidkitd");
        wait_listening(&socket);
        wait_listening(&uuidd_socket);
        Daemon {
            child,
            dir,
            socket,
            uuidd_socket,
        }
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

/// One request of util-linux's protocol, as libuuid sends it: a connection per request,
/// the operation byte (and for bulk operations the count, a native-endian `int`), then a
/// native-endian `int` length and the reply. Returns how many UUIDs the reply carries.
fn uuidd_request(socket: &std::path::Path, op: u8, num: i32) -> i32 {
    let mut s = std::os::unix::net::UnixStream::connect(socket).expect("connect to uuidd");
    let mut req = vec![op];
    if op == 4 || op == 5 {
        req.extend_from_slice(&num.to_ne_bytes());
    }
    s.write_all(&req).expect("send");
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("reply length");
    let len = i32::from_ne_bytes(len);
    assert!(
        (16..=16 + 4 + 16 * 1000).contains(&len),
        "reply length {len}"
    );
    let mut body = vec![0u8; len as usize];
    s.read_exact(&mut body).expect("reply");
    match op {
        2 => 1,
        // A lease: the first UUID, then how many follow it (the count asked for).
        4 => i32::from_ne_bytes(body[16..20].try_into().expect("4 bytes")),
        _ => unreachable!("only operations 2 and 4 are measured"),
    }
}

/// Per-request latencies in nanoseconds, all clients together.
fn latencies(socket: &PathBuf, clients: usize, op: Op) -> (Vec<u64>, Duration) {
    timed(clients, REQUESTS, || {
        let client = DaemonClient::connect(socket).expect("connect");
        move || one_request(&client, op)
    })
}

/// `clients` threads, each making `requests` timed calls of what `make` gives it, after
/// warming up; every latency in nanoseconds, sorted, and the wall time of the whole run.
fn timed<F, G>(clients: usize, requests: usize, make: F) -> (Vec<u64>, Duration)
where
    F: Fn() -> G,
    G: FnMut() + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(clients + 1));
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let barrier = barrier.clone();
            let mut call = make();
            std::thread::spawn(move || {
                for _ in 0..200 {
                    call(); // warm up
                }
                barrier.wait();
                let mut out = Vec::with_capacity(requests);
                for _ in 0..requests {
                    let t = Instant::now();
                    call();
                    out.push(t.elapsed().as_nanos() as u64);
                }
                out
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    let mut all = Vec::with_capacity(clients * requests);
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

fn bulk(g: &mut V7Generator) -> (Duration, Uuid) {
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
    let mut through_daemon = V7Generator::new(V7Method::Counter).with_store(daemon_client);
    let mut in_process = V7Generator::new(V7Method::Counter);
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
    println!("Bulk v7 (`V7Generator::fill`, batches of 4096, {BULK} UUIDs, best of 3)");
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

    uuidd_protocol(&daemon);
}

/// Requests per client in the util-linux protocol runs (a connection each).
const UUIDD_REQUESTS: usize = 5_000;

fn uuidd_protocol(daemon: &Daemon) {
    let util_linux = UtilLinuxUuidd::start(&daemon.dir);
    let mut servers = vec![("uuidkitd --uuidd-socket", daemon.uuidd_socket.clone())];
    match &util_linux {
        Some(u) => servers.insert(0, ("util-linux uuidd", u.socket.clone())),
        None => println!("\n({UTIL_LINUX_UUIDD} is not installed: uuidkitd only)"),
    }
    println!();
    println!(
        "util-linux's protocol, a connection per request, {UUIDD_REQUESTS} timed requests per client"
    );
    println!();
    println!("| server | request | clients | p50 | p99 | UUIDs/s (all clients) |");
    println!("|---|---|---|---|---|---|");
    for (request, op, num) in [
        ("one time UUID (op 2)", 2u8, 1),
        ("1000 time UUIDs (op 4)", 4, 1000),
    ] {
        for clients in [1, 32] {
            for (name, socket) in &servers {
                let (lat, wall) = timed(clients, UUIDD_REQUESTS, || {
                    let socket = socket.clone();
                    move || {
                        assert_eq!(uuidd_request(&socket, op, num), num);
                    }
                });
                println!(
                    "| {name} | {request} | {clients} | {:.1} µs | {:.1} µs | {:.0} |",
                    percentile(&lat, 0.50),
                    percentile(&lat, 0.99),
                    lat.len() as f64 * f64::from(num) / wall.as_secs_f64()
                );
            }
        }
    }
}
