//! Guarantees 1 and 2 of the state file: processes sharing one state file never write
//! the same UUID — v1, v6, v7, v8, all with the same `--node` and `--clock-seq` — and
//! each process's own UUIDs are strictly increasing (v6, v7, v8) or distinct (v1).
//!
//! Without the state file the v1 and v6 processes, sharing node and clock sequence,
//! would write the same timestamps and so the same UUIDs.

use crate::state_common;

use std::collections::HashSet;
use std::thread;

use state_common::{TempDir, gen_cmd, gen_ok, spawn, stderr, strictly_increasing, uuids};
use uuidkit::Uuid;

const PROCESSES: usize = 8;
const PER_PROCESS: u64 = 200_000;

/// Runs PROCESSES processes of `version` side by side on one state file and returns
/// each one's UUIDs.
fn side_by_side(version: &str, dir: &TempDir) -> Vec<Vec<Uuid>> {
    let state = dir.join("state");
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| spawn(&mut gen_cmd(version, PER_PROCESS, &state)))
        .collect();
    // A reader per process: waiting on one while the others fill their pipes would
    // run them one after another instead of side by side.
    let readers: Vec<_> = children
        .into_iter()
        .map(|child| thread::spawn(move || child.wait_with_output().expect("waiting")))
        .collect();
    readers
        .into_iter()
        .map(|r| {
            let out = r.join().expect("reader thread");
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{version}: {:?}\n{}",
                out.status,
                stderr(&out)
            );
            let u = uuids(&out.stdout);
            assert_eq!(u.len() as u64, PER_PROCESS, "{version}");
            u
        })
        .collect()
}

#[test]
fn processes_sharing_a_state_file_never_write_the_same_uuid() {
    for version in ["v1", "v6", "v7", "v8"] {
        let dir = TempDir::new(&format!("state-processes-{version}"));
        let outputs = side_by_side(version, &dir);
        let mut all = HashSet::with_capacity(PROCESSES * PER_PROCESS as usize);
        for (p, u) in outputs.iter().enumerate() {
            if version != "v1" {
                assert!(
                    strictly_increasing(u),
                    "{version}: process {p}'s UUIDs are not strictly increasing"
                );
            }
            for x in u {
                assert!(
                    all.insert(*x),
                    "{version}: {x} written twice (the second time by process {p})"
                );
            }
        }
        if matches!(version, "v1" | "v6") {
            // The fixed node and clock sequence are in every UUID: only the
            // timestamps, leased from the state file, keep them apart.
            assert!(
                all.iter()
                    .all(|u| u.clock_seq() == Some(0x1234) && u.node().is_some())
            );
        }
    }
}

/// docs/protocol.md ("Fair share"): a process leases a new block only once the clock has
/// passed its last one, a block reaches at most 16 ms, and each starts above every block
/// leased before it, so the blocks above the clock are at most one a process, end to end:
/// k processes on one state file lead the clock by at most k × 16 ms. Three processes at
/// full speed and short commands among them (one at a time, so four processes): no
/// short command's UUID leads the clock, read after it ended, by more than 4 × 16 ms.
#[test]
fn processes_on_one_file_lead_the_clock_by_at_most_16_ms_each() {
    let dir = TempDir::new("state-processes-lead");
    let state = dir.join("state");
    let mut bulk: Vec<_> = (0..3)
        .map(|_| {
            gen_cmd("v7", 20_000_000, &state)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("starting gen v7")
        })
        .collect();
    let mut leads = Vec::new();
    while leads.len() < 200 && bulk.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        let u = gen_ok(&mut gen_cmd("v7", 1, &state))[0];
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let ms = (u.as_u128() >> 80) as i64;
        leads.push(ms - now);
    }
    for mut c in bulk {
        assert!(c.wait().unwrap().success());
    }
    assert!(
        leads.len() >= 5,
        "only {} short commands ran beside the others",
        leads.len()
    );
    let most = *leads.iter().max().unwrap();
    assert!(
        most <= 4 * 16,
        "a UUID {most} ms ahead of the clock: {leads:?}"
    );
}
