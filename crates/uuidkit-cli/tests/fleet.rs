//! `gen --machine-id etcd` against a real etcd cluster on loopback (issue 22): IDs handed
//! to live holders are distinct and a holder past the fleet's size is refused or waits;
//! no method or draft layout makes a duplicate; a crashed holder's ID comes free after its
//! lease's time-to-live and the next holder starts above it (with its clock an hour back,
//! too); a holder stopped until its ID was taken issues nothing new; losing the quorum
//! stops holders within the time-to-live, and they resume; bad input is refused with the
//! value named and nothing written.
//!
//! Each test starts its own cluster (`etcd_cluster.rs`, shared with the library's tests)
//! and runs the built `uuidkit` as processes. The tests take turns (`one_at_a_time`):
//! they bound waits on the lease's time-to-live, and sixteen generators of another test
//! at once on a small machine would only blur those bounds.

use std::io::{BufReader, Read};
use std::process::{Child, ChildStdout, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use uuidkit::Uuid;
use uuidkit::layout::{Layout, decode_as};

use crate::state_common::{faked, read_lines, read_rest, run, strictly_increasing, uuidkit};

// The cluster harness, written once for the library's tests and the command's.
#[path = "../../uuidkit/tests/etcd_cluster.rs"]
mod etcd_cluster;
use etcd_cluster::EtcdCluster;

/// Enough UUIDs that a holder never finishes during a test: it blocks on a full pipe when
/// the test does not read, and its renewal thread keeps the lease meanwhile.
const FOREVER: u64 = 100_000_000;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a process generates, and so where its machine ID sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `gen v7 --method M`.
    V7(&'static str),
    /// `gen v8 --layout L` (a draft layout).
    Draft(&'static str),
}

use Kind::{Draft, V7};

const COUNTER: Kind = V7("counter");

impl Kind {
    fn args(self) -> [&'static str; 4] {
        match self {
            V7(method) => ["gen", "v7", "--method", method],
            Draft(layout) => ["gen", "v8", "--layout", layout],
        }
    }

    /// The machine ID of `bits` bits in `u`: v7 counter and precision put it at the head
    /// of the last 32 bits, v7 random in the last bits, a draft layout at the head of its
    /// random bits.
    fn id(self, u: &Uuid, bits: u32) -> u64 {
        let v = u.as_u128();
        let mask = (1u128 << bits) - 1;
        match self {
            V7("random") => (v & mask) as u64,
            V7(_) => ((v & 0xffff_ffff) >> (32 - bits) & mask) as u64,
            Draft(name) => {
                let layout: Layout = name.parse().expect("a layout");
                let d = decode_as(u, layout).unwrap_or_else(|e| panic!("{u} as {name}: {e}"));
                d.machine_id(bits)
                    .unwrap_or_else(|| panic!("{name} has no room for {bits} bits"))
                    .0
            }
        }
    }

    /// The one ID every UUID of `u` carries (each must carry the same).
    fn one_id(self, u: &[Uuid], bits: u32) -> u64 {
        let id = self.id(&u[0], bits);
        if let Some(other) = u.iter().find(|x| self.id(x, bits) != id) {
            panic!("{self:?}: {} carries ID {id}, {other} another", u[0]);
        }
        id
    }
}

/// `uuidkit gen … --machine-id etcd` for `fleet` on `etcd`, `count` UUIDs.
fn gen_cmd(etcd: &str, fleet: &str, bits: u32, kind: Kind, count: u64, extra: &[&str]) -> Command {
    let mut c = uuidkit();
    c.args(kind.args())
        .args(["--machine-id", "etcd", "--etcd", etcd, "--fleet", fleet])
        .args(["--machine-id-bits", &bits.to_string()])
        .args(["-n", &count.to_string()])
        .args(extra);
    c
}

/// A running `uuidkit`, killed when dropped.
struct Proc {
    what: String,
    child: Child,
    stdout: Option<BufReader<ChildStdout>>,
    stderr: Option<JoinHandle<String>>,
}

impl Proc {
    fn spawn(mut cmd: Command) -> Proc {
        let what = format!("{cmd:?}");
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {what}: {e}"));
        let stdout = child.stdout.take().map(BufReader::new);
        let mut err = child.stderr.take().expect("stderr piped");
        let stderr = thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        Proc {
            what,
            child,
            stdout,
            stderr: Some(stderr),
        }
    }

    fn pid(&self) -> libc::pid_t {
        self.child.id() as libc::pid_t
    }

    fn signal(&self, sig: libc::c_int) {
        // SAFETY: a signal to our own child, which has not been waited for.
        let r = unsafe { libc::kill(self.pid(), sig) };
        assert_eq!(r, 0, "kill({}, {sig}) failed", self.pid());
    }

    /// `n` lines of its output as UUIDs, or the failure with its standard error.
    fn expect_lines(&mut self, n: usize) -> Vec<Uuid> {
        let got = read_lines(self.stdout.as_mut().expect("stdout not taken"), n);
        if got.len() < n {
            let status = self.child.wait().expect("wait");
            let err = self.stderr();
            panic!(
                "{}: {} lines of {n}, then {status}: {err}",
                self.what,
                got.len()
            );
        }
        got
    }

    /// Its standard output, for a reader thread of the test's own.
    fn take_stdout(&mut self) -> BufReader<ChildStdout> {
        self.stdout.take().expect("stdout not taken")
    }

    /// Its standard error, once it has exited.
    fn stderr(&mut self) -> String {
        self.stderr
            .take()
            .map(|t| t.join().expect("stderr reader"))
            .unwrap_or_default()
    }

    /// Its exit status, if it exits within `limit`.
    fn exits_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        let end = Instant::now() + limit;
        loop {
            if let Some(st) = self.child.try_wait().expect("try_wait") {
                return Some(st);
            }
            if Instant::now() >= end {
                return None;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // SIGKILL ends a stopped (SIGSTOPped) process too.
        self.kill();
    }
}

/// A thread reading a process's output as it comes: every byte, and when each read
/// returned (so when the process wrote it, within a read's pause). It pauses `pause`
/// between reads, to keep a fast generator's output within memory; the pipe then holds
/// at most that long's worth, so the stamps are late by no more than about that.
struct Collector {
    data: Arc<Mutex<Vec<u8>>>,
    stamps: Arc<Mutex<Vec<Instant>>>,
    thread: JoinHandle<()>,
}

impl Collector {
    fn start(mut r: BufReader<ChildStdout>, pause: Duration) -> Collector {
        let data = Arc::new(Mutex::new(Vec::new()));
        let stamps = Arc::new(Mutex::new(Vec::new()));
        let (d, s) = (Arc::clone(&data), Arc::clone(&stamps));
        let thread = thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        let now = Instant::now();
                        d.lock().unwrap().extend_from_slice(&buf[..n]);
                        s.lock().unwrap().push(now);
                    }
                }
                thread::sleep(pause);
            }
        });
        Collector {
            data,
            stamps,
            thread,
        }
    }

    fn len(&self) -> usize {
        self.data.lock().unwrap().len()
    }

    fn last_stamp(&self) -> Option<Instant> {
        self.stamps.lock().unwrap().last().copied()
    }

    /// Waits until it has `bytes` bytes, up to `limit`.
    fn wait_for(&self, bytes: usize, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        while self.len() < bytes {
            if Instant::now() >= end {
                return false;
            }
            thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// The UUIDs of every complete line, once the process has exited.
    fn finish(self) -> Vec<Uuid> {
        self.thread.join().expect("reader thread");
        let data = std::mem::take(&mut *self.data.lock().unwrap());
        complete_lines(&data)
    }
}

/// The UUIDs of the complete lines of `data`: a process killed in the middle of a write
/// can leave part of a line, a UUID never written whole.
fn complete_lines(data: &[u8]) -> Vec<Uuid> {
    let end = data.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    crate::state_common::uuids(&data[..end])
}

/// How many UUIDs occur more than once in `all`.
fn duplicates(mut all: Vec<u128>) -> usize {
    all.sort_unstable();
    all.windows(2).filter(|w| w[0] == w[1]).count()
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// No holder key of IDs `0 .. 2^bits` (at most 16 looked at) under `fleet`.
fn no_holder_keys(cluster: &EtcdCluster, fleet: &str, bits: u32) {
    for n in 0..(1u64 << bits.min(4)) {
        let key = format!("/uuidkit/{fleet}/machine-id/{n}");
        let v = cluster.get(0, key.as_bytes()).expect("etcd get");
        assert_eq!(v, None, "{key} was written");
    }
}

#[test]
fn eight_holders_get_distinct_ids_and_a_ninth_is_refused_until_one_exits() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(3);
    let etcd = cluster.endpoints_arg();
    let fleet = "eight";
    let mut holders: Vec<Proc> = (0..8)
        .map(|_| Proc::spawn(gen_cmd(&etcd, fleet, 3, COUNTER, FOREVER, &[])))
        .collect();
    let mut ids: Vec<u64> = holders
        .iter_mut()
        .map(|h| COUNTER.one_id(&h.expect_lines(20), 3))
        .collect();
    let by_holder = ids.clone();
    ids.sort_unstable();
    assert_eq!(ids, (0..8).collect::<Vec<_>>(), "IDs of the 8 holders");

    let ninth = run(&mut gen_cmd(&etcd, fleet, 3, COUNTER, 1, &[]));
    assert_eq!(code(&ninth), Some(1), "ninth: {}", text(&ninth.stderr));
    assert!(
        text(&ninth.stderr).contains(r#"uuidkit: all 8 machine IDs of fleet "eight" are held"#),
        "{}",
        text(&ninth.stderr)
    );
    assert!(ninth.stdout.is_empty());

    let mut tenth = Proc::spawn(gen_cmd(
        &etcd,
        fleet,
        3,
        COUNTER,
        1,
        &["--claim-wait", "30"],
    ));
    thread::sleep(Duration::from_secs(1));
    assert!(tenth.running(), "the tenth waits for a free ID");
    // Holder 5's standard output closed: its next write fails, it ends, and the lease is
    // revoked on the way out, so the ID is free at once.
    let (k, freed) = (5, by_holder[5]);
    drop(holders[k].take_stdout());
    assert!(
        holders[k].exits_within(Duration::from_secs(10)).is_some(),
        "a holder whose output is closed exits"
    );
    let st = tenth
        .exits_within(Duration::from_secs(30))
        .expect("the tenth claims the freed ID");
    let got = tenth.expect_lines(1);
    assert!(st.success(), "tenth: {st}: {}", tenth.stderr());
    assert_eq!(COUNTER.id(&got[0], 3), freed, "the tenth has the freed ID");
    for h in &mut holders {
        h.kill();
    }
}

#[test]
fn sixteen_holders_all_methods_and_draft_layouts_make_no_duplicates() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(3);
    let etcd = cluster.endpoints_arg();
    let kinds = [
        V7("counter"),
        V7("counter"),
        V7("counter"),
        V7("random"),
        V7("random"),
        V7("random"),
        V7("precision"),
        V7("precision"),
        V7("precision"),
        Draft("draft-v7-ms"),
        Draft("draft-v7-us"),
        Draft("draft-v7-ns"),
        Draft("draft-v8-32"),
        Draft("draft-v8-48"),
        Draft("draft-v8-60"),
        Draft("draft-v8-64"),
    ];
    const EACH: u64 = 200_000;
    // draft-v8-32 makes 4,096 UUIDs a second: 20,000 stay within a time-to-live of the
    // clock (a test below makes it wait for the clock).
    let each = |k: Kind| {
        if k == Draft("draft-v8-32") {
            20_000
        } else {
            EACH
        }
    };
    // A fleet has one placement (docs/fleet.md): v7 counter and precision share one,
    // Method 2 has its own, each draft layout its own.
    let fleet_of = |k: Kind| match k {
        V7("random") => "sixteen-random".to_string(),
        V7(_) => "sixteen".to_string(),
        Draft(layout) => format!("sixteen-{layout}"),
    };
    let mut procs: Vec<Proc> = kinds
        .iter()
        .map(|&k| Proc::spawn(gen_cmd(&etcd, &fleet_of(k), 4, k, each(k), &[])))
        .collect();
    // A first line from each before reading on: each has claimed its ID then, and none
    // can finish (its output is megabytes, the pipe holds 64 KiB) before all have
    // claimed, so the 16 hold their IDs at once. (One that finished first would release
    // its ID, and a late one would take it, rightly.)
    let firsts: Vec<Vec<Uuid>> = procs.iter_mut().map(|p| p.expect_lines(1)).collect();
    let readers: Vec<JoinHandle<Vec<Uuid>>> = procs
        .iter_mut()
        .zip(firsts)
        .map(|(p, mut first)| {
            let r = p.take_stdout();
            thread::spawn(move || {
                first.extend(read_rest(r));
                first
            })
        })
        .collect();
    let mut all = Vec::with_capacity(kinds.len() * EACH as usize);
    let mut ids = Vec::new();
    for ((p, r), k) in procs.iter_mut().zip(readers).zip(kinds) {
        let out = r.join().expect("reader");
        let st = p.child.wait().expect("wait");
        assert!(st.success(), "{k:?}: {st}: {}", p.stderr());
        assert_eq!(out.len() as u64, each(k), "{k:?}");
        assert!(strictly_increasing(&out), "{k:?}: not strictly increasing");
        ids.push((fleet_of(k), k.one_id(&out, 4)));
        all.extend(out.iter().map(Uuid::as_u128));
    }
    assert_eq!(duplicates(all), 0, "duplicates across the 16 holders");
    // In each fleet, its holders took the lowest IDs, each its own.
    ids.sort_unstable();
    let mut expected: Vec<(String, u64)> = Vec::new();
    for k in kinds {
        let f = fleet_of(k);
        let n = expected.iter().filter(|(g, _)| *g == f).count() as u64;
        expected.push((f, n));
    }
    expected.sort_unstable();
    assert_eq!(ids, expected, "IDs of the 16 holders");
}

/// A fleet's first holder records its width and placement; a `gen` of another width, or
/// of a method or layout that puts the ID elsewhere, is refused (exit 1) naming both,
/// and writes no UUID.
#[test]
fn mixed_widths_and_methods_in_one_fleet_are_refused() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    let mut first = Proc::spawn(gen_cmd(&etcd, "mixed", 2, COUNTER, FOREVER, &[]));
    first.expect_lines(1);
    for (bits, kind) in [(1, COUNTER), (2, V7("random")), (2, Draft("draft-v7-ms"))] {
        let out = gen_cmd(&etcd, "mixed", bits, kind, 1, &[])
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert_eq!(code(&out), Some(1), "{kind:?}: {err}");
        assert!(out.stdout.is_empty(), "{kind:?}");
        assert!(err.contains("\"bits=2 place=v7\""), "{kind:?}: {err}");
    }
    // Precision puts the ID where counter does: it joins, with the next ID.
    let out = gen_cmd(&etcd, "mixed", 2, V7("precision"), 10, &[])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(V7("precision").one_id(&complete_lines(&out.stdout), 2), 1);
    first.kill();
}

