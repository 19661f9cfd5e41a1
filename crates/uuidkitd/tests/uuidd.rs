//! util-linux uuidd compatibility: the protocol byte by byte on a socket of our own, and
//! the real libuuid client (`uuidgen -t`, `uuid_generate_time_safe` through Python's
//! ctypes) against the path libuuid is built with, `/run/uuidd/request`.

use crate::common;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command;

use common::{Daemon, TempDir, gregorian_ticks};
use uuidkit::{NodeId, Uuid, Version};

fn node() -> NodeId {
    "02:00:5e:10:00:01".parse().unwrap()
}

/// Sends `req` and reads a uuidd reply: `None` when the daemon closed without one.
fn ask(path: &Path, req: &[u8]) -> Option<Vec<u8>> {
    let mut s = UnixStream::connect(path).unwrap();
    s.write_all(req).unwrap();
    let mut len = [0u8; 4];
    if s.read_exact(&mut len).is_err() {
        return None;
    }
    let mut body = vec![0u8; i32::from_ne_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    Some(body)
}

fn bulk(op: u8, n: i32) -> Vec<u8> {
    let mut v = vec![op];
    v.extend_from_slice(&n.to_ne_bytes());
    v
}

fn uuid_at(b: &[u8]) -> Uuid {
    Uuid::from_bytes(b[..16].try_into().unwrap())
}

#[test]
fn uuidd_protocol_ops() {
    let dir = TempDir::new("uuidd-ops");
    let sock = dir.join("request");
    let s = sock.to_str().unwrap();
    let mut d = Daemon::start(
        &dir.0,
        &["--uuidd-socket", s, "--node", "02:00:5e:10:00:01"],
        Some(&sock),
    );
    // 0: the PID as a C string.
    let pid = ask(&sock, &[0]).unwrap();
    assert_eq!(pid, format!("{}\0", d.child.id()).into_bytes());
    // 1: UUIDD_MAX_OP.
    assert_eq!(ask(&sock, &[1]).unwrap(), b"5\0");
    // 2: one v1 UUID of the daemon's node.
    let a = uuid_at(&ask(&sock, &[2]).unwrap());
    assert_eq!((a.version(), a.node()), (Version::V1, Some(node())));
    // 3: one v4 UUID.
    assert_eq!(uuid_at(&ask(&sock, &[3]).unwrap()).version(), Version::V4);
    // 4: a UUID and the count; the next request starts after the whole block.
    let r = ask(&sock, &bulk(4, 1000)).unwrap();
    assert_eq!(r.len(), 20);
    assert_eq!(i32::from_ne_bytes(r[16..20].try_into().unwrap()), 1000);
    let b = uuid_at(&r);
    assert_eq!(b.node(), Some(node()));
    assert!(gregorian_ticks(&b) > gregorian_ticks(&a));
    let c = uuid_at(&ask(&sock, &[2]).unwrap());
    assert!(gregorian_ticks(&c) >= gregorian_ticks(&b) + 1000);
    // A count of 0 or less is one, as uuidd has it.
    let r = ask(&sock, &bulk(4, -5)).unwrap();
    assert_eq!(i32::from_ne_bytes(r[16..20].try_into().unwrap()), 1);
    // 5: at most 63 random UUIDs, a negative count as one.
    let r = ask(&sock, &bulk(5, 1000)).unwrap();
    assert_eq!(i32::from_ne_bytes(r[..4].try_into().unwrap()), 63);
    assert_eq!(r.len(), 4 + 63 * 16);
    let set: HashSet<_> = r[4..].chunks(16).map(uuid_at).collect();
    assert_eq!(set.len(), 63);
    let r = ask(&sock, &bulk(5, -1)).unwrap();
    assert_eq!(r.len(), 4 + 16);
    // Refused by closing: unknown op, a bulk count it will not grant in full, a count cut short.
    assert_eq!(ask(&sock, &[6]), None);
    assert_eq!(ask(&sock, &[255]), None);
    assert_eq!(ask(&sock, &bulk(4, i32::MAX)), None);
    {
        let mut s = UnixStream::connect(&sock).unwrap();
        s.write_all(&[4, 1]).unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).unwrap();
        assert!(buf.is_empty());
    }
    d.assert_running();
    assert!(d.terminate().success());
    assert!(!sock.exists() && !d.socket.exists());
}

