//! What needs the operating system: the `fork` hooks, the CPU's AES instructions found at
//! run time, the effective user ID. Only with the `std` feature.

use std::sync::Once;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);
static HOOK: Once = Once::new();

/// The handlers the generators set with [`set_fork_handlers`], as `fn()` addresses (0:
/// none yet).
static PREPARE: AtomicUsize = AtomicUsize::new(0);
static AFTER: AtomicUsize = AtomicUsize::new(0);

/// Calls the handler stored in `slot`, if any.
fn call(slot: &AtomicUsize) {
    let f = slot.load(Ordering::Acquire);
    if f != 0 {
        // SAFETY: the only non-zero values ever stored in the slots are `fn()` pointers
        // (see `set_fork_handlers`), and a `fn()` pointer is the size of a `usize`.
        let f = unsafe { core::mem::transmute::<usize, fn()>(f) };
        f();
    }
}

extern "C" fn before_fork() {
    call(&PREPARE);
}

extern "C" fn parent_after_fork() {
    call(&AFTER);
}

extern "C" fn child_after_fork() {
    // One atomic add, no allocation, no lock; then the generators' handler, which
    // releases locks this thread took in `before_fork`.
    FORK_GENERATION.fetch_add(1, Ordering::Relaxed);
    call(&AFTER);
}

/// How many times this process is a child of `fork` since uuidkit was first used in its
/// ancestor: state derived from randomness or from the process (random streams, the
/// process-wide generators' random bits) compares this number and renews itself when it
/// changed.
#[inline]
pub(crate) fn fork_generation() -> u64 {
    // Done at load time already where the loader runs initialisers (see `INIT`); then
    // this is one load of a completed `Once`, which never blocks.
    HOOK.call_once(register_fork_hooks);
    FORK_GENERATION.load(Ordering::Relaxed)
}

/// [`fork_generation`] without making sure the hook is registered: for hot paths whose
/// state was created after a call to `fork_generation`.
#[inline(always)]
pub(crate) fn fork_generation_relaxed() -> u64 {
    FORK_GENERATION.load(Ordering::Relaxed)
}

/// Has `prepare` run in the thread that calls `fork` just before it, and `after` just
/// after it in both the parent and the child: how the process-wide generators keep their
/// locks consistent across `fork`. Call it before taking any of those locks for the first
/// time. A `fork` in another thread at that moment runs either neither handler, or
/// `after` alone (which then has nothing to release), or both; and this returns only once
/// such a fork is over, so the caller never takes a lock that a fork which did not run
/// `prepare` could copy while held.
pub(crate) fn set_fork_handlers(prepare: fn(), after: fn()) {
    fork_generation();
    AFTER.store(after as usize, Ordering::Release);
    PREPARE.store(prepare as usize, Ordering::Release);
    wait_for_forks_in_progress();
}

/// Returns once every `fork` that has started running its prepare handlers has finished:
/// registering a handler takes the C library's fork-handler lock, which `fork` holds from
/// its prepare handlers until its parent handlers have run (glibc since 2.34). The
/// handler registered is empty and costs nothing at `fork`.
#[cfg(unix)]
fn wait_for_forks_in_progress() {
    // SAFETY: `pthread_atfork` with no handlers stores nothing that can be called; it
    // only takes and releases the C library's handler lock.
    let rc = unsafe { libc::pthread_atfork(None, None, None) };
    // Failure (out of memory) only loses the wait, not a handler: nothing to undo.
    let _ = rc;
}

#[cfg(not(unix))]
fn wait_for_forks_in_progress() {}

#[cfg(unix)]
fn register_fork_hooks() {
    // SAFETY: `pthread_atfork` only stores the three function pointers. They are plain
    // `extern "C"` functions without arguments that live for the whole program; the
    // child's does an atomic increment, and the handlers they call take and release
    // `std` mutexes in the forking thread, which is allowed around `fork`: before it in
    // normal context, and after it in the child, whose only thread holds those locks.
    let rc = unsafe {
        libc::pthread_atfork(
            Some(before_fork),
            Some(parent_after_fork),
            Some(child_after_fork),
        )
    };
    // Without the hook a child could repeat its parent's random stream; refuse to go on.
    assert_eq!(rc, 0, "uuidkit: pthread_atfork failed ({rc})");
}

#[cfg(not(unix))]
fn register_fork_hooks() {}

/// Registers the hooks while the program loads, when it has one thread: registering them
/// at first use instead (a `Once`) could be caught half done by a `fork` in another
/// thread, and the child would wait on that `Once` forever.
extern "C" fn register_at_load() {
    HOOK.call_once(register_fork_hooks);
}

#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
#[used]
// SAFETY: the entry is a function pointer with the C calling convention, what the loader
// expects in this table; the function only registers the fork hooks.
#[unsafe(link_section = ".init_array")]
static INIT: extern "C" fn() = register_at_load;

