//! Fresh UUIDs of every version, read by an independent implementation — Python's `uuid`
//! module, with the RFC 9562 field arithmetic written out in Python — must give the
//! version, variant, timestamp, clock sequence and node that `uuidkit inspect --json`
//! gives. Skipped (with a message) where no `python3` is installed.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

const READER: &str = r#"
import datetime, json, sys, uuid

VARIANTS = {uuid.RESERVED_NCS: "ncs", uuid.RFC_4122: "rfc9562",
            uuid.RESERVED_MICROSOFT: "microsoft", uuid.RESERVED_FUTURE: "future"}
GREGORIAN = datetime.datetime(1582, 10, 15, tzinfo=datetime.timezone.utc)
UNIX = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

def rfc3339(dt, extra=""):
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + extra + "Z"

for line in sys.stdin:
    u = uuid.UUID(line.strip())
    d = {"uuid": str(u), "variant": VARIANTS[u.variant], "version": u.version}
    v = u.version
    if v in (1, 6):
        if v == 1:
            t = u.time  # Python's own v1 reading
        else:
            t = ((u.int >> 96) << 28) | (((u.int >> 80) & 0xFFFF) << 12) | ((u.int >> 64) & 0xFFF)
        dt = GREGORIAN + datetime.timedelta(microseconds=t // 10)
        d.update(timestamp=t, clock_seq=u.clock_seq, node="%012x" % u.node,
                 multicast=bool(u.node >> 40 & 1),
                 time=rfc3339(dt, ".%06d%d" % (dt.microsecond, t % 10)))
    elif v == 7:
        ms = u.int >> 80
        dt = UNIX + datetime.timedelta(milliseconds=ms)
        d.update(timestamp=ms, time=rfc3339(dt, ".%03d" % (dt.microsecond // 1000)))
    elif v == 3:
        d["hash"] = "md5"
    elif v == 5:
        d["hash"] = "sha1"
    print(json.dumps(d))
"#;

fn uuidkit(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_uuidkit"))
        .args(args)
        .env_remove("UUIDKIT_NODE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "uuidkit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `program args` with `input` on its standard input and reads one JSON object a
/// line from its standard output; `None` if the program cannot be started.
fn json_lines_from(program: &str, args: &[&str], input: &str) -> Option<Vec<Value>> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{program} {args:?} failed");
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

#[test]
fn python_reads_what_uuidkit_generates_and_inspect_agrees() {
    let mut all = String::new();
    let runs: &[&[&str]] = &[
        &["gen", "v1", "-n", "50"],
        &["gen", "v1", "-n", "5", "--node", "random"],
        &[
            "gen",
            "v1",
            "--time",
            "1582-10-15T00:00:00Z",
            "--clock-seq",
            "0",
            "--node",
            "0x0",
        ],
        &["gen", "v1", "--time", "5236-03-31T21:21:00.6846975Z"],
        &["gen", "v2", "-n", "5", "--local-id", "1000"],
        &[
            "gen",
            "v3",
            "--namespace",
            "@url",
            "--name",
            "https://example.com/",
        ],
        &["gen", "v4", "-n", "50"],
        &["gen", "v5", "--namespace", "@oid", "--name", "1.3.6.1"],
        &["gen", "v6", "-n", "50"],
        &[
            "gen",
            "v6",
            "-n",
            "5",
            "--time",
            "2022-02-22T14:22:22.123456789-05:00",
        ],
        &["gen", "v7", "-n", "50"],
        &["gen", "v7", "-n", "20", "--method", "random"],
        &["gen", "v7", "-n", "20", "--method", "precision"],
        &["gen", "v7", "--time", "1970-01-01T00:00:00.999Z"],
        &["gen", "v8", "-n", "20"],
        &["gen", "v8", "--namespace", "@x500", "--name", "CN=uuidkit"],
        &["gen", "nil"],
        &["gen", "max"],
    ];
    for args in runs {
        all.push_str(&uuidkit(args));
    }
    let Some(python) = json_lines_from("python3", &["-c", READER], &all) else {
        eprintln!("python3 is not installed: cross-check skipped");
        return;
    };
    let ours = json_lines_from(env!("CARGO_BIN_EXE_uuidkit"), &["inspect", "--json"], &all)
        .expect("uuidkit runs");
    assert_eq!(python.len(), all.lines().count());
    assert_eq!(ours.len(), python.len());
    let mut versions = std::collections::BTreeSet::new();
    for (p, o) in python.iter().zip(&ours) {
        for (key, want) in p.as_object().unwrap() {
            assert_eq!(
                &o[key], want,
                "{key} of {}: uuidkit {o} vs python {p}",
                p["uuid"]
            );
        }
        versions.insert(p["version"].as_u64());
    }
    // Every version 1-8 and the two special values (version null) were covered.
    let expected: std::collections::BTreeSet<Option<u64>> =
        [None].into_iter().chain((1..=8).map(Some)).collect();
    assert_eq!(versions, expected);
}
