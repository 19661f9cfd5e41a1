//! Text codec entry points: dispatch to a vector implementation where the CPU has one,
//! otherwise to the scalar reference ([`scalar`]). This sits below the public `text`
//! module, which calls it: it uses only the pieces `text` is made of (the forms, the
//! error and the scalar codec), never `text`'s entry points.
//!
//! # Design
//! - **Parsing.** A vector kernel handles only the case that matters for speed: input that
//!   is exactly a valid UUID in one of the four forms. It picks the form from the length
//!   (32, 36, 38 or 45 are the only lengths that can be valid), checks every byte and
//!   decodes, and answers `None` for anything else. Then the scalar
//!   [`parse_scalar`](scalar::parse_scalar) runs and computes the error, so errors (index,
//!   expected, found, length) are the scalar parser's by construction, and the only way a
//!   kernel could disagree with it is by accepting something invalid: that is what the
//!   differential tests below and `fuzz/fuzz_targets/codec_differential.rs` look for.
//! - **Formatting.** The encoders must equal [`scalar::encode_hyphenated`] and
//!   [`scalar::encode_simple`] byte for byte; tested the same way.
//! - **Levels.** On x86-64: SSE2 (the baseline, so always there), SSSE3 and AVX2, chosen
//!   once at run time with `is_x86_feature_detected!` and cached in an atomic (one relaxed
//!   load per call); when the crate is compiled with AVX2 enabled (`-C target-cpu=native`)
//!   the choice is made at compile time, and so it is without the `std` feature (no
//!   run-time detection in `core`), from the target features the build enables.
//!   Elsewhere (aarch64 included: no NEON kernel yet, as nothing here can run one) and
//!   under Miri, the scalar code.
//! - **Dispatch cost.** The `#[target_feature]` kernels cannot be inlined into their
//!   callers, so each operation is one call, and what surrounds it is kept small: the AVX2
//!   call is the straight path after one compare (the other levels are behind a `#[cold]`
//!   function), and the encoder is monomorphised per form and case (see [`form`]) and
//!   [`encode_str`] is always inlined, so `u.format(Format::Hyphenated, Case::Lower)`
//!   is a load, a compare and a call of straight-line code, with the length a constant.
//! - **Memory safety.** The kernels in [`x86`] take fixed-size arrays and touch memory
//!   only through loads and stores whose offsets are checked against the array length at
//!   compile time; see that module.

use crate::codec::form::{Case, Format};
use crate::codec::scalar;
use crate::error::ParseError;
use crate::uuid::Uuid;

#[cfg(target_arch = "x86_64")]
mod x86;

mod fallback;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod form;
mod level;

// Level is named only by the x86 dispatch and by the tests.
#[cfg_attr(not(any(test, target_arch = "x86_64")), allow(unused_imports))]
use level::Level;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use level::level;

mod batch;
pub(crate) use batch::{check_lines, encode_lines, parse_lines};

#[cfg(test)]
mod tests;

/// Parses any of the four forms; returns exactly what [`scalar::parse_scalar`] returns.
#[inline]
pub(crate) fn parse(s: &[u8]) -> Result<Uuid, ParseError> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: `level()` only answers levels the CPU supports.
        unsafe { parse_at(level(), s) }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        scalar::parse_scalar(s)
    }
}

/// The 36-byte hyphenated form; equal to [`scalar::encode_hyphenated`]. (The library
/// formats through [`encode_str`]; the tests check this entry point's dispatch too.)
#[cfg(test)]
#[inline]
pub(crate) fn encode_hyphenated(b: &[u8; 16], case: Case) -> [u8; 36] {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: `level()` only answers levels the CPU supports.
        unsafe { encode_hyphenated_at(level(), b, case) }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        scalar::encode_hyphenated(b, case)
    }
}

/// The 32-byte simple form; equal to [`scalar::encode_simple`].
#[cfg(test)]
#[inline]
pub(crate) fn encode_simple(b: &[u8; 16], case: Case) -> [u8; 32] {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: `level()` only answers levels the CPU supports.
        unsafe { encode_simple_at(level(), b, case) }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        scalar::encode_simple(b, case)
    }
}

