//! A state file whose header names a newer format (`uuidkit-state 9`) is not damage: a
//! newer uuidkit on the same host wrote it, and rewriting it would throw its high-water
//! marks away. Every `gen` that uses a state file (v1, v2, v6, v7, v8 and the draft
//! layouts, with the file from `--state`, `UUIDKIT_STATE` or the default path), `state
//! show` and `state check` exit 1 with one message naming the file and both versions,
//! write no UUID, and leave the file as it was: the same bytes, the same modification
//! time, no temporary file beside it. A `gen` already running when the file turns newer
//! stops at its next lease without writing what it made after. For contrast, damaged
//! files (state_damage.rs has every kind) are still rewritten.
//!
//! `uuidkit state` has only `show` and `check`, which never write; there is no subcommand
//! that resets or repairs a file, so none could "fix" a newer one either.

use crate::state_common;

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

use state_common::{TempDir, gen_cmd, gen_ok, read_lines, read_rest, run, spawn, stderr, uuidkit};
use uuidkit::layout::Layout;

/// The version the newer files name.
const NEWER: u32 = 9;

/// A state file as a newer uuidkit might leave it, and how it was before any command
/// ran: the file, its bytes and its modification time.
struct Newer {
    path: PathBuf,
    bytes: Vec<u8>,
    mtime: SystemTime,
}

impl Newer {
    /// A sound file written by gen (entries for v1 and v7), then turned into a newer
    /// format's: its header names version 9, it has a line this format does not know,
    /// and its checksum is not this format's. Its modification time is set an hour back,
    /// so that any write shows, whatever the file system's time resolution.
    fn write(path: &Path) -> Newer {
        if !path.exists() {
            gen_ok(&mut gen_cmd("v1", 10, path));
            gen_ok(&mut gen_cmd("v7", 10, path));
        }
        let text = std::fs::read_to_string(path).unwrap();
        let text = text
            .replacen("uuidkit-state 1\n", &format!("uuidkit-state {NEWER}\n"), 1)
            .replacen("\nv7 ", "\nepoch 3 lanes=4\nv7 ", 1);
        Newer::put(path, text.into_bytes())
    }

    /// `bytes` at `path`, modified an hour ago.
    fn put(path: &Path, bytes: Vec<u8>) -> Newer {
        std::fs::write(path, &bytes).unwrap();
        let mtime = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_modified(mtime))
            .unwrap();
        Newer {
            path: path.to_path_buf(),
            bytes,
            mtime,
        }
    }

    /// The file is byte for byte as it was, not written (same modification time), and
    /// no temporary file was left beside it.
    fn assert_untouched(&self, what: &str) {
        let now = std::fs::read(&self.path).unwrap();
        assert!(
            now == self.bytes,
            "{what}: the newer state file changed:\n{}",
            String::from_utf8_lossy(&now)
        );
        let mtime = std::fs::metadata(&self.path).unwrap().modified().unwrap();
        assert_eq!(
            mtime, self.mtime,
            "{what}: the newer state file was written"
        );
        let tmp = PathBuf::from(format!("{}.tmp", self.path.display()));
        assert!(!tmp.exists(), "{what}: {} was left", tmp.display());
    }

    /// `state file PATH: format version 9 is newer than this uuidkit reads (1); `
    fn message_start(&self) -> String {
        format!(
            "uuidkit: state file {}: format version {NEWER} is newer than this uuidkit \
             reads (1); ",
            self.path.display()
        )
    }
}

/// `out` is exit status 1, nothing on standard output, and exactly one line on standard
/// error: `start`, then `then`.
fn assert_refused(what: &str, out: &Output, start: &str, then: &str) {
    let err = stderr(out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what}: {:?}\n{err}",
        out.status
    );
    assert!(
        out.stdout.is_empty(),
        "{what}: wrote {} bytes to standard output",
        out.stdout.len()
    );
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines.len() == 1
            && lines[0].starts_with(start)
            && lines[0][start.len()..].starts_with(then),
        "{what}: expected one line starting {start:?} then {then:?}, got:\n{err}"
    );
}

/// What follows the versions in gen's message when it wrote nothing.
const GEN_REFUSED: &str = "wrote no UUIDs and left the file untouched: it holds a newer \
                           uuidkit's state";

