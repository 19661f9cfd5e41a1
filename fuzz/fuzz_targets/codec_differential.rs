//! Differential fuzzing of the text codec: the public entry points (which run the SIMD
//! kernels the CPU has) against the scalar `const fn` reference (`uuidkit::__private`, hidden: not the
//! library's API).
//!
//! Each input is used twice:
//! 1. as raw bytes, parsed by `Uuid::parse_ascii` / `parse_str` and by `parse_scalar`,
//!    which must agree exactly (the same `Ok` value, or the same error: index, expected,
//!    found, length);
//! 2. when it has at least 16 bytes, as a UUID (the first 16 bytes) that every encoder
//!    must write exactly as the scalar encoders do, and whose text, in the form and case
//!    the next byte picks and then edited by the bytes after it, must again parse alike.
//!    This reaches the near-valid texts where a vector kernel could accept too much.
//! 3. as lines (the raw bytes, and the edited text among valid lines, so that it falls in
//!    each place of the batch parser's four-line blocks): `text::parse_lines` and
//!    `text::check_lines` take exactly the lines before the first one `parse_scalar`
//!    rejects, `parse_lines` with the reference's UUIDs.

#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::__private::{encode_hyphenated, encode_simple, parse_scalar};
use uuidkit::text::{check_lines, parse_lines};
use uuidkit::{Case, Format, Uuid};

const FORMS: [Format; 4] = [
    Format::Hyphenated,
    Format::Simple,
    Format::Braced,
    Format::Urn,
];

/// The public parsers agree with the scalar reference on `data`.
fn same_parse(data: &[u8]) {
    let want = parse_scalar(data);
    assert_eq!(
        Uuid::parse_ascii(data),
        want,
        "parse_ascii vs parse_scalar on {:?}",
        data.escape_ascii().to_string()
    );
    if let Ok(s) = core::str::from_utf8(data) {
        assert_eq!(Uuid::parse_str(s), want, "parse_str on {s:?}");
        assert_eq!(s.parse::<Uuid>(), want, "FromStr on {s:?}");
    }
}

/// Every encoder writes what the scalar encoders write.
fn same_encode(bytes: &[u8; 16]) {
    let u = Uuid::from_bytes(*bytes);
    for case in [Case::Lower, Case::Upper] {
        let hyphenated = encode_hyphenated(bytes, case);
        let simple = encode_simple(bytes, case);
        let want = |format: Format| -> Vec<u8> {
            match format {
                Format::Hyphenated => hyphenated.to_vec(),
                Format::Simple => simple.to_vec(),
                Format::Braced => [&b"{"[..], &hyphenated, b"}"].concat(),
                Format::Urn => [&b"urn:uuid:"[..], &hyphenated].concat(),
            }
        };
        for format in FORMS {
            let got = u.format(format, case);
            assert_eq!(
                got.as_bytes(),
                want(format),
                "{format:?} {case:?} of {bytes:02x?}"
            );
            assert_eq!(u.format(format, case).to_string().as_bytes(), want(format));
            // And back.
            assert_eq!(Uuid::parse_str(&got), Ok(u));
        }
    }
    assert_eq!(
        u.to_string().as_bytes(),
        &encode_hyphenated(bytes, Case::Lower)
    );
    assert_eq!(
        u.format(Format::Hyphenated, Case::Upper).as_bytes(),
        &encode_hyphenated(bytes, Case::Upper)
    );
}

/// The batch line parsers agree with the scalar reference, line by line, on `text`.
fn same_lines(text: &[u8]) {
    let mut want = Vec::new();
    let mut bytes = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let Some(body) = line.strip_suffix(b"\n") else {
            break;
        };
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        match parse_scalar(body) {
            Ok(u) => want.push(u),
            Err(_) => break,
        }
        bytes += line.len();
    }
    let mut out = vec![Uuid::NIL; want.len() + 1];
    let parsed = parse_lines(text, &mut out);
    let context = text.escape_ascii().to_string();
    assert_eq!(
        (parsed.uuids, parsed.bytes),
        (want.len(), bytes),
        "parse_lines on {context:?}"
    );
    assert_eq!(&out[..want.len()], &want[..], "parse_lines on {context:?}");
    assert_eq!(
        check_lines(text, usize::MAX),
        parsed,
        "check_lines on {context:?}"
    );
}

/// The text of `u` chosen by `pick`: form (bits 0-1) and case (bits 2-3: lower, upper, or
/// mixed by the UUID's own bits), the URN prefix upper-cased when bit 4 is set.
fn text_of(bytes: &[u8; 16], pick: u8) -> Vec<u8> {
    let u = Uuid::from_bytes(*bytes);
    let form = FORMS[usize::from(pick & 3)];
    let case = if pick & 4 != 0 {
        Case::Upper
    } else {
        Case::Lower
    };
    let mut t = u.format(form, case).to_string().into_bytes();
    if pick & 8 != 0 {
        for (i, c) in t.iter_mut().enumerate() {
            if bytes[i % 16] >> (i % 8) & 1 == 1 {
                c.make_ascii_uppercase();
            }
        }
    }
    if form == Format::Urn && pick & 16 != 0 {
        t[..9].make_ascii_uppercase();
    }
    t
}

fuzz_target!(|data: &[u8]| {
    same_parse(data);
    same_lines(data);

    let Some((bytes, rest)) = data.split_first_chunk::<16>() else {
        return;
    };
    same_encode(bytes);

    let Some((&pick, edits)) = rest.split_first() else {
        return;
    };
    let mut t = text_of(bytes, pick);
    assert_eq!(parse_scalar(&t), Ok(Uuid::from_bytes(*bytes)));
    same_parse(&t);
    // Edits, two bytes each: what to do (low 2 bits) and where (the rest), then a byte.
    for edit in edits.chunks_exact(2) {
        let (op, value) = (edit[0], edit[1]);
        let at = usize::from(op >> 2);
        match op & 3 {
            0 if !t.is_empty() => {
                let at = at % t.len();
                t[at] = value;
            }
            1 if t.len() < 64 => t.insert(at.min(t.len()), value),
            2 if !t.is_empty() => {
                t.remove(at % t.len());
            }
            3 => t.truncate(at),
            _ => {}
        }
        same_parse(&t);
    }
    // The edited text as the line after `pick % 6` valid ones, and before three more.
    let valid = text_of(bytes, pick);
    let mut lines = Vec::new();
    for i in 0..usize::from(pick % 6) + 4 {
        lines.extend_from_slice(if i == usize::from(pick % 6) {
            &t
        } else {
            &valid
        });
        lines.push(b'\n');
    }
    same_lines(&lines);
});