/// Holder A of the one free ID of a 2-ID fleet is killed (SIGKILL: no release); B, with
/// its clock set by `faketime` if given, waits for the ID, gets it once A's lease has
/// expired, and starts above everything A wrote.
fn killed_holder_then_next(fleet: &str, faketime: Option<&str>) {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    const TTL: u64 = 3;
    let ttl = ["--lease-ttl", "3"];
    // The other ID: held all along by a holder that blocks on its full pipe.
    let mut other = Proc::spawn(gen_cmd(&etcd, fleet, 1, COUNTER, FOREVER, &ttl));
    let other_id = COUNTER.id(&other.expect_lines(1)[0], 1);

    let mut a = Proc::spawn(gen_cmd(&etcd, fleet, 1, COUNTER, FOREVER, &ttl));
    let mut a_out = a.expect_lines(1);
    let a_id = COUNTER.id(&a_out[0], 1);
    assert_ne!(a_id, other_id);
    let reading = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < reading {
        a_out.extend(a.expect_lines(2048));
    }
    a.signal(libc::SIGKILL);
    let killed = Instant::now();
    a.child.wait().expect("wait");
    // What A wrote and the test had not read yet is still in the pipe.
    a_out.extend(read_rest(a.take_stdout()));
    assert!(strictly_increasing(&a_out), "A: not strictly increasing");

    let mut cmd = gen_cmd(
        &etcd,
        fleet,
        1,
        COUNTER,
        50_000,
        &["--lease-ttl", "3", "--claim-wait", "30"],
    );
    if let Some(f) = faketime {
        faked(&mut cmd, f);
        // Only the wall clock: the lease, the fence and the waits run on the monotonic one.
        cmd.env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
    let mut b = Proc::spawn(cmd);
    let mut b_out = b.expect_lines(1);
    let claimed = killed.elapsed();
    b_out.extend(read_rest(b.take_stdout()));
    let st = b.exits_within(Duration::from_secs(30)).expect("B finishes");
    let b_err = b.stderr();
    assert!(st.success(), "B: {st}: {b_err}");
    assert_eq!(b_out.len(), 50_000);
    assert_eq!(COUNTER.one_id(&b_out, 1), a_id, "B has A's ID");
    // A's lease outlives A by up to its time-to-live after its last renewal (sent every
    // quarter of it): never much less, and B polls every 100 ms.
    assert!(
        claimed >= Duration::from_secs(TTL - 1) && claimed <= Duration::from_secs(TTL + 10),
        "B claimed A's ID {claimed:?} after the kill (TTL {TTL} s)"
    );
    assert!(strictly_increasing(&b_out), "B: not strictly increasing");
    let a_max = a_out.iter().max().expect("A wrote UUIDs");
    assert!(
        &b_out[0] > a_max,
        "B's first {} is not above A's last {a_max}",
        b_out[0]
    );
    if faketime.is_some() {
        assert!(
            b_err.contains("the clock is") && b_err.contains("behind"),
            "no warning of the clock behind: {b_err}"
        );
    }
    other.kill();
}

#[test]
fn a_killed_holders_id_comes_free_after_the_ttl_and_the_next_holder_is_above_it() {
    killed_holder_then_next("killed", None);
}

#[test]
fn a_killed_holders_id_comes_free_after_the_ttl_and_the_next_holder_is_above_it_with_its_clock_an_hour_back()
 {
    killed_holder_then_next("killed-1h", Some("-1h"));
}

#[test]
fn a_stopped_holder_woken_after_its_id_was_taken_issues_nothing_new() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    let fleet = "stopped";
    const TTL: u64 = 2;
    let ttl = ["--lease-ttl", "2"];
    let mut other = Proc::spawn(gen_cmd(&etcd, fleet, 1, COUNTER, FOREVER, &ttl));
    let other_id = COUNTER.id(&other.expect_lines(1)[0], 1);

    let mut a = Proc::spawn(gen_cmd(&etcd, fleet, 1, COUNTER, FOREVER, &ttl));
    let a_read = Collector::start(a.take_stdout(), Duration::from_millis(20));
    assert!(
        a_read.wait_for(64 * 1024, Duration::from_secs(20)),
        "A writes: {}",
        {
            a.kill();
            a.stderr()
        }
    );
    thread::sleep(Duration::from_millis(500));
    a.signal(libc::SIGSTOP);
    thread::sleep(Duration::from_secs(TTL + 2));

    // B takes A's ID (the only one not held) and keeps it while A wakes.
    let mut b = Proc::spawn(gen_cmd(
        &etcd,
        fleet,
        1,
        COUNTER,
        FOREVER,
        &["--lease-ttl", "2", "--claim-wait", "20"],
    ));
    let b_read = Collector::start(b.take_stdout(), Duration::from_millis(20));
    assert!(
        b_read.wait_for(64 * 1024, Duration::from_secs(30)),
        "B writes: {}",
        {
            b.kill();
            b.stderr()
        }
    );
    a.signal(libc::SIGCONT);
    let st = a
        .exits_within(Duration::from_secs(20))
        .expect("A, woken without its lease, exits");
    let a_err = a.stderr();
    assert!(!st.success(), "A: {st}");
    assert!(a_err.contains("the lease is gone"), "A: {a_err}");
    thread::sleep(Duration::from_millis(300));
    assert!(b.running(), "B keeps its ID: {}", {
        b.kill();
        b.stderr()
    });
    b.kill();
    other.kill();

    // Everything A wrote, before the stop and after the wake: UUIDs A made and was
    // permitted (under the mark it had written) before the stop may reach its output only
    // after the wake; they are below the mark, so below B's.
    let a_out = a_read.finish();
    let b_out = b_read.finish();
    let a_id = COUNTER.one_id(&a_out, 1);
    assert_ne!(a_id, other_id);
    assert_eq!(COUNTER.one_id(&b_out, 1), a_id, "B has A's ID");
    assert!(strictly_increasing(&a_out) && strictly_increasing(&b_out));
    let (a_max, b_min) = (a_out.last().unwrap(), &b_out[0]);
    assert!(a_max < b_min, "A wrote {a_max}, B {b_min}");
    let all = a_out.iter().chain(&b_out).map(Uuid::as_u128).collect();
    assert_eq!(duplicates(all), 0);
}