/// Every gen that leases from the state file: the versions and the draft layouts.
fn gen_variants() -> Vec<Vec<&'static str>> {
    let mut v: Vec<Vec<&str>> = vec![
        vec!["v1"],
        vec!["v2"],
        vec!["v6"],
        vec!["v7"],
        vec!["v7", "--method", "random"],
        vec!["v7", "--method", "precision"],
        vec!["v7", "--machine-id", "42", "--machine-id-bits", "10"],
        vec!["v8"],
    ];
    // Every draft layout the library has, so that a new one is covered too.
    for layout in Layout::ALL {
        if matches!(layout, Layout::DraftV7(_) | Layout::DraftV8(_)) {
            v.push(vec!["v8", "--layout", layout.name()]);
        }
    }
    v
}

/// `uuidkit gen ARGS -n 100000`, with v1 and v6's node and clock sequence fixed (as
/// `gen_cmd`), and no state file chosen.
fn gen_args(args: &[&str]) -> Command {
    let mut c = uuidkit();
    c.arg("gen").args(args).args(["-n", "100000"]);
    if matches!(args[0], "v1" | "v6") {
        c.args([
            "--node",
            state_common::NODE,
            "--clock-seq",
            state_common::CLOCK_SEQ,
        ]);
    }
    c
}

#[test]
fn gen_refuses_a_newer_state_file_and_leaves_it_untouched() {
    let dir = TempDir::new("state-newer-gen");
    let newer = Newer::write(&dir.join("state"));
    for args in gen_variants() {
        let what = format!("gen {}", args.join(" "));
        let out = run(gen_args(&args).arg("--state").arg(&newer.path));
        assert_refused(&what, &out, &newer.message_start(), GEN_REFUSED);
        newer.assert_untouched(&what);
    }
}

/// The file chosen by `UUIDKIT_STATE`, or the default path (`XDG_STATE_HOME`), is
/// refused the same way; `--no-state` is the way to generate without it.
#[test]
fn gen_refuses_a_newer_state_file_however_it_is_chosen() {
    let dir = TempDir::new("state-newer-chosen");
    let by_env = Newer::write(&dir.join("env/state"));
    let out = run(gen_args(&["v7"]).env("UUIDKIT_STATE", &by_env.path));
    assert_refused("UUIDKIT_STATE", &out, &by_env.message_start(), GEN_REFUSED);
    by_env.assert_untouched("UUIDKIT_STATE");

    let xdg = dir.join("xdg");
    let default = Newer::write(&xdg.join("uuidkit/state"));
    for args in [["v7"], ["v6"]] {
        let what = format!("gen {} with the default state file", args[0]);
        let out = run(gen_args(&args).env("XDG_STATE_HOME", &xdg));
        assert_refused(&what, &out, &default.message_start(), GEN_REFUSED);
        default.assert_untouched(&what);
    }

    let out = run(gen_args(&["v7"])
        .arg("--no-state")
        .env("XDG_STATE_HOME", &xdg));
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "--no-state: {:?}\n{}",
        out.status,
        stderr(&out)
    );
    assert_eq!(state_common::uuids(&out.stdout).len(), 100_000);
    default.assert_untouched("gen v7 --no-state");
}

/// `uuidkit state show|check [PATH]`.
fn state(action: &str, path: Option<&Path>) -> Command {
    let mut c = uuidkit();
    c.args(["state", action]);
    if let Some(p) = path {
        c.arg(p);
    }
    c
}

#[test]
fn state_show_and_check_refuse_a_newer_state_file_and_leave_it_untouched() {
    let dir = TempDir::new("state-newer-show");
    let newer = Newer::write(&dir.join("state"));
    let then = "it holds a newer uuidkit's state: this one cannot read it";
    for action in ["show", "check"] {
        let out = run(&mut state(action, Some(&newer.path)));
        assert_refused(
            &format!("state {action}"),
            &out,
            &newer.message_start(),
            then,
        );
        newer.assert_untouched(&format!("state {action}"));
        let out = run(state(action, None).env("UUIDKIT_STATE", &newer.path));
        assert_refused(
            &format!("state {action} by UUIDKIT_STATE"),
            &out,
            &newer.message_start(),
            then,
        );
        newer.assert_untouched(&format!("state {action} by UUIDKIT_STATE"));
    }
    // The state subcommands: show and check only, neither of which writes.
    let out = run(uuidkit().args(["state", "--help"]));
    let help = String::from_utf8_lossy(&out.stdout);
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap_or_else(|| panic!("no Commands: in state --help:\n{help}"))
        .lines()
        .skip(1) // the rest of the "Commands:" line
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(commands, ["show", "check", "help"], "{help}");
}

