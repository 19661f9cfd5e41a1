//! Version 7 (RFC 9562 §5.7): Unix milliseconds, then 74 bits that a generator fills with
//! random data, a counter or a sub-millisecond fraction (§6.2).
//!
//! `unix_ts_ms` (48) · `ver` (4) · `rand_a` (12) · `var` (2) · `rand_b` (62).

use super::bits::{check_width, expect_version};
use super::error::LayoutError;
use crate::uuid::{Uuid, Version};

/// The fields of a v7 UUID.
///
/// ```
/// use uuidkit::layout::v7::{self, Fields};
/// let f = Fields { unix_ts_ms: 0x017F22E279B0, rand_a: 0xCC3, rand_b: 0x18C4DC0C0C07398F };
/// assert_eq!(v7::encode(&f)?.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fields {
    /// Milliseconds since the Unix epoch, 48 bits.
    pub unix_ts_ms: u64,
    /// 12 bits.
    pub rand_a: u16,
    /// 62 bits.
    pub rand_b: u64,
}

/// Packs the fields; an error naming the first field too wide for its bits.
///
/// # Errors
///
/// [`LayoutError::FieldTooWide`] naming the first field too wide for its bits.
pub const fn encode(f: &Fields) -> Result<Uuid, LayoutError> {
    if let Err(e) = check_width("unix_ts_ms", 48, f.unix_ts_ms) {
        return Err(e);
    }
    if let Err(e) = check_width("rand_a", 12, f.rand_a as u64) {
        return Err(e);
    }
    if let Err(e) = check_width("rand_b", 62, f.rand_b) {
        return Err(e);
    }
    Ok(pack(f.unix_ts_ms, f.rand_a, f.rand_b))
}

/// Packs fields known to fit; higher bits are dropped.
#[inline(always)]
pub(crate) const fn pack(unix_ts_ms: u64, rand_a: u16, rand_b: u64) -> Uuid {
    let high = (unix_ts_ms << 16) | 0x7000 | (rand_a as u64 & 0x0fff);
    let low = (rand_b & ((1 << 62) - 1)) | (1 << 63);
    Uuid::from_u64_pair(high, low)
}

/// Unpacks a v7 UUID; an error for any other version or variant.
///
/// ```
/// let u = uuidkit::uuid!("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// assert_eq!(uuidkit::layout::v7::decode(&u)?.unix_ts_ms, 1_645_557_742_000);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 7 UUID.
pub const fn decode(u: &Uuid) -> Result<Fields, LayoutError> {
    if let Err(e) = expect_version(u, Version::V7) {
        return Err(e);
    }
    let (high, low) = u.as_u64_pair();
    Ok(Fields {
        unix_ts_ms: high >> 16,
        rand_a: (high & 0x0fff) as u16,
        rand_b: low & ((1 << 62) - 1),
    })
}
