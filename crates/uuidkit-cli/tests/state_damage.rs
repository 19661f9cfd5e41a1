//! Guarantees 5 and 6 of the state file: a state file that is removed, empty, cut short,
//! garbage, with a damaged version number, a bad checksum or too large; one that
//! cannot be read; one in a directory that cannot be written or created; and one whose
//! lock a stopped process holds. In every case `gen` writes its UUIDs, exactly one
//! warning on standard error naming the file and what is wrong, and exits 0; the file
//! is repaired where it can be written (`state check` passes afterwards). A file in a
//! newer format is not damage: state_newer_format.rs.
//!
//! The tests run as root, whom permission bits do not stop: an unwritable directory is
//! one under a regular file, or in /proc.

use crate::state_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use state_common::{TempDir, gen_cmd, gen_ok, run, stderr, uuidkit, uuids};
use uuidkit::{Uuid, Version};

const VERSIONS: [&str; 4] = ["v1", "v6", "v7", "v8"];
const COUNT: u64 = 20_000;

fn version_of(name: &str) -> Version {
    match name {
        "v1" => Version::V1,
        "v6" => Version::V6,
        "v7" => Version::V7,
        _ => Version::V8,
    }
}

/// Checks that `out` is COUNT UUIDs of `version`, exit status 0, and exactly one warning
/// that names `state` and says `what`.
fn assert_one_warning(version: &str, state: &Path, what: &str, out: &Output) {
    let err = stderr(out);
    assert!(out.status.success(), "{version}: {:?}\n{err}", out.status);
    let u: Vec<Uuid> = uuids(&out.stdout);
    assert_eq!(u.len() as u64, COUNT, "{version}: {err}");
    assert!(u.iter().all(|x| x.version() == version_of(version)));
    let lines: Vec<&str> = err.lines().collect();
    let prefix = format!("uuidkit: warning: state file {}: ", state.display());
    assert!(
        lines.len() == 1 && lines[0].starts_with(&prefix) && lines[0].contains(what),
        "{version}: expected one warning starting {prefix:?} and saying {what:?}, got:\n{err}"
    );
}

/// `uuidkit state check PATH`.
fn check(state: &Path) -> Output {
    let mut c = uuidkit();
    c.args(["state", "check"]).arg(state);
    run(&mut c)
}

fn assert_sound(version: &str, state: &Path) {
    let out = check(state);
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "{version}: state check after the repair: {:?}\n{}",
        out.status,
        stderr(&out)
    );
}

/// A state file as gen leaves it, for `version`.
fn written_state(version: &str, dir: &TempDir) -> PathBuf {
    let state = dir.join("state");
    gen_ok(&mut gen_cmd(version, 100, &state));
    assert_sound(version, &state);
    state
}

/// Ways to damage a sound state file, and what the warning says about each.
type Damage = (&'static str, fn(&Path), &'static str);

fn damages() -> Vec<Damage> {
    vec![
        (
            "removed",
            |p| {
                std::fs::remove_file(p).unwrap();
                // Long after the lock file was made: a missing file beside a young lock
                // file may be another process's first use, and is not reported.
                let lock = PathBuf::from(format!("{}.lock", p.display()));
                let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
                std::fs::File::options()
                    .write(true)
                    .open(lock)
                    .and_then(|f| f.set_modified(hour_ago))
                    .unwrap();
            },
            "does not exist, though its lock file has been there",
        ),
        ("empty", |p| std::fs::write(p, "").unwrap(), "is empty"),
        (
            "truncated",
            |p| {
                let b = std::fs::read(p).unwrap();
                std::fs::write(p, &b[..b.len() / 2]).unwrap();
            },
            "is cut short",
        ),
        (
            "garbage",
            |p| {
                let b: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
                std::fs::write(p, b).unwrap();
            },
            "line 1",
        ),
        (
            // One bit of the version number flipped ('1' to '9'): the checksum, which
            // covers the header, shows that this format wrote the file, so it is damage,
            // not a newer format (state_newer_format.rs).
            "version number damaged",
            |p| {
                let t = std::fs::read_to_string(p).unwrap();
                std::fs::write(p, t.replacen("uuidkit-state 1\n", "uuidkit-state 9\n", 1)).unwrap();
            },
            "line 1, field header: version 9, but the checksum is that of a version 1 file",
        ),
        (
            "bad checksum",
            |p| {
                // One digit of the first high-water mark, changed: still a number, so
                // only the checksum can tell.
                let t = std::fs::read_to_string(p).unwrap();
                let at = t.find("high=").unwrap() + "high=".len() + 3;
                let mut b = t.into_bytes();
                b[at] = if b[at] == b'9' { b'0' } else { b[at] + 1 };
                std::fs::write(p, b).unwrap();
            },
            "field checksum",
        ),
        (
            "too large",
            |p| std::fs::write(p, "x".repeat(2 << 20)).unwrap(),
            "is larger than",
        ),
    ]
}

#[test]
fn a_damaged_state_file_is_reported_once_and_repaired() {
    for version in VERSIONS {
        for (name, damage, what) in damages() {
            let dir = TempDir::new("state-damage");
            let state = written_state(version, &dir);
            damage(&state);
            if name != "removed" {
                assert!(!check(&state).status.success(), "{version} {name}");
            }
            let out = run(&mut gen_cmd(version, COUNT, &state));
            assert_one_warning(version, &state, what, &out);
            assert_sound(version, &state);
            // Repaired: the next run has nothing to say.
            gen_ok(&mut gen_cmd(version, 10, &state));
        }
    }
}

