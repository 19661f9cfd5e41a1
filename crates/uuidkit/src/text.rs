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
//! byte and what was expected there. The parser is a `const fn`, which is what makes
//! [`uuid!`](crate::uuid!) a compile-time checked literal; the SIMD hot paths (in the
//! private `platform::simd` module) are checked against it.

use core::fmt;
use core::str::FromStr;

use crate::Uuid;

/// A text form of a UUID.
///
/// ```
/// use uuidkit::{Case, Format, Uuid};
/// let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
/// assert_eq!(u.format(Format::Urn, Case::Upper).to_string(),
///            "urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// `8-4-4-4-12` hex digits: the canonical form.
    #[default]
    Hyphenated,
    /// 32 hex digits.
    Simple,
    /// The hyphenated form between `{` and `}`.
    Braced,
    /// The hyphenated form after `urn:uuid:`.
    Urn,
}

impl Format {
    /// The longest text form, in bytes (the URN).
    pub const MAX_LEN: usize = 45;

    /// The length of this form, in bytes.
    ///
    /// ```
    /// assert_eq!(uuidkit::Format::Braced.len(), 38);
    /// ```
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        match self {
            Format::Hyphenated => 36,
            Format::Simple => 32,
            Format::Braced => 38,
            Format::Urn => 45,
        }
    }
}

/// Letter case of the hex digits on output (the `urn:uuid:` prefix is always lowercase).
///
/// ```
/// use uuidkit::{Case, Format, Uuid};
/// assert_eq!(Uuid::MAX.format(Format::Simple, Case::Upper).to_string(), "F".repeat(32));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Case {
    /// `0-9a-f`: what RFC 9562 §4 asks for on output.
    #[default]
    Lower,
    /// `0-9A-F`.
    Upper,
}

const LOWER: &[u8; 16] = b"0123456789abcdef";
const UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Where the hyphenated form puts its hyphens.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];

/// Writes the 36-byte hyphenated form. A `const fn`: this is the reference the SIMD
/// formatter is tested against.
///
/// ```
/// let text = uuidkit::text::encode_hyphenated(&[0xab; 16], uuidkit::Case::Lower);
/// assert_eq!(&text, b"abababab-abab-abab-abab-abababababab");
/// ```
pub const fn encode_hyphenated(bytes: &[u8; 16], case: Case) -> [u8; 36] {
    let digits = match case {
        Case::Lower => LOWER,
        Case::Upper => UPPER,
    };
    let mut out = [b'-'; 36];
    let mut i = 0;
    let mut pos = 0;
    while i < 16 {
        if pos == 8 || pos == 13 || pos == 18 || pos == 23 {
            pos += 1;
        }
        out[pos] = digits[(bytes[i] >> 4) as usize];
        out[pos + 1] = digits[(bytes[i] & 0x0f) as usize];
        pos += 2;
        i += 1;
    }
    out
}

/// Writes the 32-byte simple form.
///
/// ```
/// let text = uuidkit::text::encode_simple(&[0xab; 16], uuidkit::Case::Upper);
/// assert_eq!(&text, b"ABABABABABABABABABABABABABABABAB");
/// ```
pub const fn encode_simple(bytes: &[u8; 16], case: Case) -> [u8; 32] {
    let digits = match case {
        Case::Lower => LOWER,
        Case::Upper => UPPER,
    };
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        out[2 * i] = digits[(bytes[i] >> 4) as usize];
        out[2 * i + 1] = digits[(bytes[i] & 0x0f) as usize];
        i += 1;
    }
    out
}

