//! `uuidkit convert`: v1 to v6 and back.

use super::*;

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
