//! End-to-end tests of the `uuidkit` binary.

use std::collections::HashSet;

mod command_common;

use command_common::{test_state, uuidkit};
use predicates::prelude::*;
use serde_json::Value;

const RFC_TIME: &str = "2022-02-22T14:22:22-05:00";
const A1_V1: &str = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
const A2_V3: &str = "5df41881-3aed-3515-88a7-2f4a814cf09e";
const A3_V4: &str = "919108f7-52d1-4320-9bac-f847db4148a8";
const A4_V5: &str = "2ed6657d-e927-568b-95e1-2665a8aea6a2";
const A5_V6: &str = "1ec9414c-232a-6b00-b3c8-9f6bdeced846";
const A6_V7: &str = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
const B2_V8: &str = "5c146b14-3c52-8afd-938a-375d0df1fbf6";
const NIL: &str = "00000000-0000-0000-0000-000000000000";
const MAX: &str = "ffffffff-ffff-ffff-ffff-ffffffffffff";

/// Runs `uuidkit ARGS`, expects success, returns stdout.
fn ok(args: &[&str]) -> String {
    let out = uuidkit().args(args).assert().success().get_output().clone();
    assert!(
        out.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `gen VERSION` with the time, clock sequence and node of RFC 9562 Appendix A, then
/// `extra`.
fn gen_rfc(version: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "gen",
        version,
        "--time",
        RFC_TIME,
        "--clock-seq",
        "0x33C8",
        "--node",
        "9F:6B:DE:CE:D8:46",
    ];
    args.extend_from_slice(extra);
    ok(&args)
}

/// Runs `uuidkit ARGS`, expects exit status `code`, returns stderr.
fn fails(args: &[&str], code: i32) -> String {
    let out = uuidkit()
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

fn json_lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn inspect_json(u: &str) -> Value {
    let out = ok(&["inspect", "--json", u]);
    let mut v = json_lines(&out);
    assert_eq!(v.len(), 1, "{out}");
    v.remove(0)
}

// ---------------------------------------------------------------- gen: RFC vectors

#[test]
fn gen_v1_rfc_vector() {
    let out = gen_rfc("v1", &[]);
    assert_eq!(out, format!("{A1_V1}\n"));
}

#[test]
fn gen_v6_rfc_vector() {
    let out = gen_rfc("v6", &[]);
    assert_eq!(out, format!("{A5_V6}\n"));
}

#[test]
fn gen_v1_clock_seq_decimal_and_node_forms() {
    for node in [
        "9f6bdeced846",
        "0x9F6BDECED846",
        "9f-6b-de-ce-d8-46",
        "0x9f6bdeced846",
    ] {
        let out = ok(&[
            "gen",
            "v1",
            "--time",
            RFC_TIME,
            "--clock-seq",
            "13256",
            "--node",
            node,
        ]);
        assert_eq!(out, format!("{A1_V1}\n"), "{node}");
    }
}

#[test]
fn gen_v1_with_time_counts_consecutive_ticks() {
    let out = gen_rfc("v1", &["-n", "3"]);
    assert_eq!(
        lines(&out),
        [
            "c232ab00-9414-11ec-b3c8-9f6bdeced846",
            "c232ab01-9414-11ec-b3c8-9f6bdeced846",
            "c232ab02-9414-11ec-b3c8-9f6bdeced846",
        ]
    );
    let out = gen_rfc("v6", &["-n", "20000"]);
    let v = lines(&out);
    assert_eq!(v.len(), 20000);
    assert!(
        v.windows(2).all(|w| w[0] < w[1]),
        "v6 with --time must be increasing"
    );
}

#[test]
fn gen_v7_with_time() {
    let out = ok(&["gen", "v7", "--time", RFC_TIME, "-n", "50"]);
    let v = lines(&out);
    assert_eq!(v.len(), 50);
    for u in &v {
        assert!(u.starts_with("017f22e2-79b0-7"), "{u}");
    }
    assert!(v.windows(2).all(|w| w[0] < w[1]));
    for m in ["counter", "random", "precision"] {
        let out = ok(&["gen", "v7", "--method", m, "--time", RFC_TIME]);
        assert!(out.starts_with("017f22e2-79b0-7"), "{m}: {out}");
    }
}

#[test]
fn gen_v8_time_based() {
    let out = ok(&["gen", "v8", "--time", RFC_TIME, "-n", "5"]);
    let v = lines(&out);
    assert_eq!(v.len(), 5);
    for u in &v {
        // 60-bit 10 ns steps of the instant: 0x2489E9AD2EE2E00.
        assert!(u.starts_with("2489e9ad-2ee2-8e00-"), "{u}");
    }
    assert!(v.windows(2).all(|w| w[0] < w[1]));
    let now = ok(&["gen", "v8"]);
    assert_eq!(inspect_json(now.trim())["version"], 8);
}

#[test]
fn gen_name_based_rfc_vectors() {
    assert_eq!(
        ok(&[
            "gen",
            "v3",
            "--namespace",
            "@dns",
            "--name",
            "www.example.com"
        ]),
        format!("{A2_V3}\n")
    );
    assert_eq!(
        ok(&[
            "gen",
            "v5",
            "--namespace",
            "@dns",
            "--name",
            "www.example.com"
        ]),
        format!("{A4_V5}\n")
    );
    assert_eq!(
        ok(&[
            "gen",
            "v8",
            "--namespace",
            "@dns",
            "--name",
            "www.example.com"
        ]),
        format!("{B2_V8}\n")
    );
    // The namespace as a UUID in any accepted form.
    for ns in [
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "6BA7B8109DAD11D180B400C04FD430C8",
        "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
        "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    ] {
        assert_eq!(
            ok(&["gen", "v5", "--namespace", ns, "--name", "www.example.com"]),
            format!("{A4_V5}\n"),
            "{ns}"
        );
    }
    // Other namespaces differ.
    let url = ok(&[
        "gen",
        "v5",
        "--namespace",
        "@url",
        "--name",
        "www.example.com",
    ]);
    assert_ne!(url, format!("{A4_V5}\n"));
}

#[test]
fn gen_every_format_and_case() {
    let base = [
        "gen",
        "v5",
        "--namespace",
        "@dns",
        "--name",
        "www.example.com",
    ];
    let cases: [(&[&str], &str); 8] = [
        (&[], "2ed6657d-e927-568b-95e1-2665a8aea6a2"),
        (
            &["--format", "hyphenated"],
            "2ed6657d-e927-568b-95e1-2665a8aea6a2",
        ),
        (&["--format", "simple"], "2ed6657de927568b95e12665a8aea6a2"),
        (
            &["--format", "braced"],
            "{2ed6657d-e927-568b-95e1-2665a8aea6a2}",
        ),
        (
            &["--format", "urn"],
            "urn:uuid:2ed6657d-e927-568b-95e1-2665a8aea6a2",
        ),
        (&["--upper"], "2ED6657D-E927-568B-95E1-2665A8AEA6A2"),
        (
            &["--format", "simple", "--upper"],
            "2ED6657DE927568B95E12665A8AEA6A2",
        ),
        (
            &["--format", "urn", "--upper"],
            "urn:uuid:2ED6657D-E927-568B-95E1-2665A8AEA6A2",
        ),
    ];
    for (extra, want) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        assert_eq!(ok(&args), format!("{want}\n"), "{extra:?}");
    }
    assert_eq!(
        ok(&["gen", "v4", "--format", "braced", "--upper", "-n", "2"])
            .lines()
            .filter(|l| l.len() == 38 && l.starts_with('{') && *l == l.to_uppercase())
            .count(),
        2
    );
}

#[test]
fn gen_nil_and_max() {
    assert_eq!(ok(&["gen", "nil"]), format!("{NIL}\n"));
    assert_eq!(ok(&["gen", "max"]), format!("{MAX}\n"));
    assert_eq!(
        ok(&["gen", "max", "--upper", "--format", "simple", "-n", "2"]),
        format!("{0}\n{0}\n", "F".repeat(32))
    );
}

#[test]
fn gen_v4_many_distinct() {
    let out = ok(&["gen", "v4", "-n", "1000"]);
    let v = lines(&out);
    assert_eq!(v.len(), 1000);
    let set: HashSet<_> = v.iter().collect();
    assert_eq!(set.len(), 1000);
    for u in v {
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
    }
}

#[test]
fn gen_every_version_without_options() {
    for (v, n) in [("v1", 1), ("v4", 4), ("v6", 6), ("v7", 7), ("v8", 8)] {
        let out = ok(&["gen", v, "-n", "3"]);
        let list = lines(&out);
        assert_eq!(list.len(), 3);
        assert_eq!(list.iter().collect::<HashSet<_>>().len(), 3, "{v}");
        for u in list {
            assert_eq!(inspect_json(u)["version"], n, "{v}: {u}");
        }
    }
}

#[test]
fn gen_time_based_defaults_random_multicast_node() {
    for v in ["v1", "v6"] {
        let out = ok(&["gen", v]);
        let j = inspect_json(out.trim());
        assert_eq!(j["multicast"], true, "{v}: {j}");
    }
    let out = ok(&["gen", "v1", "--node", "random", "-n", "2"]);
    let nodes: Vec<Value> = lines(&out)
        .iter()
        .map(|u| inspect_json(u)["node"].clone())
        .collect();
    assert_ne!(nodes[0], nodes[1]);
}

#[test]
fn gen_node_flag_wins_over_environment() {
    let out = uuidkit()
        .env("UUIDKIT_NODE", "0x0123456789ab")
        .args(["gen", "v1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .trim_end()
            .ends_with("-0123456789ab")
    );
    let out = uuidkit()
        .env("UUIDKIT_NODE", "0x0123456789ab")
        .args(["gen", "v6", "--node", "9f6bdeced846"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .trim_end()
            .ends_with("-9f6bdeced846")
    );
    // A malformed variable is a usage error naming it, unless --node overrides it.
    uuidkit()
        .env("UUIDKIT_NODE", "bogus")
        .args(["gen", "v1"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("UUIDKIT_NODE")
                .and(predicate::str::contains("panicked").not()),
        );
    uuidkit()
        .env("UUIDKIT_NODE", "bogus")
        .args(["gen", "v1", "--node", "random"])
        .assert()
        .success();
}

#[test]
fn gen_v2() {
    let out = ok(&[
        "gen",
        "v2",
        "--domain",
        "org",
        "--local-id",
        "1000",
        "--time",
        RFC_TIME,
        "--clock-seq",
        "0x33C8",
        "--node",
        "9F:6B:DE:CE:D8:46",
    ]);
    let j = inspect_json(out.trim());
    assert_eq!(j["version"], 2);
    assert_eq!(j["domain"], "org");
    assert_eq!(j["local_id"], 1000);
    assert_eq!(j["node"], "9f6bdeced846");
    assert_eq!(j["clock_seq"], 0x33c8 >> 8);
    assert!(out.starts_with("000003e8-9414-21ec-b302-"), "{out}");
    // Default: this user's UID / GID.
    let out = ok(&["gen", "v2"]);
    let j = inspect_json(out.trim());
    assert_eq!(j["domain"], "person");
    assert!(j["local_id"].is_u64());
    let out = ok(&["gen", "v2", "--domain", "group", "--local-id", "0x10"]);
    assert_eq!(inspect_json(out.trim())["local_id"], 16);
    // org has no default.
    let err = fails(&["gen", "v2", "--domain", "org"], 2);
    assert!(err.contains("--local-id"), "{err}");
}

// ---------------------------------------------------------------- gen: usage errors

#[test]
fn gen_usage_errors_exit_2_and_name_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["gen", "v1", "--clock-seq", "16384"], "--clock-seq"),
        (&["gen", "v1", "--clock-seq", "0x4000"], "--clock-seq"),
        (&["gen", "v1", "--clock-seq", "-1"], "--clock-seq"),
        (&["gen", "v1", "--clock-seq", "abc"], "--clock-seq"),
        (&["gen", "v1", "--node", "zz"], "--node"),
        (&["gen", "v1", "--node", "0x0123456789abc"], "--node"),
        (&["gen", "v1", "--node", "9f:6b:de:ce:d8"], "--node"),
        (&["gen", "v1", "--time", "2022-02-22"], "--time"),
        (&["gen", "v1", "--time", "2022-02-30T00:00:00Z"], "--time"),
        (
            &["gen", "v1", "--time", "2022-02-22T14:22:22.1234567890Z"],
            "--time",
        ),
        (&["gen", "v1", "--time", "1582-10-14T23:59:59Z"], "--time"),
        (&["gen", "v7", "--time", "1969-12-31T23:59:59Z"], "--time"),
        (&["gen", "v8", "--time", "1969-12-31T23:59:59Z"], "--time"),
        (&["gen", "v9"], "v9"),
        (&["gen", "V4"], "V4"),
        (&["gen", "-r", "v1"], "--random"),
        (&["gen", "v4", "--name", "x"], "--name"),
        (&["gen", "v4", "--namespace", "@dns"], "--namespace"),
        (&["gen", "v1", "--method", "counter"], "--method"),
        (&["gen", "v7", "--method", "fast"], "--method"),
        (&["gen", "v4", "--time", RFC_TIME], "--time"),
        (
            &[
                "gen",
                "v3",
                "--time",
                RFC_TIME,
                "--namespace",
                "@dns",
                "--name",
                "x",
            ],
            "--time",
        ),
        (&["gen", "v7", "--node", "random"], "--node"),
        (&["gen", "v7", "--clock-seq", "1"], "--clock-seq"),
        (&["gen", "v1", "--domain", "person"], "--domain"),
        (&["gen", "v6", "--local-id", "1"], "--local-id"),
        (&["gen", "nil", "--name", "x"], "--name"),
        (&["gen", "v3", "--name", "x"], "--namespace"),
        (&["gen", "v5", "--namespace", "@dns"], "--name"),
        (&["gen", "v5"], "--name"),
        (&["gen", "v8", "--name", "x"], "--namespace"),
        (
            &[
                "gen",
                "v8",
                "--namespace",
                "@dns",
                "--name",
                "x",
                "--time",
                RFC_TIME,
            ],
            "--time",
        ),
        (
            &["gen", "v5", "--namespace", "@foo", "--name", "x"],
            "--namespace",
        ),
        (
            &["gen", "v5", "--namespace", "dns", "--name", "x"],
            "--namespace",
        ),
        (&["gen", "v4", "-n", "-1"], "-1"),
        (&["gen", "v4", "--format", "xml"], "--format"),
        (&["gen", "v2", "--domain", "world"], "--domain"),
        (&["gen", "v2", "--local-id", "4294967296"], "--local-id"),
        (&["frobnicate"], "frobnicate"),
    ];
    for (args, needle) in cases {
        let err = fails(args, 2);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// `gen v1 --shards` keeps its state in memory, so wherever `gen v1` would use a state
/// file or uuidkitd (`UUIDKIT_DAEMON`, `UUIDKIT_STATE`, the default state file) it is a
/// usage error naming that setting and `--no-state`, with no UUID written; with
/// `--no-state`, or where `gen v1` would use neither, it runs.
#[test]
fn gen_v1_shards_refuses_the_state_it_would_go_without() {
    let home = std::env::temp_dir().join(format!("uuidkit-shards-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let shards = ["gen", "v1", "--shards", "2", "-n", "10"];
    let refused = |c: &mut assert_cmd::Command| -> String {
        let out = c.args(shards).assert().code(2).get_output().clone();
        assert!(out.stdout.is_empty(), "UUIDs written before the refusal");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("--shards does not go with")
                && err.contains("keep their state in memory")
                && err.contains("give --no-state to generate in memory"),
            "{err}"
        );
        err
    };
    // UUIDKIT_STATE (command_common sets it to the test's own file).
    let err = refused(&mut uuidkit());
    let state = test_state();
    assert!(
        err.contains(&format!("UUIDKIT_STATE={} (a state file)", state.display())),
        "{err}"
    );
    // UUIDKIT_DAEMON: refused before the daemon is asked (none listens there).
    let err = refused(uuidkit().env("UUIDKIT_DAEMON", "/nonexistent/uuidkitd.sock"));
    assert!(
        err.contains("UUIDKIT_DAEMON=/nonexistent/uuidkitd.sock (uuidkitd)"),
        "{err}"
    );
    // The default state file, under $XDG_STATE_HOME or else $HOME.
    let err = refused(
        uuidkit()
            .env_remove("UUIDKIT_STATE")
            .env("XDG_STATE_HOME", home.join("xdg")),
    );
    let xdg = home.join("xdg/uuidkit/state");
    assert!(
        err.contains(&format!("the default state file {}", xdg.display())),
        "{err}"
    );
    let err = refused(
        uuidkit()
            .env_remove("UUIDKIT_STATE")
            .env_remove("XDG_STATE_HOME")
            .env("HOME", &home),
    );
    let default = home.join(".local/state/uuidkit/state");
    assert!(
        err.contains(&format!("the default state file {}", default.display())),
        "{err}"
    );
    assert!(!home.exists(), "a refused run touched the state directory");

    // --no-state says to go without: every setting above is then set aside.
    let out = uuidkit()
        .env("UUIDKIT_DAEMON", "/nonexistent/uuidkitd.sock")
        .env("HOME", &home)
        .args(shards)
        .arg("--no-state")
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(lines(&String::from_utf8(out.stdout).unwrap()).len(), 10);
    // Where gen v1 uses neither, nothing is lost: the random node strategy keeps no
    // state, and without UUIDKIT_STATE, XDG_STATE_HOME or HOME there is no file.
    for c in [
        uuidkit().env("UUIDKIT_NODE", "random"),
        uuidkit()
            .env_remove("UUIDKIT_STATE")
            .env_remove("XDG_STATE_HOME")
            .env_remove("HOME"),
    ] {
        let out = c.args(shards).assert().success().get_output().clone();
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(lines(&String::from_utf8(out.stdout).unwrap()).len(), 10);
    }
    assert!(!home.exists());
}

#[test]
fn no_arguments_prints_help_and_exits_2() {
    let out = uuidkit().assert().code(2).get_output().clone();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Usage"), "{text}");
}

#[test]
fn help_reads_like_a_man_page() {
    let out = ok(&["--help"]);
    for word in [
        "gen",
        "inspect",
        "check",
        "convert",
        "EXIT STATUS",
        "UUIDKIT_NODE",
    ] {
        assert!(out.contains(word), "{word}");
    }
    let out = ok(&["gen", "--help"]);
    for word in [
        "--namespace",
        "--time",
        "--clock-seq",
        "--node",
        "--method",
        "--domain",
        "--local-id",
        "RFC 3339",
    ] {
        assert!(out.contains(word), "{word}");
    }
    let out = ok(&["convert", "--help"]);
    assert!(out.contains("unchanged"), "{out}");
    ok(&["inspect", "--help"]);
    ok(&["check", "--help"]);
    ok(&["--version"]);
}

// ---------------------------------------------------------------- gen: output

#[test]
fn broken_pipe_exits_quietly() {
    use std::io::Read;
    use std::process::{Command as Std, Stdio};
    let bin = assert_cmd::cargo::cargo_bin("uuidkit");
    let mut child = Std::new(bin)
        .args(["gen", "v4", "-n", "10000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 37];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(first[36], b'\n');
}

// ---------------------------------------------------------------- inspect

#[test]
fn inspect_json_v1_and_v6() {
    for u in [A1_V1, A5_V6] {
        let j = inspect_json(u);
        assert_eq!(j["uuid"], u);
        assert_eq!(j["variant"], "rfc9562");
        assert_eq!(j["time"], "2022-02-22T19:22:22.0000000Z");
        assert_eq!(j["timestamp"], 138_648_505_420_000_000u64);
        assert_eq!(j["clock_seq"], 13256);
        assert_eq!(j["node"], "9f6bdeced846");
        assert_eq!(j["multicast"], true);
        assert_eq!(j["nil"], false);
        assert!(j.get("hash").is_none());
    }
    assert_eq!(inspect_json(A1_V1)["version"], 1);
    assert_eq!(inspect_json(A5_V6)["version"], 6);
}

#[test]
fn inspect_json_v7() {
    let j = inspect_json(A6_V7);
    assert_eq!(j["version"], 7);
    assert_eq!(j["time"], "2022-02-22T19:22:22.000Z");
    assert_eq!(j["timestamp"], 1_645_557_742_000u64);
    assert!(j.get("clock_seq").is_none() && j.get("node").is_none());
}

#[test]
fn inspect_json_name_based_and_random() {
    let j = inspect_json(A2_V3);
    assert_eq!(
        (j["version"].as_u64(), j["hash"].as_str()),
        (Some(3), Some("md5"))
    );
    let j = inspect_json(A4_V5);
    assert_eq!(
        (j["version"].as_u64(), j["hash"].as_str()),
        (Some(5), Some("sha1"))
    );
    let j = inspect_json(A3_V4);
    assert_eq!(j["version"], 4);
    for k in ["time", "timestamp", "clock_seq", "node", "hash"] {
        assert!(j.get(k).is_none(), "{k}");
    }
    let j = inspect_json(B2_V8);
    assert_eq!(j["version"], 8);
    assert!(j.get("time").is_none());
    assert!(j["custom_a"].is_u64() && j["custom_b"].is_u64() && j["custom_c"].is_u64());
}

#[test]
fn inspect_json_nil_max_and_other_variants() {
    let j = inspect_json(NIL);
    assert_eq!(
        (j["variant"].as_str(), &j["version"], &j["nil"]),
        (Some("ncs"), &Value::Null, &Value::Bool(true))
    );
    let j = inspect_json(MAX);
    assert_eq!(
        (j["variant"].as_str(), &j["version"], &j["max"]),
        (Some("future"), &Value::Null, &Value::Bool(true))
    );
    let j = inspect_json("00000000-0000-4000-c000-000000000000");
    assert_eq!(
        (j["variant"].as_str(), &j["version"]),
        (Some("microsoft"), &Value::Null)
    );
}

#[test]
fn inspect_accepts_every_form_and_prints_canonical() {
    let out = ok(&[
        "inspect",
        "--json",
        "C232AB00-9414-11EC-B3C8-9F6BDECED846",
        "c232ab00941411ecb3c89f6bdeced846",
        "{c232ab00-9414-11ec-b3c8-9f6bdeced846}",
        "URN:UUID:c232ab00-9414-11ec-b3c8-9f6bdeced846",
    ]);
    let v = json_lines(&out);
    assert_eq!(v.len(), 4);
    assert!(v.iter().all(|j| j["uuid"] == A1_V1));
}

#[test]
fn inspect_text_summary() {
    let out = ok(&["inspect", A1_V1, A6_V7]);
    let blocks: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{out}");
    assert!(blocks[0].contains("time:") && blocks[0].contains("2022-02-22T19:22:22.0000000Z"));
    assert!(blocks[0].contains("clock_seq:") && blocks[0].contains("13256"));
    assert!(blocks[0].contains("node:") && blocks[0].contains("9f6bdeced846"));
    assert!(blocks[1].contains("uuid:") && blocks[1].contains(A6_V7));
    assert!(blocks[1].contains("2022-02-22T19:22:22.000Z"));
}

#[test]
fn inspect_reports_invalid_and_goes_on() {
    let out = uuidkit()
        .args(["inspect", "--json", "nope", A6_V7])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("\"nope\" (argument 1)") && err.contains("at byte 0"),
        "{err}"
    );
    assert_eq!(json_lines(&String::from_utf8(out.stdout).unwrap()).len(), 1);
}

#[test]
fn inspect_reads_stdin() {
    let out = uuidkit()
        .args(["inspect", "--json"])
        .write_stdin(format!("{A1_V1}\r\n{A6_V7}\n"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_lines(&String::from_utf8(out).unwrap());
    assert_eq!(v.len(), 2);
    assert_eq!(v[1]["uuid"], A6_V7);
}

/// The keys of the blocks of `inspect --help` that follow a line ending in `intro`: each
/// entry line is two spaces, then one or more keys (`a, b`), then two spaces and what
/// they hold (or that on the lines below, indented further). The block ends at the
/// first line that is not an entry or its continuation.
fn help_keys(help: &str, intro: &str) -> HashSet<String> {
    let mut lines = help.lines().skip_while(|l| !l.ends_with(intro));
    assert!(
        lines.next().is_some(),
        "no line ending in {intro:?} in:\n{help}"
    );
    let mut keys = HashSet::new();
    for line in lines {
        if line.starts_with("   ") {
            continue; // what the entry above holds, continued
        }
        let Some(entry) = line.strip_prefix("  ") else {
            break;
        };
        let names = entry.split("  ").next().unwrap_or_default().trim();
        for key in names.split(", ") {
            assert!(
                !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{key:?} in {line:?} is not a key"
            );
            assert!(keys.insert(key.to_string()), "{key} listed twice");
        }
    }
    keys
}

/// The keys of every JSON object `inspect --json EXTRA UUIDS` writes, all together.
fn json_keys(extra: &[&str], uuids: &[&str]) -> (HashSet<String>, Vec<Value>) {
    let mut args = vec!["inspect", "--json"];
    args.extend_from_slice(extra);
    args.extend_from_slice(uuids);
    let lines = json_lines(&ok(&args));
    assert_eq!(lines.len(), uuids.len());
    let keys = lines
        .iter()
        .flat_map(|l| l.as_object().unwrap().keys().cloned())
        .collect();
    (keys, lines)
}

/// `inspect --help` lists exactly the keys `inspect --json` writes: every key of the
/// output over UUIDs of every version and variant is in the list, and every key in the
/// list is in some output; the same for the keys `--layout` adds.
#[test]
fn inspect_help_lists_exactly_the_json_keys() {
    let help = ok(&["inspect", "--help"]);
    let v2 = ok(&[
        "gen",
        "v2",
        "--time",
        RFC_TIME,
        "--local-id",
        "1000",
        "--node",
        "9F:6B:DE:CE:D8:46",
    ]);
    let uuids = [
        NIL,
        MAX,
        A1_V1,
        v2.trim(),
        A2_V3,
        A3_V4,
        A4_V5,
        A5_V6,
        A6_V7,
        B2_V8,
        // No version in the other variants; an unassigned version in RFC 9562's.
        "919108f7-52d1-4320-1bac-f847db4148a8",
        "919108f7-52d1-4320-cbac-f847db4148a8",
        "919108f7-52d1-4320-ebac-f847db4148a8",
        "919108f7-52d1-9320-9bac-f847db4148a8",
    ];
    let (plain, lines) = json_keys(&[], &uuids);
    let listed = help_keys(&help, "a UUID has the keys that apply to it:");
    let mut missing: Vec<_> = plain.difference(&listed).collect();
    let mut extra: Vec<_> = listed.difference(&plain).collect();
    missing.sort();
    extra.sort();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "inspect --help misses {missing:?} and lists {extra:?}, which no output has"
    );
    // The names inside `fields`, which the help spells out.
    for line in &lines {
        for name in line["fields"].as_object().unwrap().keys() {
            assert!(help.contains(name.as_str()), "help lacks fields.{name}");
        }
    }

    // --layout: the keys it adds to those above.
    let draft = "0621537e-e1f9-8ad0-8000-5632429295da";
    let mut with_layout = HashSet::new();
    for layout in ["draft-v7-ms", "draft-v7-us", "draft-v8-48", "draft-v8-60"] {
        for bits in [None, Some("8")] {
            let mut extra = vec!["--layout", layout];
            if let Some(b) = bits {
                extra.extend(["--machine-id-bits", b]);
            }
            with_layout.extend(json_keys(&extra, &[draft]).0);
        }
    }
    let added: HashSet<String> = with_layout.difference(&plain).cloned().collect();
    let listed = help_keys(&help, "and --json adds the keys:");
    assert_eq!(
        added, listed,
        "the keys --layout adds, and those its help lists"
    );
}

// ---------------------------------------------------------------- check

#[test]
fn check_accepts_every_valid_form_in_both_cases() {
    let h = A1_V1;
    let simple = h.replace('-', "");
    let forms = [
        h.to_string(),
        simple.clone(),
        format!("{{{h}}}"),
        format!("urn:uuid:{h}"),
        "urn:UUID:c232ab00-9414-11ec-b3c8-9f6bdeced846".to_string(),
        "Urn:Uuid:C232ab00-9414-11ec-B3C8-9f6bdeced846".to_string(),
    ];
    let mut all: Vec<String> = Vec::new();
    for f in &forms {
        all.push(f.clone());
        all.push(f.to_uppercase());
        all.push(f.to_lowercase());
    }
    let args: Vec<&str> = std::iter::once("check")
        .chain(all.iter().map(String::as_str))
        .collect();
    uuidkit()
        .args(&args)
        .assert()
        .success()
        .stdout("")
        .stderr("");
    uuidkit().args(["check", NIL, MAX]).assert().success();
}

#[test]
fn check_rejects_malformed_with_byte_position() {
    let h = A1_V1;
    let simple = h.replace('-', "");
    let bad: Vec<(String, usize)> = vec![
        (String::new(), 0),
        (format!(" {h}"), 0),
        (format!("{h} "), 36),
        (format!("\t{h}"), 0),
        (format!("0x{simple}"), 1),
        (format!("{{{simple}}}"), 9),
        (format!("urn:uuid:{{{h}}}"), 9),
        ("c232ab00-9414-11ec-b3c8-9f6bdeced84\u{e9}".to_string(), 35),
        ("\u{ff10}232ab00-9414-11ec-b3c8-9f6bdeced846".to_string(), 0),
        (h[..35].to_string(), 35),
        (format!("{h}0"), 36),
        (simple[..31].to_string(), 31),
        (format!("{simple}0"), 32),
        ("c232ab00_9414-11ec-b3c8-9f6bdeced846".to_string(), 8),
        ("c232ab00-9414-11ec-b3c89f6bdeced846".to_string(), 23),
        ("c232-ab00-9414-11ec-b3c8-9f6bdeced846".to_string(), 4),
        ("c232ab00-9414-11ec-b3c8-9f6bdeced84g".to_string(), 35),
        (format!("{{{h}"), 37),
        (format!("{{{h}}}}}"), 38),
        (format!("urn:uid:{h}"), 5),
        ("urn:uuid:".to_string(), 9),
        ("xyz".to_string(), 0),
        ("{}".to_string(), 1),
    ];
    for (input, at) in &bad {
        let err = fails(&["check", "--", input], 1);
        assert!(err.contains(&format!("at byte {at}:")), "{input:?}: {err}");
        assert!(err.contains("(argument 1)"), "{input:?}: {err}");
        assert!(err.contains("expected"), "{input:?}: {err}");
    }
}

#[test]
fn check_reports_every_bad_input() {
    let err = fails(&["check", A1_V1, "xyz", A6_V7, "", "0x00"], 1);
    assert!(
        err.contains("uuidkit: invalid UUID \"xyz\" (argument 2): at byte 0: expected"),
        "{err}"
    );
    assert!(err.contains("\"\" (argument 4): at byte 0"), "{err}");
    assert!(err.contains("\"0x00\" (argument 5): at byte 1"), "{err}");
    assert_eq!(err.lines().count(), 3, "{err}");
}

#[test]
fn check_reads_stdin_lines() {
    uuidkit()
        .arg("check")
        .write_stdin(format!("{A1_V1}\n{A6_V7}\r\n{NIL}"))
        .assert()
        .success()
        .stderr("");
    uuidkit().arg("check").write_stdin("").assert().success();
    let out = uuidkit()
        .arg("check")
        .write_stdin(format!("{A1_V1}\r\n{A6_V7} \n\n{A6_V7}\r\r\nxyz\n{MAX}\n"))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(line 2): at byte 36"), "{err}");
    assert!(err.contains("\"\" (line 3): at byte 0"), "{err}");
    assert!(err.contains("(line 4): at byte 36"), "{err}");
    assert!(err.contains("\"xyz\" (line 5): at byte 0"), "{err}");
    assert_eq!(err.lines().count(), 4, "{err}");
}

#[test]
fn check_non_utf8_stdin_reports_the_byte() {
    let mut input = A1_V1.as_bytes().to_vec();
    input[10] = 0xff;
    input.push(b'\n');
    let out = uuidkit()
        .arg("check")
        .write_stdin(input)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(line 1): at byte 10"), "{err}");
    assert!(err.contains("0xff"), "{err}");
    assert!(!err.to_lowercase().contains("utf-8"), "{err}");
}

#[test]
fn check_non_utf8_argument_reports_the_byte() {
    use std::os::unix::ffi::OsStrExt;
    let mut input = A1_V1.as_bytes().to_vec();
    input[3] = 0xfe;
    let out = uuidkit()
        .arg("check")
        .arg(std::ffi::OsStr::from_bytes(&input))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(argument 1): at byte 3"), "{err}");
}

// ---------------------------------------------------------------- convert

#[test]
fn convert_both_ways() {
    assert_eq!(ok(&["convert", "--to", "v6", A1_V1]), format!("{A5_V6}\n"));
    assert_eq!(ok(&["convert", "--to", "v1", A5_V6]), format!("{A1_V1}\n"));
    // Any accepted form in, canonical out.
    assert_eq!(
        ok(&[
            "convert",
            "--to",
            "v6",
            "{C232AB00-9414-11EC-B3C8-9F6BDECED846}"
        ]),
        format!("{A5_V6}\n")
    );
    // Already the target version: unchanged.
    assert_eq!(ok(&["convert", "--to", "v6", A5_V6]), format!("{A5_V6}\n"));
    assert_eq!(ok(&["convert", "--to", "v1", A1_V1]), format!("{A1_V1}\n"));
    // Round trip of generated UUIDs.
    let v1s = ok(&["gen", "v1", "-n", "5"]);
    let v6s = uuidkit()
        .args(["convert", "--to", "v6"])
        .write_stdin(v1s.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let back = uuidkit()
        .args(["convert", "--to", "v1"])
        .write_stdin(v6s)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(back).unwrap(), v1s);
}

#[test]
fn convert_refuses_other_versions() {
    let out = uuidkit()
        .args(["convert", "--to", "v6", A3_V4, A1_V1, NIL, "bad"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(A3_V4) && err.contains("(argument 1)") && err.contains("version 4"),
        "{err}"
    );
    assert!(err.contains("(argument 3)"), "{err}");
    assert!(err.contains("\"bad\" (argument 4): at byte"), "{err}");
    assert!(!err.contains("panicked"));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{A5_V6}\n"));
    let err = fails(&["convert", "--to", "v1", A6_V7], 1);
    assert!(err.contains("version 7"), "{err}");
}

#[test]
fn convert_stdin_names_the_line() {
    let out = uuidkit()
        .args(["convert", "--to", "v6"])
        .write_stdin(format!("{A1_V1}\r\n{A6_V7}\n"))
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{A5_V6}\n"));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(line 2)"), "{err}");
}

#[test]
fn convert_usage_errors() {
    fails(&["convert", A1_V1], 2);
    fails(&["convert", "--to", "v7", A1_V1], 2);
}

/// One run of `-n 1000000`: a million distinct UUIDs, strictly increasing for v6, v7 and
/// v8, with non-decreasing timestamps for v1.
#[test]
fn gen_a_million_time_based() {
    for (version, method) in [
        ("v1", None),
        ("v6", None),
        ("v7", Some("counter")),
        ("v7", Some("random")),
        ("v7", Some("precision")),
        ("v8", None),
    ] {
        let mut args = vec!["gen", version, "-n", "1000000"];
        if let Some(m) = method {
            args.extend(["--method", m]);
        }
        let out = ok(&args);
        let uuids: Vec<uuidkit::Uuid> = out.lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(uuids.len(), 1_000_000, "{args:?}");
        let distinct: HashSet<_> = uuids.iter().collect();
        assert_eq!(distinct.len(), 1_000_000, "{args:?}: duplicates");
        if version == "v1" {
            let ts: Vec<u64> = uuids.iter().map(|u| u.timestamp().unwrap().raw()).collect();
            assert!(
                ts.windows(2).all(|w| w[0] <= w[1]),
                "v1 timestamps decreased"
            );
        } else {
            assert!(
                uuids.windows(2).all(|w| w[0] < w[1]),
                "{args:?}: not increasing"
            );
        }
    }
}

/// Processes running side by side never collide: four `uuidkit gen` processes at once,
/// for each time-based version (and v4), give only distinct UUIDs between them.
#[test]
fn processes_side_by_side_never_collide() {
    for version in ["v1", "v4", "v6", "v7", "v8"] {
        let children: Vec<_> = (0..4)
            .map(|_| {
                std::process::Command::new(env!("CARGO_BIN_EXE_uuidkit"))
                    .args(["gen", version, "-n", "200000"])
                    .env_remove("UUIDKIT_NODE")
                    .stdout(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut all = HashSet::new();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success());
            for line in String::from_utf8(out.stdout).unwrap().lines() {
                assert!(
                    all.insert(line.to_string()),
                    "{version}: {line} from two processes"
                );
            }
        }
        assert_eq!(all.len(), 800_000, "{version}");
    }
}

// ---------------------------------------------------------------- --time and -n

#[test]
fn gen_time_range_error_quotes_the_input_and_names_the_count() {
    let last = "5236-03-31T21:21:00.6846975Z";
    for v in ["v1", "v2", "v6"] {
        let with_count = |n| {
            let mut args = vec!["gen", v, "--time", last, "-n", n];
            if v == "v2" {
                args.extend(["--local-id", "1"]);
            }
            args
        };
        let err = fails(&with_count("2"), 2);
        assert!(
            err.contains(&format!(
                "--time {last} with -n 2: the last UUID would need a timestamp after {last}, \
                 the end of the Gregorian range"
            )),
            "{err}"
        );
        assert!(err.contains("-n can be at most 1"), "{err}");
        assert!(!err.contains("684697600Z"), "{err}");
        assert_eq!(lines(&ok(&with_count("1"))).len(), 1);
    }
    // An instant out of range by itself is still the value's fault.
    let err = fails(&["gen", "v6", "--time", "5236-04-01T00:00:00Z"], 2);
    assert!(
        err.contains("invalid value '5236-04-01T00:00:00Z' for '--time <RFC3339>'"),
        "{err}"
    );
    assert!(!err.contains("-n"), "{err}");
}

#[test]
fn gen_count_is_decimal_or_hex_and_never_negative() {
    assert_eq!(lines(&ok(&["gen", "v4", "-n", "0x10"])).len(), 16);
    assert_eq!(lines(&ok(&["gen", "v4", "--count", "0X3"])).len(), 3);
    assert_eq!(ok(&["gen", "v4", "-n", "0"]), "");
    for n in ["-1", "-0x1", "-5"] {
        let err = fails(&["gen", "v4", "-n", n], 2);
        assert!(
            err.contains(&format!("invalid value '{n}' for '--count <N>'")),
            "{err}"
        );
        assert!(err.contains("from 0 to 2^64-1"), "{err}");
        assert!(!err.contains("tip") && !err.contains("'-- "), "{err}");
    }
    for n in ["0x", "1e3", "+1", "18446744073709551616", "--upper"] {
        let err = fails(&["gen", "v4", "-n", n], 2);
        assert!(err.contains("--count"), "{n}: {err}");
    }
}

#[test]
fn gen_missing_name_based_flags_read_cleanly() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["gen", "v8", "--namespace", "@dns"],
            "error: the name-based gen v8 needs --name NAME\n",
        ),
        (
            &["gen", "v5", "--namespace", "@dns"],
            "error: gen v5 needs --name NAME\n",
        ),
        (
            &["gen", "v3", "--name", "x"],
            "error: gen v3 needs --namespace NS (@dns, @url, @oid, @x500 or a UUID)\n",
        ),
        (
            &["gen", "v5"],
            "error: gen v5 needs --namespace NS and --name NAME (NS is @dns, @url, @oid, \
             @x500 or a UUID)\n",
        ),
    ];
    for (args, first_line) in cases {
        let err = fails(args, 2);
        assert!(err.starts_with(first_line), "{args:?}: {err}");
    }
}

#[test]
fn inspect_help_states_the_version_numbers_it_prints() {
    // The RFC 9562 variant with version field 0.
    let u = "f47ac10b-58cc-0372-8567-0e02b2c3d479";
    let j = inspect_json(u);
    assert_eq!(
        (j["variant"].as_str(), j["version"].as_u64()),
        (Some("rfc9562"), Some(0))
    );
    assert!(ok(&["inspect", u]).contains("version:   0 (unassigned)"));
    let j = inspect_json("f47ac10b-58cc-f372-8567-0e02b2c3d479");
    assert_eq!(j["version"], 15);
    let help = ok(&["inspect", "--help"]);
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("version "))
        .unwrap();
    assert!(line.contains("0-15"), "{line}");
    assert!(help.contains("null in the other variants"), "{help}");
}

// ---------------------------------------------------------------- lost output

/// The path of the binary under test, for runs through `sh`.
fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("uuidkit")
}

/// Runs `script` with `sh -c`, the binary's path as `$0`; returns the exit status and
/// standard error.
fn sh(script: &str) -> (Option<i32>, String) {
    let out = std::process::Command::new("sh")
        .env("UUIDKIT_STATE", test_state())
        .arg("-c")
        .arg(script)
        .arg(bin())
        .env_remove("UUIDKIT_NODE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{script}: {err}");
    (out.status.code(), err)
}

#[test]
fn closed_standard_output_is_an_error() {
    for args in [
        "gen v4 -n 100000",
        "gen v7",
        &format!("inspect {A1_V1}"),
        &format!("inspect --json {A1_V1}"),
        &format!("convert --to v6 {A1_V1}"),
        "--help",
        "gen --help",
        "--version",
    ] {
        let (code, err) = sh(&format!("\"$0\" {args} >&-"));
        assert_eq!(code, Some(1), "{args}: {err}");
        assert_eq!(
            err, "uuidkit: writing standard output: Bad file descriptor (os error 9)\n",
            "{args}"
        );
    }
    // Standard output is not needed to check UUIDs.
    assert_eq!(
        sh(&format!("\"$0\" check {A1_V1} >&-")),
        (Some(0), String::new())
    );
}

#[test]
fn full_standard_output_is_an_error() {
    for args in [
        &["gen", "v4", "-n", "100000"][..],
        &["inspect", A1_V1],
        &["convert", "--to", "v1", A5_V6],
        &["--help"],
        &["inspect", "--help"],
        &["--version"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(bin())
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err, "uuidkit: writing standard output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

#[test]
fn closed_standard_input_is_an_error() {
    for command in ["check", "inspect", "convert --to v6"] {
        let (code, err) = sh(&format!("\"$0\" {command} <&-"));
        assert_eq!(code, Some(1), "{command}: {err}");
        assert_eq!(
            err, "uuidkit: reading standard input: Bad file descriptor (os error 9)\n",
            "{command}"
        );
    }
    // With UUID arguments standard input is not read.
    assert_eq!(
        sh(&format!("\"$0\" check {A1_V1} <&-")),
        (Some(0), String::new())
    );
}

#[test]
fn help_into_a_closed_pipe_exits_quietly() {
    let (code, err) = sh("\"$0\" --help | head -c 1 >/dev/null; \"$0\" gen --help | true");
    assert_eq!((code, err.as_str()), (Some(0), ""));
}

// ---------------------------------------------------------------- long inputs

#[test]
fn check_long_line_is_quoted_as_an_excerpt_with_its_length() {
    let out = uuidkit()
        .arg("check")
        .write_stdin(vec![b'a'; 50_000_000])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.len() < 1024, "{} bytes: {}", err.len(), &err[..1024]);
    let a48 = "a".repeat(48);
    assert_eq!(
        err,
        format!(
            "uuidkit: invalid UUID \"{a48}\"… (line 1, 50000000 bytes): at byte 32: expected \
             the end of the input, found 'a' (the input is 50000000 bytes; a UUID is 32, 36, \
             38 or 45)\n"
        )
    );
}

#[test]
fn check_long_lines_between_valid_ones_keep_their_numbers_and_line_ends() {
    let long = format!("{A1_V1}{}", "0".repeat(200_000));
    let input = format!(
        "{A1_V1}\n{long}\r\n{A6_V7}\r\n{}\n{NIL}",
        "x".repeat(70_000)
    );
    let out = uuidkit()
        .arg("check")
        .write_stdin(input)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.contains("(line 2, 200036 bytes): at byte 36: expected the end of the input"),
        "{err}"
    );
    assert!(err.contains("the input is 200036 bytes"), "{err}");
    assert!(err.contains("(line 4, 70000 bytes): at byte 0:"), "{err}");
}

#[test]
fn check_long_argument_is_quoted_as_an_excerpt() {
    use std::os::unix::ffi::OsStrExt;
    let arg = vec![0xffu8; 100_000];
    let out = uuidkit()
        .arg("check")
        .arg(std::ffi::OsStr::from_bytes(&arg))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.len() < 1024, "{} bytes", err.len());
    assert!(
        err.contains(&format!(
            "\"{}\"… (argument 1, 100000 bytes): at byte 0",
            "\\xff".repeat(48)
        )),
        "{err}"
    );
}

/// Reading a line longer than the memory allowed must not need to keep it: under a
/// 200 MB address-space limit, a 300 MB line is still reported (not an allocation
/// failure).
#[test]
fn check_reads_a_long_line_in_bounded_memory() {
    let (code, err) =
        sh("ulimit -v 200000 && head -c 300000000 /dev/zero | \"$0\" check; echo \"exit $?\" >&2");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.ends_with(
            "(line 1, 300000000 bytes): at byte 0: expected a hex digit (0-9, a-f, \
                       A-F), found the control byte 0x00\nexit 1\n"
        ),
        "{err}"
    );
}

