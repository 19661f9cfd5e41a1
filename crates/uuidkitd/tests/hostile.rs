//! Clients that send garbage, stop halfway, ask too much, speak another version, say
//! nothing, or come by the hundred, while a well-behaved client keeps being served:
//! the daemon never panics or exits, and the good client's UUIDs stay unique and ordered.

use crate::common;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Daemon, TempDir};
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::service::client::DaemonClient;
use uuidkit::service::protocol::{Header, Request, op, status};
use uuidkit::store::{GeneratorKind, LeaseRequest};

/// Sends `bytes` and returns the reply's status code, or `None` if the daemon closed the
/// connection without one. Checks that the connection is closed after a refusal.
fn refused_with(path: &Path, bytes: &[u8]) -> Option<u8> {
    let mut s = UnixStream::connect(path).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = s.write_all(bytes);
    // The client is done: a request cut short is seen as such at once.
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut h = [0u8; 12];
    s.read_exact(&mut h).ok()?;
    let header = Header::decode(&h).expect("a well-formed reply header");
    let mut body = vec![0u8; header.len as usize];
    s.read_exact(&mut body).expect("the reply's body");
    // Then the end of the connection: a reset when the daemon left bytes unread.
    let mut rest = Vec::new();
    match s.read_to_end(&mut rest) {
        Ok(_) => assert!(rest.is_empty(), "bytes after a refusal"),
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset),
    }
    Some(header.code)
}

fn header(version: u8, code: u8, len: u32) -> Vec<u8> {
    let mut h = Header { code, len }.encode().to_vec();
    h[4] = version;
    h
}

fn lease(kind: GeneratorKind, from: u128, len: u128) -> Vec<u8> {
    Request::Lease(LeaseRequest::new(kind, from, from, len)).encode()
}

fn now_v7() -> u128 {
    (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis())
        << 42
}

