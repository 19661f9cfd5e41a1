//! Reading a UUID back: the timestamp, clock sequence, node and hash algorithm that its
//! version's layout holds. Each accessor returns `None` where the version has no such
//! field (or the UUID is not of the RFC 9562 variant).

use alloc::string::{String, ToString};
#[cfg(feature = "std")]
use std::time::SystemTime;

use crate::layout::{self, HashAlgorithm};
use crate::node::NodeId;
use crate::time::{GregorianTimestamp, UnixTime};
use crate::uuid::{Uuid, Version};

/// A timestamp as a UUID stores it: the raw count and its scale.
///
/// ```
/// let u = uuidkit::uuid!("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// let t = u.timestamp().unwrap();
/// assert_eq!(t.raw(), 1_645_557_742_000);
/// assert_eq!(t.to_rfc3339(), "2022-02-22T19:22:22.000Z");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timestamp {
    /// 100 ns ticks since 1582-10-15 (v1, v2, v6).
    Gregorian(GregorianTimestamp),
    /// Milliseconds since 1970-01-01 (v7).
    UnixMillis(u64),
}

impl Timestamp {
    /// The count as stored in the UUID.
    pub const fn raw(&self) -> u64 {
        match self {
            Timestamp::Gregorian(g) => g.ticks(),
            Timestamp::UnixMillis(ms) => *ms,
        }
    }

    /// The instant.
    pub const fn to_unix(&self) -> UnixTime {
        match self {
            Timestamp::Gregorian(g) => g.to_unix(),
            Timestamp::UnixMillis(ms) => UnixTime::from_millis(*ms),
        }
    }

    /// The instant as a [`SystemTime`].
    #[cfg(feature = "std")]
    pub fn to_system_time(&self) -> SystemTime {
        self.to_unix().to_system_time()
    }

    /// RFC 3339 in UTC with as many fractional digits as the scale resolves: 7 for
    /// 100 ns ticks, 3 for milliseconds.
    pub fn to_rfc3339(&self) -> String {
        self.rfc3339().to_string()
    }

    /// The text of [`to_rfc3339`](Self::to_rfc3339), for `Display`, without a `String`.
    ///
    /// ```
    /// use uuidkit::inspect::Timestamp;
    /// assert_eq!(Timestamp::UnixMillis(1).rfc3339().to_string(), "1970-01-01T00:00:00.001Z");
    /// ```
    pub fn rfc3339(&self) -> crate::time::Rfc3339 {
        let digits = match self {
            Timestamp::Gregorian(_) => 7,
            Timestamp::UnixMillis(_) => 3,
        };
        self.to_unix().rfc3339(digits)
    }
}

impl Uuid {
    /// The timestamp of a v1, v2, v6 or v7 UUID. A v2 UUID keeps only the top 28 bits of
    /// its timestamp. v8 UUIDs have no standard timestamp: read a time-based v8 with
    /// [`layout::v8::decode_time_based`].
    ///
    /// ```
    /// let u = uuidkit::uuid!("c232ab00-9414-11ec-b3c8-9f6bdeced846");
    /// assert_eq!(u.timestamp().unwrap().to_rfc3339(), "2022-02-22T19:22:22.0000000Z");
    /// assert!(uuidkit::uuid!("919108f7-52d1-4320-9bac-f847db4148a8").timestamp().is_none());
    /// ```
    pub fn timestamp(&self) -> Option<Timestamp> {
        match self.rfc_version()? {
            Version::V1 => layout::v1::decode(self)
                .ok()
                .map(|f| Timestamp::Gregorian(f.timestamp)),
            Version::V2 => layout::v2::decode(self)
                .ok()
                .map(|f| Timestamp::Gregorian(f.timestamp)),
            Version::V6 => layout::v6::decode(self)
                .ok()
                .map(|f| Timestamp::Gregorian(f.timestamp)),
            Version::V7 => layout::v7::decode(self)
                .ok()
                .map(|f| Timestamp::UnixMillis(f.unix_ts_ms)),
            _ => None,
        }
    }

    /// The clock sequence of a v1 or v6 UUID (14 bits), or of a v2 UUID (its 6 bits).
    ///
    /// ```
    /// assert_eq!(uuidkit::uuid!("1ec9414c-232a-6b00-b3c8-9f6bdeced846").clock_seq(), Some(0x33c8));
    /// ```
    pub fn clock_seq(&self) -> Option<u16> {
        match self.rfc_version()? {
            Version::V1 | Version::V6 => Some(layout::clock_seq_of(self).get()),
            Version::V2 => layout::v2::decode(self).ok().map(|f| f.clock_seq as u16),
            _ => None,
        }
    }

    /// The node ID of a v1, v2 or v6 UUID.
    ///
    /// ```
    /// let u = uuidkit::uuid!("1ec9414c-232a-6b00-b3c8-9f6bdeced846");
    /// assert_eq!(u.node().unwrap().to_string(), "9f6bdeced846");
    /// assert!(u.node().unwrap().is_multicast());
    /// ```
    pub fn node(&self) -> Option<NodeId> {
        match self.rfc_version()? {
            Version::V1 | Version::V2 | Version::V6 => Some(layout::node_of(self)),
            _ => None,
        }
    }

    /// The hash algorithm of a name-based UUID: MD5 for v3, SHA-1 for v5. A v8 UUID does
    /// not say whether it is name-based, so it gives `None`.
    ///
    /// ```
    /// use uuidkit::layout::HashAlgorithm;
    /// assert_eq!(uuidkit::uuid!("2ed6657d-e927-568b-95e1-2665a8aea6a2").hash_algorithm(),
    ///            Some(HashAlgorithm::Sha1));
    /// ```
    pub fn hash_algorithm(&self) -> Option<HashAlgorithm> {
        match self.rfc_version()? {
            Version::V3 => Some(HashAlgorithm::Md5),
            Version::V5 => Some(HashAlgorithm::Sha1),
            _ => None,
        }
    }
}