#[test]
fn losing_quorum_stops_holders_within_the_ttl_and_they_resume() {
    let _turn = one_at_a_time();
    let mut cluster = EtcdCluster::start(3);
    let etcd = cluster.endpoints_arg();
    const TTL: Duration = Duration::from_secs(3);
    let pause = Duration::from_millis(20);
    let mut holders: Vec<Proc> = (0..2)
        .map(|_| {
            Proc::spawn(gen_cmd(
                &etcd,
                "quorum",
                1,
                COUNTER,
                FOREVER,
                &["--lease-ttl", "3"],
            ))
        })
        .collect();
    let readers: Vec<Collector> = holders
        .iter_mut()
        .map(|h| Collector::start(h.take_stdout(), pause))
        .collect();
    for (h, r) in holders.iter_mut().zip(&readers) {
        assert!(r.wait_for(64 * 1024, Duration::from_secs(20)), "{}", {
            h.kill();
            h.stderr()
        });
    }
    thread::sleep(Duration::from_secs(1));

    cluster.stop_member(1);
    cluster.stop_member(2);
    let stopped = Instant::now();
    // The fence shuts at most the time-to-live (less a fifth) after the last renewal;
    // a leader cut off may renew until it steps down (half a second here), and the
    // reader's pauses make a stamp late by a little.
    let limit = stopped + TTL + Duration::from_millis(1500);
    thread::sleep(TTL + Duration::from_secs(3));
    for (i, (h, r)) in holders.iter_mut().zip(&readers).enumerate() {
        let last = r.last_stamp().expect("output");
        assert!(
            last <= limit,
            "holder {i} wrote {:?} after the quorum was lost",
            last.duration_since(stopped)
        );
        assert!(h.running(), "holder {i} waits while fenced: {}", {
            h.kill();
            h.stderr()
        });
    }

    cluster.start_member(1);
    cluster.start_member(2);
    let back = Instant::now();
    for (i, r) in readers.iter().enumerate() {
        let end = back + Duration::from_secs(15);
        while r.last_stamp().is_none_or(|t| t <= back) {
            assert!(
                Instant::now() < end,
                "holder {i} did not resume within 15 s"
            );
            thread::sleep(Duration::from_millis(50));
        }
    }
    for (i, h) in holders.iter_mut().enumerate() {
        assert!(h.running(), "holder {i} exited: {}", {
            h.kill();
            h.stderr()
        });
        h.kill();
    }
    let mut all = Vec::new();
    let mut ids = Vec::new();
    for r in readers {
        let out = r.finish();
        assert!(strictly_increasing(&out));
        ids.push(COUNTER.one_id(&out, 1));
        all.extend(out.iter().map(Uuid::as_u128));
    }
    assert_ne!(ids[0], ids[1]);
    assert_eq!(duplicates(all), 0);
}

