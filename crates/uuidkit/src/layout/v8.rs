//! Version 8 (RFC 9562 §5.8): 122 bits whose meaning the application defines, and the two
//! example layouts of Appendix B as named layouts.
//!
//! `custom_a` (48) · `ver` (4) · `custom_b` (12) · `var` (2) · `custom_c` (62).

use super::bits::{check_width, expect_version};
use super::error::LayoutError;
use super::name_based;
use crate::uuid::{Uuid, Version};

/// The raw fields of a v8 UUID.
///
/// ```
/// use uuidkit::layout::v8::{self, Fields};
/// let f = Fields { custom_a: 0x2489E9AD2EE2, custom_b: 0xE00, custom_c: 0x0EC932D5F69181C0 };
/// let u = v8::encode(&f)?;
/// assert_eq!(u.to_string(), "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0");
/// assert_eq!(v8::decode(&u)?, f);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fields {
    /// 48 bits.
    pub custom_a: u64,
    /// 12 bits.
    pub custom_b: u16,
    /// 62 bits.
    pub custom_c: u64,
}

/// Packs the raw fields; an error naming the first field too wide for its bits.
///
/// # Errors
///
/// [`LayoutError::FieldTooWide`] naming the first field too wide for its bits.
pub const fn encode(f: &Fields) -> Result<Uuid, LayoutError> {
    if let Err(e) = check_width("custom_a", 48, f.custom_a) {
        return Err(e);
    }
    if let Err(e) = check_width("custom_b", 12, f.custom_b as u64) {
        return Err(e);
    }
    if let Err(e) = check_width("custom_c", 62, f.custom_c) {
        return Err(e);
    }
    Ok(pack(f.custom_a, f.custom_b, f.custom_c))
}

#[inline(always)]
pub(crate) const fn pack(custom_a: u64, custom_b: u16, custom_c: u64) -> Uuid {
    let high = (custom_a << 16) | 0x8000 | (custom_b as u64 & 0x0fff);
    let low = (custom_c & ((1 << 62) - 1)) | (1 << 63);
    Uuid::from_u64_pair(high, low)
}

/// Unpacks the raw fields of a v8 UUID; an error for any other version or variant.
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 8 UUID.
pub const fn decode(u: &Uuid) -> Result<Fields, LayoutError> {
    if let Err(e) = expect_version(u, Version::V8) {
        return Err(e);
    }
    let (high, low) = u.as_u64_pair();
    Ok(Fields {
        custom_a: high >> 16,
        custom_b: (high & 0x0fff) as u16,
        custom_c: low & ((1 << 62) - 1),
    })
}

/// The time-based layout of Appendix B.1: a 60-bit count of 10 ns steps since the Unix
/// epoch in `custom_a` and `custom_b`, then 62 bits in `custom_c` (random in the example;
/// [`crate::generator::v8`](mod@crate::generator::v8) puts a counter at their top).
///
/// ```
/// use uuidkit::layout::v8::{self, TimeBasedFields};
/// let f = TimeBasedFields { timestamp: 0x2489E9AD2EE2E00, rest: 0x0EC932D5F69181C0 };
/// assert_eq!(v8::encode_time_based(&f)?.to_string(), "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0");
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeBasedFields {
    /// 10 ns steps since 1970-01-01, 60 bits.
    pub timestamp: u64,
    /// `custom_c`, 62 bits.
    pub rest: u64,
}

/// Packs the Appendix B.1 layout; an error naming a field too wide for its bits.
///
/// # Errors
///
/// [`LayoutError::FieldTooWide`] naming the first field too wide for its bits.
pub const fn encode_time_based(f: &TimeBasedFields) -> Result<Uuid, LayoutError> {
    if let Err(e) = check_width("timestamp", 60, f.timestamp) {
        return Err(e);
    }
    if let Err(e) = check_width("custom_c", 62, f.rest) {
        return Err(e);
    }
    Ok(pack_time_based(f.timestamp, f.rest))
}

#[inline(always)]
pub(crate) const fn pack_time_based(timestamp: u64, rest: u64) -> Uuid {
    pack(timestamp >> 12, (timestamp & 0x0fff) as u16, rest)
}

/// Reads a v8 UUID as the Appendix B.1 layout. Nothing in a v8 UUID says which layout it
/// follows: this is a reading, not a check.
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 8 UUID.
pub const fn decode_time_based(u: &Uuid) -> Result<TimeBasedFields, LayoutError> {
    match decode(u) {
        Ok(f) => Ok(TimeBasedFields {
            timestamp: (f.custom_a << 12) | f.custom_b as u64,
            rest: f.custom_c,
        }),
        Err(e) => Err(e),
    }
}

/// The name-based layout of Appendix B.2: as v5, with SHA-256.
///
/// ```
/// use uuidkit::{layout::v8, namespace};
/// assert_eq!(v8::encode_sha256(&namespace::DNS, b"www.example.com").to_string(),
///            "5c146b14-3c52-8afd-938a-375d0df1fbf6");
/// ```
pub fn encode_sha256(namespace: &Uuid, name: &[u8]) -> Uuid {
    name_based::hash::<sha2::Sha256>(namespace, name, Version::V8)
}
