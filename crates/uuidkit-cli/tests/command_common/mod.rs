//! What the command's plain end-to-end tests share: the binary, run with a state file of
//! the test's own (never the user's) and no `UUIDKIT_NODE` inherited.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use assert_cmd::Command;

/// `uuidkit`, with the environment these tests expect.
pub fn uuidkit() -> Command {
    let mut c = Command::cargo_bin("uuidkit").unwrap();
    c.env("UUIDKIT_STATE", test_state());
    c.env_remove("UUIDKIT_NODE");
    c
}

/// A state file for this test binary's runs of `gen`, under the temporary directory.
pub fn test_state() -> std::path::PathBuf {
    std::env::temp_dir()
        .join(format!("uuidkit-test-state-{}", std::process::id()))
        .join("state")
}
