//! Stateful generators, and the process-wide ones behind [`v1`], [`v4`], [`v6`],
//! [`v7`](fn@v7), [`v8`](fn@v8), v7's other methods ([`v7_of`]) and the 2021 draft's
//! layouts ([`draft()`]): what the command, the service and the Python package share.
//!
//! - [`gregorian`]: v1, v2 and v6 (100 ns since 1582, clock sequence, node ID).
//! - [`v7`](mod@v7): v7 (Unix milliseconds), all three methods of RFC 9562 §6.2.
//! - [`v8`](mod@v8): time-based v8 (Appendix B.1 layout).
//! - [`draft`](mod@draft): the 2021 draft's v7 and v8 layouts (as version 8); [`machine_id`]: the
//!   draft's machine-ID bits, for those and for v7.
//! - [`timed`]: the one shell of v7, v8 and the draft layouts, [`Timed`](timed::Timed),
//!   into which each plugs its [`Stamp`](timed::Stamp): its units, its packing, its
//!   store blocks.
//! - [`clock_seq_pool`]: one (node, clock sequence) per live Gregorian generator in a
//!   process; [`sharded`]: Gregorian generators side by side, one per thread.
//!
//! Each generator is a state machine over a [`Clock`](crate::time::Clock) and a random
//! source ([`RngCore`](crate::random::RngCore)): create and own one for full control, or
//! call the functions here, which share one generator per version per process.
//!
//! # Process-wide guarantees
//! From every thread of a process: every UUID returned by these functions is distinct,
//! and for v6, v7 and v8 each is greater than every UUID of the same version the process
//! generated before it ([`v7_fill`] included). v1, v6 and v8 are handed out under one
//! lock per version; v7 takes no lock: its state is one 64-bit word advanced by
//! `fetch_add`, whose order is the order of the UUIDs (see [`v7`](mod@v7)).
//!
//! # Batches
//! [`v4_fill`] and [`v7_fill`] fill a slice as many calls would, with one visit to the
//! thread's state per batch (v7: per 1,024), so they cost a fraction of as many calls.
//!
//! # Across processes and restarts
//! **Without a state file** (the default) the guarantees above hold within one process
//! only. Another process, or this program run again, starts from state of its own: its
//! v6, v7 and v8 UUIDs can sort below this process's (a clock set back makes that
//! certain), and its UUIDs are kept apart from this process's only by chance: v1 and v6
//! by a clock sequence drawn at random in each process (and, with the default `static`
//! node strategy, a random node ID), v7 and v8 by their random bits.
//!
//! **With a state file** the process-wide v1, v6, v7 and v8 generators lease their
//! timestamps from that [state store](crate::store), shared with every process (and the
//! `uuidkit` command) that names the same file: no two of them ever make the same UUID,
//! and each lease starts above every position handed out before it, after a restart, a
//! crash or a clock set back. So a process started after another has ended makes only
//! greater v6, v7 and v8 UUIDs than it did; processes running at the same time
//! interleave by blocks of leased positions. v1 and v6 use the host's hash node (with
//! the default `static` node strategy), so the processes share one entry of the file and
//! one clock sequence (the `random` strategy keeps no state: a new node a UUID keeps
//! them apart). v7 then takes a lock as the others do. This holds while the file can be
//! used: one that cannot (unwritable, locked for more than 2 s, or written by a newer
//! uuidkit in a format this one does not read, which is left as it is) leaves the
//! generators in memory, and [`take_store_warnings`] says so.
//!
//! Choose the file with one call before the first UUID: [`use_state_file`] (a path of
//! your own), or [`use_default_state_file`] (the file the `uuidkit` command uses by
//! default, so that the program and the command never collide); or set the environment
//! variable `UUIDKIT_STATE` ([`STATE_ENV`]) to its path. A call wins over the variable.
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("uuidkit-doc-state-{}", std::process::id()));
//! uuidkit::use_state_file(dir.join("state"))?;
//! let a = uuidkit::v7(); // leased from the file: no other process that uses it gets `a`
//! assert!(uuidkit::v7() > a);
//! assert!(uuidkit::generator::take_store_warnings().is_empty());
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), uuidkit::generator::StateFileError>(())
//! ```
//!
//! # fork
//! A child process can always generate, whatever its parent's other threads were doing
//! when it forked: the thread calling `fork` takes every process-wide lock just before
//! and releases it just after (`pthread_atfork`), so the child never inherits a lock
//! held by a thread it does not have. The child then takes new random bits, a new clock
//! sequence and (with the `static` node strategy) a new node; its v7 UUIDs continue a
//! millisecond after the last one before the fork, from counters of its own.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