/// Whether the CPU has AES instructions (AES-NI), which make AES-128-CTR the fastest
/// keystream for the random module. Under Miri, no: the portable cipher is what it can
/// check.
#[cfg(all(any(target_arch = "x86_64", target_arch = "x86"), not(miri)))]
pub(crate) fn has_aes_instructions() -> bool {
    std::is_x86_feature_detected!("aes") && std::is_x86_feature_detected!("sse2")
}

#[cfg(not(all(any(target_arch = "x86_64", target_arch = "x86"), not(miri))))]
pub(crate) fn has_aes_instructions() -> bool {
    false
}

/// The clock of a fleet's fence, in nanoseconds: on Linux `CLOCK_BOOTTIME`, which,
/// unlike the monotonic clock, goes on counting while the system is suspended, as etcd's
/// lease goes on running out meanwhile (a fence on the monotonic clock would stay open
/// after a resume past the lease). Not moved when the clock is set. Read once per
/// millisecond of UUIDs or per batch: 38.7 ns a read against 9.2 ns for the coarse
/// monotonic clock it replaced (AMD EPYC guest, median of 9 rounds of 5 M reads): 0.9 %
/// of a batch of 256 v7 UUIDs (3.3 µs in run O of docs/performance.md).
#[cfg(unix)]
#[cfg_attr(not(feature = "etcd"), allow(dead_code))] // the fleet's
pub(crate) fn fence_clock_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which points at
    // `ts`, alive for the call.
    let rc = unsafe { libc::clock_gettime(FENCE_CLOCK, &mut ts) };
    // It does not fail for these clocks; if it did, the far future shuts every fence
    // rather than opening one.
    if rc != 0 {
        return u64::MAX;
    }
    // Saturating: a clock faked centuries ahead (libfaketime) must not overflow.
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

/// The clock [`fence_clock_ns`] reads: one that counts a suspend, where there is one.
#[cfg(all(target_os = "linux", not(miri)))]
#[cfg_attr(not(feature = "etcd"), allow(dead_code))] // the fleet's
pub(crate) const FENCE_CLOCK: libc::clockid_t = libc::CLOCK_BOOTTIME;
#[cfg(all(unix, not(all(target_os = "linux", not(miri)))))]
#[cfg_attr(not(feature = "etcd"), allow(dead_code))] // the fleet's
pub(crate) const FENCE_CLOCK: libc::clockid_t = libc::CLOCK_MONOTONIC;

#[cfg(not(unix))]
pub(crate) fn fence_clock_ns() -> u64 {
    use std::sync::OnceLock;
    static BASE: OnceLock<std::time::Instant> = OnceLock::new();
    BASE.get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
}

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

/// The effective user ID.
#[cfg(unix)]
pub(crate) fn effective_uid() -> u32 {
    // SAFETY: `geteuid` takes no arguments, cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() }
}

#[cfg(all(test, target_os = "linux", not(miri)))]
mod tests {
    use super::*;

    /// The fence counts a suspend: its clock is the boot-time clock, which reads as the
    /// kernel's uptime (`/proc/uptime`, suspend included), never below the monotonic one.
    #[test]
    fn the_fence_clock_counts_a_suspend() {
        assert_eq!(FENCE_CLOCK, libc::CLOCK_BOOTTIME);
        let uptime: f64 = std::fs::read_to_string("/proc/uptime")
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let fence = fence_clock_ns() as f64 / 1e9;
        assert!(
            (fence - uptime).abs() < 1.0,
            "{fence} s against uptime {uptime} s"
        );
    }
}

/// The signals that end a process politely: SIGTERM, SIGINT and SIGHUP.
#[cfg(unix)]
fn termination_set() -> libc::sigset_t {
    // SAFETY: `sigemptyset` and `sigaddset` only write the set they are given, which is a
    // valid, owned `sigset_t`; the signal numbers are valid.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGHUP);
        set
    }
}

/// Blocks the termination signals in the calling thread and every thread it starts
/// later (see [`crate::signals`]).
#[cfg(unix)]
pub(crate) fn block_termination_signals() -> std::io::Result<()> {
    let set = termination_set();
    // SAFETY: `set` is a valid initialised signal set; the old mask is not asked for.
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(rc))
    }
}

/// Waits for a blocked termination signal and returns its number.
#[cfg(unix)]
pub(crate) fn wait_for_termination() -> i32 {
    let set = termination_set();
    loop {
        let mut sig: libc::c_int = 0;
        // SAFETY: `set` is a valid signal set and `sig` a valid place for the result.
        let rc = unsafe { libc::sigwait(&set, &mut sig) };
        if rc == 0 {
            return sig;
        }
    }
}

/// Ends the process as signal `sig` would have, had it not been blocked: its default
/// action restored, then raised and let through (a parent sees "killed by signal").
#[cfg(unix)]
pub(crate) fn die_of(sig: i32) -> ! {
    // SAFETY: restoring a signal's default action, unblocking it in this thread and
    // raising it touch no memory of ours; `set` is a valid, owned signal set.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    // A signal whose default is not to end the process: the shell's convention.
    std::process::exit(128 + sig)
}
