//! The four namespaces of RFC 9562 §6.6 for name-based UUIDs.
//!
//! ```
//! assert_eq!(uuidkit::namespace::DNS.to_string(), "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
//! ```

use crate::uuid::Uuid;

/// Names are fully qualified domain names.
pub const DNS: Uuid = Uuid::from_u128(0x6ba7b810_9dad_11d1_80b4_00c04fd430c8);
/// Names are URLs.
pub const URL: Uuid = Uuid::from_u128(0x6ba7b811_9dad_11d1_80b4_00c04fd430c8);
/// Names are ISO object identifiers.
pub const OID: Uuid = Uuid::from_u128(0x6ba7b812_9dad_11d1_80b4_00c04fd430c8);
/// Names are X.500 distinguished names (DER or text).
pub const X500: Uuid = Uuid::from_u128(0x6ba7b814_9dad_11d1_80b4_00c04fd430c8);

/// The namespace for a well-known name: `dns`, `url`, `oid` or `x500` (any case).
///
/// ```
/// assert_eq!(uuidkit::namespace::by_name("URL"), Some(uuidkit::namespace::URL));
/// ```
pub fn by_name(name: &str) -> Option<Uuid> {
    match name.to_ascii_lowercase().as_str() {
        "dns" => Some(DNS),
        "url" => Some(URL),
        "oid" => Some(OID),
        "x500" => Some(X500),
        _ => None,
    }
}
