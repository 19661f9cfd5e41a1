//! Randomness: the default CSPRNG and the trait that makes it replaceable.
//!
//! Generators take any [`RngCore`]; the default, [`Csprng`], is a per-thread stream
//! cipher keyed from the operating system (`getrandom`), rekeyed from the OS every 64 KiB
//! of output and in a child process after `fork`, so a parent and its child never share a
//! random stream. Its keystream is produced 1 KiB at a time, which is what makes a v4
//! UUID cost a few nanoseconds instead of a system call.
//!
//! # Which cipher
//! - **AES-128 in counter mode** (the `aes` and `ctr` crates) where the CPU has AES
//!   instructions (AES-NI on x86 and x86-64, detected when a thread first draws): each
//!   key is 128 fresh bits from the OS and the counter starts at zero, so no block of
//!   keystream is ever produced twice. With the instructions, AES is both the fastest
//!   cipher here and constant-time: measured on the project's machine, 16 bytes of
//!   keystream cost 2.2 ns against 3.3 ns for ChaCha8 and 5.2 ns for ChaCha12 (the
//!   benchmark `vs_uuid` has both ciphers side by side in `random source 16 bytes`).
//! - **ChaCha8** (`rand_chacha`) everywhere else: AES in software is slow, and either
//!   has table lookups that leak timing or is bitsliced and slower still, while ChaCha is
//!   fast and constant-time with plain arithmetic. Why 8 rounds: the best published
//!   attacks on ChaCha reach 7 rounds, and "Too Much Crypto" (Aumasson, 2019) argues 8 are
//!   enough; Go's runtime and `math/rand/v2` use ChaCha8 as their cryptographically
//!   strong generator for the same reason.
//!
//! Both are stream ciphers used as NIST SP 800-90A's CTR_DRBG and Go's ChaCha8Rand use
//! them: the output is the keystream of a secret key that only the OS knows, and a new
//! key replaces the old one after 64 KiB, so even a thread's memory read later does not
//! reveal the bytes it handed out under an earlier key. [`cipher`] tells which one this
//! process uses.
//!
//! Tests pass a seeded generator instead, for example
//! `rand_chacha::ChaCha8Rng::seed_from_u64(7)`.

use core::cell::RefCell;

use rand_chacha::ChaCha8Rng;
pub use rand_core::{RngCore, SeedableRng};

use crate::platform::{AesCtr, Mask, uuid_blocks};
use crate::uuid::Uuid;

/// Output after which the per-thread generator is rekeyed from the OS.
const RESEED_AFTER_BYTES: i64 = 64 * 1024;

/// Bytes of keystream produced at once: the cipher runs in bulk (where its SIMD or AES
/// implementation is fastest) and a small draw is then a copy and an index bump. Large
/// fills (a batch of v4 UUIDs, a v7 batch's random bits) skip the buffer: the cipher
/// writes straight into them, this many bytes at a time.
const BUFFER_BYTES: usize = 1024;

/// [`BUFFER_BYTES`] in 16-byte blocks.
const BUFFER_BLOCKS: usize = BUFFER_BYTES / 16;

/// What makes 16 random bytes a v4 UUID, as a mask on the bytes read as a native
/// `u128`: [`crate::layout::v4::encode`]'s version and variant bits, set as the cipher
/// stores its blocks.
const V4_MASK: Mask = Mask {
    and: u128::from_ne_bytes(0xffff_ffff_ffff_0fff_3fff_ffff_ffff_ffff_u128.to_be_bytes()),
    or: u128::from_ne_bytes(((4u128 << 76) | (1 << 63)).to_be_bytes()),
};

