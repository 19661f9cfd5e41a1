//! Where `inspect`, `check` and `convert` get their UUIDs: the arguments, or one a line
//! from standard input, each with where it came from for error messages.

use std::ffi::OsString;
use std::fmt;
use std::io::{self, BufRead, BufReader};

use uuidkit::{ParseError, Uuid};

use crate::{Failure, stdio};

/// Where an input came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The n-th UUID argument, from 1.
    Argument(usize),
    /// Line n of standard input, from 1.
    Line(u64),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Argument(n) => write!(f, "argument {n}"),
            Origin::Line(n) => write!(f, "line {n}"),
        }
    }
}

/// Input bytes quoted for a message: as a Rust string literal when UTF-8 (so control
/// characters and quotes are escaped), otherwise with `\xNN` for every byte that is not
/// printable ASCII.
pub struct Quoted<'a>(pub &'a [u8]);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match std::str::from_utf8(self.0) {
            Ok(s) => write!(f, "{s:?}"),
            Err(_) => write!(f, "\"{}\"", self.0.escape_ascii()),
        }
    }
}

/// Reports an input that is not a UUID on standard error:
/// `uuidkit: invalid UUID "xyz" (argument 2): at byte 0: expected ...`.
pub fn report_invalid(bytes: &[u8], origin: Origin, err: &ParseError) {
    crate::report(format_args!(
        "invalid UUID {} ({origin}): {err}",
        Quoted(bytes)
    ));
}

/// Parses an input, reporting it on standard error when it is not a UUID.
pub fn parse_or_report(bytes: &[u8], origin: Origin) -> Option<Uuid> {
    match Uuid::parse_ascii(bytes) {
        Ok(u) => Some(u),
        Err(e) => {
            report_invalid(bytes, origin, &e);
            None
        }
    }
}

/// Calls `each` with every input: the operands if there are any, otherwise every line of
/// standard input with its line end (`\n` or `\r\n`) removed and nothing else. A last
/// line without a line end still counts; the empty text after a final line end does not.
pub fn for_each(
    operands: &[OsString],
    mut each: impl FnMut(&[u8], Origin) -> Result<(), Failure>,
) -> Result<(), Failure> {
    if !operands.is_empty() {
        for (i, op) in operands.iter().enumerate() {
            each(op.as_encoded_bytes(), Origin::Argument(i + 1))?;
        }
        return Ok(());
    }
    let reading = |e: io::Error| Failure::Message(format!("reading standard input: {e}"));
    let mut reader = BufReader::new(stdio::stdin().map_err(reading)?);
    let mut line = Vec::with_capacity(64);
    let mut number = 0u64;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(reading)?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        each(strip_line_end(&line), Origin::Line(number))?;
    }
}

/// The line without its `\n` or `\r\n`.
fn strip_line_end(line: &[u8]) -> &[u8] {
    match line {
        [rest @ .., b'\r', b'\n'] => rest,
        [rest @ .., b'\n'] => rest,
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_only_the_line_end() {
        assert_eq!(strip_line_end(b"ab\n"), b"ab");
        assert_eq!(strip_line_end(b"ab\r\n"), b"ab");
        assert_eq!(strip_line_end(b"ab \n"), b"ab ");
        assert_eq!(strip_line_end(b"ab\r"), b"ab\r");
        assert_eq!(strip_line_end(b"ab"), b"ab");
        assert_eq!(strip_line_end(b"\n"), b"");
    }

    #[test]
    fn quotes() {
        assert_eq!(Quoted(b"xyz").to_string(), "\"xyz\"");
        assert_eq!(Quoted(b"a\tb\"").to_string(), "\"a\\tb\\\"\"");
        assert_eq!(Quoted("é".as_bytes()).to_string(), "\"é\"");
        assert_eq!(Quoted(b"a\xffb").to_string(), "\"a\\xffb\"");
    }
}
