//! x86-64 kernels for three instruction-set levels: SSE2 (the x86-64 baseline, so always
//! there), SSSE3 (`pshufb` to move bytes, `pmaddubsw` to join nibbles) and AVX2 (the 32 hex
//! digits of a UUID in one register).
//!
//! Parsing kernels take the exact bytes of one form as a fixed-size array and return
//! `Some(bytes)` only when every byte is what that form requires; anything else gives
//! `None` and the caller asks the scalar parser for the precise error. So a kernel can only
//! be wrong by accepting too much, which the differential tests and the fuzzer look for.
//!
//! The only unsafe memory accesses are [`load16`], [`store16`], [`load32`] and [`store32`],
//! whose offsets are const generics checked against the array length at compile time: no
//! load or store can leave its array, whatever the input. (Sub-arrays are taken with the
//! safe [`sub`] and [`sub_mut`], whose bounds are checked at compile time too.)
//!
//! Hex digits are validated with arithmetic range checks on SSE2 and SSSE3, and with two
//! `pshufb` nibble lookups and one `vptest` on AVX2 (see [`BY_HIGH`]), whose high-nibble
//! lookup also gives each digit's value.
//!
//! From Rust 1.87 most intrinsics are safe to call inside a function compiled with their
//! target feature; on older compilers (the crate supports 1.85) they are `unsafe`. The
//! `unsafe` blocks below are written for the older rule, hence `allow(unused_unsafe)`.

#![allow(unused_unsafe)]

use core::arch::x86_64::*;

use crate::codec::form::{Case, Format};
use crate::error::ParseError;
use crate::uuid::Uuid;

use crate::platform::simd::fallback::parse_slow;

/// The hyphen, as the signed byte the `_mm*_set1_epi8` intrinsics take.
const DASH: i8 = b'-' as i8;

/// Bits of a 32-bit byte mask over `text[0..32]` that are hyphens in the hyphenated form.
const HYPHEN_BITS: u32 = (1 << 8) | (1 << 13) | (1 << 18) | (1 << 23);

/// `pmaddubsw` weights joining two nibbles into a byte: `16 * first + second`.
const JOIN_NIBBLES: i16 = 0x0110;

/// Index vector for `pshufb`: lane `i` takes byte `idx[i]`; a negative index gives zero.
type Shuffle = [i8; 16];

/// Bytes `s[OFF..OFF + 16]` as a vector.
#[inline(always)]
fn load16<const OFF: usize, const N: usize>(s: &[u8; N]) -> __m128i {
    const { assert!(OFF + 16 <= N, "load16 past the end of its array") };
    // SAFETY: the 16 bytes read, `s[OFF..OFF + 16]`, lie inside `s` (asserted above at
    // compile time); `_mm_loadu_si128` has no alignment requirement; SSE2 is part of the
    // x86-64 baseline, so the instruction exists on every CPU this code can run on.
    unsafe { _mm_loadu_si128(s.as_ptr().add(OFF).cast()) }
}

/// Writes `v` to `out[OFF..OFF + 16]`.
#[inline(always)]
fn store16<const OFF: usize, const N: usize>(out: &mut [u8; N], v: __m128i) {
    const { assert!(OFF + 16 <= N, "store16 past the end of its array") };
    // SAFETY: the 16 bytes written, `out[OFF..OFF + 16]`, lie inside `out`, which is
    // borrowed mutably (asserted above at compile time); `_mm_storeu_si128` has no alignment
    // requirement; SSE2 is part of the x86-64 baseline.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().add(OFF).cast(), v) }
}

/// The hyphenated form's 36 bytes from what every kernel ends with: text 0-15 in `t0`,
/// text 16-31 in `t1`, and the last four digits in the top four bytes of `c1`.
#[inline(always)]
fn store_hyphenated(out: &mut [u8; 36], t0: __m128i, t1: __m128i, c1: __m128i) {
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    let tail = unsafe { _mm_cvtsi128_si32(_mm_srli_si128::<12>(c1)) } as u32;
    store16::<0, 36>(out, t0);
    store16::<16, 36>(out, t1);
    *sub_mut::<32, 4, 36>(out) = tail.to_le_bytes();
}

/// Bytes `s[OFF..OFF + 32]` as a vector.
///
/// # Safety
/// The CPU supports AVX.
#[inline(always)]
unsafe fn load32<const OFF: usize, const N: usize>(s: &[u8; N]) -> __m256i {
    const { assert!(OFF + 32 <= N, "load32 past the end of its array") };
    // SAFETY: the 32 bytes read, `s[OFF..OFF + 32]`, lie inside `s` (asserted above at
    // compile time); `_mm256_loadu_si256` has no alignment requirement; the caller
    // guarantees AVX.
    unsafe { _mm256_loadu_si256(s.as_ptr().add(OFF).cast()) }
}

/// Writes `v` to `out[OFF..OFF + 32]`.
///
/// # Safety
/// The CPU supports AVX.
#[inline(always)]
unsafe fn store32<const OFF: usize, const N: usize>(out: &mut [u8; N], v: __m256i) {
    const { assert!(OFF + 32 <= N, "store32 past the end of its array") };
    // SAFETY: the 32 bytes written lie inside `out` (asserted above at compile time);
    // `_mm256_storeu_si256` has no alignment requirement; the caller guarantees AVX.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(OFF).cast(), v) }
}

