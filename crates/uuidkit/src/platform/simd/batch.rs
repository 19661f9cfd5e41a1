//! Batch entry points of the codec (what the public `encode_lines` and `parse_lines` of
//! the text module run): dispatch once a call to the level's batch kernels (in
//! `x86::batch`), whose loops have the per-UUID kernels inlined; elsewhere the scalar
//! reference, one UUID at a time.

use crate::codec::form::{Case, Format, LineEnd};
use crate::codec::scalar;
use crate::uuid::Uuid;

use super::fallback::encode_scalar;
use super::level::Level;
#[cfg(target_arch = "x86_64")]
use super::x86;

/// Writes `uuids` as lines into the front of `out`: as many whole lines as fit; returns
/// how many UUIDs were written (each line is `format.len() + end.len()` bytes).
pub(crate) fn encode_lines(
    uuids: &[Uuid],
    format: Format,
    case: Case,
    end: LineEnd,
    out: &mut [u8],
) -> usize {
    let line = format.len() + end.len();
    let n = uuids.len().min(out.len() / line);
    let (uuids, out) = (&uuids[..n], &mut out[..n * line]);
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `level()` only answers levels the CPU supports.
    unsafe {
        encode_lines_at(super::level::level(), uuids, format, case, end, out)
    };
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    encode_lines_scalar(uuids, format, case, end, out);
    n
}

/// Parses lines of `text` into `out`; returns the UUIDs parsed and the bytes taken. Stops
/// before the first line that is not a UUID, before a last line without its `\n`, or
/// when `out` is full.
pub(crate) fn parse_lines(text: &[u8], out: &mut [Uuid]) -> (usize, usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: `level()` only answers levels the CPU supports.
        unsafe { parse_lines_at(super::level::level(), text, out) }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    parse_lines_scalar(text, out)
}

/// What [`parse_lines`] would take of `text` into an `out` of `max` UUIDs (the lines and
/// their bytes), without decoding them: for a caller that only counts valid lines.
pub(crate) fn check_lines(text: &[u8], max: usize) -> (usize, usize) {
    // Zero-sized slots: the parse stores nothing in them, and a slice of any length of
    // them takes no memory.
    let mut slots = [(); usize::MAX];
    let out = &mut slots[..max];
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: `level()` only answers levels the CPU supports.
        unsafe { check_lines_at(super::level::level(), text, out) }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    lines_scalar(text, out, |_| ())
}

/// One level's encoder of `FORM` (a function of `x86::batch::LEVEL`) for `case` and `end`:
/// the line length is a constant of each instance.
#[cfg(target_arch = "x86_64")]
macro_rules! lines_of_form {
    ($level:ident :: $f:ident, $text:literal, $uuids:expr, $out:expr, $case:expr, $end:expr) => {{
        let bytes = $end.bytes();
        match ($case, $end) {
            (Case::Lower, LineEnd::Lf) => {
                x86::batch::$level::$f::<false, { $text + 1 }>($uuids, $out, &bytes)
            }
            (Case::Lower, LineEnd::CrLf) => {
                x86::batch::$level::$f::<false, { $text + 2 }>($uuids, $out, &bytes)
            }
            (Case::Upper, LineEnd::Lf) => {
                x86::batch::$level::$f::<true, { $text + 1 }>($uuids, $out, &bytes)
            }
            (Case::Upper, LineEnd::CrLf) => {
                x86::batch::$level::$f::<true, { $text + 2 }>($uuids, $out, &bytes)
            }
        }
    }};
}

/// One level's encoder for `format`, `case` and `end`.
#[cfg(target_arch = "x86_64")]
macro_rules! lines_of_level {
    ($level:ident, $uuids:expr, $out:expr, $format:expr, $case:expr, $end:expr) => {
        match $format {
            Format::Hyphenated => {
                lines_of_form!($level::hyphenated_lines, 36, $uuids, $out, $case, $end)
            }
            Format::Simple => lines_of_form!($level::simple_lines, 32, $uuids, $out, $case, $end),
            Format::Braced => lines_of_form!($level::braced_lines, 38, $uuids, $out, $case, $end),
            Format::Urn => lines_of_form!($level::urn_lines, 45, $uuids, $out, $case, $end),
        }
    };
}

