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

/// One field of a UUID, as [`fields`] lists them: what `uuidkit inspect` prints and the
/// Python package's `inspect()` returns, in that order. Each says what it holds; how it
/// is written (JSON, a summary line, a Python value) is the caller's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Field {
    /// The UUID itself (`uuid`).
    Uuid(Uuid),
    /// The variant (`variant`).
    Variant(crate::uuid::Variant),
    /// The version (`version`); `None` outside the RFC 9562 variant, which alone has
    /// versions.
    Version(Option<Version>),
    /// Whether it is the Nil UUID (`nil`).
    Nil(bool),
    /// Whether it is the Max UUID (`max`).
    Max(bool),
    /// The UUID as one number (`int`), its bytes in Microsoft's GUID order (`bytes_le`)
    /// and split into RFC 4122's six fields (`fields`): three fields of one value.
    Value(Uuid),
    /// The time (`time`, `timestamp`); `partial` for v2, which keeps only the top 28
    /// bits of the time's high part.
    Time {
        /// The timestamp.
        timestamp: Timestamp,
        /// Only the top bits are kept (v2).
        partial: bool,
    },
    /// The clock sequence (`clock_seq`: v1, v2, v6).
    ClockSeq(u16),
    /// The node (`node`, `multicast`: v1, v2, v6).
    Node(NodeId),
    /// v2's DCE domain and local ID (`domain`, `local_id`).
    Dce(layout::v2::Domain, u32),
    /// The hash of a name-based UUID (`hash`: v3, v5).
    Hash(HashAlgorithm),
    /// v8's three custom fields (`custom_a`, `custom_b`, `custom_c`).
    Custom(layout::v8::Fields),
}

/// Every field of `u`, in order, each given to `visit`: the list `uuidkit inspect`, its
/// JSON and the Python package's `inspect()` are made from, so that they agree.
///
/// ```
/// use uuidkit::inspect::{fields, Field};
/// let u = uuidkit::uuid!("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// let mut times = Vec::new();
/// fields(&u, |f| if let Field::Time { timestamp, .. } = f { times.push(timestamp.raw()) });
/// assert_eq!(times, [1_645_557_742_000]);
/// ```
pub fn fields(u: &Uuid, mut visit: impl FnMut(Field)) {
    use crate::uuid::Variant;
    visit(Field::Uuid(*u));
    let variant = u.variant();
    visit(Field::Variant(variant));
    let rfc = variant == Variant::Rfc9562;
    let version = u.version();
    visit(Field::Version(rfc.then_some(version)));
    visit(Field::Nil(u.is_nil()));
    visit(Field::Max(u.is_max()));
    visit(Field::Value(*u));
    if !rfc {
        return;
    }
    let time = |partial: bool, visit: &mut dyn FnMut(Field)| {
        if let Some(timestamp) = u.timestamp() {
            visit(Field::Time { timestamp, partial });
        }
    };
    let clock_and_node = |visit: &mut dyn FnMut(Field)| {
        if let Some(cs) = u.clock_seq() {
            visit(Field::ClockSeq(cs));
        }
        if let Some(node) = u.node() {
            visit(Field::Node(node));
        }
    };
    match version {
        Version::V1 | Version::V6 => {
            time(false, &mut visit);
            clock_and_node(&mut visit);
        }
        Version::V7 => time(false, &mut visit),
        Version::V2 => {
            if let Ok(d) = layout::v2::decode(u) {
                visit(Field::Dce(d.domain, d.local_id));
            }
            time(true, &mut visit);
            clock_and_node(&mut visit);
        }
        Version::V3 | Version::V5 => {
            if let Some(h) = u.hash_algorithm() {
                visit(Field::Hash(h));
            }
        }
        Version::V8 => {
            if let Ok(c) = layout::v8::decode(u) {
                visit(Field::Custom(c));
            }
        }
        Version::V4 | Version::Other(_) => {}
    }
}
