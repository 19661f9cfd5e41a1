//! Checks and bit work that several versions' layouts share: the version check, the
//! width check, and the 122 bits of payload.

use super::error::LayoutError;
use crate::uuid::{Uuid, Variant, Version};

/// Checks that `u` is of the RFC variant and the given version.
pub(crate) const fn expect_version(u: &Uuid, expected: Version) -> Result<(), LayoutError> {
    let variant = u.variant();
    let found = u.version();
    if matches!(variant, Variant::Rfc9562) && found.number() == expected.number() {
        Ok(())
    } else {
        Err(LayoutError::WrongVersion {
            expected,
            found,
            variant,
        })
    }
}

pub(crate) const fn check_width(
    field: &'static str,
    bits: u32,
    value: u64,
) -> Result<(), LayoutError> {
    if value >> bits == 0 {
        Ok(())
    } else {
        Err(LayoutError::FieldTooWide { field, bits, value })
    }
}

/// The 122 bits that are not version or variant, with those 6 bits cleared: what v3, v4,
/// v5 and v8 carry.
pub(crate) const fn payload(u: &Uuid) -> [u8; 16] {
    let mut b = u.into_bytes();
    b[6] &= 0x0f;
    b[8] &= 0x3f;
    b
}
