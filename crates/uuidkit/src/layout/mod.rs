//! What each version's bits mean (RFC 9562 §5): one module a version, each a pair of pure
//! functions, `encode(fields) -> Uuid` and `decode(Uuid) -> fields`, with no clock, no
//! randomness and no state. Generators ([`crate::generator`]) decide the field values; these
//! modules only pack and unpack them.
//!
//! Beyond the versions: [`draft`] has the 2021 draft's v7 and v8 layouts, and [`Layout`]
//! names every layout a v8 UUID may follow (`b1`, `b2`, `draft-v7-ms`, …) for
//! [`decode_as`], which reads a UUID as the layout the caller names.

use core::fmt;

use crate::uuid::{Uuid, Variant, Version};

pub mod v1;
pub mod v2;
pub mod v3;
pub mod v4;
pub mod v5;
pub mod v6;
pub mod v7;
pub mod v8;

pub mod draft;
mod named;
pub use named::{Decoded, Layout, decode_as};

mod name_based;
pub use name_based::HashAlgorithm;

/// The 14-bit clock sequence of v1 and v6 (RFC 9562 §5.1, §6.1).
///
/// ```
/// use uuidkit::layout::ClockSequence;
/// assert_eq!(ClockSequence::new(0x33c8).map(|c| c.get()), Some(0x33c8));
/// assert!(ClockSequence::new(0x4000).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ClockSequence(u16);

impl ClockSequence {
    /// The largest value, 2^14 − 1.
    pub const MAX: u16 = 0x3fff;

    /// A clock sequence; `None` above 14 bits.
    pub const fn new(v: u16) -> Option<ClockSequence> {
        if v <= Self::MAX {
            Some(ClockSequence(v))
        } else {
            None
        }
    }

    /// Keeps the low 14 bits.
    pub const fn from_masked(v: u16) -> ClockSequence {
        ClockSequence(v & Self::MAX)
    }

    /// The value, 0–16383.
    pub const fn get(self) -> u16 {
        self.0
    }

    /// The next value, wrapping from 16383 to 0.
    ///
    /// ```
    /// use uuidkit::layout::ClockSequence;
    /// assert_eq!(ClockSequence::from_masked(0x3fff).next().get(), 0);
    /// ```
    pub const fn next(self) -> ClockSequence {
        ClockSequence::from_masked(self.0.wrapping_add(1))
    }
}

/// A UUID that is not of the layout asked for, or a field value too wide for its field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The UUID's version or variant is not the one the layout defines.
    WrongVersion {
        /// The version the layout is for.
        expected: Version,
        /// The UUID's version nibble.
        found: Version,
        /// The UUID's variant.
        variant: Variant,
    },
    /// A field value does not fit its width.
    FieldTooWide {
        /// The field's name as RFC 9562 writes it.
        field: &'static str,
        /// The field's width in bits.
        bits: u32,
        /// The value given.
        value: u64,
    },
    /// A field value above the largest its field stands for.
    FieldTooLarge {
        /// The field's name.
        field: &'static str,
        /// The largest value allowed.
        max: u64,
        /// The value given.
        value: u64,
    },
    /// A field that must not be all zero bits is (the draft layouts' node and random bits).
    AllZero {
        /// The field's name.
        field: &'static str,
    },
    /// Bits the layout requires to be zero are not.
    NotZero {
        /// The field's name.
        field: &'static str,
        /// The bits found.
        value: u64,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::WrongVersion {
                expected,
                found,
                variant,
            } => write!(
                f,
                "expected an RFC 9562 version {} UUID, found version {} of the {} variant",
                expected.number(),
                found.number(),
                variant
            ),
            LayoutError::FieldTooWide { field, bits, value } => {
                write!(f, "{field} is {bits} bits wide; {value:#x} does not fit")
            }
            LayoutError::FieldTooLarge { field, max, value } => {
                write!(f, "{field} is at most {max}; {value} is too large")
            }
            LayoutError::AllZero { field } => {
                write!(f, "{field} must not be all zero bits")
            }
            LayoutError::NotZero { field, value } => write!(
                f,
                "{field} must be zero in this layout, found {value:#x}: not a UUID of this layout"
            ),
        }
    }
}

impl core::error::Error for LayoutError {}

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

/// The fields v1 and v6 share: the same three values, in two orders.
///
/// ```
/// use uuidkit::layout::{v1, v6, ClockSequence, GregorianFields};
/// use uuidkit::{time::GregorianTimestamp, NodeId};
/// let f = GregorianFields {
///     timestamp: GregorianTimestamp::from_ticks(0x1EC9414C232AB00).unwrap(),
///     clock_seq: ClockSequence::new(0x33C8).unwrap(),
///     node: NodeId::from_u64(0x9F6BDECED846).unwrap(),
/// };
/// assert_eq!(v1::encode(&f).to_string(), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
/// assert_eq!(v6::encode(&f).to_string(), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GregorianFields {
    /// 100 ns ticks since 1582-10-15.
    pub timestamp: crate::time::GregorianTimestamp,
    /// The clock sequence.
    pub clock_seq: ClockSequence,
    /// The node ID.
    pub node: crate::node::NodeId,
}

/// Packs octets 8–15 of v1, v2 and v6: variant, clock sequence, node.
pub(crate) const fn clock_seq_and_node(clock_seq: u16, node: &crate::node::NodeId) -> [u8; 8] {
    let n = node.as_bytes();
    [
        0x80 | (clock_seq >> 8) as u8 & 0x3f,
        clock_seq as u8,
        n[0],
        n[1],
        n[2],
        n[3],
        n[4],
        n[5],
    ]
}

pub(crate) const fn node_of(u: &Uuid) -> crate::node::NodeId {
    let b = u.as_bytes();
    crate::node::NodeId::from_bytes([b[10], b[11], b[12], b[13], b[14], b[15]])
}

pub(crate) const fn clock_seq_of(u: &Uuid) -> ClockSequence {
    let b = u.as_bytes();
    ClockSequence::from_masked(u16::from_be_bytes([b[8], b[9]]))
}
