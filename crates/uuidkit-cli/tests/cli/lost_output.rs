//! Output that cannot be written (a closed or full standard output) and a closed
//! standard input are errors; a pipe its reader closed early is not.

use super::*;

// ---------------------------------------------------------------- lost output

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
