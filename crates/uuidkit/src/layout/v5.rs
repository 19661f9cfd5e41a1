//! Version 5 (RFC 9562 §5.5): SHA-1 of namespace and name, truncated to 128 bits.

use super::bits::{expect_version, payload};
use super::error::LayoutError;
use super::name_based;
use crate::uuid::{Uuid, Version};

/// The v5 UUID of `name` (its bytes, as given) in `namespace`.
///
/// ```
/// use uuidkit::{layout::v5, namespace};
/// assert_eq!(v5::encode(&namespace::DNS, b"www.example.com").to_string(),
///            "2ed6657d-e927-568b-95e1-2665a8aea6a2");
/// ```
pub fn encode(namespace: &Uuid, name: &[u8]) -> Uuid {
    name_based::hash::<sha1::Sha1>(namespace, name, Version::V5)
}

/// The 122 hash bits a v5 UUID keeps (version and variant bits cleared); an error for any
/// other version or variant.
///
/// ```
/// use uuidkit::{layout::v5, namespace};
/// assert!(v5::decode(&v5::encode(&namespace::URL, b"https://example.com/")).is_ok());
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 5 UUID.
pub const fn decode(u: &Uuid) -> Result<[u8; 16], LayoutError> {
    match expect_version(u, Version::V5) {
        Ok(()) => Ok(payload(u)),
        Err(e) => Err(e),
    }
}
