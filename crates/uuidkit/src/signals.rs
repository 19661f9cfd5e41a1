//! Termination signals (SIGTERM, SIGINT, SIGHUP) taken by a thread of one's own rather
//! than a handler: a process that holds something others wait for (a fleet's machine ID,
//! a daemon's sockets and state) gives it back before it ends, however it is told to
//! end. No code runs in a signal handler: the signals are blocked in every thread and
//! one thread waits for them with `sigwait`.
//!
//! ```no_run
//! // First in `main`, before any thread exists.
//! uuidkit::signals::block_termination().unwrap();
//! std::thread::spawn(|| {
//!     let sig = uuidkit::signals::wait_for_termination();
//!     // ... give back what others wait for ...
//!     uuidkit::signals::die_of(sig);
//! });
//! ```

/// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it starts
/// later: call it before any thread exists (a thread started earlier would still take
/// them, and end the process at once).
///
/// # Errors
///
/// The system's, should it refuse (it does not for these signals).
pub fn block_termination() -> std::io::Result<()> {
    crate::platform::block_termination_signals()
}

/// Waits for SIGTERM, SIGINT or SIGHUP, blocked by [`block_termination`], and returns
/// its number.
pub fn wait_for_termination() -> i32 {
    crate::platform::wait_for_termination()
}

/// Ends the process as signal `sig` would have: its parent sees it killed by `sig`.
pub fn die_of(sig: i32) -> ! {
    crate::platform::die_of(sig)
}
