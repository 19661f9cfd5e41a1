//! The command in a pipe that is fed slowly (`tail -f log | uuidkit check`): each
//! invalid line is reported, and each answer of inspect and convert written, before the
//! next input arrives, not at the end of the input.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
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

/// Standard input is read on a thread of its own; where no thread can be started (a
/// process limit reached), the command reads on its one thread and answers the same.
/// The limit: `prlimit --nproc=1`, which fails every new thread of a user with more than
/// one process (as root, which no such limit binds, the command runs as `nobody`, from a
/// copy of the binary that user can run).
#[test]
fn with_no_thread_to_spare_check_and_convert_answer_the_same() {
    let dir = crate::state_common::TempDir::new("nproc");
    let bin = dir.join("uuidkit");
    std::fs::copy(assert_cmd::cargo::cargo_bin("uuidkit"), &bin).unwrap();
    use std::os::unix::fs::PermissionsExt;
    for path in [dir.path(), &bin] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let root = is_root();
    // The command (or `bin`) under the limit, or not.
    let command = |program: &Path, limited: bool| {
        let mut c = Command::new(if root { "setpriv" } else { "prlimit" });
        if root {
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "prlimit",
            ]);
        }
        if limited {
            c.arg("--nproc=1");
        }
        c.arg(program);
        c
    };
    // Standard input a pipe (read by one thread), or a file (by two).
    let file = dir.join("input");
    let run = |args: &[&str], limited: bool, input: &[u8], from_file: bool| {
        let mut cmd = command(&bin, limited);
        if from_file {
            std::fs::write(&file, input).unwrap();
            let out = cmd
                .args(args)
                .stdin(std::fs::File::open(&file).unwrap())
                .output()
                .unwrap();
            return (out.status.code(), out.stdout, out.stderr);
        }
        let out = output_fed(cmd.args(args), input.to_vec());
        (out.status.code(), out.stdout, out.stderr)
    };
    let u = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
    let mut input = Vec::new();
    for i in 0..200_000 {
        let line = match i % 50_000 {
            7 => "not a uuid".to_string(),
            8 => "x".repeat(100),
            _ => u.to_string(),
        };
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let check = &["check"][..];
    let convert = &["convert", "--to", "v6"][..];
    for (args, from_file) in [
        (check, false),
        (check, true),
        (convert, false),
        (convert, true),
    ] {
        let free = run(args, false, &input, from_file);
        let limited = run(args, true, &input, from_file);
        assert_eq!(limited, free, "{args:?}, from a file: {from_file}");
        assert_eq!(free.0, Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&free.2).lines().count(),
            8,
            "{args:?}: {}",
            String::from_utf8_lossy(&free.2)
        );
    }
    // The limit binds: under it, a shell cannot start a process.
    let shell = command(Path::new("/bin/sh"), true)
        .args(["-c", "true & wait"])
        .output()
        .unwrap();
    assert!(!shell.status.success(), "the process limit did not bind");
}

/// Whether this process runs as root (whom `prlimit --nproc` does not bind).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// Output and messages sent to one file (`> f 2>&1`) interleave the same way in every
/// run: what is flushed when depends on the reads, not on which thread gets there first.
#[test]
fn output_and_messages_in_one_file_interleave_alike_in_every_run() {
    let dir = crate::state_common::TempDir::new("interleave");
    let input = dir.join("in");
    let mut text = Vec::new();
    for i in 0..300_000 {
        let line = if i % 997 == 0 {
            "not a uuid"
        } else {
            "c232ab00-9414-11ec-b3c8-9f6bdeced846"
        };
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
    }
    std::fs::write(&input, &text).unwrap();
    let run = |i: usize| {
        let path = dir.join(&format!("out{i}"));
        let file = std::fs::File::create(&path).unwrap();
        let status = Command::new(assert_cmd::cargo::cargo_bin("uuidkit"))
            .args(["format", "--to", "simple"])
            .stdin(std::fs::File::open(&input).unwrap())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(1));
        std::fs::read(&path).unwrap()
    };
    let first = run(0);
    assert!(first.len() > 300_000 * 33, "{}", first.len());
    for i in 1..6 {
        assert!(run(i) == first, "run {i} differs from run 0");
    }
}

