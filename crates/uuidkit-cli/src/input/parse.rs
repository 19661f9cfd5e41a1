//! One input: where it came from, how a message quotes it, and parsing it in the form
//! `--from` names, reporting it on standard error when it is not a UUID.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use uuidkit::encoding::Encoding;
use uuidkit::{ParseError, Uuid};

/// Bytes of a line kept: more than the longest UUID (45 bytes, the urn form), so that a
/// line cut here is too long to be a UUID, and the parser, which looks at no byte past
/// the 46th, finds the same fault in the kept bytes as in the whole line.
pub const KEEP: usize = 64;

/// An input longer than this is quoted as an excerpt of [`EXCERPT`] bytes, its length
/// stated, rather than in full.
const QUOTE_WHOLE: u64 = KEEP as u64;

/// Bytes quoted of an input too long to quote whole: the longest UUID and a little more,
/// so the byte at fault (never past byte 45) is in the excerpt.
const EXCERPT: usize = 48;

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

/// One input: its bytes (all of them, or the first [`KEEP`] of a longer line), its whole
/// length, and where it came from.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The input, or its first bytes when `len` is larger.
    pub bytes: &'a [u8],
    /// The length of the whole input.
    pub len: u64,
    /// Where it came from.
    pub origin: Origin,
}

impl Input<'_> {
    /// Whether `bytes` is the whole input.
    fn is_whole(&self) -> bool {
        self.bytes.len() as u64 == self.len
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

/// An input and where it came from, for a message: `"xyz" (line 2)`, or for a long input
/// its first bytes and its length, `"aaaa…"… (line 2, 1000000 bytes)`.
pub struct Described<'a>(pub &'a Input<'a>);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = self.0;
        if input.len <= QUOTE_WHOLE && input.is_whole() {
            return write!(f, "{} ({})", Quoted(input.bytes), input.origin);
        }
        let mut excerpt = &input.bytes[..EXCERPT.min(input.bytes.len())];
        // Do not cut a UTF-8 character in two: that would turn the quote into escapes.
        if let Err(e) = std::str::from_utf8(excerpt)
            && e.error_len().is_none()
        {
            excerpt = &excerpt[..e.valid_up_to()];
        }
        write!(
            f,
            "{}… ({}, {} bytes)",
            Quoted(excerpt),
            input.origin,
            input.len
        )
    }
}

/// A parse error of `input`, which may have been found in its first bytes only: then the
/// length the error states is corrected to the whole input's.
struct Fault<'a> {
    err: &'a ParseError,
    len: u64,
}

impl fmt::Display for Fault<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The kept bytes have the whole input's fault (see KEEP); only the stated length
        // is theirs.
        let len = usize::try_from(self.len).unwrap_or(usize::MAX);
        write!(f, "{}", self.err.with_input_len(len))
    }
}

/// Reports an input that is not a UUID on standard error:
/// `uuidkit: invalid UUID "xyz" (argument 2): at byte 0: expected ...`.
pub fn report_invalid(input: &Input<'_>, err: &ParseError) {
    crate::stdio::report(format_args!(
        "invalid UUID {}: {}",
        Described(input),
        Fault {
            err,
            len: input.len
        }
    ));
}

/// The form inputs are read in: any hex form, with 26-byte inputs read as base32
/// (0, the default), or only a compact encoding (1 + its index in [`Encoding::ALL`]).
/// Set once by the subcommand from `--from`, before any input is read.
static FROM: AtomicU8 = AtomicU8::new(0);

/// Reads every later input in `encoding` only (`--from base58`, say); `None`: the hex
/// forms and base32 (the only forms that can be told apart by their length).
pub fn set_from(encoding: Option<Encoding>) {
    let v = encoding.map_or(0, |e| {
        1 + Encoding::ALL.iter().position(|x| *x == e).unwrap_or(0) as u8
    });
    FROM.store(v, Ordering::Relaxed);
}

/// The encoding `--from` named, if any (see [`set_from`]).
pub(super) fn from() -> Option<Encoding> {
    match FROM.load(Ordering::Relaxed) {
        0 => None,
        v => Encoding::ALL.get(usize::from(v - 1)).copied(),
    }
}

/// Reads a compact encoding, reporting the input when it is not one. The kept bytes of a
/// longer line give the whole line's message: the decoder looks at no byte past the
/// encoding's length (at most 26, less than [`KEEP`]), and the length it states is
/// corrected to the line's.
fn decode_or_report(input: &Input<'_>, e: Encoding) -> Option<Uuid> {
    match e.decode(input.bytes) {
        Ok(u) if input.is_whole() => Some(u),
        Err(err) => {
            report_invalid(input, &err);
            None
        }
        // KEEP is longer than any encoding: the first bytes of a longer line never decode.
        Ok(_) => {
            crate::stdio::report(format_args!(
                "invalid UUID {}: too long (a {e} UUID is {} bytes)",
                Described(input),
                e.len()
            ));
            None
        }
    }
}

