//! Stateful generators, and the process-wide ones behind [`v1`], [`v4`], [`v6`], [`v7`]
//! and [`v8`].
//!
//! - [`gregorian`]: v1, v2 and v6 (100 ns since 1582, clock sequence, node ID).
//! - [`unix`]: v7 (Unix milliseconds), all three methods of RFC 9562 §6.2.
//! - [`custom`]: time-based v8 (Appendix B.1 layout).
//! - [`draft`]: the 2021 draft's v7 and v8 layouts (as version 8); [`machine_id`]: the
//!   draft's machine-ID bits, for those and for v7.
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
//! `fetch_add`, whose order is the order of the UUIDs (see [`unix`]).
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

use core::fmt;
use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub mod clock_seq_pool;
pub mod custom;
pub mod draft;
pub mod gregorian;
pub(crate) mod leased;
pub mod machine_id;
pub(crate) mod monotonic;
pub mod sharded;
pub mod unix;

use crate::Uuid;
use crate::store::{StateStore, StoreWarning};
use crate::time::UnixTime;

/// Why a generator could not give a UUID.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenError {
    /// Every 100 ns tick up to a millisecond ahead of the clock is used, and the
    /// generator was told to report it ([`gregorian::OverrunPolicy::Error`]).
    Overrun {
        /// The last timestamp handed out.
        timestamp: UnixTime,
    },
    /// The timestamp field is used up to its last value: the clock reads at or past the
    /// end of the 60-bit Gregorian range (5236-03-31), and every later UUID would need a
    /// timestamp the field cannot hold. Waiting cannot help; a clock set that far ahead
    /// needs correcting.
    TimestampExhausted {
        /// The last timestamp the field holds.
        timestamp: UnixTime,
    },
    /// Another live Gregorian generator of this process holds the clock sequence given
    /// for this node ([`clock_seq_pool`]).
    ClockSequenceInUse {
        /// The node.
        node: crate::NodeId,
        /// The clock sequence asked for.
        clock_seq: crate::layout::ClockSequence,
    },
    /// Live Gregorian generators of this process hold all 16,384 clock sequences of the
    /// node ([`clock_seq_pool`]).
    ClockSequencesExhausted {
        /// The node.
        node: crate::NodeId,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Overrun { timestamp } => write!(
                f,
                "overrun: every 100 ns tick up to {} is used; retry when the clock has moved on",
                timestamp.to_rfc3339(7)
            ),
            GenError::TimestampExhausted { timestamp } => write!(
                f,
                "the 60-bit Gregorian timestamp is used up to its last tick, {}: \
                 no later v1/v2/v6 UUID can be made (is the clock set past the year 5236?)",
                timestamp.to_rfc3339(7)
            ),
            GenError::ClockSequenceInUse { node, clock_seq } => write!(
                f,
                "clock sequence {} of node {node} is held by another live generator in this \
                 process: no two may share a (node, clock sequence), or they would make the \
                 same UUIDs; give another clock sequence (or none: a free one is chosen)",
                clock_seq.get()
            ),
            GenError::ClockSequencesExhausted { node } => write!(
                f,
                "all 16,384 clock sequences of node {node} are held by live generators in \
                 this process: no two may share a (node, clock sequence), or they would make \
                 the same UUIDs; drop one, or give this generator another node"
            ),
        }
    }
}

impl std::error::Error for GenError {}

type Shared<T> = Mutex<Option<T>>;

// The process-wide generators that need a lock. Each is created on first use inside its
// own lock (not in a `LazyLock`, whose initialisation, caught by `fork` half done in
// another thread, would leave the child waiting forever).
static V1: Shared<gregorian::GregorianGenerator> = Mutex::new(None);
static V6: Shared<gregorian::GregorianGenerator> = Mutex::new(None);
static V7: unix::ProcessV7 = unix::ProcessV7::new();
/// v7 with a state file ([`use_state_file`], `UUIDKIT_STATE`): a lease can need the
/// file, so a lock.
static V7_STORED: Shared<unix::UnixGenerator> = Mutex::new(None);
static V8: Shared<custom::CustomGenerator> = Mutex::new(None);

/// The name of the environment variable that gives the process-wide generators a state
/// store ([`crate::store`]); unset or empty, they keep their state in memory only (a
/// library does not start writing files on its own), unless [`use_state_file`] or
/// [`use_default_state_file`] chose one.
pub const STATE_ENV: &str = "UUIDKIT_STATE";