/// Under a limit on memory too low for two 1 MiB blocks and a thread's stack, reading
/// falls back to one block on this thread, or smaller reads, and answers the same; it
/// does not abort. The limit: the least address space (in steps of 256 KiB) in which
/// `check` of one argument succeeds, plus 1 MiB.
#[test]
fn under_a_memory_limit_check_reads_with_less_and_answers_the_same() {
    let bin = assert_cmd::cargo::cargo_bin("uuidkit");
    let u = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
    let least = (16..200)
        .map(|quarters| quarters * 256 * 1024)
        .find(|&limit| {
            Command::new("prlimit")
                .arg(format!("--as={limit}"))
                .arg(&bin)
                .args(["check", u])
                .stderr(Stdio::null())
                .status()
                .unwrap()
                .success()
        })
        .expect("check of one argument runs in 50 MiB");
    let input = format!("{u}\nbad\n{}\n{u}\n", "y".repeat(5000)).repeat(1000);
    let run = |limit: Option<usize>| {
        let mut cmd = Command::new("prlimit");
        if let Some(limit) = limit {
            cmd.arg(format!("--as={limit}"));
        }
        let out = output_fed(cmd.arg(&bin).arg("check"), input.clone().into_bytes());
        (out.status.code(), out.stderr)
    };
    let free = run(None);
    assert_eq!(free.0, Some(1));
    assert_eq!(
        String::from_utf8_lossy(&free.1).lines().count(),
        2000,
        "{}",
        String::from_utf8_lossy(&free.1)
    );
    assert_eq!(
        run(Some(least + 1024 * 1024)),
        free,
        "limit {least} + 1 MiB"
    );
    // From a file (read by two threads when they and their blocks can be had).
    let dir = crate::state_common::TempDir::new("memory-limit");
    let file = dir.join("input");
    std::fs::write(&file, &input).unwrap();
    let from_file = |limit: usize| {
        let out = Command::new("prlimit")
            .arg(format!("--as={limit}"))
            .arg(&bin)
            .arg("check")
            .stdin(std::fs::File::open(&file).unwrap())
            .output()
            .unwrap();
        (out.status.code(), out.stderr)
    };
    assert_eq!(
        from_file(least + 1024 * 1024),
        free,
        "a file, limit {least} + 1 MiB"
    );
    assert_eq!(
        from_file(least + 64 * 1024 * 1024),
        free,
        "a file, no limit to speak of"
    );
}

/// A file as standard input is read from where its position is (a shell may have read
/// some of it) to its end, and left at its end, as reading it in order leaves it: `cat`
/// after `uuidkit check` in one `{ ...; } < file` finds nothing more.
#[test]
fn a_file_is_read_from_its_position_and_left_at_its_end() {
    let dir = crate::state_common::TempDir::new("file-position");
    let file = dir.join("input");
    let u = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
    // Line 1 (37 bytes) is read by dd before uuidkit starts; of the rest, which spans
    // several of the command's blocks, the 40,000th line is not a UUID.
    let mut text = format!("{}\n", "x".repeat(36));
    for i in 1..=100_000 {
        text.push_str(if i == 40_000 { "not a uuid" } else { u });
        text.push('\n');
    }
    std::fs::write(&file, &text).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(
            r#"{ dd bs=37 count=1 of=/dev/null 2>/dev/null; "$0" check; echo "status $?"; cat; } < "$1""#,
        )
        .arg(assert_cmd::cargo::cargo_bin("uuidkit"))
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "status 1\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("uuidkit: invalid UUID \"not a uuid\" (line 40000)"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// A file read from a position near the largest file offset (2^63 - 1), on tmpfs, which
/// holds such sparse files: every line is read, as in order, and none fails with EINVAL
/// for a read that would pass the largest offset.
#[test]
fn a_file_near_the_largest_offset_is_read_to_its_end() {
    let shm = Path::new("/dev/shm");
    assert!(shm.is_dir(), "/dev/shm (tmpfs) is on every Debian machine");
    let path = shm.join(format!("uuidkit-offsets-{}", std::process::id()));
    let u = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
    let lines = 70_000;
    let start = (1u64 << 63) - 3 * 1024 * 1024;
    {
        use std::os::unix::fs::FileExt;
        let file = std::fs::File::create(&path).unwrap();
        file.write_all_at(format!("{u}\n").repeat(lines).as_bytes(), start)
            .unwrap();
    }
    // Standard input at `start`: the child shares this open file, and its position.
    let mut input = std::fs::File::open(&path).unwrap();
    std::io::Seek::seek(&mut input, std::io::SeekFrom::Start(start)).unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin("uuidkit"))
        .args(["format", "--to", "simple"])
        .stdin(input)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), lines * 33);
}

/// Runs `cmd` with `input` written to its standard input through a pipe (from a thread,
/// so that a command that writes while it reads never waits on this one), and returns
/// what it wrote.
fn output_fed(cmd: &mut Command, input: Vec<u8>) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A command that stops reading early closes the pipe: that write fails, and is no
    // fault of the test's.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    out
}