#[test]
fn first_use_creates_the_file_and_its_directories_silently_as_does_a_fresh_removal() {
    for version in VERSIONS {
        let dir = TempDir::new("state-first-use");
        let state = dir.join("new/dirs/state");
        assert_eq!(
            gen_ok(&mut gen_cmd(version, COUNT, &state)).len() as u64,
            COUNT
        );
        assert_sound(version, &state);
        // Removed while its lock file is young, it cannot be told from a first use in
        // progress (or one killed a moment ago): nothing is said.
        std::fs::remove_file(&state).unwrap();
        gen_ok(&mut gen_cmd(version, 10, &state));
        assert_sound(version, &state);
    }
}

#[test]
fn an_unusable_state_file_is_reported_once_and_generation_goes_on_in_memory() {
    for version in VERSIONS {
        let dir = TempDir::new("state-unusable");
        // Unreadable: a directory where the file should be.
        let is_dir = dir.join("state");
        std::fs::create_dir(&is_dir).unwrap();
        // A directory that cannot be created: under a regular file.
        std::fs::write(dir.join("afile"), "").unwrap();
        let under_file = dir.join("afile/state");
        let cases: [(&str, PathBuf, String); 4] = [
            (
                "unreadable",
                is_dir.clone(),
                format!("{} is a directory, not a regular file", is_dir.display()),
            ),
            (
                "directory under a regular file",
                under_file.clone(),
                format!("cannot open {}.lock: Not a directory", under_file.display()),
            ),
            // A directory in which nothing can be created, whoever asks.
            (
                "read-only directory",
                PathBuf::from("/proc/self/uuidkit-state"),
                "cannot".to_string(),
            ),
            (
                "missing directory that cannot be created",
                PathBuf::from("/proc/uuidkit-no-such-directory/state"),
                "cannot create directory /proc/uuidkit-no-such-directory".to_string(),
            ),
        ];
        for (name, state, what) in cases {
            let out = run(&mut gen_cmd(version, COUNT, &state));
            assert_one_warning(version, &state, &what, &out);
            assert!(out.status.success(), "{version} {name}");
            assert!(
                !check(&state).status.success(),
                "{version} {name}: state check passed"
            );
        }
    }
}

/// Sends `signal` to the process group `pgid`.
fn signal_group(pgid: u32, signal: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
    let r = unsafe { libc::kill(-(pgid as i32), signal) };
    assert_eq!(
        r,
        0,
        "kill -{signal} -{pgid}: {}",
        std::io::Error::last_os_error()
    );
}

/// A process that holds the state file's lock and is stopped (`kill -STOP`): `flock(1)`
/// from util-linux taking the lock file and running `sleep`. Killed when dropped.
struct StoppedHolder {
    child: std::process::Child,
}

impl StoppedHolder {
    fn new(state: &Path) -> StoppedHolder {
        use std::os::unix::process::CommandExt;
        let lock = PathBuf::from(format!("{}.lock", state.display()));
        std::fs::create_dir_all(state.parent().unwrap()).unwrap();
        let child = Command::new("flock")
            .arg(&lock)
            .args(["sleep", "60"])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("starting flock(1): {e}; it is in util-linux (.ci/run installs it)")
            });
        // Wait until it holds the lock: `flock -n` fails then.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let free = Command::new("flock")
                .args(["-n"])
                .arg(&lock)
                .arg("true")
                .status()
                .expect("flock -n")
                .success();
            if !free {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "flock never took {}",
                lock.display()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        signal_group(child.id(), libc::SIGSTOP);
        StoppedHolder { child }
    }
}

impl Drop for StoppedHolder {
    fn drop(&mut self) {
        // SIGKILL ends stopped processes too.
        signal_group(self.child.id(), libc::SIGKILL);
        let _ = self.child.wait();
    }
}

/// Runs `cmd`, failing the test (instead of hanging it) if it has not ended within
/// `limit`: a bound far above the 2 s the lock is waited for.
fn run_bounded(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output();
        let _ = tx.send(());
        out
    });
    if rx.recv_timeout(limit).is_err() {
        // SAFETY: kill(2) on the child's own pid; no memory is involved.
        unsafe { libc::kill(id as i32, libc::SIGKILL) };
        panic!("{cmd:?} still running after {limit:?}: it waits for a stopped lock holder");
    }
    waiter.join().unwrap().unwrap()
}

#[test]
fn a_stopped_lock_holder_delays_gen_by_a_bounded_wait_only() {
    for version in ["v7", "v1"] {
        let dir = TempDir::new("state-stopped-holder");
        let state = written_state(version, &dir);
        {
            let _holder = StoppedHolder::new(&state);
            let out = run_bounded(
                &mut gen_cmd(version, COUNT, &state),
                Duration::from_secs(60),
            );
            assert_one_warning(version, &state, "held the lock file", &out);
        }
        // The holder gone, the file is used again, silently.
        gen_ok(&mut gen_cmd(version, 10, &state));
        assert_sound(version, &state);
    }
}
