//! systemd socket activation: the daemon serves the sockets passed as descriptors 3 and
//! 4 (`LISTEN_FDS`, `LISTEN_PID`, `LISTEN_FDNAMES`), and leaves their files alone at exit.

use crate::common;

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

use common::{BIN, TempDir};
use uuidkit::service::client::DaemonClient;

#[test]
fn serves_the_sockets_systemd_passes() {
    let dir = TempDir::new("activation");
    let own = UnixListener::bind(dir.join("own.sock")).unwrap();
    let uuidd = UnixListener::bind(dir.join("uuidd.sock")).unwrap();
    let (own_fd, uuidd_fd) = (own.as_raw_fd(), uuidd.as_raw_fd());
    let mut cmd = Command::new("sh");
    // LISTEN_PID must be the daemon's PID: the shell's, which `exec` keeps.
    cmd.args([
        "-c",
        "LISTEN_PID=$$ LISTEN_FDS=2 LISTEN_FDNAMES=uuidd:uuidkit exec \"$0\" --state \"$1\"",
        BIN,
    ])
    .arg(dir.join("state"));
    // SAFETY: between fork and exec only `dup2`, which is async-signal-safe, on
    // descriptors that stay open in the parent until the child has started. Both go to
    // high numbers first: either may itself be 3 or 4. The order is reversed on purpose
    // (uuidd first): the names decide, not the positions.
    unsafe {
        cmd.pre_exec(move || {
            for (from, to) in [(uuidd_fd, 100), (own_fd, 101), (100, 3), (101, 4)] {
                if libc::dup2(from, to) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    drop((own, uuidd));
    // Killed if the test fails halfway.
    let mut child = common::Daemon {
        child,
        socket: dir.join("own.sock"),
        state: dir.join("state"),
    };

    let client = DaemonClient::new(dir.join("own.sock"));
    let mut status = None;
    for _ in 0..500 {
        match client.status() {
            Ok(s) => {
                status = Some(s);
                break;
            }
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let status = status.expect("the passed socket is served");
    assert_eq!(status.pid, child.child.id());

    let mut s = UnixStream::connect(dir.join("uuidd.sock")).unwrap();
    s.write_all(&[1]).unwrap();
    let mut reply = Vec::new();
    s.read_to_end(&mut reply).unwrap();
    assert_eq!(
        &reply[4..],
        b"5\0",
        "uuidd's get-max-op on the socket named uuidd"
    );

    assert!(child.terminate().success());
    assert!(dir.join("own.sock").exists() && dir.join("uuidd.sock").exists());
}
