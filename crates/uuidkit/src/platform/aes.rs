//! AES-128 in counter mode written straight into its destination: the keystream blocks
//! of the random module's CSPRNG (`crate::random`), produced eight at a time with the
//! CPU's AES instructions and stored where they are wanted (the thread's buffer, a
//! caller's bytes, a batch of UUIDs) with no zeroed buffer to XOR into and no copy, and
//! optionally masked on the way (`(block & and) | or`: a v4 UUID's version and variant
//! bits set in the same pass).
//!
//! The stream is the `ctr` crate's `Ctr64LE<Aes128Enc>` with a zero nonce: block `i` of
//! a key is AES-128 of the 16 bytes `i.to_le_bytes()` then eight zeros. Without AES
//! instructions (and under Miri) the `aes` crate encrypts the same counter blocks; the
//! tests check both against `ctr`.

use core::mem::ManuallyDrop;

use aes::Aes128Enc;
use aes::cipher::{BlockEncrypt, KeyInit};

use crate::uuid::Uuid;

/// An AES-128-CTR keystream: the expanded key and the next block's counter.
pub(crate) struct AesCtr {
    key: Key,
    ctr: u64,
}

// Either variant is plain arrays: `ManuallyDrop` keeps the thread-local that holds it
// free of drop glue (see `crate::random`).
#[allow(clippy::large_enum_variant)]
enum Key {
    /// The 11 round keys, for the AES instructions (which the CPU has: checked when
    /// this was made).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Ni([[u8; 16]; 11]),
    /// The same, for the AES instructions on 256-bit registers (two blocks an
    /// instruction), which the CPU has too, with AVX2.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Vaes([[u8; 16]; 11]),
    Soft(ManuallyDrop<Aes128Enc>),
}

/// What a block is masked with: nothing, or `(block & and) | or`.
#[derive(Clone, Copy)]
pub(crate) struct Mask {
    pub(crate) and: u128,
    pub(crate) or: u128,
}

impl Mask {
    /// `block` masked: `(block & and) | or`, the block read as a native `u128` (the
    /// vector paths do the same with their registers).
    #[inline(always)]
    pub(crate) fn apply(self, block: [u8; 16]) -> [u8; 16] {
        ((u128::from_ne_bytes(block) & self.and) | self.or).to_ne_bytes()
    }
}

impl AesCtr {
    /// The keystream of `key` from block 0: with the CPU's AES instructions where it has
    /// them, else in software.
    pub(crate) fn new(key: [u8; 16]) -> AesCtr {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if super::has_aes_instructions() {
            // SAFETY: the CPU has AES instructions and SSE2 (checked just above).
            let keys = unsafe { ni::expand(key) };
            let wide =
                std::is_x86_feature_detected!("vaes") && std::is_x86_feature_detected!("avx2");
            return AesCtr {
                key: if wide { Key::Vaes(keys) } else { Key::Ni(keys) },
                ctr: 0,
            };
        }
        AesCtr::soft(key)
    }

    /// The same keystream with the 128-bit AES instructions only, where the CPU has them
    /// (the tests compare it with the wide one).
    #[cfg(test)]
    fn narrow(key: [u8; 16]) -> AesCtr {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if super::has_aes_instructions() {
            // SAFETY: the CPU has AES instructions and SSE2 (checked just above).
            let keys = unsafe { ni::expand(key) };
            return AesCtr {
                key: Key::Ni(keys),
                ctr: 0,
            };
        }
        AesCtr::soft(key)
    }

    /// The same keystream, always in software (the tests' reference).
    pub(crate) fn soft(key: [u8; 16]) -> AesCtr {
        AesCtr {
            key: Key::Soft(ManuallyDrop::new(Aes128Enc::new(&key.into()))),
            ctr: 0,
        }
    }

    /// Overwrites `out` with the next `out.len()` blocks of keystream, each masked by
    /// `mask` when there is one.
    #[inline]
    pub(crate) fn blocks(&mut self, out: &mut [[u8; 16]], mask: Option<Mask>) {
        match &self.key {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            // SAFETY: `Key::Ni` is only made where the CPU has AES instructions and SSE2.
            Key::Ni(keys) => unsafe {
                match mask {
                    None => ni::ctr::<false>(keys, self.ctr, out, 0, 0),
                    Some(m) => ni::ctr::<true>(keys, self.ctr, out, m.and, m.or),
                }
            },
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            // SAFETY: `Key::Vaes` is only made where the CPU has AES instructions, SSE2,
            // VAES and AVX2.
            Key::Vaes(keys) => unsafe {
                match mask {
                    None => ni::ctr_wide::<false>(keys, self.ctr, out, 0, 0),
                    Some(m) => ni::ctr_wide::<true>(keys, self.ctr, out, m.and, m.or),
                }
            },
            Key::Soft(c) => {
                for (i, b) in out.iter_mut().enumerate() {
                    let mut block = aes::Block::from(u128::from(self.ctr + i as u64).to_le_bytes());
                    c.encrypt_block(&mut block);
                    *b = block.into();
                    if let Some(m) = mask {
                        *b = m.apply(*b);
                    }
                }
            }
        }
        // A key makes 4,096 blocks (64 KiB) before the random module replaces it, so the
        // counter is nowhere near wrapping.
        self.ctr += out.len() as u64;
    }
}

