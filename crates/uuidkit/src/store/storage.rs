//! Where state files live: the [`Storage`] layer under [`StateStore`](super::StateStore),
//! the real [`FileStorage`], and [`MemoryStorage`] for tests.

use core::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use super::error::Problem;

/// The longest pause between two attempts at a busy lock: short enough that a waiter
/// takes over soon after the holder is done, long enough not to spin.
const MAX_LOCK_PAUSE: Duration = Duration::from_millis(10);

/// What a [`StateStore`](super::StateStore) needs of the place its state lives: a lock
/// with a timeout, the current bytes, atomic replacement of them (synced or not), and
/// the boot ID.
///
/// Implementations report failures as [`Problem`]s naming the file and the operation;
/// the store adds the outcome.
///
/// ```
/// use std::time::Duration;
/// use uuidkit::store::{MemoryStorage, Storage};
///
/// let s = MemoryStorage::new();
/// let guard = s.lock(Duration::from_millis(10)).unwrap();
/// assert_eq!(s.read(1024).unwrap(), None);
/// s.write(b"abc", true).unwrap();
/// assert_eq!(s.read(1024).unwrap().as_deref(), Some(&b"abc"[..]));
/// drop(guard);
/// ```
pub trait Storage: Send + Sync {
    /// The state file, if the storage is a file (for messages and
    /// [`StateStore::path`](super::StateStore::path)).
    fn path(&self) -> Option<&Path>;

    /// Takes the exclusive, system-wide lock, waiting at most `timeout` for another
    /// holder ([`Problem::LockTimeout`]). Held until the guard is dropped.
    ///
    /// # Errors
    ///
    /// [`Problem::LockTimeout`] when another holder keeps it past `timeout`, and the
    /// [`Problem`] of the storage when it cannot be locked at all.
    fn lock(&self, timeout: Duration) -> Result<LockGuard<'_>, Problem>;

    /// The current content, `None` if there is none (first use). Reads at most
    /// `limit + 1` bytes: enough for the caller to tell the content is over `limit`
    /// without reading a file of any size.
    ///
    /// # Errors
    ///
    /// The [`Problem`] that kept the content from being read.
    fn read(&self, limit: usize) -> Result<Option<Vec<u8>>, Problem>;

    /// Replaces the content atomically: a reader sees the old bytes or the new ones,
    /// never a mix. With `durable`, the new bytes survive a power loss once this returns;
    /// without, they survive a crash of the process but maybe not a power loss.
    ///
    /// # Errors
    ///
    /// The [`Problem`] that kept the content from being replaced; the old content is
    /// then still there.
    fn write(&self, bytes: &[u8], durable: bool) -> Result<(), Problem>;

    /// The ID of the running system's boot, which changes at every boot; `None` where
    /// there is none.
    fn boot_id(&self) -> Option<String>;
}

/// Proof of holding a [`Storage`]'s lock; dropping it releases the lock.
///
/// ```
/// use std::time::Duration;
/// use uuidkit::store::{MemoryStorage, Storage};
/// let s = MemoryStorage::new();
/// let guard = s.lock(Duration::ZERO).unwrap();
/// assert!(s.lock(Duration::ZERO).is_err()); // held
/// drop(guard);
/// assert!(s.lock(Duration::ZERO).is_ok());
/// ```
pub struct LockGuard<'a> {
    _held: Box<dyn Held + 'a>,
}

/// Anything: a guard only needs to be dropped.
trait Held {}
impl<T> Held for T {}

impl<'a> LockGuard<'a> {
    /// A guard that releases the lock by dropping `held` (a locked file, a mutex guard).
    ///
    /// ```
    /// let m = std::sync::Mutex::new(());
    /// let guard = uuidkit::store::LockGuard::new(m.lock().unwrap());
    /// assert!(m.try_lock().is_err());
    /// drop(guard);
    /// assert!(m.try_lock().is_ok());
    /// ```
    pub fn new<T: 'a>(held: T) -> LockGuard<'a> {
        LockGuard {
            _held: Box::new(held),
        }
    }
}

