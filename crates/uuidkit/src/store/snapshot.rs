//! Snapshots: what a state file holds and what is wrong with it, read without changing it
//! (`uuidkit state show` and `state check`).

use std::path::{Path, PathBuf};

use super::{GeneratorKind, Problem, StateStore, StoreError, StoreWarning, format};
use crate::layout::ClockSequence;

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
    /// The file (`<memory>` for a [`MemoryStorage`](super::MemoryStorage)).
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
    /// The file's size in bytes (up to [`MAX_FILE_SIZE`](super::MAX_FILE_SIZE) + 1).
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
///
/// # Errors
///
/// As [`StateStore::snapshot`](super::StateStore::snapshot).
pub fn read_state(path: &Path) -> Result<StateSnapshot, StoreError> {
    StateStore::open(path).snapshot()
}