/// `uuids` as their 16-byte blocks (a `Uuid` is its 16 bytes).
pub(crate) fn uuid_blocks(uuids: &mut [Uuid]) -> &mut [[u8; 16]] {
    const _: () = assert!(size_of::<Uuid>() == 16 && align_of::<Uuid>() == 1);
    // SAFETY: `Uuid` is `repr(transparent)` over `[u8; 16]`, so the slice's memory is
    // `uuids.len()` arrays of 16 bytes, every bit pattern of which is a valid `Uuid`;
    // the new slice borrows `uuids` mutably for its whole life.
    unsafe { core::slice::from_raw_parts_mut(uuids.as_mut_ptr().cast(), uuids.len()) }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod ni {
    use core::arch::x86_64::{
        __m128i, __m256i, _mm_add_epi64, _mm_aesenc_si128, _mm_aesenclast_si128,
        _mm_aeskeygenassist_si128, _mm_and_si128, _mm_loadu_si128, _mm_or_si128, _mm_set_epi64x,
        _mm_shuffle_epi32, _mm_slli_si128, _mm_storeu_si128, _mm_xor_si128, _mm256_add_epi64,
        _mm256_aesenc_epi128, _mm256_aesenclast_epi128, _mm256_and_si256,
        _mm256_broadcastsi128_si256, _mm256_or_si256, _mm256_set_epi64x, _mm256_storeu_si256,
        _mm256_xor_si256,
    };

    /// Blocks encrypted side by side: AES's latency hidden behind its throughput.
    const WIDE: usize = 8;

    /// One step of the AES-128 key schedule: the next round key from the last and its
    /// `aeskeygenassist`.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    fn step(k: __m128i, assist: __m128i) -> __m128i {
        let t = _mm_shuffle_epi32::<0xff>(assist);
        let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        _mm_xor_si128(k, t)
    }

    /// The 11 round keys of `key`.
    ///
    /// # Safety
    /// The CPU has AES instructions and SSE2.
    #[target_feature(enable = "aes,sse2")]
    pub(super) unsafe fn expand(key: [u8; 16]) -> [[u8; 16]; 11] {
        let mut k = [_mm_set_epi64x(0, 0); 11];
        // SAFETY: `key` is 16 readable bytes; the load is unaligned.
        k[0] = unsafe { _mm_loadu_si128(key.as_ptr().cast()) };
        macro_rules! round {
            ($i:literal, $rcon:literal) => {
                k[$i] = step(k[$i - 1], _mm_aeskeygenassist_si128::<$rcon>(k[$i - 1]));
            };
        }
        round!(1, 0x01);
        round!(2, 0x02);
        round!(3, 0x04);
        round!(4, 0x08);
        round!(5, 0x10);
        round!(6, 0x20);
        round!(7, 0x40);
        round!(8, 0x80);
        round!(9, 0x1b);
        round!(10, 0x36);
        let mut out = [[0u8; 16]; 11];
        for (o, k) in out.iter_mut().zip(k) {
            // SAFETY: `o` is 16 writable bytes; the store is unaligned.
            unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), k) };
        }
        out
    }

    /// Writes the keystream blocks `ctr`, `ctr + 1`, … into `out`, each `(b & and) | or`
    /// when `MASK`.
    ///
    /// # Safety
    /// The CPU has AES instructions and SSE2.
    #[target_feature(enable = "aes,sse2")]
    pub(super) unsafe fn ctr<const MASK: bool>(
        keys: &[[u8; 16]; 11],
        ctr: u64,
        out: &mut [[u8; 16]],
        and: u128,
        or: u128,
    ) {
        // SAFETY (every load and store below): each pointer is to 16 bytes of an array
        // borrowed for the call (a round key, a mask, a block of `out`), read or written
        // unaligned.
        let rk: [__m128i; 11] = keys.map(|k| unsafe { _mm_loadu_si128(k.as_ptr().cast()) });
        let and = unsafe { _mm_loadu_si128((&raw const and).cast()) };
        let or = unsafe { _mm_loadu_si128((&raw const or).cast()) };
        let finish = |b: __m128i| {
            if MASK {
                _mm_or_si128(_mm_and_si128(b, and), or)
            } else {
                b
            }
        };
        let one = _mm_set_epi64x(0, 1);
        // The counter block: `ctr` little-endian in the low 8 bytes, zeros above.
        let mut c = _mm_set_epi64x(0, ctr as i64);
        let mut chunks = out.chunks_exact_mut(WIDE);
        for chunk in &mut chunks {
            let mut b = [rk[0]; WIDE];
            for x in &mut b {
                *x = _mm_xor_si128(c, rk[0]);
                c = _mm_add_epi64(c, one);
            }
            for k in &rk[1..10] {
                for x in &mut b {
                    *x = _mm_aesenc_si128(*x, *k);
                }
            }
            for (o, x) in chunk.iter_mut().zip(b) {
                let x = finish(_mm_aesenclast_si128(x, rk[10]));
                unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), x) };
            }
        }
        for o in chunks.into_remainder() {
            let mut x = _mm_xor_si128(c, rk[0]);
            c = _mm_add_epi64(c, one);
            for k in &rk[1..10] {
                x = _mm_aesenc_si128(x, *k);
            }
            let x = finish(_mm_aesenclast_si128(x, rk[10]));
            unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), x) };
        }
    }

    /// [`ctr`] two blocks a register: the keystream blocks `ctr`, `ctr + 1`, … into
    /// `out`, each `(b & and) | or` when `MASK`.
    ///
    /// # Safety
    /// The CPU has AES instructions, SSE2, VAES and AVX2.
    #[target_feature(enable = "aes,sse2,vaes,avx2")]
    pub(super) unsafe fn ctr_wide<const MASK: bool>(
        keys: &[[u8; 16]; 11],
        ctr: u64,
        out: &mut [[u8; 16]],
        and: u128,
        or: u128,
    ) {
        // SAFETY (every load and store below): each pointer is to 16 bytes of an array
        // borrowed for the call (a round key, a mask), or to the 32 bytes of two adjacent
        // blocks of `out`; all unaligned.
        let rk: [__m256i; 11] = keys
            .map(|k| _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(k.as_ptr().cast()) }));
        let wide_and =
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128((&raw const and).cast()) });
        let wide_or =
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128((&raw const or).cast()) });
        let two = _mm256_set_epi64x(0, 2, 0, 2);
        // Blocks `ctr` (low lane) and `ctr + 1` (high lane).
        let mut c = _mm256_set_epi64x(0, ctr.wrapping_add(1) as i64, 0, ctr as i64);
        let whole = out.len() - out.len() % (2 * WIDE);
        let (head, rest) = out.split_at_mut(whole);
        for chunk in head.chunks_exact_mut(2 * WIDE) {
            let mut b = [rk[0]; WIDE];
            for x in &mut b {
                *x = _mm256_xor_si256(c, rk[0]);
                c = _mm256_add_epi64(c, two);
            }
            for k in &rk[1..10] {
                for x in &mut b {
                    *x = _mm256_aesenc_epi128(*x, *k);
                }
            }
            for (o, x) in chunk.chunks_exact_mut(2).zip(b) {
                let x = _mm256_aesenclast_epi128(x, rk[10]);
                let x = if MASK {
                    _mm256_or_si256(_mm256_and_si256(x, wide_and), wide_or)
                } else {
                    x
                };
                unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), x) };
            }
        }
        let done = whole as u64;
        // SAFETY: the caller's guarantee covers `ctr`'s.
        unsafe { self::ctr::<MASK>(keys, ctr + done, rest, and, or) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctr::cipher::{KeyIvInit, StreamCipher};

    /// The `ctr` crate's keystream of `key`, `n` blocks from the start.
    fn reference(key: [u8; 16], n: usize) -> Vec<[u8; 16]> {
        let mut c = ctr::Ctr64LE::<Aes128Enc>::new(&key.into(), &[0u8; 16].into());
        let mut out = vec![[0u8; 16]; n];
        c.apply_keystream(out.as_flattened_mut());
        out
    }

    #[test]
    fn both_paths_are_ctr64le_in_pieces_of_every_size() {
        let key: [u8; 16] = core::array::from_fn(|i| (i * 37 + 5) as u8);
        let want = reference(key, 300);
        for make in [AesCtr::new, AesCtr::narrow, AesCtr::soft] {
            let mut got = vec![[0u8; 16]; 300];
            make(key).blocks(&mut got, None);
            assert_eq!(got, want, "in one piece");
        }
        for make in [AesCtr::new, AesCtr::narrow, AesCtr::soft] {
            let mut a = make(key);
            let mut got = vec![[0u8; 16]; 300];
            let mut at = 0;
            for len in [0, 1, 7, 8, 9, 16, 17, 3, 33, 64, 67, 75] {
                a.blocks(&mut got[at..at + len], None);
                at += len;
            }
            assert_eq!(at, 300);
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_mask_is_applied_to_every_block() {
        let key = [0x5a; 16];
        let m = Mask {
            and: 0xffff_0000_ffff_0000_ffff_0000_ffff_00ff,
            or: 0x0100_0000_0000_0000_0000_0000_0000_0002,
        };
        let want: Vec<[u8; 16]> = reference(key, 37).into_iter().map(|b| m.apply(b)).collect();
        for make in [AesCtr::new, AesCtr::narrow, AesCtr::soft] {
            let mut got = vec![[0u8; 16]; 37];
            make(key).blocks(&mut got, Some(m));
            assert_eq!(got, want);
        }
    }

    #[test]
    fn uuid_blocks_are_the_uuids_bytes() {
        let mut u = [Uuid::NIL, Uuid::MAX];
        uuid_blocks(&mut u)[0] = [7; 16];
        assert_eq!(u[0].as_bytes(), &[7; 16]);
        assert_eq!(u[1], Uuid::MAX);
    }
}
