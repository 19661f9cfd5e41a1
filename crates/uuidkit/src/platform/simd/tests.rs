//! Differential tests: every level this CPU can run (called directly, not only the one the
//! dispatcher picks) against the scalar reference, on valid texts of every form and case,
//! on corrupted, truncated and extended ones, and on random bytes.

use proptest::collection::vec;
use proptest::prelude::*;

use super::level::Level;
use crate::codec::form::{Case, Format};
use crate::codec::scalar::{self, parse_scalar};
use crate::uuid::Uuid;

const FORMS: [Format; 4] = [
    Format::Hyphenated,
    Format::Simple,
    Format::Braced,
    Format::Urn,
];

/// Proptest settings: `cases` natively; under Miri (~1000x slower, and isolated from the
/// file system, where proptest keeps its failure seeds) a handful and no persistence.
fn config(cases: u32) -> ProptestConfig {
    if cfg!(miri) {
        ProptestConfig {
            cases: 4,
            failure_persistence: None,
            ..ProptestConfig::default()
        }
    } else {
        ProptestConfig::with_cases(cases)
    }
}

/// The levels this CPU runs; the scalar one always.
fn levels() -> Vec<Level> {
    Level::ALL.into_iter().filter(|l| l.supported()).collect()
}

fn show(s: &[u8]) -> String {
    s.escape_ascii().to_string()
}

/// `s` parses the same on every level, through the dispatcher, and with the scalar parser.
fn same_parse(s: &[u8]) -> Result<(), TestCaseError> {
    let want = parse_scalar(s);
    for level in Level::ALL {
        if let Some(got) = level.parse(s) {
            prop_assert_eq!(&got, &want, "{:?} on {:?}", level, show(s));
        }
    }
    prop_assert_eq!(super::parse(s), want, "dispatcher on {:?}", show(s));
    Ok(())
}

/// Both encoders give the scalar bytes on every level and through the dispatcher.
fn same_encode(b: &[u8; 16]) -> Result<(), TestCaseError> {
    for case in [Case::Lower, Case::Upper] {
        let hyphenated = scalar::encode_hyphenated(b, case);
        let simple = scalar::encode_simple(b, case);
        for level in Level::ALL {
            if let Some(got) = level.encode_hyphenated(b, case) {
                prop_assert_eq!(show(&got), show(&hyphenated), "{:?} {:?}", level, case);
            }
            if let Some(got) = level.encode_simple(b, case) {
                prop_assert_eq!(show(&got), show(&simple), "{:?} {:?}", level, case);
            }
        }
        prop_assert_eq!(super::encode_hyphenated(b, case), hyphenated);
        prop_assert_eq!(super::encode_simple(b, case), simple);
        // Every form into a buffer, whatever was in it before, against the scalar reference.
        for format in FORMS {
            let want = scalar_text(b, format, case);
            for fill in [0x00, b'x', 0xff] {
                for level in Level::ALL {
                    if let Some((buf, len)) = level.encode(b, format, case, fill) {
                        prop_assert_eq!(len, format.len());
                        prop_assert_eq!(
                            show(&buf[..len]),
                            show(want.as_bytes()),
                            "{:?} {:?} {:?}",
                            level,
                            format,
                            case
                        );
                        prop_assert!(buf[len..].iter().all(|&x| x == fill), "wrote past the text");
                    }
                }
                let mut buf = [fill; Format::MAX_LEN];
                prop_assert_eq!(super::encode_str(b, format, case, &mut buf), want.as_str());
            }
        }
    }
    Ok(())
}

/// Upper-cases the letters of `s` whose bit in `mask` (cycled) is set.
fn mix_case(s: &mut [u8], mask: u64) {
    for (i, c) in s.iter_mut().enumerate() {
        if mask >> (i % 64) & 1 == 1 {
            c.make_ascii_uppercase();
        }
    }
}

/// `bytes` as `form`: hex digits in the case given by `digit_mask`, the URN prefix in the
/// case given by `prefix_mask` (one bit per byte).
fn text_of(bytes: &[u8; 16], form: Format, digit_mask: u64, prefix_mask: u64) -> Vec<u8> {
    let mut hyphenated = scalar::encode_hyphenated(bytes, Case::Lower).to_vec();
    mix_case(&mut hyphenated, digit_mask);
    match form {
        Format::Hyphenated => hyphenated,
        Format::Simple => hyphenated.into_iter().filter(|&c| c != b'-').collect(),
        Format::Braced => [&b"{"[..], &hyphenated, b"}"].concat(),
        Format::Urn => {
            let mut prefix = b"urn:uuid:".to_vec();
            mix_case(&mut prefix, prefix_mask);
            [prefix, hyphenated].concat()
        }
    }
}