/// For contrast: damaged files, unlike a newer one, are rewritten by the next gen (with
/// one warning), after which `state check` passes.
#[test]
fn damaged_files_unlike_a_newer_one_are_rewritten() {
    type Damage = (&'static str, fn(&str) -> Vec<u8>, &'static str);
    let damages: [Damage; 5] = [
        ("empty", |_| Vec::new(), "is empty"),
        (
            "cut short",
            |t| t.as_bytes()[..t.len() / 2].to_vec(),
            "is cut short",
        ),
        (
            "garbage",
            |_| b"\x89PNG\r\n\x1a\n not a state file".to_vec(),
            "line 1",
        ),
        (
            "bad checksum",
            |t| t.replacen("high=", "high=1", 1).into_bytes(),
            "field checksum",
        ),
        (
            // Only the version number changed: the checksum, computed over version 1's
            // header, says this format wrote the file.
            "version number damaged",
            |t| {
                t.replacen("uuidkit-state 1\n", &format!("uuidkit-state {NEWER}\n"), 1)
                    .into_bytes()
            },
            "line 1, field header: version 9, but the checksum is that of a version 1 file",
        ),
    ];
    for (name, damage, what) in damages {
        let dir = TempDir::new("state-newer-contrast");
        let path = dir.join("state");
        gen_ok(&mut gen_cmd("v7", 10, &path));
        let sound = std::fs::read_to_string(&path).unwrap();
        let damaged = Newer::put(&path, damage(&sound));
        let check = run(&mut state("check", Some(&path)));
        assert_eq!(check.status.code(), Some(1), "{name}: {}", stderr(&check));
        assert!(
            stderr(&check).contains("the next generator will start afresh and rewrite it"),
            "{name}: {}",
            stderr(&check)
        );

        let out = run(&mut gen_cmd("v7", 100, &path));
        let err = stderr(&out);
        assert!(out.status.success(), "{name}: {:?}\n{err}", out.status);
        assert_eq!(state_common::uuids(&out.stdout).len(), 100, "{name}");
        assert!(
            err.lines().count() == 1 && err.contains(what) && err.contains("rewrote the file"),
            "{name}: {err}"
        );
        assert_ne!(
            std::fs::read(&path).unwrap(),
            damaged.bytes,
            "{name}: not rewritten"
        );
        let check = run(&mut state("check", Some(&path)));
        assert!(check.status.success(), "{name}: {}", stderr(&check));
    }
}

/// A gen that is running when a newer uuidkit rewrites the file in its format stops at
/// its next lease: exit 1, the message says how many UUIDs it wrote (every one from
/// leases made before), and the newer file is left as it is.
#[test]
fn a_running_gen_stops_when_the_file_turns_newer_and_leaves_it_untouched() {
    use uuidkit::store::{FileStorage, Storage};

    let dir = TempDir::new("state-newer-running");
    let path = dir.join("state");
    let mut child = spawn(&mut gen_cmd("v7", u64::MAX, &path));
    let mut out = BufReader::new(child.stdout.take().unwrap());
    // Its first lease is made (the file exists) once it has written a UUID.
    let first = read_lines(&mut out, 1);
    assert_eq!(first.len(), 1, "gen wrote nothing");
    let reader = std::thread::spawn(move || read_rest(out));

    // Written under the lock, as a newer uuidkit would, so that no lease of the running
    // gen is between its read and its write.
    let newer = {
        let storage = FileStorage::new(&path);
        let _lock = storage.lock(Duration::from_secs(10)).unwrap();
        Newer::write(&path)
    };

    // A guard against a hang, not a timing assertion: the gen leases again within
    // milliseconds of the clock.
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("gen v7 went on for 2 minutes after the state file turned newer");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let written = 1 + reader.join().unwrap().len();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{status:?}\n{err}");
    let then = format!("stopped after {written} UUIDs and left the file untouched");
    assert!(
        err.lines().count() == 1
            && err.starts_with(&newer.message_start())
            && err[newer.message_start().len()..].starts_with(&then),
        "expected {:?} then {then:?}, got:\n{err}",
        newer.message_start()
    );
    newer.assert_untouched("the running gen");
}
