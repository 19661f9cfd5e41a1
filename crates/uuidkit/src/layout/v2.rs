//! Version 2, DCE Security (RFC 9562 §5.2, defined by DCE 1.1 Authentication and Security
//! Services): a v1 whose `time_low` carries a local identifier (a POSIX UID or GID, or an
//! organisation number) and whose `clock_seq_low` carries the local domain. The low 32
//! bits of the timestamp and the low 8 bits of the clock sequence are therefore lost: the
//! timestamp has a resolution of 2^32 × 100 ns, about 7 minutes.
//!
//! `local_id` (32) · `time_mid` (16) · `ver` (4) · `time_high` (12) · `var` (2) ·
//! `clock_seq_high` (6) · `local_domain` (8) · `node` (48).

use core::fmt;

use super::bits::{check_width, expect_version};
use super::error::LayoutError;
use super::gregorian::{clock_seq_and_node, node_of};
use crate::node::NodeId;
use crate::time::GregorianTimestamp;
use crate::uuid::{Uuid, Version};

/// The local domain of a DCE Security UUID.
///
/// ```
/// use uuidkit::layout::v2::Domain;
/// assert_eq!(Domain::from_byte(1), Domain::Group);
/// assert_eq!(Domain::Org.to_string(), "org");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    /// 0: the local ID is a POSIX user ID.
    Person,
    /// 1: the local ID is a POSIX group ID.
    Group,
    /// 2: the local ID is an organisation number.
    Org,
    /// Any other domain number.
    Other(u8),
}

impl Domain {
    /// The domain from its byte.
    pub const fn from_byte(b: u8) -> Domain {
        match b {
            0 => Domain::Person,
            1 => Domain::Group,
            2 => Domain::Org,
            n => Domain::Other(n),
        }
    }

    /// The byte written into `clock_seq_low`.
    pub const fn to_byte(self) -> u8 {
        match self {
            Domain::Person => 0,
            Domain::Group => 1,
            Domain::Org => 2,
            Domain::Other(n) => n,
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Domain::Person => f.write_str("person"),
            Domain::Group => f.write_str("group"),
            Domain::Org => f.write_str("org"),
            Domain::Other(n) => write!(f, "{n}"),
        }
    }
}

/// The fields of a v2 UUID.
///
/// ```
/// use uuidkit::layout::v2::{self, Domain, Fields};
/// use uuidkit::{time::GregorianTimestamp, NodeId};
/// let f = Fields {
///     local_id: 1000,
///     domain: Domain::Person,
///     timestamp: GregorianTimestamp::from_ticks(0x1EC9414_00000000).unwrap(),
///     clock_seq: 0x2c,
///     node: NodeId::from_u64(0x9F6BDECED846).unwrap(),
/// };
/// let u = v2::encode(&f)?;
/// assert_eq!(u.to_string(), "000003e8-9414-21ec-ac00-9f6bdeced846");
/// assert_eq!(v2::decode(&u)?, f);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fields {
    /// The local identifier (UID, GID or organisation number).
    pub local_id: u32,
    /// What the local identifier identifies.
    pub domain: Domain,
    /// The timestamp; only its top 28 bits are stored, the low 32 read back as zero.
    pub timestamp: GregorianTimestamp,
    /// The top 6 bits of the clock sequence.
    pub clock_seq: u8,
    /// The node ID.
    pub node: NodeId,
}

/// Packs the fields; an error if `clock_seq` exceeds 6 bits. The low 32 bits of the
/// timestamp are dropped.
///
/// # Errors
///
/// [`LayoutError::FieldTooWide`] when `clock_seq` needs more than 6 bits.
pub const fn encode(f: &Fields) -> Result<Uuid, LayoutError> {
    if let Err(e) = check_width("clock_seq_high", 6, f.clock_seq as u64) {
        return Err(e);
    }
    let t = f.timestamp.ticks();
    // Octets 8–15 are v1's, with the domain where the low clock-sequence octet was.
    let clock_seq_and_domain = ((f.clock_seq as u16) << 8) | f.domain.to_byte() as u16;
    Ok(Uuid::from_fields(
        f.local_id,
        (t >> 32) as u16,
        (t >> 48) as u16 & 0x0fff | 0x2000,
        clock_seq_and_node(clock_seq_and_domain, &f.node),
    ))
}

/// Unpacks a v2 UUID; an error for any other version or variant.
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 2 UUID.
pub const fn decode(u: &Uuid) -> Result<Fields, LayoutError> {
    if let Err(e) = expect_version(u, Version::V2) {
        return Err(e);
    }
    let (local_id, mid, hi, rest) = u.as_fields();
    let ticks = (((hi & 0x0fff) as u64) << 48) | ((mid as u64) << 32);
    Ok(Fields {
        local_id,
        domain: Domain::from_byte(rest[1]),
        timestamp: GregorianTimestamp::from_ticks_masked(ticks),
        clock_seq: rest[0] & 0x3f,
        node: node_of(u),
    })
}