#[test]
fn bad_input_is_refused_with_the_value_named_and_nothing_written() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();

    // Unreachable: nothing listens on port 1.
    let out = run(&mut gen_cmd(
        "http://127.0.0.1:1",
        "bad",
        3,
        COUNTER,
        5,
        &[],
    ));
    let err = text(&out.stderr);
    assert_eq!(code(&out), Some(1), "{err}");
    assert!(err.contains("http://127.0.0.1:1"), "{err}");
    assert!(out.stdout.is_empty());

    // Refused before any etcd is asked (exit 2), each naming the value at fault.
    for (args, kind, bits, named) in [
        (
            ["--etcd", "localhost:2379"],
            COUNTER,
            3,
            r#""localhost:2379""#,
        ),
        (["--etcd", etcd.as_str()], COUNTER, 0, "'0'"),
        (["--etcd", etcd.as_str()], COUNTER, 32, "not 32"),
        (
            ["--etcd", etcd.as_str()],
            Draft("draft-v7-ns"),
            40,
            "not 40",
        ),
        // The layout has room for 39, but a leased ID is at most 31 bits everywhere.
        (
            ["--etcd", etcd.as_str()],
            Draft("draft-v7-ns"),
            39,
            "1 to 31 bits wide",
        ),
    ] {
        let mut c = uuidkit();
        c.args(kind.args())
            .args(["--machine-id", "etcd", "--fleet", "bad"])
            .args(args)
            .args(["--machine-id-bits", &bits.to_string(), "-n", "5"]);
        let out = run(&mut c);
        let err = text(&out.stderr);
        assert_eq!(code(&out), Some(2), "{c:?}: {err}");
        assert!(err.contains(named), "{c:?}: {err}");
        if bits != 3 {
            assert!(err.contains("--machine-id-bits"), "{c:?}: {err}");
        }
        assert!(out.stdout.is_empty(), "{c:?}");
    }
    no_holder_keys(&cluster, "bad", 4);

    // Keys under the fleet that uuidkit did not write: named with their values.
    for (fleet, key, value) in [
        ("g", "/uuidkit/g/machine-id/0/mark", "soon"),
        ("g2", "/uuidkit/g2/machine-id/zz", "x"),
    ] {
        cluster
            .put(0, key.as_bytes(), value.as_bytes())
            .expect("etcd put");
        let out = run(&mut gen_cmd(&etcd, fleet, 2, COUNTER, 5, &[]));
        let err = text(&out.stderr);
        assert_eq!(code(&out), Some(1), "{fleet}: {err}");
        assert!(err.contains(key), "{err}");
        assert!(err.contains(&format!("{value:?}")), "{err}");
        assert!(out.stdout.is_empty(), "{fleet}");
        no_holder_keys(&cluster, fleet, 2);
        assert_eq!(
            cluster.get(0, key.as_bytes()).expect("etcd get"),
            Some(value.as_bytes().to_vec()),
            "{key} left as it was"
        );
    }

    // Keys that look like an ID's but are not canonical (`00`, `01`), and a holder key
    // with no lease (it would hold ID 0 for ever): refused by name at once, even with a
    // claim that may wait, never spun on.
    for (fleet, key, value, says) in [
        (
            "z1",
            "/uuidkit/z1/machine-id/00/mark",
            "5",
            "not what uuidkit writes",
        ),
        (
            "z2",
            "/uuidkit/z2/machine-id/01",
            "pid=1",
            "not what uuidkit writes",
        ),
        (
            "z3",
            "/uuidkit/z3/machine-id/0",
            "pid=1 host=h bits=2 place=v7",
            "with no lease",
        ),
    ] {
        cluster
            .put(0, key.as_bytes(), value.as_bytes())
            .expect("etcd put");
        let started = Instant::now();
        let out = run(&mut gen_cmd(
            &etcd,
            fleet,
            2,
            COUNTER,
            5,
            &["--claim-wait", "3"],
        ));
        let err = text(&out.stderr);
        assert_eq!(code(&out), Some(1), "{fleet}: {err}");
        assert!(err.contains(key) && err.contains(says), "{fleet}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{fleet}: went on past --claim-wait"
        );
        assert!(out.stdout.is_empty(), "{fleet}");
        for n in 1..4 {
            assert_eq!(
                cluster
                    .get(0, format!("/uuidkit/{fleet}/machine-id/{n}").as_bytes())
                    .expect("etcd get"),
                None,
                "{fleet}: ID {n} claimed"
            );
        }
    }
}

