//! Generator state in stable storage, shared by every generator on the host (RFC 9562
//! §6.3).
//!
//! A time-based generator that keeps its last timestamp only in memory can repeat a UUID
//! after a restart whose clock reads earlier than before, or when two processes of one
//! host use the same node ID. RFC 9562 §6.3 and the drafts before it answer with a state
//! file: the last timestamp, the clock sequence and the node ID, read and written under a
//! system-wide lock. Doing that for every UUID would cost a lock and a write each, so the
//! store hands out *leases*: a process asks for a block of positions (timestamps, or
//! timestamp and counter), the store records the block's end, and the process then
//! generates from the block with neither lock nor I/O.
//!
//! # What the store guarantees
//! - Leases of one [`GeneratorKind`] never overlap, across threads, processes and
//!   restarts: each starts above the highest position ever leased (`high`).
//! - A crash (`kill -9`) loses nothing: every write replaces the file atomically (a new
//!   file renamed over the old one), and the page cache holds it for the next process.
//! - A power loss loses nothing either, at the price of one `fsync` per five seconds of
//!   the kind's time: the file carries a *write-ahead mark* (`durable`) above every
//!   position ever leased, written durably before any position above the previous mark
//!   is handed out. After a reboot (the file's boot ID differs from the current one) the
//!   store continues above that mark instead of the possibly stale `high`.
//! - Every failure is reported, never hidden: a damaged file is rewritten from fresh
//!   state with a [`StoreWarning`] on the [`Lease`]; a file that cannot be locked, read or
//!   written gives [`StoreError::Unavailable`] and the caller goes on in memory.
//! - A file in a newer format is never changed: [`StoreError::NewerFormat`], and the file
//!   is left byte for byte as it was (see below).
//!
//! # The file
//! A few lines of text, so that `cat` shows it and `uuidkit state check` can say which
//! line and field is wrong:
//!
//! ```text
//! uuidkit-state 1
//! boot 8c5a4e9c-3f1e-4f4e-9d7a-1b2c3d4e5f60
//! gregorian node=9f6bdeced846 high=139613640000000000 durable=139613640050000000 last-clock=139613639999990000 clock-seq=13256
//! v7 high=7476679068876800000012345 durable=7476679090867032555532345 last-clock=7476679068876800000000000
//! checksum fb12abc326964883
//! ```
//!
//! - `uuidkit-state <version>`: the format version. A file whose header names a newer
//!   one than this library reads is not read any further, and not written
//!   ([`StoreError::NewerFormat`]).
//! - `boot <id>`: the boot ID of the system that wrote the file
//!   (`/proc/sys/kernel/random/boot_id` on Linux), or `boot none` where there is none.
//! - One line per generator kind, in a fixed order (Gregorian ones by node ID, then
//!   `v7`, then `v8`), with named decimal fields: `high`, `durable`, `last-clock`, and
//!   for Gregorian ones `node` (12 hex digits) and `clock-seq` (0–16383). Positions are
//!   those of [`GeneratorKind`].
//! - `checksum <16 hex digits>`: the first 8 bytes of the SHA-256 of every byte before
//!   this line. A file cut short loses this line; one changed by hand fails it.
//!
//! The file is read up to [`MAX_FILE_SIZE`] bytes; anything longer is damage. At most
//! [`MAX_GREGORIAN_ENTRIES`] Gregorian entries are kept (processes with random node IDs
//! each add one).
//!
//! # First use, damage, and what is not covered
//! - No file is first use, as with libuuid's `clock.txt`: the lease starts from the
//!   request, the directory is created, and nothing is reported. Telling it apart from
//!   a file someone deleted is not possible, and warning on every first use of every
//!   host would teach people to ignore the warning.
//! - A damaged file is not salvaged, even where most of it parses: a corrupted number
//!   could be near the last position and leave the kind exhausted for good. The lease
//!   starts from the request (for a new Gregorian entry, with a fresh random clock
//!   sequence, as RFC 9562 §6.3 asks when there is no state) and says so.
//! - A file in a newer format version is not damage: a newer uuidkit wrote it, and an
//!   older one beside it (a packaged command and a `cargo install`ed one, say) is a
//!   normal sight. Rewriting it in this format would throw away the newer one's
//!   high-water marks, after which their UUIDs could go out of order or, after a clock
//!   set back, repeat. So [`StateStore::lease`] and [`StateStore::snapshot`] return
//!   [`StoreError::NewerFormat`], naming both versions and the file, and leave the file
//!   as it is: no write, no temporary file renamed over it. The header decides, and
//!   what follows it (its size, text and checksum) is the newer format's business, with
//!   one exception: a file whose checksum matches its content under a version 1 header
//!   is a version 1 file whose version number alone was damaged (one bit turns `1` into
//!   `9`), and is rewritten as damage. The caller decides what to do without the file
//!   (the process-wide generators go on in memory with a warning, as for a file that
//!   cannot be used; `uuidkit` and `uuidkitd` refuse to run on it).
//! - Writes below the mark are not synced. A file system that, after a power loss,
//!   keeps a rename but not the data renamed (ext4 and btrfs write a file's data out
//!   before committing its rename over another) can leave an empty file: that is
//!   damage, reported, and generation goes on from the clock.
//!
//! ```
//! use uuidkit::store::{GeneratorKind, LeaseRequest, StateStore};
//! use uuidkit::layout::ClockSequence;
//!
//! let dir = std::env::temp_dir().join(format!("uuidkit-doc-store-{}", std::process::id()));
//! let store = StateStore::open(dir.join("state"));
//! let req = LeaseRequest::new(GeneratorKind::V7, 1_000 << 42, 1_000 << 42, 4096);
//! let a = store.lease(&req)?;
//! let b = store.lease(&req)?;
//! assert_eq!((a.start, a.end), (1_000 << 42, (1_000 << 42) + 4095));
//! assert_eq!(b.start, a.end + 1); // never overlaps, whatever the request
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), uuidkit::store::StoreError>(())
//! ```

