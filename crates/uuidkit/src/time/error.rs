//! [`TimeError`]: RFC 3339 text that does not parse, or an instant a timestamp field
//! cannot hold.

use alloc::string::String;
use core::fmt;

/// A date or timestamp that cannot be read or does not fit a UUID's timestamp field.
///
/// ```
/// use uuidkit::time::{unix_millis_48, TimeError, UnixTime};
/// let err = UnixTime::parse_rfc3339("2022-02-22T14:22").unwrap_err();
/// assert_eq!(err.to_string(),
///            r#"invalid RFC 3339 time "2022-02-22T14:22": at byte 16, expected ':'"#);
/// let err = unix_millis_48(UnixTime::from_millis(1 << 48)).unwrap_err();
/// assert!(matches!(err, TimeError::OutOfRange { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeError {
    /// RFC 3339 text that does not parse.
    Rfc3339 {
        /// The whole text.
        input: String,
        /// Byte index of the first offending byte.
        index: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// An instant outside the range a timestamp field can hold.
    OutOfRange {
        /// The instant, as [`UnixTime::to_rfc3339`](super::UnixTime::to_rfc3339) writes it
        /// with 9 digits.
        instant: String,
        /// The field's name and range, the ends written as
        /// [`UnixTime::to_rfc3339`](super::UnixTime::to_rfc3339) writes them (so that
        /// [`UnixTime::parse_rfc3339`](super::UnixTime::parse_rfc3339) reads them back),
        /// e.g. "a v7 timestamp (48-bit Unix milliseconds: 1970-01-01T00:00:00.000Z to
        /// +010889-08-02T05:31:50.655Z)".
        field: &'static str,
    },
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::Rfc3339 {
                input,
                index,
                expected,
            } => write!(
                f,
                "invalid RFC 3339 time {input:?}: at byte {index}, expected {expected}"
            ),
            TimeError::OutOfRange { instant, field } => {
                write!(f, "the instant {instant} does not fit {field}")
            }
        }
    }
}

impl core::error::Error for TimeError {}
