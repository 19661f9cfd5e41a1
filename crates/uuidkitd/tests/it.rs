//! The service's integration tests: one test binary (`cargo test -p uuidkitd --test it`),
//! a module per area in the file of that name beside this one; what they share (starting
//! the daemon binary, temporary directories) is in `common`.
//!
//! Every test runs as a thread of this one process; each starts daemons of its own, on
//! sockets in a directory of its own (`common::TempDir`), and none changes a
//! process-wide setting. The one fixed path, libuuid's `/run/uuidd/request`, is served
//! by one test only (`uuidd::libuuid_clients_get_the_daemons_v1_uuids`).

mod common;
#[path = "../../uuidkit/tests/etcd_cluster.rs"]
mod etcd_cluster;

mod activation;
mod concurrent;
mod fleet;
mod hostile;
mod lead;
mod newer_state;
mod permissions;
mod restart;
mod units;
mod uuidd;