mod format;
mod storage;
#[cfg(test)]
mod tests;

use core::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use storage::{FileStorage, LockGuard, MemoryStorage, Storage};

use crate::NodeId;
use crate::layout::ClockSequence;
use format::{Entry, State};

/// How long [`StateStore::lease`] waits for the lock before giving up: 2 s.
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

/// A generator whose positions the store hands out; each has its own entry in the file.
///
/// A *position* is a number ordered like the UUIDs it stands for:
/// - `Gregorian(node)`: 100 ns ticks since 1582-10-15 (60 bits), shared by v1, v2 and v6
///   of that node ID (they take their timestamps from one clock and one clock sequence).
/// - `V7`: the first 90 payload bits of a v7 UUID, `unix_ms (48) << 42 | x (42)`.
/// - `V8`: `steps_10ns (60) << 30 | counter (30)`.
///
/// ```
/// use uuidkit::store::GeneratorKind;
/// assert_eq!(GeneratorKind::V7.max_position(), (1 << 90) - 1);
/// assert_eq!(GeneratorKind::V8.write_ahead_window(), 500_000_000 << 30); // 5 s
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeneratorKind {
    /// v1, v2 and v6 of one node ID.
    Gregorian(NodeId),
    /// v7.
    V7,
    /// Time-based v8.
    V8,
    /// One of the 2021 draft's layouts ([`Layout::DraftV7`](crate::layout::Layout) or
    /// `DraftV8`; `b1` is `V8`, `b2` has no state). Its position is
    /// `timestamp << sequence_bits | sequence`, the timestamp in the layout's finest unit
    /// (milli-, micro-, nanoseconds, seconds, 100 ns ticks or 16 ns units).
    Draft(crate::layout::Layout),
}

impl GeneratorKind {
    /// The units of a draft layout's positions.
    pub(crate) const fn draft_units(self) -> Option<crate::layout::draft::Units> {
        match self {
            GeneratorKind::Draft(l) => crate::layout::draft::Units::of(l),
            _ => None,
        }
    }

    /// One second of a draft layout's positions (0 for the other kinds).
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// assert_eq!(GeneratorKind::Draft("draft-v8-32".parse().unwrap()).draft_second(), 1 << 12);
    /// ```
    pub const fn draft_second(self) -> u128 {
        match self.draft_units() {
            Some(u) => (u.per_second as u128) << u.sequence_bits,
            None => 0,
        }
    }

    /// Bits of the counter in a position (`None` for Gregorian).
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// assert_eq!(GeneratorKind::V7.counter_bits(), Some(42));
    /// let k = GeneratorKind::Draft("draft-v8-48".parse().unwrap());
    /// assert_eq!(k.counter_bits(), Some(12));
    /// ```
    pub const fn counter_bits(self) -> Option<u32> {
        match self {
            GeneratorKind::Gregorian(_) => None,
            GeneratorKind::V7 => Some(42),
            GeneratorKind::V8 => Some(30),
            GeneratorKind::Draft(_) => match self.draft_units() {
                Some(u) => Some(u.sequence_bits),
                None => Some(0),
            },
        }
    }

    /// The position the clock reads at `now` (counter 0).
    ///
    /// ```
    /// use uuidkit::{store::GeneratorKind, time::UnixTime};
    /// let k = GeneratorKind::Draft("draft-v8-32".parse().unwrap());
    /// assert_eq!(k.clock_position(UnixTime::new(5, 0)), 5 << 12);
    /// ```
    pub fn clock_position(self, now: crate::time::UnixTime) -> u128 {
        match self {
            GeneratorKind::Gregorian(_) => crate::time::GregorianTimestamp::from_unix_clamped(now)
                .ticks()
                .into(),
            GeneratorKind::V7 => u128::from(now.millis_since_epoch()) << 42,
            GeneratorKind::V8 => u128::from(now.nanos_since_epoch() / 10) << 30,
            GeneratorKind::Draft(_) => match self.draft_units() {
                Some(u) => (u.at(now) as u128) << u.sequence_bits,
                None => 0,
            },
        }
    }

    /// The instant of a position and the fractional digits its unit has; `None` past the
    /// kind's range.
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// let k = GeneratorKind::Draft("draft-v8-48".parse().unwrap());
    /// let (t, digits) = k.position_time((1_645_557_742_000 << 12) | 5).unwrap();
    /// assert_eq!(t.to_rfc3339(digits), "2022-02-22T19:22:22.000Z");
    /// ```
    pub fn position_time(self, pos: u128) -> Option<(crate::time::UnixTime, usize)> {
        use crate::time::{GregorianTimestamp, UnixTime};
        if pos > self.max_position() {
            return None;
        }
        Some(match self {
            GeneratorKind::Gregorian(_) => {
                (GregorianTimestamp::from_ticks(pos as u64)?.to_unix(), 7)
            }
            GeneratorKind::V7 => (UnixTime::from_millis((pos >> 42) as u64), 3),
            GeneratorKind::V8 => (UnixTime::from_nanos((pos >> 30) as i128 * 10), 8),
            GeneratorKind::Draft(l) => {
                let u = self.draft_units()?;
                (u.to_unix((pos >> u.sequence_bits) as u64), l.time_digits()?)
            }
        })
    }