/// `bytes` as `format` in `case`, put together from the scalar encoders: what every level
/// and the dispatcher must write.
fn scalar_text(bytes: &[u8; 16], format: Format, case: Case) -> String {
    let hyphenated = scalar::encode_hyphenated(bytes, case);
    let text = match format {
        Format::Hyphenated => hyphenated.to_vec(),
        Format::Simple => scalar::encode_simple(bytes, case).to_vec(),
        Format::Braced => [&b"{"[..], &hyphenated, b"}"].concat(),
        Format::Urn => [&b"urn:uuid:"[..], &hyphenated].concat(),
    };
    // Cannot fail: the scalar encoders write ASCII hex digits and hyphens.
    String::from_utf8(text).unwrap()
}

fn form() -> impl Strategy<Value = Format> {
    prop::sample::select(&FORMS[..])
}

/// Digit case masks: all lower, all upper, or mixed.
fn digit_mask() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()]
}

/// A valid text of any form and case.
fn valid_text() -> impl Strategy<Value = ([u8; 16], Vec<u8>)> {
    (any::<[u8; 16]>(), form(), digit_mask(), any::<u64>())
        .prop_map(|(b, f, m, p)| (b, text_of(&b, f, m, p)))
}

/// Bytes that make near-valid texts likely: hex digits, the punctuation of the forms, the
/// letters of the URN prefix, and neighbours of the hex ranges.
fn near_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => prop::sample::select(&b"0123456789abcdefABCDEF"[..]),
        2 => prop::sample::select(&b"-{}:urnidURNID"[..]),
        1 => prop::sample::select(&b"/:@G`g\x00\x7f\x80\xff \x20-"[..]),
        1 => any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn valid_texts_parse_alike(bytes in any::<[u8; 16]>(), form in form(),
                               mask in digit_mask(), prefix_mask in any::<u64>()) {
        let s = text_of(&bytes, form, mask, prefix_mask);
        prop_assert_eq!(s.len(), form.len());
        prop_assert_eq!(parse_scalar(&s), Ok(Uuid::from_bytes(bytes)));
        same_parse(&s)?;
        // The kernels must take valid text themselves, not leave it to the scalar fallback
        // (which would be correct, only slow, and so invisible to `same_parse`).
        for level in Level::ALL {
            if let Some(fast) = level.fast(&s) {
                prop_assert_eq!(fast, Some(bytes), "{:?} declined {:?}", level, show(&s));
            }
        }
    }

    #[test]
    fn encoders_alike(bytes in any::<[u8; 16]>()) {
        same_encode(&bytes)?;
    }

    #[test]
    fn corrupted_texts_parse_alike((_, mut s) in valid_text(),
                                   edits in vec((any::<prop::sample::Index>(), near_byte()), 1..=3)) {
        for (at, byte) in edits {
            let at = at.index(s.len());
            s[at] = byte;
        }
        same_parse(&s)?;
    }

    #[test]
    fn corrupted_by_any_byte_parse_alike((_, mut s) in valid_text(),
                                         edits in vec((any::<prop::sample::Index>(), any::<u8>()), 1..=3)) {
        for (at, byte) in edits {
            let at = at.index(s.len());
            s[at] = byte;
        }
        same_parse(&s)?;
    }

    #[test]
    fn truncated_texts_parse_alike((_, s) in valid_text(), cut in any::<prop::sample::Index>()) {
        let keep = cut.index(s.len());
        same_parse(&s[..keep])?;
    }

    #[test]
    fn extended_texts_parse_alike((_, s) in valid_text(), extra in vec(near_byte(), 1..=4),
                                  front in any::<bool>()) {
        let s = if front { [extra, s].concat() } else { [s, extra].concat() };
        same_parse(&s)?;
    }

    #[test]
    fn random_bytes_parse_alike(s in vec(any::<u8>(), 30..=46)) {
        same_parse(&s)?;
    }

    #[test]
    fn near_valid_bytes_parse_alike(s in vec(near_byte(), 30..=46)) {
        same_parse(&s)?;
    }

    /// A valid text with its hyphens, braces or prefix punctuation moved or swapped for
    /// digits keeps its length: the kernels must still see the difference.
    #[test]
    fn punctuation_swaps_parse_alike((_, mut s) in valid_text(),
                                     i in any::<prop::sample::Index>(),
                                     j in any::<prop::sample::Index>()) {
        let (i, j) = (i.index(s.len()), j.index(s.len()));
        s.swap(i, j);
        same_parse(&s)?;
    }
}

/// The sample UUID used by the exhaustive tests, in every form and both cases.
fn samples() -> Vec<Vec<u8>> {
    let bytes = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6).into_bytes();
    let mut out = Vec::new();
    for form in FORMS {
        for (mask, prefix) in [(0, 0), (u64::MAX, u64::MAX), (0x5555_5555_5555_5555, 0x1a5)] {
            out.push(text_of(&bytes, form, mask, prefix));
        }
    }
    out
}

/// Every single-byte substitution (all 256 values) at every position of every form.
#[test]
#[cfg_attr(miri, ignore = "about 40 000 parses per level: too slow under Miri")]
fn every_single_byte_substitution_parses_alike() {
    for text in samples() {
        for at in 0..text.len() {
            let mut s = text.clone();
            for byte in 0..=255u8 {
                s[at] = byte;
                same_parse(&s).unwrap();
            }
        }
    }
}