/// A `pshufb` index vector (a constant load; SSE2 is baseline).
#[inline(always)]
fn shuffle(idx: &Shuffle) -> __m128i {
    // `[i8; 16]` and `[u8; 16]` have the same layout; go through bytes to reuse load16.
    load16::<0, 16>(&idx.map(|b| b as u8))
}

/// Two 16-lane `pshufb` index vectors as one 32-lane (per-128-bit-lane) index vector.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn shuffle2(lo: &Shuffle, hi: &Shuffle) -> __m256i {
    // SAFETY: the caller guarantees AVX2; register operations only.
    unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(shuffle(lo)), shuffle(hi)) }
}

/// The 16 hex digits in the chosen case, as a `pshufb` table.
#[inline(always)]
fn digits(case: Case) -> __m128i {
    match case {
        Case::Lower => load16::<0, 16>(b"0123456789abcdef"),
        Case::Upper => load16::<0, 16>(b"0123456789ABCDEF"),
    }
}

/// Where the 32 hex digits of the hyphenated form come from, for the SSSE3 and AVX2
/// parsers, which load `a = text[0..16]`, `b = text[16..32]` and `c = text[20..36]`.
/// Digits 0-15 are `a[0..8] a[9..13] a[14..16] b[0..2]`; digits 16-31 are `b[3] c[0..3]
/// c[4..16]` (text bytes 19, 20-22 and 24-35).
const FROM_A: Shuffle = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, -1, -1];
const FROM_B_LO: Shuffle = [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1];
const FROM_B_HI: Shuffle = [
    3, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
];
const FROM_C: Shuffle = [-1, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
/// For the AVX2 parser, which loads `text[0..32]` and `text[4..36]` (whose low lane,
/// `text[4..20]`, holds digits 14-15 at text bytes 16-17): those two digits, in place.
const FROM_4_LO: Shuffle = [
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 12, 13,
];

/// Where the hyphenated form's text comes from, for the encoders: `text[0..16]` from hex
/// digits 0-13, and `text[16..32]` from hex digits 14-29 (SSSE3) or 12-27 (AVX2). A negative
/// index leaves a zero that the hyphen is then or-ed into.
const TEXT_0_16: Shuffle = [0, 1, 2, 3, 4, 5, 6, 7, -1, 8, 9, 10, 11, -1, 12, 13];
const TEXT_16_32_FROM_14: Shuffle = [0, 1, -1, 2, 3, 4, 5, -1, 6, 7, 8, 9, 10, 11, 12, 13];
const TEXT_16_32_FROM_12: Shuffle = [2, 3, -1, 4, 5, 6, 7, -1, 8, 9, 10, 11, 12, 13, 14, 15];

/// Hyphens of `text[0..16]` and `text[16..32]`, zero elsewhere.
const HYPHENS_0_16: &[u8; 16] = b"\0\0\0\0\0\0\0\0-\0\0\0\0-\0\0";
const HYPHENS_16_32: &[u8; 16] = b"\0\0-\0\0\0\0-\0\0\0\0\0\0\0\0";

/// Hex validation and decoding by nibble lookups, for the AVX2 parser. For a byte `c` with
/// high nibble `h` and low nibble `l`, `BY_HIGH[h]` is two things at once:
/// - in bits 4-6, the ways `c` can fail with that high nibble: `0x10` is "`3x` with
///   `l > 9`" (`:;<=>?`), `0x20` is "`4x` or `6x` with `l == 0` or `l > 6`" (`@G`-`O`,
///   `` ` ``, `g`-`o`), `0x40` is "any other high nibble";
/// - in its low nibble, what to add to `c` for a digit's value: `(c + BY_HIGH[h]) & 15` is
///   `0`-`9` for `0`-`9` (`BY_HIGH[3]` is `0x10`), `10`-`15` for `a`-`f` and `A`-`F` (9).
///
/// `OK_BY_LOW[l]` is the complement of the ways that fail with low nibble `l`. The parser
/// indexes it with the whole byte, and `vpshufb` gives 0 where the index has bit 7 set, so
/// a non-ASCII byte looks up 0: every way fails. So `c` is a hex digit exactly when
/// `BY_HIGH[h] & !ok == 0` with `ok = OK_BY_LOW[l]` for `c < 0x80` and `0` otherwise, which
/// one `vptest` (its carry flag) checks for 32 bytes; the constant block below checks the
/// claim, and the values, for all 256 bytes when the crate compiles.
const BY_HIGH: [u8; 16] = {
    let mut t = [0x40; 16];
    t[3] = 0x10;
    t[4] = 0x20 | 9;
    t[6] = 0x20 | 9;
    t
};
const OK_BY_LOW: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut l = 0;
    while l < 16 {
        // 0x80 too: see `decode_avx2`.
        let mut fail = 0x80 | 0x40;
        if l > 9 {
            fail |= 0x10;
        }
        if l == 0 || l > 6 {
            fail |= 0x20;
        }
        t[l] = !fail;
        l += 1;
    }
    t
};
const _: () = {
    let mut c = 0;
    while c < 256 {
        let byte = c as u8;
        let high = BY_HIGH[c >> 4];
        let ok = if c < 0x80 { OK_BY_LOW[c & 15] } else { 0 };
        assert!(
            (high & !ok == 0) == byte.is_ascii_hexdigit(),
            "BY_HIGH and OK_BY_LOW must accept exactly the hex digits"
        );
        // `decode_avx2` sets `by_high` to 0xff where a byte is to fail whatever it is.
        assert!(ok != 0xff, "every byte must fail against 0xff");
        if byte.is_ascii_hexdigit() {
            let value = match byte {
                b'0'..=b'9' => byte - b'0',
                b'a'..=b'f' => byte - b'a' + 10,
                _ => byte - b'A' + 10,
            };
            assert!(
                byte.wrapping_add(high) & 15 == value,
                "BY_HIGH must give each digit's value"
            );
        }
        c += 1;
    }
};