/// The well-behaved client: v7 from daemon leases and v4 batches, as fast as it can,
/// until told to stop. Returns its UUIDs and the longest a request took.
fn good_client(path: PathBuf, stop: Arc<AtomicBool>) -> (Vec<uuidkit::Uuid>, Duration) {
    let daemon = Arc::new(DaemonClient::connect(&path).expect("connect"));
    let mut g = V7Generator::new(V7Method::Counter).with_store(daemon.clone());
    let mut out = Vec::new();
    let mut worst = Duration::ZERO;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..1000 {
            out.push(g.next());
        }
        let t = Instant::now();
        let batch = daemon.random(64).expect("v4 batch");
        worst = worst.max(t.elapsed());
        assert_eq!(batch.len(), 64);
        assert_eq!(
            g.take_store_warnings(),
            vec![],
            "the good client fell back to memory"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    (out, worst)
}

#[test]
fn hostile_clients_do_not_stop_the_good_one() {
    let dir = TempDir::new("hostile");
    let uuidd = dir.join("uuidd.sock");
    let mut d = Daemon::start(
        &dir.0,
        &[
            "--uuidd-socket",
            uuidd.to_str().unwrap(),
            "--idle-timeout",
            "1",
            "--request-timeout",
            "0.5",
        ],
        Some(&uuidd),
    );
    let path = d.socket.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let good = {
        let (p, s) = (path.clone(), stop.clone());
        std::thread::spawn(move || good_client(p, s))
    };

    // Random bytes, on both sockets.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..100 {
        let bytes: Vec<u8> = (0..(i % 70 + 1))
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        if bytes.len() >= 4 && bytes[..4] != *b"uukd" && bytes.len() >= 12 {
            assert_eq!(refused_with(&path, &bytes), Some(status::MALFORMED));
        } else {
            let _ = refused_with(&path, &bytes);
        }
        let mut s = UnixStream::connect(&uuidd).unwrap();
        let _ = s.write_all(&bytes);
    }
    // Truncated: half a header, a header without all its body; the daemon closes them
    // (the first when the client does, the second at the request timeout).
    assert_eq!(
        refused_with(&path, &lease(GeneratorKind::V7, 0, 1)[..6]),
        None
    );
    let cut = lease(GeneratorKind::V7, now_v7(), 1);
    assert_eq!(refused_with(&path, &cut[..40]), None);
    // Too large: a count, a body length, a lease length, a start far ahead of the clock.
    assert_eq!(
        refused_with(
            &path,
            &[&header(1, op::RANDOM, 4)[..], &5000u32.to_be_bytes()].concat()
        ),
        Some(status::TOO_LARGE)
    );
    assert_eq!(
        refused_with(&path, &header(1, op::LEASE, 1 << 30)),
        Some(status::TOO_LARGE)
    );
    assert_eq!(
        refused_with(&path, &lease(GeneratorKind::V7, now_v7(), 1 << 60)),
        Some(status::TOO_LARGE)
    );
    assert_eq!(
        refused_with(&path, &lease(GeneratorKind::V7, (1 << 90) - 1, 1)),
        Some(status::TOO_LARGE)
    );
    assert_eq!(
        refused_with(
            &path,
            &lease(GeneratorKind::V7, now_v7() + (3_600_000 << 42), 1)
        ),
        Some(status::TOO_LARGE)
    );
    // Unknown protocol version, operation, generator kind.
    assert_eq!(
        refused_with(&path, &header(2, op::STATUS, 0)),
        Some(status::UNSUPPORTED_VERSION)
    );
    assert_eq!(
        refused_with(&path, &header(1, 77, 0)),
        Some(status::UNKNOWN_OP)
    );
    let mut unknown_kind = lease(GeneratorKind::V7, now_v7(), 1);
    unknown_kind[12] = 5;
    assert_eq!(
        refused_with(&path, &unknown_kind),
        Some(status::UNKNOWN_KIND)
    );
    // uuidd: unknown op, a bulk time count it will not grant.
    for bytes in [&[9u8][..], &[4, 0xff, 0xff, 0xff, 0x7f]] {
        let mut s = UnixStream::connect(&uuidd).unwrap();
        s.write_all(bytes).unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).unwrap();
        assert!(buf.is_empty());
    }
    // A reader that never reads: replies pile up until the write deadline closes it.
    {
        let mut s = UnixStream::connect(&path).unwrap();
        let req = Request::Random { count: 4096 }.encode();
        s.set_write_timeout(Some(Duration::from_secs(3))).unwrap();
        for _ in 0..200 {
            if s.write_all(&req).is_err() {
                break;
            }
        }
    }
    // Hundreds at once, and connections that say nothing: held open together; each
    // silent one is closed by the daemon after the idle timeout.
    let mut silent: Vec<UnixStream> = (0..300)
        .map(|_| UnixStream::connect(&path).unwrap())
        .collect();
    // And some that stop halfway and hold the connection: closed at the request timeout.
    for n in [6, 12 + 40] {
        let mut s = UnixStream::connect(&path).unwrap();
        s.write_all(&cut[..n]).unwrap();
        silent.push(s);
    }
    let silent_uuidd: Vec<UnixStream> = (0..100)
        .map(|_| UnixStream::connect(&uuidd).unwrap())
        .collect();
    let burst: Vec<_> = (0..300)
        .map(|_| {
            let p = path.clone();
            std::thread::spawn(move || DaemonClient::connect(&p).and_then(|c| c.status()))
        })
        .collect();
    for b in burst {
        let s = b.join().unwrap().expect("status during the burst");
        assert!(s.clients >= 300, "{s:?}");
    }
    for mut s in silent.into_iter().chain(silent_uuidd) {
        // The limit only keeps a daemon that never closes from hanging the test.
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut buf = [0u8; 1];
        assert_eq!(s.read(&mut buf).unwrap(), 0, "an idle connection is closed");
    }

    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::Relaxed);
    // Served all along: UUIDs, unique and ordered (no timing is asserted; the slowest
    // request is printed for whoever looks).
    let (uuids, worst) = good.join().expect("the good client");
    eprintln!("the good client's slowest request took {worst:?}");
    assert!(!uuids.is_empty(), "the good client got no UUID");
    for w in uuids.windows(2) {
        assert!(w[0] < w[1], "{} then {}", w[0], w[1]);
    }
    d.assert_running();
    let s = DaemonClient::new(&path).status().unwrap();
    assert!(s.clients <= 3, "connections left open: {s:?}");
    assert!(d.terminate().success());
}

#[test]
fn connections_over_the_bound_are_told_busy() {
    let dir = TempDir::new("busy");
    let d = Daemon::start(&dir.0, &["--max-connections", "3"], None);
    // The start-up probe's connection may still count for a moment.
    std::thread::sleep(Duration::from_millis(100));
    let held: Vec<UnixStream> = (0..3)
        .map(|_| UnixStream::connect(&d.socket).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let e = DaemonClient::new(&d.socket).status().unwrap_err();
    // The daemon answers BUSY at once and closes: a client still sending its request
    // may see the closed connection instead of the answer.
    let closed = matches!(e, uuidkit::service::client::ClientError::Io { .. })
        && (e.to_string().contains("Broken pipe") || e.to_string().contains("reset"));
    assert!(
        closed
            || matches!(e, uuidkit::service::client::ClientError::Refused { status, .. } if status == status::BUSY),
        "{e}"
    );
    drop(held);
    std::thread::sleep(Duration::from_millis(100));
    assert!(DaemonClient::new(&d.socket).status().is_ok());
}