/// The state file [`use_state_file`] chose; once the generators have started, the one
/// they use (from the call or from `UUIDKIT_STATE`), or `None` for memory. A lock that
/// `fork` takes with the others, not a `OnceLock`, whose initialisation caught half done
/// by `fork` could leave a child waiting.
static STATE_PATH: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Whether the process-wide generators use a state file: 0 not decided yet (no
/// generator has started), 1 no, 2 yes. Decided once, at the first UUID, and never
/// changed after: generators of one process must not disagree on where their state is.
static STATE_SET: AtomicU8 = AtomicU8::new(0);

/// Whether the process-wide generators use a state file, deciding it on the first call:
/// the file [`use_state_file`] chose, else `UUIDKIT_STATE` (read once: the environment of
/// a running process is not expected to change).
fn state_set() -> bool {
    match STATE_SET.load(Ordering::Acquire) {
        0 => decide_state(),
        v => v == 2,
    }
}

#[cold]
fn decide_state() -> bool {
    let mut path = lock(&STATE_PATH);
    // Another thread may have decided while this one waited for the lock.
    match STATE_SET.load(Ordering::Acquire) {
        0 => {}
        v => return v == 2,
    }
    if path.is_none() {
        *path = std::env::var_os(STATE_ENV)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
    }
    let set = path.is_some();
    STATE_SET.store(if set { 2 } else { 1 }, Ordering::Release);
    set
}

/// The store of the process-wide generators, opened anew for each of them (a store holds
/// no state of its own but its path and settings); `None` to stay in memory.
fn process_store() -> Option<Arc<StateStore>> {
    if !state_set() {
        return None;
    }
    lock(&STATE_PATH)
        .clone()
        .map(|p| Arc::new(StateStore::open(p)))
}

/// Why [`use_state_file`] or [`use_default_state_file`] did not set the state file.
/// Nothing changed: the process-wide generators go on as they would have without the
/// call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateFileError {
    /// A process-wide generator (v1, v6, v7 or v8) has made a UUID already, so where
    /// their state is was decided then; it is never changed after, or UUIDs made before
    /// and after could collide or go out of order.
    AlreadyStarted {
        /// The state file they use, or `None` for memory.
        in_use: Option<PathBuf>,
    },
    /// The file cannot be used: its directory cannot be created, or its lock file cannot
    /// be created or locked, or the file cannot be read, or its header names a newer
    /// format than this library reads ([`Problem::FutureVersion`](crate::store::Problem),
    /// a newer uuidkit's file, which is left as it is).
    Unusable {
        /// The state file asked for.
        path: PathBuf,
        /// What failed, naming the file.
        problem: crate::store::Problem,
    },
    /// [`use_default_state_file`]: there is no default, because neither `XDG_STATE_HOME`
    /// nor `HOME` is an absolute path.
    NoDefaultPath,
}

impl fmt::Display for StateFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateFileError::AlreadyStarted { in_use } => {
                let now = match in_use {
                    Some(p) => format!("they use the state file {}", p.display()),
                    None => "they keep their state in memory".to_string(),
                };
                write!(
                    f,
                    "the process-wide generators have made UUIDs already and {now}: the \
                     state file must be chosen before the first UUID of the process"
                )
            }
            StateFileError::Unusable { path, problem } => {
                write!(f, "state file {}: {problem}", path.display())
            }
            StateFileError::NoDefaultPath => write!(
                f,
                "no default state file: neither XDG_STATE_HOME nor HOME is an absolute \
                 path; give a path to use_state_file"
            ),
        }
    }
}

impl std::error::Error for StateFileError {}

