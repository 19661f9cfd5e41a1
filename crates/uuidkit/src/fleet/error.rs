//! What can go wrong with a machine ID leased from etcd.

use core::fmt;
use std::time::Duration;

/// A failure to claim, hold or use a leased machine ID.
///
/// ```
/// use uuidkit::fleet::FleetError;
/// let e = FleetError::AllHeld { ids: 8, fleet: "web".into() };
/// assert_eq!(e.to_string(), "all 8 machine IDs of fleet \"web\" are held");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FleetError {
    /// An etcd endpoint that is not `http://HOST:PORT`.
    BadEndpoint {
        /// The endpoint as given.
        endpoint: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// No endpoints were given.
    NoEndpoints,
    /// A fleet name that cannot be a key segment.
    BadFleet {
        /// The name as given.
        fleet: String,
    },
    /// A machine-ID width of 0, or more than the layout has room for.
    BadBits {
        /// The width asked for.
        bits: u32,
        /// The widest the layout takes.
        max: u32,
        /// The layout.
        layout: String,
    },
    /// A lease time-to-live under 2 seconds or over an hour.
    BadTtl {
        /// The time-to-live asked for.
        ttl: Duration,
    },
    /// etcd did not answer, or answered with an error.
    Etcd {
        /// What was being done.
        doing: &'static str,
        /// The endpoints.
        endpoints: String,
        /// What the client said.
        message: String,
    },
    /// A key under the fleet's prefix whose value is not what uuidkit writes there.
    Garbage {
        /// The key.
        key: String,
        /// Its value (lossy UTF-8, cut at 64 bytes).
        value: String,
    },
    /// A holder key with no lease: uuidkit writes each holder key with the lease that
    /// keeps it, so one without would hold its ID for ever.
    Unleased {
        /// The key.
        key: String,
    },
    /// Every ID of the fleet is held by a live holder.
    AllHeld {
        /// How many IDs the width gives.
        ids: u64,
        /// The fleet.
        fleet: String,
    },
    /// No ID came free before the deadline.
    WaitedTooLong {
        /// How many IDs the width gives.
        ids: u64,
        /// The fleet.
        fleet: String,
        /// How long the claim waited.
        waited: Duration,
    },
    /// The lease was not renewed in time, so it may have expired: nothing is issued with
    /// its ID until a renewal succeeds (etcd unreachable, no quorum, or this process was
    /// stopped).
    Fenced {
        /// The ID.
        id: u64,
        /// How long ago the lease may have expired (measured on the monotonic clock).
        overdue: Duration,
    },
    /// The lease is gone (expired at etcd, or its key taken over): its ID is someone
    /// else's now; claim another.
    Lost {
        /// The ID that was held.
        id: u64,
    },
    /// The fleet's recorded geometry (width and placement) is not this claim's, or a
    /// generator's placement is not its ID's claim's: their IDs could overlap.
    Geometry {
        /// The fleet.
        fleet: String,
        /// What the fleet (or the ID's claim) holds.
        found: String,
        /// What was asked.
        asked: String,
    },
    /// This process was forked from the holder: only the holder may use the ID.
    Forked {
        /// The ID.
        id: u64,
    },
    /// Every free ID's mark is further ahead than a claim accepts (past this host's clock
    /// plus [`CLAIM_HORIZON`](super::CLAIM_HORIZON), or too near the end of what the
    /// generators can stamp): a clock once far ahead, or a hand, wrote them. Those IDs
    /// are never used; the rest are held.
    MarksAhead {
        /// The fleet.
        fleet: String,
        /// The IDs skipped, with their marks (Unix ms); at most 8 are listed.
        skipped: Vec<(u64, u64)>,
        /// The latest mark a claim accepted.
        limit_ms: u64,
    },
    /// A UUID would need the mark past the bound a holder keeps to: its own clock (or
    /// its floor, if later) plus a time-to-live, and never past the last millisecond its
    /// generators can stamp. Nothing was written. A generator that ran ahead of the clock
    /// in a burst (a layout of few UUIDs per unit borrows later units) can wait
    /// `wanted_ms − bound_ms` and go on, as `uuidkit gen` does within `--fence-wait`,
    /// unless `range_end` says no wait helps.
    TooFarAhead {
        /// The ID.
        id: u64,
        /// The Unix millisecond the UUID stands for.
        wanted_ms: u64,
        /// The bound.
        bound_ms: u64,
        /// The bound is the layout's range's end (less a time-to-live), which no wait
        /// moves: the clock is past what the layout can stamp.
        range_end: bool,
    },
}