    /// The last position: 2^60 − 1 for Gregorian, 2^90 − 1 for v7 and v8.
    ///
    /// ```
    /// use uuidkit::{store::GeneratorKind, NodeId};
    /// let g = GeneratorKind::Gregorian(NodeId::from_bytes([1, 0, 0, 0, 0, 0]));
    /// assert_eq!(g.max_position(), (1 << 60) - 1);
    /// ```
    pub const fn max_position(self) -> u128 {
        match self {
            GeneratorKind::Gregorian(_) => (1 << 60) - 1,
            GeneratorKind::V7 | GeneratorKind::V8 => (1 << 90) - 1,
            GeneratorKind::Draft(_) => match self.draft_units() {
                Some(u) => ((u.max as u128 + 1) << u.sequence_bits) - 1,
                None => 0,
            },
        }
    }

    /// How far above a lease's end the write-ahead mark is set: five seconds of the
    /// kind's time. A larger window means fewer `fsync`s; a smaller one that a reboot
    /// skips fewer positions.
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// assert_eq!(GeneratorKind::V7.write_ahead_window(), 5000 << 42); // 5000 ms
    /// ```
    pub const fn write_ahead_window(self) -> u128 {
        match self {
            GeneratorKind::Gregorian(_) => 50_000_000,
            GeneratorKind::V7 => 5000 << 42,
            GeneratorKind::V8 => 500_000_000 << 30,
            GeneratorKind::Draft(_) => 5 * self.draft_second(),
        }
    }

    /// The order of entries in the file: Gregorian by node ID, then v7, then v8.
    fn sort_key(self) -> (u8, u64) {
        match self {
            GeneratorKind::Gregorian(n) => (0, n.as_u64()),
            GeneratorKind::V7 => (1, 0),
            GeneratorKind::V8 => (2, 0),
            GeneratorKind::Draft(l) => {
                let mut i = 0;
                while i < crate::layout::Layout::ALL.len() {
                    if crate::layout::Layout::ALL[i].name() == l.name() {
                        break;
                    }
                    i += 1;
                }
                (3, i as u64)
            }
        }
    }
}

impl fmt::Display for GeneratorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeneratorKind::Gregorian(n) => write!(f, "gregorian node={n}"),
            GeneratorKind::V7 => f.write_str("v7"),
            GeneratorKind::V8 => f.write_str("v8"),
            GeneratorKind::Draft(l) => f.write_str(l.name()),
        }
    }
}

/// What a generator asks of [`StateStore::lease`].
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest};
/// let req = LeaseRequest::new(GeneratorKind::V8, 100 << 30, (100 << 30) + 7, 1 << 20);
/// assert_eq!(req.max_start, None);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LeaseRequest {
    /// Whose positions.
    pub kind: GeneratorKind,
    /// The clock reading, in the kind's position units, without any random seed. The
    /// store compares it with the previous lease's reading to see the clock go back.
    pub clock: u128,
    /// The first position the caller would like: the clock reading, plus a random seed
    /// where the generator uses one. The lease starts here unless that is at or below a
    /// position already leased.
    pub from: u128,
    /// How many positions (at least 1; 0 is taken as 1).
    pub len: u128,
    /// If the lease would start above this, grant nothing and report
    /// [`StoreError::Ahead`]: for a generator that would rather wait for its clock than
    /// run far ahead of it.
    pub max_start: Option<u128>,
    /// Gregorian: a clock sequence the caller has fixed (it is used and stored); `None`
    /// to use the stored one.
    pub clock_seq: Option<ClockSequence>,
    /// Gregorian: the clock sequence a new entry starts with when the caller fixed none;
    /// a random one, as RFC 9562 §6.3 asks when there is no state.
    pub fresh_clock_seq: ClockSequence,
}

impl LeaseRequest {
    /// A request for `len` positions from `from` at clock reading `clock`, with no
    /// `max_start`, no fixed clock sequence, and 0 as the fresh one (set
    /// [`fresh_clock_seq`](Self::fresh_clock_seq) to a random value for Gregorian kinds).
    ///
    /// ```
    /// use uuidkit::store::{GeneratorKind, LeaseRequest};
    /// let req = LeaseRequest::new(GeneratorKind::V7, 5 << 42, 5 << 42, 16);
    /// assert_eq!((req.from, req.len), (5 << 42, 16));
    /// ```
    pub fn new(kind: GeneratorKind, clock: u128, from: u128, len: u128) -> LeaseRequest {
        LeaseRequest {
            kind,
            clock,
            from,
            len,
            max_start: None,
            clock_seq: None,
            fresh_clock_seq: ClockSequence::from_masked(0),
        }
    }
}

/// A block of positions granted to one caller, which alone generates from it.
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
/// let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
/// let lease = store.lease(&LeaseRequest::new(GeneratorKind::V7, 0, 10, 5))?;
/// assert_eq!((lease.start, lease.end, lease.len()), (10, 14, 5));
/// assert!(lease.warning.is_none() && lease.clock_seq.is_none());
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The first position: `max(from, high + 1)`.
    pub start: u128,
    /// The last position (inclusive): `min(start + len − 1, the kind's last)`.
    pub end: u128,
    /// Gregorian: the clock sequence to use with this block; `None` for v7 and v8.
    pub clock_seq: Option<ClockSequence>,
    /// The file was damaged and has been rewritten; generation goes on. Show it once.
    pub warning: Option<StoreWarning>,
}

impl Lease {
    /// How many positions: `end − start + 1`.
    ///
    /// ```
    /// # use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
    /// # let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
    /// let lease = store.lease(&LeaseRequest::new(GeneratorKind::V8, 0, 0, 3))?;
    /// assert_eq!(lease.len(), 3);
    /// # Ok::<(), uuidkit::store::StoreError>(())
    /// ```
    #[allow(clippy::len_without_is_empty)] // a lease is never empty
    pub fn len(&self) -> u128 {
        self.end - self.start + 1
    }
}

