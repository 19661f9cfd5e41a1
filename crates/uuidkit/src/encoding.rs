//! Compact text encodings of a UUID, for URLs, file names and logs: fixed-length forms
//! that other tools agree on.
//!
//! | [`Encoding`] | alphabet | length | what is encoded |
//! |---|---|---|---|
//! | [`Base32`](Encoding::Base32) | Crockford: `0-9A-Z` without `I L O U` | 26 | the 128-bit value, big-endian, left-padded with zero bits to 130: ULID's text form, so a v7 reads as a sortable ULID |
//! | [`Base58`](Encoding::Base58) | Bitcoin's: `1-9A-Za-z` without `0 O I l` | 22 | the 128-bit value in base 58, left-padded with `1` (its zero) |
//! | [`Base62`](Encoding::Base62) | `0-9A-Za-z` | 22 | the 128-bit value in base 62, left-padded with `0` |
//! | [`Base64Url`](Encoding::Base64Url) | RFC 4648 §5, no padding | 22 | the 16 bytes |
//!
//! Every form has one text per UUID and one UUID per text: decoding is strict. Only
//! base32 is case-insensitive (Crockford's alphabet has one symbol per letter; it is
//! written in upper case); its other leniencies (`I` and `L` read as `1`, `O` as `0`,
//! hyphens ignored) are not accepted, so that a text decodes here exactly when it
//! decodes everywhere. A value a form cannot hold (a base58 text above 2^128 − 1, a
//! base32 text whose first character is above `7`, base64url trailing bits that are not
//! zero) is an error, never a wrap-around. Errors are [`ParseError`]s naming the byte at
//! fault, as for the hex forms.
//!
//! base58, base62 and base32 are numbers, not byte strings, so they are written here over
//! a `u128`: `bs58` would read leading `1`s as zero *bytes* and could not take the 22
//! characters of a padded small value into 16 bytes, and base32 libraries pad on the
//! right where ULID pads on the left. base64url is the `data-encoding` crate's.
//!
//! ```
//! use uuidkit::{encoding::Encoding, Uuid};
//! let u: Uuid = "01890a5d-ac96-774b-bcce-b302099a8057".parse()?;
//! assert_eq!(Encoding::Base32.encode_to_string(&u), "01H455VB4PEX5VSKNK084SN02Q");
//! assert_eq!(Encoding::Base64Url.encode_to_string(&u), "AYkKXayWd0u8zrMCCZqAVw");
//! assert_eq!(Encoding::Base58.encode_to_string(&u), "1BzmjTFLHWXwiSK4y3H5iW");
//! assert_eq!(Encoding::Base62.decode(b"02tcRIyrxLXTR81B3dqdOx")?, u);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use core::str::FromStr;

use alloc::borrow::ToOwned;
use alloc::string::String;

use crate::error::{Expected, ParseError, RangeRule, Subject, UnknownName};
use crate::uuid::Uuid;

/// A compact text encoding of a UUID; see the [module](self) for each one's rule.
///
/// ```
/// use uuidkit::{encoding::Encoding, Uuid};
/// let e: Encoding = "base62".parse()?;
/// let text = e.encode_to_string(&Uuid::MAX);
/// assert_eq!(text, "7n42DGM5Tflk9n8mt7Fhc7");
/// assert_eq!(e.decode(text.as_bytes())?, Uuid::MAX);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Crockford base32, 26 characters (ULID).
    Base32,
    /// Bitcoin base58, 22 characters.
    Base58,
    /// base62 (`0-9A-Za-z`), 22 characters.
    Base62,
    /// RFC 4648 §5 base64url without padding, 22 characters.
    Base64Url,
}

const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BITCOIN: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Each byte's value in `alphabet`, or 0xff; `fold_case` also maps lower-case letters.
const fn table(alphabet: &[u8], fold_case: bool) -> [u8; 256] {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < alphabet.len() {
        t[alphabet[i] as usize] = i as u8;
        if fold_case && alphabet[i].is_ascii_uppercase() {
            t[alphabet[i].to_ascii_lowercase() as usize] = i as u8;
        }
        i += 1;
    }
    t
}