/// Writes `bytes` in `format` and `case` into the front of `buf` and returns that part as
/// a `&str` (what `Uuid::format` and `Display` run), without a UTF-8 check
/// (which costs more than the encoding itself): what is written is ASCII by construction.
///
/// Always inlined, so that where `format` and `case` are known at the call site (the
/// common `u.format(Format::Hyphenated, Case::Lower)`) all that is left is the
/// level check and one call of a kernel compiled for exactly that job.
#[inline(always)]
pub(crate) fn encode_str<'b>(
    bytes: &[u8; 16],
    format: Format,
    case: Case,
    buf: &'b mut [u8; Format::MAX_LEN],
) -> &'b str {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `level()` only answers levels the CPU supports.
    unsafe {
        encode_at(level(), bytes, format, case, buf)
    };
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    fallback::encode_scalar(bytes, format, case, buf);
    let text = &buf[..format.len()];
    debug_assert!(text.is_ascii(), "UUID text must be ASCII: {text:?}");
    // SAFETY: `buf[..format.len()]` is exactly what the encoder just wrote (each form
    // writes all of its `format.len()` bytes), and every byte written is ASCII, so valid
    // UTF-8: the scalar encoders index the 16-byte ASCII tables `0-9a-f`/`0-9A-F` and add
    // ASCII punctuation; the SSE2 kernels compute `n + '0'` or `n + 'a' - 10` (or `'A'`)
    // from nibbles `n < 16`; the SSSE3/AVX2 kernels `pshufb` the same ASCII tables with
    // nibble indices, and their text shuffles either copy those digits or zero a byte that
    // the hyphen is then or-ed into. The tests compare all of this byte for byte with the
    // scalar encoders for every byte value at every position.
    unsafe { core::str::from_utf8_unchecked(text) }
}

/// A UUID's text as [`encode_str`] wrote it, kept with its length: what the public
/// `text::Formatted` holds. The fields are private to this module and only [`new`](Self::new)
/// fills them, so the text is always the encoder's ASCII and [`as_str`](Self::as_str)
/// needs no UTF-8 check (which would cost more than the encoding).
#[derive(Clone, Copy)]
pub(crate) struct EncodedText {
    buf: [u8; Format::MAX_LEN],
    len: u8,
}

impl EncodedText {
    /// `bytes` in `format` and `case`.
    #[inline(always)]
    pub(crate) fn new(bytes: &[u8; 16], format: Format, case: Case) -> EncodedText {
        let mut buf = [0u8; Format::MAX_LEN];
        encode_str(bytes, format, case, &mut buf);
        // At most 45: fits.
        let len = format.len() as u8;
        EncodedText { buf, len }
    }

    /// The text.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        let text = &self.buf[..usize::from(self.len)];
        debug_assert!(text.is_ascii(), "UUID text must be ASCII: {text:?}");
        // SAFETY: `new` is the only constructor and the fields are private to this
        // module: `buf[..len]` is what `encode_str` wrote for a form of length `len`,
        // ASCII for the reasons given there, so valid UTF-8.
        unsafe { core::str::from_utf8_unchecked(text) }
    }
}

/// [`parse`] with `level`'s kernel (and the scalar parser for anything it declines).
///
/// # Safety
/// The CPU supports `level` (see [`Level::supported`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn parse_at(level: Level, s: &[u8]) -> Result<Uuid, ParseError> {
    // AVX2 in line; the other levels out of line and marked cold, so that the compiler
    // lays out the AVX2 call as the straight path.
    // SAFETY (both arms): the caller guarantees the CPU supports `level`.
    unsafe {
        if level == Level::Avx2 {
            x86::avx2::parse(s)
        } else {
            parse_other(level, s)
        }
    }
}

/// [`parse_at`] for the levels below AVX2.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
unsafe fn parse_other(level: Level, s: &[u8]) -> Result<Uuid, ParseError> {
    // SAFETY (each arm): the caller guarantees the CPU supports `level`.
    unsafe {
        match level {
            Level::Avx2 => x86::avx2::parse(s),
            Level::Ssse3 => x86::ssse3::parse(s),
            Level::Sse2 => x86::sse2::parse(s),
            Level::Scalar => scalar::parse_scalar(s),
        }
    }
}

/// [`encode_hyphenated`] with `level`'s kernel.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(all(test, target_arch = "x86_64"))]
#[inline(always)]
unsafe fn encode_hyphenated_at(level: Level, b: &[u8; 16], case: Case) -> [u8; 36] {
    // SAFETY (each arm): the caller guarantees the CPU supports `level`.
    unsafe {
        match level {
            Level::Avx2 => x86::avx2::encode_hyphenated(b, case),
            Level::Ssse3 => x86::ssse3::encode_hyphenated(b, case),
            Level::Sse2 => x86::sse2::encode_hyphenated(b, case),
            Level::Scalar => scalar::encode_hyphenated(b, case),
        }
    }
}

/// [`encode_simple`] with `level`'s kernel.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(all(test, target_arch = "x86_64"))]
#[inline(always)]
unsafe fn encode_simple_at(level: Level, b: &[u8; 16], case: Case) -> [u8; 32] {
    // SAFETY (each arm): the caller guarantees the CPU supports `level`.
    unsafe {
        match level {
            Level::Avx2 => x86::avx2::encode_simple(b, case),
            Level::Ssse3 => x86::ssse3::encode_simple(b, case),
            Level::Sse2 => x86::sse2::encode_simple(b, case),
            Level::Scalar => scalar::encode_simple(b, case),
        }
    }
}

