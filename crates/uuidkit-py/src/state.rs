//! Where the time-based generators keep their state, as the `uuidkit` command chooses
//! it: `UUIDKIT_DAEMON` (the host's `uuidkitd`), which wins over `UUIDKIT_STATE` (a
//! state file, read by the library at the first UUID), else memory; or, before the first
//! UUID, `use_daemon(path)` / `use_state_file(path)`. Two processes that share a daemon
//! or a state file never make the same v1, v6, v7 or v8 UUID, nor go backwards.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use uuidkit::generator::StateFileError;
use uuidkit::service::DAEMON_ENV;

/// Why the daemon `UUIDKIT_DAEMON` named at import cannot be used: raised by every
/// call that would have used it, as the command refuses to generate without the daemon
/// it was told to use (generating in memory would quietly lose the guarantee).
static SOURCE_FAILED: Mutex<Option<String>> = Mutex::new(None);

/// At import: `UUIDKIT_DAEMON`, when set and not empty.
pub fn from_env() {
    let Some(path) = std::env::var_os(DAEMON_ENV).filter(|p| !p.is_empty()) else {
        return;
    };
    let path = PathBuf::from(path);
    if let Err(e) = uuidkit::generator::use_daemon(&path) {
        *SOURCE_FAILED.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(format!("{e} (from {DAEMON_ENV})"));
        FAILED.store(true, Ordering::Release);
    }
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

/// `use_state_file(path)`: keep the time-based generators' state in the file `path`,
/// shared with every process (and `uuidkit` command) that uses it; as `UUIDKIT_STATE`,
/// which it wins over. Call it before the first time-based UUID of the process.
///
/// Raises `RuntimeError` when a UUID was made already (where the state is never changes
/// after), `OSError` naming the file when it cannot be used.
///
/// >>> _ = uuidkit.uuid7()                     # too late now:
/// >>> uuidkit.use_state_file("/tmp/uuidkit-state")
/// Traceback (most recent call last):
/// ...
/// RuntimeError: use_state_file("/tmp/uuidkit-state"): the process-wide generators have made ...
#[pyfunction]
pub fn use_state_file(path: PathBuf) -> PyResult<()> {
    uuidkit::use_state_file(&path).map_err(|e| refused("use_state_file", &path, e))
}

/// `use_daemon(path)`: lease the time-based generators' timestamps from `uuidkitd` at
/// the socket `path`, as `UUIDKIT_DAEMON` does. Call it before the first time-based UUID
/// of the process.
///
/// Raises `RuntimeError` when a UUID was made already, `OSError` naming the socket when
/// the daemon does not answer.
///
/// >>> uuidkit.use_daemon("/nonexistent/uuidkitd.sock")
/// Traceback (most recent call last):
/// ...
/// OSError: use_daemon("/nonexistent/uuidkitd.sock"): cannot reach uuidkitd at ...
#[pyfunction]
pub fn use_daemon(path: PathBuf) -> PyResult<()> {
    uuidkit::generator::use_daemon(&path).map_err(|e| refused("use_daemon", &path, e))?;
    // An explicit choice that worked replaces a failed one from the environment.
    *SOURCE_FAILED.lock().unwrap_or_else(|e| e.into_inner()) = None;
    FAILED.store(false, Ordering::Release);
    Ok(())
}

/// `take_store_warnings()`: what went wrong with the state file or daemon since the
/// last call (a damaged file repaired, a daemon gone so that the generators went on in
/// memory), one message each; empty when all is well. uuidkit never prints them.
///
/// >>> uuidkit.take_store_warnings()
/// []
#[pyfunction]
pub fn take_store_warnings() -> Vec<String> {
    uuidkit::generator::take_store_warnings()
        .iter()
        .map(ToString::to_string)
        .collect()
}
