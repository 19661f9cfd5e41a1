//! serde modules that choose a field's form, for `#[serde(with = "…")]` (feature `serde`).
//!
//! A [`Uuid`] field serializes as hyphenated text in human-readable formats and as 16
//! bytes in binary ones. These modules pick another form for one field:
//!
//! | module | serializes as | deserializes from |
//! |---|---|---|
//! | [`simple`], [`braced`], [`urn`] | that hex form | any hex form (as [`Uuid::parse_str`]) |
//! | [`base32`], [`base58`], [`base62`], [`base64url`] | that compact text ([`crate::encoding`]) | exactly that text |
//! | [`compact`] | 16 bytes, in every format (a JSON array of 16 numbers) | 16 bytes, or a sequence of 16 numbers |
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Row {
//!     #[serde(with = "uuidkit::serde::base58")]
//!     id: uuidkit::Uuid,
//!     #[serde(with = "uuidkit::serde::simple")]
//!     parent: uuidkit::Uuid,
//! }
//! let row = Row { id: uuidkit::Uuid::MAX, parent: uuidkit::Uuid::NIL };
//! let json = serde_json::to_string(&row)?;
//! assert_eq!(json, r#"{"id":"YcVfxkQb6JRzqk5kF2tNLv","parent":"00000000000000000000000000000000"}"#);
//! assert_eq!(serde_json::from_str::<Row>(&json)?, row);
//! # Ok::<(), serde_json::Error>(())
//! ```

use alloc::format;
use core::fmt;

use ::serde::de::{self, SeqAccess, Visitor};
use ::serde::{Deserializer, Serializer};

use crate::encoding::Encoding;
use crate::text::{Case, Format};
use crate::uuid::Uuid;

fn hex_form<S: Serializer>(u: &Uuid, format: Format, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&u.format(format, Case::Lower))
}

fn encoded<S: Serializer>(u: &Uuid, e: Encoding, s: S) -> Result<S::Ok, S::Error> {
    let mut buf = [0u8; Encoding::MAX_LEN];
    s.serialize_str(e.encode(u, &mut buf))
}

/// Reads a string: any hex form (`None`) or exactly the named encoding.
struct TextVisitor(Option<Encoding>);

impl Visitor<'_> for TextVisitor {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("a UUID in a hex form"),
            Some(e) => write!(f, "a UUID in {e}"),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Uuid, E> {
        match self.0 {
            None => Uuid::parse_str(v).map_err(|e| E::custom(format!("invalid UUID {v:?}: {e}"))),
            Some(enc) => enc
                .decode(v.as_bytes())
                .map_err(|e| E::custom(format!("invalid {enc} UUID {v:?}: {e}"))),
        }
    }
}

/// Reads 16 bytes, as bytes or as a sequence of numbers.
struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("16 bytes")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Uuid, E> {
        <[u8; 16]>::try_from(v)
            .map(Uuid::from_bytes)
            .map_err(|_| E::invalid_length(v.len(), &self))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Uuid, A::Error> {
        let mut b = [0u8; 16];
        for (i, slot) in b.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<u8>()?.is_some() {
            return Err(de::Error::invalid_length(17, &self));
        }
        Ok(Uuid::from_bytes(b))
    }
}

macro_rules! text_module {
    ($name:ident, $doc:literal, $ser:expr, $enc:expr, $example:literal) => {
        #[doc = $doc]
        ///
        /// ```
        /// #[derive(serde::Serialize, serde::Deserialize)]
        /// struct Row {
        #[doc = concat!("    #[serde(with = \"uuidkit::serde::", stringify!($name), "\")]")]
        ///     id: uuidkit::Uuid,
        /// }
        /// let json = serde_json::to_string(&Row { id: uuidkit::Uuid::MAX })?;
        #[doc = concat!("assert_eq!(json, r#\"{\"id\":\"", $example, "\"}\"#);")]
        /// assert_eq!(serde_json::from_str::<Row>(&json)?.id, uuidkit::Uuid::MAX);
        /// # Ok::<(), serde_json::Error>(())
        /// ```
        pub mod $name {
            // Everything of this file: the closures given to the macro name its helpers.
            use crate::serde::*;

            /// Serializes `u` in this module's form.
            ///
            /// # Errors
            ///
            /// The serializer's own error; writing the text cannot fail otherwise.
            pub fn serialize<S: Serializer>(u: &Uuid, s: S) -> Result<S::Ok, S::Error> {
                $ser(u, s)
            }

            /// Deserializes a UUID from this module's form (see the [table](super)).
            ///
            /// # Errors
            ///
            /// The deserializer's error, with the [`ParseError`](crate::ParseError)'s message, when
            /// the value is not a string of this module's form.
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
                d.deserialize_str(TextVisitor($enc))
            }
        }
    };
}

