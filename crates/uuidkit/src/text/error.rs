//! Why a text is not a UUID: [`ParseError`] (the byte index, what was [`Expected`] there,
//! what was found) and its messages.

use core::fmt;

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
    /// The error for input `s` at byte `index`, where `expected` was expected: it records
    /// the byte found there (none past the end) and the input's length.
    pub(super) const fn at(s: &[u8], index: usize, expected: Expected) -> ParseError {
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

    /// The short message a `const` panic can carry (no formatting in `const`): what
    /// [`Uuid::parse_const`](crate::Uuid::parse_const) panics with.
    pub(super) const fn kind_message(&self) -> &'static str {
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
