//! The scalar reference codec: simple `const fn`s that define what is accepted and what is
//! written ([`parse_scalar`], [`encode_hyphenated`], [`encode_simple`]). The SIMD kernels
//! (in the private `platform::simd` module) are checked against them, and fall back to
//! them wherever no kernel applies. Not the library's API (users parse with
//! `Uuid::parse_str` and write with `Uuid::format`): the fuzz targets, which compare the
//! kernels with this reference, reach it through the hidden `uuidkit::__private`.

use super::form::Case;
use crate::error::{Expected, ParseError, Subject};
use crate::uuid::Uuid;

const LOWER: &[u8; 16] = b"0123456789abcdef";
const UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Where the hyphenated form puts its hyphens.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];

/// Writes the 36-byte hyphenated form. A `const fn`: this is the reference the SIMD
/// formatter is tested against.
///
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

/// Where and why the `const` parser stopped: all a [`ParseError`] of UUID text needs
/// besides the input, and plain data, as a `const fn` needs (a `ParseError` may own a
/// node text, whose drop a `const fn` cannot run).
#[derive(Clone, Copy)]
pub(crate) struct Fault {
    index: usize,
    expected: Expected,
}

const fn fault(index: usize, expected: Expected) -> Fault {
    Fault { index, expected }
}

/// Parses 32 hex digits at `s[start..]`, with hyphens at the canonical places when
/// `hyphens`. Stops at the first offending byte; bytes after the UUID are the caller's.
const fn parse_digits(s: &[u8], start: usize, hyphens: bool) -> Result<[u8; 16], Fault> {
    let mut out = [0u8; 16];
    let mut pos = start;
    let mut i = 0;
    while i < 16 {
        if hyphens {
            let rel = pos - start;
            if rel == HYPHENS[0] || rel == HYPHENS[1] || rel == HYPHENS[2] || rel == HYPHENS[3] {
                if pos >= s.len() || s[pos] != b'-' {
                    return Err(fault(pos, Expected::Hyphen));
                }
                pos += 1;
            }
        }
        if pos >= s.len() || HEX_VALUE[s[pos] as usize] == 0xff {
            return Err(fault(pos, Expected::HexDigit));
        }
        if pos + 1 >= s.len() || HEX_VALUE[s[pos + 1] as usize] == 0xff {
            return Err(fault(pos + 1, Expected::HexDigit));
        }
        out[i] = (HEX_VALUE[s[pos] as usize] << 4) | HEX_VALUE[s[pos + 1] as usize];
        pos += 2;
        i += 1;
    }
    Ok(out)
}

/// The reference parser: simple, and the definition of what is accepted.
///
/// The form is chosen from the first byte and the length: `{` means braced, `u`/`U` means
/// URN, a hyphen at byte 8 (or a length of 36) means hyphenated, anything else simple.
/// Bytes are then checked in order, so the error names the first byte that cannot be part
/// of that form.
///
/// # Errors
///
/// A [`ParseError`] naming the first byte that cannot be part of the form chosen.
pub fn parse_scalar(s: &[u8]) -> Result<Uuid, ParseError> {
    parse_const(s).map_err(|f| ParseError::at(Subject::Uuid, s, f.index, f.expected))
}

/// [`parse_scalar`] as a `const fn`, for [`Uuid::parse_const`]: the same parser, with
/// the fault alone.
pub(crate) const fn parse_const(s: &[u8]) -> Result<Uuid, Fault> {
    let (start, hyphens, end) = if !s.is_empty() && s[0] == b'{' {
        (1, true, 37)
    } else if !s.is_empty() && (s[0] == b'u' || s[0] == b'U') {
        let prefix = b"urn:uuid:";
        let mut i = 0;
        while i < prefix.len() {
            if i >= s.len() || s[i].to_ascii_lowercase() != prefix[i] {
                return Err(fault(i, Expected::UrnPrefix));
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
            return Err(fault(37, Expected::ClosingBrace));
        }
        after = 38;
    }
    if s.len() > after {
        return Err(fault(after, Expected::End));
    }
    Ok(Uuid::from_bytes(bytes))
}

impl Fault {
    /// The short message a `const` panic can carry (no formatting in `const`): what
    /// [`Uuid::parse_const`] panics with.
    pub(crate) const fn message(self) -> &'static str {
        match self.expected {
            Expected::HexDigit => "invalid UUID literal: expected a hex digit",
            Expected::Hyphen => "invalid UUID literal: expected a hyphen",
            Expected::ClosingBrace => "invalid UUID literal: expected a closing brace",
            Expected::UrnPrefix => "invalid UUID literal: expected the prefix urn:uuid:",
            _ => "invalid UUID literal: too long",
        }
    }
}
