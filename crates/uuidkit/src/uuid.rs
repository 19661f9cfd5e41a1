//! The [`Uuid`] value: 16 bytes, ordered as unsigned bytes, with its version and variant.

use core::fmt;

/// A UUID: 16 bytes in network (big-endian) order.
///
/// `Ord` compares the bytes as unsigned numbers, most significant first, so time-ordered
/// versions (v6, v7 and the time-based v8) sort by creation time as raw bytes, as RFC 9562
/// §6.11 asks. What a version *means* lives in the [`layout`](crate::layout) modules; this
/// type only knows bytes, version and variant.
///
/// ```
/// use uuidkit::{Uuid, Variant, Version};
///
/// let u: Uuid = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
/// assert_eq!(u.version(), Version::V7);
/// assert_eq!(u.variant(), Variant::Rfc9562);
/// assert!(Uuid::NIL < u && u < Uuid::MAX);
/// # Ok::<(), uuidkit::ParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(
    feature = "diesel",
    derive(diesel::expression::AsExpression, diesel::deserialize::FromSqlRow),
    diesel(sql_type = diesel::sql_types::Uuid),
    diesel(sql_type = diesel::sql_types::Binary)
)]
#[repr(transparent)]
pub struct Uuid([u8; 16]);

/// The variant field (RFC 9562 §4.1): which family of layouts the rest of the bits follow.
///
/// ```
/// use uuidkit::{Uuid, Variant};
/// assert_eq!(Uuid::NIL.variant(), Variant::Ncs);
/// assert_eq!(Uuid::MAX.variant(), Variant::Future);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `0xxx`: reserved, NCS backward compatibility (this is also the Nil UUID's variant).
    Ncs,
    /// `10xx`: the variant RFC 9562 (and RFC 4122 before it) defines.
    Rfc9562,
    /// `110x`: reserved, Microsoft Corporation backward compatibility (GUIDs).
    Microsoft,
    /// `111x`: reserved for future definition (this is also the Max UUID's variant).
    Future,
}

impl Variant {
    /// A short lowercase name: `ncs`, `rfc9562`, `microsoft` or `future`.
    ///
    /// ```
    /// assert_eq!(uuidkit::Variant::Rfc9562.name(), "rfc9562");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Ncs => "ncs",
            Variant::Rfc9562 => "rfc9562",
            Variant::Microsoft => "microsoft",
            Variant::Future => "future",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The version field (RFC 9562 §4.2): the top four bits of octet 6.
///
/// Versions 1–8 are named; any other nibble (0, the Nil UUID's, 15, the Max UUID's, and the
/// unassigned 9–14) is kept raw in [`Version::Other`]. The nibble only carries this meaning
/// when the variant is [`Variant::Rfc9562`].
///
/// ```
/// use uuidkit::{Uuid, Version};
/// assert_eq!(Uuid::NIL.version(), Version::Other(0));
/// assert_eq!(Version::V4.number(), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// Gregorian time-based (§5.1).
    V1,
    /// DCE Security (§5.2).
    V2,
    /// Name-based with MD5 (§5.3).
    V3,
    /// Random (§5.4).
    V4,
    /// Name-based with SHA-1 (§5.5).
    V5,
    /// Reordered Gregorian time-based (§5.6).
    V6,
    /// Unix epoch time-based (§5.7).
    V7,
    /// Custom (§5.8).
    V8,
    /// Any other value of the nibble (0 and 9–15).
    Other(u8),
}

impl Version {
    /// The version from its number; numbers above 15 are masked to their low nibble.
    ///
    /// ```
    /// use uuidkit::Version;
    /// assert_eq!(Version::from_number(7), Version::V7);
    /// assert_eq!(Version::from_number(12), Version::Other(12));
    /// ```
    pub const fn from_number(n: u8) -> Version {
        match n & 0x0f {
            1 => Version::V1,
            2 => Version::V2,
            3 => Version::V3,
            4 => Version::V4,
            5 => Version::V5,
            6 => Version::V6,
            7 => Version::V7,
            8 => Version::V8,
            other => Version::Other(other),
        }
    }

    /// The 4-bit number written into the UUID.
    ///
    /// ```
    /// assert_eq!(uuidkit::Version::V6.number(), 6);
    /// ```
    pub const fn number(self) -> u8 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
            Version::V3 => 3,
            Version::V4 => 4,
            Version::V5 => 5,
            Version::V6 => 6,
            Version::V7 => 7,
            Version::V8 => 8,
            Version::Other(n) => n & 0x0f,
        }
    }
}

impl Uuid {
    /// The Nil UUID (§5.9): all 128 bits zero.
    pub const NIL: Uuid = Uuid([0; 16]);
    /// The Max UUID (§5.10): all 128 bits one.
    pub const MAX: Uuid = Uuid([0xff; 16]);