/// [`encode_lines`] at `level`; `out` is exactly the lines' length.
///
/// # Safety
/// The CPU supports `level`.
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
unsafe fn encode_lines_at(
    level: Level,
    uuids: &[Uuid],
    format: Format,
    case: Case,
    end: LineEnd,
    out: &mut [u8],
) {
    debug_assert_eq!(out.len(), uuids.len() * (format.len() + end.len()));
    // SAFETY (each arm): the caller guarantees the CPU supports `level`.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        match level {
            Level::Avx2 => lines_of_level!(avx2, uuids, out, format, case, end),
            Level::Ssse3 => lines_of_level!(ssse3, uuids, out, format, case, end),
            Level::Sse2 => lines_of_level!(sse2, uuids, out, format, case, end),
            Level::Scalar => encode_lines_scalar(uuids, format, case, end, out),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = level;
        encode_lines_scalar(uuids, format, case, end, out)
    }
}

/// The scalar reference of [`encode_lines`].
fn encode_lines_scalar(uuids: &[Uuid], format: Format, case: Case, end: LineEnd, out: &mut [u8]) {
    let len = format.len();
    let line_end = end.bytes();
    let line_end = &line_end[..end.len()];
    for (u, slot) in uuids.iter().zip(out.chunks_exact_mut(len + line_end.len())) {
        let mut buf = [0u8; Format::MAX_LEN];
        encode_scalar(u.as_bytes(), format, case, &mut buf);
        slot[..len].copy_from_slice(&buf[..len]);
        slot[len..].copy_from_slice(line_end);
    }
}

/// [`parse_lines`] at `level`.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(miri, allow(dead_code))]
unsafe fn parse_lines_at(level: Level, text: &[u8], out: &mut [Uuid]) -> (usize, usize) {
    // SAFETY (each arm): the caller guarantees the CPU supports `level`.
    unsafe {
        match level {
            Level::Avx2 => x86::batch::avx2::parse_lines(text, out),
            Level::Ssse3 => x86::batch::ssse3::parse_lines(text, out),
            Level::Sse2 => x86::batch::sse2::parse_lines(text, out),
            Level::Scalar => parse_lines_scalar(text, out),
        }
    }
}

/// [`check_lines`] at `level`.
///
/// # Safety
/// The CPU supports `level`.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(miri, allow(dead_code))]
unsafe fn check_lines_at(level: Level, text: &[u8], out: &mut [()]) -> (usize, usize) {
    // SAFETY (each arm): the caller guarantees the CPU supports `level`.
    unsafe {
        match level {
            Level::Avx2 => x86::batch::avx2::check_lines(text, out),
            Level::Ssse3 => x86::batch::ssse3::check_lines(text, out),
            Level::Sse2 => x86::batch::sse2::check_lines(text, out),
            Level::Scalar => lines_scalar(text, out, |_| ()),
        }
    }
}

/// The reference of [`parse_lines`].
fn parse_lines_scalar(text: &[u8], out: &mut [Uuid]) -> (usize, usize) {
    lines_scalar(text, out, |u| u)
}