/// Why [`StateStore::lease`] granted nothing.
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore, StoreError};
/// let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
/// let mut req = LeaseRequest::new(GeneratorKind::V7, 0, 100, 10);
/// store.lease(&req)?;
/// req.max_start = Some(105);
/// assert_eq!(store.lease(&req), Err(StoreError::Ahead { start: 110 }));
/// # Ok::<(), StoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The lease would start at `start`, above the request's `max_start`. Nothing was
    /// written.
    Ahead {
        /// Where the lease would have started.
        start: u128,
    },
    /// Every position of the kind is leased: `high` is its last one.
    Exhausted,
    /// The state file cannot be locked, read or written; the warning says why. The caller
    /// goes on in memory.
    Unavailable(StoreWarning),
    /// The state file's header names a format version newer than this library reads:
    /// a newer uuidkit wrote it. Nothing was granted and nothing was written: the file is
    /// left byte for byte as it was, since rewriting it in this version would lose the
    /// newer one's high-water marks. The caller cannot use the file (a newer uuidkit
    /// can).
    NewerFormat {
        /// The state file.
        path: PathBuf,
        /// The version its header states.
        found: u32,
        /// The newest version this library reads.
        supported: u32,
    },
}

impl StoreError {
    /// A warning for a caller that goes on without the file after `self` ([`Outcome`]
    /// says what it does); `None` for [`StoreError::Ahead`] and
    /// [`StoreError::Exhausted`], which are not about the file.
    ///
    /// ```
    /// use uuidkit::store::{Outcome, Problem, StoreError};
    /// let e = StoreError::NewerFormat { path: "/x/state".into(), found: 9, supported: 1 };
    /// let w = e.warning(Outcome::InMemory).unwrap();
    /// assert_eq!(w.problem(), &Problem::FutureVersion { found: 9, supported: 1 });
    /// assert_eq!(
    ///     w.to_string(),
    ///     "state file /x/state: format version 9 is newer than this uuidkit reads (1); \
    ///      generating in memory without it"
    /// );
    /// ```
    pub fn warning(&self, outcome: Outcome) -> Option<StoreWarning> {
        match self {
            StoreError::Ahead { .. } | StoreError::Exhausted => None,
            StoreError::Unavailable(w) => {
                Some(StoreWarning::new(w.path(), w.problem().clone(), outcome))
            }
            StoreError::NewerFormat {
                path,
                found,
                supported,
            } => Some(StoreWarning::new(
                path.clone(),
                Problem::FutureVersion {
                    found: *found,
                    supported: *supported,
                },
                outcome,
            )),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Ahead { start } => write!(
                f,
                "the next free position, {start}, is further ahead than the generator accepts"
            ),
            StoreError::Exhausted => f.write_str("every position of this generator is used"),
            StoreError::Unavailable(w) => w.fmt(f),
            StoreError::NewerFormat {
                path,
                found,
                supported,
            } => write!(
                f,
                "state file {}: {}; left untouched",
                path.display(),
                Problem::FutureVersion {
                    found: *found,
                    supported: *supported,
                }
            ),
        }
    }
}

impl std::error::Error for StoreError {}

/// What is wrong with a state file, with the line and field at fault where there is one.
///
/// ```
/// use uuidkit::store::Problem;
/// let p = Problem::Syntax { line: 3, field: "high".into(), message: "not a decimal number".into() };
/// assert_eq!(p.to_string(), "line 3, field high: not a decimal number");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// There is no file (only [`read_state`] reports this; a lease starts afresh
    /// silently, as on first use).
    Missing,
    /// The file is empty.
    Empty,
    /// The file is longer than `limit` bytes.
    TooLarge {
        /// [`MAX_FILE_SIZE`].
        limit: usize,
    },
    /// The file ends early: in the middle of line `line` (`mid_line`), or after it
    /// without the final checksum line.
    Truncated {
        /// The last line there is.
        line: usize,
        /// Whether that line lacks its line feed.
        mid_line: bool,
    },
    /// Line `line` is not what the format has there.
    Syntax {
        /// 1-based.
        line: usize,
        /// The field at fault: a field name (`high`, `clock-seq` …), or `header`,
        /// `boot`, `kind`, `checksum`, `text` for the line's leading word or its bytes.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The file is in a format version newer than this library reads (not damage: see
    /// [`StoreError::NewerFormat`]).
    FutureVersion {
        /// The version the file states.
        found: u32,
        /// The newest version this library reads (and the one it writes).
        supported: u32,
    },
    /// The checksum line does not match the content above it.
    BadChecksum {
        /// The line it is on.
        line: usize,
        /// The checksum the file states.
        stored: u64,
        /// The checksum of the content.
        computed: u64,
    },
    /// A file operation failed.
    Io {
        /// What was being done, naming the file: `create directory /x`, `read /x/state` …
        action: String,
        /// The error's kind.
        kind: std::io::ErrorKind,
        /// The operating system's message.
        message: String,
    },
    /// Another process held the lock for longer than the timeout.
    LockTimeout {
        /// How long the store waited.
        timeout: Duration,
    },
}

impl Problem {
    /// An I/O failure while doing `action` (a phrase naming the file, as in
    /// `read /x/state`): for [`Storage`] implementations.
    ///
    /// ```
    /// use uuidkit::store::Problem;
    /// let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    /// let p = Problem::io("read /x/state", &e);
    /// assert!(p.to_string().starts_with("cannot read /x/state: "));
    /// ```
    pub fn io(action: impl Into<String>, e: &std::io::Error) -> Problem {
        Problem::Io {
            action: action.into(),
            kind: e.kind(),
            message: e.to_string(),
        }
    }