/// Makes the process-wide generators ([`v1`], [`v6`], [`v7`], [`v7_fill`], [`v8`]) keep
/// their state in the file `path`, shared with every other process that uses it: see
/// [Across processes and restarts](self#across-processes-and-restarts) for what that
/// guarantees, and what holds without it (uniqueness and order within this process
/// only). Call it before the first UUID of the process; it wins over `UUIDKIT_STATE`.
///
/// It checks the file now, so that a mistake shows here rather than as a warning
/// later: it creates the directory if missing, creates and locks the lock file beside
/// the file (`path` + `.lock`), and reads the file (a missing file is first use and
/// fine; a damaged one is rewritten at the first lease, with a warning in
/// [`take_store_warnings`]; one in a newer format is refused and left as it is). A file
/// that becomes unusable later (a newer uuidkit rewrote it in its format, say) leaves
/// the generators in memory, with a warning there too, and is not changed. Calling it
/// again before the first UUID replaces the choice.
///
/// # Errors
/// [`StateFileError::AlreadyStarted`] once a process-wide generator has made a UUID;
/// [`StateFileError::Unusable`] when the checks fail (the problem names the file and
/// the operation). Either way nothing changes.
///
/// ```
/// use uuidkit::generator::{use_state_file, StateFileError};
/// let dir = std::env::temp_dir().join(format!("uuidkit-doc-use-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("a-file"), "").unwrap();
/// // Under a file, not a directory: refused, and nothing changes.
/// let bad = use_state_file(dir.join("a-file").join("state")).unwrap_err();
/// assert!(matches!(bad, StateFileError::Unusable { .. }), "{bad}");
/// use_state_file(dir.join("state"))?;
/// let a = uuidkit::v7();
/// assert!(uuidkit::v7() > a);
/// // Too late to change it now.
/// let late = use_state_file(dir.join("other")).unwrap_err();
/// assert_eq!(late, StateFileError::AlreadyStarted { in_use: Some(dir.join("state")) });
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), StateFileError>(())
/// ```
pub fn use_state_file(path: impl Into<PathBuf>) -> Result<(), StateFileError> {
    let path = path.into();
    let mut chosen = lock(&STATE_PATH);
    if STATE_SET.load(Ordering::Acquire) != 0 {
        return Err(StateFileError::AlreadyStarted {
            in_use: chosen.clone(),
        });
    }
    // Under the lock, so that no generator starts between the check and the choice.
    check_state_file(&path).map_err(|problem| StateFileError::Unusable {
        path: path.clone(),
        problem,
    })?;
    *chosen = Some(path);
    Ok(())
}

/// [`use_state_file`] with the file the `uuidkit` command uses when given neither
/// `--state` nor `UUIDKIT_STATE`: `$XDG_STATE_HOME/uuidkit/state`, else
/// `$HOME/.local/state/uuidkit/state` ([`crate::store::default_path`]). This program and
/// the command run by the same user then never make the same UUID. Returns the path.
///
/// # Errors
/// As [`use_state_file`], and [`StateFileError::NoDefaultPath`] when neither variable is
/// an absolute path.
///
/// ```no_run
/// let path = uuidkit::use_default_state_file()?;
/// println!("UUIDs leased from {}", path.display());
/// let id = uuidkit::v7();
/// # let _ = id;
/// # Ok::<(), uuidkit::generator::StateFileError>(())
/// ```
pub fn use_default_state_file() -> Result<PathBuf, StateFileError> {
    let path = crate::store::default_path().ok_or(StateFileError::NoDefaultPath)?;
    use_state_file(path.clone())?;
    Ok(path)
}

/// The checks of [`use_state_file`]: the lock taken (which creates the directory and the
/// lock file) and released, the file read.
fn check_state_file(path: &std::path::Path) -> Result<(), crate::store::Problem> {
    use crate::store::{DEFAULT_LOCK_TIMEOUT, FileStorage, MAX_FILE_SIZE, Storage};
    let storage = FileStorage::new(path);
    let _lock = storage.lock(DEFAULT_LOCK_TIMEOUT)?;
    // A newer format's file cannot be used either (every lease would be refused), and
    // is best reported here, before the program relies on it.
    match storage.read(MAX_FILE_SIZE)? {
        Some(bytes) => crate::store::newer_format(&bytes).map_or(Ok(()), Err),
        None => Ok(()),
    }
}

/// A poisoned lock only means another thread panicked while holding it; the generator
/// state inside is still consistent (each step is a few assignments), so go on with it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
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
    MutexGuard<'static, Option<gregorian::GregorianGenerator>>,
    MutexGuard<'static, Option<gregorian::GregorianGenerator>>,
    MutexGuard<'static, Option<unix::UnixGenerator>>,
    MutexGuard<'static, Option<custom::CustomGenerator>>,
    MutexGuard<'static, Option<PathBuf>>,
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
        // Taken inside generator locks (when one is created), so after them; never
        // together with the pool's.
        STATE_PATH.lock().unwrap_or_else(|e| e.into_inner()),
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