/// One instruction-set level's kernels. The methods are `#[inline(always)]`, so they are
/// compiled into the `#[target_feature]` entry points (made by `entry_points!`) that call them.
pub(super) trait Kernel {
    /// Decodes 32 hex digits; `None` unless all 32 bytes are hex digits.
    ///
    /// # Safety
    /// The CPU supports this level.
    unsafe fn simple(s: &[u8; 32]) -> Option<[u8; 16]>;

    /// Decodes the 36-byte hyphenated form; `None` unless it is exactly that.
    ///
    /// # Safety
    /// The CPU supports this level.
    unsafe fn hyphenated(s: &[u8; 36]) -> Option<[u8; 16]>;

    /// Whether [`simple`](Kernel::simple) would give `Some`, without joining the digits:
    /// for a caller that only counts valid texts. The default asks `simple` itself.
    ///
    /// # Safety
    /// The CPU supports this level.
    #[inline(always)]
    unsafe fn is_simple(s: &[u8; 32]) -> bool {
        // SAFETY: forwarded: the caller guarantees the CPU supports this level.
        unsafe { Self::simple(s) }.is_some()
    }

    /// Whether [`hyphenated`](Kernel::hyphenated) would give `Some`, without joining the
    /// digits. The default asks `hyphenated` itself.
    ///
    /// # Safety
    /// The CPU supports this level.
    #[inline(always)]
    unsafe fn is_hyphenated(s: &[u8; 36]) -> bool {
        // SAFETY: forwarded: the caller guarantees the CPU supports this level.
        unsafe { Self::hyphenated(s) }.is_some()
    }

    /// Writes the 32-byte simple form.
    ///
    /// # Safety
    /// The CPU supports this level.
    unsafe fn write_simple(bytes: &[u8; 16], case: Case, out: &mut [u8; 32]);

    /// Writes the 36-byte hyphenated form.
    ///
    /// # Safety
    /// The CPU supports this level.
    unsafe fn write_hyphenated(bytes: &[u8; 16], case: Case, out: &mut [u8; 36]);
}

/// `true` when `s` starts with `urn:uuid:`, letters in any case, as the scalar parser reads
/// it (`to_ascii_lowercase` of each byte equal to the prefix byte).
#[inline(always)]
fn urn_prefix(s: &[u8; 45]) -> bool {
    let head = u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]);
    // `b | 0x20 == letter` holds exactly for the letter in either case; the colon at byte
    // 3 (and byte 8) must match exactly, so its byte of the mask is zero.
    const LETTERS: u64 = 0x2020_2020_0020_2020;
    (head | LETTERS) == u64::from_le_bytes(*b"urn:uuid") && s[8] == b':'
}

/// What a parse keeps of each valid text: the UUID ([`Decode`]), or only that the text was
/// one ([`Check`], for a caller that counts valid lines and never reads their UUIDs, so
/// that the kernels skip joining the digits and the loops storing them).
pub(super) trait Take {
    /// What a valid text gives.
    type Out: Copy;

    /// The hyphenated form's answer.
    ///
    /// # Safety
    /// The CPU supports `K`'s level.
    unsafe fn hyphenated<K: Kernel>(s: &[u8; 36]) -> Option<Self::Out>;

    /// The simple form's answer.
    ///
    /// # Safety
    /// The CPU supports `K`'s level.
    unsafe fn simple<K: Kernel>(s: &[u8; 32]) -> Option<Self::Out>;
}

/// Parses: each valid text gives its UUID.
pub(super) struct Decode;

impl Take for Decode {
    type Out = Uuid;

    #[inline(always)]
    unsafe fn hyphenated<K: Kernel>(s: &[u8; 36]) -> Option<Uuid> {
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::hyphenated(s) }.map(Uuid::from_bytes)
    }

    #[inline(always)]
    unsafe fn simple<K: Kernel>(s: &[u8; 32]) -> Option<Uuid> {
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::simple(s) }.map(Uuid::from_bytes)
    }
}

/// Validates only: each valid text gives `()`.
pub(super) struct Check;

impl Take for Check {
    type Out = ();

    #[inline(always)]
    unsafe fn hyphenated<K: Kernel>(s: &[u8; 36]) -> Option<()> {
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::is_hyphenated(s) }.then_some(())
    }

    #[inline(always)]
    unsafe fn simple<K: Kernel>(s: &[u8; 32]) -> Option<()> {
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::is_simple(s) }.then_some(())
    }
}