    /// Whether this is damage to the content (rewriting the file repairs it), as opposed
    /// to a file that cannot be used at all. A newer format is not damage: rewriting it
    /// would lose what the newer uuidkit recorded.
    ///
    /// ```
    /// use uuidkit::store::Problem;
    /// assert!(Problem::Empty.is_damage());
    /// assert!(!Problem::Missing.is_damage());
    /// assert!(!Problem::FutureVersion { found: 9, supported: 1 }.is_damage());
    /// ```
    pub fn is_damage(&self) -> bool {
        matches!(
            self,
            Problem::Empty
                | Problem::TooLarge { .. }
                | Problem::Truncated { .. }
                | Problem::Syntax { .. }
                | Problem::BadChecksum { .. }
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing => f.write_str("does not exist"),
            Problem::Empty => f.write_str("is empty"),
            Problem::TooLarge { limit } => write!(f, "is larger than {limit} bytes"),
            Problem::Truncated {
                line,
                mid_line: true,
            } => write!(f, "is cut short in line {line}"),
            Problem::Truncated {
                line,
                mid_line: false,
            } => write!(f, "is cut short after line {line}: no checksum line"),
            Problem::Syntax {
                line,
                field,
                message,
            } => write!(f, "line {line}, field {field}: {message}"),
            Problem::FutureVersion { found, supported } => write!(
                f,
                "format version {found} is newer than this uuidkit reads ({supported})"
            ),
            Problem::BadChecksum {
                line,
                stored,
                computed,
            } => write!(
                f,
                "line {line}, field checksum: {stored:016x} does not match the content \
                 ({computed:016x})"
            ),
            Problem::Io {
                action, message, ..
            } => write!(f, "cannot {action}: {message}"),
            Problem::LockTimeout { timeout } => write!(
                f,
                "another process has held the lock file for longer than {timeout:?}"
            ),
        }
    }
}

/// What happens after a [`Problem`].
///
/// ```
/// use uuidkit::store::Outcome;
/// assert_eq!(Outcome::InMemory.to_string(), "generating in memory without it");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// The file was rewritten from fresh state: generation went on from the clock (and,
    /// for a new Gregorian entry, a fresh random clock sequence).
    Repaired,
    /// The file cannot be used; the generator goes on with its state in memory.
    InMemory,
    /// Found by [`read_state`], which changes nothing: the next lease will rewrite the
    /// file from fresh state.
    WillRepair,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Repaired => "started afresh from the clock and rewrote the file",
            Outcome::InMemory => "generating in memory without it",
            Outcome::WillRepair => "the next generator will start afresh and rewrite it",
        })
    }
}

/// A problem with the state file, the file, and what happens now.
///
/// Displays as `state file /path: <what is wrong>; <what happens now>`.
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest, Problem, StateStore};
/// let dir = std::env::temp_dir().join(format!("uuidkit-doc-warning-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("state"), "").unwrap();
/// let store = StateStore::open(dir.join("state"));
/// let lease = store.lease(&LeaseRequest::new(GeneratorKind::V7, 0, 0, 1))?;
/// let w = lease.warning.unwrap();
/// assert_eq!(w.problem(), &Problem::Empty);
/// assert_eq!(
///     w.to_string(),
///     format!("state file {}: is empty; started afresh from the clock and rewrote the file",
///             dir.join("state").display())
/// );
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreWarning {
    path: PathBuf,
    problem: Problem,
    outcome: Outcome,
}

impl StoreWarning {
    /// A warning about the file at `path`.
    ///
    /// ```
    /// use uuidkit::store::{Outcome, Problem, StoreWarning};
    /// let w = StoreWarning::new("/x/state", Problem::Empty, Outcome::WillRepair);
    /// assert!(w.to_string().starts_with("state file /x/state: is empty;"));
    /// ```
    pub fn new(path: impl Into<PathBuf>, problem: Problem, outcome: Outcome) -> StoreWarning {
        StoreWarning {
            path: path.into(),
            problem,
            outcome,
        }
    }

    /// The state file.
    ///
    /// ```
    /// # use uuidkit::store::{Outcome, Problem, StoreWarning};
    /// let w = StoreWarning::new("/x/state", Problem::Empty, Outcome::WillRepair);
    /// assert_eq!(w.path(), std::path::Path::new("/x/state"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong.
    ///
    /// ```
    /// # use uuidkit::store::{Outcome, Problem, StoreWarning};
    /// let w = StoreWarning::new("/x/state", Problem::Empty, Outcome::WillRepair);
    /// assert_eq!(w.problem(), &Problem::Empty);
    /// ```
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// What happens now.
    ///
    /// ```
    /// # use uuidkit::store::{Outcome, Problem, StoreWarning};
    /// let w = StoreWarning::new("/x/state", Problem::Empty, Outcome::WillRepair);
    /// assert_eq!(w.outcome(), Outcome::WillRepair);
    /// ```
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }
}

impl fmt::Display for StoreWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "state file {}: {}; {}",
            self.path.display(),
            self.problem,
            self.outcome
        )
    }
}

impl std::error::Error for StoreWarning {}

/// The generator state store: leases blocks of positions from a state file shared by
/// every generator on the host. `Send + Sync`; generators hold it in an `Arc`.
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest, StateStore};
/// use std::time::Duration;
///
/// let dir = std::env::temp_dir().join(format!("uuidkit-doc-statestore-{}", std::process::id()));
/// let a = StateStore::open(dir.join("state")).with_lock_timeout(Duration::from_millis(500));
/// let b = StateStore::open(dir.join("state")); // another process, say
/// let req = LeaseRequest::new(GeneratorKind::V8, 7 << 30, 7 << 30, 100);
/// let x = a.lease(&req)?;
/// let y = b.lease(&req)?;
/// assert!(y.start > x.end);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
pub struct StateStore {
    storage: Box<dyn Storage>,
    lock_timeout: Duration,
}