impl fmt::Debug for LockGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LockGuard")
    }
}

/// Calls `attempt` until it gives the lock, pausing briefly in between, for at most
/// `timeout` (at least one attempt).
fn poll_lock<T>(
    timeout: Duration,
    mut attempt: impl FnMut() -> Result<Option<T>, Problem>,
) -> Result<T, Problem> {
    // A timeout too large for `Instant` waits for ever.
    let deadline = Instant::now().checked_add(timeout);
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(guard) = attempt()? {
            return Ok(guard);
        }
        let left = match deadline {
            Some(d) => d.saturating_duration_since(Instant::now()),
            None => MAX_LOCK_PAUSE,
        };
        if left.is_zero() {
            return Err(Problem::LockTimeout { timeout });
        }
        thread::sleep(pause.min(left));
        pause = (pause * 2).min(MAX_LOCK_PAUSE);
    }
}

/// The state file on disk, and its lock file beside it.
///
/// - Identity: the store works on the file a name leads to, not on the name. The path is
///   made absolute when the storage is made (a later change of directory changes
///   nothing), and at each lock its symbolic links are followed, to the last one, and its
///   directory resolved: two processes that name one file by different paths (a symbolic
///   link, `dir/../dir`, relative paths from different directories) lock the same lock
///   file and write the same file, and a symbolic link stays a link. Hard links, which
///   nothing leads from one to the other, meet at the file itself: see Lock and Write.
/// - Only a regular file (or none yet) is a state file: a device, FIFO, socket or
///   directory at the path is [`Problem::NotRegular`] and is never read, written or
///   replaced.
/// - Lock: an exclusive `flock` on `<file>.lock`, a file that is created once and never
///   replaced or removed (replacing it would let two processes lock two different
///   files), then one on the state file itself, when there is one: its inode is what
///   every name of it shares, hard links included. A file replaced while a lock waited
///   on it is opened and locked again. The kernel releases both when their holder
///   exits, however it exits.
/// - Write: a temporary file `<file>.tmp` in the same directory (so the rename cannot
///   cross file systems), renamed over the state file; for a durable write, the file is
///   synced before the rename and the directory after it. A file with more than one
///   hard link is written in place instead, through the locked file (a rename would
///   split its names into two files): the new bytes over the old from the start, padded
///   with line feeds to the old length, then cut to the new length, so that a writer
///   killed at any point leaves the old text or the new one (the format allows line
///   feeds after the checksum line) — for a file of at most one page (4 KiB), which
///   Linux writes whole; a longer one, or a power loss mid-write, can be left damaged,
///   which the next lease reports and repairs. Durable writes are synced.
/// - Boot ID: `/proc/sys/kernel/random/boot_id` on Linux, `None` elsewhere.
///
/// ```
/// use uuidkit::store::{FileStorage, StateStore};
/// let path = std::env::temp_dir().join("uuidkit-doc-file-storage/state");
/// let store = StateStore::with_storage(Box::new(FileStorage::new(&path)));
/// assert_eq!(store.path(), Some(path.as_path()));
/// ```
#[derive(Clone, Debug)]
pub struct FileStorage {
    /// As given: for messages.
    path: PathBuf,
    /// Absolute, from the directory current when the storage was made.
    absolute: PathBuf,
    /// Where the last lock found the file, and the file itself while a lock is held:
    /// read and write use what the lock they run under resolved and locked, so a link
    /// changed meanwhile cannot send them elsewhere.
    slot: Arc<Mutex<Slot>>,
}

/// What a lock found, kept for the read and write under it.
#[derive(Debug, Default)]
struct Slot {
    at: Option<Resolved>,
    /// The state file, open and locked, while a lock is held and the file exists.
    file: Option<File>,
}

/// A held lock: the lock file's, and the state file's in the storage's slot, which
/// dropping this closes (closing releases a `flock`).
struct FileLocks<'a> {
    _lock_file: File,
    slot: &'a Mutex<Slot>,
}

impl Drop for FileLocks<'_> {
    fn drop(&mut self) {
        lock_slot(self.slot).file = None;
    }
}

