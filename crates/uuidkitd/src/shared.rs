//! What every connection thread shares: the lease source, the node of uuidd's v1
//! UUIDs, the limits, and the counters that `Status` reports. Its own module so that
//! both protocols and the accept loop that dispatches to them take it from below,
//! rather than the protocols reaching up into the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::time::Instant;

use uuidkit::NodeId;

use crate::conn::Limits;
use crate::fleet::Fleet;
use crate::source::Source;

/// What every connection thread shares.
pub struct Shared {
    pub source: Source,
    pub node: NodeId,
    pub state_path: String,
    pub limits: Limits,
    pub started: Instant,
    pub shutting_down: AtomicBool,
    pub active: AtomicUsize,
    pub connections: AtomicU64,
    pub leases: AtomicU64,
    pub random: AtomicU64,
    pub uuidd_requests: AtomicU64,
    /// Fleet mode (`--machine-id etcd`): the machine ID held.
    pub fleet: Option<Arc<Fleet>>,
}