/// Where generators lease blocks of positions: a state file ([`StateStore`]), or anything
/// that leases from one on their behalf (a service serving processes that cannot share
/// the file). Generators take one through `with_store`.
///
/// ```
/// use std::sync::Arc;
/// use uuidkit::store::{GeneratorKind, LeaseRequest, LeaseSource, StateStore};
/// let path = std::env::temp_dir().join(format!("uuidkit-doc-source-{}", std::process::id()));
/// let source: Arc<dyn LeaseSource> = Arc::new(StateStore::open(&path));
/// let lease = source.lease(&LeaseRequest::new(GeneratorKind::V7, 1 << 42, 1 << 42, 10))?;
/// assert_eq!(lease.len(), 10);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
pub trait LeaseSource: Send + Sync + fmt::Debug {
    /// A block of positions no other user of the source has or will get; see
    /// [`StateStore::lease`] for the rules.
    fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError>;
}

impl LeaseSource for StateStore {
    fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
        StateStore::lease(self, req)
    }
}

impl fmt::Debug for StateStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateStore")
            .field("path", &self.path())
            .field("lock_timeout", &self.lock_timeout)
            .finish_non_exhaustive()
    }
}

impl StateStore {
    /// The store of the state file at `path` (its lock file is `path` + `.lock`). Does no
    /// I/O: the file and its directory are created by the first lease.
    ///
    /// ```
    /// let store = uuidkit::store::StateStore::open("/nonexistent/uuidkit/state");
    /// assert_eq!(store.path(), Some(std::path::Path::new("/nonexistent/uuidkit/state")));
    /// ```
    pub fn open(path: impl Into<PathBuf>) -> StateStore {
        StateStore::with_storage(Box::new(FileStorage::new(path)))
    }

    /// The store over any [`Storage`], such as a [`MemoryStorage`] in tests.
    ///
    /// ```
    /// use uuidkit::store::{MemoryStorage, StateStore};
    /// let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
    /// assert_eq!(store.path(), None);
    /// ```
    pub fn with_storage(storage: Box<dyn Storage>) -> StateStore {
        StateStore {
            storage,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
        }
    }

    /// How long a lease waits for another process's lock before giving up with
    /// [`StoreError::Unavailable`] (default [`DEFAULT_LOCK_TIMEOUT`]). A process stopped
    /// while holding the lock therefore delays others by at most this.
    ///
    /// ```
    /// use std::time::Duration;
    /// let store = uuidkit::store::StateStore::open("/tmp/state")
    ///     .with_lock_timeout(Duration::from_millis(100));
    /// # let _ = store;
    /// ```
    pub fn with_lock_timeout(mut self, d: Duration) -> StateStore {
        self.lock_timeout = d;
        self
    }

    /// The state file, for a file store.
    ///
    /// ```
    /// let store = uuidkit::store::StateStore::open("/tmp/uuidkit/state");
    /// assert_eq!(store.path().unwrap().file_name().unwrap(), "state");
    /// ```
    pub fn path(&self) -> Option<&Path> {
        self.storage.path()
    }

    /// The name warnings give the storage: its path, or `<memory>`.
    fn display_path(&self) -> PathBuf {
        self.path()
            .map_or_else(|| PathBuf::from("<memory>"), Path::to_path_buf)
    }

    fn newer_format(&self, found: u32, supported: u32) -> StoreError {
        StoreError::NewerFormat {
            path: self.display_path(),
            found,
            supported,
        }
    }

    fn unavailable(&self, problem: Problem) -> StoreError {
        StoreError::Unavailable(StoreWarning::new(
            self.display_path(),
            problem,
            Outcome::InMemory,
        ))
    }

    /// Leases the positions `max(from, high + 1) ..= min(that + len − 1, last)` to the
    /// caller: under the lock, reads the file, records the block, writes the file (durably
    /// when the block passes the write-ahead mark), and releases the lock.
    ///
    /// - A missing file is first use: the lease starts from `from`, no warning.
    /// - A damaged file (empty, cut short, garbage, bad checksum, too large) is replaced
    ///   by fresh state; the lease carries a warning.
    /// - A file whose header names a newer format: [`StoreError::NewerFormat`], and the
    ///   file is left as it is.
    /// - The file cannot be locked in time, read or written: [`StoreError::Unavailable`].
    ///
    /// Gregorian clock sequence: a new entry takes the request's fixed one, else its
    /// fresh one. An existing entry takes the fixed one if any, else the stored one, plus
    /// one if the clock went back (RFC 9562 §5.1, §6.3) since the previous lease.
    ///
    /// "Went back" needs care, because a reading is taken *before* the lease waits for
    /// the lock: a process that read its clock and then waited while another, which read
    /// its clock later, took the lock first, brings a reading earlier than the stored
    /// one without any clock having moved back. So a reading counts as a step back only
    /// when it is earlier than the stored one by more than the time a lease can wait for
    /// the lock: the write-ahead window (5 s) or the lock timeout, whichever is longer.
    /// The stored reading (`last_clock`) is the highest seen, so that such a stale reading
    /// does not lower it, except after a step back, when it becomes the new, lower
    /// reading: one step back costs one increment, not one per lease until the clock
    /// catches up. Missing a smaller step back costs nothing: a lease never starts at or
    /// below a position already leased, so timestamps do not repeat whatever the clock
    /// does; the clock sequence is the second line of defence, for state that was lost.
    ///
    /// ```
    /// use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
    /// use uuidkit::{layout::ClockSequence, NodeId};
    ///
    /// let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
    /// let kind = GeneratorKind::Gregorian(NodeId::from_bytes([1, 2, 3, 4, 5, 6]));
    /// let mut req = LeaseRequest::new(kind, 1000, 1000, 10);
    /// req.fresh_clock_seq = ClockSequence::new(77).unwrap();
    /// let a = store.lease(&req)?;
    /// assert_eq!((a.start, a.end, a.clock_seq.unwrap().get()), (1000, 1009, 77));
    /// req.clock = 900; // 100 ticks (10 µs) earlier: a reading taken before the lock
    /// req.from = 900;
    /// let b = store.lease(&req)?;
    /// assert_eq!((b.start, b.clock_seq.unwrap().get()), (1010, 77));
    /// req.clock = 1000 + 60 * 10_000_000; // a minute later
    /// store.lease(&req)?;
    /// req.clock = 1000; // the clock was set back a minute
    /// assert_eq!(store.lease(&req)?.clock_seq.unwrap().get(), 78);
    /// # Ok::<(), uuidkit::store::StoreError>(())
    /// ```
    pub fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
        let _lock = self
            .storage
            .lock(self.lock_timeout)
            .map_err(|p| self.unavailable(p))?;
        let bytes = self
            .storage
            .read(MAX_FILE_SIZE)
            .map_err(|p| self.unavailable(p))?;
        let boot = format::valid_boot_id(self.storage.boot_id());

