//! The text forms themselves: which form ([`Format`]), which letter case ([`Case`]), which
//! line end ([`LineEnd`]), and how long each is. Nothing here reads or writes text.

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

/// What ends each line that [`encode_lines`](crate::text::encode_lines) writes.
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

/// The length of one line that [`encode_lines`](crate::text::encode_lines) writes: the
/// form's text and the line end.
///
/// ```
/// use uuidkit::{text::{line_len, LineEnd}, Format};
/// assert_eq!(line_len(Format::Hyphenated, LineEnd::Lf), 37);
/// assert_eq!(line_len(Format::Urn, LineEnd::CrLf), 47);
/// ```
pub const fn line_len(format: Format, end: LineEnd) -> usize {
    format.len() + end.len()
}