/// Picks the form from the length (the only lengths that can be valid) and runs the kernel.
/// `None` when the input is not exactly a valid UUID text.
///
/// # Safety
/// The CPU supports `K`'s level.
#[inline(always)]
pub(super) unsafe fn parse_forms<K: Kernel, T: Take>(s: &[u8]) -> Option<T::Out> {
    // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
    unsafe {
        if let Ok(s) = <&[u8; 36]>::try_from(s) {
            T::hyphenated::<K>(s)
        } else if s.len() < 36 {
            // Only 32 can be valid here. Testing the length this way first, not with
            // `== 32`, keeps the compiler from merging the four length tests into a jump
            // table, whose indirect jump would come before every form, this one too.
            match <&[u8; 32]>::try_from(s) {
                Ok(s) => T::simple::<K>(s),
                Err(_) => None,
            }
        } else if let Ok(s) = <&[u8; 38]>::try_from(s) {
            if s[0] == b'{' && s[37] == b'}' {
                T::hyphenated::<K>(sub::<1, 36, 38>(s))
            } else {
                None
            }
        } else if let Ok(s) = <&[u8; 45]>::try_from(s) {
            if urn_prefix(s) {
                T::hyphenated::<K>(sub::<9, 36, 45>(s))
            } else {
                None
            }
        } else {
            None
        }
    }
}

/// Writes the form numbered `FORM` (see [`form`](crate::platform::simd::form)) in upper
/// case if `UPPER`, else lower case, into the front of `buf`. Both are constants, so each
/// instance is straight-line code for one job.
///
/// # Safety
/// The CPU supports `K`'s level.
#[inline(always)]
unsafe fn encode_forms<K: Kernel, const FORM: u8, const UPPER: bool>(
    bytes: &[u8; 16],
    buf: &mut [u8; Format::MAX_LEN],
) {
    let case = if UPPER { Case::Upper } else { Case::Lower };
    // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
    unsafe {
        match crate::platform::simd::form::format(FORM) {
            Format::Hyphenated => K::write_hyphenated(bytes, case, sub_mut::<0, 36, 45>(buf)),
            Format::Simple => K::write_simple(bytes, case, sub_mut::<0, 32, 45>(buf)),
            Format::Braced => {
                buf[0] = b'{';
                K::write_hyphenated(bytes, case, sub_mut::<1, 36, 45>(buf));
                buf[37] = b'}';
            }
            Format::Urn => {
                // The prefix is always lowercase, as the scalar reference writes it.
                *sub_mut::<0, 9, 45>(buf) = *b"urn:uuid:";
                K::write_hyphenated(bytes, case, sub_mut::<9, 36, 45>(buf));
            }
        }
    }
}

/// `s[OFF..OFF + M]` as an array; the bound is checked at compile time.
#[inline(always)]
pub(super) fn sub<const OFF: usize, const M: usize, const N: usize>(s: &[u8; N]) -> &[u8; M] {
    const { assert!(OFF + M <= N, "sub past the end of its array") };
    s[OFF..OFF + M]
        .try_into()
        .expect("in bounds: checked at compile time")
}

/// `s[OFF..OFF + M]` as a mutable array; the bound is checked at compile time.
#[inline(always)]
pub(super) fn sub_mut<const OFF: usize, const M: usize, const N: usize>(
    s: &mut [u8; N],
) -> &mut [u8; M] {
    const { assert!(OFF + M <= N, "sub_mut past the end of its array") };
    (&mut s[OFF..OFF + M])
        .try_into()
        .expect("in bounds: checked at compile time")
}

/// Generates one level's entry points, compiled with its target feature, in a module
/// named after the level. Every function is `unsafe` with one condition: the CPU supports
/// `$feature`.
macro_rules! entry_points {
    ($level:ident, $kernel:ty, $feature:literal) => {
        #[doc = concat!("Entry points compiled with `", $feature, "`.")]
        ///
        /// # Safety
        #[doc = concat!("Each function requires a CPU with `", $feature, "`.")]
        pub(in crate::platform::simd) mod $level {
            // Named in full rather than `super`, which here (a module generated one level
            // down) is easily misread as the file's parent, x86.rs.
            use crate::platform::simd::x86::kernels::*;

            /// The kernel's answer alone: `Some` exactly for a valid UUID text.
            #[target_feature(enable = $feature)]
            #[inline]
            pub(crate) unsafe fn fast(s: &[u8]) -> Option<[u8; 16]> {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { parse_forms::<$kernel, Decode>(s) }.map(Uuid::into_bytes)
            }

            /// Parses; exactly what `scalar::parse_scalar` returns.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn parse(s: &[u8]) -> Result<Uuid, ParseError> {
                // SAFETY: this function's caller guarantees the target feature.
                match unsafe { fast(s) } {
                    Some(bytes) => Ok(Uuid::from_bytes(bytes)),
                    None => parse_slow(s),
                }
            }

            /// The 36-byte hyphenated form (tests compare it with the scalar encoder).
            #[cfg(test)]
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn encode_hyphenated(bytes: &[u8; 16], case: Case) -> [u8; 36] {
                let mut out = [0u8; 36];
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { <$kernel>::write_hyphenated(bytes, case, &mut out) };
                out
            }

            /// The 32-byte simple form (tests compare it with the scalar encoder).
            #[cfg(test)]
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn encode_simple(bytes: &[u8; 16], case: Case) -> [u8; 32] {
                let mut out = [0u8; 32];
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { <$kernel>::write_simple(bytes, case, &mut out) };
                out
            }

            /// Writes the form numbered `FORM` (see `super::super::form`), in upper case
            /// if `UPPER`, into the front of `buf`. Every byte written is ASCII.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn encode<const FORM: u8, const UPPER: bool>(
                bytes: &[u8; 16],
                buf: &mut [u8; Format::MAX_LEN],
            ) {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { encode_forms::<$kernel, FORM, UPPER>(bytes, buf) }
            }
        }
    };
}

