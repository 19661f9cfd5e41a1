//! What a [`ParseError`] says: one message per kind of text, built from the facts the
//! parser recorded, only when the error is displayed.

use core::fmt;

use super::parse::{Expected, NodeForm, ParseError, RangeRule, Subject};

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Subject::Node(_) = self.subject {
            write!(f, "invalid node ID {:?}: ", self.input())?;
        }
        self.fmt_detail(f)
    }
}

impl ParseError {
    /// The node text (empty for the other kinds, which do not keep theirs).
    fn input(&self) -> &str {
        self.input.as_deref().unwrap_or("")
    }

    /// The message without the leading `invalid node ID "…": ` of node errors, so that
    /// [`NodeEnvError`](crate::node::NodeEnvError) can name the variable instead.
    pub(crate) fn fmt_detail(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.subject {
            Subject::Uuid => self.uuid_message(f),
            Subject::Encoded { name, len, range } => self.encoded_message(f, name, len, range),
            Subject::Node(form) => self.node_message(f, form),
        }
    }

    fn uuid_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = match self.expected {
            Expected::HexDigit => "a hex digit (0-9, a-f, A-F)",
            Expected::Hyphen => "a hyphen '-'",
            Expected::ClosingBrace => "a closing brace '}'",
            Expected::UrnPrefix => "the prefix 'urn:uuid:'",
            // The UUID parser reports nothing else.
            _ => "the end of the input",
        };
        write!(f, "at byte {}: expected {expected}, found ", self.index)?;
        found_byte(f, self.found)?;
        if self.found.is_none() || self.expected == Expected::End {
            write!(
                f,
                " (the input is {} bytes; a UUID is 32, 36, 38 or 45)",
                self.len
            )?;
        }
        Ok(())
    }

    fn encoded_message(
        &self,
        f: &mut fmt::Formatter<'_>,
        name: &str,
        len: usize,
        range: RangeRule,
    ) -> fmt::Result {
        write!(f, "at byte {}: expected ", self.index)?;
        match (self.expected, range) {
            (Expected::InRange, RangeRule::FirstDigit3Bits) => {
                write!(f, "a {name} digit from 0 to 7 (the first holds 3 bits)")?
            }
            (Expected::InRange, RangeRule::Last4BitsZero) => {
                write!(f, "a {name} digit whose last 4 bits are zero")?
            }
            (Expected::InRange, RangeRule::Below2To128) => {
                write!(f, "a {name} digit that keeps the value within 128 bits")?
            }
            (Expected::End, _) => f.write_str("the end of the input")?,
            // The decoder reports nothing else.
            _ => write!(f, "a {name} digit")?,
        }
        f.write_str(", found ")?;
        found_byte(f, self.found)?;
        match (self.expected, range) {
            (Expected::InRange, RangeRule::Below2To128) => {
                f.write_str(" (the value is above 2^128 - 1)")
            }
            (Expected::InRange, _) => Ok(()),
            _ if self.found.is_none() || self.expected == Expected::End => {
                write!(f, " (the input is {} bytes; {name} is {len})", self.len)
            }
            _ => Ok(()),
        }
    }

    fn node_message(&self, f: &mut fmt::Formatter<'_>, form: NodeForm) -> fmt::Result {
        write!(f, "at byte {}, expected ", self.index)?;
        match self.expected {
            Expected::StrategyOrNode => f.write_str("static, random, mac, hash or a node ID")?,
            Expected::HexDigitAfter0x => f.write_str("a hex digit after 0x")?,
            // In the separated form octet k (from 1) is at bytes 3k-3 and 3k-2, and the
            // separator after it at 3k-1.
            Expected::OctetDigit => write!(
                f,
                "the {} hex digit of octet {} (an octet is 2 hex digits)",
                if self.index.is_multiple_of(3) {
                    "first"
                } else {
                    "second"
                },
                self.index / 3 + 1
            )?,
            Expected::Separator(None) => {
                write!(f, "':' or '-' after octet {}", self.index / 3 + 1)?
            }
            Expected::Separator(Some(c)) => write!(
                f,
                "{c:?} after octet {}, as after octet 1",
                self.index / 3 + 1
            )?,
            Expected::End => f.write_str("the end of the input")?,
            // The node parser reports nothing else.
            _ => f.write_str("a hex digit (0-9, a-f, A-F)")?,
        }
        let input = self.input();
        // A word may be misspelt anywhere; naming its first character would mislead.
        if self.expected != Expected::StrategyOrNode {
            // Every byte before `index` was ASCII, so `index` is on a character boundary.
            match input.get(self.index..).and_then(|s| s.chars().next()) {
                None => f.write_str(", found the end of the input")?,
                Some(' ') => f.write_str(", found a space")?,
                Some(c) => write!(f, ", found {c:?}")?,
            }
        }
        let len = input.len();
        match form {
            NodeForm::Empty | NodeForm::Word => write!(
                f,
                " ({}a node ID is 12 hex digits, 0x and 1 to 12 hex digits, or six octets \
                 of 2 hex digits separated by ':' or '-', e.g. 9f6bdeced846, 0x9f6bdeced846 \
                 or 9f:6b:de:ce:d8:46)",
                if form == NodeForm::Word {
                    "the words are lowercase; "
                } else {
                    ""
                }
            ),
            NodeForm::Prefixed => f.write_str(" (0x is followed by 1 to 12 hex digits)"),
            NodeForm::Separated => write!(
                f,
                " (with separators, a node ID is six octets of 2 hex digits with the same \
                 ':' or '-' between them: 17 bytes; this text is {len})"
            ),
            NodeForm::Bare => {
                write!(
                    f,
                    " (without 0x or separators, a node ID is exactly 12 hex digits; this text \
                     is {len} byte{}",
                    if len == 1 { "" } else { "s" }
                )?;
                if len < 12 && input.bytes().all(|c| c.is_ascii_hexdigit()) {
                    write!(f, "; for a shorter hex number write 0x{input}")?;
                }
                if input.bytes().all(|c| c.is_ascii_digit()) {
                    f.write_str("; decimal numbers are not accepted")?;
                    match input.parse::<u64>().ok().filter(|n| n >> 48 == 0) {
                        Some(n) => write!(f, ": {input} in hex is 0x{n:x}")?,
                        None => write!(f, ": {input} is not below 2^48")?,
                    }
                }
                f.write_str(")")
            }
        }
    }
}

/// The byte a message says was found: quoted when printable, else named.
fn found_byte(f: &mut fmt::Formatter<'_>, found: Option<u8>) -> fmt::Result {
    match found {
        None => f.write_str("the end of the input"),
        Some(b) if b.is_ascii_graphic() => write!(f, "'{}'", b as char),
        Some(b' ') => f.write_str("a space"),
        Some(b) if b.is_ascii() => write!(f, "the control byte 0x{b:02x}"),
        Some(b) => write!(f, "the non-ASCII byte 0x{b:02x}"),
    }
}