/// Every prefix of every form, and every form with one byte deleted or inserted.
#[test]
#[cfg_attr(miri, ignore = "thousands of parses: too slow under Miri")]
fn every_truncation_deletion_and_insertion_parses_alike() {
    for text in samples() {
        for keep in 0..=text.len() {
            same_parse(&text[..keep]).unwrap();
        }
        for at in 0..text.len() {
            let mut s = text.clone();
            s.remove(at);
            same_parse(&s).unwrap();
        }
        for at in 0..=text.len() {
            for byte in [b'0', b'f', b'F', b'-', b'{', b'}', b'u', b':', b' ', 0xff] {
                let mut s = text.clone();
                s.insert(at, byte);
                same_parse(&s).unwrap();
            }
        }
    }
}

/// Every byte value at every position of the input to the encoders, and the patterns
/// that set each nibble to each value.
#[test]
#[cfg_attr(miri, ignore = "4 096 encodings per level: too slow under Miri")]
fn every_byte_value_encodes_alike() {
    for at in 0..16 {
        for v in 0..=255u8 {
            let mut b = [0x5au8; 16];
            b[at] = v;
            same_encode(&b).unwrap();
        }
    }
    for v in 0..=255u8 {
        same_encode(&[v; 16]).unwrap();
        let ramp: [u8; 16] = core::array::from_fn(|i| v.wrapping_add(17 * i as u8));
        same_encode(&ramp).unwrap();
    }
}

/// Hand-picked inputs at the edges of the hex ranges and of each form, on every level.
#[test]
fn edge_cases_parse_alike() {
    let h = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
    let cases: Vec<Vec<u8>> = [
        "",
        h,
        "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6",
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
        "99999999-9999-9999-9999-999999999999",
        "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa",
        // Bytes just outside the hex ranges: / : @ G ` g.
        "/0000000-0000-0000-0000-000000000000",
        "0000000:-0000-0000-0000-000000000000",
        "@0000000-0000-0000-0000-000000000000",
        "G0000000-0000-0000-0000-000000000000",
        "`0000000-0000-0000-0000-000000000000",
        "g0000000-0000-0000-0000-000000000000",
        "00000000-0000-0000-0000-00000000000g",
        "00000000-0000-0000-0000-00000000000`",
        "00000000-0000-0000-0000-00000000000@",
        "00000000-0000-0000-0000-00000000000:",
        "00000000-0000-0000-0000-00000000000/",
        // Hyphens in the wrong place, or digits where hyphens go.
        "000000000-000-0000-0000-000000000000",
        "00000000-00000000-0000-000000000000",
        "00000000-0000-0000-00000-00000000000",
        "00000000000000000000000000000000000",
        "000000000000000000000000000000000000",
        "------------------------------------",
        "f81d4fae7dec11d0a76500a0c91e6bf6",
        "F81D4FAE7DEC11D0A76500A0C91E6BF6",
        "f81d4fae-dec11d0a76500a0c91e6bf6",
        "f81d4fae7dec11d0a76500a0c91e6bfg",
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6)",
        "(f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
        "{f81d4fae7dec11d0a76500a0c91e6bf6}",
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf}}",
        "}f81d4fae-7dec-11d0-a765-00a0c91e6bf6{",
        "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "URN:UUID:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "urn;uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "urn:uuid;f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "urn:uuidzf81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "urn\x1auuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "ur\u{4e}:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "urm:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "urn:uuid:{f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "urn:uuid:f81d4fae7dec11d0a76500a0c91e6bf60000",
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6000000000",
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6}}",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .chain(
        [
            // The URN prefix with each byte's 0x20 bit flipped (only letters may flip).
            (0..9)
                .map(|i| {
                    let mut s = format!("urn:uuid:{h}").into_bytes();
                    s[i] ^= 0x20;
                    s
                })
                .collect::<Vec<_>>(),
            // High bytes that are hex digits once the top bit is cleared.
            vec![
                h.bytes()
                    .map(|c| if c == b'-' { c } else { c | 0x80 })
                    .collect(),
            ],
        ]
        .into_iter()
        .flatten(),
    )
    .collect();
    for s in cases {
        same_parse(&s).unwrap();
    }
}

/// The dispatcher's level is supported, stable, and the best one (outside Miri).
#[test]
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn dispatcher_picks_the_best_supported_level() {
    let picked = super::level::level();
    assert!(picked.supported());
    assert_eq!(super::level::level(), picked);
    let best = *levels().last().unwrap();
    assert_eq!(picked, best, "levels here: {:?}", levels());
}

/// Which levels ran: visible with `--nocapture`, and a guard that a CPU with AVX2 really
/// runs the AVX2 kernels in these tests.
#[test]
fn reports_levels_tested() {
    let here = levels();
    eprintln!("simd levels tested on this CPU: {here:?}");
    assert!(here.contains(&Level::Scalar));
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        assert!(here.contains(&Level::Sse2));
        #[cfg(feature = "std")]
        assert_eq!(
            here.contains(&Level::Avx2),
            std::is_x86_feature_detected!("avx2")
        );
    }
}