entry_points!(sse2, Sse2, "sse2");
entry_points!(ssse3, Ssse3, "ssse3");
entry_points!(avx2, Avx2, "avx2");

// ---------------------------------------------------------------------------------------
// SSE2

/// Hex digit values of 16 ASCII bytes, and a mask that is `0xff` exactly where the byte
/// is a hex digit (the values elsewhere are garbage).
#[inline(always)]
fn nibbles_sse2(v: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    unsafe {
        let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        // v - '0' + 0x80, as a signed byte, is in [-128, -119] exactly for '0'..='9'.
        let digit = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(0x50)), _mm_set1_epi8(-118));
        // (v | 0x20) - 'a' + 0x80 is in [-128, -123] exactly for 'a'..='f' and 'A'..='F'.
        let letter = _mm_cmplt_epi8(
            _mm_add_epi8(folded, _mm_set1_epi8(0x1f)),
            _mm_set1_epi8(-122),
        );
        // Digits: v - '0' (0-9) is below (v | 0x20) - 0x57 (wraps to >= 0xd9).
        // Letters: (v | 0x20) - 0x57 (10-15) is below v - '0' (>= 17).
        let value = _mm_min_epu8(
            _mm_sub_epi8(v, _mm_set1_epi8(0x30)),
            _mm_sub_epi8(folded, _mm_set1_epi8(0x57)),
        );
        (value, _mm_or_si128(digit, letter))
    }
}

/// Joins 32 nibbles (`v0` then `v1`, each pair high nibble first) into 16 bytes.
#[inline(always)]
fn join_sse2(v0: __m128i, v1: __m128i) -> [u8; 16] {
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    let joined = unsafe {
        // In each 16-bit lane `hi | lo << 8`: (lane << 4 | lane >> 8) & 0xff = hi << 4 | lo.
        let low_byte = _mm_set1_epi16(0x00ff);
        let w0 = _mm_or_si128(_mm_slli_epi16::<4>(v0), _mm_srli_epi16::<8>(v0));
        let w1 = _mm_or_si128(_mm_slli_epi16::<4>(v1), _mm_srli_epi16::<8>(v1));
        _mm_packus_epi16(_mm_and_si128(w0, low_byte), _mm_and_si128(w1, low_byte))
    };
    let mut out = [0u8; 16];
    store16::<0, 16>(&mut out, joined);
    out
}

/// The four hyphens of the hyphenated form are in place: `a = text[0..16]`,
/// `b = text[16..32]`.
#[inline(always)]
fn hyphens_sse2(a: __m128i, b: __m128i) -> bool {
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    let found = unsafe {
        let dash = _mm_set1_epi8(DASH);
        let lo = _mm_movemask_epi8(_mm_cmpeq_epi8(a, dash)) as u32;
        let hi = _mm_movemask_epi8(_mm_cmpeq_epi8(b, dash)) as u32;
        lo | (hi << 16)
    };
    found & HYPHEN_BITS == HYPHEN_BITS
}

/// Both masks from [`nibbles_sse2`] are all ones.
#[inline(always)]
fn all_hex_sse2(ok0: __m128i, ok1: __m128i) -> bool {
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    unsafe { _mm_movemask_epi8(_mm_and_si128(ok0, ok1)) == 0xffff }
}

/// A byte mask: `0xff` in lanes `from..to` of a 16-byte vector, zero elsewhere.
#[inline(always)]
fn byte_range(from: usize, to: usize) -> __m128i {
    let mut m = [0u8; 16];
    for (i, b) in m.iter_mut().enumerate() {
        if (from..to).contains(&i) {
            *b = 0xff;
        }
    }
    load16::<0, 16>(&m)
}

/// The 32 hex digits of `bytes` in text order, as ASCII, without `pshufb`.
#[inline(always)]
fn hex_digits_sse2(bytes: &[u8; 16], case: Case) -> (__m128i, __m128i) {
    let letter_gap: i8 = match case {
        Case::Lower => (b'a' - b'0' - 10) as i8,
        Case::Upper => (b'A' - b'0' - 10) as i8,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    unsafe {
        let x = load16::<0, 16>(bytes);
        let low4 = _mm_set1_epi8(0x0f);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), low4);
        let lo = _mm_and_si128(x, low4);
        // n + '0', plus the gap up to 'a' (or 'A') where n > 9.
        let ascii = |n: __m128i| {
            let gap = _mm_and_si128(
                _mm_cmpgt_epi8(n, _mm_set1_epi8(9)),
                _mm_set1_epi8(letter_gap),
            );
            _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)), gap)
        };
        (
            ascii(_mm_unpacklo_epi8(hi, lo)),
            ascii(_mm_unpackhi_epi8(hi, lo)),
        )
    }
}

/// Baseline kernels. Without a byte shuffle, the parser squeezes the hyphens out by
/// blending loads at offsets 0, 1 and 2 (digits 0-15) and 19 and 20 (digits 16-31), and the
/// formatter spreads the digits with byte shifts and masks.
pub(super) struct Sse2;

impl Kernel for Sse2 {
    #[inline(always)]
    unsafe fn simple(s: &[u8; 32]) -> Option<[u8; 16]> {
        let (v0, ok0) = nibbles_sse2(load16::<0, 32>(s));
        let (v1, ok1) = nibbles_sse2(load16::<16, 32>(s));
        if all_hex_sse2(ok0, ok1) {
            Some(join_sse2(v0, v1))
        } else {
            None
        }
    }

