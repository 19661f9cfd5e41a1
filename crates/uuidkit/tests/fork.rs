//! After `fork`, parent and child continue with different random bits, and the child's
//! time-based generators take a new clock sequence (and, with the default `static` node
//! strategy, as with `random`, a new node; `mac`, `hash` and a fixed node stay, since
//! they name the host, and the new clock sequence alone keeps the two apart); a child can always
//! generate, even when another thread of its parent was inside a generator at the fork,
//! and siblings differ from each other as from their parent.
//!
//! The tests of this binary run in parallel threads: a fork in one test happens while
//! other tests' threads may be inside uuidkit's generators, which is one of the cases
//! these tests are about. Children touch only uuidkit, a socket and `_exit`.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use uuidkit::Uuid;
use uuidkit::generator::v7::{V7Generator, V7Method};

fn sample(owned: &mut V7Generator) -> [Uuid; 5] {
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
    let mut owned = V7Generator::new(V7Method::Counter);
    let before = sample(&mut owned);
    let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();
    // SAFETY: the child touches only uuidkit's generators, a socket and `_exit`; uuidkit
    // keeps its locks consistent across `fork` (which is under test here).
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
    // v6/v1: the child took a new clock sequence and (static strategy, the process-wide
    // default) a new node: each is checked by itself, so neither can hide the other.
    for i in [2, 3] {
        assert_ne!(
            parent[i].clock_seq(),
            child[i].clock_seq(),
            "v{} child shares the clock sequence",
            parent[i].version().number()
        );
        assert_ne!(
            parent[i].node(),
            child[i].node(),
            "v{} child shares the static node",
            parent[i].version().number()
        );
    }
}

/// Forks a child that runs `child` and writes its bytes back; the parent returns them,
/// or fails if the child does not finish within `limit` (a child that hangs is killed).
fn in_child(limit: Duration, child: impl FnOnce() -> Vec<u8>) -> Result<Vec<u8>, String> {
    let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();
    // SAFETY: the child touches only uuidkit's generators, a socket and `_exit`.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let ok = child_end.write_all(&child()).is_ok();
        // SAFETY: ends the child without running the parent's atexit handlers again.
        #[allow(unsafe_code)]
        unsafe {
            libc::_exit(if ok { 0 } else { 1 })
        };
    }
    drop(child_end);
    let start = Instant::now();
    let mut status = 0;
    loop {
        // SAFETY: polls the child this function forked; `status` outlives the call.
        #[allow(unsafe_code)]
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if done == pid {
            break;
        }
        if start.elapsed() > limit {
            // SAFETY: kills and reaps the child this function forked.
            #[allow(unsafe_code)]
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Err(format!(
                "child {pid} still running after {limit:?}: it hangs"
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if status != 0 {
        return Err(format!("child exited with status {status}"));
    }
    let mut buf = Vec::new();
    parent_end.read_to_end(&mut buf).unwrap();
    Ok(buf)
}

fn every_process_wide() -> Vec<u8> {
    let mut bytes = Vec::new();
    for u in [
        uuidkit::v1(),
        uuidkit::v4(),
        uuidkit::v6(),
        uuidkit::v7(),
        uuidkit::v8(),
        uuidkit::generator::v7_of(V7Method::Random),
        uuidkit::generator::v7_of(V7Method::Precision),
        draft_v7_us(),
    ] {
        bytes.extend_from_slice(u.as_bytes());
    }
    bytes
}

fn draft_v7_us() -> Uuid {
    uuidkit::generator::draft("draft-v7-us".parse().unwrap()).unwrap()
}

fn v7_random() -> Uuid {
    uuidkit::generator::v7_of(V7Method::Random)
}

fn v7_precision() -> Uuid {
    uuidkit::generator::v7_of(V7Method::Precision)
}

/// A thread inside a process-wide generator behind a lock (`v1()`, `v6()`, `v8()`, v7's
/// other methods, a draft layout) at the moment another thread forks: the child still
/// generates every version.
#[test]
fn child_generates_while_a_parent_thread_was_inside_a_generator() {
    type Gen = fn() -> Uuid;
    let busy: [(&str, Gen); 6] = [
        ("v6", uuidkit::v6),
        ("v1", uuidkit::v1),
        ("v8", uuidkit::v8),
        ("v7 random", v7_random),
        ("v7 precision", v7_precision),
        ("draft-v7-us", draft_v7_us),
    ];
    for (label, make) in busy {
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        make();
                    }
                })
            })
            .collect();
        // Fork from a second thread too, not only from the main one.
        let forker = std::thread::spawn(move || {
            (0..20)
                .map(|_| in_child(Duration::from_secs(20), every_process_wide))
                .collect::<Vec<_>>()
        });
        let results = forker.join().unwrap();
        stop.store(true, Ordering::Relaxed);
        for w in workers {
            w.join().unwrap();
        }
        for (i, r) in results.into_iter().enumerate() {
            let bytes = r.unwrap_or_else(|e| panic!("{label} busy, child {i}: {e}"));
            assert_eq!(bytes.len(), 128, "{label} busy, child {i}");
        }
    }
}

