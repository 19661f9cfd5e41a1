//! Guarantee 3 of the state file: a process started after another one stopped — here by
//! `kill -9` at a random moment — continues strictly above every v6, v7 and v8 UUID the
//! earlier one wrote, and v1 never repeats one.
//!
//! The first half of the cycles run on the real clock. In the second half every process
//! starts with its clock at the same instant (libfaketime's `FAKETIME=@…`), as after a
//! clock set back at each start: a restart's clock then always reads earlier than the
//! UUIDs the killed process wrote, so that only the state file can keep it above them
//! (and, with the node and clock sequence fixed, keep v1 from repeating them). On the
//! real clock alone a restart would continue above them without any state.

use crate::state_common;

use std::collections::HashSet;
use std::io::BufReader;

use state_common::{
    Rng, TempDir, faked, gen_cmd, gen_ok, read_lines, read_rest, spawn, strictly_increasing,
};
use uuidkit::Uuid;

const CYCLES: usize = 30;
/// Enough that the killed process never ends on its own.
const ENDLESS: u64 = 100_000_000;
const RESTART_COUNT: u64 = 1_000;
/// Where the clock of every process of the second half starts.
const SAME_START: &str = "@2030-01-01 00:00:00";

fn kill_and_restart(version: &str) {
    let dir = TempDir::new(&format!("state-restart-{version}"));
    let state = dir.join("state");
    let mut rng = Rng::from_env_or_time(&format!("kill_and_restart({version})"));
    // Every v1 UUID any process wrote: none may repeat.
    let mut all_v1 = HashSet::new();
    // The greatest UUID written so far (v6, v7, v8).
    let mut high: Option<Uuid> = None;
    for cycle in 0..CYCLES {
        let same_start = cycle >= CYCLES / 2;
        let with_clock = |mut c: std::process::Command| {
            if same_start {
                faked(&mut c, SAME_START);
            }
            c
        };

        let mut child = spawn(&mut with_clock(gen_cmd(version, ENDLESS, &state)));
        let mut out = BufReader::new(child.stdout.take().expect("piped"));
        // Any moment: before the first line, a few lines in, or well into the run.
        let wanted = match rng.below(4) {
            0 => rng.below(3),
            1 => rng.below(100),
            _ => rng.below(50_000),
        } as usize;
        let mut killed = read_lines(&mut out, wanted);
        child.kill().expect("kill -9");
        killed.extend(read_rest(out));
        let status = child.wait().expect("waiting for the killed process");
        assert!(
            !status.success(),
            "{version} cycle {cycle}: the process ended on its own"
        );

        let restarted = gen_ok(&mut with_clock(gen_cmd(version, RESTART_COUNT, &state)));
        assert_eq!(restarted.len() as u64, RESTART_COUNT);

        if version == "v1" {
            for u in killed.iter().chain(&restarted) {
                assert!(
                    all_v1.insert(*u),
                    "v1 cycle {cycle}: {u} repeated (killed after {} lines)",
                    killed.len()
                );
            }
            continue;
        }
        assert!(
            strictly_increasing(&killed) && strictly_increasing(&restarted),
            "{version} cycle {cycle}: a process's UUIDs are not strictly increasing"
        );
        if let (Some(h), Some(first)) = (high, killed.first()) {
            assert!(
                *first > h,
                "{version} cycle {cycle}: the killed process started at {first}, not above \
                 {h}, the last UUID of the process before it"
            );
        }
        if let Some(last) = killed.last() {
            high = Some(*last);
        }
        if let Some(h) = high {
            assert!(
                restarted[0] > h,
                "{version} cycle {cycle}: the restart began at {}, not above {h}, the last of \
                 the {} lines the killed process wrote",
                restarted[0],
                killed.len()
            );
        }
        high = restarted.last().copied();
    }
}

#[test]
fn after_kill_9_v6_continues_above_what_was_written() {
    kill_and_restart("v6");
}

#[test]
fn after_kill_9_v7_continues_above_what_was_written() {
    kill_and_restart("v7");
}

#[test]
fn after_kill_9_v8_continues_above_what_was_written() {
    kill_and_restart("v8");
}

#[test]
fn after_kill_9_v1_never_repeats() {
    kill_and_restart("v1");
}
