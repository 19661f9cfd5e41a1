//! Conversions to and from other crates, each behind a feature of the same name.
//!
//! - `serde`: a [`Uuid`] serializes as its hyphenated text in human-readable formats
//!   (JSON, TOML) and as 16 bytes in binary ones; it deserializes from any text form
//!   [`Uuid::parse_str`] accepts, or from 16 bytes.
//! - `uuid`: lossless `From` conversions to and from `uuid::Uuid`, so code can move
//!   between the two crates value by value.

#[cfg(feature = "uuid")]
mod uuid_crate_conversions {
    use crate::uuid::Uuid;

    impl From<::uuid::Uuid> for Uuid {
        fn from(u: ::uuid::Uuid) -> Uuid {
            Uuid::from_bytes(u.into_bytes())
        }
    }

    impl From<Uuid> for ::uuid::Uuid {
        fn from(u: Uuid) -> ::uuid::Uuid {
            ::uuid::Uuid::from_bytes(u.into_bytes())
        }
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use alloc::format;
    use core::fmt;

    use ::serde::de::{self, Visitor};
    use ::serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::text::{Case, Format};
    use crate::uuid::Uuid;

    impl Serialize for Uuid {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if s.is_human_readable() {
                s.serialize_str(&self.format(Format::Hyphenated, Case::Lower))
            } else {
                s.serialize_bytes(self.as_bytes())
            }
        }
    }

    struct UuidVisitor;

    impl Visitor<'_> for UuidVisitor {
        type Value = Uuid;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a UUID as text or as 16 bytes")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Uuid, E> {
            Uuid::parse_str(v).map_err(|e| E::custom(format!("invalid UUID {v:?}: {e}")))
        }

        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Uuid, E> {
            <[u8; 16]>::try_from(v)
                .map(Uuid::from_bytes)
                .map_err(|_| E::invalid_length(v.len(), &"16 bytes"))
        }
    }

    impl<'de> Deserialize<'de> for Uuid {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
            if d.is_human_readable() {
                d.deserialize_str(UuidVisitor)
            } else {
                d.deserialize_bytes(UuidVisitor)
            }
        }
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use crate::uuid::Uuid;

    #[test]
    fn json_is_hyphenated_text() {
        let u = crate::uuid!("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
        let j = serde_json::to_string(&u).unwrap();
        assert_eq!(j, "\"017f22e2-79b0-7cc3-98c4-dc0c0c07398f\"");
        assert_eq!(serde_json::from_str::<Uuid>(&j).unwrap(), u);
        let urn = "\"urn:uuid:017F22E2-79B0-7CC3-98C4-DC0C0C07398F\"";
        assert_eq!(serde_json::from_str::<Uuid>(urn).unwrap(), u);
        let e = serde_json::from_str::<Uuid>("\"017f22e2\"").unwrap_err();
        assert!(e.to_string().contains("at byte 8"), "{e}");
    }
}

#[cfg(all(test, feature = "uuid"))]
mod uuid_tests {
    #[test]
    fn converts_losslessly() {
        let ours = crate::generator::process::v7();
        let theirs: ::uuid::Uuid = ours.into();
        assert_eq!(theirs.to_string(), ours.to_string());
        assert_eq!(crate::uuid::Uuid::from(theirs), ours);
    }
}
