//! Text forms of a UUID: formatting and parsing.
//!
//! Four forms (RFC 9562 §4, RFC 9562 §4 / RFC 8141 for the URN):
//!
//! | form | example | length |
//! |---|---|---|
//! | [`Format::Hyphenated`] (canonical) | `f81d4fae-7dec-11d0-a765-00a0c91e6bf6` | 36 |
//! | [`Format::Simple`] | `f81d4fae7dec11d0a76500a0c91e6bf6` | 32 |
//! | [`Format::Braced`] | `{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}` | 38 |
//! | [`Format::Urn`] | `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6` | 45 |
//!
//! Parsing accepts hex digits in either case and the `urn:uuid:` prefix in any case, and
//! nothing else. A failure is a [`ParseError`] naming the byte index of the first offending
//! byte and what was expected there. The parser has a `const fn` form, which is what makes
//! [`uuid!`](crate::uuid!) a compile-time checked literal; the SIMD hot paths (in the
//! private `platform::simd` module) are checked against it.
//!
//! One way to write each form: `Display` (`to_string`, `{}`) for the canonical
//! hyphenated lowercase text, and [`Uuid::format`] for any form and case, a [`Formatted`]
//! on the stack that derefs to `&str`. Many UUIDs at once, one a line, are
//! [`encode_lines`]' job (and [`parse_lines`] reads them back).
//!
//! This module holds the public entry points ([`Uuid::format`], `Display`,
//! [`encode_lines`], [`parse_lines`], [`Uuid::parse_str`], ...), which dispatch to the
//! SIMD kernels or to the scalar reference. What they are made of lies below both, in the
//! private `codec` module, and the kernels use only that, never this module:
//! - `codec::form`: [`Format`], [`Case`], [`LineEnd`] and their lengths;
//! - `codec::scalar`: the scalar reference codec (`parse_scalar`, `encode_hyphenated`,
//!   `encode_simple`), private: the fuzz targets reach it through `__private`.

use core::fmt;
use core::ops::Deref;
use core::str::FromStr;

use crate::error::ParseError;
use crate::platform::simd;
use crate::uuid::Uuid;

#[cfg(test)]
mod tests;

pub use crate::codec::form::{Case, Format, LineEnd, line_len};
use crate::codec::scalar;
#[cfg(test)]
use crate::codec::scalar::parse_scalar;

/// Writes `uuids` one a line, in `format` and `case`, each line ended by `end`, into the
/// front of `out`: as many whole lines as fit. Returns how many UUIDs were written; the
/// text is the first `n * line_len(format, end)` bytes of `out`, exactly what
/// [`Uuid::format`] and the line end would give UUID by UUID. The rest of `out` is untouched.
///
/// Each UUID is written straight into its line, and the loop runs inside one call of the
/// SIMD kernel, so a batch costs about what the kernel alone costs per UUID. To write
/// lines to a stream, encode into a buffer of 64 KiB or more and write it whole.
///
/// ```
/// use uuidkit::text::{encode_lines, line_len, LineEnd};
/// use uuidkit::{Case, Format, Uuid};
/// let uuids = [Uuid::NIL, Uuid::MAX];
/// let mut out = [0u8; 100];
/// let n = encode_lines(&uuids, Format::Simple, Case::Upper, LineEnd::Lf, &mut out);
/// assert_eq!(n, 2);
/// let text = &out[..n * line_len(Format::Simple, LineEnd::Lf)];
/// assert_eq!(text, format!("{}\n{}\n", "0".repeat(32), "F".repeat(32)).as_bytes());
/// // Only whole lines are written: 50 bytes hold one 37-byte line.
/// assert_eq!(encode_lines(&uuids, Format::Hyphenated, Case::Lower, LineEnd::Lf, &mut out[..50]), 1);
/// ```
pub fn encode_lines(
    uuids: &[Uuid],
    format: Format,
    case: Case,
    end: LineEnd,
    out: &mut [u8],
) -> usize {
    simd::encode_lines(uuids, format, case, end, out)
}

