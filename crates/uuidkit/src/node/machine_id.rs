//! Machine-ID bits (the 2021 draft's "Distributed UUID Generation"): generators on
//! several machines MAY give the first random bits after the timestamp and the sequence
//! to an ID of the machine, which MUST NOT be a MAC address. UUIDs of different machines
//! then differ in those bits whatever their timestamps and sequences, and still sort by
//! time and sequence first.

use core::fmt;

/// A machine ID of a chosen width.
///
/// ```
/// use uuidkit::generator::machine_id::MachineId;
/// let m = MachineId::new(42, 10)?;
/// assert_eq!((m.value(), m.bits()), (42, 10));
/// assert!(MachineId::new(1024, 10).is_err());
/// # Ok::<(), uuidkit::generator::machine_id::MachineIdError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MachineId {
    value: u64,
    bits: u32,
}

/// A machine ID that does not fit, or a width the layout has no room for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MachineIdError {
    /// The width is 0 or above 64.
    Width {
        /// The width asked for.
        bits: u32,
    },
    /// The value needs more bits than the width.
    TooWide {
        /// The value.
        value: u64,
        /// The width.
        bits: u32,
    },
    /// The layout's random bits after its counter cannot hold the ID and one random bit.
    NoRoom {
        /// The width asked for.
        bits: u32,
        /// The most the layout takes.
        max: u32,
        /// The layout.
        layout: String,
    },
    /// v7's method `random` has no counter for the ID to follow.
    NoCounter,
}

impl fmt::Display for MachineIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MachineIdError::Width { bits } => {
                write!(f, "a machine ID is 1 to 64 bits wide, not {bits}")
            }
            MachineIdError::TooWide { value, bits } => write!(
                f,
                "machine ID {value} does not fit in {bits} bits (at most {})",
                if *bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                }
            ),
            MachineIdError::NoRoom { bits, max, layout } => write!(
                f,
                "{layout} has room for a machine ID of at most {max} bits (its random bits \
                 after the counter, less one that stays random), not {bits}"
            ),
            MachineIdError::NoCounter => f.write_str(
                "a machine ID goes right after the counter, and v7 method random has none: \
                 use method counter or precision",
            ),
        }
    }
}

impl std::error::Error for MachineIdError {}

impl MachineId {
    /// An ID `value` of `bits` bits (1 to 64).
    ///
    /// # Errors
    ///
    /// [`MachineIdError::Width`] for a width of 0 or above 64, and
    /// [`MachineIdError::TooWide`] when `value` needs more bits than `bits`.
    pub const fn new(value: u64, bits: u32) -> Result<MachineId, MachineIdError> {
        if bits == 0 || bits > 64 {
            return Err(MachineIdError::Width { bits });
        }
        if bits < 64 && value >> bits != 0 {
            return Err(MachineIdError::TooWide { value, bits });
        }
        Ok(MachineId { value, bits })
    }

    /// The first `bits` bits of SHA-256 over a label, the host name, the MAC addresses
    /// and the IP addresses of this host, the inputs of the node strategy `hash`: the same
    /// on every call on one host (while its addresses stay), different across hosts, and
    /// not a MAC address.
    ///
    /// ```
    /// use uuidkit::generator::machine_id::MachineId;
    /// assert_eq!(MachineId::from_host_hash(16)?, MachineId::from_host_hash(16)?);
    /// # Ok::<(), uuidkit::generator::machine_id::MachineIdError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`MachineIdError::Width`] for a width of 0 or above 64.
    pub fn from_host_hash(bits: u32) -> Result<MachineId, MachineIdError> {
        if bits == 0 || bits > 64 {
            return Err(MachineIdError::Width { bits });
        }
        // A label of its own, so the ID is not the `hash` node's first bits.
        let d = super::strategy::host_digest(b"uuidkit machine ID\0");
        let mut first = [0u8; 8];
        first.copy_from_slice(&d[..8]);
        let v = u64::from_be_bytes(first) >> (64 - bits);
        MachineId::new(v, bits)
    }

    /// The ID.
    pub const fn value(&self) -> u64 {
        self.value
    }

    /// Its width in bits.
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// Checks that the ID fits a random field of `width` bits with one bit to spare.
    pub(crate) fn check_room(&self, width: u32, layout: &str) -> Result<(), MachineIdError> {
        if self.bits < width {
            Ok(())
        } else {
            Err(MachineIdError::NoRoom {
                bits: self.bits,
                max: width - 1,
                layout: layout.to_string(),
            })
        }
    }

    /// `random` with its last bits replaced by the ID: where a machine ID a service's
    /// lease brings goes, in every version and layout alike, so that clients of services
    /// with different IDs never make the same UUID whatever method each uses.
    pub(crate) const fn place_last(&self, random: u128) -> u128 {
        (random & !((1u128 << self.bits) - 1)) | self.value as u128
    }

    /// `random` (of `width` bits) with its first bits replaced by the ID.
    pub(crate) const fn place(&self, random: u128, width: u32) -> u128 {
        let rest = width - self.bits;
        ((self.value as u128) << rest) | (random & ((1u128 << rest) - 1))
    }

    /// The bits of a v7 UUID (RFC 9562) that a [`V7Generator`](crate::generator::v7::V7Generator)
    /// with method `counter` or `precision` fills at random: the last 32 of `rand_b`, right
    /// after the counter.
    pub const V7_RANDOM_BITS: u32 = 32;

    /// Writes the ID into a v7 UUID made by method `counter` or `precision`: the first
    /// bits of `rand_b`'s 32 random bits after the counter. The order of UUIDs from one
    /// generator is kept (the counter is above the ID), and two generators with different
    /// IDs never make the same UUID. An error when the ID is 32 bits or wider.
    ///
    /// ```
    /// use uuidkit::generator::machine_id::MachineId;
    /// let m = MachineId::new(0xABC, 12)?;
    /// let u = m.stamp_v7(uuidkit::v7())?;
    /// assert_eq!((u.as_u128() >> 20) & 0xfff, 0xABC);
    /// # Ok::<(), uuidkit::generator::machine_id::MachineIdError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`MachineIdError::NoRoom`] when the ID is 32 bits or wider.
    pub fn stamp_v7(&self, u: crate::uuid::Uuid) -> Result<crate::uuid::Uuid, MachineIdError> {
        self.check_room(Self::V7_RANDOM_BITS, "v7")?;
        let v = u.as_u128();
        let tail = self.place(v & 0xffff_ffff, Self::V7_RANDOM_BITS);
        Ok(crate::uuid::Uuid::from_u128((v & !0xffff_ffff) | tail))
    }
}