    /// Wraps 16 bytes in network order.
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_bytes([0xff; 16]);
    /// assert_eq!(u, uuidkit::Uuid::MAX);
    /// ```
    #[inline]
    pub const fn from_bytes(bytes: [u8; 16]) -> Uuid {
        Uuid(bytes)
    }

    /// The 16 bytes in network order.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.as_bytes(), &[0u8; 16]);
    /// ```
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The 16 bytes in network order, by value.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.into_bytes(), [0xff; 16]);
    /// ```
    #[inline]
    pub const fn into_bytes(self) -> [u8; 16] {
        self.0
    }

    /// The UUID read as one big-endian 128-bit number.
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u128(0x1ec9414c_232a_6b00_b3c8_9f6bdeced846);
    /// assert_eq!(u.to_string(), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
    /// ```
    #[inline]
    pub const fn from_u128(v: u128) -> Uuid {
        Uuid(v.to_be_bytes())
    }

    /// The UUID as one big-endian 128-bit number; its order equals the UUID order.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.as_u128(), u128::MAX);
    /// ```
    #[inline]
    pub const fn as_u128(&self) -> u128 {
        u128::from_be_bytes(self.0)
    }

    /// Builds a UUID from its most and least significant 64-bit halves.
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u64_pair(1, 2);
    /// assert_eq!(u.as_u64_pair(), (1, 2));
    /// ```
    #[inline]
    pub const fn from_u64_pair(high: u64, low: u64) -> Uuid {
        Uuid::from_u128(((high as u128) << 64) | low as u128)
    }

    /// The most and least significant 64-bit halves (as Java's `UUID` stores them).
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.as_u64_pair(), (u64::MAX, u64::MAX));
    /// ```
    #[inline]
    pub const fn as_u64_pair(&self) -> (u64, u64) {
        let v = self.as_u128();
        ((v >> 64) as u64, v as u64)
    }

    /// Builds a UUID from the RFC 4122 fields: `time_low`, `time_mid`,
    /// `time_hi_and_version` and the last 8 bytes (`clock_seq_hi_and_reserved`,
    /// `clock_seq_low`, `node`).
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_fields(0xc232ab00, 0x9414, 0x11ec, [0xb3, 0xc8, 0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46]);
    /// assert_eq!(u.to_string(), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
    /// ```
    pub const fn from_fields(d1: u32, d2: u16, d3: u16, d4: [u8; 8]) -> Uuid {
        let a = d1.to_be_bytes();
        let b = d2.to_be_bytes();
        let c = d3.to_be_bytes();
        Uuid([
            a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], d4[0], d4[1], d4[2], d4[3], d4[4],
            d4[5], d4[6], d4[7],
        ])
    }

    /// The RFC 4122 fields, the inverse of [`Uuid::from_fields`].
    ///
    /// ```
    /// let u: uuidkit::Uuid = "c232ab00-9414-11ec-b3c8-9f6bdeced846".parse()?;
    /// let (d1, d2, d3, _) = u.as_fields();
    /// assert_eq!((d1, d2, d3), (0xc232ab00, 0x9414, 0x11ec));
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    pub const fn as_fields(&self) -> (u32, u16, u16, [u8; 8]) {
        let b = &self.0;
        (
            u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            u16::from_be_bytes([b[4], b[5]]),
            u16::from_be_bytes([b[6], b[7]]),
            [b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]],
        )
    }

    /// Reads 16 bytes in the Microsoft GUID memory order, whose first three fields
    /// (`Data1` u32, `Data2` u16, `Data3` u16) are little-endian.
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_bytes_le([
    ///     0x00, 0xab, 0x32, 0xc2, 0x14, 0x94, 0xec, 0x11,
    ///     0xb3, 0xc8, 0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46,
    /// ]);
    /// assert_eq!(u.to_string(), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
    /// ```
    pub const fn from_bytes_le(b: [u8; 16]) -> Uuid {
        Uuid([
            b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13],
            b[14], b[15],
        ])
    }

    /// The bytes in Microsoft GUID memory order; the inverse of [`Uuid::from_bytes_le`].
    ///
    /// ```
    /// let u = uuidkit::Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff);
    /// assert_eq!(uuidkit::Uuid::from_bytes_le(u.to_bytes_le()), u);
    /// ```
    pub const fn to_bytes_le(&self) -> [u8; 16] {
        // The swap is its own inverse.
        Uuid::from_bytes_le(self.0).0
    }

    /// The variant (§4.1), read from the top bits of octet 8.
    ///
    /// ```
    /// let u: uuidkit::Uuid = "919108f7-52d1-4320-9bac-f847db4148a8".parse()?;
    /// assert_eq!(u.variant(), uuidkit::Variant::Rfc9562);
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    #[inline]
    pub const fn variant(&self) -> Variant {
        let b = self.0[8];
        if b & 0x80 == 0 {
            Variant::Ncs
        } else if b & 0x40 == 0 {
            Variant::Rfc9562
        } else if b & 0x20 == 0 {
            Variant::Microsoft
        } else {
            Variant::Future
        }
    }

    /// The version nibble (§4.2) as a [`Version`], whatever the variant.
    ///
    /// ```
    /// let u: uuidkit::Uuid = "919108f7-52d1-4320-9bac-f847db4148a8".parse()?;
    /// assert_eq!(u.version(), uuidkit::Version::V4);
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    #[inline]
    pub const fn version(&self) -> Version {
        Version::from_number(self.version_number())
    }

    /// The raw version nibble, 0–15.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::MAX.version_number(), 15);
    /// ```
    #[inline]
    pub const fn version_number(&self) -> u8 {
        self.0[6] >> 4
    }

    /// The version when the UUID is of the RFC 9562 variant and its nibble is 1–8.
    ///
    /// ```
    /// assert_eq!(uuidkit::Uuid::NIL.rfc_version(), None);
    /// ```
    pub const fn rfc_version(&self) -> Option<Version> {
        match (self.variant(), self.version()) {
            (Variant::Rfc9562, Version::Other(_)) => None,
            (Variant::Rfc9562, v) => Some(v),
            _ => None,
        }
    }

    /// True for the Nil UUID.
    ///
    /// ```
    /// assert!(uuidkit::Uuid::NIL.is_nil());
    /// ```
    pub const fn is_nil(&self) -> bool {
        self.as_u128() == 0
    }

    /// True for the Max UUID.
    ///
    /// ```
    /// assert!(uuidkit::Uuid::MAX.is_max());
    /// ```
    pub const fn is_max(&self) -> bool {
        self.as_u128() == u128::MAX
    }

    /// Overwrites the version nibble and the two variant bits (`10`), leaving the other 122
    /// bits as they are: the last step of every RFC 9562 layout.
    ///
    /// ```
    /// use uuidkit::{Uuid, Version};
    /// let u = Uuid::from_bytes([0; 16]).with_version(Version::V4);
    /// assert_eq!(u.to_string(), "00000000-0000-4000-8000-000000000000");
    /// ```
    #[inline]
    pub const fn with_version(self, version: Version) -> Uuid {
        // On the whole 128-bit value: two masks in registers, rather than byte stores
        // that a following 16-byte load would have to wait for.
        const MASK: u128 = 0xffff_ffff_ffff_0fff_3fff_ffff_ffff_ffff;
        let bits = ((version.number() as u128) << 76) | (1 << 63);
        Uuid::from_u128((self.as_u128() & MASK) | bits)
    }
}

