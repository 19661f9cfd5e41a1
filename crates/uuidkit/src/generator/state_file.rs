//! Choosing where the process-wide generators keep their state: a file
//! ([`use_state_file`], [`use_default_state_file`] or `UUIDKIT_STATE`, [`STATE_ENV`]) or
//! the host's daemon ([`use_daemon`]), decided once, at the first UUID of the process.

use core::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::lock;
#[cfg(unix)]
use crate::service::client::DaemonClient;
use crate::store::{LeaseSource, StateStore};

/// The name of the environment variable that gives the process-wide generators a state
/// store ([`crate::store`]); unset or empty, they keep their state in memory only (a
/// library does not start writing files on its own), unless [`use_state_file`] or
/// [`use_default_state_file`] chose one.
pub const STATE_ENV: &str = "UUIDKIT_STATE";

/// The state file [`use_state_file`] chose; once the generators have started, the one
/// they use (from the call or from `UUIDKIT_STATE`), or `None` for memory. A lock that
/// `fork` takes with the others, not a `OnceLock`, whose initialisation caught half done
/// by `fork` could leave a child waiting.
pub(super) static STATE_PATH: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The daemon [`use_daemon`] chose, shared by the process-wide generators (one
/// connection). Taken inside generator locks, as [`STATE_PATH`], and by the fork handlers.
#[cfg(unix)]
pub(super) static DAEMON: Mutex<Option<Arc<DaemonClient>>> = Mutex::new(None);

/// What the fork handlers hold of [`DAEMON`] across a `fork`: its guard (off Unix there
/// is no daemon, and nothing to hold).
#[cfg(unix)]
pub(super) type DaemonHeld = std::sync::MutexGuard<'static, Option<Arc<DaemonClient>>>;
#[cfg(not(unix))]
pub(super) type DaemonHeld = ();

/// Takes [`DAEMON`] for the fork handlers.
#[cfg(unix)]
pub(super) fn lock_daemon_for_fork() -> DaemonHeld {
    DAEMON.lock().unwrap_or_else(|e| e.into_inner())
}
#[cfg(not(unix))]
pub(super) fn lock_daemon_for_fork() -> DaemonHeld {}

/// A path the environment variable `name` gives: set and not empty (an empty value counts
/// as unset, as a shell's `VAR=` means "no value").
fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// The state file `UUIDKIT_STATE` ([`STATE_ENV`]) names, when set and not empty: the one
/// place the library, the command and the Python package read it.
///
/// ```
/// // `UUIDKIT_STATE=` (empty) is unset: never an empty path.
/// if let Some(p) = uuidkit::generator::state_file_from_env() {
///     assert!(!p.as_os_str().is_empty());
/// }
/// ```
pub fn state_file_from_env() -> Option<PathBuf> {
    env_path(STATE_ENV)
}

/// The daemon socket `UUIDKIT_DAEMON` ([`DAEMON_ENV`](crate::service::DAEMON_ENV)) names,
/// when set and not empty: the one place the command and the Python package read it.
/// The library's process-wide generators use a daemon only when told to
/// ([`use_daemon`]); a program that honours the variable passes this to it.
///
/// ```
/// if let Some(socket) = uuidkit::generator::daemon_from_env() {
///     uuidkit::generator::use_daemon(&socket)?;
/// }
/// # Ok::<(), uuidkit::generator::StateFileError>(())
/// ```
#[cfg(unix)]
pub fn daemon_from_env() -> Option<PathBuf> {
    env_path(crate::service::DAEMON_ENV)
}

/// Whether the process-wide generators use a state file or daemon: 0 not decided yet (no
/// generator has started), 1 no, 2 yes. Decided once, at the first UUID, and never
/// changed after: generators of one process must not disagree on where their state is.
static STATE_SET: AtomicU8 = AtomicU8::new(0);

/// Whether the process-wide generators use a state file, deciding it on the first call:
/// the file [`use_state_file`] chose, else `UUIDKIT_STATE` (read once: the environment of
/// a running process is not expected to change).
pub(super) fn state_set() -> bool {
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
    #[cfg(unix)]
    if lock(&DAEMON).is_some() {
        STATE_SET.store(2, Ordering::Release);
        return true;
    }
    if path.is_none() {
        *path = state_file_from_env();
    }
    let set = path.is_some();
    STATE_SET.store(if set { 2 } else { 1 }, Ordering::Release);
    set
}

/// The store of the process-wide generators: the daemon [`use_daemon`] chose, else the
/// state file, opened anew for each of them (a store holds no state of its own but its
/// path and settings); `None` to stay in memory.
pub(super) fn process_store() -> Option<Arc<dyn LeaseSource>> {
    if !state_set() {
        return None;
    }
    #[cfg(unix)]
    if let Some(d) = lock(&DAEMON).clone() {
        return Some(d);
    }
    lock(&STATE_PATH)
        .clone()
        .map(|p| Arc::new(StateStore::open(p)) as Arc<dyn LeaseSource>)
}

/// Where the process-wide generators keep their state (the daemon of [`use_daemon`],
/// else the state file of [`use_state_file`] or `UUIDKIT_STATE`), deciding it now if no
/// generator has started; `None`: in memory. For generators of your own (another v7
/// method, a draft layout) that must never repeat or reorder against other processes
/// sharing that state: give it to their `with_store`.
///
/// ```
/// use uuidkit::generator::{process_lease_source, v7::{V7Generator, V7Method}};
/// let mut g = V7Generator::new(V7Method::Random);
/// if let Some(store) = process_lease_source() {
///     g = g.with_store(store);
/// }
/// assert_eq!(g.next().version(), uuidkit::Version::V7);
/// ```
pub fn process_lease_source() -> Option<Arc<dyn LeaseSource>> {
    process_store()
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
    /// The process-wide generators have made UUIDs already with their state in the
    /// daemon at `socket` ([`use_daemon`]); it is never changed after.
    DaemonInUse {
        /// The daemon's socket.
        socket: PathBuf,
    },
    /// [`use_daemon`]: the daemon did not answer a status request.
    DaemonUnreachable {
        /// The daemon's socket.
        socket: PathBuf,
        /// Why, as the client reports it.
        message: String,
    },
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
            StateFileError::DaemonInUse { socket } => write!(
                f,
                "the process-wide generators have made UUIDs already and keep their state in \
                 uuidkitd at {}: where they keep it must be chosen before the first UUID of \
                 the process",
                socket.display()
            ),
            StateFileError::DaemonUnreachable { socket, message } => {
                write!(
                    f,
                    "cannot reach uuidkitd at {}: {message}",
                    socket.display()
                )
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

/// Makes the process-wide generators ([`v1`](crate::v1), [`v6`](crate::v6),
/// [`v7`](crate::v7), [`v7_fill`](crate::v7_fill), [`v8`](crate::v8)) keep their state
/// in the file `path`, shared with every other process that uses it: see
/// [Across processes and restarts](super#across-processes-and-restarts) for what that
/// guarantees, and what holds without it (uniqueness and order within this process
/// only). Call it before the first UUID of the process; it wins over `UUIDKIT_STATE`.
///
/// It checks the file now, so that a mistake shows here rather than as a warning
/// later: it creates the directory if missing, creates and locks the lock file beside
/// the file (`path` + `.lock`), and reads the file (a missing file is first use and
/// fine; a damaged one is rewritten at the first lease, with a warning in
/// [`take_store_warnings`](super::take_store_warnings); one in a newer format is refused and left as it is). A file
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
        return Err(already_started(&chosen));
    }
    #[cfg(unix)]
    if let Some(d) = lock(&DAEMON).as_ref() {
        return Err(StateFileError::DaemonInUse {
            socket: d.path().to_path_buf(),
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

/// Why a choice made after the first UUID is refused: what the generators use.
fn already_started(file: &Option<PathBuf>) -> StateFileError {
    #[cfg(unix)]
    if let Some(d) = lock(&DAEMON).as_ref() {
        return StateFileError::DaemonInUse {
            socket: d.path().to_path_buf(),
        };
    }
    StateFileError::AlreadyStarted {
        in_use: file.clone(),
    }
}

/// Makes the process-wide generators ([`v1`](crate::v1), [`v6`](crate::v6),
/// [`v7`](crate::v7), [`v7_fill`](crate::v7_fill), [`v8`](crate::v8)) lease their
/// timestamps from the host's daemon, `uuidkitd`, at the socket `path`, as the command's
/// `gen --daemon` does: every process using that daemon then never makes the same UUID,
/// and the daemon keeps the state across restarts (see [`crate::service`]). It wins over
/// a state file ([`use_state_file`], `UUIDKIT_STATE`). Call it before the first UUID of
/// the process. The library does not read `UUIDKIT_DAEMON` by itself: the command and
/// the Python package do, and call this.
///
/// It asks the daemon for its status now, so that a daemon that is not there shows here.
/// A daemon that stops answering later leaves the generators in memory with a warning
/// ([`take_store_warnings`](super::take_store_warnings)); one connection is shared by
/// the generators, and a child process after `fork` opens its own.
///
/// # Errors
/// [`StateFileError::AlreadyStarted`] or [`StateFileError::DaemonInUse`] once a
/// process-wide generator has made a UUID; [`StateFileError::DaemonUnreachable`] when the
/// daemon does not answer. Either way nothing changes.
///
/// ```
/// use uuidkit::generator::{use_daemon, StateFileError};
/// let err = use_daemon("/nonexistent/uuidkitd.sock").unwrap_err();
/// assert!(matches!(err, StateFileError::DaemonUnreachable { .. }), "{err}");
/// assert!(err.to_string().starts_with("cannot reach uuidkitd at /nonexistent/uuidkitd.sock: "));
/// ```
#[cfg(unix)]
pub fn use_daemon(path: impl Into<PathBuf>) -> Result<(), StateFileError> {
    let path = path.into();
    let file = lock(&STATE_PATH);
    if STATE_SET.load(Ordering::Acquire) != 0 {
        return Err(already_started(&file));
    }
    let client = DaemonClient::new(&path);
    // Under the lock, so that no generator starts between the check and the choice.
    client
        .status()
        .map_err(|e| StateFileError::DaemonUnreachable {
            socket: path.clone(),
            message: e.to_string(),
        })?;
    *lock(&DAEMON) = Some(Arc::new(client));
    Ok(())
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