/// Writes `uuid` in `format` and `case` into the front of `buf` and returns that part as a
/// `&str`: formatting into a caller's stack buffer, with no allocation.
///
/// ```
/// use uuidkit::{text, Case, Format, Uuid};
/// let mut buf = [0u8; Format::MAX_LEN];
/// let s = text::encode(&Uuid::NIL, Format::Braced, Case::Lower, &mut buf);
/// assert_eq!(s, "{00000000-0000-0000-0000-000000000000}");
/// ```
#[inline]
pub fn encode<'b>(
    uuid: &Uuid,
    format: Format,
    case: Case,
    buf: &'b mut [u8; Format::MAX_LEN],
) -> &'b str {
    crate::platform::simd::encode_str(uuid.as_bytes(), format, case, buf)
}

/// What ends each line that [`encode_lines`] writes.
///
/// ```
/// use uuidkit::text::LineEnd;
/// assert_eq!((LineEnd::Lf.len(), LineEnd::CrLf.len()), (1, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LineEnd {
    /// `\n`.
    #[default]
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnd {
    /// The length of the line end, in bytes.
    ///
    /// ```
    /// assert_eq!(uuidkit::text::LineEnd::CrLf.len(), 2);
    /// ```
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        match self {
            LineEnd::Lf => 1,
            LineEnd::CrLf => 2,
        }
    }

    /// The line end's bytes, padded to two (the first [`len`](Self::len) count).
    pub(crate) const fn bytes(self) -> [u8; 2] {
        match self {
            LineEnd::Lf => *b"\n\0",
            LineEnd::CrLf => *b"\r\n",
        }
    }
}

/// The length of one line that [`encode_lines`] writes: the form's text and the line end.
///
/// ```
/// use uuidkit::{text::{line_len, LineEnd}, Format};
/// assert_eq!(line_len(Format::Hyphenated, LineEnd::Lf), 37);
/// assert_eq!(line_len(Format::Urn, LineEnd::CrLf), 47);
/// ```
pub const fn line_len(format: Format, end: LineEnd) -> usize {
    format.len() + end.len()
}

/// Writes `uuids` one a line, in `format` and `case`, each line ended by `end`, into the
/// front of `out`: as many whole lines as fit. Returns how many UUIDs were written; the
/// text is the first `n * line_len(format, end)` bytes of `out`, exactly what
/// [`encode`] and the line end would give UUID by UUID. The rest of `out` is untouched.
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
    crate::platform::simd::encode_lines(uuids, format, case, end, out)
}

/// How much of a text [`parse_lines`] took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ParsedLines {
    /// UUIDs written to the front of the output slice, one for each line taken.
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
    let (uuids, bytes) = crate::platform::simd::parse_lines(text, out);
    ParsedLines { uuids, bytes }
}

/// A [`Uuid`] with a chosen form and case, for `Display`; made by [`Uuid::format`].
///
/// ```
/// use uuidkit::{Case, Format, Uuid};
/// let shown = format!("{}", Uuid::NIL.format(Format::Simple, Case::Lower));
/// assert_eq!(shown, "0".repeat(32));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Formatted {
    uuid: Uuid,
    format: Format,
    case: Case,
}

impl fmt::Display for Formatted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; Format::MAX_LEN];
        f.pad(encode(&self.uuid, self.format, self.case, &mut buf))
    }
}

impl Uuid {
    /// This UUID in a chosen text form and case, for `Display` (`to_string`, `write!`).
    ///
    /// ```
    /// use uuidkit::{Case, Format, Uuid};
    /// let u = Uuid::from_u128(1);
    /// assert_eq!(u.format(Format::Braced, Case::Lower).to_string(),
    ///            "{00000000-0000-0000-0000-000000000001}");
    /// ```
    pub const fn format(self, format: Format, case: Case) -> Formatted {
        Formatted {
            uuid: self,
            format,
            case,
        }
    }