        let (mut state, warning) = match bytes {
            // First use: nothing to warn about (as libuuid's clock.txt).
            None => (State::default(), None),
            Some(bytes) => {
                let parsed = format::parse(&bytes);
                match parsed.problem {
                    None => (parsed.state, None),
                    // Returned before anything is written: the file is the newer
                    // uuidkit's, and stays as it wrote it.
                    Some(Problem::FutureVersion { found, supported }) => {
                        return Err(self.newer_format(found, supported));
                    }
                    Some(p) => (
                        State::default(),
                        Some(StoreWarning::new(self.display_path(), p, Outcome::Repaired)),
                    ),
                }
            }
        };

        // `high` is exact only while the system that wrote it is still up: a power loss
        // may have dropped writes that were never synced. The write-ahead mark was synced
        // before any position above the previous mark was handed out, so it is a safe
        // floor. Both boot IDs unknown: every write was synced (see below), `high` holds.
        if state.boot != boot {
            for e in &mut state.entries {
                e.high = e.high.max(e.durable);
            }
        }
        state.boot = boot;

        let kind = req.kind;
        let max = kind.max_position();
        let clock = req.clock.min(max);
        let old = state.get(kind).copied();

        let start = match old {
            Some(e) => req.from.max(e.high + 1),
            None => req.from,
        };
        if start > max {
            return Err(StoreError::Exhausted);
        }
        if req.max_start.is_some_and(|m| start > m) {
            return Err(StoreError::Ahead { start });
        }
        let end = start.saturating_add(req.len.max(1) - 1).min(max);

        // See the method's documentation for why a reading slightly behind is not a step.
        let stepped_back = old.is_some_and(|e| {
            clock.saturating_add(self.stale_reading_tolerance(kind)) < e.last_clock
        });
        let clock_seq = match kind {
            GeneratorKind::Gregorian(_) => Some(match (req.clock_seq, old) {
                (Some(fixed), _) => fixed,
                (None, None) => req.fresh_clock_seq,
                (None, Some(e)) => {
                    let stored = e.clock_seq.unwrap_or(req.fresh_clock_seq);
                    if stepped_back { stored.next() } else { stored }
                }
            }),
            GeneratorKind::V7 | GeneratorKind::V8 | GeneratorKind::Draft(_) => None,
        };
        let last_clock = match old {
            Some(e) if !stepped_back => e.last_clock.max(clock),
            _ => clock,
        };

        // Write ahead: once a block passes the mark, raise the mark a window above it and
        // sync before handing the block out. Blocks below the mark need no sync: a crash
        // keeps the page cache, and a power loss falls back to the mark.
        let passes_mark = old.is_none_or(|e| end > e.durable);
        let durable = match old {
            Some(e) if !passes_mark => e.durable,
            _ => end.saturating_add(kind.write_ahead_window()).min(max),
        };
        state.put(Entry {
            kind,
            high: end,
            durable,
            last_clock,
            clock_seq,
        });

        // Without a boot ID a reboot cannot be told from a restart, so `high` must be
        // trustworthy at all times: every write is synced.
        let sync = passes_mark || state.boot.is_none();
        self.storage
            .write(&format::encode(&state), sync)
            .map_err(|p| self.unavailable(p))?;
        Ok(Lease {
            start,
            end,
            clock_seq,
            warning,
        })
    }

    /// How far a clock reading may trail the stored one without being a step back: the
    /// longest a lease can have waited for the lock, in `kind`'s units.
    fn stale_reading_tolerance(&self, kind: GeneratorKind) -> u128 {
        let t = self.lock_timeout;
        let lock_wait = match kind {
            GeneratorKind::Gregorian(_) => t.as_nanos() / 100,
            GeneratorKind::V7 => t.as_millis().saturating_mul(1 << 42),
            GeneratorKind::V8 => (t.as_nanos() / 10).saturating_mul(1 << 30),
            GeneratorKind::Draft(_) => {
                let bits = kind.counter_bits().unwrap_or(0);
                let units = t.as_nanos() * (kind.draft_second() >> bits) / 1_000_000_000;
                units << bits
            }
        };
        lock_wait.max(kind.write_ahead_window())
    }

    /// What the file holds now, and what is wrong with it, without changing it. A file in
    /// a newer format is [`StoreError::NewerFormat`]: this library cannot say what it
    /// holds, and it is not damaged.
    ///
    /// ```
    /// use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
    /// let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
    /// store.lease(&LeaseRequest::new(GeneratorKind::V7, 5, 5, 10))?;
    /// let snap = store.snapshot()?;
    /// assert!(snap.damage.is_none() && snap.checksum_ok);
    /// assert_eq!(snap.entries[0].high, 14);
    /// # Ok::<(), uuidkit::store::StoreError>(())
    /// ```
    pub fn snapshot(&self) -> Result<StateSnapshot, StoreError> {
        let bytes = self
            .storage
            .read(MAX_FILE_SIZE)
            .map_err(|p| self.unavailable(p))?
            .ok_or_else(|| self.unavailable(Problem::Missing))?;
        let parsed = format::parse(&bytes);
        if let Some(Problem::FutureVersion { found, supported }) = parsed.problem {
            return Err(self.newer_format(found, supported));
        }
        Ok(StateSnapshot {
            path: self.display_path(),
            format_version: parsed.version,
            checksum_ok: parsed.checksum_ok,
            boot_id: parsed.state.boot.clone(),
            current_boot_id: format::valid_boot_id(self.storage.boot_id()),
            size: bytes.len(),
            entries: parsed.state.entries.iter().map(Entry::snapshot).collect(),
            damage: parsed
                .problem
                .map(|p| StoreWarning::new(self.display_path(), p, Outcome::WillRepair)),
        })
    }
}