// A poisoned slot only means a thread panicked while holding it; what it holds is whole.
fn lock_slot(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

/// How many times a lock opens the state file again after finding it replaced while it
/// waited (by a writer that renamed a new file over it) before giving up.
const MAX_REOPENS: usize = 16;

/// The three files of one state file, at its real place.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Resolved {
    file: PathBuf,
    lock: PathBuf,
    tmp: PathBuf,
}

impl Resolved {
    fn of(file: PathBuf) -> Resolved {
        let with_suffix = |suffix: &str| {
            let mut p = file.clone().into_os_string();
            p.push(suffix);
            PathBuf::from(p)
        };
        Resolved {
            lock: with_suffix(".lock"),
            tmp: with_suffix(".tmp"),
            file,
        }
    }

    /// The directory holding the state file.
    fn dir(&self) -> &Path {
        dir_of(&self.file)
    }
}

/// The directory holding `path`: its parent, or `.` for a bare name.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// How many symbolic links in a row are followed before the path is taken as a loop
/// (the number Linux allows, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The file `path` leads to: every symbolic link of its last component followed (a
/// dangling one to where it points, which the first write creates), its directory
/// resolved where it exists. Errors only for a loop of links.
fn resolve(path: &Path) -> Result<PathBuf, Problem> {
    let mut p = path.to_path_buf();
    // MAX_LINKS links followed, and the file they lead to looked at: one more round.
    for _ in 0..=MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                refuse_planted_link(&p, &m)?;
                refuse_descriptor_link(&p)?;
                let target = fs::read_link(&p)
                    .map_err(|e| Problem::io(format!("read the link {}", p.display()), &e))?;
                p = match p.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            _ => {
                // `canonicalize` resolves the directory's own links and `..`, so that
                // `a/state` and `b/../a/state` are one file; a directory not yet made is
                // kept as written (the lock creates it, then resolves again).
                if let Some(name) = p.file_name()
                    && let Ok(dir) = fs::canonicalize(dir_of(&p))
                {
                    return Ok(dir.join(name));
                }
                return Ok(p);
            }
        }
    }
    Err(Problem::io(
        format!("follow the links of {}", path.display()),
        &std::io::Error::other(format!("more than {MAX_LINKS} symbolic links in a row")),
    ))
}

/// A link in `/proc` (`/proc/self/fd/7`, and `/dev/fd/7`, which leads there) stands for
/// an open file, not a place: its text is a name the file had when opened (`… (deleted)`
/// once a write renamed a new file over it), which leads elsewhere, or nowhere.
fn refuse_descriptor_link(link: &Path) -> Result<(), Problem> {
    let in_proc = fs::canonicalize(dir_of(link)).is_ok_and(|d| d.starts_with("/proc"));
    if in_proc {
        return Err(Problem::io(
            format!("follow the link {}", link.display()),
            &std::io::Error::other(
                "it is an open file's descriptor in /proc, which names no place the state \
                 file stays at; give the file's own path",
            ),
        ));
    }
    Ok(())
}

