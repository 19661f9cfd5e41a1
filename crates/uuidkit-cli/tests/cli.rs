//! End-to-end tests of the `uuidkit` binary: what the command's tests share (the
//! RFC 9562 Appendix A values, running the command), and a module for each command.

use std::collections::HashSet;

use crate::command_common;

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

mod check;
mod convert;
mod generate;
mod inspect;
mod lost_output;