    #[inline(always)]
    unsafe fn hyphenated(s: &[u8; 36]) -> Option<[u8; 16]> {
        let a = load16::<0, 36>(s);
        let b = load16::<16, 36>(s);
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        let (h0, h1) = unsafe {
            // Digits 0-7 at text 0-7, 8-11 at text 9-12 (load at 1), 12-15 at 14-17 (at 2).
            let h0 = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(a, byte_range(0, 8)),
                    _mm_and_si128(load16::<1, 36>(s), byte_range(8, 12)),
                ),
                _mm_and_si128(load16::<2, 36>(s), byte_range(12, 16)),
            );
            // Digits 16-19 at text 19-22 (load at 19), 20-31 at text 24-35 (load at 20).
            let first4 = byte_range(0, 4);
            let h1 = _mm_or_si128(
                _mm_and_si128(load16::<19, 36>(s), first4),
                _mm_andnot_si128(first4, load16::<20, 36>(s)),
            );
            (h0, h1)
        };
        let (v0, ok0) = nibbles_sse2(h0);
        let (v1, ok1) = nibbles_sse2(h1);
        if all_hex_sse2(ok0, ok1) & hyphens_sse2(a, b) {
            Some(join_sse2(v0, v1))
        } else {
            None
        }
    }

    #[inline(always)]
    unsafe fn write_simple(bytes: &[u8; 16], case: Case, out: &mut [u8; 32]) {
        let (c0, c1) = hex_digits_sse2(bytes, case);
        store16::<0, 32>(out, c0);
        store16::<16, 32>(out, c1);
    }

    #[inline(always)]
    unsafe fn write_hyphenated(bytes: &[u8; 16], case: Case, out: &mut [u8; 36]) {
        let (c0, c1) = hex_digits_sse2(bytes, case);
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        let (t0, t1, c1) = unsafe {
            // text 0-7 = digits 0-7, 9-12 = digits 8-11, 14-15 = digits 12-13.
            let t0 = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(c0, byte_range(0, 8)),
                    _mm_and_si128(_mm_slli_si128::<1>(c0), byte_range(9, 13)),
                ),
                _mm_or_si128(
                    _mm_and_si128(_mm_slli_si128::<2>(c0), byte_range(14, 16)),
                    load16::<0, 16>(HYPHENS_0_16),
                ),
            );
            // text 16-17 = digits 14-15, 19-22 = digits 16-19, 24-31 = digits 20-27.
            let t1 = _mm_or_si128(
                _mm_or_si128(
                    _mm_srli_si128::<14>(c0),
                    _mm_and_si128(_mm_slli_si128::<3>(c1), byte_range(3, 7)),
                ),
                _mm_or_si128(
                    _mm_and_si128(_mm_slli_si128::<4>(c1), byte_range(8, 16)),
                    load16::<0, 16>(HYPHENS_16_32),
                ),
            );
            // text 32-35 = digits 28-31.
            (t0, t1, c1)
        };
        store_hyphenated(out, t0, t1, c1);
    }
}

// ---------------------------------------------------------------------------------------
// SSSE3

/// Joins 32 nibbles into 16 bytes with `pmaddubsw` (16 * first + second per pair).
///
/// # Safety
/// The CPU supports SSSE3.
#[inline(always)]
unsafe fn join_ssse3(v0: __m128i, v1: __m128i) -> [u8; 16] {
    // SAFETY: the caller guarantees SSSE3; register operations only. The sums are at most
    // 15 * 16 + 15 = 255, so neither `pmaddubsw` nor `packuswb` saturates.
    let joined = unsafe {
        let weights = _mm_set1_epi16(JOIN_NIBBLES);
        _mm_packus_epi16(
            _mm_maddubs_epi16(v0, weights),
            _mm_maddubs_epi16(v1, weights),
        )
    };
    let mut out = [0u8; 16];
    store16::<0, 16>(&mut out, joined);
    out
}

/// The 32 hex digits of `bytes` in text order, as ASCII, with a `pshufb` table lookup.
///
/// # Safety
/// The CPU supports SSSE3.
#[inline(always)]
unsafe fn hex_digits_ssse3(bytes: &[u8; 16], case: Case) -> (__m128i, __m128i) {
    // SAFETY: the caller guarantees SSSE3; register operations only.
    unsafe {
        let x = load16::<0, 16>(bytes);
        let low4 = _mm_set1_epi8(0x0f);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), low4);
        let lo = _mm_and_si128(x, low4);
        let table = digits(case);
        (
            _mm_shuffle_epi8(table, _mm_unpacklo_epi8(hi, lo)),
            _mm_shuffle_epi8(table, _mm_unpackhi_epi8(hi, lo)),
        )
    }
}

/// SSSE3 kernels: `pshufb` squeezes the hyphens out when parsing, spreads the digits when
/// formatting, and `pmaddubsw` joins nibbles.
pub(super) struct Ssse3;

impl Kernel for Ssse3 {
    #[inline(always)]
    unsafe fn simple(s: &[u8; 32]) -> Option<[u8; 16]> {
        let (v0, ok0) = nibbles_sse2(load16::<0, 32>(s));
        let (v1, ok1) = nibbles_sse2(load16::<16, 32>(s));
        if all_hex_sse2(ok0, ok1) {
            // SAFETY: forwarded: the caller guarantees SSSE3.
            Some(unsafe { join_ssse3(v0, v1) })
        } else {
            None
        }
    }

