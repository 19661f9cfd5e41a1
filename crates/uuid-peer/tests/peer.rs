//! `uuid-peer` does the jobs the performance table compares: the lines `gen` writes, and
//! the exit status of `check`, as `uuidkit` has them.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn peer(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_uuid-peer"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn gen_writes_n_lines_of_the_version() {
    for (v, n) in [("v4", 4), ("v7", 7)] {
        let out = peer(&["gen", v, "-n", "1000"], b"");
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1000);
        for line in &lines {
            let u = uuid::Uuid::try_parse(line).unwrap();
            assert_eq!(u.get_version_num(), n, "{line}");
            assert_eq!(line.len(), 36);
        }
    }
}

#[test]
fn check_passes_uuids_and_fails_on_an_invalid_line() {
    let good = b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\r\nF81D4FAE7DEC11D0A76500A0C91E6BF6\n";
    assert!(peer(&["check"], good).status.success());
    let out = peer(&["check"], b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\nnope\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"nope\" (line 2)"));
    assert_eq!(peer(&["gen", "v9", "-n", "1"], b"").status.code(), Some(2));
}
