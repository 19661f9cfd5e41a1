//! After `fork`, parent and child continue with different random bits, and the child's
//! time-based generators take a new clock sequence and node. Its own test binary, with
//! one test, so no other thread of the harness holds a lock across the fork.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

use uuidkit::Uuid;
use uuidkit::generator::unix::{UnixGenerator, V7Method};

fn sample(owned: &mut UnixGenerator) -> [Uuid; 5] {
    [
        uuidkit::v4(),
        uuidkit::v7(),
        uuidkit::v6(),
        uuidkit::v1(),
        owned.next(),
    ]
}

/// The 42-bit counter of a Method 1 v7 UUID.
fn counter(u: &Uuid) -> u64 {
    let f = uuidkit::layout::v7::decode(u).unwrap();
    ((f.rand_a as u64) << 30) | (f.rand_b >> 32)
}

fn random_tail(u: &Uuid) -> u32 {
    u.as_u128() as u32
}

#[test]
fn parent_and_child_diverge_after_fork() {
    // Use every process-wide generator once so their state exists before the fork.
    let mut owned = UnixGenerator::new(V7Method::Counter);
    let before = sample(&mut owned);
    let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();
    // SAFETY: this test binary runs a single test, so the only thread is this one, and
    // the child touches only uuidkit's generators, a socket and `_exit`.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let mut bytes = Vec::new();
        for u in sample(&mut owned) {
            bytes.extend_from_slice(u.as_bytes());
        }
        let ok = child_end.write_all(&bytes).is_ok();
        // SAFETY: `_exit` ends the child without running the parent's test harness
        // atexit handlers or destructors a second time.
        #[allow(unsafe_code)]
        unsafe {
            libc::_exit(if ok { 0 } else { 1 })
        };
    }
    drop(child_end);
    let parent = sample(&mut owned);
    let mut buf = Vec::new();
    parent_end.read_to_end(&mut buf).unwrap();
    let mut status = 0;
    // SAFETY: waits for the child this test forked; `status` outlives the call.
    #[allow(unsafe_code)]
    unsafe {
        libc::waitpid(pid, &mut status, 0)
    };
    assert_eq!(status, 0, "child failed");
    assert_eq!(buf.len(), 80);
    let child: Vec<Uuid> = buf
        .chunks(16)
        .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
        .collect();

    assert_ne!(parent[0], child[0], "v4 streams differ");
    assert_ne!(
        random_tail(&parent[1]),
        random_tail(&child[1]),
        "v7 random bits differ"
    );
    for i in 0..5 {
        assert_ne!(parent[i], child[i]);
        assert_ne!(before[i], child[i]);
    }
    // An owned v7 generator: the child seeded a new counter instead of counting on.
    assert_ne!(counter(&parent[4]), counter(&child[4]));
    // v6/v1: the child took a new clock sequence and (static strategy) a new node.
    for i in [2, 3] {
        assert_ne!(
            (parent[i].clock_seq(), parent[i].node()),
            (child[i].clock_seq(), child[i].node()),
            "v{} child shares clock sequence and node",
            parent[i].version().number()
        );
    }
}
