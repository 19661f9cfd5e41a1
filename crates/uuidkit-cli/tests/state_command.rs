//! `uuidkit state show` and `state check`, and how `gen` chooses its state file:
//! `--state`, `UUIDKIT_STATE`, the XDG default, `--no-state`, and the flags that
//! conflict.

use crate::state_common;

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use state_common::{CLOCK_SEQ, NODE, TempDir, gen_cmd, gen_ok, run, stderr, uuidkit};
use uuidkit::Uuid;
use uuidkit::layout::v8;
use uuidkit::time::{GregorianTimestamp, UnixTime};

fn state_cmd(action: &str, path: Option<&Path>) -> Output {
    let mut c = uuidkit();
    c.args(["state", action]);
    if let Some(p) = path {
        c.arg(p);
    }
    run(&mut c)
}

fn show(path: &Path) -> Value {
    let out = state_cmd("show", Some(path));
    assert!(out.status.success(), "{:?}\n{}", out.status, stderr(&out));
    serde_json::from_slice(&out.stdout).expect("state show writes JSON")
}

/// A decimal string field as a number.
fn position(v: &Value, key: &str) -> u128 {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not a string: {v}"))
        .parse()
        .unwrap_or_else(|e| panic!("{key}: {e}: {v}"))
}

fn time(v: &Value, key: &str) -> UnixTime {
    UnixTime::parse_rfc3339(v[key].as_str().unwrap_or_else(|| panic!("{key}: {v}")))
        .unwrap_or_else(|e| panic!("{key}: {e}: {v}"))
}

/// A v7 UUID's position: Unix milliseconds, then the 42 bits after them (rand_a and
/// the first 30 bits of rand_b).
fn v7_position(u: &Uuid) -> u128 {
    let x = u.as_u128();
    let ms = x >> 80;
    let rand_a = (x >> 64) & 0xfff;
    let counter_low = (x >> 32) & 0x3fff_ffff;
    (ms << 42) | (rand_a << 30) | counter_low
}

/// A time-based v8 UUID's position: 10 ns steps, then the 30-bit counter.
fn v8_position(u: &Uuid) -> u128 {
    let f = v8::decode_time_based(u).expect("a v8 UUID");
    ((f.timestamp as u128) << 30) | (f.rest >> 32) as u128
}

#[test]
fn show_writes_the_state_as_json() {
    let dir = TempDir::new("state-show");
    let state = dir.join("state");
    let last = |version| *gen_ok(&mut gen_cmd(version, 1000, &state)).last().unwrap();
    let (v1, v7, v8) = (last("v1"), last("v7"), last("v8"));

    let doc = show(&state);
    assert_eq!(doc["path"], state.to_str().unwrap());
    assert_eq!(doc["format_version"], 1);
    assert_eq!(doc["checksum_ok"], true);
    assert_eq!(doc["damage"], Value::Null);
    assert_eq!(doc["size"], std::fs::metadata(&state).unwrap().len());
    if let Ok(boot) = std::fs::read_to_string("/proc/sys/kernel/random/boot_id") {
        assert_eq!(doc["boot_id"], boot.trim());
        assert_eq!(doc["current_boot_id"], boot.trim());
    }
    let entries = doc["entries"].as_array().expect("entries");
    let kinds: Vec<&str> = entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["gregorian", "v7", "v8"]);

    let g = &entries[0];
    assert_eq!(g["node"], NODE.trim_start_matches("0x"));
    assert_eq!(
        g["clock_seq"],
        u16::from_str_radix(CLOCK_SEQ.trim_start_matches("0x"), 16).unwrap()
    );
    let high = position(g, "high");
    assert!(high >= v1.timestamp().unwrap().raw() as u128);
    assert!(position(g, "durable") >= high);
    let ticks = GregorianTimestamp::from_ticks(high as u64).unwrap();
    assert_eq!(time(g, "high_time"), ticks.to_unix());
    assert!(g.get("high_counter").is_none());

    let e7 = &entries[1];
    let high = position(e7, "high");
    assert!(high >= v7_position(&v7), "{e7}: last v7 UUID {v7}");
    assert_eq!(e7["high_counter"], (high & ((1 << 42) - 1)) as u64);
    assert_eq!(
        time(e7, "high_time"),
        UnixTime::from_millis((high >> 42) as u64)
    );
    assert!(position(e7, "durable") >= high);
    assert!(e7.get("node").is_none() && e7.get("clock_seq").is_none());

    let e8 = &entries[2];
    let high = position(e8, "high");
    assert!(high >= v8_position(&v8), "{e8}: last v8 UUID {v8}");
    assert_eq!(e8["high_counter"], (high & ((1 << 30) - 1)) as u64);
    assert_eq!(
        time(e8, "high_time"),
        UnixTime::from_nanos((high >> 30) as i128 * 10)
    );

    for e in entries {
        position(e, "last_clock");
        time(e, "last_clock_time");
        time(e, "durable_time");
    }
}