const CROCKFORD_VALUE: [u8; 256] = table(CROCKFORD, true);
const BITCOIN_VALUE: [u8; 256] = table(BITCOIN, false);
const BASE62_VALUE: [u8; 256] = table(BASE62, false);

impl Encoding {
    /// Every encoding, in the order of the table above.
    pub const ALL: [Encoding; 4] = [
        Encoding::Base32,
        Encoding::Base58,
        Encoding::Base62,
        Encoding::Base64Url,
    ];

    /// Every encoding's [`name`](Self::name), in the order of [`ALL`](Self::ALL).
    ///
    /// ```
    /// assert_eq!(uuidkit::encoding::Encoding::NAMES[3], "base64url");
    /// ```
    pub const NAMES: [&'static str; 4] = {
        let mut names = [""; 4];
        let mut i = 0;
        while i < names.len() {
            names[i] = Encoding::ALL[i].name();
            i += 1;
        }
        names
    };

    /// The longest encoded form, in bytes (base32's 26).
    pub const MAX_LEN: usize = 26;

    /// The name used on the command line and in [`FromStr`]: `base32`, `base58`,
    /// `base62`, `base64url`.
    ///
    /// ```
    /// assert_eq!(uuidkit::encoding::Encoding::Base64Url.name(), "base64url");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::Base32 => "base32",
            Encoding::Base58 => "base58",
            Encoding::Base62 => "base62",
            Encoding::Base64Url => "base64url",
        }
    }

    /// The length of every text of this encoding, in bytes.
    ///
    /// ```
    /// assert_eq!(uuidkit::encoding::Encoding::Base32.len(), 26);
    /// ```
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        match self {
            Encoding::Base32 => 26,
            Encoding::Base58 | Encoding::Base62 | Encoding::Base64Url => 22,
        }
    }

    /// Writes `uuid` into the front of `buf` and returns that part: no allocation.
    ///
    /// ```
    /// use uuidkit::{encoding::Encoding, Uuid};
    /// let mut buf = [0u8; Encoding::MAX_LEN];
    /// assert_eq!(Encoding::Base58.encode(&Uuid::NIL, &mut buf), "1111111111111111111111");
    /// ```
    pub fn encode<'b>(self, uuid: &Uuid, buf: &'b mut [u8; Encoding::MAX_LEN]) -> &'b str {
        let v = uuid.as_u128();
        let n = self.len();
        let out = &mut buf[..n];
        match self {
            Encoding::Base32 => {
                for (i, c) in out.iter_mut().enumerate() {
                    // Character i holds bits 129 − 5i down to 125 − 5i of the padded value.
                    let shift = 125 - 5 * i as u32;
                    *c = CROCKFORD[((v >> shift) & 31) as usize];
                }
            }
            Encoding::Base58 => base_n(v, BITCOIN, out),
            Encoding::Base62 => base_n(v, BASE62, out),
            Encoding::Base64Url => {
                data_encoding::BASE64URL_NOPAD.encode_mut(uuid.as_bytes(), out);
            }
        }
        // Every byte written is from an ASCII alphabet.
        core::str::from_utf8(out).expect("ASCII alphabet")
    }

    /// The encoded form as a `String`.
    ///
    /// ```
    /// use uuidkit::{encoding::Encoding, Uuid};
    /// assert_eq!(Encoding::Base32.encode_to_string(&Uuid::MAX), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    /// ```
    pub fn encode_to_string(self, uuid: &Uuid) -> String {
        let mut buf = [0u8; Encoding::MAX_LEN];
        self.encode(uuid, &mut buf).to_owned()
    }

    /// Decodes `text`, which must be exactly one text of this encoding.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] of [kind](ParseError::kind) [`Encoded`](crate::InputKind::Encoded)
    /// naming the first byte that is not a digit of the alphabet, the digit at which the
    /// value leaves 128 bits, or where the text is shorter or longer than [`len`](Self::len).
    ///
    /// ```
    /// use uuidkit::{encoding::Encoding, Expected};
    /// let err = Encoding::Base58.decode(b"111111111111111111111l").unwrap_err();
    /// assert_eq!((err.index(), err.expected(), err.found()), (21, Expected::Digit, Some(b'l')));
    /// let err = Encoding::Base32.decode(b"8ZZZZZZZZZZZZZZZZZZZZZZZZZ").unwrap_err();
    /// assert_eq!((err.index(), err.expected()), (0, Expected::InRange));
    /// ```
    pub fn decode(self, text: &[u8]) -> Result<Uuid, ParseError> {
        let n = self.len();
        let err = |index: usize, expected: Expected| {
            ParseError::at(self.subject(), text, index, expected)
        };
        let digits = &text[..text.len().min(n)];
        let value = match self {
            Encoding::Base32 => {
                let mut v: u128 = 0;
                for (i, &c) in digits.iter().enumerate() {
                    let d = CROCKFORD_VALUE[c as usize];
                    if d == 0xff {
                        return Err(err(i, Expected::Digit));
                    }
                    // Only 128 of the 130 bits exist: the first digit is at most 7.
                    if i == 0 && d > 7 {
                        return Err(err(0, Expected::InRange));
                    }
                    v = (v << 5) | u128::from(d);
                }
                v
            }
            Encoding::Base58 => {
                decode_base_n(digits, &BITCOIN_VALUE, 58).map_err(|(i, e)| err(i, e))?
            }
            Encoding::Base62 => {
                decode_base_n(digits, &BASE62_VALUE, 62).map_err(|(i, e)| err(i, e))?
            }
            Encoding::Base64Url => {
                // Checked here so that the error names the byte, as the others do.
                for (i, &c) in digits.iter().enumerate() {
                    if !(c.is_ascii_alphanumeric() || c == b'-' || c == b'_') {
                        return Err(err(i, Expected::Digit));
                    }
                }
                if digits.len() == n {
                    let mut bytes = [0u8; 16];
                    data_encoding::BASE64URL_NOPAD
                        .decode_mut(digits, &mut bytes)
                        // The only failure left: the last character's low 4 bits, beyond
                        // the 128 encoded, are not zero.
                        .map_err(|_| err(n - 1, Expected::InRange))?;
                    u128::from_be_bytes(bytes)
                } else {
                    0
                }
            }
        };
        if text.len() < n {
            return Err(err(text.len(), Expected::Digit));
        }
        if text.len() > n {
            return Err(err(n, Expected::End));
        }
        Ok(Uuid::from_u128(value))
    }

    /// What a [`ParseError`] of this encoding tells its message.
    const fn subject(self) -> Subject {
        Subject::Encoded {
            name: self.name(),
            len: self.len(),
            range: match self {
                Encoding::Base32 => RangeRule::FirstDigit3Bits,
                Encoding::Base64Url => RangeRule::Last4BitsZero,
                Encoding::Base58 | Encoding::Base62 => RangeRule::Below2To128,
            },
        }
    }
}