    /// Writes this UUID into a caller's buffer; see [`text::encode`](encode).
    ///
    /// ```
    /// use uuidkit::{Case, Format, Uuid};
    /// let mut buf = [0u8; Format::MAX_LEN];
    /// assert_eq!(Uuid::MAX.encode(Format::Simple, Case::Lower, &mut buf), "f".repeat(32));
    /// ```
    #[inline]
    pub fn encode<'b>(
        &self,
        format: Format,
        case: Case,
        buf: &'b mut [u8; Format::MAX_LEN],
    ) -> &'b str {
        encode(self, format, case, buf)
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
    #[inline]
    pub fn parse_str(s: &str) -> Result<Uuid, ParseError> {
        crate::platform::simd::parse(s.as_bytes())
    }

    /// Parses ASCII bytes; as [`Uuid::parse_str`], for input not yet known to be UTF-8.
    ///
    /// ```
    /// let u = uuidkit::Uuid::parse_ascii(b"{00000000-0000-0000-0000-000000000000}")?;
    /// assert!(u.is_nil());
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    #[inline]
    pub fn parse_ascii(s: &[u8]) -> Result<Uuid, ParseError> {
        crate::platform::simd::parse(s)
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
        match parse_scalar(s.as_bytes()) {
            Ok(u) => u,
            Err(e) => panic!("{}", e.kind_message()),
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
        fmt::Display::fmt(&self.format(Format::Hyphenated, Case::Lower), f)
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::LowerHex for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::UpperHex for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.format(Format::Hyphenated, Case::Upper), f)
    }
}

/// What the parser expected at the byte where it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expected {
    /// A hex digit `0-9`, `a-f` or `A-F`.
    HexDigit,
    /// A hyphen `-` (at byte 8, 13, 18 or 23 of the hyphenated form).
    Hyphen,
    /// The closing brace `}` of the braced form.
    ClosingBrace,
    /// The next byte of the `urn:uuid:` prefix (any case).
    UrnPrefix,
    /// The end of the input: the UUID was complete but more bytes followed.
    End,
}

impl Expected {
    const fn describe(self) -> &'static str {
        match self {
            Expected::HexDigit => "a hex digit (0-9, a-f, A-F)",
            Expected::Hyphen => "a hyphen '-'",
            Expected::ClosingBrace => "a closing brace '}'",
            Expected::UrnPrefix => "the prefix 'urn:uuid:'",
            Expected::End => "the end of the input",
        }
    }
}

/// Why a text failed to parse: the byte index of the first offending byte, what was
/// expected there and what was found (nothing, when the input ended early).
///
/// ```
/// use uuidkit::{text::Expected, Uuid};
/// let err = Uuid::parse_str("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap_err();
/// assert_eq!((err.index(), err.expected(), err.found()), (37, Expected::ClosingBrace, None));
/// assert_eq!(err.to_string(),
///     "at byte 37: expected a closing brace '}', found the end of the input \
///      (the input is 37 bytes; a UUID is 32, 36, 38 or 45)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseError {
    index: usize,
    expected: Expected,
    found: Option<u8>,
    len: usize,
}

impl ParseError {
    /// Byte index of the first offending byte (the input's length if it ended early).
    pub const fn index(&self) -> usize {
        self.index
    }

    /// What was expected at [`index`](Self::index).
    pub const fn expected(&self) -> Expected {
        self.expected
    }

    /// The byte found there, or `None` when the input ended.
    pub const fn found(&self) -> Option<u8> {
        self.found
    }

    /// The length of the whole input, in bytes.
    pub const fn input_len(&self) -> usize {
        self.len
    }

    /// The same fault, stated for a longer input of `len` bytes of which only the first
    /// were parsed. No UUID text is longer than 45 bytes, so a reader that keeps just the
    /// first bytes of a huge line finds the same fault at the same index; this corrects
    /// the length the message states.
    ///
    /// ```
    /// let err = uuidkit::Uuid::parse_ascii(&[b'a'; 64]).unwrap_err();
    /// let whole = err.with_input_len(5_000_000);
    /// assert_eq!((whole.index(), whole.input_len()), (err.index(), 5_000_000));
    /// assert!(whole.to_string().contains("(the input is 5000000 bytes;"));
    /// ```
    pub const fn with_input_len(self, len: usize) -> ParseError {
        ParseError { len, ..self }
    }

