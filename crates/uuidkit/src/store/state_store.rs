//! [`StateStore`]: leases from a state file, and snapshots of it. Here rather than in
//! `mod.rs`, so that `mod.rs` only declares and re-exports; the `LeaseSource` impl and
//! `read_state` live here too, so that lease.rs and snapshot.rs need not import the
//! store that uses them.

use core::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::{Outcome, Problem, StoreError, StoreWarning};
use super::format::{self, Entry, State};
use super::kind::GeneratorKind;
use super::lease::{Lease, LeaseRequest, LeaseSource};
use super::limits::{DEFAULT_LOCK_TIMEOUT, MAX_FILE_SIZE};
use super::snapshot::StateSnapshot;
use super::storage::{FileStorage, Storage};

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

    /// The store over any [`Storage`], such as a [`MemoryStorage`](crate::store::MemoryStorage) in tests.
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
            machine_id: None,
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
        let read = || {
            self.storage
                .read(MAX_FILE_SIZE)
                .map_err(|p| self.unavailable(p))?
                .ok_or_else(|| self.unavailable(Problem::Missing))
        };
        let mut bytes = read()?;
        let mut parsed = format::parse(&bytes);
        // Read without the lock, a file with several hard links (written in place) can
        // be caught in the middle of a write: damage that a moment later is gone. Only
        // damage that stays is reported.
        for _ in 0..SNAPSHOT_RETRIES {
            if parsed.problem.is_none() || parsed.version > format::VERSION {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
            let again = read()?;
            if again == bytes {
                break;
            }
            bytes = again;
            parsed = format::parse(&bytes);
        }
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

/// How many times [`StateStore::snapshot`] reads a damaged file again before it
/// reports the damage.
const SNAPSHOT_RETRIES: usize = 3;

impl LeaseSource for StateStore {
    fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
        StateStore::lease(self, req)
    }

    fn warning(&self, problem: Problem, outcome: Outcome) -> StoreWarning {
        StoreWarning::new(self.display_path(), problem, outcome)
    }
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
///
/// # Errors
///
/// As [`StateStore::snapshot`].
pub fn read_state(path: &Path) -> Result<StateSnapshot, StoreError> {
    StateStore::open(path).snapshot()
}
