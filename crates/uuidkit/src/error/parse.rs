//! [`ParseError`]: where a text stopped being a UUID, a compact encoding or a node ID,
//! what was [`Expected`] there and what was found.

use alloc::boxed::Box;

/// What a parser expected at the byte where it stopped. One list for every text the
/// crate parses; [`ParseError::kind`] says which text it was.
///
/// ```
/// use uuidkit::{encoding::Encoding, Expected, NodeId, Uuid};
/// let expected = |e: uuidkit::ParseError| e.expected();
/// assert_eq!(expected(Uuid::parse_str("{00000000-0000-0000-0000-000000000000").unwrap_err()),
///            Expected::ClosingBrace);
/// assert_eq!(expected(Encoding::Base58.decode(b"0").unwrap_err()), Expected::Digit);
/// assert_eq!(expected("9f:6b-de:ce:d8:46".parse::<NodeId>().unwrap_err()),
///            Expected::Separator(Some(':')));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Expected {
    /// A hex digit `0-9`, `a-f` or `A-F`: in a UUID's text, or in the bare form of a node
    /// ID, which is exactly 12 of them (also the first byte of an empty node text).
    HexDigit,
    /// A hyphen `-` (at byte 8, 13, 18 or 23 of the hyphenated form).
    Hyphen,
    /// The closing brace `}` of the braced form.
    ClosingBrace,
    /// The next byte of the `urn:uuid:` prefix (any case).
    UrnPrefix,
    /// A digit of a compact encoding's alphabet (also when the input ended early).
    Digit,
    /// A compact encoding's digit that keeps the value within 128 bits.
    InRange,
    /// A hex digit after a node ID's `0x`, which is followed by 1 to 12 of them.
    HexDigitAfter0x,
    /// A hex digit of an octet in a node ID's separated form, where every octet is
    /// exactly 2.
    OctetDigit,
    /// The separator after a node ID's octet: `:` or `-` after the first (`None`), and
    /// then the same one after every other (`Some`).
    Separator(Option<char>),
    /// A node strategy word (`static`, `random`, `mac`, `hash`) or a node ID: the text
    /// starts like neither. Only [`NodeStrategy`](crate::node::NodeStrategy)'s parser
    /// reports this, always at byte 0.
    StrategyOrNode,
    /// The end of the input: the value was complete but more bytes followed.
    End,
}

/// Which kind of text a [`ParseError`] is about.
///
/// ```
/// use uuidkit::{encoding::Encoding, InputKind, NodeId, Uuid};
/// assert_eq!(Uuid::parse_str("").unwrap_err().kind(), InputKind::Uuid);
/// assert_eq!(Encoding::Base62.decode(b"").unwrap_err().kind(), InputKind::Encoded("base62"));
/// assert_eq!("".parse::<NodeId>().unwrap_err().kind(), InputKind::Node);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputKind {
    /// A UUID in one of the four hex forms ([`Uuid::parse_str`](crate::Uuid::parse_str)).
    Uuid,
    /// A compact encoding, by its [`name`](crate::encoding::Encoding::name).
    Encoded(&'static str),
    /// A node ID or node strategy ([`NodeId`](crate::NodeId)'s `FromStr`).
    Node,
}

/// What a parser tells the messages about its text, besides the position: private, so
/// that the messages can change without changing the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Subject {
    Uuid,
    /// A compact encoding: its name, its fixed length, and what bounds its value.
    Encoded {
        name: &'static str,
        len: usize,
        range: RangeRule,
    },
    /// A node text, taken for one of the written forms (which picks the hint).
    Node(NodeForm),
}

/// What keeps a compact encoding's value within 128 bits, for the message of
/// [`Expected::InRange`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RangeRule {
    /// base32: 26 digits hold 130 bits, so the first holds only 3.
    FirstDigit3Bits,
    /// base64url: 22 digits hold 132 bits, so the last's low 4 are zero.
    Last4BitsZero,
    /// base58 and base62: the number itself must be below 2^128.
    Below2To128,
}

/// Which of a node ID's written forms its parser took the text for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum NodeForm {
    Empty,
    Word,
    Bare,
    Prefixed,
    Separated,
}

