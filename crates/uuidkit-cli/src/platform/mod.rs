//! The one place where the command uses `unsafe`: what must run before Rust's runtime
//! starts. The runtime reopens a closed descriptor 0, 1 or 2 on `/dev/null` before
//! `main`; a probe in the executable's initialiser table runs earlier and records which
//! of them were closed, so the command can report a closed standard input or output
//! instead of reading nothing or writing into nothing. Checked end to end by the tests
//! that run the command with `<&-` and `>&-` (`tests/cli/lost_output.rs`).

#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU8, Ordering};

/// Bit `fd` set: descriptor `fd` (0, 1 or 2) was closed when the process started.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// Records which of the descriptors 0, 1 and 2 are closed. Runs before the Rust runtime
/// opens `/dev/null` in their place, from the executable's initialiser table.
extern "C" fn probe_standard_descriptors() {
    let mut closed = 0;
    for fd in 0..3 {
        // SAFETY: F_GETFD only asks for the descriptor's flags; it reads and changes no
        // memory of this process, whatever `fd` is.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            closed |= 1 << fd;
        }
    }
    CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

/// The entry in the initialiser table (ELF's `.init_array`, Mach-O's `__mod_init_func`)
/// that makes the loader call [`probe_standard_descriptors`] before `main`. Elsewhere
/// there is no probe and a closed descriptor behaves as the runtime leaves it.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    target_os = "illumos",
    target_os = "solaris"
))]
#[used]
// SAFETY: the entry is a function pointer with the C calling convention, what the loader
// expects in this table; the function touches only an atomic.
#[unsafe(link_section = ".init_array")]
static PROBE: extern "C" fn() = probe_standard_descriptors;

#[cfg(target_vendor = "apple")]
#[used]
// SAFETY: as above, for the Mach-O initialiser table.
#[unsafe(link_section = "__DATA,__mod_init_func")]
static PROBE: extern "C" fn() = probe_standard_descriptors;

/// Whether descriptor `fd` was closed when the process started.
pub fn closed_at_start(fd: u8) -> bool {
    CLOSED_AT_START.load(Ordering::Relaxed) & (1 << fd) != 0
}

/// For the tests: an allocator that counts the allocations of each thread, so that a test
/// can show that a loop allocates nothing ([`allocations`]).
#[cfg(test)]
pub mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static COUNT: Cell<u64> = const { Cell::new(0) };
    }

    /// The system allocator, counting.
    pub struct Counting;

    fn count() {
        // A thread being torn down has no counter left; its allocations do not matter.
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }

    // SAFETY: every call is passed on unchanged to the system allocator, which keeps
    // `GlobalAlloc`'s contract; the counter is a const-initialised thread-local `Cell`,
    // which neither allocates nor needs a destructor.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            count();
            // SAFETY: forwarded: the caller keeps `alloc`'s contract.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            count();
            // SAFETY: forwarded: the caller keeps `alloc_zeroed`'s contract.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: forwarded: `ptr` came from this allocator, that is from `System`.
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            count();
            // SAFETY: forwarded: `ptr` came from `System`; the caller keeps the contract.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;

    /// Allocations (and reallocations) this thread has made so far.
    pub fn allocations() -> u64 {
        COUNT.with(Cell::get)
    }
}
