//! [`Uuid`] in the Rust database drivers, each behind a cargo feature named
//! after the driver's crate, each storing the database's native type where it has one:
//!
//! | feature | driver | PostgreSQL | SQLite |
//! |---|---|---|---|
//! | `postgres-types` | `postgres`, `tokio-postgres` | `uuid` | — |
//! | `sqlx` | `sqlx` | `uuid` | 16-byte `BLOB`; the text forms are read too |
//! | `rusqlite` | `rusqlite` | — | 16-byte `BLOB`; the text forms are read too |
//! | `diesel` | `diesel` | `diesel::sql_types::Uuid` | `diesel::sql_types::Binary` (16 bytes) |
//!
//! SQLite has no UUID type: a `BLOB` of the 16 bytes sorts as the UUIDs do (SQLite
//! compares blobs with `memcmp`) and takes less than half the room of the text. Reading
//! also accepts any text form [`Uuid::parse_str`](crate::Uuid::parse_str) accepts, for
//! columns written by other programs.
//!
//! A value that is not a UUID (a blob of another length, a text that does not parse) is
//! a [`DecodeError`] naming the value, inside the driver's own error type; never a panic.

use core::fmt;

#[cfg(feature = "diesel")]
mod diesel;
#[cfg(feature = "postgres-types")]
mod postgres;
#[cfg(feature = "rusqlite")]
mod rusqlite;
#[cfg(feature = "sqlx")]
mod sqlx;

use crate::error::ParseError;
use crate::uuid::Uuid;

/// A database value that is not a UUID: its bytes (the first 64, for a long one), how
/// long it is, and what was wrong with it.
///
/// ```
/// let err = uuidkit::db::DecodeError::from_column(&[1, 2, 3]).unwrap_err();
/// assert_eq!(err.to_string(),
///     "not a UUID: a 3-byte value 0x010203 (expected 16 bytes, or a UUID as text)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    bytes: Vec<u8>,
    len: usize,
    parse: Option<ParseError>,
}

/// How many bytes of a bad value an error keeps.
const KEPT: usize = 64;

impl DecodeError {
    fn new(value: &[u8], parse: Option<ParseError>) -> DecodeError {
        DecodeError {
            bytes: value[..value.len().min(KEPT)].to_vec(),
            len: value.len(),
            parse,
        }
    }

    /// Reads a column's bytes: 16 bytes are the UUID; anything else is tried as a text
    /// form (as SQLite columns written by other programs hold); what is neither is an
    /// error. What the SQLite drivers do with a `BLOB` or `TEXT` value.
    ///
    /// ```
    /// use uuidkit::{db::DecodeError, Uuid};
    /// assert_eq!(DecodeError::from_column(&[0xff; 16])?, Uuid::MAX);
    /// assert_eq!(DecodeError::from_column(b"ffffffff-ffff-ffff-ffff-ffffffffffff")?, Uuid::MAX);
    /// # Ok::<(), DecodeError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when the value is neither 16 bytes nor a UUID's text.
    pub fn from_column(value: &[u8]) -> Result<Uuid, DecodeError> {
        if let Ok(b) = <[u8; 16]>::try_from(value) {
            return Ok(Uuid::from_bytes(b));
        }
        Self::from_text(value)
    }

    /// Reads a value that must be exactly 16 bytes (PostgreSQL's binary `uuid`).
    ///
    /// ```
    /// let err = uuidkit::db::DecodeError::from_binary(&[0; 15]).unwrap_err();
    /// assert_eq!(err.len(), 15);
    /// ```
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when the value is not exactly 16 bytes.
    pub fn from_binary(value: &[u8]) -> Result<Uuid, DecodeError> {
        <[u8; 16]>::try_from(value)
            .map(Uuid::from_bytes)
            .map_err(|_| DecodeError::new(value, None))
    }

    /// Reads a value that must be a UUID's text (PostgreSQL's text format).
    ///
    /// ```
    /// let err = uuidkit::db::DecodeError::from_text(b"not-a-uuid").unwrap_err();
    /// assert_eq!(err.parse_error().unwrap().index(), 0);
    /// ```
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] holding the [`ParseError`] when the value is not a UUID's text.
    pub fn from_text(value: &[u8]) -> Result<Uuid, DecodeError> {
        Uuid::parse_ascii(value).map_err(|e| DecodeError::new(value, Some(e)))
    }

    /// The value's bytes (at most the first 64).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The value's length in bytes.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Why the value, read as text, is not a UUID (`None` when it was not read as text).
    pub fn parse_error(&self) -> Option<&ParseError> {
        self.parse.as_ref()
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a UUID: a {}-byte value 0x", self.len)?;
        for b in &self.bytes {
            write!(f, "{b:02x}")?;
        }
        if self.len > self.bytes.len() {
            f.write_str("…")?;
        }
        match (&self.parse, self.len) {
            (Some(e), 32 | 36 | 38 | 45) => write!(f, " (as text: {e})"),
            _ => f.write_str(" (expected 16 bytes, or a UUID as text)"),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.parse.as_ref().map(|e| e as _)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_named() {
        let e = DecodeError::from_column(&[0xab; 15]).unwrap_err();
        assert_eq!(e.len(), 15);
        assert!(e.to_string().contains("15-byte value 0xabab"), "{e}");
        let e = DecodeError::from_column(b"017f22e2-79b0-7cc3-98c4-dc0c0c07398g").unwrap_err();
        assert!(e.to_string().contains("as text: at byte 35"), "{e}");
        let long = vec![7u8; 1000];
        let e = DecodeError::from_column(&long).unwrap_err();
        assert_eq!((e.len(), e.bytes().len()), (1000, 64));
        assert!(e.to_string().contains("…"));
        assert!(DecodeError::from_binary(b"ffffffff-ffff-ffff-ffff-ffffffffffff").is_err());
    }
}
