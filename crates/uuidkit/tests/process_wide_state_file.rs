//! `uuidkit::use_state_file` and `use_default_state_file`: the one call that gives the
//! process-wide generators a state file. Processes that make it with one file never
//! repeat a v7 UUID, and one started after another has ended continues above it, even
//! with its clock an hour behind; without the call (a control run) it would not. The
//! errors: a file that cannot be used, a file in a newer format (refused by the call;
//! through `UUIDKIT_STATE`, the generators go on in memory with a warning, and the file
//! is left as it was), and a call after the first UUID.
//!
//! Every process-wide generator here runs in a child: this test binary run again with
//! an environment variable naming what to do, and `UUIDKIT_STATE` removed, so that only
//! the call can give the children a state file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::faketime::{faked, libfaketime};
use uuidkit::Uuid;
use uuidkit::generator::StateFileError;

/// What a child does: `call`, `control` (no call), `errors` or `default`.
const CHILD: &str = "UUIDKIT_TEST_STATE_FILE_CHILD";
/// The state file a child passes to the call (not `UUIDKIT_STATE`, which is removed).
const PATH: &str = "UUIDKIT_TEST_STATE_FILE_PATH";
const PER_CHILD: usize = 30_000;

fn child_mode() -> Option<String> {
    std::env::var(CHILD).ok()
}

