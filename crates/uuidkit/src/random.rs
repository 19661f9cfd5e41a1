//! Randomness: the default CSPRNG and the trait that makes it replaceable.
//!
//! Generators take any [`RngCore`]; the default, [`Csprng`], is a per-thread ChaCha12
//! stream cipher keyed from the operating system (`getrandom`), rekeyed from the OS
//! every 64 KiB of output and in a child process after `fork`, so a parent and its child
//! never share a random stream. ChaCha12 is the generator behind `rand`'s `StdRng` and
//! `ThreadRng`; buffering its output is what makes a v4 UUID cost a few nanoseconds
//! instead of a system call. Tests pass a seeded generator instead, for example
//! `rand_chacha::ChaCha8Rng::seed_from_u64(7)`.

use core::cell::RefCell;

use rand_chacha::ChaCha12Rng;
pub use rand_core::{RngCore, SeedableRng};

/// Output after which the per-thread generator is rekeyed from the OS.
const RESEED_AFTER_BYTES: i64 = 64 * 1024;

struct ThreadState {
    rng: ChaCha12Rng,
    fork_generation: u64,
    budget: i64,
}

impl ThreadState {
    fn new() -> ThreadState {
        ThreadState {
            rng: ChaCha12Rng::from_seed(os_seed()),
            fork_generation: crate::platform::fork_generation(),
            budget: RESEED_AFTER_BYTES,
        }
    }

    #[inline]
    fn spend(&mut self, bytes: i64) -> &mut ChaCha12Rng {
        self.budget -= bytes;
        if self.budget < 0 || self.fork_generation != crate::platform::fork_generation() {
            *self = ThreadState::new();
        }
        &mut self.rng
    }
}

thread_local! {
    static STATE: RefCell<ThreadState> = RefCell::new(ThreadState::new());
}

/// 32 bytes from the operating system's random source.
///
/// # Panics
/// If the OS has no random source to give; uuidkit never falls back to a weaker one.
fn os_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut seed) {
        panic!("uuidkit: the operating system's random source failed: {e}");
    }
    seed
}

/// The default random source: a handle to this thread's OS-seeded, fork-safe ChaCha12.
///
/// It is a zero-sized handle, `Copy`, and each thread has its own stream, so it needs no
/// lock.
///
/// ```
/// use uuidkit::random::{Csprng, RngCore};
/// let mut a = [0u8; 16];
/// Csprng.fill_bytes(&mut a);
/// assert_ne!(a, [0u8; 16]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Csprng;

impl RngCore for Csprng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        STATE.with(|s| s.borrow_mut().spend(4).next_u32())
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        STATE.with(|s| s.borrow_mut().spend(8).next_u64())
    }

    #[inline]
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        STATE.with(|s| s.borrow_mut().spend(dst.len() as i64).fill_bytes(dst))
    }
}

/// 16 bytes from the default CSPRNG, in one borrow of the thread's state.
#[inline]
pub(crate) fn bytes16() -> [u8; 16] {
    let mut b = [0u8; 16];
    Csprng.fill_bytes(&mut b);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_have_distinct_streams() {
        let a: Vec<u64> = (0..4)
            .map(|_| std::thread::spawn(|| Csprng.next_u64()).join().unwrap())
            .collect();
        for i in 0..a.len() {
            for j in i + 1..a.len() {
                assert_ne!(a[i], a[j]);
            }
        }
    }

    #[test]
    fn rekeys_after_its_budget() {
        let mut seen = std::collections::HashSet::new();
        let mut buf = [0u8; 1024];
        for _ in 0..(RESEED_AFTER_BYTES as usize / 1024) * 3 {
            Csprng.fill_bytes(&mut buf);
            assert!(seen.insert(buf), "a 1 KiB block repeated");
        }
    }
}
