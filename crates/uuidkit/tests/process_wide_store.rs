//! `UUIDKIT_STATE` gives the process-wide generators a state store: processes that name
//! the same file, with one node, never make the same UUID. The processes are this test
//! binary run again with the variable set (no process-wide setting is changed here).

use std::collections::HashSet;
use std::process::{Command, Stdio};

use uuidkit::Uuid;

const CHILD: &str = "UUIDKIT_TEST_PROCESS_WIDE_CHILD";
const PER_VERSION: usize = 20_000;

/// Runs only as a child: writes PER_VERSION UUIDs of v1, v6, v7 and v8, one a line.
#[test]
fn child_writes_process_wide_uuids() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for make in [uuidkit::v1, uuidkit::v6, uuidkit::v7, uuidkit::v8] {
        for _ in 0..PER_VERSION {
            writeln!(out, "{}", make()).unwrap();
        }
    }
    out.flush().unwrap();
    assert!(uuidkit::generator::take_store_warnings().is_empty());
}

#[test]
fn processes_naming_one_state_file_never_collide() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-process-wide-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let test = crate::support::test_name(module_path!(), "child_writes_process_wide_uuids");
    let children: Vec<_> = (0..3)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args([&*test, "--exact", "--nocapture"])
                .env(CHILD, "1")
                .env("UUIDKIT_STATE", dir.join("state"))
                .env("UUIDKIT_NODE", "0x0123456789ab")
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut all = HashSet::new();
    let mut clock_seqs = HashSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{:?}", out.status);
        let uuids: Vec<Uuid> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.parse().ok())
            .collect();
        assert_eq!(uuids.len(), 4 * PER_VERSION);
        for (i, chunk) in uuids.chunks(PER_VERSION).enumerate() {
            if i > 0 {
                // v6, v7, v8: each process's own sequence increases.
                assert!(chunk.windows(2).all(|w| w[0] < w[1]), "version #{i}");
            }
        }
        // v1 and v6 of every process take the node's clock sequence from the store
        // (in memory, each process would draw its own).
        clock_seqs.extend(uuids[..2 * PER_VERSION].iter().map(|u| u.clock_seq()));
        for u in uuids {
            assert!(all.insert(u), "{u} made by two processes");
        }
    }
    assert_eq!(clock_seqs.len(), 1, "{clock_seqs:?}");
    let state = uuidkit::store::read_state(&dir.join("state")).unwrap();
    assert!(state.checksum_ok);
    assert_eq!(state.entries.len(), 3, "{:?}", state.entries);
    let _ = std::fs::remove_dir_all(&dir);
}

const FILL_CHILD: &str = "UUIDKIT_TEST_PROCESS_WIDE_FILL_CHILD";
const FILLED: usize = 50_000;

/// Runs only as a child: `v7_fill` batches and single `v7` calls, one UUID a line.
#[test]
fn child_writes_v7_batches() {
    if std::env::var_os(FILL_CHILD).is_none() {
        return;
    }
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut batch = vec![Uuid::NIL; 2500];
    for i in 0..FILLED / 2500 {
        uuidkit::v7_fill(&mut batch);
        for u in &batch {
            writeln!(out, "{u}").unwrap();
        }
        if i % 2 == 0 {
            writeln!(out, "{}", uuidkit::v7()).unwrap();
        }
    }
    out.flush().unwrap();
    assert!(uuidkit::generator::take_store_warnings().is_empty());
}

/// With `UUIDKIT_STATE`, `v7_fill` takes every UUID through the store's lease as `v7`
/// does: processes naming one file never make the same UUID, and each process's
/// sequence, batches and single calls together, increases.
#[test]
fn v7_fill_with_a_state_file_stays_inside_the_leases() {
    if std::env::var_os(FILL_CHILD).is_some() || std::env::var_os(CHILD).is_some() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-process-fill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let test = crate::support::test_name(module_path!(), "child_writes_v7_batches");
    let children: Vec<_> = (0..3)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args([&*test, "--exact", "--nocapture"])
                .env(FILL_CHILD, "1")
                .env("UUIDKIT_STATE", dir.join("state"))
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut all = HashSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{:?}", out.status);
        let uuids: Vec<Uuid> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.parse().ok())
            .collect();
        assert_eq!(uuids.len(), FILLED + FILLED / 2500 / 2);
        assert!(uuids.windows(2).all(|w| w[0] < w[1]));
        for u in uuids {
            assert!(all.insert(u), "{u} made by two processes");
        }
    }
    // Every UUID's position (millisecond and 42-bit counter) was leased: at or below the
    // highest position the store ever handed out for v7.
    let state = uuidkit::store::read_state(&dir.join("state")).unwrap();
    assert!(state.checksum_ok);
    let high = state
        .entries
        .iter()
        .find(|e| e.kind == uuidkit::store::GeneratorKind::V7)
        .expect("a v7 entry")
        .high;
    for u in &all {
        let f = uuidkit::layout::v7::decode(u).unwrap();
        let position =
            (f.unix_ts_ms as u128) << 42 | (f.rand_a as u128) << 30 | (f.rand_b >> 32) as u128;
        assert!(position <= high, "{u} outside every lease");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