/// The kernel's rule for following links (`fs.protected_symlinks`), which following
/// them here, outside the kernel, would bypass: a link in a sticky directory that anyone
/// may write (`/tmp`) is followed only by its owner, or when the directory's owner owns
/// it too. Otherwise anyone could point another user's state file at a file of theirs.
#[cfg(unix)]
fn refuse_planted_link(link: &Path, m: &fs::Metadata) -> Result<(), Problem> {
    use std::os::unix::fs::MetadataExt;
    let Ok(d) = fs::metadata(dir_of(link)) else {
        return Ok(());
    };
    // Where the kernel does not protect links (the setting is 0), neither does this.
    let protected =
        fs::read_to_string("/proc/sys/fs/protected_symlinks").map_or(true, |v| v.trim() != "0");
    let sticky_and_open = protected && d.mode() & 0o1002 == 0o1002;
    if sticky_and_open && m.uid() != d.uid() && m.uid() != crate::platform::effective_uid() {
        return Err(Problem::io(
            format!("follow the link {}", link.display()),
            &std::io::Error::other(
                "it is another user's link in a sticky directory anyone may write \
                 (the kernel's protected_symlinks rule)",
            ),
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_planted_link(_link: &Path, _m: &fs::Metadata) -> Result<(), Problem> {
    Ok(())
}

/// What a file that is not a regular file is, for [`Problem::NotRegular`].
fn kind_of(t: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// `Err` unless `path` is a regular file or nothing: what is there is never used.
fn must_be_regular(path: &Path, metadata: std::io::Result<fs::Metadata>) -> Result<(), Problem> {
    match metadata {
        Ok(m) if !m.is_file() => Err(Problem::NotRegular {
            path: path.to_path_buf(),
            what: kind_of(m.file_type()),
        }),
        _ => Ok(()),
    }
}

/// Opens `path` for reading without blocking on a FIFO (whose `open` waits for a writer):
/// the caller checks what was opened before reading it.
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    unfollowed_nonblocking(&mut options, false);
    options.open(path)
}

/// `O_NONBLOCK` (a FIFO's `open` would wait for its other end), and with `no_follow`
/// `O_NOFOLLOW` (a link at the lock's or the temporary file's name, which uuidkit never
/// makes, is an error rather than a way to create or overwrite the file it points to).
fn unfollowed_nonblocking(options: &mut OpenOptions, no_follow: bool) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let flags = libc::O_NONBLOCK | if no_follow { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(flags);
    }
    #[cfg(not(unix))]
    let _ = (options, no_follow);
}

impl FileStorage {
    /// The storage of the state file at `path`. Reads nothing: the directory is created
    /// at the first lock. A relative `path` is taken from the current directory now.
    ///
    /// ```
    /// use uuidkit::store::{FileStorage, Storage};
    /// let s = FileStorage::new("/var/lib/uuidkit/state");
    /// assert_eq!(s.lock_path(), std::path::Path::new("/var/lib/uuidkit/state.lock"));
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> FileStorage {
        let path = path.into();
        let absolute = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
        FileStorage {
            path,
            absolute,
            slot: Arc::new(Mutex::new(Slot::default())),
        }
    }

    /// The lock file: the state file's path with `.lock` appended — of the file the path
    /// leads to, once a lock has followed its links; until then, of the path (made
    /// absolute).
    ///
    /// ```
    /// let s = uuidkit::store::FileStorage::new("state");
    /// let here = std::env::current_dir().unwrap();
    /// assert_eq!(s.lock_path(), here.join("state.lock"));
    /// ```
    pub fn lock_path(&self) -> PathBuf {
        self.current().lock
    }

    /// What the last lock resolved, or the path as it stands.
    fn current(&self) -> Resolved {
        lock_slot(&self.slot)
            .at
            .clone()
            .unwrap_or_else(|| Resolved::of(self.absolute.clone()))
    }

    /// Opens and locks the state file itself (`None` when there is none yet), within
    /// `timeout`. Called with the lock file held.
    fn lock_file_itself(&self, at: &Resolved, timeout: Duration) -> Result<Option<File>, Problem> {
        let deadline = Instant::now().checked_add(timeout);
        let path = &at.file;
        for _ in 0..MAX_REOPENS {
            let file = match open_state_file(path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(Problem::io(format!("open {}", path.display()), &e)),
            };
            must_be_regular(path, file.metadata())?;
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            poll_lock(left, || match file.try_lock() {
                Ok(()) => Ok(Some(())),
                Err(TryLockError::WouldBlock) => Ok(None),
                Err(TryLockError::Error(e)) => {
                    Err(Problem::io(format!("lock {}", path.display()), &e))
                }
            })?;
            // Still the file at the name? A writer that reached it by another name, when
            // it had no other, renamed a new one over it while this lock waited.
            match (fs::symlink_metadata(path), file.metadata()) {
                (Ok(now), Ok(held)) if same_file(&now, &held) => return Ok(Some(file)),
                (Err(e), _) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                _ => continue,
            }
        }
        Err(Problem::io(
            format!("lock {}", path.display()),
            &std::io::Error::other(format!(
                "it was replaced {MAX_REOPENS} times while the lock waited for it"
            )),
        ))
    }

    fn write_tmp(&self, at: &Resolved, bytes: &[u8], durable: bool) -> Result<(), Problem> {
        let tmp = &at.tmp;
        // A new file, never one that is there: whatever is at the name (a file a killed
        // writer left, or a link, FIFO or device someone put there) is removed first, so
        // that nothing is written through it and nothing but a new regular file is
        // renamed over the state file.
        let create = || {
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            unfollowed_nonblocking(&mut options, true);
            options.open(tmp)
        };
        let mut f = match create() {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                // A directory there is removed too, if empty (one with files in it is
                // someone's, and an error).
                let is_dir = fs::symlink_metadata(tmp).is_ok_and(|m| m.is_dir());
                let removed = if is_dir {
                    fs::remove_dir(tmp)
                } else {
                    fs::remove_file(tmp)
                };
                removed.map_err(|e| Problem::io(format!("remove {}", tmp.display()), &e))?;
                create()
            }
            other => other,
        }
        .map_err(|e| Problem::io(format!("create {}", tmp.display()), &e))?;
        f.write_all(bytes)
            .map_err(|e| Problem::io(format!("write {}", tmp.display()), &e))?;
        if durable {
            f.sync_all()
                .map_err(|e| Problem::io(format!("sync {}", tmp.display()), &e))?;
        }
        Ok(())
    }
}

/// Opens the state file to lock it, read it and, when it has other hard links, write
/// it: read-write where allowed, else read-only (a state file only ever renamed over
/// needs no write permission of its own). Never through a link at the last component
/// (the lock just resolved them all: one there now was put there since), and never
/// waiting on a FIFO.
fn open_state_file(path: &Path) -> std::io::Result<File> {
    let open = |write: bool| {
        let mut options = OpenOptions::new();
        options.read(true).write(write);
        unfollowed_nonblocking(&mut options, true);
        options.open(path)
    };
    match open(true) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            open(false)
        }
        other => other,
    }
}

