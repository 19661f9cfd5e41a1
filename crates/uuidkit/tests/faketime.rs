//! libfaketime for the tests that set a process's clock back. One file for every test
//! binary that needs it: the library's (`mod faketime` in `it.rs`) and the command's
//! (`state_common` takes it by `#[path]`), so where it is looked for is written once.

use std::path::PathBuf;
use std::process::Command;

/// Where libfaketime is, or a failure that says how to get it: a test that sets a clock
/// back cannot do so without it, and must not pass without having done so.
pub fn libfaketime() -> PathBuf {
    let candidates = [
        "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1",
        "/usr/local/lib/faketime/libfaketime.so.1",
    ];
    candidates
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .unwrap_or_else(|| {
            panic!(
                "libfaketime is not installed (looked for {candidates:?}); these tests set \
                 the clock back with it. Install the faketime package: .ci/run does \
                 (apt-get install faketime)"
            )
        })
}

/// `cmd` with its clock set by libfaketime's `FAKETIME` (`-1h`, `@2030-01-01 00:00:00`).
pub fn faked(cmd: &mut Command, faketime: &str) {
    cmd.env("LD_PRELOAD", libfaketime())
        .env("FAKETIME", faketime);
}
