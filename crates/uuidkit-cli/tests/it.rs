//! The command's integration tests: one test binary (`cargo test -p uuidkit-cli --test
//! it`), a module per area in the file of that name beside this one (`cli`, the plain
//! end-to-end tests, has one for each command in `cli/`). What they share: running the
//! command with a state file of the binary's own (`command_common`), and temporary
//! directories, clean environments, libfaketime and the daemon's socket (`state_common`).
//!
//! Every test runs as a thread of this one process, beside any other test of any module,
//! and runs the built `uuidkit` (and `uuidkitd`) as processes of their own: each with the
//! environment it sets, files in a directory of its own, and none changes a process-wide
//! setting of this process.

mod command_common;
mod state_common;

mod check_stream;
mod cli;
mod collisions;
mod daemon;
mod daemon_clock;
mod docs;
mod fleet;
mod forms;
mod gregorian_clock_end;
mod gregorian_processes;
mod layouts_cli;
mod layouts_python;
mod node_values;
mod python_crosscheck;
mod readme;
mod state_clock;
mod state_command;
mod state_damage;
mod state_names;
mod state_newer_format;
mod state_processes;
mod state_restart;
mod time_text;
