//! Version 6 (RFC 9562 §5.6): the v1 fields reordered so that the bytes sort by time.
//!
//! `time_high` (32) · `time_mid` (16) · `ver` (4) · `time_low` (12) · `var` (2) ·
//! `clock_seq` (14) · `node` (48).

use super::bits::expect_version;
use super::error::LayoutError;
use super::gregorian::{GregorianFields, clock_seq_and_node, clock_seq_of, node_of};
use super::v1;
use crate::time::GregorianTimestamp;
use crate::uuid::{Uuid, Version};

/// Packs the fields into a v6 UUID.
///
/// ```
/// let u: uuidkit::Uuid = "1ec9414c-232a-6b00-b3c8-9f6bdeced846".parse()?;
/// assert_eq!(uuidkit::layout::v6::encode(&uuidkit::layout::v6::decode(&u)?), u);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const fn encode(f: &GregorianFields) -> Uuid {
    let t = f.timestamp.ticks();
    Uuid::from_fields(
        (t >> 28) as u32,
        (t >> 12) as u16,
        (t as u16) & 0x0fff | 0x6000,
        clock_seq_and_node(f.clock_seq.get(), &f.node),
    )
}

/// Unpacks a v6 UUID; an error for any other version or variant.
///
/// ```
/// let u: uuidkit::Uuid = "1ec9414c-232a-6b00-b3c8-9f6bdeced846".parse()?;
/// assert_eq!(uuidkit::layout::v6::decode(&u)?.timestamp.ticks(), 0x1EC9414C232AB00);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 6 UUID.
pub const fn decode(u: &Uuid) -> Result<GregorianFields, LayoutError> {
    if let Err(e) = expect_version(u, Version::V6) {
        return Err(e);
    }
    let (high, mid, low, _) = u.as_fields();
    let ticks = ((high as u64) << 28) | ((mid as u64) << 12) | (low & 0x0fff) as u64;
    Ok(GregorianFields {
        timestamp: GregorianTimestamp::from_ticks_masked(ticks),
        clock_seq: clock_seq_of(u),
        node: node_of(u),
    })
}

/// Converts a v1 UUID to the v6 UUID with the same timestamp, clock sequence and node
/// (the conversion of the original v6 proposal). Lossless: [`to_v1`] inverts it.
///
/// ```
/// use uuidkit::layout::v6;
/// let v1: uuidkit::Uuid = "c232ab00-9414-11ec-b3c8-9f6bdeced846".parse()?;
/// let v6 = v6::from_v1(&v1)?;
/// assert_eq!(v6.to_string(), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
/// assert_eq!(v6::to_v1(&v6)?, v1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 1 UUID.
pub const fn from_v1(u: &Uuid) -> Result<Uuid, LayoutError> {
    match v1::decode(u) {
        Ok(f) => Ok(encode(&f)),
        Err(e) => Err(e),
    }
}

/// Converts a v6 UUID back to v1; see [`from_v1`].
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 6 UUID.
pub const fn to_v1(u: &Uuid) -> Result<Uuid, LayoutError> {
    match decode(u) {
        Ok(f) => Ok(v1::encode(&f)),
        Err(e) => Err(e),
    }
}
