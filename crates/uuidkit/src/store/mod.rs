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

mod error;
mod format;
mod kind;
mod lease;
mod snapshot;
mod storage;
#[cfg(test)]
mod tests;

use core::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use error::{Outcome, Problem, StoreError, StoreWarning};
pub use kind::GeneratorKind;
pub use lease::{Lease, LeaseRequest, LeaseSource};
pub(crate) use snapshot::newer_format;
pub use snapshot::{EntrySnapshot, StateSnapshot, read_state};
pub use storage::{FileStorage, LockGuard, MemoryStorage, Storage};

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
    ///
    /// # Errors
    ///
    /// [`StoreError::Ahead`] when the lease would start above the request's `max_start`,
    /// [`StoreError::Exhausted`] when the kind's positions are all leased,
    /// [`StoreError::NewerFormat`] for a file a newer uuidkit wrote, and
    /// [`StoreError::Unavailable`] when the file cannot be locked, read or written; nothing
    /// was granted in any of them.
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
    ///
    /// # Errors
    ///
    /// [`StoreError::NewerFormat`] for a file a newer uuidkit wrote, and
    /// [`StoreError::Unavailable`] when it cannot be locked or read (missing, say).
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
