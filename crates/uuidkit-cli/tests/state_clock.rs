//! Guarantee 4 of the state file: the clock set back one hour, between two runs and
//! during one (with libfaketime). v6, v7 and v8 continue from the stored high-water mark
//! and never decrease; v1 takes the next clock sequence, or with a fixed `--clock-seq`
//! keeps it and continues above the stored timestamps as v6 does; no UUID repeats.
//!
//! Without the state file a run whose clock reads an hour earlier would write UUIDs an
//! hour below the earlier run's, and v1 would draw a random clock sequence.

use crate::state_common;

use std::collections::HashSet;
use std::io::BufReader;
use std::path::Path;
use std::process::Command;

use state_common::{
    CLOCK_SEQ, NODE, TempDir, faked, gen_cmd, gen_ok, libfaketime, read_lines, read_rest, spawn,
    strictly_increasing, uuidkit,
};
use uuidkit::Uuid;

const COUNT: u64 = 50_000;

/// `gen v1 --node NODE -n COUNT --state STATE`, with the clock sequence left to the
/// state file.
fn v1_own_clock_seq(count: u64, state: &Path) -> Command {
    let mut c = uuidkit();
    c.args(["gen", "v1", "--node", NODE, "-n", &count.to_string()])
        .arg("--state")
        .arg(state);
    c
}

/// The Gregorian timestamp of a v1 or v6 UUID, in 100 ns ticks.
fn ticks(u: &Uuid) -> u64 {
    u.timestamp().expect("a time-based UUID").raw()
}

fn clock_seq(u: &Uuid) -> u16 {
    u.clock_seq().expect("a v1 UUID")
}

/// The clock sequence after `cs`: what RFC 9562 §6.3 has a generator with state take
/// when the clock went back.
fn next_clock_seq(cs: u16) -> u16 {
    (cs + 1) & 0x3fff
}

#[test]
fn libfaketime_sets_the_clock_of_the_command() {
    // Without this, the tests below could pass with a clock that never went back.
    let mut c = uuidkit();
    c.args(["gen", "v7", "--no-state"]);
    faked(&mut c, "@2030-01-01 00:00:00");
    let u = gen_ok(&mut c)[0];
    let ms = u.timestamp().expect("v7").raw();
    // 2030-01-01T00:00:00Z, give or take the time the command took.
    assert!(
        (1_893_456_000_000..1_893_456_060_000).contains(&ms),
        "gen v7 under FAKETIME=@2030-01-01 wrote {u} ({ms} ms): is libfaketime ({}) working?",
        libfaketime().display()
    );
}

#[test]
fn clock_set_back_between_runs() {
    for version in ["v6", "v7", "v8"] {
        let dir = TempDir::new(&format!("state-clock-between-{version}"));
        let state = dir.join("state");
        let before = gen_ok(&mut gen_cmd(version, COUNT, &state));
        let mut c = gen_cmd(version, COUNT, &state);
        faked(&mut c, "-1h");
        let after = gen_ok(&mut c);
        assert!(strictly_increasing(&before) && strictly_increasing(&after));
        assert!(
            after[0] > before[before.len() - 1],
            "{version}: with the clock an hour back the next run began at {}, below {}",
            after[0],
            before[before.len() - 1]
        );
    }
}

#[test]
fn v1_takes_the_next_clock_sequence_when_the_clock_was_set_back_between_runs() {
    let dir = TempDir::new("state-clock-between-v1");
    let state = dir.join("state");
    let before = gen_ok(&mut v1_own_clock_seq(COUNT, &state));
    let mut c = v1_own_clock_seq(COUNT, &state);
    faked(&mut c, "-1h");
    let after = gen_ok(&mut c);
    let cs = clock_seq(&before[0]);
    assert!(before.iter().all(|u| clock_seq(u) == cs));
    assert!(
        after.iter().all(|u| clock_seq(u) == next_clock_seq(cs)),
        "the run an hour back should use clock sequence {} (the stored {cs} plus one), \
         used {}",
        next_clock_seq(cs),
        clock_seq(&after[0])
    );
    let seen: HashSet<Uuid> = before.iter().copied().collect();
    assert!(after.iter().all(|u| !seen.contains(u)));
}

