//! Starting the real daemon binary for a test, on sockets in a fresh directory.

#![allow(dead_code)] // each test file uses a part

use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_uuidkitd");

/// A fresh directory, removed on drop; readable by every user, so that a client run as
/// another user reaches the sockets in it and only their modes decide.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "uuidkitd-test-{name}-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        TempDir(p)
    }

    pub fn join(&self, s: &str) -> PathBuf {
        self.0.join(s)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running daemon, killed on drop.
pub struct Daemon {
    pub child: Child,
    pub socket: PathBuf,
    pub state: PathBuf,
}

impl Daemon {
    /// Starts `uuidkitd --socket <dir>/d.sock --state <dir>/state <extra>` and waits until
    /// it accepts connections (on `wait_for` too, when given).
    pub fn start(dir: &Path, extra: &[&str], wait_for: Option<&Path>) -> Daemon {
        let socket = dir.join("d.sock");
        let state = dir.join("state");
        Daemon::start_at(&socket, &state, extra, wait_for)
    }

    pub fn start_at(
        socket: &Path,
        state: &Path,
        extra: &[&str],
        wait_for: Option<&Path>,
    ) -> Daemon {
        let child = Command::new(BIN)
            .arg("--socket")
            .arg(socket)
            .arg("--state")
            .arg(state)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start uuidkitd");
        let mut d = Daemon {
            child,
            socket: socket.to_path_buf(),
            state: state.to_path_buf(),
        };
        d.wait_listening(socket);
        if let Some(p) = wait_for {
            d.wait_listening(p);
        }
        d
    }

    fn wait_listening(&mut self, p: &Path) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while UnixStream::connect(p).is_err() {
            if let Ok(Some(st)) = self.child.try_wait() {
                panic!("uuidkitd exited before listening on {}: {st}", p.display());
            }
            assert!(
                Instant::now() < deadline,
                "uuidkitd is not listening on {}",
                p.display()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Panics if the daemon has exited.
    pub fn assert_running(&mut self) {
        if let Ok(Some(st)) = self.child.try_wait() {
            panic!("uuidkitd exited: {st}");
        }
    }

    /// SIGKILL, and wait for it.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, and wait up to 10 s for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return st;
            }
            assert!(Instant::now() < deadline, "uuidkitd ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The 60-bit timestamp of a v1 or v6 UUID.
pub fn gregorian_ticks(u: &uuidkit::Uuid) -> u64 {
    match u.version() {
        uuidkit::Version::V1 => uuidkit::layout::v1::decode(u).unwrap().timestamp.ticks(),
        uuidkit::Version::V6 => uuidkit::layout::v6::decode(u).unwrap().timestamp.ticks(),
        v => panic!("not a Gregorian UUID: {v:?}"),
    }
}
