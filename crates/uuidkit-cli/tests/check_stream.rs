//! The command in a pipe that is fed slowly (`tail -f log | uuidkit check`): each
//! invalid line is reported, and each answer of inspect and convert written, before the
//! next input arrives, not at the end of the input.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn an_invalid_line_is_reported_before_more_input_arrives() {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("uuidkit"))
        .arg("check")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    stdin.write_all(b"bad\n").unwrap();
    stdin.flush().unwrap();
    // The pipe stays open: the message must come while the command waits for input.
    // (The limit only keeps a broken build from hanging the test run.)
    let first = rx.recv_timeout(Duration::from_secs(30));
    stdin
        .write_all(b"c232ab00-9414-11ec-b3c8-9f6bdeced846\n")
        .unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    let first = first.expect("no message while the input stayed open");
    assert!(first.contains("invalid UUID \"bad\" (line 1)"), "{first}");
    assert_eq!(status.code(), Some(1));
}

/// Runs `uuidkit ARGS` on a pipe, writes `line` and, with the pipe still open, waits for
/// the first line of output; then closes the input. The output line, if it came.
fn first_output_while_input_open(args: &[&str], line: &str) -> Option<String> {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("uuidkit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    stdin.write_all(line.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The limit only keeps a broken build from hanging the test run.
    let first = rx.recv_timeout(Duration::from_secs(30)).ok();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    first
}

#[test]
fn inspect_writes_each_answer_before_more_input_arrives() {
    let first = first_output_while_input_open(
        &["inspect", "--json"],
        "c232ab00-9414-11ec-b3c8-9f6bdeced846\n",
    )
    .expect("no output while the input stayed open");
    assert!(
        first.starts_with(r#"{"uuid":"c232ab00-9414-11ec-b3c8-9f6bdeced846","#),
        "{first}"
    );
}

#[test]
fn convert_writes_each_answer_before_more_input_arrives() {
    let first = first_output_while_input_open(
        &["convert", "--to", "v6"],
        "c232ab00-9414-11ec-b3c8-9f6bdeced846\n",
    );
    assert_eq!(
        first.as_deref(),
        Some("1ec9414c-232a-6b00-b3c8-9f6bdeced846")
    );
}