fn gregorian_next(
    m: &Shared<gregorian::GregorianGenerator>,
    make: fn() -> gregorian::GregorianGenerator,
) -> Result<Uuid, GenError> {
    lock(m)
        .get_or_insert_with(|| match process_store() {
            Some(store) => make().with_store(store),
            None => make(),
        })
        .next()
}

/// The warnings of the process-wide generators' state file since the last
/// call: a damaged file that was repaired, or a store that could not be used, so that
/// the generator went on in memory. Empty without a store. The library never prints.
///
/// ```
/// let _ = uuidkit::v7();
/// assert!(uuidkit::generator::take_store_warnings().is_empty());
/// ```
pub fn take_store_warnings() -> Vec<StoreWarning> {
    let mut all = Vec::new();
    for g in [&V1, &V6] {
        if let Some(g) = lock(g).as_mut() {
            all.extend(g.take_store_warnings());
        }
    }
    if let Some(g) = lock(&V7_STORED).as_mut() {
        all.extend(g.take_store_warnings());
    }
    if let Some(g) = lock(&V8).as_mut() {
        all.extend(g.take_store_warnings());
    }
    all
}

/// A v1 UUID from the process-wide generator (node strategy from `UUIDKIT_NODE`, waits
/// on overrun), or [`GenError::TimestampExhausted`] when the clock reads past 5236.
///
/// ```
/// assert_eq!(uuidkit::try_v1()?.version(), uuidkit::Version::V1);
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
///
/// # Errors
///
/// [`GenError::TimestampExhausted`] when the clock reads past 5236.
pub fn try_v1() -> Result<Uuid, GenError> {
    gregorian_next(&V1, gregorian::GregorianGenerator::v1)
}

/// A v1 UUID from the process-wide generator (node strategy from `UUIDKIT_NODE`, waits
/// on overrun).
///
/// # Panics
/// Only when the system clock reads past the end of the v1 timestamp range
/// (5236-03-31T21:21:00.6846975Z), where no further v1 UUID exists; [`try_v1`] returns
/// that as an error instead.
///
/// ```
/// assert_eq!(uuidkit::v1().version(), uuidkit::Version::V1);
/// ```
pub fn v1() -> Uuid {
    try_v1().unwrap_or_else(|e| panic!("uuidkit::v1: {e}"))
}

/// A v4 UUID: 122 bits from the CSPRNG ([`crate::random::Csprng`]).
///
/// ```
/// assert_ne!(uuidkit::v4(), uuidkit::v4());
/// ```
#[inline]
pub fn v4() -> Uuid {
    crate::layout::v4::encode(crate::random::bytes16())
}

/// Fills `out` with v4 UUIDs, as many calls to [`v4`] would, but drawing the random bits
/// of the whole batch in runs of the thread's keystream, with one visit to its state.
///
/// ```
/// let mut batch = [uuidkit::Uuid::NIL; 100];
/// uuidkit::v4_fill(&mut batch);
/// assert!(batch.iter().all(|u| u.version() == uuidkit::Version::V4));
/// assert_ne!(batch[0], batch[99]);
/// ```
#[inline]
pub fn v4_fill(out: &mut [Uuid]) {
    crate::random::fill_v4(out)
}

/// A v6 UUID from the process-wide generator, or [`GenError::TimestampExhausted`] when
/// the clock reads past 5236.
///
/// ```
/// let a = uuidkit::try_v6()?;
/// assert!(uuidkit::try_v6()? > a);
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
///
/// # Errors
///
/// [`GenError::TimestampExhausted`] when the clock reads past 5236.
pub fn try_v6() -> Result<Uuid, GenError> {
    gregorian_next(&V6, gregorian::GregorianGenerator::v6)
}

/// A v6 UUID from the process-wide generator: greater than every v6 UUID this process
/// generated before.
///
/// # Panics
/// Only when the system clock reads past the end of the v6 timestamp range
/// (5236-03-31T21:21:00.6846975Z); [`try_v6`] returns that as an error instead.
///
/// ```
/// let a = uuidkit::v6();
/// assert!(uuidkit::v6() > a);
/// ```
pub fn v6() -> Uuid {
    try_v6().unwrap_or_else(|e| panic!("uuidkit::v6: {e}"))
}

