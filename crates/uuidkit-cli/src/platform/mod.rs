//! The one place where the command uses `unsafe`: what must run before Rust's runtime
//! starts. The runtime reopens a closed descriptor 0, 1 or 2 on `/dev/null` before
//! `main`; a probe in the executable's initialiser table runs earlier and records which
//! of them were closed, so the command can report a closed standard input or output
//! instead of reading nothing or writing into nothing. Checked end to end by the tests
//! that run the command with `<&-` and `>&-` (`tests/cli.rs`).

#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU8, Ordering};

/// Bit `fd` set: descriptor `fd` (0, 1 or 2) was closed when the process started.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// Records which of the descriptors 0, 1 and 2 are closed. Runs before the Rust runtime
/// opens `/dev/null` in their place, from the executable's initialiser table.
extern "C" fn probe_standard_descriptors() {
    let mut closed = 0;
    for fd in 0..3 {
        // SAFETY: F_GETFD only asks for the descriptor's flags; it reads and changes no
        // memory of this process, whatever `fd` is.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            closed |= 1 << fd;
        }
    }
    CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

/// The entry in the initialiser table (ELF's `.init_array`, Mach-O's `__mod_init_func`)
/// that makes the loader call [`probe_standard_descriptors`] before `main`. Elsewhere
/// there is no probe and a closed descriptor behaves as the runtime leaves it.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    target_os = "illumos",
    target_os = "solaris"
))]
#[used]
// SAFETY: the entry is a function pointer with the C calling convention, what the loader
// expects in this table; the function touches only an atomic.
#[unsafe(link_section = ".init_array")]
static PROBE: extern "C" fn() = probe_standard_descriptors;

#[cfg(target_vendor = "apple")]
#[used]
// SAFETY: as above, for the Mach-O initialiser table.
#[unsafe(link_section = "__DATA,__mod_init_func")]
static PROBE: extern "C" fn() = probe_standard_descriptors;

/// Whether descriptor `fd` was closed when the process started.
pub fn closed_at_start(fd: u8) -> bool {
    CLOSED_AT_START.load(Ordering::Relaxed) & (1 << fd) != 0
}