/// How much of a text [`parse_lines`] (or [`check_lines`]) took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ParsedLines {
    /// Lines taken, each a UUID: [`parse_lines`] wrote their UUIDs to the front of its
    /// output slice.
    pub uuids: usize,
    /// Bytes of the text taken: those lines with their line ends.
    pub bytes: usize,
}

/// Parses `text` one UUID a line into `out`, from the start, and stops before the first
/// line that is not a UUID, before a last line that has no `\n` yet, or when `out` is
/// full. A line is the bytes before a `\n`, less one `\r` before it; it is a UUID when
/// [`Uuid::parse_ascii`] accepts it (any of the four forms, hex digits in either case).
///
/// So `text[taken.bytes..]` is empty, or starts with a line that did not fit in `out`,
/// or an unfinished line, or a line that is not a UUID: parse that line with
/// [`Uuid::parse_ascii`] for the error, step over it, and call again. The common line, 36
/// bytes and `\n`, costs one compare besides the SIMD parse.
///
/// ```
/// use uuidkit::text::{parse_lines, ParsedLines};
/// use uuidkit::Uuid;
/// let text = b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\r\n\
///              F81D4FAE7DEC11D0A76500A0C91E6BF6\n\
///              not a uuid\n\
///              00000000-0000-0000-0000-000000000000\n";
/// let mut out = [Uuid::NIL; 16];
/// let taken = parse_lines(text, &mut out);
/// assert_eq!(taken, ParsedLines { uuids: 2, bytes: 71 });
/// assert_eq!(out[0], out[1]);
/// let rest = &text[taken.bytes..];
/// let line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap()];
/// assert_eq!(Uuid::parse_ascii(line).unwrap_err().index(), 0);
/// ```
pub fn parse_lines(text: &[u8], out: &mut [Uuid]) -> ParsedLines {
    let (uuids, bytes) = simd::parse_lines(text, out);
    ParsedLines { uuids, bytes }
}

/// What [`parse_lines`] would take of `text` with room for `max` UUIDs, without decoding
/// them: for a caller that only needs to know which lines are UUIDs (a validator), and
/// so skips joining each line's digits into bytes and storing them. The same lines,
/// the same bytes, whatever the text (tested against [`parse_lines`]).
///
/// ```
/// use uuidkit::text::{check_lines, parse_lines, ParsedLines};
/// use uuidkit::Uuid;
/// let text = b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\r\n\
///              {F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}\n\
///              not a uuid\n";
/// assert_eq!(check_lines(text, usize::MAX), ParsedLines { uuids: 2, bytes: 77 });
/// assert_eq!(check_lines(text, 1), ParsedLines { uuids: 1, bytes: 38 });
/// assert_eq!(check_lines(text, usize::MAX), parse_lines(text, &mut [Uuid::NIL; 16]));
/// ```
pub fn check_lines(text: &[u8], max: usize) -> ParsedLines {
    let (uuids, bytes) = simd::check_lines(text, max);
    ParsedLines { uuids, bytes }
}

/// A UUID's text in one form and case, on the stack: what [`Uuid::format`] returns. It
/// derefs to `&str` (no allocation), and `Display` writes it, with the formatter's width,
/// fill and alignment.
///
/// ```
/// use uuidkit::{Case, Format, Uuid};
/// let text = Uuid::NIL.format(Format::Simple, Case::Lower);
/// assert_eq!(&*text, "0".repeat(32));
/// assert_eq!(text.len(), 32);
/// assert_eq!(format!("[{text:>34}]"), format!("[  {}]", "0".repeat(32)));
/// ```
#[derive(Clone, Copy)]
pub struct Formatted(simd::EncodedText);