/// The stream cipher behind [`Csprng`] (see the module documentation for why each).
///
/// ```
/// use uuidkit::random::{cipher, Cipher};
/// // AES-128-CTR with the CPU's AES instructions, ChaCha8 without them.
/// assert!(matches!(cipher(), Cipher::Aes128Ctr | Cipher::ChaCha8));
/// println!("the default random source is {}", cipher());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cipher {
    /// AES-128 in counter mode, with the CPU's AES instructions.
    Aes128Ctr,
    /// ChaCha with 8 rounds.
    ChaCha8,
}

impl core::fmt::Display for Cipher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Cipher::Aes128Ctr => "AES-128-CTR",
            Cipher::ChaCha8 => "ChaCha8",
        })
    }
}

/// The cipher of the default random source on this CPU: [`Cipher::Aes128Ctr`] where it
/// has AES instructions, else [`Cipher::ChaCha8`].
///
/// ```
/// let c = uuidkit::random::cipher();
/// assert_eq!(c, uuidkit::random::cipher(), "fixed for the process");
/// ```
pub fn cipher() -> Cipher {
    if crate::platform::has_aes_instructions() {
        Cipher::Aes128Ctr
    } else {
        Cipher::ChaCha8
    }
}

// One per thread, in its thread-local state: boxing the larger variant would add an
// allocation, a pointer to follow on every refill and drop glue, to save 450 bytes.
#[allow(clippy::large_enum_variant)]
enum Keystream {
    // A 64-bit block counter (little-endian: the cheapest to step) in a zero nonce,
    // written straight into its destination (`crate::platform::AesCtr`): a key lasts
    // 4,096 blocks (64 KiB), so the counter never comes near wrapping. Its expanded keys
    // are plain arrays with nothing to free: a thread-local without drop glue needs no
    // destructor registered, which keeps every visit to it one check shorter.
    Aes(AesCtr),
    ChaCha(ChaCha8Rng),
    /// A thread that has not drawn yet.
    Unset,
}

impl Keystream {
    fn new(c: Cipher) -> Keystream {
        let seed = os_seed();
        match c {
            Cipher::Aes128Ctr => {
                let (key, _) = seed.split_at(16);
                let key: [u8; 16] = key.try_into().expect("16 of 32 bytes");
                Keystream::Aes(AesCtr::new(key))
            }
            Cipher::ChaCha8 => Keystream::ChaCha(ChaCha8Rng::from_seed(seed)),
        }
    }

    /// Overwrites `dst` with the next `dst.len()` blocks of keystream, each masked by
    /// `mask` when there is one.
    #[inline]
    fn write(&mut self, dst: &mut [[u8; 16]], mask: Option<Mask>) {
        match self {
            // The blocks are stored straight into `dst`: no zeroed buffer to XOR into.
            Keystream::Aes(c) => c.blocks(dst, mask),
            Keystream::ChaCha(c) => {
                c.fill_bytes(dst.as_flattened_mut());
                if let Some(m) = mask {
                    for b in dst {
                        *b = m.apply(*b);
                    }
                }
            }
            Keystream::Unset => unreachable!("keyed before the first byte"),
        }
    }
}

/// One thread's random stream: a buffer of keystream and the cipher that refills it.
pub(crate) struct ThreadRng {
    cipher: Cipher,
    stream: Keystream,
    fork_generation: u64,
    budget: i64,
    /// Keys this thread has used since its stream was created or a fork renewed it.
    keys: u32,
    buf: [[u8; 16]; BUFFER_BLOCKS],
    /// Bytes of `buf` handed out.
    pos: usize,
}

impl ThreadRng {
    /// A thread's state before its first draw: its fork generation matches none, so the
    /// first visit keys it (one check for both "not yet keyed" and "copied by fork").
    const UNSET: ThreadRng = ThreadRng {
        cipher: Cipher::ChaCha8,
        stream: Keystream::Unset,
        fork_generation: u64::MAX,
        budget: 0,
        keys: 0,
        buf: [[0; 16]; BUFFER_BLOCKS],
        pos: BUFFER_BYTES,
    };