/// README's "A fleet" try-it block, run as written (one shell, in order) on a machine
/// `scripts/setup` prepared: its etcd member takes ports 23790/23800, not the 2379 that
/// Debian's `etcd.service` may hold, and both commands print their UUIDs.
#[test]
fn readmes_fleet_block_runs_as_written() {
    let _turn = one_at_a_time();
    let readme = include_str!("../../../README.md");
    let marker = readme
        .find("crates/uuidkit-cli/tests/fleet.rs runs it")
        .expect("README's fleet block has its marker");
    let block = &readme[marker..];
    let start = block.find("```console\n").expect("a console block") + "```console\n".len();
    let end = start + block[start..].find("```").expect("the block closes");
    let mut script = String::from("set -e\n");
    let mut commands = 0;
    for line in block[start..end].lines() {
        let Some(command) = line.strip_prefix("$ ") else {
            continue;
        };
        commands += 1;
        script += command;
        script += "\n";
        if command.trim_end().ends_with('&') {
            // The member started in the background ends with the script, whatever happens.
            script += "etcd_pid=$!\ntrap 'kill $etcd_pid 2>/dev/null; wait; rm -rf \"$d\" \"$d.log\"' EXIT\n";
        }
    }
    assert!(
        commands >= 3,
        "README's fleet block has {commands} commands"
    );
    let home = crate::state_common::TempDir::new("readme-fleet");
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_uuidkit"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("PATH", path)
        .env("HOME", home.path())
        .env_remove("UUIDKIT_STATE")
        .env_remove("UUIDKIT_DAEMON")
        .current_dir(home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "README's fleet block failed ({}):\n{script}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let uuids: Vec<Uuid> = stdout
        .lines()
        .map(|l| l.parse().unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    assert_eq!(uuids.len(), 4, "three v7 and one v8:\n{stdout}");
    assert!(
        uuids[..3]
            .iter()
            .all(|u| u.version() == uuidkit::Version::V7)
    );
    assert_eq!(uuids[3].version(), uuidkit::Version::V8);
}

/// A holder whose clock reads 2300 leaves its ID's mark in 2300. A holder with a correct
/// clock then skips that ID, with a warning naming it, and takes another: 0 duplicates;
/// with no other ID free, the claim fails naming the ID and its mark rather than run
/// centuries ahead. For draft-v7-ns, which ends in 2262, the holder at 2300 is refused
/// and writes nothing, and leaves the ID as it found it.
#[test]
fn a_holder_at_the_year_2300_leaves_its_id_skipped_not_shared() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    for (fleet, kind) in [("y2300", COUNTER), ("y2300-ns", Draft("draft-v7-ns"))] {
        let mut ahead = gen_cmd(&etcd, fleet, 1, kind, 1000, &["--lease-ttl", "2"]);
        faked(&mut ahead, "@2300-01-01 00:00:00");
        ahead.env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        let out = ahead.output().unwrap();
        let first = complete_lines(&out.stdout);
        if kind == COUNTER {
            assert!(out.status.success(), "{}", text(&out.stderr));
            assert_eq!(kind.one_id(&first, 1), 0);
        } else {
            // Past draft-v7-ns's end (2262): refused, no UUID written, and the ID given
            // back with its mark lowered to what it used (nothing): the next holder,
            // with a correct clock, takes it as it was.
            assert_eq!(code(&out), Some(1), "{}", text(&out.stderr));
            assert!(text(&out.stderr).contains("would need the mark past"));
            assert!(first.is_empty());
            let out = gen_cmd(&etcd, fleet, 1, kind, 1000, &["--lease-ttl", "2"])
                .output()
                .unwrap();
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{}",
                text(&out.stderr)
            );
            assert_eq!(kind.one_id(&complete_lines(&out.stdout), 1), 0);
            continue;
        }

        let out = gen_cmd(&etcd, fleet, 1, kind, 100_000, &["--lease-ttl", "2"])
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains("skipped machine ID 0"), "{err}");
        let then = complete_lines(&out.stdout);
        assert_eq!(kind.one_id(&then, 1), 1);
        let all: Vec<u128> = first.iter().chain(&then).map(|u| u.as_u128()).collect();
        assert_eq!(duplicates(all), 0, "{fleet}");

        // ID 1 held by another: nothing usable is left.
        let mut other = Proc::spawn(gen_cmd(
            &etcd,
            fleet,
            1,
            kind,
            FOREVER,
            &["--lease-ttl", "2"],
        ));
        other.expect_lines(1);
        let out = gen_cmd(&etcd, fleet, 1, kind, 1, &["--lease-ttl", "2"])
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert_eq!(code(&out), Some(1), "{err}");
        // The mark is where the holder's layout took it: 2300, or draft-v7-ns's last
        // nanosecond in 2262.
        let at = if kind == COUNTER {
            "2300-01-01"
        } else {
            "2262-04-11"
        };
        assert!(
            err.contains("no free machine ID has a usable mark")
                && err.contains(&format!("ID 0 at {at}")),
            "{err}"
        );
        other.kill();
    }
}