impl Formatted {
    /// The text.
    ///
    /// ```
    /// use uuidkit::{Case, Format, Uuid};
    /// let t = Uuid::MAX.format(Format::Urn, Case::Upper);
    /// assert_eq!(t.as_str(), format!("urn:uuid:{}", Uuid::MAX.format(Format::Hyphenated, Case::Upper).as_str()));
    /// ```
    #[inline]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl Deref for Formatted {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Formatted {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Formatted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Debug for Formatted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Uuid {
    /// This UUID's text in a chosen form and case: a [`Formatted`] on the stack that derefs
    /// to `&str` and implements `Display`. The one way to write any form; `Display` on the
    /// `Uuid` itself is the canonical hyphenated lowercase one.
    ///
    /// ```
    /// use uuidkit::{Case, Format, Uuid};
    /// let u = Uuid::from_u128(1);
    /// assert_eq!(&*u.format(Format::Braced, Case::Lower), "{00000000-0000-0000-0000-000000000001}");
    /// let mut line = String::new();
    /// line.push_str(&u.format(Format::Simple, Case::Upper));
    /// assert_eq!(line, "00000000000000000000000000000001");
    /// assert_eq!(u.format(Format::Hyphenated, Case::Lower).to_string(), u.to_string());
    /// ```
    #[inline]
    pub fn format(&self, format: Format, case: Case) -> Formatted {
        Formatted(simd::EncodedText::new(self.as_bytes(), format, case))
    }

    /// Parses any of the four forms, hex digits in either case.
    ///
    /// ```
    /// use uuidkit::Uuid;
    /// let a = Uuid::parse_str("URN:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")?;
    /// let b = Uuid::parse_str("f81d4fae7dec11d0a76500a0c91e6bf6")?;
    /// assert_eq!(a, b);
    /// let err = Uuid::parse_str("f81d4fae-7dec-11d0-a765_00a0c91e6bf6").unwrap_err();
    /// assert_eq!(err.index(), 23);
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ParseError`] naming the first byte that cannot be part of any of the four forms
    /// (the form is chosen from the first byte and the length).
    #[inline]
    pub fn parse_str(s: &str) -> Result<Uuid, ParseError> {
        simd::parse(s.as_bytes())
    }

    /// Parses ASCII bytes; as [`Uuid::parse_str`], for input not yet known to be UTF-8.
    ///
    /// ```
    /// let u = uuidkit::Uuid::parse_ascii(b"{00000000-0000-0000-0000-000000000000}")?;
    /// assert!(u.is_nil());
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ParseError`], as [`Uuid::parse_str`].
    #[inline]
    pub fn parse_ascii(s: &[u8]) -> Result<Uuid, ParseError> {
        simd::parse(s)
    }

    /// Parses at compile time (or at run time) with the scalar reference parser; panics
    /// with the error's message on invalid input, which in a `const` is a compile error.
    /// Prefer the [`uuid!`](crate::uuid!) macro, which forces const evaluation.
    ///
    /// ```
    /// const DNS: uuidkit::Uuid = uuidkit::Uuid::parse_const("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    /// assert_eq!(DNS, uuidkit::namespace::DNS);
    /// ```
    pub const fn parse_const(s: &str) -> Uuid {
        match scalar::parse_const(s.as_bytes()) {
            Ok(u) => u,
            Err(e) => panic!("{}", e.message()),
        }
    }
}

/// A UUID literal checked at compile time.
///
/// ```
/// use uuidkit::uuid;
/// const V7: uuidkit::Uuid = uuid!("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// assert_eq!(V7.version(), uuidkit::Version::V7);
/// ```
///
/// An invalid literal does not compile:
///
/// ```compile_fail
/// let u = uuidkit::uuid!("017f22e2-79b0-7cc3-98c4-dc0c0c07398");
/// ```
#[macro_export]
macro_rules! uuid {
    ($s:expr) => {{
        const U: $crate::Uuid = $crate::Uuid::parse_const($s);
        U
    }};
}

impl FromStr for Uuid {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Uuid, ParseError> {
        Uuid::parse_str(s)
    }
}

impl TryFrom<&str> for Uuid {
    type Error = ParseError;
    fn try_from(s: &str) -> Result<Uuid, ParseError> {
        Uuid::parse_str(s)
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; Format::MAX_LEN];
        f.pad(simd::encode_str(
            self.as_bytes(),
            Format::Hyphenated,
            Case::Lower,
            &mut buf,
        ))
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