#[test]
fn show_reports_damage_and_exits_0() {
    let dir = TempDir::new("state-show-damage");
    let state = dir.join("state");
    gen_ok(&mut gen_cmd("v7", 10, &state));
    let text = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, text.replacen("v7 high=", "v7 high=1", 1)).unwrap();
    let doc = show(&state);
    assert_eq!(doc["checksum_ok"], false);
    assert!(
        doc["damage"].as_str().unwrap().contains("field checksum"),
        "{doc}"
    );
}

/// The state file's checksum of `content`: the first 16 hex digits of its SHA-256
/// (computed by coreutils' sha256sum, not by the code under test).
fn checksum(content: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(content.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..16].to_string()
}

#[test]
fn check_exit_status() {
    let dir = TempDir::new("state-check");
    let state = dir.join("state");

    let out = state_cmd("check", Some(&state));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        format!("uuidkit: state file {}: does not exist\n", state.display())
    );

    gen_ok(&mut gen_cmd("v6", 10, &state));
    let out = state_cmd("check", Some(&state));
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());

    // A bad number under a checksum that matches: the fault is the field's.
    let content = "uuidkit-state 1\nboot none\nv7 high=12x durable=1 last-clock=1\n";
    std::fs::write(&state, format!("{content}checksum {}\n", checksum(content))).unwrap();
    let out = state_cmd("check", Some(&state));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "uuidkit: state file {}: line 3, field high: '12x' is not a decimal number",
            state.display()
        )),
        "{err}"
    );
    // The same under a checksum that does not match: the checksum line is at fault.
    std::fs::write(&state, format!("{content}checksum 0000000000000000\n")).unwrap();
    let err = stderr(&state_cmd("check", Some(&state)));
    assert!(err.contains(": line 4, field checksum: "), "{err}");

    // Show is for reading a file, damaged or not; a missing one is an error.
    let out = state_cmd("show", Some(&dir.join("absent")));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).ends_with("absent: does not exist\n"));
}