/// The problem of a state file whose bytes are `bytes`, when its header names a newer
/// format ([`Problem::FutureVersion`]): for checks that read the file themselves.
pub(crate) fn newer_format(bytes: &[u8]) -> Option<Problem> {
    match format::newer_header(bytes) {
        Some((_, p @ Problem::FutureVersion { .. })) => Some(p),
        _ => None,
    }
}

/// What a state file holds, for `uuidkit state show` and `state check`.
///
/// ```
/// use uuidkit::store::{read_state, GeneratorKind, LeaseRequest, StateStore};
/// let dir = std::env::temp_dir().join(format!("uuidkit-doc-snapshot-{}", std::process::id()));
/// StateStore::open(dir.join("state")).lease(&LeaseRequest::new(GeneratorKind::V8, 3, 3, 1))?;
/// let snap = read_state(&dir.join("state"))?;
/// assert_eq!(snap.format_version, 1);
/// assert_eq!(snap.entries[0].kind, GeneratorKind::V8);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StateSnapshot {
    /// The file (`<memory>` for a [`MemoryStorage`]).
    pub path: PathBuf,
    /// The format version the file states; 0 if its first line is not a header.
    pub format_version: u32,
    /// Whether the checksum line matches the content.
    pub checksum_ok: bool,
    /// The boot ID the file records.
    pub boot_id: Option<String>,
    /// This system's boot ID now. When it differs from `boot_id`, the next lease starts
    /// above each entry's `durable`.
    pub current_boot_id: Option<String>,
    /// The file's size in bytes (up to [`MAX_FILE_SIZE`] + 1).
    pub size: usize,
    /// The entries, as far as they could be read (those before any damage).
    pub entries: Vec<EntrySnapshot>,
    /// What is wrong with the file, naming the line and field; `None` if it is sound.
    pub damage: Option<StoreWarning>,
}

/// One generator kind's entry in a state file.
///
/// ```
/// # use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
/// # let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
/// store.lease(&LeaseRequest::new(GeneratorKind::V7, 5, 5, 10))?;
/// let e = &store.snapshot()?.entries[0];
/// assert_eq!((e.high, e.last_clock), (14, 5));
/// assert_eq!(e.durable, 14 + GeneratorKind::V7.write_ahead_window());
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntrySnapshot {
    /// Whose entry.
    pub kind: GeneratorKind,
    /// The highest position ever leased (exact while the system stays up).
    pub high: u128,
    /// The write-ahead mark: every position ever leased is at or below it, and the last
    /// synced file says so.
    pub durable: u128,
    /// The highest clock reading of the leases since the clock last went back (see
    /// [`StateStore::lease`]).
    pub last_clock: u128,
    /// Gregorian: the clock sequence; `None` for v7 and v8.
    pub clock_seq: Option<ClockSequence>,
}

/// Reads the state file at `path` without locking or changing it: what it holds, and
/// in [`StateSnapshot::damage`] what is wrong with it. A missing or unreadable file is
/// [`StoreError::Unavailable`] (with [`Problem::Missing`] or [`Problem::Io`]); one in a
/// newer format is [`StoreError::NewerFormat`].
///
/// ```
/// use uuidkit::store::{read_state, Problem, StoreError};
/// let dir = std::env::temp_dir().join(format!("uuidkit-doc-read-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("state"), "uuidkit-state 1\nboot none\nv7 high=x\n").unwrap();
/// let damage = read_state(&dir.join("state"))?.damage.unwrap();
/// assert_eq!(damage.problem().to_string(), "is cut short after line 3: no checksum line");
/// match read_state(&dir.join("absent")) {
///     Err(StoreError::Unavailable(w)) => assert_eq!(w.problem(), &Problem::Missing),
///     other => panic!("{other:?}"),
/// }
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), StoreError>(())
/// ```
pub fn read_state(path: &Path) -> Result<StateSnapshot, StoreError> {
    StateStore::open(path).snapshot()
}

/// Where the state file lives by default: `$XDG_STATE_HOME/uuidkit/state`, else
/// `$HOME/.local/state/uuidkit/state` (the XDG base directory rules: a relative or empty
/// `XDG_STATE_HOME` is ignored); `None` if neither variable gives an absolute path.
///
/// ```
/// if let Some(p) = uuidkit::store::default_path() {
///     assert!(p.ends_with("uuidkit/state"));
/// }
/// ```
pub fn default_path() -> Option<PathBuf> {
    default_path_from(
        std::env::var_os("XDG_STATE_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
}

fn default_path_from(xdg_state_home: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    if let Some(x) = xdg_state_home.filter(|p| p.is_absolute()) {
        return Some(x.join("uuidkit").join("state"));
    }
    home.filter(|p| p.is_absolute())
        .map(|h| h.join(".local").join("state").join("uuidkit").join("state"))
}
