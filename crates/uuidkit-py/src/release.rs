//! Releasing the GIL around work that may take long (a batch's chunk; a generator that
//! may wait on its state file's lock, read and write the file, or ask the service),
//! without dying at interpreter exit.
//!
//! The danger: once CPython 3.9-3.13 has begun finalizing, a daemon thread that tries to
//! take the GIL back is ended with `pthread_exit`, whose forced unwind runs up through
//! this module's Rust frames and PyO3's `extern "C"` trampoline, where glibc aborts the
//! process ("FATAL: exception not rethrown", SIGABRT). Four daemon threads in
//! `uuid4_bytes` when the main thread returned killed 5 runs of 6. (CPython 3.14 hangs
//! such a thread instead; PyO3 0.27 does not guard its `detach`.)
//!
//! So a thread released here never takes the GIL back once the interpreter is exiting:
//! it parks for ever (the process is ending; a parked thread holds no lock of ours, as
//! the work has returned). "Exiting" is [`EXITING`], set by [`at_exit`], an `atexit`
//! callback registered at import, or `Py_IsFinalizing()` (for a module imported during
//! finalization, after the atexit callbacks ran). `atexit` callbacks run before CPython
//! marks itself finalizing, with the GIL held; a thread that checked [`EXITING`] before
//! it was set and is on its way back into the GIL is counted in [`RETAKING`], and
//! [`at_exit`] lets the GIL go until every such thread has it back, so none is still
//! waiting for the GIL when finalizing begins. (The flag and the count are a Dekker
//! pair: each side writes its own and then reads the other's, all `SeqCst`, so at least
//! one side sees the other.) Once [`EXITING`] is set, the work runs with the GIL held
//! instead of released: the exiting thread itself may still call us (another atexit
//! callback, a `__del__`), and parking it would hang the exit.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::time::Duration;

use pyo3::prelude::*;

use crate::platform;

/// The interpreter is exiting: set by [`at_exit`], never cleared.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Threads that did their work without the GIL, found [`EXITING`] unset, and have not
/// yet taken the GIL back.
static RETAKING: AtomicUsize = AtomicUsize::new(0);

fn exiting() -> bool {
    EXITING.load(SeqCst) || platform::is_finalizing()
}

/// `f()` with the GIL released (other Python threads run meanwhile), as `py.detach(f)`,
/// but never taking the GIL back once the interpreter is exiting: see the module's
/// comment. Costs two atomic operations beside the release itself.
pub fn detach<T: Send>(py: Python<'_>, f: impl Send + FnOnce() -> T) -> T {
    if exiting() {
        return f();
    }
    let out = py.detach(|| {
        let out = f();
        RETAKING.fetch_add(1, SeqCst);
        if exiting() {
            RETAKING.fetch_sub(1, SeqCst);
            park_for_ever();
        }
        out
    });
    RETAKING.fetch_sub(1, SeqCst);
    out
}

fn park_for_ever() -> ! {
    loop {
        std::thread::park();
    }
}

/// The `atexit` callback: from now on no thread takes the GIL back after releasing it
/// here; waits (with the GIL released) for those already on their way back.
#[pyfunction]
pub fn at_exit(py: Python<'_>) {
    EXITING.store(true, SeqCst);
    if RETAKING.load(SeqCst) != 0 {
        py.detach(|| {
            while RETAKING.load(SeqCst) != 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    }
}

/// In a child after `fork`: the threads counted in [`RETAKING`] were the parent's and
/// are not in the child, so none is on its way back (the forking thread held the GIL).
extern "C" fn after_fork_in_child() {
    RETAKING.store(0, SeqCst);
}

/// At import: registers [`at_exit`] with `atexit`, and the count's reset in a child.
pub fn install(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let callback = wrap_pyfunction!(at_exit, m)?;
    py.import("atexit")?.call_method1("register", (callback,))?;
    platform::at_fork_child(after_fork_in_child);
    Ok(())
}
