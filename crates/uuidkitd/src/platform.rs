//! The daemon's only `unsafe`: what `std` does not offer. (Signals are the library's,
//! `uuidkit::signals`, shared with `uuidkit gen`.) Sockets passed by systemd are adopted
//! from their descriptor numbers; the open-file limit is raised to what the system
//! allows, since every client holds a descriptor.

#![allow(unsafe_code)]

use std::os::fd::{FromRawFd, OwnedFd};

/// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
const LISTEN_FDS_START: i32 = 3;

/// The most descriptors taken from `LISTEN_FDS`: more would be a misconfigured unit.
const MAX_LISTEN_FDS: i32 = 16;

/// The listening sockets systemd passed (socket activation), with their names from
/// `LISTEN_FDNAMES`; empty when `LISTEN_PID` is not this process. Takes ownership of
/// descriptors 3 to 3 + `LISTEN_FDS` − 1, as the protocol says the service owns them.
pub fn listen_fds() -> Vec<(OwnedFd, Option<String>)> {
    let pid_ok = std::env::var("LISTEN_PID")
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
        == Some(std::process::id());
    let n = std::env::var("LISTEN_FDS")
        .ok()
        .and_then(|n| n.trim().parse::<i32>().ok())
        .unwrap_or(0);
    if !pid_ok || n <= 0 {
        return Vec::new();
    }
    let names: Vec<String> = std::env::var("LISTEN_FDNAMES")
        .map(|s| s.split(':').map(str::to_string).collect())
        .unwrap_or_default();
    (0..n.min(MAX_LISTEN_FDS))
        .filter_map(|i| {
            let fd = LISTEN_FDS_START + i;
            // SAFETY: `fcntl(F_GETFD)` only queries the descriptor; a closed one gives -1.
            if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
                return None;
            }
            // SAFETY: systemd passed this descriptor to this process (LISTEN_PID matched)
            // and nothing else in the process owns or closes it; it is open (checked
            // above). Whether it is a listening Unix socket is checked by the caller.
            let owned = unsafe { OwnedFd::from_raw_fd(fd) };
            Some((owned, names.get(i as usize).cloned()))
        })
        .collect()
}

/// Raises the soft limit on open files to the hard one; returns the limit now in force.
pub fn raise_open_file_limit() -> Option<u64> {
    // SAFETY: `getrlimit`/`setrlimit` read and write only the `rlimit` we own.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return None;
        }
        if r.rlim_cur < r.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: r.rlim_max,
                rlim_max: r.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                return Some(raised.rlim_cur as u64);
            }
        }
        Some(r.rlim_cur as u64)
    }
}

/// The uid of the process at the other end of `s` (`SO_PEERCRED`), for the fair share
/// of the lead (`lead.rs`); `u32::MAX` when the kernel does not say, so that such peers
/// share one budget rather than each getting its own.
pub fn peer_uid(s: &std::os::unix::net::UnixStream) -> u32 {
    use std::os::fd::AsRawFd;
    // SAFETY: `cred` is a valid, owned `ucred` and `len` its size, as `getsockopt`
    // requires for SO_PEERCRED; the descriptor is `s`'s, open for the call.
    unsafe {
        let mut cred: libc::ucred = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        let rc = libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        );
        if rc == 0 && len as usize == std::mem::size_of::<libc::ucred>() {
            cred.uid
        } else {
            u32::MAX
        }
    }
}
