//! Where the time-based generators keep their state, as the `uuidkit` command chooses
//! it: `UUIDKIT_DAEMON` (the host's `uuidkitd`), which wins over `UUIDKIT_STATE` (a
//! state file, read by the library at the first UUID), else memory; or, before the first
//! UUID, `use_daemon(path)` / `use_state_file(path)`. Two processes that share a daemon
//! or a state file never make the same v1, v6, v7 or v8 UUID, nor go backwards.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use uuidkit::generator::StateFileError;
use uuidkit::node::NodeStrategy;
use uuidkit::service::DAEMON_ENV;

use crate::release;

/// Why the daemon `UUIDKIT_DAEMON` named at import cannot be used: raised by every
/// call that would have used it, as the command refuses to generate without the daemon
/// it was told to use (generating in memory would quietly lose the guarantee).
static SOURCE_FAILED: Mutex<Option<String>> = Mutex::new(None);

/// At import: `UUIDKIT_DAEMON`, when set and not empty. Asking the daemon is I/O (up to
/// the client's timeout when it does not answer), done with the GIL released.
pub fn from_env(py: Python<'_>) {
    let Some(path) = uuidkit::generator::daemon_from_env() else {
        return;
    };
    if let Err(e) = release::detach(py, || uuidkit::generator::use_daemon(&path)) {
        *SOURCE_FAILED.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(format!("{e} (from {DAEMON_ENV})"));
        FAILED.store(true, Ordering::Release);
    }
}

/// An explicit choice that worked replaces a failed one from the environment.
fn clear_failure() {
    *SOURCE_FAILED.lock().unwrap_or_else(|e| e.into_inner()) = None;
    FAILED.store(false, Ordering::Release);
}

/// Whether the process-wide generators keep their state in a state file or the daemon
/// (then a time-based call may wait on the file's lock, its I/O or the daemon, and runs
/// with the GIL released): 0 not known yet, 1 no (memory), 2 yes. Where the state is
/// is decided at the first time-based UUID and never changes after, so it is asked once.
static STORED: AtomicU8 = AtomicU8::new(0);

/// Whether the time-based generators keep their state in a file or the daemon, deciding
/// it now if no generator has started (as the time-based call about to run would).
#[inline]
pub fn stored() -> bool {
    match STORED.load(Ordering::Relaxed) {
        0 => {
            let yes = uuidkit::generator::process_lease_source().is_some();
            STORED.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
        v => v == 2,
    }
}

/// Why `UUIDKIT_NODE` cannot be used, read at the first `uuid1()`/`uuid6()` (when the
/// library's process-wide generators read it): `None` when it is unset, empty or valid.
static NODE_ENV_ERROR: OnceLock<Option<String>> = OnceLock::new();

/// `uuid1()`/`uuid6()` without arguments: a malformed `UUIDKIT_NODE` is `ValueError`,
/// as the command refuses it (the library would quietly use the `static` strategy).
#[inline]
pub fn check_node_env() -> PyResult<()> {
    let error =
        NODE_ENV_ERROR.get_or_init(|| NodeStrategy::from_env().err().map(|e| e.to_string()));
    error
        .as_ref()
        .map_or(Ok(()), |e| Err(PyValueError::new_err(e.clone())))
}

/// Whether [`SOURCE_FAILED`] holds a reason: read by every time-based call, so an
/// atomic load rather than a lock.
static FAILED: AtomicBool = AtomicBool::new(false);

/// The daemon named by `UUIDKIT_DAEMON` could not be reached: `OSError`.
#[inline]
pub fn check_source() -> PyResult<()> {
    if !FAILED.load(Ordering::Acquire) {
        return Ok(());
    }
    let why = SOURCE_FAILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    why.map_or(Ok(()), |why| Err(PyOSError::new_err(why)))
}

/// The library's refusal, as the exception Python expects, naming the call and the
/// path it was given.
fn refused(func: &str, path: &Path, e: StateFileError) -> PyErr {
    let message = format!("{func}({:?}): {e}", path.display().to_string());
    match e {
        StateFileError::AlreadyStarted { .. } | StateFileError::DaemonInUse { .. } => {
            PyRuntimeError::new_err(message)
        }
        _ => PyOSError::new_err(message),
    }
}

/// A path given as `''`: refused at once (the library would take it and fail at the first
/// lease, naming a `.tmp` file), as `ValueError`.
fn not_empty(func: &str, path: &Path) -> PyResult<()> {
    if path.as_os_str().is_empty() {
        return Err(PyValueError::new_err(format!(
            "{func}(''): the path is empty"
        )));
    }
    Ok(())
}

/// `use_state_file(path)`: keep the time-based generators' state in the file `path`,
/// shared with every process (and `uuidkit` command) that uses it; as `UUIDKIT_STATE`,
/// which it wins over, and over a `UUIDKIT_DAEMON` that could not be reached. Call it
/// before the first time-based UUID of the process. The file is locked and read with
/// the GIL released.
///
/// Raises `RuntimeError` when a UUID was made already (where the state is never changes
/// after), `OSError` naming the file when it cannot be used, `ValueError` for `''`.
///
/// >>> _ = uuidkit.uuid7()                     # too late now:
/// >>> uuidkit.use_state_file("/tmp/uuidkit-state")
/// Traceback (most recent call last):
/// ...
/// RuntimeError: use_state_file("/tmp/uuidkit-state"): the process-wide generators have made ...
#[pyfunction]
pub fn use_state_file(py: Python<'_>, path: PathBuf) -> PyResult<()> {
    not_empty("use_state_file", &path)?;
    release::detach(py, || uuidkit::use_state_file(&path))
        .map_err(|e| refused("use_state_file", &path, e))?;
    clear_failure();
    Ok(())
}

/// `use_daemon(path)`: lease the time-based generators' timestamps from `uuidkitd` at
/// the socket `path`, as `UUIDKIT_DAEMON` does. Call it before the first time-based UUID
/// of the process. The daemon is asked with the GIL released.
///
/// Raises `RuntimeError` when a UUID was made already, `OSError` naming the socket when
/// the daemon does not answer, `ValueError` for `''`.
///
/// >>> uuidkit.use_daemon("/nonexistent/uuidkitd.sock")
/// Traceback (most recent call last):
/// ...
/// OSError: use_daemon("/nonexistent/uuidkitd.sock"): cannot reach uuidkitd at ...
#[pyfunction]
pub fn use_daemon(py: Python<'_>, path: PathBuf) -> PyResult<()> {
    not_empty("use_daemon", &path)?;
    release::detach(py, || uuidkit::generator::use_daemon(&path))
        .map_err(|e| refused("use_daemon", &path, e))?;
    clear_failure();
    Ok(())
}

/// `take_store_warnings()`: what went wrong with the state file or daemon since the
/// last call (a damaged file repaired, a daemon gone so that the generators went on in
/// memory), one message each, from every generator that shares it (`uuid1`, `uuid6`,
/// each `uuid7` method, `uuid8` `b1` and each draft layout); empty when all is well.
/// uuidkit never prints them.
///
/// >>> uuidkit.take_store_warnings()
/// []
#[pyfunction]
pub fn take_store_warnings(py: Python<'_>) -> Vec<String> {
    // The generators' locks are held through their leases' I/O: wait for them without
    // the GIL.
    let all = release::detach(py, uuidkit::generator::take_store_warnings);
    all.iter().map(ToString::to_string).collect()
}
