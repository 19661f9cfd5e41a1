//! The entry points against the scalar reference: every form written and read back, the
//! errors' positions and messages.

use super::*;
use crate::codec::scalar::HEX_VALUE;
use crate::error::Expected;
use proptest::prelude::*;

const FORMS: [Format; 4] = [
    Format::Hyphenated,
    Format::Simple,
    Format::Braced,
    Format::Urn,
];

fn text(u: Uuid, f: Format, c: Case) -> String {
    u.format(f, c).to_string()
}

#[test]
fn formats_every_form() {
    let u = Uuid::from_u128(0xf81d4fae_7dec_11d0_a765_00a0c91e6bf6);
    assert_eq!(
        text(u, Format::Hyphenated, Case::Lower),
        "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
    );
    assert_eq!(
        text(u, Format::Simple, Case::Upper),
        "F81D4FAE7DEC11D0A76500A0C91E6BF6"
    );
    assert_eq!(
        text(u, Format::Braced, Case::Lower),
        "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}"
    );
    assert_eq!(
        text(u, Format::Urn, Case::Lower),
        "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
    );
    assert_eq!(
        &*u.format(Format::Hyphenated, Case::Upper),
        "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"
    );
    assert_eq!(format!("{u:?}"), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    assert_eq!(format!("{u:>38}"), format!("  {u}"));
}

#[test]
fn accepts_urn_prefix_in_any_case() {
    for p in ["urn:uuid:", "URN:UUID:", "Urn:Uuid:", "uRn:uUiD:"] {
        let s = format!("{p}f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
        assert!(Uuid::parse_str(&s).is_ok(), "{s}");
    }
}

fn expect_err(s: &str, index: usize, expected: Expected) {
    let e = Uuid::parse_str(s).expect_err(s);
    assert_eq!((e.index(), e.expected()), (index, expected), "{s:?}: {e}");
    assert_eq!(parse_scalar(s.as_bytes()), Err(e), "{s:?}");
}

#[test]
fn rejects_malformed_with_position() {
    use Expected::*;
    let h = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
    expect_err("", 0, HexDigit);
    expect_err(" f81d4fae-7dec-11d0-a765-00a0c91e6bf6", 0, HexDigit);
    expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf6 ", 36, End);
    expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n", 36, End);
    expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf", 35, HexDigit);
    expect_err("f81d4fae_7dec-11d0-a765-00a0c91e6bf6", 8, Hyphen);
    expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bg6", 34, HexDigit);
    expect_err("0xf81d4fae7dec11d0a76500a0c91e6bf6", 1, HexDigit);
    expect_err("+f81d4fae7dec11d0a76500a0c91e6bf6", 0, HexDigit);
    expect_err("-f81d4fae7dec11d0a76500a0c91e6bf", 0, HexDigit);
    expect_err("f81d4fae7dec11d0a76500a0c91e6bf", 31, HexDigit);
    expect_err("f81d4fae7dec11d0a76500a0c91e6bf6a", 32, End);
    expect_err("{f81d4fae7dec11d0a76500a0c91e6bf6}", 9, Hyphen);
    expect_err(&format!("{{{h}"), 37, ClosingBrace);
    expect_err(&format!("{{{h}}}}}"), 38, End);
    expect_err(&format!("{{{h})"), 37, ClosingBrace);
    expect_err(&format!("urn:uuid:{{{h}}}"), 9, HexDigit);
    expect_err(&format!("urn:uid:{h}"), 5, UrnPrefix);
    expect_err("urn:uuid:", 9, HexDigit);
    expect_err("u", 1, UrnPrefix);
    expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf\u{e9}", 35, HexDigit);
    expect_err("f81d4fae-7dec-11d0-a765-00a0c91e6bf\u{ff16}", 35, HexDigit);
    expect_err("f81d4fae-7dec-11d0-a765-00a0c91e_bf6", 32, HexDigit);
    expect_err("f81d4fae-7dec-11d0-a76500a0c91e6bf6", 23, Hyphen);
    expect_err("f81d-4fae-7dec-11d0-a765-00a0c91e6bf6", 4, HexDigit);
    expect_err("{}", 1, HexDigit);
}

#[test]
fn error_messages_name_what_was_found() {
    let e = Uuid::parse_str("f81d4fae-7dec-11d0-a765-00a0c91e6bf\u{e9}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "at byte 35: expected a hex digit (0-9, a-f, A-F), found the non-ASCII byte 0xc3"
    );
    let e = Uuid::parse_str("f81d4fae 7dec-11d0-a765-00a0c91e6bf6").unwrap_err();
    assert_eq!(
        e.to_string(),
        "at byte 8: expected a hyphen '-', found a space"
    );
}

proptest! {
    // Under Miri: a few cases, and no failure file (Miri forbids the file system).
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 256 },
        failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
        ..ProptestConfig::default()
    })]

    #[test]
    fn parse_inverts_format(bytes in any::<[u8; 16]>(), upper in any::<bool>()) {
        let u = Uuid::from_bytes(bytes);
        let case = if upper { Case::Upper } else { Case::Lower };
        for f in FORMS {
            let s = text(u, f, case);
            prop_assert_eq!(s.len(), f.len());
            prop_assert_eq!(Uuid::parse_str(&s), Ok(u));
            prop_assert_eq!(parse_scalar(s.as_bytes()), Ok(u));
        }
    }

    #[test]
    fn mixed_case_digits_parse(bytes in any::<[u8; 16]>(), mask in any::<u64>()) {
        let u = Uuid::from_bytes(bytes);
        let s: String = text(u, Format::Hyphenated, Case::Lower)
            .chars()
            .enumerate()
            .map(|(i, c)| if mask >> (i % 64) & 1 == 1 { c.to_ascii_uppercase() } else { c })
            .collect();
        prop_assert_eq!(Uuid::parse_str(&s), Ok(u));
    }

    #[test]
    fn arbitrary_input_never_panics(s in ".{0,50}") {
        let _ = Uuid::parse_str(&s);
    }

    #[test]
    fn one_corrupted_byte_is_found(bytes in any::<[u8; 16]>(), form in 0usize..4,
                                  at in 0usize..45, bad in any::<u8>()) {
        let f = FORMS[form];
        let mut s = text(Uuid::from_bytes(bytes), f, Case::Lower).into_bytes();
        let at = at % s.len();
        let original = s[at];
        s[at] = bad;
        let ok_same_class = (HEX_VALUE[original as usize] != 0xff && HEX_VALUE[bad as usize] != 0xff)
            || original.eq_ignore_ascii_case(&bad);
        let r = Uuid::parse_ascii(&s);
        prop_assert_eq!(&r, &parse_scalar(&s));
        // A new first byte may choose another form ({ or u), whose error can come later.
        let form_changed = at == 0 || (f == Format::Simple && at == 8 && bad == b'-');
        if !ok_same_class && form_changed {
            prop_assert!(r.is_err());
        } else if !ok_same_class {
            let e = r.unwrap_err();
            prop_assert!(e.index() <= at, "{:?} at {}", e, at);
        }
    }
}