/// A layout of few UUIDs per unit runs ahead of the clock in a burst (draft-v8-32: 4,096
/// a second). The mark goes at most a time-to-live past the clock, so the run waits for
/// the clock there and goes on: every UUID asked for, each under a mark etcd held.
#[test]
fn a_burst_past_the_mark_bound_waits_for_the_clock() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    let kind = Draft("draft-v8-32");
    let out = gen_cmd(&etcd, "burst", 2, kind, 20_000, &["--lease-ttl", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all = complete_lines(&out.stdout);
    assert_eq!(all.len(), 20_000);
    assert!(strictly_increasing(&all));
    kind.one_id(&all, 2);
}

/// `gen --machine-id etcd` keeps its state in etcd: a state file or uuidkitd named by the
/// environment is refused (exit 2) naming the variable, not quietly gone without; with
/// --no-state the run goes on.
#[test]
fn a_state_file_or_daemon_from_the_environment_is_refused_not_ignored() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    for (var, value) in [
        ("UUIDKIT_STATE", "/tmp/some-state"),
        ("UUIDKIT_DAEMON", "/tmp/some.sock"),
    ] {
        let mut c = gen_cmd(&etcd, "env", 2, COUNTER, 1, &[]);
        c.env(var, value);
        let out = c.output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(code(&out), Some(2), "{var}: {err}");
        assert!(err.contains(&format!("{var}={value}")), "{err}");
        assert!(out.stdout.is_empty());
        let mut c = gen_cmd(&etcd, "env", 2, COUNTER, 1, &["--no-state"]);
        c.env(var, value);
        let out = c.output().unwrap();
        assert!(out.status.success(), "{var}: {}", text(&out.stderr));
    }
}

