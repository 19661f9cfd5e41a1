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
//!   file renamed over the old one; for a file with several hard links, the new text
//!   written in place, padded so that the old or the new one is whole, for a file of up
//!   to 4 KiB), and the
//!   page cache holds it for the next process.
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
mod limits;
mod snapshot;
mod state_store;
mod storage;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use error::{Outcome, Problem, StoreError, StoreWarning};
pub(crate) use format::newer_format;
pub use kind::GeneratorKind;
pub use lease::{Lease, LeaseRequest, LeaseSource};
pub use limits::{DEFAULT_LOCK_TIMEOUT, MAX_FILE_SIZE, MAX_GREGORIAN_ENTRIES};
pub use snapshot::{EntrySnapshot, StateSnapshot};
pub use state_store::{StateStore, read_state};
pub use storage::{FileStorage, LockGuard, MemoryStorage, Storage};

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