/// Whether two metadata describe one file (device and inode).
#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

/// Whether the open file has names besides the one the lock reached it by.
#[cfg(unix)]
fn has_other_names(file: &File) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    Ok(file.metadata()?.nlink() > 1)
}

#[cfg(not(unix))]
fn has_other_names(_file: &File) -> std::io::Result<bool> {
    Ok(false)
}

/// Writes `bytes` over the content of the locked `file`, in place: padded with line
/// feeds to the old length first, then cut, so that the file holds the old text, the new
/// one, or the new one followed by line feeds, whenever the writer is killed.
fn write_in_place(file: &File, path: &Path, bytes: &[u8], durable: bool) -> Result<(), Problem> {
    let io = |what: &str, e: std::io::Error| Problem::io(format!("{what} {}", path.display()), &e);
    let old_len = file.metadata().map_err(|e| io("write", e))?.len();
    let mut padded = bytes.to_vec();
    if let Ok(old) = usize::try_from(old_len)
        && old > padded.len()
    {
        padded.resize(old, b'\n');
    }
    let mut f = file;
    f.seek(SeekFrom::Start(0)).map_err(|e| io("write", e))?;
    f.write_all(&padded).map_err(|e| io("write", e))?;
    if padded.len() > bytes.len() {
        file.set_len(bytes.len() as u64)
            .map_err(|e| io("truncate", e))?;
    }
    if durable {
        file.sync_all().map_err(|e| io("sync", e))?;
    }
    Ok(())
}

impl Storage for FileStorage {
    fn path(&self) -> Option<&Path> {
        Some(&self.path)
    }

