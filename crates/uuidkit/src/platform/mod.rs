//! The one place where uuidkit uses `unsafe`: what must talk to the CPU or the operating
//! system below `std` — the SIMD text codec ([`simd`]) and the `fork` hooks
//! ([`fork_generation`], [`register_fork_handlers`]). Every block carries a `// SAFETY:` comment; everything here is
//! checked against a safe reference path by tests, fuzzing and Miri.

#![allow(unsafe_code)]

pub(crate) mod simd;

use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);
static HOOK: Once = Once::new();

extern "C" fn child_after_fork() {
    // Async-signal-safe: one atomic add, no allocation, no lock.
    FORK_GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// How many times this process is a child of `fork` since uuidkit was first used in its
/// ancestor: state derived from randomness or from the process (random streams, the
/// process-wide generators' random bits) compares this number and renews itself when it
/// changed.
#[inline]
pub(crate) fn fork_generation() -> u64 {
    HOOK.call_once(register_fork_hook);
    FORK_GENERATION.load(Ordering::Relaxed)
}

/// [`fork_generation`] without making sure the hook is registered: for hot paths whose
/// state was created after a call to `fork_generation`.
#[inline(always)]
pub(crate) fn fork_generation_relaxed() -> u64 {
    FORK_GENERATION.load(Ordering::Relaxed)
}

#[cfg(unix)]
fn register_fork_hook() {
    // SAFETY: `pthread_atfork` only stores the three function pointers; `child_after_fork`
    // is a plain `extern "C"` function with no arguments that lives for the whole program
    // and does only an atomic increment, which is allowed in a child after fork.
    let rc = unsafe { libc::pthread_atfork(None, None, Some(child_after_fork)) };
    // Without the hook a child could repeat its parent's random stream; refuse to go on.
    assert_eq!(rc, 0, "uuidkit: pthread_atfork failed ({rc})");
}

#[cfg(not(unix))]
fn register_fork_hook() {}

/// Has `prepare` run in the thread that calls `fork` just before it, and `after` just
/// after it in both the parent and the child: how the process-wide generators keep their
/// locks consistent across `fork`. Call it once per pair.
#[cfg(unix)]
pub(crate) fn register_fork_handlers(prepare: extern "C" fn(), after: extern "C" fn()) {
    // SAFETY: `pthread_atfork` only stores the function pointers. Both are plain
    // `extern "C"` functions without arguments that live for the whole program; what they
    // do (take and release `std` mutexes in the forking thread) is allowed around `fork`:
    // `prepare` runs before the copy in normal context, and `after` releases in the child
    // a lock that its only thread holds.
    let rc = unsafe { libc::pthread_atfork(Some(prepare), Some(after), Some(after)) };
    // Without the handlers a child could wait forever on a lock copied while held.
    assert_eq!(rc, 0, "uuidkit: pthread_atfork failed ({rc})");
}

#[cfg(not(unix))]
pub(crate) fn register_fork_handlers(_prepare: extern "C" fn(), _after: extern "C" fn()) {}

/// Whether the effective user ID is 0.
#[cfg(unix)]
pub(crate) fn is_root() -> bool {
    // SAFETY: `geteuid` takes no arguments, cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(not(unix))]
pub(crate) fn is_root() -> bool {
    false
}