/// Told to end (SIGTERM, SIGINT, SIGHUP) or left without a reader (a closed pipe), `gen`
/// gives its ID back as when it ends by itself: the key is gone at once, not after the
/// time-to-live, and the mark covers every UUID it wrote. A signal still ends it as
/// the signal does.
#[test]
fn gen_gives_the_id_back_on_sigterm_sigint_and_a_closed_pipe() {
    use std::os::unix::process::ExitStatusExt;
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    // A long time-to-live: a key still there after the run would be there for a minute.
    let ttl = ["--lease-ttl", "60"];
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let mut p = Proc::spawn(gen_cmd(&etcd, "bye", 1, COUNTER, FOREVER, &ttl));
        let mut out = p.expect_lines(1000);
        p.signal(sig);
        let st = p.exits_within(Duration::from_secs(20)).expect("it ends");
        assert_eq!(st.signal(), Some(sig), "{st}");
        out.extend(read_rest(p.take_stdout()));
        no_holder_keys(&cluster, "bye", 1);
        let mark = {
            let v = cluster
                .get(0, b"/uuidkit/bye/machine-id/0/mark")
                .unwrap()
                .unwrap();
            String::from_utf8(v).unwrap().parse::<u64>().unwrap()
        };
        let last = out.iter().max().unwrap();
        assert!(((last.as_u128() >> 80) as u64) <= mark, "signal {sig}");
    }
    // A reader that goes away.
    let mut p = Proc::spawn(gen_cmd(&etcd, "bye", 1, COUNTER, FOREVER, &ttl));
    p.expect_lines(1000);
    drop(p.take_stdout());
    p.exits_within(Duration::from_secs(20)).expect("it ends");
    no_holder_keys(&cluster, "bye", 1);
}