impl fmt::Display for FleetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetError::BadEndpoint { endpoint, reason } => {
                write!(f, "etcd endpoint {endpoint:?}: {reason}")
            }
            FleetError::NoEndpoints => f.write_str("no etcd endpoint given"),
            FleetError::BadFleet { fleet } => write!(
                f,
                "fleet name {fleet:?}: expected 1 to 64 of a-z, A-Z, 0-9, '-', '_', '.'"
            ),
            // b1 and b2 are not the draft's layouts: they have no room for an ID at all.
            FleetError::BadBits { max: 0, layout, .. } => {
                write!(f, "{layout} takes no machine ID")
            }
            FleetError::BadBits { bits, max, layout } => {
                write!(f, "machine-ID width {bits}: {layout} takes 1 to {max} bits")
            }
            FleetError::BadTtl { ttl } => write!(
                f,
                "lease time-to-live {:.3} s: expected 2 s to 3600 s",
                ttl.as_secs_f64()
            ),
            FleetError::Etcd {
                doing,
                endpoints,
                message,
            } => write!(f, "etcd at {endpoints}: {doing}: {message}"),
            FleetError::Garbage { key, value } => write!(
                f,
                "etcd key {key} holds {value:?}, not what uuidkit writes there; \
                 nothing was claimed (remove the key, or use another fleet)"
            ),
            FleetError::Unleased { key } => write!(
                f,
                "etcd key {key} holds its machine ID with no lease, so nothing would ever \
                 free it; uuidkit writes holder keys only with a lease; nothing was claimed \
                 (remove the key, or use another fleet)"
            ),
            FleetError::AllHeld { ids, fleet } => {
                write!(f, "all {ids} machine IDs of fleet {fleet:?} are held")
            }
            FleetError::WaitedTooLong { ids, fleet, waited } => write!(
                f,
                "all {ids} machine IDs of fleet {fleet:?} are held, and none came free in {:.1} s",
                waited.as_secs_f64()
            ),
            FleetError::Fenced { id, overdue } => write!(
                f,
                "machine ID {id}: the lease was not renewed in time (it may have expired \
                 {:.3} s ago); issuing nothing with it until etcd renews it",
                overdue.as_secs_f64()
            ),
            FleetError::Lost { id } => write!(
                f,
                "machine ID {id}: the lease is gone (expired at etcd); the ID may be \
                 another host's now"
            ),
            FleetError::Geometry {
                fleet,
                found,
                asked,
            } => write!(
                f,
                "fleet {fleet:?} is {found:?}, not {asked:?}: IDs of another width or \
                 placement could share bits with its holders'; give every holder of a fleet \
                 the same --machine-id-bits and method (or layout), or use another fleet"
            ),
            FleetError::MarksAhead {
                fleet,
                skipped,
                limit_ms,
            } => {
                write!(f, "fleet {fleet:?}: no free machine ID has a usable mark (")?;
                for (i, (id, mark)) in skipped.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(
                        f,
                        "{sep}ID {id} at {}",
                        crate::time::UnixTime::from_millis(*mark).rfc3339(3)
                    )?;
                }
                write!(
                    f,
                    " is past {}, the latest a claim accepts: a clock far ahead wrote it); \
                     the other IDs are held. Delete such a mark in etcd once no host's \
                     UUIDs need it",
                    crate::time::UnixTime::from_millis(*limit_ms).rfc3339(3)
                )
            }
            FleetError::TooFarAhead {
                id,
                wanted_ms,
                bound_ms,
                ..
            } => write!(
                f,
                "machine ID {id}: a UUID at {} would need the mark past {}, a time-to-live \
                 ahead of the clock (or a time-to-live before the end of the layout's range); \
                 the mark was left as it was, and no such UUID handed out",
                crate::time::UnixTime::from_millis(*wanted_ms).rfc3339(3),
                crate::time::UnixTime::from_millis(*bound_ms).rfc3339(3)
            ),
            FleetError::Forked { id } => write!(
                f,
                "machine ID {id} is held by the parent process; a forked child claims its own"
            ),
        }
    }
}

impl std::error::Error for FleetError {}