pub mod clock_seq_pool;
pub mod draft;
mod error;
pub mod gregorian;
pub(crate) mod leased;
/// Machine IDs, which live with the values below the generators ([`crate::node`]).
pub use crate::node::machine_id;
pub(crate) mod monotonic;
pub(crate) mod process;
pub mod sharded;
mod state_file;
pub mod timed;
pub mod v7;
pub mod v8;

pub use error::GenError;
pub use process::{
    draft, host_node, next_v1_timestamp, next_v6_timestamp, take_store_warnings, try_v1, try_v6,
    v1, v4, v4_fill, v6, v7, v7_fill, v7_of, v8,
};
#[cfg(unix)]
pub use state_file::daemon_from_env;
#[cfg(unix)]
pub use state_file::use_daemon;
pub use state_file::{
    STATE_ENV, StateFileError, process_lease_source, state_file_from_env, use_default_state_file,
    use_state_file,
};

use draft::DraftGenerator;
use gregorian::GregorianGenerator;
use process::{DRAFT, V1, V6, V7_PRECISION, V7_RANDOM, V7_STORED, V8};
use state_file::STATE_PATH;
use v7::V7Generator;
use v8::V8Generator;

// The locks of the process-wide generators ([`process`], [`state_file`], [`clock_seq_pool`])
// are all taken through `lock`, here above the files that hold them, because the fork
// handlers it sets must know every one of them.

/// A poisoned lock only means another thread panicked while holding it; the generator
/// state inside is still consistent (each step is a few assignments), so go on with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Before the first lock is taken: the fork handlers that keep the locks consistent.
    // A flag, not a `Once`: setting them twice is harmless, waiting could hang a child.
    if !FORK_HANDLERS_SET.load(Ordering::Relaxed) {
        crate::platform::set_fork_handlers(lock_all_for_fork, unlock_all_after_fork);
        FORK_HANDLERS_SET.store(true, Ordering::Relaxed);
    }
    m.lock().unwrap_or_else(|e| e.into_inner())
}

static FORK_HANDLERS_SET: AtomicBool = AtomicBool::new(false);

type HeldForFork = (
    MutexGuard<'static, Option<GregorianGenerator>>,
    MutexGuard<'static, Option<GregorianGenerator>>,
    MutexGuard<'static, Option<V7Generator>>,
    MutexGuard<'static, Option<V8Generator>>,
    MutexGuard<'static, Option<V7Generator>>,
    MutexGuard<'static, Option<V7Generator>>,
    MutexGuard<'static, [Option<DraftGenerator>; crate::layout::Layout::ALL.len()]>,
    MutexGuard<'static, Option<PathBuf>>,
    state_file::DaemonHeld,
    MutexGuard<'static, clock_seq_pool::Pool>,
);

thread_local! {
    /// The locks the thread calling `fork` holds from just before it until just after,
    /// in the parent and in the child.
    static HELD_FOR_FORK: RefCell<Option<HeldForFork>> = const { RefCell::new(None) };
}

/// Runs in the thread that calls `fork`, just before it: takes every process-wide lock
/// (always in this order: a generator's lock is taken before the clock-sequence pool's,
/// the one lock taken inside another), so no other thread is inside a
/// generator when the process is copied. Without it, a child copied while another thread
/// held a lock would wait forever for a thread it does not have.
fn lock_all_for_fork() {
    let held = (
        V1.lock().unwrap_or_else(|e| e.into_inner()),
        V6.lock().unwrap_or_else(|e| e.into_inner()),
        V7_STORED.lock().unwrap_or_else(|e| e.into_inner()),
        V8.lock().unwrap_or_else(|e| e.into_inner()),
        V7_RANDOM.lock().unwrap_or_else(|e| e.into_inner()),
        V7_PRECISION.lock().unwrap_or_else(|e| e.into_inner()),
        DRAFT.lock().unwrap_or_else(|e| e.into_inner()),
        // Taken inside generator locks (when one is created), so after them; never
        // together with the pool's.
        STATE_PATH.lock().unwrap_or_else(|e| e.into_inner()),
        // Taken inside STATE_PATH's (by `use_daemon`), so after it.
        state_file::lock_daemon_for_fork(),
        // Taken inside generator locks (by `next`), so after them.
        clock_seq_pool::lock_for_fork(),
    );
    HELD_FOR_FORK.with(|h| *h.borrow_mut() = Some(held));
}

/// Runs just after `fork`, in the parent and in the child (where the thread that forked
/// is the only one): releases what [`lock_all_for_fork`] took.
fn unlock_all_after_fork() {
    HELD_FOR_FORK.with(|h| drop(h.borrow_mut().take()));
}