thread_local! {
    /// This thread's part of the process-wide v7 generator (its clock gate and key).
    static V7_THREAD: RefCell<unix::V7Thread> = const { RefCell::new(unix::V7Thread::new()) };
}

/// A v7 UUID (Method 1, 42-bit counter) from the process-wide generator: greater than
/// every v7 UUID this process generated before, from any thread.
///
/// # Timestamp
/// Its millisecond is the system clock's, read by this thread less than a millisecond
/// earlier: where the CPU has an invariant time-stamp counter, the clock is read again
/// only once the counter says its millisecond may have ended (the
/// [`unix`] module documents the gate and its bound), which takes the clock read (about
/// 25 ns) out of most calls. A clock set back leaves the timestamp standing until the
/// clock catches up; the UUIDs keep increasing.
///
/// ```
/// let a = uuidkit::v7();
/// assert!(uuidkit::v7() > a);
/// ```
#[inline]
pub fn v7() -> Uuid {
    if state_set() {
        return stored_v7();
    }
    V7_THREAD.with(|th| {
        V7.next_with(
            &mut th.borrow_mut(),
            &crate::time::SystemClock,
            &crate::platform::tsc::CpuTicks,
            crate::platform::fork_generation_relaxed(),
        )
    })
}

/// Fills `out` with v7 UUIDs from the process-wide generator: strictly increasing, and
/// in the same global order as [`v7`] (every UUID of the batch is greater than every v7
/// UUID the process made before the call, and less than every one after it; calls from
/// other threads at the same time interleave with it in chunks). Per chunk of 1,024 it
/// checks the clock once, takes its positions with one atomic addition and its random
/// bits in one visit to the thread's CSPRNG, which makes it several times faster than as
/// many calls, and lets threads scale where single calls all take turns on one cache
/// line.
///
/// ```
/// let before = uuidkit::v7();
/// let mut batch = [uuidkit::Uuid::NIL; 500];
/// uuidkit::v7_fill(&mut batch);
/// assert!(batch[0] > before);
/// assert!(batch.windows(2).all(|w| w[0] < w[1]));
/// assert!(uuidkit::v7() > batch[499]);
/// ```
pub fn v7_fill(out: &mut [Uuid]) {
    if state_set() {
        return stored_v7_fill(out);
    }
    V7_THREAD.with(|th| {
        V7.fill_with(
            &mut th.borrow_mut(),
            &crate::time::SystemClock,
            &crate::platform::tsc::CpuTicks,
            crate::platform::fork_generation_relaxed(),
            out,
        )
    })
}

fn stored_generator(g: &mut Option<unix::UnixGenerator>) -> &mut unix::UnixGenerator {
    g.get_or_insert_with(|| {
        let g = unix::UnixGenerator::new(unix::V7Method::Counter);
        match process_store() {
            Some(store) => g.with_store(store),
            None => g,
        }
    })
}

#[cold]
fn stored_v7() -> Uuid {
    stored_generator(&mut lock(&V7_STORED)).next()
}

/// With a store every UUID is admitted through the lease (no fast path), under the
/// lock; the clock is read once per chunk of 1,024.
#[cold]
fn stored_v7_fill(out: &mut [Uuid]) {
    let mut g = lock(&V7_STORED);
    let g = stored_generator(&mut g);
    for chunk in out.chunks_mut(1024) {
        g.fill(chunk);
    }
}

