//! The service with the clock set back (libfaketime), for every kind a client can ask
//! it for: `uuidkit gen --daemon` for v1, v6, v7, time-based v8 and the 2021 draft's
//! seven layouts, and libuuid's v1 through the uuidd protocol.
//!
//! Two ways the clock goes back, each by a second, an hour and a day:
//! - **restart**: the daemon is killed (`kill -9`) and started again on the same state
//!   file with its clock, and its clients', set back;
//! - **running**: the clock of the running daemon and of its clients is set back while
//!   they run (libfaketime re-reads its setting from a file at every reading), with a
//!   client of each kind in the middle of its run.
//!
//! Every client exits 0 with all its UUIDs, no UUID repeats, v6, v7, v8 and the draft
//! layouts' UUIDs are each above every one made before, and v1 (both protocols) goes on
//! with a new clock sequence once the step is larger than the state file's tolerance for
//! a reading taken before waiting for its lock (5 s). Nothing here measures time.
//!
//! The daemon is another package's binary: it is looked for beside the uuidkit binary,
//! where `cargo test --workspace` (or `cargo build -p uuidkitd`) puts it.

use crate::state_common;

use std::collections::HashSet;
use std::io::{BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use state_common::{TempDir, libfaketime, read_lines, read_rest, wait_listening};
use uuidkit::Uuid;

/// The nodes of the `gen v1` and `gen v6` clients: fixed, so that each run goes on from
/// the same state entry as the runs before it, and one each, so that neither waits for
/// the clock behind the other (a Gregorian client that is told its lease would run
/// ahead of the clock waits for the clock; a wait under way when the clock steps back is
/// the generator's, not the service's, and not what these tests are about).
const V1_NODE: &str = "02:00:5e:00:00:2a";
const V6_NODE: &str = "02:00:5e:00:00:2b";
/// The node of the daemon's own v1 UUIDs, for libuuid.
const UUIDD_NODE: &str = "02:00:5e:00:00:2c";

/// UUIDs a client run makes: enough for many leases of v1 and v6 (their blocks start at
/// 16 timestamps) and of the draft layouts whose blocks are a millisecond or a second.
const PER_RUN: usize = 10_000;
/// A client running across the step: how many it makes, and how many are read before
/// the step (the rest wait behind a full pipe, so most are made after it).
const DURING: usize = 20_000;
const READ_BEFORE_STEP: usize = 2_000;

/// A kind a client asks the daemon for, by the arguments of `uuidkit gen`.
struct Kind {
    name: &'static str,
    args: &'static [&'static str],
    /// v1: distinct only; the others also ordered.
    v1: bool,
}

const KINDS: [Kind; 11] = [
    Kind {
        name: "v1",
        args: &["v1", "--node", V1_NODE],
        v1: true,
    },
    Kind {
        name: "v6",
        args: &["v6", "--node", V6_NODE],
        v1: false,
    },
    Kind {
        name: "v7",
        args: &["v7"],
        v1: false,
    },
    Kind {
        name: "v8",
        args: &["v8"],
        v1: false,
    },
    Kind {
        name: "draft-v7-ms",
        args: &["v8", "--layout", "draft-v7-ms"],
        v1: false,
    },
    Kind {
        name: "draft-v7-us",
        args: &["v8", "--layout", "draft-v7-us"],
        v1: false,
    },
    Kind {
        name: "draft-v7-ns",
        args: &["v8", "--layout", "draft-v7-ns"],
        v1: false,
    },
    Kind {
        name: "draft-v8-32",
        args: &["v8", "--layout", "draft-v8-32"],
        v1: false,
    },
    Kind {
        name: "draft-v8-48",
        args: &["v8", "--layout", "draft-v8-48"],
        v1: false,
    },
    Kind {
        name: "draft-v8-60",
        args: &["v8", "--layout", "draft-v8-60"],
        v1: false,
    },
    Kind {
        name: "draft-v8-64",
        args: &["v8", "--layout", "draft-v8-64"],
        v1: false,
    },
];

/// Whose clock, and how it is set.
#[derive(Clone)]
enum Clock {
    /// The system's.
    Real,
    /// Offset by libfaketime's `FAKETIME` (seconds, `-3600`).
    Offset(String),
    /// Offset as the file says at each reading (`FAKETIME_TIMESTAMP_FILE`).
    File(PathBuf),
}