/// Parses an input, reporting it on standard error when it is not a UUID: a hex form,
/// or base32 when it is 26 bytes long; with `--from`, only that encoding.
pub fn parse_or_report(input: &Input<'_>) -> Option<Uuid> {
    match from() {
        Some(e) => return decode_or_report(input, e),
        None if input.len == Encoding::Base32.len() as u64 => {
            return decode_or_report(input, Encoding::Base32);
        }
        None => {}
    }
    match Uuid::parse_ascii(input.bytes) {
        Ok(u) if input.is_whole() => Some(u),
        Err(e) => {
            report_invalid(input, &e);
            None
        }
        // KEEP is longer than any UUID: the first bytes of a longer line never parse.
        Ok(_) => {
            crate::stdio::report(format_args!(
                "invalid UUID {}: too long (a UUID is 32, 36, 38 or 45 bytes)",
                Described(input)
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes() {
        assert_eq!(Quoted(b"xyz").to_string(), "\"xyz\"");
        assert_eq!(Quoted(b"a\tb\"").to_string(), "\"a\\tb\\\"\"");
        assert_eq!(Quoted("é".as_bytes()).to_string(), "\"é\"");
        assert_eq!(Quoted(b"a\xffb").to_string(), "\"a\\xffb\"");
    }

    fn line(bytes: &[u8], len: u64) -> Input<'_> {
        Input {
            bytes,
            len,
            origin: Origin::Line(7),
        }
    }

    #[test]
    fn long_inputs_are_excerpted() {
        let short = [b'a'; 64];
        assert_eq!(
            Described(&line(&short, 64)).to_string(),
            format!("\"{}\" (line 7)", "a".repeat(64))
        );
        let long = [b'a'; 65];
        assert_eq!(
            Described(&line(&long, 65)).to_string(),
            format!("\"{}\"… (line 7, 65 bytes)", "a".repeat(48))
        );
        assert_eq!(
            Described(&line(&short, 1 << 40)).to_string(),
            format!("\"{}\"… (line 7, 1099511627776 bytes)", "a".repeat(48))
        );
        // 47 ASCII bytes then 'é' (2 bytes) across the cut at 48: cut before it.
        let mut text = "a".repeat(47);
        text.push_str(&"é".repeat(20));
        assert_eq!(
            Described(&line(text.as_bytes(), 1000)).to_string(),
            format!("\"{}\"… (line 7, 1000 bytes)", "a".repeat(47))
        );
    }

    #[test]
    fn a_fault_in_the_kept_bytes_states_the_whole_length() {
        let kept = [b'a'; KEEP];
        let err = Uuid::parse_ascii(&kept).unwrap_err();
        let text = Fault {
            err: &err,
            len: 5_000_000_000,
        }
        .to_string();
        assert_eq!(
            text,
            "at byte 32: expected the end of the input, found 'a' \
             (the input is 5000000000 bytes; a UUID is 32, 36, 38 or 45)"
        );
        // A fault that states no length is left as it is.
        let mut kept = [b'a'; KEEP];
        kept[3] = b'x';
        let err = Uuid::parse_ascii(&kept).unwrap_err();
        let text = Fault {
            err: &err,
            len: 1 << 30,
        }
        .to_string();
        assert_eq!(text, err.to_string());
    }

    /// A line of a compact encoding that a read cut (only its first KEEP bytes kept) gets
    /// the message the whole line gets: the same fault, the same length.
    #[test]
    fn the_kept_bytes_of_an_encoded_line_give_the_whole_lines_fault() {
        for e in Encoding::ALL {
            for whole in [
                vec![b'x'; 300],
                [&b"01M8CQ0ZYWEG7S3Q5MZ65074KC"[..], &[b'1'; 274]].concat(),
                [&b"1BihbxwwQ4NZZpKRH9JDCz"[..], &[b'z'; 278]].concat(),
            ] {
                let message = |bytes: &[u8]| {
                    let err = e.decode(bytes).unwrap_err();
                    Fault {
                        err: &err,
                        len: whole.len() as u64,
                    }
                    .to_string()
                };
                assert_eq!(message(&whole[..KEEP]), message(&whole), "{e}");
            }
        }
    }
}