/// This test binary, running only `test` with the child's environment.
fn child(test: &str, mode: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    let test = crate::support::test_name(module_path!(), test);
    c.args([&*test, "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD, mode)
        .env_remove("UUIDKIT_STATE")
        .env_remove("UUIDKIT_NODE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs `c` to its end and returns the UUIDs it wrote, one a line.
fn uuids_of(c: &mut Command) -> Vec<Uuid> {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    parse_uuids(&out.stdout)
}

/// The UUIDs among the words of a child's output (the test harness writes its own
/// words before the first).
fn parse_uuids(stdout: &[u8]) -> Vec<Uuid> {
    String::from_utf8_lossy(stdout)
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect()
}

fn v7_child(mode: &str, state: &Path, faketime: Option<&str>) -> Command {
    let mut c = child("child_writes_v7", mode);
    c.env(PATH, state);
    if let Some(t) = faketime {
        faked(&mut c, t);
    }
    c
}

/// Runs only as a child: with `call`, chooses the state file by the call, then writes
/// PER_CHILD v7 UUIDs (single calls and batches), one a line.
#[test]
fn child_writes_v7() {
    let Some(mode) = child_mode().filter(|m| m == "call" || m == "control") else {
        return;
    };
    if mode == "call" {
        uuidkit::use_state_file(std::env::var_os(PATH).unwrap()).unwrap();
    }
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut batch = vec![Uuid::NIL; 999];
    let mut written = 0;
    while written < PER_CHILD {
        let n = batch.len().min(PER_CHILD - written - 1);
        uuidkit::v7_fill(&mut batch[..n]);
        for u in &batch[..n] {
            writeln!(out, "{u}").unwrap();
        }
        writeln!(out, "{}", uuidkit::v7()).unwrap();
        written += n + 1;
    }
    out.flush().unwrap();
    assert!(uuidkit::generator::take_store_warnings().is_empty());
}

fn increasing(u: &[Uuid]) -> bool {
    u.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn processes_that_call_use_state_file_never_repeat_or_reorder_v7() {
    if child_mode().is_some() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-use-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let state = dir.join("state");

    let first = uuids_of(&mut v7_child("call", &state, None));
    // Started after the first ended, with the clock an hour behind it.
    let behind = uuids_of(&mut v7_child("call", &state, Some("-1h")));
    // The same without the call: what the guarantee is about. Its clock puts it below.
    let control = uuids_of(&mut v7_child("control", &state, Some("-1h")));
    // Two at once, with the clock right.
    let mut together: Vec<_> = (0..2)
        .map(|_| v7_child("call", &state, None).spawn().unwrap())
        .collect();
    let together: Vec<Vec<Uuid>> = together
        .drain(..)
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{:?}", out.status);
            parse_uuids(&out.stdout)
        })
        .collect();

    for (name, run) in [
        ("first", &first),
        ("behind", &behind),
        ("control", &control),
        ("together 1", &together[0]),
        ("together 2", &together[1]),
    ] {
        assert_eq!(run.len(), PER_CHILD, "{name}");
        assert!(increasing(run), "{name}: a process's v7 UUIDs decreased");
    }
    assert!(
        control[PER_CHILD - 1] < first[0],
        "the control run (no call, clock an hour back) did not go below the first run: \
         is libfaketime ({}) working?",
        libfaketime().display()
    );
    assert!(
        behind[0] > first[PER_CHILD - 1],
        "with the call, a process started after another, its clock an hour back, began \
         at {} below the other's last {}",
        behind[0],
        first[PER_CHILD - 1]
    );
    for run in &together {
        assert!(run[0] > behind[PER_CHILD - 1], "a later process went below");
    }
    let mut all = HashSet::new();
    for run in [&first, &behind, &together[0], &together[1]] {
        for u in run {
            assert!(all.insert(*u), "{u} made by two processes");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs only as a child: the errors of the call, then the call refused once started.
#[test]
fn child_meets_the_errors() {
    if child_mode().as_deref() != Some("errors") {
        return;
    }
    let dir = PathBuf::from(std::env::var_os(PATH).unwrap());
    // Under a regular file: the lock file cannot be created.
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let bad = file.join("state");
    match uuidkit::use_state_file(&bad) {
        Err(StateFileError::Unusable { path, problem }) => {
            assert_eq!(path, bad);
            let text = StateFileError::Unusable {
                path: path.clone(),
                problem,
            }
            .to_string();
            assert!(
                text.starts_with(&format!("state file {}: cannot", bad.display())),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Refused, so nothing changed: the generators start in memory, and then it is late.
    let a = uuidkit::v7();
    assert!(uuidkit::v7() > a);
    let late = uuidkit::use_state_file(dir.join("state")).unwrap_err();
    assert_eq!(late, StateFileError::AlreadyStarted { in_use: None });
    assert!(late.to_string().contains("before the first UUID"), "{late}");
    assert!(!dir.join("state").exists() && !dir.join("state.lock").exists());
}

#[test]
fn the_call_refuses_an_unusable_file_and_a_late_call() {
    if child_mode().is_some() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-use-state-err-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = child("child_meets_the_errors", "errors")
        .env(PATH, &dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs only as a child: the default state file, then v1, v6, v7 and v8 from it.
#[test]
fn child_uses_the_default_state_file() {
    if child_mode().as_deref() != Some("default") {
        return;
    }
    let path = uuidkit::use_default_state_file().unwrap();
    println!("{}", path.display());
    for make in [uuidkit::v1, uuidkit::v6, uuidkit::v7, uuidkit::v8] {
        make();
    }
    assert!(uuidkit::generator::take_store_warnings().is_empty());
}

/// `use_default_state_file` takes the command's default, `$XDG_STATE_HOME/uuidkit/state`
/// (else under `$HOME/.local/state`), and every process-wide generator leases from it.
#[test]
fn the_default_state_file_is_the_commands() {
    if child_mode().is_some() {
        return;
    }
    let home = std::env::temp_dir().join(format!("uuidkit-use-default-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    for xdg in [true, false] {
        let mut c = child("child_uses_the_default_state_file", "default");
        c.env("HOME", &home);
        let expected = if xdg {
            c.env("XDG_STATE_HOME", home.join("xdg"));
            home.join("xdg/uuidkit/state")
        } else {
            c.env_remove("XDG_STATE_HOME");
            home.join(".local/state/uuidkit/state")
        };
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let said = String::from_utf8(out.stdout).unwrap();
        assert!(said.contains("1 passed"), "{said}");
        assert!(
            said.split_whitespace().any(|w| Path::new(w) == expected),
            "{said}"
        );
        let state = uuidkit::store::read_state(&expected).unwrap();
        assert!(state.checksum_ok && state.damage.is_none());
        // One Gregorian entry (v1 and v6 share the host's node), v7, v8.
        assert_eq!(state.entries.len(), 3, "{:?}", state.entries);
    }
    // Neither variable absolute: no default, and nothing changes.
    let out = child("child_has_no_default", "no-default")
        .env("HOME", "relative")
        .env("XDG_STATE_HOME", "")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.contains("1 passed"), "{said}");
    let _ = std::fs::remove_dir_all(&home);
}

/// Runs only as a child: no absolute `HOME` or `XDG_STATE_HOME`.
#[test]
fn child_has_no_default() {
    if child_mode().as_deref() != Some("no-default") {
        return;
    }
    assert_eq!(
        uuidkit::use_default_state_file(),
        Err(StateFileError::NoDefaultPath)
    );
    let _ = uuidkit::v7();
}

/// A state file in a newer format, as a newer uuidkit might leave it: one this library
/// wrote, its header naming version 9 and a line added (so its checksum is neither
/// version's), modified an hour ago so that any write would show. Returns its bytes and
/// modification time.
fn newer_state_file(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    use uuidkit::store::{GeneratorKind, LeaseRequest, StateStore};
    let t = 1_700_000_000_000u128 << 42;
    StateStore::open(path)
        .lease(&LeaseRequest::new(GeneratorKind::V7, t, t, 10))
        .unwrap();
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replacen("uuidkit-state 1\n", "uuidkit-state 9\n", 1)
        .replacen("\nv7 ", "\nepoch 3\nv7 ", 1);
    std::fs::write(path, &text).unwrap();
    let mtime = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(mtime))
        .unwrap();
    (text.into_bytes(), mtime)
}

/// Runs only as a child: `use_state_file` refuses a newer format's file (`PATH`), and the
/// generators given one by `UUIDKIT_STATE` go on in memory with a warning each.
#[test]
fn child_meets_a_newer_format() {
    use uuidkit::store::{Outcome, Problem};
    if child_mode().as_deref() != Some("newer") {
        return;
    }
    let newer = PathBuf::from(std::env::var_os(PATH).unwrap());
    let problem = Problem::FutureVersion {
        found: 9,
        supported: 1,
    };
    let refused = uuidkit::use_state_file(&newer).unwrap_err();
    assert_eq!(
        refused,
        StateFileError::Unusable {
            path: newer.clone(),
            problem: problem.clone()
        }
    );
    assert_eq!(
        refused.to_string(),
        format!(
            "state file {}: format version 9 is newer than this uuidkit reads (1)",
            newer.display()
        )
    );
    // Nothing was set, so UUIDKIT_STATE (another newer file) decides at the first UUID.
    let by_env = PathBuf::from(std::env::var_os("UUIDKIT_STATE").unwrap());
    uuidkit::v1();
    uuidkit::v6();
    let a = uuidkit::v7();
    uuidkit::v8();
    let warnings = uuidkit::generator::take_store_warnings();
    assert_eq!(
        warnings.len(),
        4,
        "one for each of v1, v6, v7, v8: {warnings:?}"
    );
    for w in &warnings {
        assert_eq!((w.path(), w.problem()), (by_env.as_path(), &problem));
        assert_eq!(w.outcome(), Outcome::InMemory);
    }
    // In memory from now on, without further warnings.
    assert!(uuidkit::v7() > a);
    assert!(uuidkit::generator::take_store_warnings().is_empty());
}

#[test]
fn a_newer_format_is_refused_by_the_call_and_left_untouched_by_the_generators() {
    if child_mode().is_some() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("uuidkit-use-state-newer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (called, by_env) = (dir.join("called"), dir.join("by-env"));
    let before = [newer_state_file(&called), newer_state_file(&by_env)];
    let out = child("child_meets_a_newer_format", "newer")
        .env(PATH, &called)
        .env("UUIDKIT_STATE", &by_env)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.contains("1 passed"), "{said}");
    for (path, (bytes, mtime)) in [called, by_env].iter().zip(before) {
        assert_eq!(std::fs::read(path).unwrap(), bytes, "{}", path.display());
        let now = std::fs::metadata(path).unwrap().modified().unwrap();
        assert_eq!(now, mtime, "{} was written", path.display());
        assert!(!PathBuf::from(format!("{}.tmp", path.display())).exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
