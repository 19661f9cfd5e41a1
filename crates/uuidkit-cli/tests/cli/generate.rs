//! `uuidkit gen`: the RFC vectors, every version, format and option, its usage errors,
//! its output, a million at once and processes side by side, `--time` and `-n`.

use super::*;

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