    fn lock(&self, timeout: Duration) -> Result<LockGuard<'_>, Problem> {
        let started = Instant::now();
        let mut at = Resolved::of(resolve(&self.absolute)?);
        // Before anything is created beside it: a path that leads to a device, a FIFO or
        // a directory gets no lock file either.
        must_be_regular(&at.file, fs::metadata(&at.file))?;
        let open = |lock_path: &Path| {
            let mut options = OpenOptions::new();
            options.read(true).write(true).create(true).truncate(false);
            unfollowed_nonblocking(&mut options, true);
            options.open(lock_path)
        };
        // The directory exists but at first use: create it only then, which spares every
        // other lease the system calls.
        let file = match open(&at.lock) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let dir = at.dir().to_path_buf();
                fs::create_dir_all(&dir)
                    .map_err(|e| Problem::io(format!("create directory {}", dir.display()), &e))?;
                // Now that the directory is there, it resolves to where it really is.
                at = Resolved::of(resolve(&self.absolute)?);
                open(&at.lock)
            }
            other => other,
        }
        .map_err(|e| Problem::io(format!("open {}", at.lock.display()), &e))?;
        must_be_regular(&at.lock, file.metadata())?;
        // One open file per attempt at the lock: `flock` locks belong to the open file,
        // so two threads of one process exclude each other as two processes do.
        // `File::try_lock` (stable since Rust 1.89, the workspace's rust-version) is the
        // file lock std offers without `unsafe`.
        let lock_path = at.lock.clone();
        let locked = poll_lock(timeout, || match file.try_lock() {
            Ok(()) => Ok(Some(())),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => {
                Err(Problem::io(format!("lock {}", lock_path.display()), &e))
            }
        });
        locked?;
        // The lock file is the name's; the state file's own lock is what its hard links
        // share. Taken in this order by everyone, the two cannot deadlock.
        // A lock file that is the state file itself (a hard link between the two names)
        // would be locked twice by this process: said, rather than waited out.
        if let (Ok(state), Ok(lock)) = (fs::metadata(&at.file), file.metadata())
            && same_file(&state, &lock)
        {
            return Err(Problem::io(
                format!("lock {}", at.lock.display()),
                &std::io::Error::other(format!(
                    "it is a hard link to the state file {}; remove it",
                    at.file.display()
                )),
            ));
        }
        // One timeout for both: waiting on one and then the other is one wait.
        let left = timeout.saturating_sub(started.elapsed());
        let state_file = self.lock_file_itself(&at, left).map_err(|p| match p {
            Problem::LockTimeout { .. } => Problem::LockTimeout { timeout },
            p => p,
        })?;

        let mut slot = lock_slot(&self.slot);
        slot.at = Some(at);
        slot.file = state_file;
        drop(slot);
        Ok(LockGuard::new(FileLocks {
            _lock_file: file,
            slot: &self.slot,
        }))
    }

    fn read(&self, limit: usize) -> Result<Option<Vec<u8>>, Problem> {
        let at = self.current();
        let path = &at.file;
        let io = |e: std::io::Error| Problem::io(format!("read {}", path.display()), &e);
        // Under a lock: the file it locked.
        if let Some(locked) = lock_slot(&self.slot).file.as_ref() {
            let mut f = locked;
            f.seek(SeekFrom::Start(0)).map_err(io)?;
            let mut bytes = Vec::new();
            f.take(limit as u64 + 1)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            return Ok(Some(bytes));
        }
        // Looked at before it is opened: opening a socket or a device is already an
        // action on it.
        must_be_regular(path, fs::metadata(path))?;
        let f = match open_without_blocking(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        // What was opened, not what the name was a moment before.
        must_be_regular(path, f.metadata())?;
        let mut bytes = Vec::new();
        f.take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        Ok(Some(bytes))
    }

    fn write(&self, bytes: &[u8], durable: bool) -> Result<(), Problem> {
        let at = self.current();
        {
            let mut slot = lock_slot(&self.slot);
            if let Some(locked) = slot.file.as_ref() {
                let in_place = has_other_names(locked)
                    .map_err(|e| Problem::io(format!("write {}", at.file.display()), &e))?;
                if in_place {
                    return write_in_place(locked, &at.file, bytes, durable);
                }
                // Renamed over below: what this lock holds is the old file from then on,
                // which no name leads to (it had one), so nothing more is read from it.
                slot.file = None;
            }
        }
        // Never rename over something that is not a state file.
        must_be_regular(&at.file, fs::metadata(&at.file))?;
        if let Err(p) = self.write_tmp(&at, bytes, durable) {
            let _ = fs::remove_file(&at.tmp);
            return Err(p);
        }
        if let Err(e) = fs::rename(&at.tmp, &at.file) {
            let _ = fs::remove_file(&at.tmp);
            return Err(Problem::io(
                format!("rename {} to {}", at.tmp.display(), at.file.display()),
                &e,
            ));
        }
        // The rename is an entry in the directory: sync it too, or a power loss may
        // bring back the old file. (Only Unix lets a directory be opened and synced;
        // elsewhere the rename is as durable as the system makes it.)
        if durable && cfg!(unix) {
            let dir = at.dir();
            File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| Problem::io(format!("sync directory {}", dir.display()), &e))?;
        }
        Ok(())
    }

    fn boot_id(&self) -> Option<String> {
        system_boot_id()
    }
}

