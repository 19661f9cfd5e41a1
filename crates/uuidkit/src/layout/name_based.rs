//! What v3, v5 and the name-based v8 share (RFC 9562 §5.3, §5.5, §6.5, Appendix B.2):
//! hash the namespace's 16 bytes then the name, keep the first 16 bytes of the digest,
//! overwrite version and variant.

use core::fmt;

use digest::Digest;

use crate::uuid::{Uuid, Version};

/// The hash function behind a name-based UUID.
///
/// ```
/// use uuidkit::layout::HashAlgorithm;
/// assert_eq!(HashAlgorithm::Sha1.name(), "sha1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlgorithm {
    /// MD5 (v3).
    Md5,
    /// SHA-1 (v5).
    Sha1,
    /// SHA-256 (the name-based v8 of Appendix B.2).
    Sha256,
}

impl HashAlgorithm {
    /// `md5`, `sha1` or `sha256`.
    pub const fn name(self) -> &'static str {
        match self {
            HashAlgorithm::Md5 => "md5",
            HashAlgorithm::Sha1 => "sha1",
            HashAlgorithm::Sha256 => "sha256",
        }
    }
}

impl fmt::Display for HashAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

pub(crate) fn hash<D: Digest>(namespace: &Uuid, name: &[u8], version: Version) -> Uuid {
    let digest = D::new()
        .chain_update(namespace.as_bytes())
        .chain_update(name)
        .finalize();
    let mut bytes = [0u8; 16];
    // Every digest used here is at least 16 bytes (RFC 9562 §6.5 requires 128 bits).
    bytes.copy_from_slice(&digest[..16]);
    Uuid::from_bytes(bytes).with_version(version)
}