/// Writes `v` in base `alphabet.len()` into all of `out`, most significant digit first.
/// Two divisions of the `u128` by the largest power of the base that fits a `u64`, then
/// `u64` arithmetic: 22 `u128` divisions would cost ten times as much.
fn base_n(v: u128, alphabet: &[u8], out: &mut [u8]) {
    let base = alphabet.len() as u64;
    let chunk = base.pow(10);
    let lo = (v % u128::from(chunk)) as u64;
    let rest = v / u128::from(chunk);
    let mid = (rest % u128::from(chunk)) as u64;
    let hi = (rest / u128::from(chunk)) as u64;
    let n = out.len();
    let mut put = |mut x: u64, from: usize, to: usize| {
        for i in (from..to).rev() {
            out[i] = alphabet[(x % base) as usize];
            x /= base;
        }
    };
    put(lo, n - 10, n);
    put(mid, n - 20, n - 10);
    put(hi, 0, n - 20);
}

/// The value of `digits` in `base`; the index and fault of the first bad digit, or of
/// the digit at which the value passes 2^128 − 1.
fn decode_base_n(digits: &[u8], value: &[u8; 256], base: u128) -> Result<u128, (usize, Expected)> {
    let mut v: u128 = 0;
    for (i, &c) in digits.iter().enumerate() {
        let d = value[c as usize];
        if d == 0xff {
            return Err((i, Expected::Digit));
        }
        v = v
            .checked_mul(base)
            .and_then(|v| v.checked_add(u128::from(d)))
            .ok_or((i, Expected::InRange))?;
    }
    Ok(v)
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = UnknownName;

    /// The encoding of a [`name`](Encoding::name).
    ///
    /// ```
    /// use uuidkit::encoding::Encoding;
    /// assert_eq!("base58".parse::<Encoding>()?, Encoding::Base58);
    /// let err = "base36".parse::<Encoding>().unwrap_err();
    /// assert_eq!(err.to_string(),
    ///     "unknown encoding \"base36\": expected one of base32, base58, base62, base64url");
    /// # Ok::<(), uuidkit::UnknownName>(())
    /// ```
    fn from_str(s: &str) -> Result<Encoding, UnknownName> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| UnknownName::new("encoding", s, &Encoding::NAMES))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn any_uuid() -> impl Strategy<Value = Uuid> {
        any::<u128>().prop_map(Uuid::from_u128)
    }

    proptest! {
        #[test]
        fn every_encoding_round_trips(u in any_uuid()) {
            for e in Encoding::ALL {
                let mut buf = [0u8; Encoding::MAX_LEN];
                let text = e.encode(&u, &mut buf);
                prop_assert_eq!(text.len(), e.len());
                prop_assert_eq!(e.decode(text.as_bytes()), Ok(u));
            }
        }

        #[test]
        fn numeric_encodings_sort_as_the_uuids_do(a in any_uuid(), b in any_uuid()) {
            // base32, base58 and base62 are fixed-length numbers in alphabets listed in
            // ASCII order: byte order of the texts is the order of the values.
            for e in [Encoding::Base32, Encoding::Base58, Encoding::Base62] {
                let (x, y) = (e.encode_to_string(&a), e.encode_to_string(&b));
                prop_assert_eq!(x.cmp(&y), a.cmp(&b));
            }
        }

        #[test]
        fn base32_decodes_in_either_case(u in any_uuid()) {
            let lower = Encoding::Base32.encode_to_string(&u).to_ascii_lowercase();
            prop_assert_eq!(Encoding::Base32.decode(lower.as_bytes()), Ok(u));
        }

        #[test]
        fn no_input_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            for e in Encoding::ALL {
                if let Err(err) = e.decode(&bytes) {
                    prop_assert!(err.index() <= bytes.len());
                    prop_assert_eq!(err.found(), bytes.get(err.index()).copied());
                    let _ = err.to_string();
                }
            }
        }
    }

    #[test]
    fn nil_and_max() {
        let cases = [
            (
                Encoding::Base32,
                "00000000000000000000000000",
                "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
            ),
            (
                Encoding::Base58,
                "1111111111111111111111",
                "YcVfxkQb6JRzqk5kF2tNLv",
            ),
            (
                Encoding::Base62,
                "0000000000000000000000",
                "7n42DGM5Tflk9n8mt7Fhc7",
            ),
            (
                Encoding::Base64Url,
                "AAAAAAAAAAAAAAAAAAAAAA",
                "_____________________w",
            ),
        ];
        for (e, nil, max) in cases {
            assert_eq!(e.encode_to_string(&Uuid::NIL), nil, "{e}");
            assert_eq!(e.encode_to_string(&Uuid::MAX), max, "{e}");
            assert_eq!(e.decode(nil.as_bytes()), Ok(Uuid::NIL));
            assert_eq!(e.decode(max.as_bytes()), Ok(Uuid::MAX));
        }
    }

    #[test]
    fn one_past_the_largest_value_is_out_of_range() {
        // 2^128 in base 58 and 62, 22 digits each: one more than the maximum.
        for (e, text) in [
            (Encoding::Base58, "YcVfxkQb6JRzqk5kF2tNLw"),
            (Encoding::Base62, "7n42DGM5Tflk9n8mt7Fhc8"),
        ] {
            let err = e.decode(text.as_bytes()).unwrap_err();
            assert_eq!(
                (err.index(), err.expected()),
                (21, Expected::InRange),
                "{e}"
            );
        }
        // The largest 22-digit text is far above: the fault is where the value passes.
        let err = Encoding::Base58
            .decode(b"zzzzzzzzzzzzzzzzzzzzzz")
            .unwrap_err();
        assert_eq!((err.index(), err.expected()), (21, Expected::InRange));
        // base64url: the last character carries 4 bits past the 128.
        let err = Encoding::Base64Url
            .decode(b"_____________________x")
            .unwrap_err();
        assert_eq!((err.index(), err.expected()), (21, Expected::InRange));
    }

    #[test]
    fn messages_name_the_byte_and_the_rule() {
        let err = Encoding::Base62
            .decode(b"7n42DGM5Tflk9n8mt7Fhc8")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "at byte 21: expected a base62 digit that keeps the value within 128 bits, \
             found '8' (the value is above 2^128 - 1)"
        );
        let err = Encoding::Base64Url.decode(b"AYkK").unwrap_err();
        assert_eq!(
            err.to_string(),
            "at byte 4: expected a base64url digit, found the end of the input \
             (the input is 4 bytes; base64url is 22)"
        );
        let err = Encoding::Base32
            .decode(b"8ZZZZZZZZZZZZZZZZZZZZZZZZZ")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "at byte 0: expected a base32 digit from 0 to 7 (the first holds 3 bits), found '8'"
        );
        assert_eq!(err.kind(), crate::error::InputKind::Encoded("base32"));
    }

    #[test]
    fn lengths_are_exact() {
        for e in Encoding::ALL {
            let text = e.encode_to_string(&Uuid::MAX);
            let short = e.decode(&text.as_bytes()[..e.len() - 1]).unwrap_err();
            assert_eq!((short.index(), short.found()), (e.len() - 1, None), "{e}");
            let long = format!("{text}0");
            let long = e.decode(long.as_bytes()).unwrap_err();
            assert_eq!(
                (long.index(), long.expected()),
                (e.len(), Expected::End),
                "{e}"
            );
            assert_eq!(e.decode(b"").unwrap_err().index(), 0);
        }
    }

    #[test]
    fn crockford_leniencies_are_not_accepted() {
        for (i, c) in [b'I', b'L', b'O', b'U', b'-', b'i', b'l', b'o', b'u']
            .into_iter()
            .enumerate()
        {
            let mut text = *b"01H455VB4PEX5VSKNK084SN02Q";
            text[5] = c;
            let err = Encoding::Base32.decode(&text).unwrap_err();
            assert_eq!((err.index(), err.found()), (5, Some(c)), "case {i}");
        }
    }

    #[test]
    fn a_v7_reads_as_its_ulid() {
        // The ULID's first 10 characters are the 48-bit millisecond timestamp.
        let f = crate::layout::v7::Fields {
            unix_ts_ms: 1_700_000_000_123,
            rand_a: 0xabc,
            rand_b: 0x1234_5678,
        };
        let u = crate::layout::v7::encode(&f).unwrap();
        let text = Encoding::Base32.encode_to_string(&u);
        let mut ms = 0u64;
        for c in text[..10].bytes() {
            ms = ms * 32 + u64::from(CROCKFORD_VALUE[c as usize]);
        }
        assert_eq!(ms, 1_700_000_000_123);
    }
}