/// Two children of one parent differ from each other as they differ from the parent:
/// random bits, clock sequence and node.
#[test]
fn siblings_diverge_from_each_other() {
    let parent = every_process_wide();
    let a = in_child(Duration::from_secs(20), every_process_wide).unwrap();
    let b = in_child(Duration::from_secs(20), every_process_wide).unwrap();
    let uuids = |bytes: &[u8]| -> Vec<Uuid> {
        bytes
            .chunks(16)
            .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (p, a, b) = (uuids(&parent), uuids(&a), uuids(&b));
    for i in 0..8 {
        assert_ne!(a[i], b[i]);
        assert_ne!(a[i], p[i]);
        assert_ne!(random_tail(&a[i]), random_tail(&b[i]), "UUID {i}");
    }
    // v1 and v6: each child its own clock sequence and node (static strategy).
    for i in [0, 2] {
        assert_ne!(
            (a[i].clock_seq(), a[i].node()),
            (b[i].clock_seq(), b[i].node())
        );
    }
}

/// The batch APIs after fork: the child's v7 batch is above everything the process made
/// before the fork, in a later millisecond, and shares no counter with the parent's
/// batch; its v4 batch shares nothing with the parent's.
#[test]
fn batches_after_fork_are_the_childs_own() {
    let mut before = [Uuid::NIL; 64];
    uuidkit::v7_fill(&mut before);
    let batches = || {
        let mut v7s = [Uuid::NIL; 64];
        let mut v4s = [Uuid::NIL; 64];
        uuidkit::v7_fill(&mut v7s);
        uuidkit::v4_fill(&mut v4s);
        [v7s, v4s]
    };
    let child = in_child(Duration::from_secs(20), || {
        batches()
            .iter()
            .flatten()
            .flat_map(|u| *u.as_bytes())
            .collect()
    })
    .unwrap();
    let parent = batches();
    let child: Vec<Uuid> = child
        .chunks(16)
        .map(|c| Uuid::from_bytes(c.try_into().unwrap()))
        .collect();
    let (child_v7, child_v4) = child.split_at(64);
    assert!(child_v7.windows(2).all(|w| w[0] < w[1]));
    assert!(
        child_v7[0] > before[63],
        "the child continues above the parent's past"
    );
    let ms = |u: &Uuid| uuidkit::layout::v7::decode(u).unwrap().unix_ts_ms;
    assert!(ms(&child_v7[0]) > ms(&before[63]), "a millisecond on");
    let parent_counters: std::collections::HashSet<u64> = parent[0].iter().map(counter).collect();
    assert!(
        child_v7
            .iter()
            .all(|u| !parent_counters.contains(&counter(u)))
    );
    for u in child_v4 {
        assert!(!parent[1].contains(u));
    }
}

const FIRST_USE_CHILD: &str = "UUIDKIT_TEST_FORK_FIRST_USE";

/// Runs only as a child process (see below): one thread makes the process's first call
/// to `v6()` while another forks; the grandchild must still generate. Exits 0 or fails.
#[test]
fn first_use_races_fork_in_a_fresh_process() {
    if std::env::var_os(FIRST_USE_CHILD).is_none() {
        return;
    }
    let go = Arc::new(std::sync::Barrier::new(2));
    let first = {
        let go = go.clone();
        std::thread::spawn(move || {
            go.wait();
            uuidkit::v6()
        })
    };
    go.wait();
    let r = in_child(Duration::from_secs(10), every_process_wide);
    first.join().unwrap();
    r.unwrap();
}

/// The race above, in 300 fresh processes: the first use of the process-wide lock and a
/// `fork` from another thread at the same moment never leave the child waiting.
#[test]
fn first_use_and_fork_at_once_never_hang_a_child() {
    if std::env::var_os(FIRST_USE_CHILD).is_some() {
        return;
    }
    let test = crate::support::test_name(module_path!(), "first_use_races_fork_in_a_fresh_process");
    for i in 0..300 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([&*test, "--exact"])
            .env(FIRST_USE_CHILD, "1")
            .output()
            .unwrap();
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "run {i}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
