//! What users of uuidgen, Python's uuid and the uuid crate reach for: `gen` without a
//! version, uuidgen's -r and -t, the compact encodings (`gen --format`, `format`,
//! `--from`), and inspect's integer, GUID byte order and RFC 4122 fields (checked against
//! Python's `uuid` where python3 is installed).

use crate::command_common;

use std::process::Output;

use command_common::uuidkit;
use uuidkit::Uuid;
use uuidkit::encoding::Encoding;

fn run(args: &[&str]) -> Output {
    uuidkit().args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn one(args: &[&str]) -> Uuid {
    ok(args).trim().parse().unwrap()
}

#[test]
fn gen_without_a_version_is_v4_and_uuidgen_spellings_work() {
    assert_eq!(one(&["gen"]).version_number(), 4);
    assert_eq!(one(&["gen", "-r"]).version_number(), 4);
    assert_eq!(one(&["gen", "--random"]).version_number(), 4);
    assert_eq!(one(&["gen", "-t", "--no-state"]).version_number(), 1);
    assert_eq!(ok(&["gen", "-n", "3"]).lines().count(), 3);
    let help = ok(&["gen", "--help"]);
    assert!(help.contains("Without a VERSION, v4"), "{help}");
}

#[test]
fn gen_writes_every_compact_encoding() {
    for (form, e) in [
        ("base32", Encoding::Base32),
        ("base58", Encoding::Base58),
        ("base62", Encoding::Base62),
        ("base64url", Encoding::Base64Url),
    ] {
        let text = ok(&["gen", "v7", "-n", "300", "--no-state", "--format", form]);
        let mut last = Uuid::NIL;
        for line in text.lines() {
            assert_eq!(line.len(), e.len(), "{form}: {line}");
            let u = e.decode(line.as_bytes()).unwrap();
            assert_eq!(u.version_number(), 7);
            assert!(u > last, "{form}: v7 out of order");
            last = u;
        }
    }
    let out = run(&["gen", "--format", "base58", "--upper"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--upper"));
}

#[test]
fn format_converts_between_all_eight_forms() {
    let u = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
    let uuid: Uuid = u.parse().unwrap();
    for to in [
        "hyphenated",
        "simple",
        "braced",
        "urn",
        "base32",
        "base58",
        "base62",
        "base64url",
    ] {
        let text = ok(&["format", "--to", to, u]);
        let text = text.trim();
        let back = match to {
            "base58" | "base62" | "base64url" => {
                ok(&["format", "--from", to, "--to", "hyphenated", text])
            }
            _ => ok(&["format", "--to", "hyphenated", text]),
        };
        assert_eq!(back.trim(), u, "{to}: {text}");
    }
    assert_eq!(
        ok(&["format", "--to", "base32", u]).trim(),
        Encoding::Base32.encode_to_string(&uuid)
    );
    assert_eq!(
        ok(&["format", "--to", "urn", "--upper", u]).trim(),
        "urn:uuid:017F22E2-79B0-7CC3-98C4-DC0C0C07398F"
    );
}

#[test]
fn format_reads_standard_input_and_reports_bad_lines_as_check_does() {
    let input = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n01FWHE4YDGFK1SHH6W1G60EECF\nnope\n{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}\n";
    let out = uuidkit()
        .args(["format", "--to", "base62"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| l == &lines[0]), "{lines:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("\"nope\" (line 3)"), "{err}");
}

#[test]
fn from_names_the_only_encoding_read() {
    // Without --from a 22-character text is not read (it could be any of three).
    let b58 = "1BzmjTFLHWXwiSK4y3H5iW";
    assert_eq!(run(&["check", b58]).status.code(), Some(1));
    assert!(run(&["check", "--from", "base58", b58]).status.success());
    // With --from, the hex forms are not read either, and the error names the digit.
    let out = run(&[
        "check",
        "--from",
        "base58",
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("at byte 0: expected a base58 digit, found '0'")
    );
    // The same for standard input, where hex lines would otherwise take the fast path.
    let out = uuidkit()
        .args(["check", "--from", "base62"])
        .write_stdin("017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n02tcRIyrxLXTR81B3dqdOx\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("(line 1)"));
    let j: serde_json::Value = serde_json::from_str(&ok(&[
        "inspect",
        "--json",
        "--from",
        "base62",
        "02tcRIyrxLXTR81B3dqdOx",
    ]))
    .unwrap();
    assert_eq!(j["uuid"], "01890a5d-ac96-774b-bcce-b302099a8057");
    let b32 = ok(&[
        "format",
        "--to",
        "base32",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
    ]);
    let v6 = ok(&["convert", "--to", "v6", "--from", "base32", b32.trim()]);
    assert_eq!(v6.trim(), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
    // base32 at 26 bytes is read without --from; above 7 in the first digit is out of range.
    assert!(
        run(&["check", "01FWHE4YDGFK1SHH6W1G60EECF"])
            .status
            .success()
    );
    let out = run(&["check", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("from 0 to 7"));
}

#[test]
fn inspect_json_has_the_integer_guid_bytes_and_rfc_4122_fields() {
    let ids = [
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
    ];
    let python = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, uuid, json\n\
             for a in sys.argv[1:]:\n\
             \x20   u = uuid.UUID(a)\n\
             \x20   f = u.fields\n\
             \x20   print(json.dumps({'int': str(u.int), 'bytes_le': u.bytes_le.hex(), 'fields': ['%08x' % f[0], '%04x' % f[1], '%04x' % f[2], '%02x' % f[3], '%02x' % f[4], '%012x' % f[5]]}))",
        )
        .args(ids)
        .output();
    let Ok(python) = python else {
        eprintln!("python3 is not installed: skipping the cross-check");
        return;
    };
    let expected: Vec<serde_json::Value> = String::from_utf8(python.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (id, want) in ids.iter().zip(expected) {
        let j: serde_json::Value = serde_json::from_str(&ok(&["inspect", "--json", id])).unwrap();
        assert_eq!(j["int"], want["int"], "{id}");
        assert_eq!(j["bytes_le"], want["bytes_le"], "{id}");
        let f = &j["fields"];
        let names = [
            "time_low",
            "time_mid",
            "time_hi_and_version",
            "clock_seq_hi_and_reserved",
            "clock_seq_low",
            "node",
        ];
        for (i, name) in names.iter().enumerate() {
            assert_eq!(f[name], want["fields"][i], "{id} {name}");
        }
    }
}

#[test]
fn inspect_table_has_a_header_and_a_row_a_uuid_in_aligned_columns() {
    let text = ok(&[
        "inspect",
        "--output",
        "table",
        "--columns",
        "uuid,version,clock_seq,node",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
        "919108f7-52d1-4320-9bac-f847db4148a8",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("UUID ") && lines[0].contains("CLOCK_SEQ"),
        "{text}"
    );
    let col = lines[0].find("VERSION").unwrap();
    assert_eq!(&lines[1][col..col + 1], "1");
    assert_eq!(&lines[2][col..col + 1], "4");
    assert!(lines[1].ends_with("9f6bdeced846"), "{text}");
    assert!(
        lines[2].contains(" - "),
        "a v4 has no clock sequence: {text}"
    );
    // The default columns are uuidparse's.
    let default = ok(&[
        "inspect",
        "--output",
        "table",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
    ]);
    assert!(default.starts_with("UUID") && default.contains("VARIANT") && default.contains("TIME"));
    let out = run(&[
        "inspect",
        "--output",
        "table",
        "--columns",
        "uuid,colour",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'colour'"));
    // --output json is --json.
    let j = ok(&[
        "inspect",
        "--output",
        "json",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
    ]);
    assert!(j.starts_with('{'));
}