#[test]
fn the_state_file_comes_from_the_flag_the_variable_or_the_xdg_directories() {
    let dir = TempDir::new("state-paths");
    let from_env = dir.join("env/state");
    let from_flag = dir.join("flag/state");
    let xdg = dir.join("xdg");
    let home = dir.join("home");

    // UUIDKIT_STATE, for gen and for state.
    gen_ok(
        uuidkit()
            .args(["gen", "v7"])
            .env("UUIDKIT_STATE", &from_env),
    );
    assert!(from_env.exists());
    let out = run(uuidkit()
        .args(["state", "check"])
        .env("UUIDKIT_STATE", &from_env));
    assert!(out.status.success(), "{}", stderr(&out));

    // --state overrides it.
    gen_ok(
        uuidkit()
            .args(["gen", "v8", "--state"])
            .arg(&from_flag)
            .env("UUIDKIT_STATE", &from_env),
    );
    assert!(from_flag.exists());
    assert_eq!(show(&from_env)["entries"].as_array().unwrap().len(), 1);

    // Unset or empty: $XDG_STATE_HOME/uuidkit/state, else ~/.local/state/uuidkit/state.
    for unset_or_empty in [None, Some("")] {
        let _ = std::fs::remove_dir_all(&xdg);
        let mut c = uuidkit();
        c.args(["gen", "v6", "--node", NODE])
            .env("XDG_STATE_HOME", &xdg)
            .env("HOME", &home);
        if let Some(v) = unset_or_empty {
            c.env("UUIDKIT_STATE", v);
        }
        gen_ok(&mut c);
        assert!(xdg.join("uuidkit/state").exists());
    }
    gen_ok(
        uuidkit()
            .args(["gen", "v1"])
            .env_remove("XDG_STATE_HOME")
            .env("HOME", &home),
    );
    let in_home = home.join(".local/state/uuidkit/state");
    assert!(in_home.exists());
    let out = run(uuidkit()
        .args(["state", "check"])
        .env_remove("XDG_STATE_HOME")
        .env("HOME", &home));
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn no_state_time_random_nodes_and_other_versions_leave_no_file() {
    let dir = TempDir::new("state-none");
    let state = dir.join("state");
    let cases: [&[&str]; 6] = [
        &["gen", "v7", "--no-state"],
        &["gen", "v1", "--no-state", "-n", "10"],
        &["gen", "v7", "--time", "2022-02-22T14:22:22-05:00"],
        &[
            "gen",
            "v6",
            "--time",
            "2022-02-22T14:22:22-05:00",
            "-n",
            "3",
        ],
        &["gen", "v6", "--node", "random"],
        &["gen", "v4"],
    ];
    for args in cases {
        gen_ok(uuidkit().args(args).env("UUIDKIT_STATE", &state));
        assert!(!state.exists(), "{args:?} wrote a state file");
        assert!(!dir.join("state.lock").exists(), "{args:?} took the lock");
    }
    // --time stays reproducible whatever the state file holds.
    let fixed = [
        "gen",
        "v1",
        "--time",
        "2022-02-22T14:22:22-05:00",
        "--clock-seq",
        "0x33C8",
        "--node",
        "9F:6B:DE:CE:D8:46",
    ];
    gen_ok(&mut gen_cmd("v1", 10, &state));
    let u = gen_ok(uuidkit().args(fixed).env("UUIDKIT_STATE", &state));
    assert_eq!(u[0].to_string(), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
}

#[test]
fn state_flags_that_do_not_apply_are_usage_errors() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["gen", "v4", "--state", "/tmp/x"],
            "--state does not apply to gen v4",
        ),
        (
            &[
                "gen",
                "v7",
                "--state",
                "/tmp/x",
                "--time",
                "2022-02-22T00:00:00Z",
            ],
            "--state does not apply with --time",
        ),
        (
            &[
                "gen",
                "v8",
                "--namespace",
                "@dns",
                "--name",
                "a",
                "--state",
                "/tmp/x",
            ],
            "name-based gen v8",
        ),
        (
            &["gen", "v7", "--state", "/tmp/x", "--no-state"],
            "cannot be used with",
        ),
        (&["gen", "v7", "--state", ""], "cannot be empty"),
    ];
    for (args, what) in cases {
        let out = run(uuidkit().args(args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(what), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn without_any_path_gen_warns_once_and_state_fails() {
    let out = run(uuidkit()
        .args(["gen", "v7", "-n", "3"])
        .env_remove("XDG_STATE_HOME")
        .env_remove("HOME"));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("uuidkit: warning: no state file: UUIDKIT_STATE is not set"));

    let out = run(uuidkit()
        .args(["state", "show"])
        .env_remove("XDG_STATE_HOME")
        .env_remove("HOME"));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no state file"));
}

#[test]
fn help_documents_the_state_file() {
    for args in [
        &["--help"][..],
        &["gen", "--help"],
        &["state", "--help"],
        &["state", "show", "--help"],
    ] {
        let out = run(uuidkit().args(args));
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("UUIDKIT_STATE"), "{args:?}");
    }
    let out = run(uuidkit().args(["gen", "--help"]));
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "--no-state",
        "--time uses no state file",
        "v2 UUIDs are outside",
    ] {
        assert!(text.contains(needle), "gen --help lacks {needle:?}");
    }
}
