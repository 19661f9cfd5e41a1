//! What v1, v2 and v6 share: the clock sequence, the fields of v1 and v6, and octets
//! 8–15 (variant, clock sequence, node) packed and read back.

use crate::uuid::Uuid;

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