/// `/run/uuidd`, created for the test and removed after if it was not there.
struct RunDir {
    created: bool,
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_file("/run/uuidd/request");
        if self.created {
            let _ = std::fs::remove_dir("/run/uuidd");
        }
    }
}

const CTYPES_CLIENT: &str = r#"
import ctypes, sys, threading
lib = ctypes.CDLL("libuuid.so.1")
n, threads = int(sys.argv[1]), int(sys.argv[2])
out, rcs = [], []
def work():
    buf = ctypes.create_string_buffer(16)
    mine, bad = [], []
    for _ in range(n):
        rc = lib.uuid_generate_time_safe(buf)
        if rc != 0:
            bad.append(rc)
        mine.append(buf.raw.hex())
    out.append(mine)
    rcs.extend(bad)
ts = [threading.Thread(target=work) for _ in range(threads)]
for t in ts: t.start()
for t in ts: t.join()
if rcs:
    print("uuid_generate_time_safe returned", sorted(set(rcs)), file=sys.stderr)
    sys.exit(3)
sys.stdout.write("\n".join(u for mine in out for u in mine) + "\n")
"#;

#[test]
fn libuuid_clients_get_the_daemons_v1_uuids() {
    let missing =
        "is missing: .ci/run installs Debian's uuid-runtime (uuidgen, libuuid1) and python3";
    assert!(
        Command::new("uuidgen").arg("--version").output().is_ok(),
        "uuidgen {missing}"
    );
    let py = Command::new("python3")
        .args(["-c", "import ctypes; ctypes.CDLL('libuuid.so.1')"])
        .status();
    assert!(
        matches!(py, Ok(s) if s.success()),
        "libuuid.so.1 or python3 {missing}"
    );
    assert!(
        std::fs::metadata("/proc/self")
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .ok()
            == Some(0),
        "this test serves /run/uuidd/request, the path libuuid is built with: run it as root (CI does)"
    );
    let sock = Path::new("/run/uuidd/request");
    assert!(
        UnixStream::connect(sock).is_err(),
        "a uuidd already serves /run/uuidd/request: stop it to run this test"
    );
    let _run = RunDir {
        created: !Path::new("/run/uuidd").exists(),
    };
    std::fs::create_dir_all("/run/uuidd").unwrap();
    let dir = TempDir::new("libuuid");
    let mut d = Daemon::start(
        &dir.0,
        &[
            "--uuidd-socket",
            "/run/uuidd/request",
            "--node",
            "02:00:5e:10:00:01",
        ],
        Some(sock),
    );

    let mut all: HashSet<Uuid> = HashSet::new();
    let mut check = |text: &str, from: &str| {
        let u: Uuid = text
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{from}: {text:?}: {e}"));
        assert_eq!(u.version(), Version::V1, "{from}: {u}");
        assert_eq!(u.node(), Some(node()), "{from}: {u} is not the daemon's");
        assert!(all.insert(u), "{from}: {u} repeats");
    };
    // One uuidgen process per UUID: a bulk request each, mostly unused.
    for _ in 0..150 {
        let out = Command::new("uuidgen").arg("-t").output().unwrap();
        assert!(out.status.success());
        check(&String::from_utf8_lossy(&out.stdout), "uuidgen -t");
    }
    // Long-running clients: libuuid's per-thread cache grows (10, 100, 1000 … per
    // request), and expands each bulk reply by counting up the timestamp.
    let procs: Vec<_> = (0..4)
        .map(|_| {
            Command::new("python3")
                .args(["-c", CTYPES_CLIENT, "20000", "4"])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for p in procs {
        let out = p.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "uuid_generate_time_safe did not return 0"
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 80_000);
        for l in lines {
            check(l, "uuid_generate_time_safe");
        }
    }
    assert_eq!(all.len(), 150 + 320_000);
    let status = uuidkit::service::client::DaemonClient::new(&d.socket)
        .status()
        .unwrap();
    assert!(status.uuidd_requests >= 150, "{status:?}");
    d.assert_running();
    assert!(d.terminate().success());
}