/// The reference of [`parse_lines`] and [`check_lines`]: each line found with a plain
/// search, its line end removed, and parsed with [`scalar::parse_scalar`]; `take` gives
/// what a valid line leaves in `out`.
fn lines_scalar<T>(text: &[u8], out: &mut [T], take: impl Fn(Uuid) -> T) -> (usize, usize) {
    let mut pos = 0;
    let mut done = 0;
    for slot in out.iter_mut() {
        let rest = &text[pos..];
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            break;
        };
        let line = match &rest[..end] {
            [line @ .., b'\r'] => line,
            line => line,
        };
        match scalar::parse_scalar(line) {
            Ok(u) => {
                *slot = take(u);
                pos += end + 1;
                done += 1;
            }
            Err(_) => break,
        }
    }
    (done, pos)
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

    impl Level {
        /// [`encode_lines`] at this level; `None` when this CPU cannot run it.
        fn encode_lines(
            self,
            uuids: &[Uuid],
            format: Format,
            case: Case,
            end: LineEnd,
        ) -> Option<Vec<u8>> {
            if !self.supported() {
                return None;
            }
            let mut out = vec![0u8; uuids.len() * (format.len() + end.len())];
            // SAFETY: checked just above that the CPU supports `self`.
            unsafe { encode_lines_at(self, uuids, format, case, end, &mut out) };
            Some(out)
        }

        /// [`parse_lines`] at this level; `None` when this CPU cannot run it.
        fn parse_lines(self, text: &[u8], out: &mut [Uuid]) -> Option<(usize, usize)> {
            if !self.supported() {
                return None;
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: checked just above that the CPU supports `self`.
            return Some(unsafe { parse_lines_at(self, text, out) });
            #[cfg(not(target_arch = "x86_64"))]
            return Some(parse_lines_scalar(text, out));
        }

        /// [`check_lines`] at this level with room for `max`; `None` when this CPU cannot
        /// run it.
        fn check_lines(self, text: &[u8], max: usize) -> Option<(usize, usize)> {
            if !self.supported() {
                return None;
            }
            let mut slots = [(); usize::MAX];
            let out = &mut slots[..max];
            #[cfg(target_arch = "x86_64")]
            // SAFETY: checked just above that the CPU supports `self`.
            return Some(unsafe { check_lines_at(self, text, out) });
            #[cfg(not(target_arch = "x86_64"))]
            return Some(lines_scalar(text, out, |_| ()));
        }
    }

    /// The lines as the one-UUID encoder writes them.
    fn expected_lines(uuids: &[Uuid], format: Format, case: Case, end: LineEnd) -> Vec<u8> {
        let mut text = Vec::new();
        for u in uuids {
            text.extend_from_slice(u.format(format, case).to_string().as_bytes());
            text.extend_from_slice(&end.bytes()[..end.len()]);
        }
        text
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 4 } else { 256 },
            failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
            ..ProptestConfig::default()
        })]

        #[test]
        fn every_level_writes_what_the_one_uuid_encoder_writes(
            raw in proptest::collection::vec(any::<[u8; 16]>(), 0..40),
            form in 0usize..4, upper in any::<bool>(), crlf in any::<bool>(),
        ) {
            let uuids: Vec<Uuid> = raw.into_iter().map(Uuid::from_bytes).collect();
            let case = if upper { Case::Upper } else { Case::Lower };
            let end = if crlf { LineEnd::CrLf } else { LineEnd::Lf };
            let expected = expected_lines(&uuids, FORMS[form], case, end);
            for level in Level::ALL {
                if let Some(got) = level.encode_lines(&uuids, FORMS[form], case, end) {
                    prop_assert_eq!(&got, &expected, "{:?}", level);
                }
            }
        }

        /// Lines of valid UUIDs in any form and line end, with one line changed at one
        /// byte (or not): every level takes exactly the lines before the first one the
        /// scalar parser rejects.
        #[test]
        fn every_level_stops_where_the_scalar_parser_does(
            raw in proptest::collection::vec((any::<[u8; 16]>(), 0usize..4, any::<bool>(), any::<bool>()), 1..20),
            bad_line in any::<proptest::sample::Index>(), at in 0usize..48, bad in any::<u8>(),
            corrupt in any::<bool>(), room in 0usize..24, cut in 0usize..48,
            common in any::<bool>(), short in proptest::option::of(0usize..8),
        ) {
            // `common`: every line hyphenated with `\n`, the shape the kernels take four
            // lines at a time.
            let mut lines: Vec<Vec<u8>> = raw.iter().map(|(b, f, upper, crlf)| {
                let case = if *upper { Case::Upper } else { Case::Lower };
                let form = if common { Format::Hyphenated } else { FORMS[*f] };
                let mut l = Uuid::from_bytes(*b).format(form, case).to_string().into_bytes();
                l.extend_from_slice(if *crlf && !common { b"\r\n" } else { b"\n" });
                l
            }).collect();
            if corrupt {
                let l = &mut lines[bad_line.index(raw.len())];
                let i = at % l.len();
                l[i] = bad;
            }
            // A short line, so that a line end falls where a 36-byte line's would be
            // after the line before (a simple or braced one).
            if let Some(k) = short {
                lines[bad_line.index(raw.len())] = [&b"1234567"[..k], b"\n"].concat();
            }
            let mut text: Vec<u8> = lines.concat();
            text.truncate(text.len() - cut.min(text.len()));
            // The reference: each complete line through the one-UUID scalar parser.
            let mut expected = Vec::new();
            let mut taken = 0;
            for line in text.split_inclusive(|&b| b == b'\n') {
                if expected.len() == room || line.last() != Some(&b'\n') {
                    break;
                }
                let body = &line[..line.len() - 1];
                let body = body.strip_suffix(b"\r").unwrap_or(body);
                match scalar::parse_scalar(body) {
                    Ok(u) => { expected.push(u); taken += line.len(); }
                    Err(_) => break,
                }
            }
            for level in Level::ALL {
                let mut out = vec![Uuid::NIL; room];
                if let Some((n, bytes)) = level.parse_lines(&text, &mut out) {
                    prop_assert_eq!((n, bytes), (expected.len(), taken), "{:?}", level);
                    prop_assert_eq!(&out[..n], &expected[..], "{:?}", level);
                }
                // Checking alone takes the same lines as parsing.
                if let Some(got) = level.check_lines(&text, room) {
                    prop_assert_eq!(got, (expected.len(), taken), "check {:?}", level);
                }
            }
            // With room for all, the public call takes every line the reference does up
            // to the first it rejects.
            let all = crate::text::check_lines(&text, usize::MAX);
            let mut out = vec![Uuid::NIL; text.len() / 33 + 1];
            prop_assert_eq!(all, crate::text::parse_lines(&text, &mut out));
            prop_assert!(all.uuids >= expected.len());
        }
    }

    /// A line end where a 36-byte line's would be, after a shorter line that is a UUID:
    /// that line is taken, and the parse stops at the next one.
    #[test]
    fn a_line_end_at_byte_36_after_a_shorter_uuid_line_does_not_stop_the_parse() {
        let simple = "F".repeat(32);
        for (text, want) in [
            (format!("{simple}\n134\n"), (1, 33)),
            (format!("{simple}\n123\r\n"), (1, 33)),
            (format!("{simple}\r\n13\n"), (1, 34)),
            (format!("{simple}\n{simple}\n12345"), (2, 66)),
            (
                format!("{simple}\n134\n{simple}\n{simple}\n{simple}\n"),
                (1, 33),
            ),
        ] {
            for level in Level::ALL {
                let mut out = [Uuid::NIL; 8];
                if let Some(got) = level.parse_lines(text.as_bytes(), &mut out) {
                    assert_eq!(got, want, "{level:?} {text:?}");
                    assert_eq!(out[0], Uuid::MAX, "{level:?} {text:?}");
                }
                if let Some(got) = level.check_lines(text.as_bytes(), 8) {
                    assert_eq!(got, want, "check {level:?} {text:?}");
                }
            }
        }
    }

    #[test]
    fn lines_that_only_look_like_uuids_stop_the_parse() {
        let u = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
        for text in [
            format!("{u}\r\r\n"),
            format!("{u} \n"),
            format!("\n{u}\n"),
            u.to_string(),
            format!("{u}\r"),
            format!("{{{u}}}}}\n"),
            format!("{}\n", "f".repeat(47)),
            format!("{}\n", &u[..35]),
        ] {
            for level in Level::ALL {
                let mut out = [Uuid::NIL; 4];
                if let Some(got) = level.parse_lines(text.as_bytes(), &mut out) {
                    assert_eq!(got, (0, 0), "{level:?} {text:?}");
                }
                if let Some(got) = level.check_lines(text.as_bytes(), 4) {
                    assert_eq!(got, (0, 0), "check {level:?} {text:?}");
                }
            }
        }
    }
}