    fn new(cipher: Cipher) -> ThreadRng {
        // Registers the fork hook before the first byte is produced, so that every later
        // check can be the bare atomic load of `fork_generation_relaxed`.
        let fork_generation = crate::platform::fork_generation();
        ThreadRng {
            cipher,
            stream: Keystream::new(cipher),
            fork_generation,
            budget: RESEED_AFTER_BYTES,
            keys: 1,
            buf: [[0; 16]; BUFFER_BLOCKS],
            pos: BUFFER_BYTES,
        }
    }

    /// Keys the stream before its first byte, and rekeys it from the OS in a child
    /// after `fork`, where the buffer and the key are the parent's too. Checked once per
    /// visit to the thread's state: a fork copies only the thread that calls it, never
    /// one inside a visit.
    #[inline]
    fn ready(&mut self) {
        if self.fork_generation != crate::platform::fork_generation_relaxed() {
            self.key_anew();
        }
    }

    #[cold]
    #[inline(never)]
    fn key_anew(&mut self) {
        let c = match self.stream {
            Keystream::Unset => cipher(),
            _ => self.cipher,
        };
        *self = ThreadRng::new(c);
    }

    /// Counts one buffer's worth of keystream against the key's budget, rekeying first
    /// when it is spent.
    #[inline]
    fn spend_buffer(&mut self) {
        self.budget -= BUFFER_BYTES as i64;
        if self.budget < 0 {
            self.rekey();
        }
    }

    #[cold]
    fn rekey(&mut self) {
        let keys = self.keys + 1;
        *self = ThreadRng::new(self.cipher);
        self.keys = keys;
        self.budget -= BUFFER_BYTES as i64;
    }

    #[cold]
    fn refill(&mut self) {
        self.spend_buffer();
        self.stream.write(&mut self.buf, None);
        self.pos = 0;
    }

    /// `N` bytes (N ≤ 16) of fresh keystream, never handed out before, in this process
    /// or in a parent before `fork`.
    #[inline]
    pub(crate) fn bytes<const N: usize>(&mut self) -> [u8; N] {
        if self.pos > BUFFER_BYTES - N {
            self.refill();
        }
        // `pos ≤ BUFFER_BYTES - N` here, which the `min` tells the compiler: one bounds
        // check per draw instead of two.
        let pos = self.pos.min(BUFFER_BYTES - N);
        let mut out = [0u8; N];
        out.copy_from_slice(&self.buf.as_flattened()[pos..pos + N]);
        self.pos = pos + N;
        out
    }

    /// Fills `dst` with fresh keystream: what the buffer holds in one copy, then whole
    /// kilobytes written by the cipher straight into `dst`, then the rest from a refill.
    pub(crate) fn fill(&mut self, mut dst: &mut [u8]) {
        loop {
            let avail = BUFFER_BYTES - self.pos;
            let n = avail.min(dst.len());
            dst[..n].copy_from_slice(&self.buf.as_flattened()[self.pos..self.pos + n]);
            self.pos += n;
            dst = &mut dst[n..];
            if dst.is_empty() {
                return;
            }
            while dst.len() >= BUFFER_BYTES {
                let (run, rest) = dst.split_at_mut(BUFFER_BYTES);
                self.spend_buffer();
                self.stream.write(run.as_chunks_mut::<16>().0, None);
                dst = rest;
            }
            if dst.is_empty() {
                return;
            }
            self.refill();
        }
    }