    #[inline(always)]
    unsafe fn hyphenated(s: &[u8; 36]) -> Option<[u8; 16]> {
        let a = load16::<0, 36>(s);
        let b = load16::<16, 36>(s);
        let c = load16::<20, 36>(s);
        // SAFETY: the caller guarantees SSSE3; register operations only.
        let (h0, h1) = unsafe {
            (
                _mm_or_si128(
                    _mm_shuffle_epi8(a, shuffle(&FROM_A)),
                    _mm_shuffle_epi8(b, shuffle(&FROM_B_LO)),
                ),
                _mm_or_si128(
                    _mm_shuffle_epi8(c, shuffle(&FROM_C)),
                    _mm_shuffle_epi8(b, shuffle(&FROM_B_HI)),
                ),
            )
        };
        let (v0, ok0) = nibbles_sse2(h0);
        let (v1, ok1) = nibbles_sse2(h1);
        if all_hex_sse2(ok0, ok1) & hyphens_sse2(a, b) {
            // SAFETY: forwarded: the caller guarantees SSSE3.
            Some(unsafe { join_ssse3(v0, v1) })
        } else {
            None
        }
    }

    #[inline(always)]
    unsafe fn write_simple(bytes: &[u8; 16], case: Case, out: &mut [u8; 32]) {
        // SAFETY: forwarded: the caller guarantees SSSE3.
        let (c0, c1) = unsafe { hex_digits_ssse3(bytes, case) };
        store16::<0, 32>(out, c0);
        store16::<16, 32>(out, c1);
    }

    #[inline(always)]
    unsafe fn write_hyphenated(bytes: &[u8; 16], case: Case, out: &mut [u8; 36]) {
        // SAFETY: the caller guarantees SSSE3; register operations only.
        let (t0, t1, c1) = unsafe {
            let (c0, c1) = hex_digits_ssse3(bytes, case);
            let t0 = _mm_or_si128(
                _mm_shuffle_epi8(c0, shuffle(&TEXT_0_16)),
                load16::<0, 16>(HYPHENS_0_16),
            );
            // Digits 14-29: the last two of c0, then c1.
            let from14 = _mm_alignr_epi8::<14>(c1, c0);
            let t1 = _mm_or_si128(
                _mm_shuffle_epi8(from14, shuffle(&TEXT_16_32_FROM_14)),
                load16::<0, 16>(HYPHENS_16_32),
            );
            (t0, t1, c1)
        };
        store_hyphenated(out, t0, t1, c1);
    }
}

// ---------------------------------------------------------------------------------------
// AVX2

/// A 16-byte table in both 128-bit lanes, for `vpshufb`.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn table2(t: &[u8; 16]) -> __m256i {
    // SAFETY: the caller guarantees AVX2; a constant in registers.
    unsafe { _mm256_broadcastsi128_si256(load16::<0, 16>(t)) }
}

/// `0xff` in the lanes of `text[0..32]` that are hyphens in the hyphenated form.
const HYPHEN_LANES: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        if HYPHEN_BITS >> i & 1 == 1 {
            m[i] = 0xff;
        }
        i += 1;
    }
    m
};

/// Whether 32 bytes held in one register are all hex digits and `also_bad` is all zeros
/// (each byte of `also_bad` must be `0` or `0xff`), and the high-nibble lookup of each byte
/// (see [`BY_HIGH`]), from which [`decode_avx2`] takes the digits' values.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn classify_avx2(h: __m256i, also_bad: __m256i) -> (bool, __m256i) {
    // SAFETY: the caller guarantees AVX2; register operations only.
    unsafe {
        let by_high = _mm256_shuffle_epi8(
            table2(&BY_HIGH),
            _mm256_and_si256(_mm256_srli_epi16::<4>(h), _mm256_set1_epi8(0x0f)),
        );
        // Indexed by the whole byte: see BY_HIGH.
        let ok = _mm256_shuffle_epi8(table2(&OK_BY_LOW), h);
        // Carry flag: `by_high & !ok` is zero in every byte. A `0xff` byte of `also_bad`
        // or-ed into `by_high` fails that byte whatever `ok` is (`ok` is never `0xff`), so
        // one `vptest` checks both. (Or-ed into `by_high`, not cleared from `ok`: given
        // `ok & !also_bad`, the compiler tests `!ok`, which costs two more instructions.)
        let all_hex = _mm256_testc_si256(ok, _mm256_or_si256(by_high, also_bad)) == 1;
        (all_hex, by_high)
    }
}

/// Validates and joins 32 hex digits held in one register; `None` unless all are hex
/// digits and `also_bad` is all zeros. Each byte of `also_bad` must be `0` or `0xff`.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn decode_avx2(h: __m256i, also_bad: __m256i) -> Option<[u8; 16]> {
    // SAFETY: the caller guarantees AVX2; register operations only. As in `join_ssse3`,
    // nothing saturates for valid digits.
    let (all_hex, joined) = unsafe {
        let low4 = _mm256_set1_epi8(0x0f);
        let (all_hex, by_high) = classify_avx2(h, also_bad);
        let value = _mm256_and_si256(_mm256_add_epi8(h, by_high), low4);
        let pairs = _mm256_maddubs_epi16(value, _mm256_set1_epi16(JOIN_NIBBLES));
        let joined = _mm_packus_epi16(
            _mm256_castsi256_si128(pairs),
            _mm256_extracti128_si256::<1>(pairs),
        );
        (all_hex, joined)
    };
    if all_hex {
        let mut out = [0u8; 16];
        store16::<0, 16>(&mut out, joined);
        Some(out)
    } else {
        None
    }
}

