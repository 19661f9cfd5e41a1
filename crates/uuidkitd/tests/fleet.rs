//! Fleet mode (`--machine-id etcd`) against a real etcd (`etcd_cluster`): two daemons of
//! one fleet with 1-bit IDs hold IDs 0 and 1 and stamp every v7 UUID their clients make;
//! a third finds every ID held and exits; a daemon cut off from etcd answers `FENCED`
//! within the lease's time-to-live, and serves again once etcd is back; bad flags fail
//! before anything reaches etcd.

use crate::common;
use crate::etcd_cluster::EtcdCluster;

use std::collections::HashSet;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{BIN, Daemon, TempDir};
use uuidkit::Uuid;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::service::client::DaemonClient;
use uuidkit::store::{GeneratorKind, LeaseRequest, StoreError};

const FLEET: &str = "itfleet";

fn fleet_args(endpoints: &str) -> Vec<String> {
    [
        "--machine-id",
        "etcd",
        "--etcd",
        endpoints,
        "--fleet",
        FLEET,
        "--machine-id-bits",
        "1",
        "--lease-ttl",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn start(dir: &TempDir, endpoints: &str) -> Daemon {
    let args = fleet_args(endpoints);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Daemon::start(&dir.0, &args, None)
}

/// The machine ID of a UUID made through a fleet-mode daemon, 1 bit wide: its last bit,
/// for every v7 method and draft layout, so that clients of two daemons never meet
/// whatever method each uses.
fn id_of(u: &Uuid) -> u64 {
    (u.as_u128() & 1) as u64
}

/// `n` v7 UUIDs of `method` through the daemon at `socket`; no store warning.
fn v7_through(socket: &std::path::Path, method: V7Method, n: usize) -> Vec<Uuid> {
    let mut g = V7Generator::new(method).with_store(Arc::new(DaemonClient::new(socket)));
    let mut out = vec![Uuid::NIL; n];
    g.fill(&mut out[..1]);
    for chunk in out[1..].chunks_mut(256) {
        g.fill(chunk);
    }
    let w = g.take_store_warnings();
    assert!(w.is_empty(), "{w:?}");
    assert!(out.windows(2).all(|p| p[0] < p[1]), "{method} not ordered");
    out
}

fn v7_lease(c: &DaemonClient) -> Result<uuidkit::store::Lease, StoreError> {
    let kind = GeneratorKind::V7;
    let clock = kind.clock_position(uuidkit::time::UnixTime::now());
    c.lease_from_daemon(&LeaseRequest::new(kind, clock, clock, 1 << 30))
        .expect("the daemon answers")
}

/// Two daemons hold IDs 0 and 1, a third is refused, every UUID carries its daemon's ID
/// (Methods 1 and 2), none repeats across the two, `status` shows each ID; with etcd
/// stopped the leases become `FENCED` within the time-to-live (and a generator goes on
/// in memory with a warning naming the fence), and are served again once it is back.
#[test]
fn two_daemons_hold_ids_0_and_1_and_stamp_every_uuid() {
    let mut etcd = EtcdCluster::start(1);
    let ep = etcd.endpoints_arg();
    let (dir0, dir1, dir2) = (
        TempDir::new("fleet-a"),
        TempDir::new("fleet-b"),
        TempDir::new("fleet-c"),
    );
    let d0 = start(&dir0, &ep);
    let d1 = start(&dir1, &ep);

    // A third: every ID is held, it exits before binding its socket.
    let o = Command::new(BIN)
        .arg("--socket")
        .arg(dir2.join("d.sock"))
        .arg("--state")
        .arg(dir2.join("state"))
        .args(fleet_args(&ep))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("all 2 machine IDs of fleet \"itfleet\" are held"),
        "{err}"
    );
    assert!(!dir2.join("d.sock").exists());
    // Told to wait for a free ID: it waits, then exits the same way.
    let o = Command::new(BIN)
        .arg("--socket")
        .arg(dir2.join("d.sock"))
        .arg("--state")
        .arg(dir2.join("state"))
        .args(fleet_args(&ep))
        .args(["--claim-wait", "0.5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("none came free in 0.5 s"), "{err}");

    let mut ids = Vec::new();
    for d in [&d0, &d1] {
        let s = DaemonClient::new(&d.socket).status().unwrap();
        let f = s.fleet.expect("fleet mode in the status");
        assert_eq!((f.fleet.as_str(), f.bits), (FLEET, 1));
        assert!(f.remaining_ms.is_some_and(|r| r <= 2000));
        assert!(f.mark_ms > 1_600_000_000_000);
        ids.push(f.id.expect("an ID held"));
    }
    ids.sort();
    assert_eq!(ids, [0, 1]);

    let mut all = HashSet::new();
    for d in [&d0, &d1] {
        let id = DaemonClient::new(&d.socket)
            .status()
            .unwrap()
            .fleet
            .unwrap()
            .id
            .unwrap();
        let counter = v7_through(&d.socket, V7Method::Counter, 200_000);
        assert!(counter.iter().all(|u| id_of(u) == id));
        let precision = v7_through(&d.socket, V7Method::Precision, 10_000);
        assert!(precision.iter().all(|u| id_of(u) == id));
        // Method 2 keeps the ID in the last bit too, below its random value.
        let random = v7_through(&d.socket, V7Method::Random, 20_000);
        assert!(random.iter().all(|u| id_of(u) == id));
        let layout = "draft-v7-ms".parse().unwrap();
        let mut g = uuidkit::generator::draft::DraftGenerator::new(layout)
            .unwrap()
            .with_store(Arc::new(DaemonClient::new(&d.socket)));
        let mut draft = vec![Uuid::NIL; 10_000];
        for chunk in draft.chunks_mut(256) {
            g.fill(chunk);
        }
        assert!(g.take_store_warnings().is_empty());
        assert!(draft.iter().all(|u| id_of(u) == id));
        let n = all.len();
        all.extend(
            counter
                .iter()
                .chain(&precision)
                .chain(&random)
                .chain(&draft)
                .copied(),
        );
        assert_eq!(all.len(), n + 240_000, "a UUID repeated");
    }

    // etcd stops: within the time-to-live (2 s, less the margin) the leases are fenced;
    // other connections, and the daemon, go on.
    let c = DaemonClient::new(&d0.socket);
    assert!(v7_lease(&c).unwrap().machine_id.is_some());
    etcd.stop_member(0);
    let stopped = Instant::now();
    let fenced = loop {
        match v7_lease(&c) {
            Err(StoreError::Fenced(w)) => break w,
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
        assert!(
            stopped.elapsed() < Duration::from_millis(3000),
            "still served 3 s after etcd stopped"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(stopped.elapsed() <= Duration::from_millis(2500));
    assert!(fenced.to_string().contains("fenced"), "{fenced}");
    let s = c.status().unwrap().fleet.unwrap();
    assert_eq!(s.remaining_ms, None);
    // v8 is not stamped: served as before.
    let v8 = GeneratorKind::V8;
    let clock = v8.clock_position(uuidkit::time::UnixTime::now());
    assert!(
        c.lease_from_daemon(&LeaseRequest::new(v8, clock, clock, 16))
            .unwrap()
            .is_ok()
    );
    // A generator asks again for a while, then goes on in memory and says why.
    let mut g =
        V7Generator::new(V7Method::Counter).with_store(Arc::new(DaemonClient::new(&d0.socket)));
    g.next();
    let w = g.take_store_warnings();
    assert!(
        w.iter()
            .any(|w| w.to_string().contains("machine ID is fenced")),
        "{w:?}"
    );

    // etcd is back: served again, stamped.
    etcd.start_member(0);
    let back = Instant::now();
    loop {
        match v7_lease(&c) {
            Ok(l) => {
                assert!(l.machine_id.is_some());
                break;
            }
            Err(StoreError::Fenced(_)) => {}
            Err(e) => panic!("{e}"),
        }
        assert!(
            back.elapsed() < Duration::from_secs(20),
            "not served 20 s after etcd came back"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = v7_through(&d0.socket, V7Method::Counter, 10_000);
    assert!(after.iter().all(|u| !all.contains(u)));
}

/// Bad fleet flags: exit status non-zero, a message naming the value at fault, no socket,
/// and nothing written to etcd.
#[test]
fn bad_fleet_flags_fail_naming_the_value() {
    let etcd = EtcdCluster::start(1);
    let ep = etcd.endpoints_arg();
    let dir = TempDir::new("fleet-flags");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "--machine-id",
                "etcd",
                "--fleet",
                "f",
                "--machine-id-bits",
                "1",
            ],
            "--etcd",
        ),
        (
            vec![
                "--machine-id",
                "etcd",
                "--etcd",
                "notaurl",
                "--fleet",
                "f",
                "--machine-id-bits",
                "1",
            ],
            "notaurl",
        ),
        (
            vec![
                "--machine-id",
                "etcd",
                "--etcd",
                &ep,
                "--fleet",
                "f",
                "--machine-id-bits",
                "0",
            ],
            "width 0",
        ),
        (
            vec![
                "--machine-id",
                "etcd",
                "--etcd",
                &ep,
                "--fleet",
                "f",
                "--machine-id-bits",
                "40",
            ],
            "width 40",
        ),
        (
            vec![
                "--machine-id",
                "zookeeper",
                "--etcd",
                &ep,
                "--fleet",
                "f",
                "--machine-id-bits",
                "1",
            ],
            "zookeeper",
        ),
        (vec!["--etcd", &ep], "--machine-id"),
        (
            vec![
                "--machine-id",
                "etcd",
                "--etcd",
                &ep,
                "--fleet",
                "f/g",
                "--machine-id-bits",
                "1",
            ],
            "f/g",
        ),
        (
            vec![
                "--machine-id",
                "etcd",
                "--etcd",
                &ep,
                "--fleet",
                "f",
                "--machine-id-bits",
                "1",
                "--lease-ttl",
                "1",
            ],
            "1.000 s",
        ),
    ];
    for (args, named) in cases {
        let o = Command::new(BIN)
            .arg("--socket")
            .arg(dir.join("d.sock"))
            .arg("--state")
            .arg(dir.join("state"))
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(!dir.join("d.sock").exists(), "{args:?}");
    }
    for key in ["/uuidkit/f/machine-id/0", "/uuidkit/f/machine-id/0/mark"] {
        assert_eq!(etcd.get(0, key.as_bytes()).unwrap(), None, "{key}");
    }
}

/// The ID's key is taken over in etcd (as when the lease expired and another host took
/// the ID): the daemon finds its lease lost at the next mark it writes, claims the next
/// free ID in the background, and stamps the leases with that one.
#[test]
fn a_lost_id_is_claimed_again() {
    let etcd = EtcdCluster::start(1);
    let ep = etcd.endpoints_arg();
    let dir = TempDir::new("fleet-lost");
    let mut args = fleet_args(&ep);
    args[5] = "itlost".into();
    args[7] = "2".into();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut d = Daemon::start(&dir.0, &args, None);
    let c = DaemonClient::new(&d.socket);
    let id = |c: &DaemonClient| c.status().unwrap().fleet.unwrap().id;
    assert_eq!(id(&c), Some(0));
    // Taken as a holder takes it: with a lease (a key without one is refused as not
    // uuidkit's, and would block every claim).
    etcd.put_leased(
        0,
        b"/uuidkit/itlost/machine-id/0",
        b"pid=1 host=elsewhere bits=2 place=service",
        60,
    )
    .unwrap();
    let taken = Instant::now();
    while id(&c) != Some(1) {
        assert!(
            taken.elapsed() < Duration::from_secs(15),
            "no new ID 15 s after the old one was taken: {:?}",
            c.status().unwrap().fleet
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let l = loop {
        match v7_lease(&c) {
            Ok(l) => break l,
            Err(StoreError::Fenced(_)) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("{e}"),
        }
    };
    let m = l.machine_id.unwrap();
    assert_eq!((m.value(), m.bits()), (1, 2));
    let uuids = v7_through(&d.socket, V7Method::Counter, 10_000);
    assert!(uuids.iter().all(|u| u.as_u128() & 3 == 1));
    d.assert_running();
    // SIGTERM: the state is saved and the ID given back at once; its mark stays at or
    // above every lease the daemon granted (the next holder starts above them).
    let last_ms = uuidkit::layout::v7::decode(uuids.last().unwrap())
        .unwrap()
        .unix_ts_ms;
    assert!(d.terminate().success());
    assert_eq!(etcd.get(0, b"/uuidkit/itlost/machine-id/1").unwrap(), None);
    let mark = etcd
        .get(0, b"/uuidkit/itlost/machine-id/1/mark")
        .unwrap()
        .expect("the mark stays");
    let mark: u64 = String::from_utf8(mark).unwrap().parse().unwrap();
    assert!(mark >= last_ms, "mark {mark} below a UUID's time {last_ms}");
}

/// A burst of a small layout (draft-v8-32, 4,096 UUIDs a second) runs ahead of the clock
/// by more than the mark may go (a time-to-live, 2 s here): the daemon answers LATER, as
/// for a lease past its lead, not FENCED, and the client waits for the clock and goes on
/// stamping its ID.
#[test]
fn a_burst_past_the_mark_bound_is_later_not_fenced() {
    let etcd = EtcdCluster::start(1);
    let ep = etcd.endpoints_arg();
    let dir = TempDir::new("fleet-burst");
    let d = start(&dir, &ep);
    let layout = "draft-v8-32".parse().unwrap();
    let mut g = uuidkit::generator::draft::DraftGenerator::new(layout)
        .unwrap()
        .with_store(Arc::new(DaemonClient::new(&d.socket)));
    let mut out = vec![Uuid::NIL; 20_000];
    for chunk in out.chunks_mut(256) {
        g.fill(chunk);
    }
    let w = g.take_store_warnings();
    assert!(w.is_empty(), "{w:?}");
    assert!(out.windows(2).all(|p| p[0] < p[1]));
}

/// SIGTERM while the daemon's claim waits for a free ID (`--claim-wait`): it ends at
/// once, as the signal would, serving nothing and claiming nothing. Before, the signal
/// waited for the claim, and the daemon went on to serve.
#[test]
fn a_signal_while_the_claim_waits_ends_the_daemon_at_once() {
    use std::os::unix::process::ExitStatusExt;
    let etcd = EtcdCluster::start(1);
    let ep = etcd.endpoints_arg();
    let geometry = "bits=1 place=service";
    etcd.put(0, b"/uuidkit/itwait/geometry", geometry.as_bytes())
        .unwrap();
    for n in 0..2 {
        let key = format!("/uuidkit/itwait/machine-id/{n}");
        let value = format!("pid=1 host=elsewhere {geometry}");
        etcd.put_leased(0, key.as_bytes(), value.as_bytes(), 60)
            .unwrap();
    }
    let dir = TempDir::new("fleet-wait");
    let mut args = fleet_args(&ep);
    args[5] = "itwait".into();
    let mut child = std::process::Command::new(crate::common::BIN)
        .arg("--socket")
        .arg(dir.0.join("d.sock"))
        .arg("--state")
        .arg(dir.0.join("state"))
        .args(&args)
        .args(["--claim-wait", "60"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    // SAFETY: a signal to the child this test started and has not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let end = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < end, "still running 10 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status}");
    assert!(!dir.0.join("d.sock").exists(), "it bound its socket");
}