    const fn kind_message(&self) -> &'static str {
        match self.expected {
            Expected::HexDigit => "invalid UUID literal: expected a hex digit",
            Expected::Hyphen => "invalid UUID literal: expected a hyphen",
            Expected::ClosingBrace => "invalid UUID literal: expected a closing brace",
            Expected::UrnPrefix => "invalid UUID literal: expected the prefix urn:uuid:",
            Expected::End => "invalid UUID literal: too long",
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {}: expected {}, found ",
            self.index,
            self.expected.describe()
        )?;
        match self.found {
            None => f.write_str("the end of the input")?,
            Some(b) if b.is_ascii_graphic() => write!(f, "'{}'", b as char)?,
            Some(b' ') => f.write_str("a space")?,
            Some(b) if b.is_ascii() => write!(f, "the control byte 0x{b:02x}")?,
            Some(b) => write!(f, "the non-ASCII byte 0x{b:02x}")?,
        }
        if self.found.is_none() || matches!(self.expected, Expected::End) {
            write!(
                f,
                " (the input is {} bytes; a UUID is 32, 36, 38 or 45)",
                self.len
            )?;
        }
        Ok(())
    }
}

impl core::error::Error for ParseError {}

/// Value of each byte as a hex digit, or 0xff.
pub(crate) const HEX_VALUE: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

const fn err(s: &[u8], index: usize, expected: Expected) -> ParseError {
    ParseError {
        index,
        expected,
        found: if index < s.len() {
            Some(s[index])
        } else {
            None
        },
        len: s.len(),
    }
}

/// Parses 32 hex digits at `s[start..]`, with hyphens at the canonical places when
/// `hyphens`. Stops at the first offending byte; bytes after the UUID are the caller's.
const fn parse_digits(s: &[u8], start: usize, hyphens: bool) -> Result<[u8; 16], ParseError> {
    let mut out = [0u8; 16];
    let mut pos = start;
    let mut i = 0;
    while i < 16 {
        if hyphens {
            let rel = pos - start;
            if rel == HYPHENS[0] || rel == HYPHENS[1] || rel == HYPHENS[2] || rel == HYPHENS[3] {
                if pos >= s.len() || s[pos] != b'-' {
                    return Err(err(s, pos, Expected::Hyphen));
                }
                pos += 1;
            }
        }
        if pos >= s.len() || HEX_VALUE[s[pos] as usize] == 0xff {
            return Err(err(s, pos, Expected::HexDigit));
        }
        if pos + 1 >= s.len() || HEX_VALUE[s[pos + 1] as usize] == 0xff {
            return Err(err(s, pos + 1, Expected::HexDigit));
        }
        out[i] = (HEX_VALUE[s[pos] as usize] << 4) | HEX_VALUE[s[pos + 1] as usize];
        pos += 2;
        i += 1;
    }
    Ok(out)
}

