//! Version 4 (RFC 9562 §5.4): 122 random bits. Where the bits come from is the caller's
//! business ([`crate::v4`] uses the CSPRNG); this module only sets version and variant.

use super::bits::{expect_version, payload};
use super::error::LayoutError;
use crate::uuid::{Uuid, Version};

/// Makes a v4 UUID from 16 random bytes, overwriting 6 of their bits.
///
/// ```
/// let bytes = 0x919108F752D133205BACF847DB4148A8u128.to_be_bytes();
/// assert_eq!(uuidkit::layout::v4::encode(bytes).to_string(),
///            "919108f7-52d1-4320-9bac-f847db4148a8");
/// ```
#[inline]
pub const fn encode(random: [u8; 16]) -> Uuid {
    Uuid::from_bytes(random).with_version(Version::V4)
}

/// The 122 random bits (version and variant bits cleared); an error for any other version
/// or variant.
///
/// ```
/// let u = uuidkit::layout::v4::encode([0xff; 16]);
/// assert_eq!(uuidkit::layout::v4::decode(&u)?[6], 0x0f);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 4 UUID.
pub const fn decode(u: &Uuid) -> Result<[u8; 16], LayoutError> {
    match expect_version(u, Version::V4) {
        Ok(()) => Ok(payload(u)),
        Err(e) => Err(e),
    }
}
