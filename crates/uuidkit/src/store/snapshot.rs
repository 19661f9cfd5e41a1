//! Snapshots: what a state file holds and what is wrong with it, read without changing it
//! (`uuidkit state show` and `state check`).

use std::path::PathBuf;

use super::error::StoreWarning;
use super::kind::GeneratorKind;
use crate::layout::ClockSequence;

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
    /// [`StateStore::lease`](crate::store::StateStore::lease)).
    pub last_clock: u128,
    /// Gregorian: the clock sequence; `None` for v7 and v8.
    pub clock_seq: Option<ClockSequence>,
}