/// A signal while the claim waits for a free ID (`--claim-wait`) ends gen at once, as
/// the signal would, and it claims nothing afterwards. Before, the signals were blocked
/// and no thread took them until the claim returned: the run went on waiting, then
/// claimed an ID it never gave back.
#[test]
fn a_signal_while_the_claim_waits_ends_gen_at_once() {
    use std::os::unix::process::ExitStatusExt;
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    let geometry = "bits=1 place=v7";
    cluster
        .put(0, b"/uuidkit/busy/geometry", geometry.as_bytes())
        .unwrap();
    let mut leases = Vec::new();
    for n in 0..2 {
        let key = format!("/uuidkit/busy/machine-id/{n}");
        let value = format!("pid=1 host=elsewhere {geometry}");
        leases.push(
            cluster
                .put_leased(0, key.as_bytes(), value.as_bytes(), 60)
                .unwrap(),
        );
    }
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let mut p = Proc::spawn(gen_cmd(
            &etcd,
            "busy",
            1,
            COUNTER,
            5,
            &["--claim-wait", "60"],
        ));
        thread::sleep(Duration::from_millis(700));
        p.signal(sig);
        let st = p.exits_within(Duration::from_secs(10)).expect("it ends");
        assert_eq!(st.signal(), Some(sig), "{st}");
    }
    // An ID comes free: nobody is left waiting to take it.
    cluster.revoke(0, leases[0]).unwrap();
    thread::sleep(Duration::from_millis(500));
    assert_eq!(cluster.get(0, b"/uuidkit/busy/machine-id/0").unwrap(), None);
}

/// `gen --daemon` to a fleet-mode uuidkitd with a `--machine-id` of its own: refused
/// (exit 2) naming both, no UUID written. Before, the daemon's leased ID quietly took
/// the place of the one given.
#[test]
fn gen_refuses_its_own_machine_id_with_a_fleet_mode_daemon() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    let dir = crate::state_common::TempDir::new("fleet-daemon-own-id");
    let socket = dir.join("d.sock");
    let bin = assert_cmd::cargo::cargo_bin("uuidkit").with_file_name("uuidkitd");
    let mut daemon = std::process::Command::new(bin)
        .arg("--socket")
        .arg(&socket)
        .arg("--state")
        .arg(dir.join("state"))
        .args(["--machine-id", "etcd", "--etcd", &etcd, "--fleet", "own"])
        .args(["--machine-id-bits", "4"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    crate::state_common::wait_listening(&mut daemon, &[&socket], Duration::from_secs(30));
    let sock = socket.to_str().unwrap();
    for own in ["5", "hash"] {
        let mut c = uuidkit();
        c.args(["gen", "v7", "-n", "3", "--daemon", sock]).args([
            "--machine-id",
            own,
            "--machine-id-bits",
            "4",
        ]);
        let out = run(&mut c);
        let err = text(&out.stderr);
        assert_eq!(code(&out), Some(2), "{own}: {err}");
        assert!(err.contains("fleet mode") && err.contains(sock), "{err}");
        assert!(out.stdout.is_empty());
    }
    // Without one, its leases stamp the daemon's ID.
    let mut c = uuidkit();
    c.args(["gen", "v7", "-n", "3", "--daemon", sock]);
    let out = run(&mut c);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = daemon.kill();
    let _ = daemon.wait();
}

/// Clocks at the edges: a holder whose every clock (the fence's too) is faked to 2600
/// does not panic; one whose wall clock is past v7's end (10889) is refused, writing no
/// UUID, rather than stamping the range's last millisecond.
#[test]
fn clocks_at_the_edges_neither_panic_nor_stamp_the_ranges_end() {
    let _turn = one_at_a_time();
    let cluster = EtcdCluster::start(1);
    let etcd = cluster.endpoints_arg();
    let mut c = gen_cmd(&etcd, "edge-2600", 1, COUNTER, 3, &["--fence-wait", "1"]);
    faked(&mut c, "@2600-01-01 00:00:00");
    let out = c.output().unwrap();
    let err = text(&out.stderr);
    assert_ne!(code(&out), Some(101), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let end_s = (1u64 << 48) / 1000;
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut c = gen_cmd(&etcd, "edge-end", 1, COUNTER, 3, &["--fence-wait", "1"]);
    faked(&mut c, &format!("+{}", end_s - now_s + 100));
    c.env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    let out = c.output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(code(&out), Some(1), "{err}");
    assert!(err.contains("would need the mark past"), "{err}");
    assert!(out.stdout.is_empty());
}