/// The running system's boot ID, read once per process (it cannot change under it).
fn system_boot_id() -> Option<String> {
    static BOOT_ID: OnceLock<Option<String>> = OnceLock::new();
    BOOT_ID
        .get_or_init(|| {
            if cfg!(target_os = "linux") {
                fs::read_to_string("/proc/sys/kernel/random/boot_id")
                    .ok()
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
            } else {
                None
            }
        })
        .clone()
}

/// A [`Storage`] in memory, for tests: it keeps the latest bytes and the last ones
/// written durably, and [`power_loss`](MemoryStorage::power_loss) drops every write
/// since. Clones share the same content and lock, as processes share a file.
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
///
/// let disk = MemoryStorage::new();
/// let a = StateStore::with_storage(Box::new(disk.clone()));
/// let mut top = 0;
/// for i in 0..100 {
///     top = a.lease(&LeaseRequest::new(GeneratorKind::V7, i, i, 1000))?.end;
/// }
/// disk.power_loss();
/// let b = StateStore::with_storage(Box::new(disk.clone()));
/// assert!(b.lease(&LeaseRequest::new(GeneratorKind::V7, 0, 0, 1))?.start > top);
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
#[derive(Clone, Default)]
pub struct MemoryStorage {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    lock: Mutex<()>,
    disk: Mutex<Disk>,
}

#[derive(Default)]
struct Disk {
    current: Option<Vec<u8>>,
    durable: Option<Vec<u8>>,
    boots: u64,
    no_boot_id: bool,
    failing: bool,
    writes: u64,
    durable_writes: u64,
}

impl fmt::Debug for MemoryStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.disk();
        f.debug_struct("MemoryStorage")
            .field("len", &d.current.as_ref().map(Vec::len))
            .field("boots", &d.boots)
            .finish_non_exhaustive()
    }
}

impl MemoryStorage {
    /// Empty storage (no file yet) with a boot ID.
    ///
    /// ```
    /// use uuidkit::store::{MemoryStorage, Storage};
    /// let s = MemoryStorage::new();
    /// assert!(s.contents().is_none() && s.boot_id().is_some());
    /// ```
    pub fn new() -> MemoryStorage {
        MemoryStorage::default()
    }

    // A poisoned mutex only means a test panicked elsewhere; the bytes are still whole.
    fn disk(&self) -> MutexGuard<'_, Disk> {
        self.shared.disk.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The power fails: every write since the last durable one is lost, and the system
    /// boots again with a new boot ID.
    ///
    /// ```
    /// use uuidkit::store::{MemoryStorage, Storage};
    /// let s = MemoryStorage::new();
    /// let boot = s.boot_id();
    /// s.write(b"synced", true).unwrap();
    /// s.write(b"cached", false).unwrap();
    /// s.power_loss();
    /// assert_eq!(s.contents().as_deref(), Some(&b"synced"[..]));
    /// assert_ne!(s.boot_id(), boot);
    /// ```
    pub fn power_loss(&self) {
        let mut d = self.disk();
        d.current = d.durable.clone();
        d.boots += 1;
    }