/// Why a text failed to parse: which kind of text it was, the byte index of the first
/// offending byte, what was expected there and what was found (nothing, when the input
/// ended early).
///
/// Every text parser of the crate returns it: [`Uuid::parse_str`](crate::Uuid::parse_str)
/// and the other hex-form parsers, [`Encoding::decode`](crate::encoding::Encoding::decode)
/// and the node ID and node strategy parsers. The message is written only when the error
/// is displayed; for UUID text and the compact encodings, the error holds no heap memory.
///
/// ```
/// use uuidkit::{Expected, Uuid};
/// let err = Uuid::parse_str("{f81d4fae-7dec-11d0-a765-00a0c91e6bf6").unwrap_err();
/// assert_eq!((err.index(), err.expected(), err.found()), (37, Expected::ClosingBrace, None));
/// assert_eq!(err.to_string(),
///     "at byte 37: expected a closing brace '}', found the end of the input \
///      (the input is 37 bytes; a UUID is 32, 36, 38 or 45)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParseError {
    pub(super) subject: Subject,
    pub(super) index: usize,
    pub(super) expected: Expected,
    pub(super) found: Option<u8>,
    pub(super) len: usize,
    /// A node text, which its message quotes and reads hints from; `None` for the others,
    /// whose messages need only the byte found.
    pub(super) input: Option<Box<str>>,
}

impl ParseError {
    /// The error for input `s` of `subject` at byte `index`, where `expected` was expected:
    /// it records the byte found there (none past the end) and the input's length.
    pub(crate) const fn at(subject: Subject, s: &[u8], index: usize, expected: Expected) -> Self {
        ParseError {
            subject,
            index,
            expected,
            found: if index < s.len() {
                Some(s[index])
            } else {
                None
            },
            len: s.len(),
            input: None,
        }
    }

    /// The error for the node text `s`, taken for `form`: as [`at`](Self::at), keeping
    /// the text for the message.
    pub(crate) fn node(s: &str, index: usize, expected: Expected, form: NodeForm) -> Self {
        ParseError {
            input: Some(s.into()),
            ..ParseError::at(Subject::Node(form), s.as_bytes(), index, expected)
        }
    }

    /// Which kind of text failed to parse.
    ///
    /// ```
    /// let err = uuidkit::Uuid::parse_str("x").unwrap_err();
    /// assert_eq!(err.kind(), uuidkit::InputKind::Uuid);
    /// ```
    pub const fn kind(&self) -> InputKind {
        match self.subject {
            Subject::Uuid => InputKind::Uuid,
            Subject::Encoded { name, .. } => InputKind::Encoded(name),
            Subject::Node(_) => InputKind::Node,
        }
    }

    /// Byte index of the first offending byte (the input's length if it ended early).
    ///
    /// ```
    /// assert_eq!("0x12g".parse::<uuidkit::NodeId>().unwrap_err().index(), 4);
    /// ```
    pub const fn index(&self) -> usize {
        self.index
    }

    /// What was expected at [`index`](Self::index).
    ///
    /// ```
    /// use uuidkit::{Expected, NodeId};
    /// let err = "9f:6b:de:ce:d8".parse::<NodeId>().unwrap_err();
    /// assert_eq!((err.index(), err.expected()), (14, Expected::Separator(Some(':'))));
    /// ```
    pub const fn expected(&self) -> Expected {
        self.expected
    }

    /// The byte found at [`index`](Self::index), or `None` when the input ended.
    ///
    /// ```
    /// let err = "9f6bdeced84g".parse::<uuidkit::NodeId>().unwrap_err();
    /// assert_eq!((err.index(), err.found()), (11, Some(b'g')));
    /// ```
    pub const fn found(&self) -> Option<u8> {
        self.found
    }

    /// The length of the whole input, in bytes.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::parse_str("abc").unwrap_err().input_len(), 3);
    /// ```
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
    #[must_use]
    pub fn with_input_len(&self, len: usize) -> ParseError {
        ParseError {
            len,
            ..self.clone()
        }
    }
}

impl core::error::Error for ParseError {}