text_module!(
    simple,
    "32 hex digits.",
    |u, s| hex_form(u, Format::Simple, s),
    None,
    "ffffffffffffffffffffffffffffffff"
);
text_module!(
    braced,
    "The hyphenated form in braces.",
    |u, s| hex_form(u, Format::Braced, s),
    None,
    "{ffffffff-ffff-ffff-ffff-ffffffffffff}"
);
text_module!(
    urn,
    "The `urn:uuid:` form.",
    |u, s| hex_form(u, Format::Urn, s),
    None,
    "urn:uuid:ffffffff-ffff-ffff-ffff-ffffffffffff"
);
text_module!(
    base32,
    "Crockford base32 (the ULID form).",
    |u, s| encoded(u, Encoding::Base32, s),
    Some(Encoding::Base32),
    "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
);
text_module!(
    base58,
    "Bitcoin base58.",
    |u, s| encoded(u, Encoding::Base58, s),
    Some(Encoding::Base58),
    "YcVfxkQb6JRzqk5kF2tNLv"
);
text_module!(
    base62,
    "base62.",
    |u, s| encoded(u, Encoding::Base62, s),
    Some(Encoding::Base62),
    "7n42DGM5Tflk9n8mt7Fhc7"
);
text_module!(
    base64url,
    "base64url without padding.",
    |u, s| encoded(u, Encoding::Base64Url, s),
    Some(Encoding::Base64Url),
    "_____________________w"
);

/// 16 bytes in every format, human-readable ones included.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Row {
///     #[serde(with = "uuidkit::serde::compact")]
///     id: uuidkit::Uuid,
/// }
/// let json = serde_json::to_string(&Row { id: uuidkit::Uuid::from_u128(1) })?;
/// assert_eq!(json, r#"{"id":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]}"#);
/// assert_eq!(serde_json::from_str::<Row>(&json)?.id, uuidkit::Uuid::from_u128(1));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod compact {
    use super::*;

    /// Serializes `u` as 16 bytes.
    ///
    /// # Errors
    ///
    /// The serializer's own error; writing the bytes cannot fail otherwise.
    pub fn serialize<S: Serializer>(u: &Uuid, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(u.as_bytes())
    }

    /// Deserializes 16 bytes, or a sequence of 16 numbers (what JSON holds).
    ///
    /// # Errors
    ///
    /// The deserializer's error when the value is neither 16 bytes nor a sequence of 16
    /// numbers.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
        d.deserialize_bytes(BytesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use crate::uuid::Uuid;

    #[derive(::serde::Serialize, ::serde::Deserialize, Debug, PartialEq)]
    struct Forms {
        #[serde(with = "super::simple")]
        simple: Uuid,
        #[serde(with = "super::braced")]
        braced: Uuid,
        #[serde(with = "super::urn")]
        urn: Uuid,
        #[serde(with = "super::base32")]
        base32: Uuid,
        #[serde(with = "super::base58")]
        base58: Uuid,
        #[serde(with = "super::base62")]
        base62: Uuid,
        #[serde(with = "super::base64url")]
        base64url: Uuid,
        #[serde(with = "super::compact")]
        compact: Uuid,
    }

    #[test]
    fn every_form_round_trips_through_json() {
        for _ in 0..200 {
            let u = crate::generator::process::v4();
            let f = Forms {
                simple: u,
                braced: u,
                urn: u,
                base32: u,
                base58: u,
                base62: u,
                base64url: u,
                compact: u,
            };
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(serde_json::from_str::<Forms>(&json).unwrap(), f);
        }
    }

    #[test]
    fn wrong_text_is_an_error_naming_the_byte() {
        #[derive(::serde::Deserialize, Debug)]
        struct R {
            #[serde(with = "super::base58")]
            #[allow(dead_code)]
            id: Uuid,
        }
        let e = serde_json::from_str::<R>(r#"{"id":"0000000000000000000000"}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("at byte 0: expected a base58 digit, found '0'"),
            "{e}"
        );
        #[derive(::serde::Deserialize, Debug)]
        struct C {
            #[serde(with = "super::compact")]
            #[allow(dead_code)]
            id: Uuid,
        }
        let e = serde_json::from_str::<C>(r#"{"id":[1,2,3]}"#).unwrap_err();
        assert!(e.to_string().contains("invalid length 3"), "{e}");
        assert!(serde_json::from_str::<C>(&format!("{{\"id\":{:?}}}", [0u8; 17])).is_err());
    }
}