impl Clock {
    fn apply(&self, c: &mut Command) {
        for var in [
            "LD_PRELOAD",
            "FAKETIME",
            "FAKETIME_TIMESTAMP_FILE",
            "FAKETIME_NO_CACHE",
        ] {
            c.env_remove(var);
        }
        match self {
            Clock::Real => return,
            Clock::Offset(o) => c.env("FAKETIME", o),
            Clock::File(p) => c
                .env("FAKETIME_TIMESTAMP_FILE", p)
                .env("FAKETIME_NO_CACHE", "1"),
        };
        // A step of the wall clock (settimeofday, NTP) leaves the monotonic clock alone,
        // and the daemon's timeouts run on that one.
        c.env("LD_PRELOAD", libfaketime())
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
}

/// The uuidkitd binary of this build, beside the uuidkit binary.
fn uuidkitd() -> PathBuf {
    let p = assert_cmd::cargo::cargo_bin("uuidkit").with_file_name("uuidkitd");
    assert!(
        p.is_file(),
        "{} is missing: these tests start the daemon; run `cargo build -p uuidkitd` first \
         (`cargo test --workspace` builds it too)",
        p.display()
    );
    p
}

/// A daemon on `<dir>/d.sock` (uuidd protocol on `<dir>/uuidd.sock`), state in
/// `<dir>/state`, killed on drop.
struct Daemon {
    child: Child,
    socket: PathBuf,
    uuidd: PathBuf,
}

impl Daemon {
    fn start(dir: &TempDir, clock: &Clock) -> Daemon {
        let socket = dir.join("d.sock");
        let uuidd = dir.join("uuidd.sock");
        let mut c = Command::new(uuidkitd());
        c.arg("--socket")
            .arg(&socket)
            .arg("--uuidd-socket")
            .arg(&uuidd)
            .arg("--state")
            .arg(dir.join("state"))
            .args(["--node", UUIDD_NODE])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        clock.apply(&mut c);
        let child = c.spawn().expect("start uuidkitd");
        let mut d = Daemon {
            child,
            socket,
            uuidd,
        };
        wait_listening(
            &mut d.child,
            &[&d.socket, &d.uuidd],
            Duration::from_secs(60),
        );
        d
    }

    fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Still serving: not exited.
    fn assert_running(&mut self) {
        assert!(matches!(self.child.try_wait(), Ok(None)), "uuidkitd exited");
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// `uuidkit gen <kind> -n N --daemon SOCK` with `clock`, and none of the variables that
/// would choose for the test.
fn gen_cmd(kind: &Kind, n: usize, socket: &Path, clock: &Clock) -> Command {
    let mut c = state_common::uuidkit();
    c.env_remove("UUIDKIT_DAEMON")
        .arg("gen")
        .args(kind.args)
        .args(["-n", &n.to_string(), "--daemon"])
        .arg(socket)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    clock.apply(&mut c);
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// One run of every kind at once, each to its end: every one must exit 0, say nothing
/// and write all `n` UUIDs.
fn run_all(socket: &Path, clock: &Clock, n: usize, what: &str) -> Vec<Vec<Uuid>> {
    let children: Vec<Child> = KINDS
        .iter()
        .map(|k| {
            gen_cmd(k, n, socket, clock)
                .spawn()
                .expect("start uuidkit gen")
        })
        .collect();
    children
        .into_iter()
        .zip(&KINDS)
        .map(|(c, k)| {
            let o = c.wait_with_output().expect("run uuidkit gen");
            assert!(
                o.status.success() && o.stderr.is_empty(),
                "{what}: gen {}: {:?}: {}",
                k.name,
                o.status,
                stderr(&o)
            );
            let u = state_common::uuids(&o.stdout);
            assert_eq!(u.len(), n, "{what}: gen {}", k.name);
            u
        })
        .collect()
}

/// A run of every kind that is under way when `step` is called: `step` runs once every
/// client has written `READ_BEFORE_STEP` UUIDs, and each then runs to its end.
fn run_all_across(socket: &Path, clock: &Clock, step: impl FnOnce()) -> Vec<Vec<Uuid>> {
    let mut children: Vec<Child> = KINDS
        .iter()
        .map(|k| {
            gen_cmd(k, DURING, socket, clock)
                .spawn()
                .expect("start uuidkit gen")
        })
        .collect();
    let mut outs: Vec<_> = children
        .iter_mut()
        .map(|c| BufReader::new(c.stdout.take().expect("piped")))
        .collect();
    let firsts: Vec<Vec<Uuid>> = outs
        .iter_mut()
        .map(|o| read_lines(o, READ_BEFORE_STEP))
        .collect();
    step();
    let mut all = Vec::new();
    for ((mut child, out), (first, k)) in children
        .into_iter()
        .zip(outs)
        .zip(firsts.into_iter().zip(&KINDS))
    {
        let mut u = first;
        u.extend(read_rest(out));
        let mut err = String::new();
        child
            .stderr
            .take()
            .expect("piped")
            .read_to_string(&mut err)
            .expect("read stderr");
        let status = child.wait().expect("wait for uuidkit gen");
        assert!(
            status.success() && err.is_empty(),
            "across the step: gen {}: {status:?}: {err}",
            k.name
        );
        assert_eq!(u.len(), DURING, "across the step: gen {}", k.name);
        all.push(u);
    }
    all
}

/// Sends one uuidd request and reads its reply's payload.
fn uuidd_ask(path: &Path, req: &[u8]) -> Vec<u8> {
    let mut s = UnixStream::connect(path).expect("connect to the uuidd socket");
    s.write_all(req).expect("send a uuidd request");
    let mut len = [0u8; 4];
    s.read_exact(&mut len)
        .expect("a uuidd reply (the daemon closed the connection)");
    let mut body = vec![0u8; i32::from_ne_bytes(len) as usize];
    s.read_exact(&mut body).expect("a uuidd reply's payload");
    body
}

/// A block of v1 timestamps libuuid was given: `first..=last` with one clock sequence.
#[derive(Clone, Copy, Debug)]
struct Block {
    first: u64,
    last: u64,
    clock_seq: u16,
}

/// libuuid's requests: single time UUIDs (op 2) and bulk ones (op 4), as blocks.
fn uuidd_blocks(path: &Path) -> Vec<Block> {
    let mut blocks = Vec::new();
    for i in 0..20 {
        let (u, n) = if i % 2 == 0 {
            (uuidd_ask(path, &[2]), 1)
        } else {
            let mut req = vec![4u8];
            req.extend_from_slice(&1000i32.to_ne_bytes());
            (uuidd_ask(path, &req), 1000)
        };
        let u = Uuid::from_bytes(u[..16].try_into().expect("16 bytes"));
        assert_eq!(u.version_number(), 1, "{u}");
        let first = u.timestamp().expect("a v1 UUID").raw();
        blocks.push(Block {
            first,
            last: first + n - 1,
            clock_seq: u.clock_seq().expect("a v1 UUID"),
        });
    }
    blocks
}

fn clock_seq(u: &Uuid) -> u16 {
    u.clock_seq().expect("a v1 UUID")
}

/// What every kind made, in the order the runs came: `runs[i][k]` is run `i`'s UUIDs of
/// `KINDS[k]`; runs before `first_after` made their UUIDs before the step (all, or for
/// a run across it, some), the later ones after it.
fn check(step_secs: u64, runs: &[Vec<Vec<Uuid>>], first_after: usize, what: &str) {
    for (k, kind) in KINDS.iter().enumerate() {
        let in_order: Vec<Uuid> = runs.iter().flat_map(|r| r[k].iter().copied()).collect();
        let mut seen = HashSet::with_capacity(in_order.len());
        for u in &in_order {
            assert!(seen.insert(*u), "{what}: {}: {u} repeats", kind.name);
        }
        if kind.v1 {
            // The first run, wholly before the step, keeps the clock sequence it took.
            let before = clock_seq(&runs[0][k][0]);
            assert!(runs[0][k].iter().all(|u| clock_seq(u) == before), "{what}");
            if step_secs > 5 {
                for r in &runs[first_after..] {
                    assert!(
                        r[k].iter().all(|u| clock_seq(u) != before),
                        "{what}: v1 kept clock sequence {before} after the clock went back \
                         {step_secs} s"
                    );
                }
            }
        } else {
            // One process after another (or one across the step): each UUID above every
            // one before it.
            if let Some(i) = in_order.windows(2).position(|w| w[0] >= w[1]) {
                panic!(
                    "{what}: {}: {} after {} (UUID {} of {})",
                    kind.name,
                    in_order[i + 1],
                    in_order[i],
                    i + 1,
                    in_order.len()
                );
            }
        }
    }
}

/// libuuid's blocks before and after the step: disjoint per clock sequence, and after a
/// step beyond the tolerance, a new clock sequence.
fn check_uuidd(step_secs: u64, before: &[Block], after: &[Block], what: &str) {
    let all: Vec<Block> = before.iter().chain(after).copied().collect();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert!(
                a.clock_seq != b.clock_seq || a.last < b.first || b.last < a.first,
                "{what}: uuidd blocks {a:?} and {b:?} overlap"
            );
        }
    }
    if step_secs > 5 {
        let old: HashSet<u16> = before.iter().map(|b| b.clock_seq).collect();
        assert!(
            after.iter().all(|b| !old.contains(&b.clock_seq)),
            "{what}: libuuid's v1 kept its clock sequence {old:?} after the clock went back"
        );
    }
}

/// Kill the daemon, start it again on its state file with the clock `step_secs` back,
/// and ask it for every kind with that clock.
fn restart_with_the_clock_back(step_secs: u64) {
    let what = format!("restart, clock {step_secs} s back");
    let dir = TempDir::new(&format!("daemon-clock-restart-{step_secs}"));
    let mut d = Daemon::start(&dir, &Clock::Real);
    let before = run_all(&d.socket, &Clock::Real, PER_RUN, &what);
    let uuidd_before = uuidd_blocks(&d.uuidd);
    d.kill9();

    let back = Clock::Offset(format!("-{step_secs}"));
    let mut d = Daemon::start(&dir, &back);
    let after = run_all(&d.socket, &back, PER_RUN, &what);
    let again = run_all(&d.socket, &back, PER_RUN, &what);
    let uuidd_after = uuidd_blocks(&d.uuidd);
    d.assert_running();

    check(step_secs, &[before, after, again], 1, &what);
    check_uuidd(step_secs, &uuidd_before, &uuidd_after, &what);
}

/// Set the running daemon's clock, and its clients', `step_secs` back while a client of
/// every kind is under way, then ask it for every kind again.
fn step_back_while_running(step_secs: u64) {
    let what = format!("running, clock {step_secs} s back");
    let dir = TempDir::new(&format!("daemon-clock-running-{step_secs}"));
    let setting = dir.join("faketime");
    std::fs::write(&setting, "+0\n").expect("write the faketime setting");
    let clock = Clock::File(setting.clone());
    let mut d = Daemon::start(&dir, &clock);
    let before = run_all(&d.socket, &clock, PER_RUN, &what);
    let uuidd_before = uuidd_blocks(&d.uuidd);
    let across = run_all_across(&d.socket, &clock, || {
        // Replaced in one rename, so that no reading sees half a setting.
        let tmp = dir.join("faketime.new");
        std::fs::write(&tmp, format!("-{step_secs}\n")).expect("write the faketime setting");
        std::fs::rename(&tmp, &setting).expect("replace the faketime setting");
    });
    let after = run_all(&d.socket, &clock, PER_RUN, &what);
    let again = run_all(&d.socket, &clock, PER_RUN, &what);
    let uuidd_after = uuidd_blocks(&d.uuidd);
    d.assert_running();

    // The run across the step made some of its UUIDs before it: only the later runs
    // are wholly after it.
    check(step_secs, &[before, across, after, again], 2, &what);
    check_uuidd(step_secs, &uuidd_before, &uuidd_after, &what);
}

const SECOND: u64 = 1;
const HOUR: u64 = 3600;
const DAY: u64 = 86_400;

#[test]
fn restart_with_the_clock_a_second_back() {
    restart_with_the_clock_back(SECOND);
}

#[test]
fn restart_with_the_clock_an_hour_back() {
    restart_with_the_clock_back(HOUR);
}

#[test]
fn restart_with_the_clock_a_day_back() {
    restart_with_the_clock_back(DAY);
}

#[test]
fn clock_a_second_back_while_running() {
    step_back_while_running(SECOND);
}

#[test]
fn clock_an_hour_back_while_running() {
    step_back_while_running(HOUR);
}

#[test]
fn clock_a_day_back_while_running() {
    step_back_while_running(DAY);
}
