//! Processes that share a node and keep their state in memory: each keeps the clock
//! sequence it started with, so two of them never write the same v1 or v6 UUID, however
//! fast they go.

use std::collections::HashSet;
use std::process::{Command, Stdio};

use uuidkit::Uuid;

const NODE: &str = "0x0123456789ab";
const COUNT: usize = 1_000_000;

fn spawn(version: &str) -> std::process::Child {
    Command::new(assert_cmd::cargo::cargo_bin("uuidkit"))
        // In memory: this is about each generator keeping its own clock sequence (with
        // a state file, the processes share the node's; see state_processes.rs).
        .args([
            "gen",
            version,
            "--no-state",
            "--node",
            NODE,
            "-n",
            &COUNT.to_string(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn two_processes_sharing_a_node_keep_their_own_clock_sequences() {
    for version in ["v6", "v1"] {
        // Side by side, as two programs on one host would run.
        let children = [spawn(version), spawn(version)];
        let mut outputs = Vec::new();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{version}: {:?}", out.status);
            let text = String::from_utf8(out.stdout).unwrap();
            let uuids: Vec<Uuid> = text.lines().map(|l| l.parse().unwrap()).collect();
            assert_eq!(uuids.len(), COUNT);
            let cs = uuids[0].clock_seq();
            assert!(
                uuids.iter().all(|u| u.clock_seq() == cs),
                "{version}: a process changed its clock sequence without the clock going back"
            );
            outputs.push((cs, uuids));
        }
        // Random clock sequences are equal in 1 of 16,384 runs, and then two processes
        // may repeat each other's UUIDs: ruling that out takes state shared between
        // processes, not one process's generator.
        if outputs[0].0 == outputs[1].0 {
            eprintln!(
                "{version}: both processes drew clock sequence {:?}",
                outputs[0].0
            );
            continue;
        }
        let mut all = HashSet::with_capacity(2 * COUNT);
        for u in outputs.into_iter().flat_map(|(_, uuids)| uuids) {
            assert!(all.insert(u), "{version}: {u} written by both processes");
        }
    }
}
