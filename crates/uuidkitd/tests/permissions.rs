//! The socket's mode decides who may connect: a client running as `nobody` cannot reach
//! a 0600 socket of root's, and can reach a 0666 one.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use common::{Daemon, TempDir};

const NOBODY: u32 = 65534;

/// `EACCES` on Linux: what `connect` fails with when the socket's mode excludes the caller.
const EACCES: i32 = 13;

/// Connects to `sock` as `nobody`; the exit code is 0 or the connect errno.
const CONNECT: &str = "
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    sys.exit(e.errno)
";

fn connect_as_nobody(python: &str, sock: &Path) -> i32 {
    Command::new(python)
        .args(["-c", CONNECT])
        .arg(sock)
        .uid(NOBODY)
        .gid(NOBODY)
        .env_clear()
        .status()
        .expect("run python3 as nobody")
        .code()
        .unwrap_or(-1)
}

#[test]
fn a_client_excluded_by_the_mode_cannot_connect() {
    assert!(
        std::fs::metadata("/proc/self")
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .ok()
            == Some(0),
        "this test runs a client as nobody: run it as root (CI does)"
    );
    // The system interpreter: one under root's home would not run as nobody.
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("python3 is missing from /usr/bin: .ci/run installs it");
    for (mode, expect) in [("0600", EACCES), ("0666", 0)] {
        let dir = TempDir::new(&format!("perm-{mode}"));
        let d = Daemon::start(&dir.0, &["--socket-mode", mode], None);
        let m = std::fs::metadata(&d.socket).unwrap().permissions().mode() & 0o777;
        assert_eq!(format!("0{m:o}"), mode);
        assert_eq!(connect_as_nobody(python, &d.socket), expect, "mode {mode}");
    }
}
