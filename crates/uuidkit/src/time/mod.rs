//! Time: instants, the timestamp scales UUIDs use, RFC 3339 text, the [`Clock`] trait and
//! its clocks: the system's, a function's, and [`ManualClock`] for tests.
//!
//! Three scales appear in RFC 9562:
//! - [`GregorianTimestamp`]: 60-bit count of 100 ns intervals since 1582-10-15 00:00 UTC
//!   (v1, v2, v6);
//! - Unix milliseconds, 48 bits (v7);
//! - Unix 10 ns steps, 60 bits (the time-based v8 example of Appendix B.1).
//!
//! All of them convert through [`UnixTime`], a signed instant with nanosecond resolution
//! that also reaches back to 1582.
//!
//! Without the `std` feature everything here but the operating system's clock is there:
//! `UnixTime::now`, the `SystemTime` conversions and `SystemClock` need `std`.

mod calendar;
mod clock;
mod error;
mod fields;
mod instant;
#[cfg(feature = "std")]
mod manual;
mod rfc3339;
#[cfg(test)]
mod testing;

#[cfg(feature = "std")]
pub use clock::SystemClock;
pub use clock::{Clock, FnClock};
pub use error::TimeError;
pub use fields::{GREGORIAN_UNIX_OFFSET, GregorianTimestamp, unix_10ns_60, unix_millis_48};
pub use instant::UnixTime;
#[cfg(feature = "std")]
pub use manual::ManualClock;
pub use rfc3339::Rfc3339;