#[test]
fn v1_with_a_fixed_clock_seq_continues_above_the_stored_timestamps() {
    let dir = TempDir::new("state-clock-between-v1-fixed");
    let state = dir.join("state");
    let before = gen_ok(&mut gen_cmd("v1", COUNT, &state));
    let mut c = gen_cmd("v1", COUNT, &state);
    faked(&mut c, "-1h");
    let after = gen_ok(&mut c);
    let fixed = u16::from_str_radix(CLOCK_SEQ.trim_start_matches("0x"), 16).unwrap();
    assert!(before.iter().chain(&after).all(|u| clock_seq(u) == fixed));
    let high = before.iter().map(ticks).max().unwrap();
    assert!(
        after.iter().all(|u| ticks(u) > high),
        "with the clock an hour back and a fixed clock sequence, v1 must stay above the \
         stored timestamps"
    );
    let all: HashSet<Uuid> = before.iter().chain(&after).copied().collect();
    assert_eq!(all.len(), before.len() + after.len(), "a v1 UUID repeated");
}

/// A process whose clock goes back an hour while it runs (libfaketime re-reads its
/// setting from a file at every clock reading), then a second process, its clock still
/// an hour back. Returns the UUIDs of the first process before and after the step, and
/// those of the second.
fn set_back_during_a_run(
    version: &str,
    make: impl Fn(u64, &Path) -> Command,
) -> (Vec<Uuid>, Vec<Uuid>, Vec<Uuid>) {
    const BEFORE: usize = 20_000;
    const TOTAL: u64 = 100_000;
    let dir = TempDir::new(&format!("state-clock-during-{version}"));
    let state = dir.join("state");
    let setting = dir.join("faketime");
    std::fs::write(&setting, "+0\n").unwrap();

    let mut c = make(TOTAL, &state);
    c.env("LD_PRELOAD", libfaketime())
        .env("FAKETIME_TIMESTAMP_FILE", &setting)
        .env("FAKETIME_NO_CACHE", "1");
    let mut child = spawn(&mut c);
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let before = read_lines(&mut out, BEFORE);
    // Replaced in one rename, so that no clock reading sees half a setting.
    let tmp = dir.join("faketime.new");
    std::fs::write(&tmp, "-1h\n").unwrap();
    std::fs::rename(&tmp, &setting).unwrap();
    let during = read_rest(out);
    let status = child.wait().unwrap();
    assert!(status.success(), "{version}: {status:?}");
    assert_eq!(before.len() + during.len(), TOTAL as usize, "{version}");

    let mut c = make(COUNT, &state);
    faked(&mut c, "-1h");
    let after = gen_ok(&mut c);
    (before, during, after)
}

#[test]
fn clock_set_back_during_a_run() {
    for version in ["v6", "v7", "v8"] {
        let (before, during, after) = set_back_during_a_run(version, |n, s| gen_cmd(version, n, s));
        let run: Vec<Uuid> = before.iter().chain(&during).copied().collect();
        assert!(
            strictly_increasing(&run),
            "{version}: a UUID was not above the one before it when the clock went back"
        );
        assert!(
            after[0] > run[run.len() - 1],
            "{version}: the next run, its clock still an hour back, began at {}, below {}",
            after[0],
            run[run.len() - 1]
        );
        assert!(strictly_increasing(&after));
    }
}

#[test]
fn v1_changes_its_clock_sequence_when_the_clock_goes_back_during_a_run() {
    let (before, during, after) = set_back_during_a_run("v1", v1_own_clock_seq);
    let cs = clock_seq(&before[0]);
    assert!(before.iter().all(|u| clock_seq(u) == cs));
    // The UUIDs written in the pipe before the step keep the first clock sequence; the
    // run takes the next one at the first lease after it, and the next run keeps that.
    let last = clock_seq(&during[during.len() - 1]);
    assert_eq!(
        last,
        next_clock_seq(cs),
        "the clock went back an hour during the run: v1 should have gone on with the next \
         clock sequence"
    );
    assert!(after.iter().all(|u| clock_seq(u) == last));
    let mut all = HashSet::new();
    for u in before.iter().chain(&during).chain(&after) {
        assert!(all.insert(*u), "v1 repeated {u}");
    }
}

