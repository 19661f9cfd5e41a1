//! `uuidkit gen --daemon`, `UUIDKIT_DAEMON` and `uuidkit daemon status` against the real
//! uuidkitd.
//!
//! The daemon is another package's binary, so cargo gives these tests no
//! `CARGO_BIN_EXE_uuidkitd`; it is looked for beside the uuidkit binary, where
//! `cargo test --workspace` (or `cargo build -p uuidkitd`) puts it.

use crate::state_common;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use state_common::wait_listening;
use uuidkit::Uuid;
use uuidkit::generator::gregorian::GregorianGenerator;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::node::NodeStrategy;
use uuidkit::service::client::DaemonClient;

const UUIDKIT: &str = env!("CARGO_BIN_EXE_uuidkit");

/// The uuidkitd binary of this build, beside the uuidkit binary.
fn uuidkitd() -> PathBuf {
    let p = Path::new(UUIDKIT).with_file_name(format!("uuidkitd{}", std::env::consts::EXE_SUFFIX));
    assert!(
        p.is_file(),
        "{} is missing: these tests start the daemon; run `cargo build -p uuidkitd` first \
         (`cargo test --workspace` builds it too)",
        p.display()
    );
    p
}

/// A fresh directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p =
            std::env::temp_dir().join(format!("uuidkit-cli-daemon-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn join(&self, s: &str) -> PathBuf {
        self.0.join(s)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running daemon on `<dir>/d.sock` with its state in `<dir>/state`, killed on drop.
struct Daemon {
    child: Child,
    socket: PathBuf,
}

impl Daemon {
    fn start(dir: &TempDir, extra: &[&str]) -> Daemon {
        let socket = dir.join("d.sock");
        let child = Command::new(uuidkitd())
            .arg("--socket")
            .arg(&socket)
            .arg("--state")
            .arg(dir.join("state"))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start uuidkitd");
        let mut d = Daemon { child, socket };
        wait_listening(&mut d.child, &[&d.socket], Duration::from_secs(30));
        d
    }

    fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// `uuidkit ARGS` with UUIDKIT_DAEMON and UUIDKIT_STATE unset (the environment running
/// the tests must not choose for them) and the state file in `dir`.
fn uuidkit(dir: &TempDir, args: &[&str]) -> Command {
    let mut c = Command::new(UUIDKIT);
    c.args(args)
        .env_remove("UUIDKIT_DAEMON")
        .env_remove("UUIDKIT_NODE")
        .env("UUIDKIT_STATE", dir.join("gen-state"))
        .stdin(Stdio::null());
    c
}

/// Runs a command built by [`uuidkit`] (owned, or borrowed after `.env(…)`).
fn run(mut c: impl std::borrow::BorrowMut<Command>) -> Output {
    c.borrow_mut().output().expect("run uuidkit")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn parse_lines(text: &[u8]) -> Vec<Uuid> {
    std::str::from_utf8(text)
        .expect("UTF-8 output")
        .lines()
        .map(|l| Uuid::parse_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

const CLIENTS: usize = 32;
const PER_CLIENT: usize = 100_000;
const NODE: &str = "02:00:5e:00:00:2a";

/// One client of the mix: every other one is a `uuidkit gen --daemon` process, the rest
/// threads using the library's client; all use the same node, so that only the daemon's
/// leases keep their v1 and v6 UUIDs apart.
fn client(
    i: usize,
    version: u8,
    socket: PathBuf,
    dir: &TempDir,
) -> std::thread::JoinHandle<Vec<Uuid>> {
    if i.is_multiple_of(2) {
        let mut child = uuidkit(
            dir,
            &[
                "gen",
                &format!("v{version}"),
                "-n",
                &PER_CLIENT.to_string(),
                "--daemon",
                socket.to_str().unwrap(),
            ],
        );
        if version != 7 {
            child.args(["--node", NODE]);
        }
        let child = child
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start uuidkit gen");
        std::thread::spawn(move || {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "gen v{version}: {}", stderr(&o));
            assert_eq!(stderr(&o), "", "gen v{version} says something");
            parse_lines(&o.stdout)
        })
    } else {
        std::thread::spawn(move || {
            // Each its own connection, as a separate process would have.
            let daemon = Arc::new(DaemonClient::connect(&socket).expect("connect"));
            let out: Vec<Uuid> = if version == 7 {
                let mut g = V7Generator::new(V7Method::Counter).with_store(daemon);
                let v = (0..PER_CLIENT).map(|_| g.next()).collect();
                assert_eq!(g.take_store_warnings(), vec![]);
                v
            } else {
                let g = if version == 1 {
                    GregorianGenerator::v1()
                } else {
                    GregorianGenerator::v6()
                };
                let node = NodeStrategy::Fixed(NODE.parse().unwrap());
                let mut g = g.with_node(node).with_store(daemon);
                let v = (0..PER_CLIENT).map(|_| g.next().unwrap()).collect();
                assert_eq!(g.take_store_warnings(), vec![]);
                v
            };
            out
        })
    }
}

#[test]
fn processes_and_library_clients_share_the_daemon() {
    let dir = TempDir::new("mix");
    let d = Daemon::start(&dir, &[]);
    for version in [1u8, 6, 7] {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|i| client(i, version, d.socket.clone(), &dir))
            .collect();
        let mut all = HashSet::with_capacity(CLIENTS * PER_CLIENT);
        for (i, h) in handles.into_iter().enumerate() {
            let uuids = h.join().unwrap();
            assert_eq!(uuids.len(), PER_CLIENT, "v{version} client {i}");
            if version != 1 {
                for w in uuids.windows(2) {
                    assert!(w[0] < w[1], "v{version} client {i}: {} then {}", w[0], w[1]);
                }
            }
            for u in &uuids {
                assert_eq!(u.version_number(), version, "{u}");
                assert!(all.insert(u.as_u128()), "v{version}: {u} repeats");
            }
        }
        assert_eq!(all.len(), CLIENTS * PER_CLIENT);
    }
    // Nothing went to a state file of the command's own.
    assert!(!dir.join("gen-state").exists());
}

#[test]
fn an_unreachable_daemon_is_an_error_before_any_uuid() {
    let dir = TempDir::new("unreachable");
    let sock = dir.join("none.sock");
    let sock_s = sock.to_str().unwrap();
    for v in ["v1", "v2", "v4", "v6", "v7", "v8"] {
        let o = run(uuidkit(&dir, &["gen", v, "-n", "10", "--daemon", sock_s]));
        assert_eq!(o.status.code(), Some(1), "gen {v}");
        assert!(o.stdout.is_empty(), "gen {v} wrote UUIDs");
        let e = stderr(&o);
        assert!(
            e.starts_with(&format!(
                "uuidkit: cannot reach uuidkitd at {sock_s}: cannot connect: "
            )),
            "gen {v}: {e}"
        );

        // From the environment, the same, and the message says where the path came from.
        let o = run(uuidkit(&dir, &["gen", v, "-n", "10"]).env("UUIDKIT_DAEMON", &sock));
        assert_eq!(o.status.code(), Some(1), "UUIDKIT_DAEMON gen {v}");
        assert!(o.stdout.is_empty());
        assert!(
            stderr(&o).contains(&format!("uuidkitd at {sock_s} (from UUIDKIT_DAEMON)")),
            "{}",
            stderr(&o)
        );
    }
    // A socket file with no daemon behind it (one left by a killed daemon).
    let _listener_gone = std::os::unix::net::UnixListener::bind(&sock).map(drop);
    let o = run(uuidkit(&dir, &["gen", "v7", "--daemon", sock_s]));
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(
        !dir.join("gen-state").exists(),
        "fell back to the state file"
    );
}

/// A usage error of the command line or the environment comes before the daemon is
/// asked: with an unreachable daemon too, a bad UUIDKIT_NODE and a v2 domain without a
/// default local ID are the usage errors (exit 2) they are without one.
#[test]
fn usage_errors_come_before_the_daemon_is_asked() {
    let dir = TempDir::new("usage-first");
    let sock = dir.join("none.sock");
    let sock_s = sock.to_str().unwrap();
    for v in ["v1", "v2", "v6"] {
        let o = run(uuidkit(&dir, &["gen", v, "--daemon", sock_s]).env("UUIDKIT_NODE", "garbage"));
        assert_eq!(o.status.code(), Some(2), "gen {v}: {}", stderr(&o));
        assert!(stderr(&o).contains("UUIDKIT_NODE"), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    let o = run(uuidkit(&dir, &["gen", "v2", "--domain", "org"]).env("UUIDKIT_DAEMON", &sock));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--local-id"), "{}", stderr(&o));
}

#[test]
fn daemon_flag_conflicts_are_usage_errors() {
    let dir = TempDir::new("conflicts");
    let sock = dir.join("none.sock");
    let sock_s = sock.to_str().unwrap();
    let state = dir.join("state");
    for extra in [
        &["--state", state.to_str().unwrap()][..],
        &["--no-state"],
        &["--time", "2024-01-01T00:00:00Z"],
    ] {
        let mut args = vec!["gen", "v7", "--daemon", sock_s];
        args.extend_from_slice(extra);
        let o = run(uuidkit(&dir, &args));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--daemon"), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    for args in [
        &[
            "gen",
            "v5",
            "--namespace",
            "@dns",
            "--name",
            "x",
            "--daemon",
            sock_s,
        ][..],
        &[
            "gen",
            "v8",
            "--namespace",
            "@dns",
            "--name",
            "x",
            "--daemon",
            sock_s,
        ],
        &["gen", "nil", "--daemon", sock_s],
        &["gen", "v7", "--daemon", ""],
    ] {
        let o = run(uuidkit(&dir, args));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn explicit_choices_set_uuidkit_daemon_aside() {
    let dir = TempDir::new("env-aside");
    let sock = dir.join("none.sock");
    let state = dir.join("state");
    for extra in [
        &["--state", state.to_str().unwrap()][..],
        &["--no-state"],
        &["--time", "2024-01-01T00:00:00Z"],
    ] {
        let mut args = vec!["gen", "v7"];
        args.extend_from_slice(extra);
        let o = run(uuidkit(&dir, &args).env("UUIDKIT_DAEMON", &sock));
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(parse_lines(&o.stdout).len(), 1);
    }
    assert!(state.exists(), "--state used its file");
    // The name-based versions have no state: the variable does not concern them.
    let o = run(
        uuidkit(&dir, &["gen", "v5", "--namespace", "@dns", "--name", "x"])
            .env("UUIDKIT_DAEMON", &sock),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // An empty value counts as unset.
    let o = run(uuidkit(&dir, &["gen", "v7"]).env("UUIDKIT_DAEMON", ""));
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn daemon_status_reports_as_json() {
    let dir = TempDir::new("status");
    let mut d = Daemon::start(&dir, &["--node", "02:00:5e:10:00:01"]);
    let sock_s = d.socket.to_str().unwrap().to_string();
    let o = run(uuidkit(
        &dir,
        &["gen", "v7", "-n", "3", "--daemon", &sock_s],
    ));
    assert!(o.status.success(), "{}", stderr(&o));

    let check = |o: &Output| {
        assert!(o.status.success(), "{}", stderr(o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let keys: HashSet<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let expected: HashSet<&str> = [
            "socket",
            "version",
            "state",
            "pid",
            "uptime_ms",
            "leases",
            "random",
            "uuidd_requests",
            "clients",
            "connections",
            "node",
            "lead_bound_ms",
            "leads",
            "machine_id",
            "fleet",
        ]
        .into();
        assert_eq!(keys, expected);
        v
    };
    let v = check(&run(uuidkit(
        &dir,
        &["daemon", "status", "--daemon", &sock_s],
    )));
    assert_eq!(v["socket"], sock_s.as_str());
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["state"], dir.join("state").to_str().unwrap());
    assert_eq!(v["pid"], d.child.id());
    assert_eq!(v["node"], "02005e100001");
    assert_eq!(v["fleet"], serde_json::Value::Null);
    assert!(
        v["machine_id"]
            .as_str()
            .unwrap()
            .starts_with("none: the daemon is not in fleet mode")
    );
    assert!(v["leases"].as_u64().unwrap() >= 1, "{v}");
    assert_eq!(v["random"], 0);
    assert_eq!(v["uuidd_requests"], 0);
    assert!(v["clients"].as_u64().unwrap() >= 1, "{v}");
    assert!(v["connections"].as_u64().unwrap() >= 2, "{v}");
    assert!(v["uptime_ms"].is_u64());
    // The bound on the lead (the default, 10 s), and v7's lead: the 3 UUIDs' lease,
    // within the bound.
    assert_eq!(v["lead_bound_ms"], 10_000.0);
    let v7 = v["leads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == "v7")
        .unwrap_or_else(|| panic!("no v7 lead: {v}"));
    assert!(v7["lead_ms"].as_f64().unwrap() <= 10_000.0, "{v}");

    // From the environment too.
    let v = check(&run(
        uuidkit(&dir, &["daemon", "status"]).env("UUIDKIT_DAEMON", &d.socket)
    ));
    assert_eq!(v["pid"], d.child.id());

    d.kill9();
    let o = run(uuidkit(&dir, &["daemon", "status", "--daemon", &sock_s]));
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(
        stderr(&o).starts_with(&format!("uuidkit: cannot reach uuidkitd at {sock_s}: ")),
        "{}",
        stderr(&o)
    );
    let o = run(uuidkit(&dir, &["daemon", "status"]).env("UUIDKIT_DAEMON", &d.socket));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("(from UUIDKIT_DAEMON)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn v4_comes_from_the_daemon() {
    let dir = TempDir::new("v4");
    let d = Daemon::start(&dir, &[]);
    let sock_s = d.socket.to_str().unwrap();
    // More than one protocol request's worth.
    let n = 3 * uuidkit::service::protocol::MAX_RANDOM_COUNT as usize + 7;
    let o = run(uuidkit(
        &dir,
        &["gen", "v4", "-n", &n.to_string(), "--daemon", sock_s],
    ));
    assert!(o.status.success(), "{}", stderr(&o));
    let uuids = parse_lines(&o.stdout);
    assert_eq!(uuids.len(), n);
    assert!(uuids.iter().all(|u| u.version_number() == 4));
    assert_eq!(uuids.iter().collect::<HashSet<_>>().len(), n);
    let status = DaemonClient::new(&d.socket).status().unwrap();
    assert_eq!(status.random, n as u64, "the daemon made them");

    let o = run(uuidkit(&dir, &["gen", "v4", "-n", "5"]).env("UUIDKIT_DAEMON", &d.socket));
    assert!(o.status.success(), "{}", stderr(&o));
    let status = DaemonClient::new(&d.socket).status().unwrap();
    assert_eq!(status.random, n as u64 + 5);
}

/// Kills the daemon while `gen ARGS` writes: gen must stop with exit status 1, saying
/// how many UUIDs it wrote, and have written exactly those.
fn stops_when_the_daemon_goes(name: &str, args: &[&str]) {
    let dir = TempDir::new(name);
    let mut d = Daemon::start(&dir, &[]);
    let sock_s = d.socket.to_str().unwrap().to_string();
    let mut all = args.to_vec();
    all.extend_from_slice(&["-n", "0xffffffffffff", "--daemon", &sock_s]);
    let mut child = uuidkit(&dir, &all)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut lines = 0u64;
    let mut line = String::new();
    // Some UUIDs through the daemon first.
    while lines < 10_000 {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "gen ended early");
        lines += 1;
    }
    d.kill9();
    // gen notices at its next request and ends; whatever it wrote before is read here.
    loop {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        Uuid::parse_str(line.trim_end()).unwrap();
        lines += 1;
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("stopped after {lines} UUIDs")),
        "{lines}: {err}"
    );
    assert!(err.contains(&sock_s), "{err}");
}

#[test]
fn gen_v7_stops_when_the_daemon_goes() {
    stops_when_the_daemon_goes("lost-v7", &["gen", "v7"]);
}

#[test]
fn gen_v6_stops_when_the_daemon_goes() {
    stops_when_the_daemon_goes("lost-v6", &["gen", "v6", "--node", NODE]);
}

#[test]
fn gen_v4_stops_when_the_daemon_goes() {
    stops_when_the_daemon_goes("lost-v4", &["gen", "v4"]);
}

/// The 2021 draft's layouts lease through the daemon too: processes that share it never
/// make the same (timestamp, sequence), even when the layout's sequence restarts at 0.
#[test]
fn draft_layouts_share_the_daemon() {
    use uuidkit::layout::{Layout, decode_as};
    let dir = TempDir::new("draft");
    let d = Daemon::start(&dir, &[]);
    let sock = d.socket.to_str().unwrap().to_string();
    for name in ["draft-v8-32", "draft-v7-us"] {
        let layout: Layout = name.parse().unwrap();
        let outs: Vec<Output> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    let sock = sock.clone();
                    let dir = &dir;
                    s.spawn(move || {
                        run(uuidkit(
                            dir,
                            &[
                                "gen", "v8", "--layout", name, "--daemon", &sock, "-n", "3000",
                            ],
                        ))
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut positions = HashSet::new();
        for o in &outs {
            assert!(o.status.success(), "{name}: {}", stderr(o));
            let uuids = parse_lines(&o.stdout);
            assert_eq!(uuids.len(), 3000);
            for w in uuids.windows(2) {
                assert!(w[0] < w[1], "{name}: in order in one process");
            }
            for u in uuids {
                let f = decode_as(&u, layout).unwrap();
                assert!(
                    positions.insert((f.timestamp, f.sequence)),
                    "{name}: {u} repeats a position"
                );
            }
        }
    }
    assert!(!dir.join("gen-state").exists());
}

/// The daemon's state file holds a kind whose range a clock far ahead used up: the
/// daemon answers `EXHAUSTED`, and `gen --daemon` stops (exit 1) without a UUID, with a
/// message naming the daemon and the kind, rather than go on in memory below the
/// earlier UUIDs.
#[test]
fn gen_stops_when_the_daemons_range_is_used_up() {
    use uuidkit::store::{GeneratorKind, LeaseRequest, StateStore};
    let dir = TempDir::new("used-up");
    let max = GeneratorKind::V7.max_position();
    StateStore::open(dir.join("state"))
        .lease(&LeaseRequest::new(GeneratorKind::V7, max, max, 1))
        .unwrap();
    let d = Daemon::start(&dir, &[]);
    let socket = d.socket.to_str().unwrap();
    let out = run(uuidkit(&dir, &["gen", "v7", "-n", "3", "--daemon", socket]));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "uuidkitd at {socket}: its v7 positions are used up"
        )),
        "{err}"
    );
}