impl From<[u8; 16]> for Uuid {
    fn from(b: [u8; 16]) -> Uuid {
        Uuid(b)
    }
}

impl From<Uuid> for [u8; 16] {
    fn from(u: Uuid) -> [u8; 16] {
        u.0
    }
}

impl From<u128> for Uuid {
    fn from(v: u128) -> Uuid {
        Uuid::from_u128(v)
    }
}

impl From<Uuid> for u128 {
    fn from(u: Uuid) -> u128 {
        u.as_u128()
    }
}

impl AsRef<[u8]> for Uuid {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ord_is_unsigned_byte_order() {
        let a = Uuid::from_bytes([0x7f; 16]);
        let b = Uuid::from_bytes([0x80; 16]);
        assert!(a < b);
        assert_eq!(a.cmp(&b), a.as_u128().cmp(&b.as_u128()));
    }

    #[test]
    fn variant_table_of_section_4_1() {
        let with = |b8: u8| {
            let mut b = [0u8; 16];
            b[8] = b8;
            Uuid::from_bytes(b).variant()
        };
        for hi in 0u8..16 {
            let expected = match hi {
                0..=7 => Variant::Ncs,
                8..=11 => Variant::Rfc9562,
                12 | 13 => Variant::Microsoft,
                _ => Variant::Future,
            };
            assert_eq!(with(hi << 4), expected, "nibble {hi:x}");
        }
    }

    #[test]
    fn microsoft_order_round_trips() {
        let u = Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff);
        let le = u.to_bytes_le();
        assert_eq!(&le[..8], &[0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66]);
        assert_eq!(&le[8..], &u.as_bytes()[8..]);
        assert_eq!(Uuid::from_bytes_le(le), u);
    }

    #[test]
    fn fields_round_trip() {
        let u = Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff);
        let (a, b, c, d) = u.as_fields();
        assert_eq!(Uuid::from_fields(a, b, c, d), u);
    }

    #[test]
    fn rfc_version_needs_rfc_variant() {
        let v4_ncs = Uuid::from_u128(0x0000_0000_0000_4000_0000_0000_0000_0000);
        assert_eq!(v4_ncs.version(), Version::V4);
        assert_eq!(v4_ncs.rfc_version(), None);
        assert_eq!(
            v4_ncs.with_version(Version::V4).rfc_version(),
            Some(Version::V4)
        );
    }
}
