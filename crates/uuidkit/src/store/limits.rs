//! The store's limits: how long a lease waits for the lock, and how large a state file
//! may grow. A leaf, so that the store and the file format both take them from here.

use std::time::Duration;

/// How long [`StateStore::lease`](crate::store::StateStore::lease) waits for the lock before giving up: 2 s.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(2);

/// The most bytes of a state file that are read (1 MiB); a longer file is damage. A
/// file that ever had that many entries is not one this library wrote.
pub const MAX_FILE_SIZE: usize = 1 << 20;

/// The most Gregorian entries (node IDs) a file keeps: 256. A process with a random node
/// ID adds one; without a limit the file would grow with every such process. Beyond it,
/// entries whose write-ahead mark the clock has passed are dropped first (a lease for
/// their node would start above them anyway), then the ones with the oldest clock
/// readings. A node whose entry was dropped starts afresh, with a fresh clock sequence,
/// as RFC 9562 §6.3 has a generator do without state.
pub const MAX_GREGORIAN_ENTRIES: usize = 256;
