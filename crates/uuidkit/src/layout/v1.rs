//! Version 1 (RFC 9562 §5.1): Gregorian time, low field first.
//!
//! `time_low` (32) · `time_mid` (16) · `ver` (4) · `time_high` (12) · `var` (2) ·
//! `clock_seq` (14) · `node` (48).

use super::bits::expect_version;
use super::error::LayoutError;
use super::gregorian::{GregorianFields, clock_seq_and_node, clock_seq_of, node_of};
use crate::time::GregorianTimestamp;
use crate::uuid::{Uuid, Version};

/// Packs the fields into a v1 UUID.
///
/// ```
/// use uuidkit::layout::{v1, GregorianFields};
/// let u: uuidkit::Uuid = "c232ab00-9414-11ec-b3c8-9f6bdeced846".parse()?;
/// assert_eq!(v1::encode(&v1::decode(&u)?), u);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const fn encode(f: &GregorianFields) -> Uuid {
    let t = f.timestamp.ticks();
    Uuid::from_fields(
        t as u32,
        (t >> 32) as u16,
        (t >> 48) as u16 & 0x0fff | 0x1000,
        clock_seq_and_node(f.clock_seq.get(), &f.node),
    )
}

/// Unpacks a v1 UUID; an error for any other version or variant.
///
/// ```
/// let u: uuidkit::Uuid = "c232ab00-9414-11ec-b3c8-9f6bdeced846".parse()?;
/// let f = uuidkit::layout::v1::decode(&u)?;
/// assert_eq!(f.timestamp.ticks(), 0x1EC9414C232AB00);
/// assert_eq!(f.clock_seq.get(), 0x33C8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 1 UUID.
pub const fn decode(u: &Uuid) -> Result<GregorianFields, LayoutError> {
    if let Err(e) = expect_version(u, Version::V1) {
        return Err(e);
    }
    Ok(fields_of(u))
}

/// Reads the v1 bit positions without checking the version (v2 shares them).
pub(crate) const fn fields_of(u: &Uuid) -> GregorianFields {
    let (low, mid, hi, _) = u.as_fields();
    let ticks = (((hi & 0x0fff) as u64) << 48) | ((mid as u64) << 32) | low as u64;
    GregorianFields {
        timestamp: GregorianTimestamp::from_ticks_masked(ticks),
        clock_seq: clock_seq_of(u),
        node: node_of(u),
    }
}