/// The reference parser: simple, `const`, and the definition of what is accepted.
///
/// The form is chosen from the first byte and the length: `{` means braced, `u`/`U` means
/// URN, a hyphen at byte 8 (or a length of 36) means hyphenated, anything else simple.
/// Bytes are then checked in order, so the error names the first byte that cannot be part
/// of that form.
///
/// ```
/// use uuidkit::text::{parse_scalar, Expected};
/// assert!(parse_scalar(b"f81d4fae7dec11d0a76500a0c91e6bf6").is_ok());
/// assert_eq!(parse_scalar(b" f81d4fae7dec11d0a76500a0c91e6bf6").unwrap_err().index(), 0);
/// assert_eq!(parse_scalar(b"urn:uuid:{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}").unwrap_err().expected(),
///            Expected::HexDigit);
/// ```
pub const fn parse_scalar(s: &[u8]) -> Result<Uuid, ParseError> {
    let (start, hyphens, end) = if !s.is_empty() && s[0] == b'{' {
        (1, true, 37)
    } else if !s.is_empty() && (s[0] == b'u' || s[0] == b'U') {
        let prefix = b"urn:uuid:";
        let mut i = 0;
        while i < prefix.len() {
            if i >= s.len() || s[i].to_ascii_lowercase() != prefix[i] {
                return Err(err(s, i, Expected::UrnPrefix));
            }
            i += 1;
        }
        (9, true, 45)
    } else if s.len() == 36 || (s.len() > 8 && s[8] == b'-') {
        (0, true, 36)
    } else {
        (0, false, 32)
    };
    let bytes = match parse_digits(s, start, hyphens) {
        Ok(b) => b,
        Err(e) => return Err(e),
    };
    let mut after = end;
    if start == 1 {
        if s.len() <= 37 || s[37] != b'}' {
            return Err(err(s, 37, Expected::ClosingBrace));
        }
        after = 38;
    }
    if s.len() > after {
        return Err(err(s, after, Expected::End));
    }
    Ok(Uuid::from_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FORMS: [Format; 4] = [
        Format::Hyphenated,
        Format::Simple,
        Format::Braced,
        Format::Urn,
    ];

    fn text(u: Uuid, f: Format, c: Case) -> String {
        u.format(f, c).to_string()
    }

    #[test]
    fn formats_every_form() {
        let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
        assert_eq!(
            text(u, Format::Hyphenated, Case::Lower),
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        );
        assert_eq!(
            text(u, Format::Simple, Case::Upper),
            "F81D4FAE7DEC11D0A76500A0C91E6BF6"
        );
        assert_eq!(
            text(u, Format::Braced, Case::Lower),
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}"
        );
        assert_eq!(
            text(u, Format::Urn, Case::Lower),
            "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        );
        assert_eq!(format!("{u:X}"), "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6");
        assert_eq!(format!("{u:?}"), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
        assert_eq!(format!("{u:>38}"), format!("  {u}"));
    }

    #[test]
    fn accepts_urn_prefix_in_any_case() {
        for p in ["urn:uuid:", "URN:UUID:", "Urn:Uuid:", "uRn:uUiD:"] {
            let s = format!("{p}f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
            assert!(Uuid::parse_str(&s).is_ok(), "{s}");
        }
    }

    fn expect_err(s: &str, index: usize, expected: Expected) {
        let e = Uuid::parse_str(s).expect_err(s);
        assert_eq!((e.index(), e.expected()), (index, expected), "{s:?}: {e}");
        assert_eq!(parse_scalar(s.as_bytes()), Err(e), "{s:?}");
    }

    #[test]
    fn rejects_malformed_with_position() {
        use Expected::*;
        let h = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
        expect_err("", 0, HexDigit);
        expect_err(" f81d4fae-7dec-11d0-a765-00a0c91e6bf6", 0, HexDigit);
        expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf6 ", 36, End);
        expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n", 36, End);
        expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf", 35, HexDigit);
        expect_err("f81d4fae_7dec-11d0-a765-00a0c91e6bf6", 8, Hyphen);
        expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bg6", 34, HexDigit);
        expect_err("0xf81d4fae7dec11d0a76500a0c91e6bf6", 1, HexDigit);
        expect_err("+f81d4fae7dec11d0a76500a0c91e6bf6", 0, HexDigit);
        expect_err("-f81d4fae7dec11d0a76500a0c91e6bf", 0, HexDigit);
        expect_err("f81d4fae7dec11d0a76500a0c91e6bf", 31, HexDigit);
        expect_err("f81d4fae7dec11d0a76500a0c91e6bf6a", 32, End);
        expect_err("{f81d4fae7dec11d0a76500a0c91e6bf6}", 9, Hyphen);
        expect_err(&format!("{{{h}"), 37, ClosingBrace);
        expect_err(&format!("{{{h}}}}}"), 38, End);
        expect_err(&format!("{{{h})"), 37, ClosingBrace);
        expect_err(&format!("urn:uuid:{{{h}}}"), 9, HexDigit);
        expect_err(&format!("urn:uid:{h}"), 5, UrnPrefix);
        expect_err("urn:uuid:", 9, HexDigit);
        expect_err("u", 1, UrnPrefix);
        expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf\u{e9}", 35, HexDigit);
        expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf\u{ff16}", 35, HexDigit);
        expect_err("f81d4fae-7dec-11d0-a765-00a0c91e_bf6", 32, HexDigit);
        expect_err("f81d4fae-7dec-11d0-a76500a0c91e6bf6", 23, Hyphen);
        expect_err("f81d-4fae-7dec-11d0-a765-00a0c91e6bf6", 4, HexDigit);
        expect_err("{}", 1, HexDigit);
    }

    #[test]
    fn error_messages_name_what_was_found() {
        let e = Uuid::parse_str("f81d4fae-7dec-11d0-a765-00a0c91e6bf\u{e9}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at byte 35: expected a hex digit (0-9, a-f, A-F), found the non-ASCII byte 0xc3"
        );
        let e = Uuid::parse_str("f81d4fae 7dec-11d0-a765-00a0c91e6bf6").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at byte 8: expected a hyphen '-', found a space"
        );
    }

    proptest! {
        // Under Miri: a few cases, and no failure file (Miri forbids the file system).
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 4 } else { 256 },
            failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
            ..ProptestConfig::default()
        })]

        #[test]
        fn parse_inverts_format(bytes in any::<[u8; 16]>(), upper in any::<bool>()) {
            let u = Uuid::from_bytes(bytes);
            let case = if upper { Case::Upper } else { Case::Lower };
            for f in FORMS {
                let s = text(u, f, case);
                prop_assert_eq!(s.len(), f.len());
                prop_assert_eq!(Uuid::parse_str(&s), Ok(u));
                prop_assert_eq!(parse_scalar(s.as_bytes()), Ok(u));
            }
        }

        #[test]
        fn mixed_case_digits_parse(bytes in any::<[u8; 16]>(), mask in any::<u64>()) {
            let u = Uuid::from_bytes(bytes);
            let s: String = text(u, Format::Hyphenated, Case::Lower)
                .chars()
                .enumerate()
                .map(|(i, c)| if mask >> (i % 64) & 1 == 1 { c.to_ascii_uppercase() } else { c })
                .collect();
            prop_assert_eq!(Uuid::parse_str(&s), Ok(u));
        }

        #[test]
        fn arbitrary_input_never_panics(s in ".{0,50}") {
            let _ = Uuid::parse_str(&s);
        }

        #[test]
        fn one_corrupted_byte_is_found(bytes in any::<[u8; 16]>(), form in 0usize..4,
                                      at in 0usize..45, bad in any::<u8>()) {
            let f = FORMS[form];
            let mut s = text(Uuid::from_bytes(bytes), f, Case::Lower).into_bytes();
            let at = at % s.len();
            let original = s[at];
            s[at] = bad;
            let ok_same_class = (HEX_VALUE[original as usize] != 0xff && HEX_VALUE[bad as usize] != 0xff)
                || original.eq_ignore_ascii_case(&bad);
            let r = Uuid::parse_ascii(&s);
            prop_assert_eq!(r, parse_scalar(&s));
            // A new first byte may choose another form ({ or u), whose error can come later.
            let form_changed = at == 0 || (f == Format::Simple && at == 8 && bad == b'-');
            if !ok_same_class && form_changed {
                prop_assert!(r.is_err());
            } else if !ok_same_class {
                let e = r.unwrap_err();
                prop_assert!(e.index() <= at, "{:?} at {}", e, at);
            }
        }
    }
}