#[test]
fn v1_with_a_fixed_clock_seq_stays_distinct_when_the_clock_goes_back_during_a_run() {
    let (before, during, after) = set_back_during_a_run("v1", |n, s| gen_cmd("v1", n, s));
    let run: Vec<Uuid> = before.iter().chain(&during).copied().collect();
    // The timestamps, not the clock sequence, keep them apart: they never go back.
    assert!(run.windows(2).all(|w| ticks(&w[0]) < ticks(&w[1])));
    let high = ticks(&run[run.len() - 1]);
    assert!(after.iter().all(|u| ticks(u) > high));
    let mut all = HashSet::new();
    for u in run.iter().chain(&after) {
        assert!(all.insert(*u), "v1 repeated {u}");
    }
}

/// A process whose clock is far ahead uses up a kind's range in the state file
/// (draft-v8-32's ends in 2106; v7's in the year 10889, left here as such a process
/// leaves it, with its last position leased). The next `gen` with a correct clock writes
/// no UUID below the earlier ones: it stops (exit 1) with a message naming the file, the
/// kind and the way out, and writes nothing. The daemon's clients stop the same way.
#[test]
fn a_range_used_up_by_a_clock_far_ahead_stops_gen_and_says_why() {
    use uuidkit::store::{GeneratorKind, LeaseRequest, StateStore};
    let dir = TempDir::new("used-up");
    // draft-v8-32, through a real process at 2250.
    let state = dir.join("draft");
    let draft = |n: u64| {
        let mut c = uuidkit();
        c.args(["gen", "v8", "--layout", "draft-v8-32", "-n", &n.to_string()])
            .arg("--state")
            .arg(&state);
        c
    };
    let mut ahead = draft(3);
    faked(&mut ahead, "@2250-01-01 00:00:00");
    let first = gen_ok(&mut ahead);
    // v7, left at its last position.
    let v7_state = dir.join("v7");
    let max = GeneratorKind::V7.max_position();
    StateStore::open(&v7_state)
        .lease(&LeaseRequest::new(GeneratorKind::V7, max, max, 1))
        .unwrap();
    let mut v7 = uuidkit();
    v7.args(["gen", "v7", "-n", "5"])
        .arg("--state")
        .arg(&v7_state);
    for (name, mut cmd, path) in [("draft-v8-32", draft(5), &state), ("v7", v7, &v7_state)] {
        let before = std::fs::read(path).unwrap();
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            out.stdout.is_empty(),
            "{name}: wrote UUIDs below the earlier ones"
        );
        assert!(
            err.contains(&format!(
                "state file {}: its {name} positions are used up",
                path.display()
            )) && err.contains("remove the file")
                && err.contains("wrote no UUIDs"),
            "{name}: {err}"
        );
        assert_eq!(
            std::fs::read(path).unwrap(),
            before,
            "{name}: the file changed"
        );
    }
    assert_eq!(first.len(), 3);
}

/// One process whose clock is at the end of a layout's range uses it up as it runs: the
/// UUID that would step back is never written in silence. `gen` stops (exit 1) with the
/// used-up message, and everything it wrote before strictly increases.
#[test]
fn a_range_used_up_during_a_run_stops_it_without_a_step_back() {
    let dir = TempDir::new("used-up-run");
    let state = dir.join("state");
    let mut c = uuidkit();
    c.args([
        "gen",
        "v8",
        "--layout",
        "draft-v8-32",
        "-n",
        "4098",
        "--state",
    ])
    .arg(&state);
    faked(&mut c, "@2250-01-01 00:00:00");
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("positions are used up"), "{err}");
    let wrote = state_common::uuids(&out.stdout);
    assert!(wrote.len() <= 4096, "{}", wrote.len());
    assert!(strictly_increasing(&wrote), "stepped back");
}
