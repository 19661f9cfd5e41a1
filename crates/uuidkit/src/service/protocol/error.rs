//! [`ProtocolError`]: what is wrong with a message, and the status that reports it.

use core::fmt;

use super::codes::{VERSION, status};

/// What is wrong with a message; each names the field at fault.
///
/// ```
/// use uuidkit::service::protocol::{Header, ProtocolError};
/// let e = Header::decode(b"nope\x01\x01\0\0\0\0\0\0").unwrap_err();
/// assert_eq!(e, ProtocolError::Malformed { field: "magic", message: "not \"uukd\"".into() });
/// assert_eq!(e.to_string(), "field magic: not \"uukd\"");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A field holds a value the format does not allow.
    Malformed {
        /// The field at fault.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The header names another protocol version.
    UnsupportedVersion {
        /// The version stated.
        found: u8,
    },
    /// The header names an unknown operation.
    UnknownOp {
        /// The code stated.
        found: u8,
    },
    /// A lease request names an unknown generator kind.
    UnknownKind {
        /// The code stated.
        found: u8,
    },
    /// A field is above its limit.
    TooLarge {
        /// The field at fault: `length`, `count`, `len`, `from`.
        field: &'static str,
        /// The value stated.
        value: u128,
        /// The largest allowed.
        limit: u128,
    },
}

impl ProtocolError {
    /// The reply status code that reports this error.
    ///
    /// ```
    /// use uuidkit::service::protocol::{status, ProtocolError};
    /// assert_eq!(ProtocolError::UnknownOp { found: 9 }.status(), status::UNKNOWN_OP);
    /// ```
    pub fn status(&self) -> u8 {
        match self {
            ProtocolError::Malformed { .. } => status::MALFORMED,
            ProtocolError::UnsupportedVersion { .. } => status::UNSUPPORTED_VERSION,
            ProtocolError::UnknownOp { .. } => status::UNKNOWN_OP,
            ProtocolError::UnknownKind { .. } => status::UNKNOWN_KIND,
            ProtocolError::TooLarge { .. } => status::TOO_LARGE,
        }
    }

    pub(super) fn malformed(field: &'static str, message: impl Into<String>) -> ProtocolError {
        ProtocolError::Malformed {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Malformed { field, message } => write!(f, "field {field}: {message}"),
            ProtocolError::UnsupportedVersion { found } => write!(
                f,
                "field version: protocol version {found} is not supported (this speaks {VERSION})"
            ),
            ProtocolError::UnknownOp { found } => write!(f, "field op: unknown operation {found}"),
            ProtocolError::UnknownKind { found } => {
                write!(f, "field kind: unknown generator kind {found}")
            }
            ProtocolError::TooLarge {
                field,
                value,
                limit,
            } => write!(f, "field {field}: {value} is above the limit of {limit}"),
        }
    }
}

impl std::error::Error for ProtocolError {}
