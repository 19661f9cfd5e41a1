//! UUIDs of every layout beyond RFC 9562 that `uuidkit gen v8` writes, read by an
//! independent implementation — Python's `uuid` module for version and variant, the
//! layouts' field arithmetic written out in Python for the rest — must give what
//! `uuidkit inspect --json --layout NAME` gives. Raw fields (`--custom-a/-b/-c`) must
//! give what Python's `uuid.uuid8(a, b, c)` gives (Python 3.14; before it, the same
//! arithmetic written out). Skipped (with a message) where no `python3` is installed.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

const READER: &str = r#"
import datetime, json, sys, uuid

VARIANTS = {uuid.RESERVED_NCS: "ncs", uuid.RFC_4122: "rfc9562",
            uuid.RESERVED_MICROSOFT: "microsoft", uuid.RESERVED_FUTURE: "future"}
UNIX = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
GREGORIAN_OFFSET = 0x01B21DD213814000  # 100 ns ticks from 1582-10-15 to 1970-01-01

def rfc3339(ns, digits):
    secs, sub = divmod(ns, 10**9)
    s = (UNIX + datetime.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        s += "." + ("%09d" % sub)[:digits]
    return s + "Z"

def num(v):
    return v if v < 2**64 else str(v)

def hexbits(v, bits):
    return "%0*x" % ((bits + 3) // 4, v)

def uuid8(a, b, c):
    if hasattr(uuid, "uuid8"):
        return uuid.uuid8(a, b, c)
    n = (a & 0xffff_ffff_ffff) << 80 | (b & 0xfff) << 64 | (c & 0x3fff_ffff_ffff_ffff)
    n = n & ~(0xf << 76) | 8 << 76
    n = n & ~(0xc << 60) | 0x8 << 60
    return uuid.UUID(int=n)

for line in sys.stdin:
    words = line.split()
    if words[0] == "raw":
        a, b, c = (int(w, 0) for w in words[1:4])
        print(json.dumps({"uuid": str(uuid8(a, b, c))}))
        continue
    name, text = words
    u = uuid.UUID(text)
    n = u.int
    d = {"uuid": str(u), "variant": VARIANTS[u.variant], "version": u.version, "layout": name}
    ca, cb, cc = n >> 80, (n >> 64) & 0xfff, n & (2**62 - 1)
    if name.startswith("draft-v7-"):
        fb, sb, units, digits = {"ms": (12, 12, 10**3, 3), "us": (24, 14, 10**6, 6),
                                 "ns": (38, 8, 10**9, 9)}[name[-2:]]
        rb = 86 - fb - sb
        secs = n >> 92
        rest = (ca & 0xfff) << 74 | cb << 62 | cc
        sub = (rest >> (86 - fb)) * units >> fb
        d.update(time=rfc3339(secs * 10**9 + sub * (10**9 // units), digits),
                 timestamp=num(secs * units + sub),
                 sequence=(rest >> rb) & ((1 << sb) - 1),
                 random=hexbits(rest & ((1 << rb) - 1), rb))
    elif name == "b2":
        d.update(random=hexbits(ca << 74 | cb << 62 | cc, 122))
    elif name == "b1":
        ts = ca << 12 | cb
        d.update(time=rfc3339(ts * 10, 8), timestamp=ts, random=hexbits(cc, 62))
    else:
        width = int(name[-2:])
        if width == 32:
            ts, seq, node, nb, ns, digits = ca >> 16, cb, cc, 62, (ca >> 16) * 10**9, 0
        elif width == 48:
            ts, seq, node, nb, ns, digits = ca, cb, cc, 62, ca * 10**6, 3
        else:
            ts, seq, node, nb = ca << 12 | cb, cc >> 54, cc & (2**54 - 1), 54
            if width == 60:
                ns, digits = (ts - GREGORIAN_OFFSET) * 100, 7
            else:
                ns, digits = ts << 4, 9
        d.update(time=rfc3339(ns, digits), timestamp=ts, sequence=seq,
                 random=hexbits(node, nb))
    print(json.dumps(d))
"#;

fn uuidkit(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_uuidkit"))
        .args(args)
        .env_remove("UUIDKIT_NODE")
        .env_remove("UUIDKIT_DAEMON")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "uuidkit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `program args` with `input` and reads one JSON object a line; `None` if the
/// program cannot be started.
fn json_lines_from(program: &str, args: &[&str], input: &str) -> Option<Vec<Value>> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    // Written from another thread: the input is larger than a pipe holds, and the
    // program writes while it reads.
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "{program} {args:?} failed");
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

const LAYOUTS: [&str; 8] = [
    "b1",
    "draft-v7-ms",
    "draft-v7-us",
    "draft-v7-ns",
    "draft-v8-32",
    "draft-v8-48",
    "draft-v8-60",
    "draft-v8-64",
];

#[test]
fn python_reads_every_layout_as_inspect_does() {
    let mut lines = String::new();
    let mut ours = Vec::new();
    for layout in LAYOUTS {
        let mut uuids = uuidkit(&["gen", "v8", "--layout", layout, "-n", "300", "--no-state"]);
        uuids.push_str(&uuidkit(&[
            "gen",
            "v8",
            "--layout",
            layout,
            "-n",
            "5",
            "--time",
            "2022-02-22T19:22:22.123456789Z",
        ]));
        if layout.starts_with("draft-v7") {
            // As shipped by libraries before RFC 9562: version nibble 7.
            let as_v7: String = uuids
                .lines()
                .map(|l| format!("{}7{}\n", &l[..14], &l[15..]))
                .collect();
            uuids.push_str(&as_v7);
        }
        for u in uuids.lines() {
            lines.push_str(&format!("{layout} {u}\n"));
        }
        let read = json_lines_from(
            env!("CARGO_BIN_EXE_uuidkit"),
            &["inspect", "--json", "--layout", layout],
            &uuids,
        )
        .expect("uuidkit runs");
        ours.extend(read);
    }
    // b2, the name-based layout: one UUID a name.
    let mut b2 = String::new();
    for name in ["www.example.com", "", "uuidkit", "\u{e9}t\u{e9}"] {
        b2.push_str(&uuidkit(&[
            "gen",
            "v8",
            "--layout",
            "b2",
            "--namespace",
            "@dns",
            "--name",
            name,
        ]));
    }
    for u in b2.lines() {
        lines.push_str(&format!("b2 {u}\n"));
    }
    ours.extend(
        json_lines_from(
            env!("CARGO_BIN_EXE_uuidkit"),
            &["inspect", "--json", "--layout", "b2"],
            &b2,
        )
        .expect("uuidkit runs"),
    );
    let Some(python) = json_lines_from("python3", &["-c", READER], &lines) else {
        eprintln!("python3 is not installed: cross-check skipped");
        return;
    };
    assert_eq!(python.len(), ours.len());
    for (p, o) in python.iter().zip(&ours) {
        for key in [
            "uuid",
            "variant",
            "version",
            "layout",
            "time",
            "timestamp",
            "sequence",
            "random",
        ] {
            assert_eq!(p.get(key), o.get(key), "{key} of {}: {p} vs {o}", p["uuid"]);
        }
    }
    let v8 = python.iter().filter(|p| p["version"] == 8).count();
    let v7 = python.iter().filter(|p| p["version"] == 7).count();
    assert!(v8 > 2000 && v7 > 900, "{v8} v8, {v7} v7");
    assert_eq!(python.iter().filter(|p| p["layout"] == "b2").count(), 4);
    assert!(python.iter().all(|p| p["variant"] == "rfc9562"));
}

#[test]
fn raw_fields_are_pythons_uuid8() {
    let cases = [
        ["0x123456789abc", "0xdef", "0x3fffffffffffffff"],
        ["0", "0", "0"],
        ["281474976710655", "4095", "4611686018427387903"],
        ["1", "2", "3"],
    ];
    let mut lines = String::new();
    let mut ours = Vec::new();
    for [a, b, c] in cases {
        lines.push_str(&format!("raw {a} {b} {c}\n"));
        let u = uuidkit(&[
            "gen",
            "v8",
            "--custom-a",
            a,
            "--custom-b",
            b,
            "--custom-c",
            c,
        ]);
        ours.push(u.trim().to_string());
    }
    let Some(python) = json_lines_from("python3", &["-c", READER], &lines) else {
        eprintln!("python3 is not installed: cross-check skipped");
        return;
    };
    for (p, o) in python.iter().zip(&ours) {
        assert_eq!(p["uuid"].as_str(), Some(o.as_str()));
    }
}