/// The 32 hex digits of `bytes` in text order, as ASCII, in one register.
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn hex_digits_avx2(bytes: &[u8; 16], case: Case) -> __m256i {
    // SAFETY: the caller guarantees AVX2; register operations only.
    unsafe {
        // Each byte b widened to the 16-bit lane `b`; `b | b << 12` is, in 16 bits,
        // `b | (b & 15) << 12`, and shifting that right by 4 leaves `b >> 4` in the low byte
        // and `b & 15` in the high byte: the high nibble first, the low nibble second, with
        // no mask needed.
        let w = _mm256_cvtepu8_epi16(load16::<0, 16>(bytes));
        let nibbles = _mm256_srli_epi16::<4>(_mm256_or_si256(w, _mm256_slli_epi16::<12>(w)));
        _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(digits(case)), nibbles)
    }
}

/// The 32 digits of the hyphenated form in one register, and `0xff` in the lanes of the
/// four places that should be hyphens and are not.
///
/// Two overlapping 32-byte loads, `text[0..32]` and `text[4..36]`, whose lanes hold
/// `text[0..16]`, `text[16..32]`, `text[4..20]` and `text[20..36]`: every digit is in one
/// of the two lanes of its half of the result, so one in-lane `vpshufb` of each load and an
/// `or` gather all 32 (three loads and a lane insert before).
///
/// # Safety
/// The CPU supports AVX2.
#[inline(always)]
unsafe fn gather_hyphenated_avx2(s: &[u8; 36]) -> (__m256i, __m256i) {
    // SAFETY: the caller guarantees AVX2; memory is read through load32 only.
    unsafe {
        let head = load32::<0, 36>(s);
        let tail = load32::<4, 36>(s);
        // Digits 0-13 from text[0..16], 14-15 from text[4..20]; 16 from text[16..32],
        // 17-31 from text[20..36].
        let h = _mm256_or_si256(
            _mm256_shuffle_epi8(head, shuffle2(&FROM_A, &FROM_B_HI)),
            _mm256_shuffle_epi8(tail, shuffle2(&FROM_4_LO, &FROM_C)),
        );
        let dashes = _mm256_cmpeq_epi8(head, _mm256_set1_epi8(DASH));
        (
            h,
            _mm256_andnot_si256(dashes, load32::<0, 32>(&HYPHEN_LANES)),
        )
    }
}

/// AVX2 kernels: the 32 digits of a UUID in one register.
pub(super) struct Avx2;

impl Kernel for Avx2 {
    #[inline(always)]
    unsafe fn simple(s: &[u8; 32]) -> Option<[u8; 16]> {
        // SAFETY: forwarded: the caller guarantees AVX2.
        unsafe { decode_avx2(load32::<0, 32>(s), _mm256_setzero_si256()) }
    }

    #[inline(always)]
    unsafe fn hyphenated(s: &[u8; 36]) -> Option<[u8; 16]> {
        // SAFETY: forwarded: the caller guarantees AVX2.
        unsafe {
            let (h, bad) = gather_hyphenated_avx2(s);
            decode_avx2(h, bad)
        }
    }

    #[inline(always)]
    unsafe fn is_simple(s: &[u8; 32]) -> bool {
        // SAFETY: forwarded: the caller guarantees AVX2.
        unsafe { classify_avx2(load32::<0, 32>(s), _mm256_setzero_si256()).0 }
    }

    #[inline(always)]
    unsafe fn is_hyphenated(s: &[u8; 36]) -> bool {
        // SAFETY: forwarded: the caller guarantees AVX2.
        unsafe {
            let (h, bad) = gather_hyphenated_avx2(s);
            classify_avx2(h, bad).0
        }
    }

    #[inline(always)]
    unsafe fn write_simple(bytes: &[u8; 16], case: Case, out: &mut [u8; 32]) {
        // SAFETY: the caller guarantees AVX2; memory is written through store32 only.
        unsafe { store32::<0, 32>(out, hex_digits_avx2(bytes, case)) }
    }

    /// `text[0..32]` in one register (digits 0-15 in the low lane, 12-27 in the high lane,
    /// then `pshufb`), digits 28-31 as a 4-byte tail.
    #[inline(always)]
    unsafe fn write_hyphenated(bytes: &[u8; 16], case: Case, out: &mut [u8; 36]) {
        // SAFETY: the caller guarantees AVX2; memory is written through store32 only.
        let tail = unsafe {
            let h = hex_digits_avx2(bytes, case);
            let lanes = _mm256_permutevar8x32_epi32(h, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
            let hyphens = _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(load16::<0, 16>(HYPHENS_0_16)),
                load16::<0, 16>(HYPHENS_16_32),
            );
            let text = _mm256_or_si256(
                _mm256_shuffle_epi8(lanes, shuffle2(&TEXT_0_16, &TEXT_16_32_FROM_12)),
                hyphens,
            );
            store32::<0, 36>(out, text);
            _mm256_extract_epi32::<7>(h) as u32
        };
        *sub_mut::<32, 4, 36>(out) = tail.to_le_bytes();
    }
}