    /// Overwrites `out` with fresh blocks of keystream, each masked by `mask`: what whole
    /// blocks the buffer holds, then whole kilobytes written by the cipher straight into
    /// `out` (masked as they are stored), then the rest from a refill.
    pub(crate) fn fill_masked(&mut self, mut out: &mut [[u8; 16]], mask: Mask) {
        loop {
            let held = &self.buf.as_flattened()[self.pos..];
            let n = (held.len() / 16).min(out.len());
            let (run, rest) = out.split_at_mut(n);
            for (o, b) in run.iter_mut().zip(held.chunks_exact(16)) {
                *o = mask.apply(b.try_into().expect("chunks of 16"));
            }
            self.pos += 16 * n;
            out = rest;
            while out.len() >= BUFFER_BLOCKS {
                let (run, rest) = out.split_at_mut(BUFFER_BLOCKS);
                self.spend_buffer();
                self.stream.write(run, Some(mask));
                out = rest;
            }
            if out.is_empty() {
                return;
            }
            self.refill();
        }
    }
}

thread_local! {
    static STATE: RefCell<ThreadRng> = const { RefCell::new(ThreadRng::UNSET) };
}

/// Runs `f` on this thread's random stream: one visit to the thread-local state (and one
/// fork check) for everything `f` draws.
#[inline]
pub(crate) fn with_thread_rng<T>(f: impl FnOnce(&mut ThreadRng) -> T) -> T {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.ready();
        f(&mut s)
    })
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

/// The default random source: a handle to this thread's OS-seeded, fork-safe stream
/// cipher, AES-128-CTR with AES instructions or ChaCha8 without (the module docs say
/// why).
///
/// It is a zero-sized handle, `Copy`, and each thread has its own stream, so it needs no
/// lock. `fill_bytes` copies whole runs of keystream, and writes whole kilobytes of it
/// straight into a large destination.
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
        u32::from_ne_bytes(with_thread_rng(|s| s.bytes::<4>()))
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        u64::from_ne_bytes(with_thread_rng(|s| s.bytes::<8>()))
    }

    #[inline]
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        with_thread_rng(|s| s.fill(dst))
    }
}

/// 16 bytes from the default CSPRNG, in one visit to the thread's state.
#[inline]
pub(crate) fn bytes16() -> [u8; 16] {
    with_thread_rng(|s| s.bytes::<16>())
}