/// Runs `uuidkit ARGS` with `stdin` as its standard input and standard error in a file;
/// returns the exit status, the standard error and how many `write` calls the process
/// made (from /proc, read after it exits and before it is reaped).
#[cfg(target_os = "linux")]
fn writes_of(args: &[&str], stdin: &[u8]) -> (Option<i32>, String, u64) {
    use std::process::{Command as Std, Stdio};
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let name = format!("writes-{}-{}", std::process::id(), args.join("-"));
    let (input, errors) = (
        dir.join(format!("{name}.in")),
        dir.join(format!("{name}.err")),
    );
    std::fs::write(&input, stdin).unwrap();
    let mut child = Std::new(bin())
        .args(args)
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&errors).unwrap())
        .spawn()
        .unwrap();
    let proc = std::path::PathBuf::from(format!("/proc/{}", child.id()));
    // Until it is reaped, an exited process keeps its counters.
    loop {
        let stat = std::fs::read_to_string(proc.join("stat")).unwrap();
        let state = stat.rsplit(')').next().unwrap().trim_start();
        if state.starts_with('Z') {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let io = std::fs::read_to_string(proc.join("io")).unwrap();
    let syscw = io
        .lines()
        .find_map(|l| l.strip_prefix("syscw: "))
        .unwrap()
        .parse()
        .unwrap();
    let status = child.wait().unwrap();
    let err = std::fs::read_to_string(&errors).unwrap();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&errors);
    (status.code(), err, syscw)
}

/// Error messages are buffered: 100,000 invalid lines are 100,000 messages in a few
/// hundred writes, not one write or more each.
#[cfg(target_os = "linux")]
#[test]
fn check_buffers_its_error_messages() {
    let (code, err, writes) = writes_of(&["check"], &[b'\n'; 100_000]);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 100_000);
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("uuidkit: invalid UUID \"\" (line 100000): at byte 0"),
        "{}",
        err.lines().last().unwrap()
    );
    assert!(writes < 1_000, "{writes} writes");
    // One long non-UTF-8 line: one short message, a write or two.
    let mut line = vec![0xfeu8; 100_000];
    line.push(b'\n');
    let (code, err, writes) = writes_of(&["check"], &line);
    assert_eq!(code, Some(1));
    assert!(err.len() < 1024, "{err}");
    assert!(writes < 10, "{writes} writes");
}