    /// The current content (what a reader sees).
    ///
    /// ```
    /// let s = uuidkit::store::MemoryStorage::new();
    /// assert_eq!(s.contents(), None);
    /// ```
    pub fn contents(&self) -> Option<Vec<u8>> {
        self.disk().current.clone()
    }

    /// The content as last written durably (what a power loss would leave).
    ///
    /// ```
    /// use uuidkit::store::{MemoryStorage, Storage};
    /// let s = MemoryStorage::new();
    /// s.write(b"x", false).unwrap();
    /// assert_eq!(s.durable_contents(), None);
    /// ```
    pub fn durable_contents(&self) -> Option<Vec<u8>> {
        self.disk().durable.clone()
    }

    /// Sets the content, durably, as if written by someone else: for damaged-file tests.
    /// `None` removes it.
    ///
    /// ```
    /// let s = uuidkit::store::MemoryStorage::new();
    /// s.set_contents(Some(b"garbage".to_vec()));
    /// assert_eq!(s.contents().as_deref(), Some(&b"garbage"[..]));
    /// ```
    pub fn set_contents(&self, bytes: Option<Vec<u8>>) {
        let mut d = self.disk();
        d.current = bytes.clone();
        d.durable = bytes;
    }

    /// Whether the system has a boot ID (it has by default).
    ///
    /// ```
    /// use uuidkit::store::{MemoryStorage, Storage};
    /// let s = MemoryStorage::new();
    /// s.set_has_boot_id(false);
    /// assert_eq!(s.boot_id(), None);
    /// ```
    pub fn set_has_boot_id(&self, has: bool) {
        self.disk().no_boot_id = !has;
    }

    /// Makes every read and write fail (as an unreadable, read-only file would), or work
    /// again.
    ///
    /// ```
    /// use uuidkit::store::{MemoryStorage, Storage};
    /// let s = MemoryStorage::new();
    /// s.set_failing(true);
    /// assert!(s.read(10).is_err() && s.write(b"x", false).is_err());
    /// ```
    pub fn set_failing(&self, failing: bool) {
        self.disk().failing = failing;
    }

    /// How many writes there were, and how many of them durable.
    ///
    /// ```
    /// use uuidkit::store::{MemoryStorage, Storage};
    /// let s = MemoryStorage::new();
    /// s.write(b"a", true).unwrap();
    /// s.write(b"b", false).unwrap();
    /// assert_eq!(s.write_counts(), (2, 1));
    /// ```
    pub fn write_counts(&self) -> (u64, u64) {
        let d = self.disk();
        (d.writes, d.durable_writes)
    }

    fn failure(action: &str) -> Problem {
        Problem::io(
            format!("{action} <memory>"),
            &std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        )
    }
}

impl Storage for MemoryStorage {
    fn path(&self) -> Option<&Path> {
        None
    }

    fn lock(&self, timeout: Duration) -> Result<LockGuard<'_>, Problem> {
        poll_lock(timeout, || match self.shared.lock.try_lock() {
            Ok(g) => Ok(Some(g)),
            Err(std::sync::TryLockError::Poisoned(e)) => Ok(Some(e.into_inner())),
            Err(std::sync::TryLockError::WouldBlock) => Ok(None),
        })
        .map(LockGuard::new)
    }

    fn read(&self, limit: usize) -> Result<Option<Vec<u8>>, Problem> {
        let d = self.disk();
        if d.failing {
            return Err(MemoryStorage::failure("read"));
        }
        Ok(d.current
            .as_ref()
            .map(|b| b[..b.len().min(limit.saturating_add(1))].to_vec()))
    }

    fn write(&self, bytes: &[u8], durable: bool) -> Result<(), Problem> {
        let mut d = self.disk();
        if d.failing {
            return Err(MemoryStorage::failure("write"));
        }
        d.current = Some(bytes.to_vec());
        d.writes += 1;
        if durable {
            d.durable = d.current.clone();
            d.durable_writes += 1;
        }
        Ok(())
    }

    fn boot_id(&self) -> Option<String> {
        let d = self.disk();
        (!d.no_boot_id).then(|| format!("memory-boot-{}", d.boots))
    }
}