/// A time-based v8 UUID (Appendix B.1 layout) from the process-wide generator: greater
/// than every such UUID this process generated before.
///
/// ```
/// let a = uuidkit::v8();
/// assert!(uuidkit::v8() > a);
/// ```
pub fn v8() -> Uuid {
    lock(&V8)
        .get_or_insert_with(|| {
            let g = custom::CustomGenerator::new();
            match process_store() {
                Some(store) => g.with_store(store),
                None => g,
            }
        })
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Threads mixing `v7` and `v7_fill`: each thread's UUIDs increase, none repeats,
    /// and a call that starts after another thread published its result returns more
    /// (one global order, not one per thread).
    #[test]
    fn v7_and_v7_fill_keep_one_order_across_threads() {
        let published = Mutex::new(Uuid::NIL);
        let all: Vec<Vec<Uuid>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|t| {
                    let published = &published;
                    s.spawn(move || {
                        let mut mine = Vec::new();
                        let mut batch = vec![Uuid::NIL; 3000];
                        for i in 0..400 {
                            let seen = *published.lock().unwrap();
                            let n = (i * 37 + t * 11) % 3000;
                            let out: &[Uuid] = if i % 3 == 0 {
                                batch[0] = v7();
                                &batch[..1]
                            } else {
                                v7_fill(&mut batch[..n]);
                                &batch[..n]
                            };
                            if let (Some(first), Some(last)) = (out.first(), out.last()) {
                                assert!(*first > seen, "{first} after {seen} was published");
                                let mut p = published.lock().unwrap();
                                *p = (*p).max(*last);
                            }
                            assert!(out.windows(2).all(|w| w[0] < w[1]));
                            if let (Some(prev), Some(first)) = (mine.last(), out.first()) {
                                assert!(first > prev, "a thread's sequence decreased");
                            }
                            mine.extend_from_slice(out);
                        }
                        mine
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let mut every: Vec<Uuid> = all.into_iter().flatten().collect();
        let n = every.len();
        every.sort_unstable();
        every.dedup();
        assert_eq!(every.len(), n, "a v7 UUID repeated");
    }

    /// One call as the other threads could see it: the value of a shared ticket taken
    /// just before the call and just after it returned, and what it returned.
    struct Call {
        before: u64,
        after: u64,
        uuid: Uuid,
    }

    /// Threads calling `make` at once, each logging its calls with tickets from one
    /// atomic counter (sequentially consistent, so the tickets order the calls as the
    /// threads observed them). Whenever a call returned before another started (its
    /// `after` ticket is below the other's `before`), its UUID must be the smaller: one
    /// order for the whole process. Each thread's own order and uniqueness follow.
    fn one_order_across_threads(label: &str, make: fn() -> Uuid) {
        use std::sync::atomic::AtomicU64;
        const THREADS: usize = 4;
        const CALLS: usize = 200_000;
        let ticket = AtomicU64::new(0);
        let mut calls: Vec<Call> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..THREADS)
                .map(|_| {
                    let ticket = &ticket;
                    s.spawn(move || {
                        (0..CALLS)
                            .map(|_| {
                                let before = ticket.fetch_add(1, Ordering::SeqCst);
                                let uuid = make();
                                let after = ticket.fetch_add(1, Ordering::SeqCst);
                                Call {
                                    before,
                                    after,
                                    uuid,
                                }
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            threads
                .into_iter()
                .flat_map(|t| t.join().unwrap())
                .collect()
        });
        // Sweep the calls by start; `done` (by end) feeds the largest UUID of the calls
        // that had returned before the current one started.
        let mut done: Vec<(u64, Uuid)> = calls.iter().map(|c| (c.after, c.uuid)).collect();
        done.sort_unstable_by_key(|&(after, _)| after);
        calls.sort_unstable_by_key(|c| c.before);
        let (mut next, mut highest) = (0, None::<(Uuid, u64)>);
        for c in &calls {
            while next < done.len() && done[next].0 < c.before {
                let (after, u) = done[next];
                if highest.is_none_or(|(h, _)| u > h) {
                    highest = Some((u, after));
                }
                next += 1;
            }
            if let Some((h, after)) = highest {
                assert!(
                    c.uuid > h,
                    "{label}: {} (call started at ticket {}) is not above {h}, returned \
                     earlier (ticket {after}) in another thread or this one",
                    c.uuid,
                    c.before
                );
            }
        }
        let mut every: Vec<Uuid> = calls.iter().map(|c| c.uuid).collect();
        every.sort_unstable();
        every.dedup();
        assert_eq!(every.len(), THREADS * CALLS, "{label}: a UUID repeated");
    }

    #[test]
    fn v6_keeps_one_order_across_threads() {
        one_order_across_threads("v6", v6);
    }

    #[test]
    fn v8_keeps_one_order_across_threads() {
        one_order_across_threads("v8", v8);
    }

    #[test]
    fn v4_fill_never_repeats_across_threads() {
        let all: Vec<Vec<Uuid>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        let mut batch = vec![Uuid::NIL; 100_000];
                        v4_fill(&mut batch);
                        batch.push(v4());
                        batch
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let mut every: Vec<Uuid> = all.into_iter().flatten().collect();
        assert!(every.iter().all(|u| u.version() == crate::Version::V4));
        let n = every.len();
        every.sort_unstable();
        every.dedup();
        assert_eq!(every.len(), n, "a v4 UUID repeated");
    }
}
