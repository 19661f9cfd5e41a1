//! End-to-end tests of the options beyond RFC 9562's versions: `gen v8 --layout`,
//! `--machine-id`, raw `--custom-a/-b/-c`, numeric `--domain`, `--name-hex`,
//! `--name-file`, `gen v1 --shards`, and `inspect --layout`.

use std::collections::HashSet;

use crate::command_common;

use command_common::uuidkit;
use serde_json::Value;

const TIME: &str = "2022-02-22T19:22:22.123456789Z";
const DRAFTS: [&str; 7] = [
    "draft-v7-ms",
    "draft-v7-us",
    "draft-v7-ns",
    "draft-v8-32",
    "draft-v8-48",
    "draft-v8-60",
    "draft-v8-64",
];

fn ok(args: &[&str]) -> String {
    let out = uuidkit().args(args).assert().success().get_output().clone();
    assert!(
        out.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs, expects exit status `code`, returns stderr.
fn fails(args: &[&str], code: i32) -> String {
    let out = uuidkit()
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty(), "no output on failure: {args:?}");
    String::from_utf8(out.stderr).unwrap()
}

fn inspect(layout: &str, extra: &[&str], uuids: &str) -> Vec<Value> {
    let mut args = vec!["inspect", "--json", "--layout", layout];
    args.extend_from_slice(extra);
    let out = uuidkit()
        .args(&args)
        .write_stdin(uuids)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_layout_with_time_reads_back_at_its_precision() {
    let expected = [
        ("b1", "2022-02-22T19:22:22.12345678Z"),
        ("draft-v7-ms", "2022-02-22T19:22:22.123Z"),
        ("draft-v7-us", "2022-02-22T19:22:22.123456Z"),
        ("draft-v7-ns", "2022-02-22T19:22:22.123456789Z"),
        ("draft-v8-32", "2022-02-22T19:22:22Z"),
        ("draft-v8-48", "2022-02-22T19:22:22.123Z"),
        ("draft-v8-60", "2022-02-22T19:22:22.1234567Z"),
        // 16 ns units: 123456789 ns rounded down to a multiple of 16.
        ("draft-v8-64", "2022-02-22T19:22:22.123456784Z"),
    ];
    for (layout, time) in expected {
        let out = ok(&["gen", "v8", "--layout", layout, "--time", TIME, "-n", "3"]);
        let read = inspect(layout, &[], &out);
        assert_eq!(read.len(), 3);
        for (i, j) in read.iter().enumerate() {
            assert_eq!(j["version"], 8, "{layout}");
            assert_eq!(j["layout"], layout);
            assert_eq!(j["time"], time, "{layout}");
            if layout != "b1" {
                assert_eq!(j["sequence"], i as u64, "{layout}: 0, 1, 2 in one unit");
            }
        }
    }
}

#[test]
fn default_v8_layout_is_b1_or_b2_as_before() {
    let a = ok(&["gen", "v8", "--time", TIME]);
    let b = ok(&["gen", "v8", "--layout", "b1", "--time", TIME]);
    assert_eq!(a[..18], b[..18], "same timestamp field either way");
    let named = ok(&[
        "gen",
        "v8",
        "--namespace",
        "@dns",
        "--name",
        "www.example.com",
    ]);
    let b2 = ok(&[
        "gen",
        "v8",
        "--layout",
        "b2",
        "--namespace",
        "@dns",
        "--name",
        "www.example.com",
    ]);
    assert_eq!(named, b2);
    assert_eq!(named.trim(), "5c146b14-3c52-8afd-938a-375d0df1fbf6");
}

#[test]
fn draft_layouts_live_are_increasing_and_distinct() {
    for layout in DRAFTS {
        let out = ok(&["gen", "v8", "--layout", layout, "-n", "5000", "--no-state"]);
        let uuids: Vec<&str> = out.lines().collect();
        assert_eq!(uuids.len(), 5000);
        assert!(uuids.windows(2).all(|w| w[0] < w[1]), "{layout}: in order");
    }
    // With the state file: two runs, the second above the first.
    let first = ok(&["gen", "v8", "--layout", "draft-v8-48", "-n", "100"]);
    let second = ok(&["gen", "v8", "--layout", "draft-v8-48", "-n", "100"]);
    assert!(second.lines().next().unwrap() > first.lines().last().unwrap());
}

#[test]
fn inspect_layout_reads_draft_v7_shipped_as_version_7() {
    // 2022-02-22T19:22:22.123456Z at microsecond precision, version nibble 7.
    let read = inspect("draft-v7-us", &[], "0621537e-e1f9-7ad0-8000-5632429295da\n");
    assert_eq!(read[0]["version"], 7);
    assert_eq!(read[0]["time"], "2022-02-22T19:22:22.123456Z");
    assert_eq!(read[0]["timestamp"], 1_645_557_742_123_456u64);
    assert_eq!(read[0]["sequence"], 0);
    assert_eq!(read[0]["random"], "5632429295da");
    // Without --layout, inspect reads it as RFC 9562 v7: a time in 2183.
    let out = ok(&["inspect", "--json", "0621537e-e1f9-7ad0-8000-5632429295da"]);
    assert!(out.contains("\"time\":\"2183-"), "{out}");
}

#[test]
fn inspect_layout_of_another_version_is_an_error() {
    let out = uuidkit()
        .args([
            "inspect",
            "--json",
            "--layout",
            "draft-v8-48",
            "919108f7-52d1-4320-9bac-f847db4148a8",
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("cannot be read as layout draft-v8-48") && err.contains("version 4"),
        "{err}"
    );
    let e = fails(&["inspect", "--layout", "draft-v9", "x"], 2);
    assert!(
        e.contains("unknown layout") && e.contains("draft-v8-64"),
        "{e}"
    );
    let e = fails(&["inspect", "--machine-id-bits", "4", "x"], 2);
    assert!(e.contains("--layout"), "{e}");
}

#[test]
fn machine_id_for_draft_layouts_and_v7() {
    for layout in DRAFTS {
        let out = ok(&[
            "gen",
            "v8",
            "--layout",
            layout,
            "--machine-id",
            "0x2a5",
            "--machine-id-bits",
            "10",
            "-n",
            "50",
            "--no-state",
        ]);
        for j in inspect(layout, &["--machine-id-bits", "10"], &out) {
            assert_eq!(j["machine_id"], 0x2a5, "{layout}");
        }
    }
    let out = ok(&[
        "gen",
        "v7",
        "--machine-id",
        "4660",
        "--machine-id-bits",
        "16",
        "-n",
        "100",
        "--no-state",
    ]);
    let uuids: Vec<&str> = out.lines().collect();
    assert!(uuids.windows(2).all(|w| w[0] < w[1]));
    for u in uuids {
        // rand_b's last 32 bits: the ID first.
        assert_eq!(&u[28..32], "1234", "{u}");
    }
    // hash: the same on every run on this host.
    let a = ok(&[
        "gen",
        "v8",
        "--layout",
        "draft-v8-32",
        "--machine-id",
        "hash",
        "--no-state",
    ]);
    let b = ok(&[
        "gen",
        "v8",
        "--layout",
        "draft-v8-32",
        "--machine-id",
        "hash",
        "--no-state",
    ]);
    let id =
        |s: &str| inspect("draft-v8-32", &["--machine-id-bits", "16"], s)[0]["machine_id"].clone();
    assert_eq!(id(&a), id(&b));
}

#[test]
fn machine_id_errors_name_the_option() {
    let e = fails(&["gen", "v7", "--machine-id", "5"], 2);
    assert!(e.contains("--machine-id-bits"), "{e}");
    let e = fails(
        &[
            "gen",
            "v7",
            "--machine-id",
            "1024",
            "--machine-id-bits",
            "10",
        ],
        2,
    );
    assert!(
        e.contains("--machine-id") && e.contains("does not fit in 10 bits"),
        "{e}"
    );
    let e = fails(
        &["gen", "v7", "--machine-id", "1", "--machine-id-bits", "32"],
        2,
    );
    assert!(e.contains("at most 31 bits"), "{e}");
    // Method 2 takes one too: in the last B bits, below its random increments.
    let uuids: Vec<u128> = ok(&[
        "gen",
        "v7",
        "--machine-id",
        "9",
        "--machine-id-bits",
        "4",
        "--method",
        "random",
        "-n",
        "1000",
        "--no-state",
    ])
    .lines()
    .map(|l| u128::from_str_radix(&l.replace('-', ""), 16).unwrap())
    .collect();
    assert_eq!(uuids.len(), 1000);
    assert!(uuids.iter().all(|u| u & 0xf == 9));
    assert!(uuids.windows(2).all(|w| w[0] < w[1]));
    let e = fails(
        &["gen", "v8", "--machine-id", "1", "--machine-id-bits", "4"],
        2,
    );
    assert!(e.contains("--layout draft-"), "{e}");
    let e = fails(
        &["gen", "v4", "--machine-id", "1", "--machine-id-bits", "4"],
        2,
    );
    assert!(e.contains("does not apply to gen v4"), "{e}");
    let e = fails(
        &["gen", "v7", "--machine-id", "x", "--machine-id-bits", "4"],
        2,
    );
    assert!(e.contains("--machine-id"), "{e}");
    let e = fails(
        &["gen", "v7", "--machine-id", "1", "--machine-id-bits", "65"],
        2,
    );
    assert!(
        e.contains("--machine-id-bits") && e.contains("1 to 64"),
        "{e}"
    );
    let e = fails(
        &[
            "gen",
            "v8",
            "--layout",
            "draft-v8-60",
            "--machine-id",
            "1",
            "--machine-id-bits",
            "54",
        ],
        2,
    );
    assert!(e.contains("at most 53 bits"), "{e}");
}

#[test]
fn layout_errors() {
    let e = fails(&["gen", "v8", "--layout", "b2"], 2);
    assert!(e.contains("--layout b2 needs --namespace"), "{e}");
    let e = fails(
        &[
            "gen",
            "v8",
            "--layout",
            "draft-v8-48",
            "--namespace",
            "@dns",
            "--name",
            "x",
        ],
        2,
    );
    assert!(e.contains("only b2 is name-based"), "{e}");
    let e = fails(&["gen", "v7", "--layout", "b1"], 2);
    assert!(e.contains("--layout does not apply to gen v7"), "{e}");
    let e = fails(
        &[
            "gen",
            "v8",
            "--layout",
            "draft-v8-32",
            "--time",
            "2106-02-08T00:00:00Z",
        ],
        2,
    );
    assert!(e.contains("--time") && e.contains("draft-v8-32"), "{e}");
    // draft-v8-60 reaches back to 1582, which b1 cannot.
    ok(&[
        "gen",
        "v8",
        "--layout",
        "draft-v8-60",
        "--time",
        "1600-01-01T00:00:00Z",
    ]);
    let e = fails(&["gen", "v8", "--layout", "nope"], 2);
    assert!(e.contains("unknown layout \"nope\""), "{e}");
}

#[test]
fn raw_custom_fields() {
    let out = ok(&[
        "gen",
        "v8",
        "--custom-a",
        "0x2489E9AD2EE2",
        "--custom-b",
        "0xE00",
        "--custom-c",
        "0x0EC932D5F69181C0",
        "-n",
        "2",
    ]);
    assert_eq!(
        out,
        "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0\n2489e9ad-2ee2-8e00-8ec9-32d5f69181c0\n"
    );
    // Missing fields are random, as in Python's uuid8.
    let out = ok(&["gen", "v8", "--custom-a", "0", "-n", "50"]);
    let set: HashSet<&str> = out.lines().collect();
    assert_eq!(set.len(), 50);
    assert!(out.lines().all(|l| l.starts_with("00000000-0000-8")));
    for (flag, value, width) in [
        ("--custom-a", "0x1000000000000", "48 bits"),
        ("--custom-b", "4096", "12 bits"),
        ("--custom-c", "0x4000000000000000", "62 bits"),
        ("--custom-a", "-1", "decimal"),
    ] {
        let e = fails(&["gen", "v8", flag, value], 2);
        assert!(e.contains(flag) && e.contains(width), "{flag} {value}: {e}");
    }
    let e = fails(&["gen", "v8", "--custom-a", "1", "--layout", "b1"], 2);
    assert!(
        e.contains("--layout does not apply to gen v8 with --custom"),
        "{e}"
    );
    let e = fails(&["gen", "v8", "--custom-a", "1", "--time", TIME], 2);
    assert!(e.contains("--time does not apply"), "{e}");
    let e = fails(&["gen", "v4", "--custom-b", "1"], 2);
    assert!(e.contains("--custom-b does not apply to gen v4"), "{e}");
}

#[test]
fn numeric_v2_domains() {
    let out = ok(&["gen", "v2", "--domain", "42", "--local-id", "7"]);
    let j: Value = serde_json::from_str(&ok(&["inspect", "--json", out.trim()])).unwrap();
    assert_eq!(
        (j["domain"].clone(), j["local_id"].clone()),
        ("42".into(), 7.into())
    );
    let out = ok(&["gen", "v2", "--domain", "0x01", "--local-id", "7"]);
    let j: Value = serde_json::from_str(&ok(&["inspect", "--json", out.trim()])).unwrap();
    assert_eq!(j["domain"], "group");
    let e = fails(&["gen", "v2", "--domain", "256", "--local-id", "7"], 2);
    assert!(e.contains("--domain") && e.contains("0-255"), "{e}");
    let e = fails(&["gen", "v2", "--domain", "nobody", "--local-id", "7"], 2);
    assert!(
        e.contains("--domain") && e.contains("person, group, org"),
        "{e}"
    );
    let e = fails(&["gen", "v2", "--domain", "42"], 2);
    assert!(e.contains("42 has no default local ID"), "{e}");
}

#[test]
fn names_as_bytes() {
    // "www.example.com" as hex and as a file: the RFC's v5 vector either way.
    let v5 = "2ed6657d-e927-568b-95e1-2665a8aea6a2\n";
    let hex = "7777772e6578616d706c652e636f6d";
    assert_eq!(
        ok(&["gen", "v5", "--namespace", "@dns", "--name-hex", hex]),
        v5
    );
    assert_eq!(
        ok(&[
            "gen",
            "v5",
            "--namespace",
            "@dns",
            "--name-hex",
            &format!("0X{hex}")
        ]),
        v5
    );
    let dir = std::env::temp_dir().join(format!("uuidkit-name-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("name");
    std::fs::write(&file, b"www.example.com").unwrap();
    let path = file.to_str().unwrap();
    assert_eq!(
        ok(&["gen", "v5", "--namespace", "@dns", "--name-file", path]),
        v5
    );
    let out = uuidkit()
        .args(["gen", "v5", "--namespace", "@dns", "--name-file", "-"])
        .write_stdin("www.example.com")
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), v5);
    // Bytes that are not UTF-8.
    let a = ok(&["gen", "v3", "--namespace", "@oid", "--name-hex", "ff00fe"]);
    std::fs::write(&file, [0xff, 0x00, 0xfe]).unwrap();
    assert_eq!(
        ok(&["gen", "v3", "--namespace", "@oid", "--name-file", path]),
        a
    );
    let e = fails(
        &["gen", "v5", "--namespace", "@dns", "--name-hex", "abc"],
        2,
    );
    assert!(e.contains("--name-hex") && e.contains("odd"), "{e}");
    let e = fails(&["gen", "v5", "--namespace", "@dns", "--name-hex", "zz"], 2);
    assert!(e.contains("--name-hex") && e.contains("hex"), "{e}");
    let missing = dir.join("missing");
    let e = fails(
        &[
            "gen",
            "v5",
            "--namespace",
            "@dns",
            "--name-file",
            missing.to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains("--name-file") && e.contains("missing"), "{e}");
    let e = fails(
        &[
            "gen",
            "v5",
            "--namespace",
            "@dns",
            "--name",
            "a",
            "--name-hex",
            "61",
        ],
        2,
    );
    assert!(e.contains("--name-hex") || e.contains("--name"), "{e}");
    let e = fails(&["gen", "v4", "--name-hex", "61"], 2);
    assert!(e.contains("--name-hex does not apply to gen v4"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn v1_shards() {
    let out = ok(&[
        "gen",
        "v1",
        "--shards",
        "4",
        "-n",
        "20000",
        "--node",
        "0x0123456789ab",
        // The shards keep their state in memory; the test's UUIDKIT_STATE would refuse
        // them otherwise.
        "--no-state",
    ]);
    let uuids: Vec<&str> = out.lines().collect();
    let set: HashSet<&str> = uuids.iter().copied().collect();
    assert_eq!(set.len(), 20000, "distinct");
    let seqs: HashSet<&str> = uuids.iter().map(|u| &u[19..23]).collect();
    assert_eq!(seqs.len(), 4, "four generators, four clock sequences");
    assert!(uuids.iter().all(|u| u.ends_with("0123456789ab")));
    let e = fails(&["gen", "v6", "--shards", "2"], 2);
    assert!(e.contains("--shards does not apply to gen v6"), "{e}");
    let e = fails(&["gen", "v1", "--shards", "2", "--clock-seq", "1"], 2);
    assert!(
        e.contains("--clock-seq does not apply with --shards"),
        "{e}"
    );
    let e = fails(&["gen", "v1", "--shards", "0"], 2);
    assert!(e.contains("--shards") && e.contains("1 to 64"), "{e}");
    for flag in ["--state", "--daemon"] {
        let e = fails(&["gen", "v1", "--shards", "2", flag, "/tmp/x"], 2);
        assert!(
            e.contains(&format!("{flag} does not apply with --shards"))
                && e.contains("keep their state in memory"),
            "{e}"
        );
    }
}

#[test]
fn help_covers_the_new_options() {
    let gen_help = ok(&["gen", "--help"]);
    for s in [
        "--layout",
        "draft-v7-us",
        "draft-v8-64",
        "--machine-id",
        "--machine-id-bits",
        "--custom-a",
        "--name-hex",
        "--name-file",
        "--shards",
        "0-255",
    ] {
        assert!(gen_help.contains(s), "gen --help lacks {s}");
    }
    let inspect_help = ok(&["inspect", "--help"]);
    for s in ["--layout", "--machine-id-bits", "sequence", "machine_id"] {
        assert!(inspect_help.contains(s), "inspect --help lacks {s}");
    }
}

#[test]
fn state_show_names_draft_entries() {
    let dir = std::env::temp_dir().join(format!("uuidkit-draft-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let state = dir.join("state");
    let path = state.to_str().unwrap();
    let out = ok(&[
        "gen",
        "v8",
        "--layout",
        "draft-v8-48",
        "--state",
        path,
        "-n",
        "3",
    ]);
    let last = out.lines().last().unwrap().to_string();
    let shown: Value = serde_json::from_str(&ok(&["state", "show", path])).unwrap();
    let entry = shown["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "draft-v8-48")
        .expect("a draft-v8-48 entry")
        .clone();
    assert!(entry["high_counter"].as_u64().unwrap() >= 2);
    let time = entry["high_time"].as_str().unwrap();
    let read = inspect("draft-v8-48", &[], &format!("{last}\n"));
    // The first lease is one millisecond's 4096 positions: it ends in the UUIDs' own.
    assert_eq!(time, read[0]["time"].as_str().unwrap());
    ok(&["state", "check", path]);
    std::fs::remove_dir_all(&dir).unwrap();
}
