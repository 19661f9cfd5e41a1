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

/// Words of keystream produced at once: the cipher runs in bulk (where its SIMD
/// implementation is fastest) and a v4 UUID is then two loads and an index bump.
const BUFFER_WORDS: usize = 128;

struct ThreadState {
    rng: ChaCha12Rng,
    fork_generation: u64,
    budget: i64,
    buf: [u64; BUFFER_WORDS],
    pos: usize,
}

impl ThreadState {
    fn new() -> ThreadState {
        // Registers the fork hook before the first byte is produced, so that every later
        // check can be the bare atomic load of `fork_generation_relaxed`.
        let fork_generation = crate::platform::fork_generation();
        ThreadState {
            rng: ChaCha12Rng::from_seed(os_seed()),
            fork_generation,
            budget: RESEED_AFTER_BYTES,
            buf: [0; BUFFER_WORDS],
            pos: BUFFER_WORDS,
        }
    }

    fn refill(&mut self) {
        self.budget -= (BUFFER_WORDS * 8) as i64;
        if self.budget < 0 {
            *self = ThreadState::new();
        }
        let mut bytes = [0u8; BUFFER_WORDS * 8];
        self.rng.fill_bytes(&mut bytes);
        for (w, chunk) in self.buf.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_ne_bytes(chunk.try_into().expect("8-byte chunk"));
        }
        self.pos = 0;
    }

    /// `n` words (n ≤ BUFFER_WORDS) of fresh keystream, never handed out before, in this
    /// process or in a parent before `fork`.
    #[inline]
    fn words<const N: usize>(&mut self) -> [u64; N] {
        if self.fork_generation != crate::platform::fork_generation_relaxed() {
            // A child after fork: the buffer and the key are the parent's too.
            *self = ThreadState::new();
        }
        if self.pos + N > BUFFER_WORDS {
            self.refill();
        }
        let mut out = [0u64; N];
        out.copy_from_slice(&self.buf[self.pos..self.pos + N]);
        self.pos += N;
        out
    }
}

thread_local! {
    static STATE: RefCell<Option<ThreadState>> = const { RefCell::new(None) };
}

#[inline]
fn with_state<T>(f: impl FnOnce(&mut ThreadState) -> T) -> T {
    STATE.with(|s| f(s.borrow_mut().get_or_insert_with(ThreadState::new)))
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
        self.next_u64() as u32
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        with_state(|s| s.words::<1>()[0])
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let w = self.next_u64().to_ne_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }
}

/// Two words from the default CSPRNG, in one visit to the thread's state.
#[inline]
pub(crate) fn words2() -> [u64; 2] {
    with_state(|s| s.words::<2>())
}

/// 16 bytes from the default CSPRNG, in one visit to the thread's state.
#[inline]
pub(crate) fn bytes16() -> [u8; 16] {
    let [a, b] = words2();
    ((a as u128) << 64 | b as u128).to_ne_bytes()
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
