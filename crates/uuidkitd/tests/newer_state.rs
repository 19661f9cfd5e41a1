//! A state file whose header names a newer format (`uuidkit-state 9`) is a newer
//! uuidkit's: uuidkitd refuses to start on it (exit 1, a message naming the file and both
//! versions, no socket bound) and leaves it byte for byte as it was, modification time
//! too. For contrast, a damaged file does not stop the daemon, and its first lease
//! rewrites it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use common::{BIN, Daemon, TempDir};
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::service::client::DaemonClient;
use uuidkit::store::{GeneratorKind, LeaseRequest, StateStore, read_state};

/// A sound state file written by this library, as `uuidkitd` leaves it.
fn sound_state(path: &Path) -> String {
    let t = 1_700_000_000_000u128 << 42;
    StateStore::open(path)
        .lease(&LeaseRequest::new(GeneratorKind::V7, t, t, 10))
        .unwrap();
    std::fs::read_to_string(path).unwrap()
}

/// Writes `bytes` to `path`, modified an hour ago so that any write shows whatever the
/// file system's time resolution; returns that time.
fn put(path: &Path, bytes: &[u8]) -> SystemTime {
    std::fs::write(path, bytes).unwrap();
    let mtime = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(mtime))
        .unwrap();
    mtime
}

/// `uuidkitd ARGS` run to its end; fails the test instead of hanging it when the daemon
/// starts serving (which it should not).
fn run_daemon(args: &[&std::ffi::OsStr], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args)
        .env_remove("STATE_DIRECTORY")
        .env_remove("LISTEN_FDS")
        .env_remove("LISTEN_PID")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("start uuidkitd");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "uuidkitd started on a newer state file:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn the_daemon_refuses_to_start_on_a_newer_state_file_and_leaves_it_untouched() {
    let dir = TempDir::new("newer-state");
    // By --state, and by systemd's STATE_DIRECTORY (the file is `state` in it).
    let by_flag = dir.join("flag/state");
    let by_unit = dir.join("unit/state");
    for path in [&by_flag, &by_unit] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = sound_state(path)
            .replacen("uuidkit-state 1\n", "uuidkit-state 9\n", 1)
            .replacen("\nv7 ", "\nepoch 3\nv7 ", 1);
        let mtime = put(path, text.as_bytes());
        let socket = dir.join("d.sock");
        let uuidd = dir.join("u.sock");
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "--socket".as_ref(),
            socket.as_os_str(),
            "--uuidd-socket".as_ref(),
            uuidd.as_os_str(),
        ];
        let state_dir = path.parent().unwrap();
        let env: Vec<(&str, &Path)> = if path == &by_flag {
            args.extend(["--state".as_ref(), path.as_os_str()]);
            vec![]
        } else {
            vec![("STATE_DIRECTORY", state_dir)]
        };
        let out = run_daemon(&args, &env);

        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", path.display());
        let expected = format!(
            "uuidkitd: state file {}: format version 9 is newer than this uuidkit reads (1); \
             left untouched: a newer uuidkit keeps its state there; not starting",
            path.display()
        );
        assert!(
            err.lines().count() == 1 && err.starts_with(&expected),
            "expected {expected:?}, got:\n{err}"
        );
        assert!(
            !socket.exists() && !uuidd.exists(),
            "a socket was bound before refusing"
        );
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            text,
            "the newer state file changed"
        );
        let now = std::fs::metadata(path).unwrap().modified().unwrap();
        assert_eq!(now, mtime, "the newer state file was written");
        assert!(!PathBuf::from(format!("{}.tmp", path.display())).exists());
    }
}

/// For contrast: a damaged file (here empty, or with a bad checksum) does not stop the
/// daemon, and the first lease rewrites it into a sound one.
#[test]
fn a_damaged_state_file_does_not_stop_the_daemon_and_is_rewritten() {
    type Damage = (&'static str, fn(&str) -> String);
    let damages: [Damage; 2] = [
        ("empty", |_| String::new()),
        ("bad checksum", |t| t.replacen("high=", "high=1", 1)),
    ];
    for (name, damage) in damages {
        let dir = TempDir::new("damaged-state");
        let state = dir.join("state");
        let damaged = damage(&sound_state(&state));
        put(&state, damaged.as_bytes());
        let mut daemon = Daemon::start(&dir.0, &[], None);
        let client = Arc::new(DaemonClient::new(daemon.socket.clone()));
        let mut g = V7Generator::new(V7Method::Counter).with_store(client);
        g.next();
        assert!(g.take_store_warnings().is_empty(), "{name}");
        daemon.assert_running();
        let snap = read_state(&state).unwrap();
        assert!(
            snap.damage.is_none() && snap.checksum_ok,
            "{name}: {:?}",
            snap.damage
        );
        assert_ne!(std::fs::read_to_string(&state).unwrap(), damaged, "{name}");
    }
}
