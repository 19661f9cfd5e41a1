//! Times as text at the command line: what `inspect` writes, `gen --time` reads back,
//! past the year 9999 too (ISO 8601's expanded year, `+010889-...`).

use crate::command_common;

use command_common::uuidkit;
use serde_json::Value;
use uuidkit::Uuid;
use uuidkit::time::UnixTime;

/// The largest v7 UUID: every timestamp bit set, 2^48 - 1 ms, in the year 10889.
const LAST_V7: &str = "ffffffff-ffff-7fff-bfff-ffffffffffff";
const LAST_V7_MS: u64 = (1 << 48) - 1;

/// Runs `uuidkit ARGS`, expects success and a quiet stderr, returns stdout.
fn ok(args: &[&str]) -> String {
    let out = uuidkit().args(args).assert().success().get_output().clone();
    assert!(
        out.stderr.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
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

fn inspect_json(u: &str) -> Value {
    let out = ok(&["inspect", "--json", u]);
    serde_json::from_str(out.trim()).unwrap()
}

/// The one UUID `gen v7 --time TIME` writes.
fn gen_v7_at(time: &str) -> Uuid {
    let out = ok(&["gen", "v7", "--time", time]);
    Uuid::parse_str(out.trim()).unwrap()
}

// Issue item 11: inspect wrote "10889-08-02T05:31:50.655Z", which is not RFC 3339 and
// which the parser refused.
#[test]
fn inspect_writes_a_far_time_that_parses_back() {
    let j = inspect_json(LAST_V7);
    let time = j["time"].as_str().unwrap();
    assert_eq!(time, "+010889-08-02T05:31:50.655Z");
    let t = UnixTime::parse_rfc3339(time).unwrap();
    assert_eq!(t.as_millis(), LAST_V7_MS as i128);
    // The raw count stands beside it, unambiguous whatever the text's form.
    assert_eq!(j["timestamp"], LAST_V7_MS);
}

// Issue item 11: `gen v7 --time 10889-...` was refused at byte 4.
#[test]
fn gen_accepts_the_time_inspect_writes() {
    let time = inspect_json(LAST_V7)["time"].as_str().unwrap().to_string();
    let u = gen_v7_at(&time);
    assert_eq!(u.timestamp().unwrap().raw(), LAST_V7_MS);
    assert!(u.to_string().starts_with("ffffffff-ffff-7"), "{u}");
}

// Issue item 11: the range error said "1970 to 10889", which names no instant the
// parser reads.
#[test]
fn the_range_error_names_ends_that_parse() {
    let err = fails(&["gen", "v7", "--time", "+010889-08-02T05:31:50.656Z"], 2);
    assert!(err.contains("+010889-08-02T05:31:50.656000000Z"), "{err}");
    let (_, range) = err
        .split_once("1970-01-01T00:00:00.000Z to ")
        .unwrap_or_else(|| panic!("no range in {err}"));
    let last = range.split(')').next().unwrap();
    assert_eq!(last, "+010889-08-02T05:31:50.655Z");
    let last = UnixTime::parse_rfc3339(last).unwrap();
    assert_eq!(last.as_millis(), LAST_V7_MS as i128);
    assert_eq!(
        gen_v7_at("1970-01-01T00:00:00.000Z")
            .timestamp()
            .unwrap()
            .raw(),
        0
    );
}

// Issue item 11: 9999-12-31T23:59:59.999999999-23:59 is in the year 10000 in UTC.
#[test]
fn an_offset_past_9999_round_trips() {
    let u = gen_v7_at("9999-12-31T23:59:59.999-23:59");
    let j = inspect_json(&u.to_string());
    let time = j["time"].as_str().unwrap();
    assert_eq!(time, "+010000-01-01T23:58:59.999Z");
    assert_eq!(
        UnixTime::parse_rfc3339(time).unwrap(),
        UnixTime::parse_rfc3339("9999-12-31T23:59:59.999-23:59").unwrap()
    );
}
