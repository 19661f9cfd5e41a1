//! Errors and warnings: why a lease granted nothing ([`StoreError`]), what is wrong with
//! a state file ([`Problem`]), what happens then ([`Outcome`]), and the warning that says
//! both ([`StoreWarning`]).

use core::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why [`StateStore::lease`](super::StateStore::lease) granted nothing.
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
    /// A daemon in fleet mode (`uuidkitd --machine-id etcd`) cannot stamp leases with a
    /// machine ID now (its etcd lease may have expired, or it is claiming another ID):
    /// nothing was granted; the warning ([`Problem::Fenced`]) says why. The daemon may
    /// grant the same request again once it holds its ID.
    Fenced(StoreWarning),
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
            StoreError::Unavailable(w) | StoreError::Fenced(w) => Some(StoreWarning {
                outcome,
                ..w.clone()
            }),
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
            StoreError::Unavailable(w) | StoreError::Fenced(w) => w.fmt(f),
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
    /// There is no file (only [`read_state`](super::read_state) reports this; a lease
    /// starts afresh silently, as on first use).
    Missing,
    /// The file is empty.
    Empty,
    /// The file is longer than `limit` bytes.
    TooLarge {
        /// [`MAX_FILE_SIZE`](super::MAX_FILE_SIZE).
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
    /// The path leads to something other than a regular file (a device, a FIFO, a
    /// socket, a directory), which is never read, written or replaced.
    NotRegular {
        /// What is there: the state file, or its lock file.
        path: PathBuf,
        /// `a character device`, `a FIFO` …
        what: &'static str,
    },
    /// Another process held the lock for longer than the timeout.
    LockTimeout {
        /// How long the store waited.
        timeout: Duration,
    },
    /// Every position of `kind` up to the last one its layout can stamp has been leased
    /// ([`StoreError::Exhausted`]): a process with its clock far ahead (or at the end of
    /// the layout's range) used them. The file is sound; the kind cannot continue above
    /// what it holds.
    RangeUsedUp {
        /// The generator kind.
        kind: super::GeneratorKind,
    },
    /// The daemon leasing the positions is in fleet mode and does not hold its machine
    /// ID for sure now (its etcd lease may have expired, or it is claiming another).
    Fenced {
        /// The daemon's message.
        message: String,
    },
}

impl Problem {
    /// An I/O failure while doing `action` (a phrase naming the file, as in
    /// `read /x/state`): for [`Storage`](super::Storage) implementations.
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
            Problem::RangeUsedUp { kind } => write!(
                f,
                "its {kind} positions are used up to the last one the layout can stamp (a \
                 clock once far ahead, or the end of the layout's range, wrote them), so \
                 UUIDs from here would be below earlier ones; remove the file to start \
                 again from the clock"
            ),
            Problem::Fenced { message } => {
                write!(f, "the daemon's machine ID is fenced: {message}")
            }
            Problem::NotRegular { path, what } => {
                write!(f, "{} is {what}, not a regular file", path.display())
            }
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
    /// Found by [`read_state`](super::read_state), which changes nothing: the next lease
    /// will rewrite the file from fresh state.
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
    /// `path` is a uuidkitd socket, not a state file.
    daemon: bool,
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
            daemon: false,
        }
    }

    /// A warning about the uuidkitd listening at `socket` (which leases from its state
    /// file on the caller's behalf): it names the daemon, not a state file.
    ///
    /// ```
    /// use uuidkit::store::{Outcome, Problem, StoreWarning};
    /// let p = Problem::Fenced { message: "lease expired".into() };
    /// let w = StoreWarning::from_daemon("/run/uuidkit/sock", p, Outcome::InMemory);
    /// assert_eq!(
    ///     w.to_string(),
    ///     "uuidkitd at /run/uuidkit/sock: the daemon's machine ID is fenced: lease \
    ///      expired; generating in memory without it"
    /// );
    /// ```
    pub fn from_daemon(
        socket: impl Into<PathBuf>,
        problem: Problem,
        outcome: Outcome,
    ) -> StoreWarning {
        StoreWarning {
            daemon: true,
            ..StoreWarning::new(socket, problem, outcome)
        }
    }

    /// The state file (or the daemon's socket, for a warning about a daemon).
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

    /// What the warning is about, as its text begins: `state file PATH`, or `uuidkitd
    /// at SOCKET`.
    ///
    /// ```
    /// # use uuidkit::store::{Outcome, Problem, StoreWarning};
    /// let w = StoreWarning::new("/x/state", Problem::Empty, Outcome::WillRepair);
    /// assert_eq!(w.subject(), "state file /x/state");
    /// let d = StoreWarning::from_daemon("/run/s", Problem::Empty, Outcome::InMemory);
    /// assert_eq!(d.subject(), "uuidkitd at /run/s");
    /// ```
    pub fn subject(&self) -> String {
        let what = if self.daemon {
            "uuidkitd at"
        } else {
            "state file"
        };
        format!("{what} {}", self.path.display())
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
        write!(f, "{}: {}; {}", self.subject(), self.problem, self.outcome)
    }
}

impl std::error::Error for StoreWarning {}
