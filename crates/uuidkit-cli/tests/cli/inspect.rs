//! `uuidkit inspect`: its JSON and text for every version and variant, every input form,
//! and its help against what it writes.

use super::*;

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
