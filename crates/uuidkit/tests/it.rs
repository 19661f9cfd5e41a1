//! The library's integration tests: one test binary (`cargo test -p uuidkit --test it`),
//! a module per area in the file of that name beside this one; what several modules
//! share is in `support`, `faketime` and `etcd_cluster` (the command's tests take them too)
//! and `db_common` (the database tests').
//!
//! Every test runs as a thread of this one process, beside any other test of any
//! module. A test that needs a process of its own (one whose process-wide generators
//! nothing has used yet: `use_state_file`, `UUIDKIT_STATE`, the first use racing a
//! `fork`) runs this binary again for just a test of its own, named with
//! `support::test_name` and `--exact`, and an environment variable that tells it so;
//! none of them changes a process-wide setting in this process. The `fork` tests fork
//! this process while other tests' threads run, which is one of the cases they are about.

mod etcd_cluster;
mod faketime;
mod support;

mod clock_seq_pool;
mod collisions_simulation;
mod db_common;
mod db_postgres;
mod db_sqlite;
mod draft_generators;
mod draft_layouts;
mod draft_store;
mod encodings_python;
mod etcd_harness;
#[cfg(feature = "etcd")]
mod fleet;
mod fork;
mod generators;
mod layouts;
mod process_wide_state_file;
mod process_wide_store;
mod rfc_vectors;
mod store_generators;
