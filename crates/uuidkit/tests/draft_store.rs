//! The draft layouts in a state file: their entries are written, read back after a
//! restart (the format's round trip), shown by kind, and keep generators of other
//! processes (here: other store handles on the same file) apart.

use std::sync::Arc;

use uuidkit::generator::draft::DraftGenerator;
use uuidkit::layout::{Layout, decode_as};
use uuidkit::store::{GeneratorKind, StateStore};

fn state_path(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("uuidkit-draft-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("state")
}

#[test]
fn every_draft_layout_has_an_entry_that_survives_a_restart() {
    let path = state_path("restart");
    let layouts: Vec<Layout> = Layout::ALL
        .into_iter()
        .filter(|l| !matches!(l, Layout::B1 | Layout::B2))
        .collect();
    let mut last = Vec::new();
    for &l in &layouts {
        let mut g = DraftGenerator::new(l)
            .unwrap()
            .with_store(Arc::new(StateStore::open(&path)));
        let mut u = g.next();
        for _ in 0..999 {
            u = g.next();
        }
        assert!(g.take_store_warnings().is_empty(), "{l}");
        last.push(u);
    }
    let snap = StateStore::open(&path).snapshot().unwrap();
    assert!(snap.damage.is_none(), "{:?}", snap.damage);
    for &l in &layouts {
        let e = snap
            .entries
            .iter()
            .find(|e| e.kind == GeneratorKind::Draft(l))
            .unwrap_or_else(|| panic!("no entry for {l}"));
        assert!(e.durable >= e.high);
        assert_eq!(GeneratorKind::Draft(l).to_string(), l.name());
    }
    // A new process (a new handle on the file) goes on above the last UUIDs.
    for (&l, before) in layouts.iter().zip(&last) {
        let mut g = DraftGenerator::new(l)
            .unwrap()
            .with_store(Arc::new(StateStore::open(&path)));
        let u = g.next();
        let key = |u: &uuidkit::Uuid| {
            let d = decode_as(u, l).unwrap();
            (d.timestamp.unwrap(), d.sequence.unwrap())
        };
        assert!(key(&u) > key(before), "{l}: {u} not above {before}");
        assert!(g.take_store_warnings().is_empty(), "{l}");
    }
}

#[test]
fn two_handles_on_one_file_never_share_a_position() {
    let path = state_path("share");
    let l: Layout = "draft-v8-32".parse().unwrap();
    let mut a = DraftGenerator::new(l)
        .unwrap()
        .with_store(Arc::new(StateStore::open(&path)));
    let mut b = DraftGenerator::new(l)
        .unwrap()
        .with_store(Arc::new(StateStore::open(&path)));
    let mut seen = std::collections::HashSet::new();
    for _ in 0..5000 {
        for u in [a.next(), b.next()] {
            let d = decode_as(&u, l).unwrap();
            assert!(seen.insert((d.timestamp, d.sequence)), "{u}");
        }
    }
}

/// After `fork`, parent and child with one draft generator on a state file never share a
/// (timestamp, sequence): the child leases a block of its own. Without a store they go
/// on from the same sequence and differ in their random bits.
#[test]
fn parent_and_child_never_share_a_position_with_a_store() {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    let path = state_path("fork");
    let l: Layout = "draft-v8-48".parse().unwrap();
    let mut stored = DraftGenerator::new(l)
        .unwrap()
        .with_store(Arc::new(StateStore::open(&path)));
    let mut memory = DraftGenerator::new(l).unwrap();
    stored.next();
    memory.next();
    let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();
    // SAFETY: the child touches only uuidkit's generators, a socket and `_exit`.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let mut bytes = Vec::new();
        for _ in 0..200 {
            bytes.extend_from_slice(stored.next().as_bytes());
        }
        bytes.extend_from_slice(memory.next().as_bytes());
        let ok = child_end.write_all(&bytes).is_ok();
        // SAFETY: ends the child without running the test harness's handlers again.
        #[allow(unsafe_code)]
        unsafe {
            libc::_exit(if ok { 0 } else { 1 })
        };
    }
    drop(child_end);
    let parent: Vec<uuidkit::Uuid> = (0..200).map(|_| stored.next()).collect();
    let parent_memory = memory.next();
    let mut buf = Vec::new();
    parent_end.read_to_end(&mut buf).unwrap();
    let mut status = 0;
    // SAFETY: waits for the child this test forked; `status` outlives the call.
    #[allow(unsafe_code)]
    unsafe {
        libc::waitpid(pid, &mut status, 0)
    };
    assert_eq!(status, 0, "child failed");
    let child: Vec<uuidkit::Uuid> = buf
        .chunks(16)
        .map(|c| uuidkit::Uuid::from_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(child.len(), 201);
    let key = |u: &uuidkit::Uuid| {
        let d = decode_as(u, l).unwrap();
        (d.timestamp, d.sequence)
    };
    let parent_keys: std::collections::HashSet<_> = parent.iter().map(key).collect();
    for u in &child[..200] {
        assert!(
            !parent_keys.contains(&key(u)),
            "{u} shares a position with the parent"
        );
    }
    let child_memory = child[200];
    assert_ne!(
        decode_as(&child_memory, l).unwrap().random,
        decode_as(&parent_memory, l).unwrap().random,
        "the child's random bits differ"
    );
}