/// Fills `out` with v4 UUIDs from the default CSPRNG, in one visit to the thread's state.
#[inline]
pub(crate) fn fill_v4(out: &mut [Uuid]) {
    with_thread_rng(|s| s.fill_masked(uuid_blocks(out), V4_MASK))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Runs `f` with this thread's stream replaced by a new one of cipher `c`, restoring
    /// a default one afterwards: how tests reach the cipher this CPU would not pick.
    fn with_cipher<T>(c: Cipher, f: impl FnOnce() -> T) -> T {
        STATE.with(|s| *s.borrow_mut() = ThreadRng::new(c));
        let out = f();
        STATE.with(|s| *s.borrow_mut() = ThreadRng::UNSET);
        out
    }

    fn current_cipher() -> Cipher {
        with_thread_rng(|s| s.cipher)
    }

    const BOTH: [Cipher; 2] = [Cipher::Aes128Ctr, Cipher::ChaCha8];

    #[test]
    fn default_cipher_follows_the_cpu() {
        assert_eq!(current_cipher(), cipher());
        #[cfg(all(any(target_arch = "x86_64", target_arch = "x86"), not(miri)))]
        assert_eq!(
            cipher() == Cipher::Aes128Ctr,
            std::is_x86_feature_detected!("aes")
        );
        assert_eq!(Cipher::Aes128Ctr.to_string(), "AES-128-CTR");
        assert_eq!(Cipher::ChaCha8.to_string(), "ChaCha8");
    }

    #[test]
    fn threads_have_distinct_streams() {
        for c in BOTH {
            let a: Vec<u64> = (0..4)
                .map(|_| {
                    std::thread::spawn(move || with_cipher(c, || Csprng.next_u64()))
                        .join()
                        .unwrap()
                })
                .collect();
            for i in 0..a.len() {
                for j in i + 1..a.len() {
                    assert_ne!(a[i], a[j], "{c}");
                }
            }
        }
    }

    /// Every 16-byte block of a long run is distinct, across several rekeys, whether
    /// drawn in small pieces, in runs, or in large fills written straight from the
    /// cipher; and the run is not the all-zero keystream of a broken XOR.
    #[test]
    fn never_repeats_across_rekeys_and_draw_sizes() {
        for c in BOTH {
            with_cipher(c, || {
                assert_eq!(current_cipher(), c);
                let mut seen = HashSet::new();
                let total = RESEED_AFTER_BYTES as usize * 3;
                let mut drawn = 0;
                let mut size = 1usize;
                while drawn < total {
                    let mut buf = vec![0u8; size * 16];
                    Csprng.fill_bytes(&mut buf);
                    for b in buf.chunks_exact(16) {
                        assert!(seen.insert(b.to_vec()), "{c}: a block repeated");
                    }
                    drawn += buf.len();
                    // 16 bytes up to 4 KiB and back: both the buffer and the direct path.
                    size = if size >= 256 { 1 } else { size * 2 + 1 };
                }
                for _ in 0..4096 {
                    assert!(seen.insert(bytes16().to_vec()), "{c}: a block repeated");
                }
            });
        }
    }

    #[test]
    fn rekeys_after_its_budget() {
        for c in BOTH {
            with_cipher(c, || {
                let keys = || with_thread_rng(|s| s.keys);
                let mut buf = vec![0u8; RESEED_AFTER_BYTES as usize];
                Csprng.fill_bytes(&mut buf);
                assert_eq!(keys(), 1, "{c}: the first key lasts its budget");
                for n in 2..6 {
                    Csprng.fill_bytes(&mut buf[..RESEED_AFTER_BYTES as usize / 2]);
                    Csprng.fill_bytes(&mut buf[..RESEED_AFTER_BYTES as usize / 2]);
                    assert_eq!(keys(), n, "{c}: one key per 64 KiB");
                    assert!(with_thread_rng(|s| s.budget) >= 0);
                }
            });
        }
    }

    /// A thread whose state is a parent's (the fork generation moved on) rekeys before
    /// its next byte: the bytes after differ from what the old state would give.
    #[test]
    fn a_child_rekeys_before_its_next_byte() {
        for c in BOTH {
            with_cipher(c, || {
                let _ = bytes16();
                // What the parent goes on with: a copy of the state as fork leaves it.
                let parent_next = with_thread_rng(|s| {
                    let mut copy = [0u8; 64];
                    copy.copy_from_slice(&s.buf.as_flattened()[s.pos..s.pos + 64]);
                    s.fork_generation = s.fork_generation.wrapping_sub(1);
                    copy
                });
                let mut child_next = [0u8; 64];
                Csprng.fill_bytes(&mut child_next);
                assert_ne!(parent_next, child_next, "{c}");
                assert_eq!(current_cipher(), c, "the cipher is kept");
            });
        }
    }

    #[test]
    fn the_v4_mask_is_the_v4_layout() {
        for x in [0u128, u128::MAX, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210] {
            let b = x.to_be_bytes();
            let masked = V4_MASK.apply(b);
            assert_eq!(Uuid::from_bytes(masked), crate::layout::v4::encode(b));
        }
    }

    #[test]
    fn v4_fill_sets_version_and_variant_and_never_repeats() {
        for c in BOTH {
            with_cipher(c, || {
                let mut seen = HashSet::new();
                for len in [0usize, 1, 3, 63, 64, 65, 1000, 5000] {
                    let mut out = vec![Uuid::NIL; len];
                    fill_v4(&mut out);
                    // An odd draw first, so the next run starts off a 16-byte boundary.
                    let _ = Csprng.next_u32();
                    for u in out {
                        assert_eq!(u.version(), crate::uuid::Version::V4);
                        assert_eq!(u.variant(), crate::uuid::Variant::Rfc9562);
                        assert!(seen.insert(u), "{c}: {u} repeated");
                    }
                }
            });
        }
    }
}
