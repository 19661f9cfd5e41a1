//! The etcd test harness (`etcd_cluster`) itself: that the clusters it starts are real
//! ones, which replicate, lose their quorum with a majority of members stopped or paused,
//! and get it back. The fleet tests rely on all of this.

use std::time::{Duration, Instant};

use crate::etcd_cluster::{EtcdCluster, REQUEST_TIMEOUT, base64_decode, base64_encode};

#[test]
fn base64_round_trips() {
    for (bytes, text) in [
        (&b""[..], ""),
        (b"f", "Zg=="),
        (b"fo", "Zm8="),
        (b"foo", "Zm9v"),
        (b"foob", "Zm9vYg=="),
        (b"\xff\x00\xfe", "/wD+"),
    ] {
        assert_eq!(base64_encode(bytes), text);
        assert_eq!(base64_decode(text).as_deref(), Some(bytes));
    }
    assert_eq!(base64_decode("Zm9v!"), None);
}

#[test]
fn one_member_cluster_puts_and_gets() {
    let c = EtcdCluster::start(1);
    assert_eq!(c.len(), 1);
    assert_eq!(c.endpoints_arg(), c.endpoint(0));
    assert_eq!(c.get(0, b"harness/none"), Ok(None));
    c.put(0, b"harness/empty", b"").unwrap();
    assert_eq!(c.get(0, b"harness/empty"), Ok(Some(Vec::new())));
    c.put(0, b"harness/k", b"v\x00\xff").unwrap();
    assert_eq!(c.get(0, b"harness/k"), Ok(Some(b"v\x00\xff".to_vec())));
}

/// A write while a majority is stopped fails, within `REQUEST_TIMEOUT` and a little.
fn assert_put_fails(c: &EtcdCluster, i: usize, key: &[u8]) {
    let t = Instant::now();
    let r = c.put(i, key, b"no quorum");
    let took = t.elapsed();
    eprintln!("put without a quorum, after {took:?}: {r:?}");
    assert!(r.is_err(), "put without a quorum succeeded ({took:?})");
    assert!(
        took < REQUEST_TIMEOUT + Duration::from_secs(3),
        "put without a quorum took {took:?}: {r:?}"
    );
}

#[test]
fn three_members_replicate_lose_quorum_and_recover() {
    let t = Instant::now();
    let mut c = EtcdCluster::start(3);
    eprintln!("3-member etcd cluster healthy after {:?}", t.elapsed());
    let endpoints = c.endpoints();
    assert_eq!(endpoints.len(), 3);
    assert_eq!(c.endpoints_arg(), endpoints.join(","));
    for e in &endpoints {
        assert!(e.starts_with("http://127.0.0.1:"), "{e}");
        assert!(!e.ends_with(":2379") && !e.ends_with(":2380"), "{e}");
    }

    // Written through one member, read through another.
    c.put(0, b"harness/a", b"one").unwrap();
    assert_eq!(c.get(2, b"harness/a"), Ok(Some(b"one".to_vec())));

    // Two of three stopped: no quorum, writes fail (bounded), and /health says so.
    c.stop_member(1);
    c.stop_member(2);
    assert_put_fails(&c, 0, b"harness/b");
    assert!(!c.member_is_healthy(0), "member 0 healthy without a quorum");

    // Back on their data: writes work again, and the old ones are there.
    let t = Instant::now();
    c.start_member(1);
    c.start_member(2);
    eprintln!(
        "2 members restarted, cluster healthy after {:?}",
        t.elapsed()
    );
    put_retrying(&c, 2, b"harness/c", b"three");
    assert_eq!(c.get(1, b"harness/c"), Ok(Some(b"three".to_vec())));
    assert_eq!(c.get(0, b"harness/a"), Ok(Some(b"one".to_vec())));
}

/// A put through member `i` that may meet an election under way: tried again (each try
/// bounded by `REQUEST_TIMEOUT`) for up to 30 s.
fn put_retrying(c: &EtcdCluster, i: usize, key: &[u8], value: &[u8]) {
    let t = Instant::now();
    loop {
        match c.put(i, key, value) {
            Ok(()) => return,
            Err(e) if t.elapsed() > Duration::from_secs(30) => panic!("{e}"),
            Err(e) => eprintln!("put through member {i}, again: {e}"),
        }
    }
}

#[test]
fn three_members_with_paused_members() {
    let mut c = EtcdCluster::start(3);
    c.put(0, b"harness/a", b"one").unwrap();

    // One paused: the other two are a quorum (once they have a leader between them, if
    // the paused one led).
    c.pause_member(2);
    c.wait_healthy();
    put_retrying(&c, 0, b"harness/b", b"two");
    assert_eq!(c.get(1, b"harness/b"), Ok(Some(b"two".to_vec())));

    // Two paused: no quorum.
    c.pause_member(1);
    assert_put_fails(&c, 0, b"harness/c");

    c.resume_member(1);
    c.resume_member(2);
    c.wait_healthy();
    put_retrying(&c, 1, b"harness/d", b"four");
    assert_eq!(c.get(2, b"harness/d"), Ok(Some(b"four".to_vec())));
    assert_eq!(c.get(2, b"harness/b"), Ok(Some(b"two".to_vec())));
}