/// [`encode_str`]'s writing with `level`'s kernel: writes `format.len()` bytes.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn encode_at(
    level: Level,
    b: &[u8; 16],
    format: Format,
    case: Case,
    buf: &mut [u8; Format::MAX_LEN],
) {
    use form::{BRACED, HYPHENATED, SIMPLE, URN};
    // SAFETY (each arm): forwarded: the caller guarantees the CPU supports `level`.
    unsafe {
        match (format, case) {
            (Format::Hyphenated, Case::Lower) => encode_job::<HYPHENATED, false>(level, b, buf),
            (Format::Hyphenated, Case::Upper) => encode_job::<HYPHENATED, true>(level, b, buf),
            (Format::Simple, Case::Lower) => encode_job::<SIMPLE, false>(level, b, buf),
            (Format::Simple, Case::Upper) => encode_job::<SIMPLE, true>(level, b, buf),
            (Format::Braced, Case::Lower) => encode_job::<BRACED, false>(level, b, buf),
            (Format::Braced, Case::Upper) => encode_job::<BRACED, true>(level, b, buf),
            (Format::Urn, Case::Lower) => encode_job::<URN, false>(level, b, buf),
            (Format::Urn, Case::Upper) => encode_job::<URN, true>(level, b, buf),
        }
    }
}

/// One job of [`encode_at`] (the form numbered `FORM`, upper case if `UPPER`) with
/// `level`'s kernel.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn encode_job<const FORM: u8, const UPPER: bool>(
    level: Level,
    b: &[u8; 16],
    buf: &mut [u8; Format::MAX_LEN],
) {
    // As in `parse_at`: AVX2 in line, the other levels out of line and cold.
    // SAFETY (both arms): the caller guarantees the CPU supports `level`.
    unsafe {
        if level == Level::Avx2 {
            x86::avx2::encode::<FORM, UPPER>(b, buf)
        } else {
            encode_other::<FORM, UPPER>(level, b, buf)
        }
    }
}

/// [`encode_job`] for the levels below AVX2.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
unsafe fn encode_other<const FORM: u8, const UPPER: bool>(
    level: Level,
    b: &[u8; 16],
    buf: &mut [u8; Format::MAX_LEN],
) {
    // SAFETY (each arm): the caller guarantees the CPU supports `level`.
    unsafe {
        match level {
            Level::Avx2 => x86::avx2::encode::<FORM, UPPER>(b, buf),
            Level::Ssse3 => x86::ssse3::encode::<FORM, UPPER>(b, buf),
            Level::Sse2 => x86::sse2::encode::<FORM, UPPER>(b, buf),
            Level::Scalar => {
                let case = if UPPER { Case::Upper } else { Case::Lower };
                fallback::encode_scalar(b, form::format(FORM), case, buf);
            }
        }
    }
}

/// Safe access to each level for the tests: `None` when this CPU cannot run `level`.
#[cfg(test)]
impl Level {
    /// The full parse at this level: kernel, then scalar fallback.
    fn parse(self, s: &[u8]) -> Option<Result<Uuid, ParseError>> {
        if !self.supported() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: checked just above that the CPU supports `self`.
        return Some(unsafe { parse_at(self, s) });
        #[cfg(not(target_arch = "x86_64"))]
        return Some(scalar::parse_scalar(s));
    }

    /// The kernel's own answer, before any scalar fallback: `Some(None)` when it declined.
    /// `None` when this CPU cannot run `level`, and for the scalar level.
    fn fast(self, s: &[u8]) -> Option<Option<[u8; 16]>> {
        if self == Level::Scalar || !self.supported() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY (each arm): checked just above that the CPU supports `self`.
        return Some(unsafe {
            match self {
                Level::Avx2 => x86::avx2::fast(s),
                Level::Ssse3 => x86::ssse3::fast(s),
                _ => x86::sse2::fast(s),
            }
        });
        #[cfg(not(target_arch = "x86_64"))]
        return {
            let _ = s;
            None
        };
    }

    fn encode_hyphenated(self, b: &[u8; 16], case: Case) -> Option<[u8; 36]> {
        if !self.supported() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: checked just above that the CPU supports `self`.
        return Some(unsafe { encode_hyphenated_at(self, b, case) });
        #[cfg(not(target_arch = "x86_64"))]
        return Some(scalar::encode_hyphenated(b, case));
    }

    fn encode_simple(self, b: &[u8; 16], case: Case) -> Option<[u8; 32]> {
        if !self.supported() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: checked just above that the CPU supports `self`.
        return Some(unsafe { encode_simple_at(self, b, case) });
        #[cfg(not(target_arch = "x86_64"))]
        return Some(scalar::encode_simple(b, case));
    }

    /// `format` written into a 45-byte buffer pre-filled with `fill`; the length written.
    fn encode(
        self,
        b: &[u8; 16],
        format: Format,
        case: Case,
        fill: u8,
    ) -> Option<([u8; Format::MAX_LEN], usize)> {
        if !self.supported() {
            return None;
        }
        let mut buf = [fill; Format::MAX_LEN];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: checked just above that the CPU supports `self`.
        unsafe {
            encode_at(self, b, format, case, &mut buf)
        };
        #[cfg(not(target_arch = "x86_64"))]
        fallback::encode_scalar(b, format, case, &mut buf);
        Some((buf, format.len()))
    }
}
