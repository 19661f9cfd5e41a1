//! Version 3 (RFC 9562 §5.3): MD5 of namespace and name. Prefer [`v5`](super::v5); v3 is
//! for compatibility with existing identifiers.

use super::bits::{expect_version, payload};
use super::error::LayoutError;
use super::name_based;
use crate::uuid::{Uuid, Version};

/// The v3 UUID of `name` (its bytes, as given) in `namespace`.
///
/// ```
/// use uuidkit::{layout::v3, namespace};
/// assert_eq!(v3::encode(&namespace::DNS, b"www.example.com").to_string(),
///            "5df41881-3aed-3515-88a7-2f4a814cf09e");
/// ```
pub fn encode(namespace: &Uuid, name: &[u8]) -> Uuid {
    name_based::hash::<md5::Md5>(namespace, name, Version::V3)
}

/// The 122 hash bits a v3 UUID keeps (version and variant bits cleared); an error for any
/// other version or variant. The name cannot be recovered from them.
///
/// ```
/// use uuidkit::{layout::v3, namespace};
/// let bits = v3::decode(&v3::encode(&namespace::DNS, b"x"))?;
/// assert_eq!(bits[6] >> 4, 0);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 3 UUID.
pub const fn decode(u: &Uuid) -> Result<[u8; 16], LayoutError> {
    match expect_version(u, Version::V3) {
        Ok(()) => Ok(payload(u)),
        Err(e) => Err(e),
    }
}
