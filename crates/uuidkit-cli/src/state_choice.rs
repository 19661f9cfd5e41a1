//! Which state a command keeps and where: the state file (`--state`, else
//! `UUIDKIT_STATE`, else the XDG default), uuidkitd (`--daemon`, else `UUIDKIT_DAEMON`),
//! or none; and what `gen` says about it as it runs. `gen`, `state` and `daemon status`
//! all choose here, so that each names a file or a daemon the same way.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use uuidkit::service::DAEMON_ENV;
use uuidkit::service::client::{ClientError, DaemonClient};
use uuidkit::store::{
    self, FileStorage, LeaseSource, MAX_FILE_SIZE, Problem, StateStore, Storage, StoreWarning,
};

use crate::args::{GenArgs, MachineIdArg};
use crate::failure::{Failure, usage_error};

/// The environment variable naming the state file (the library's process-wide
/// generators read the same one).
pub const STATE_ENV: &str = uuidkit::generator::STATE_ENV;

/// Why there is no state file path.
#[derive(Debug)]
pub struct NoPath;

impl fmt::Display for NoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no state file: {STATE_ENV} is not set, and neither XDG_STATE_HOME nor HOME is \
             an absolute directory"
        )
    }
}

/// The state file: `explicit` (`--state`, or the operand of `state`), else
/// `UUIDKIT_STATE` (an empty value counts as unset, as the library's generators take
/// it), else the XDG default.
pub fn resolve(explicit: Option<&Path>) -> Result<PathBuf, NoPath> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    match uuidkit::generator::state_file_from_env() {
        Some(p) => Ok(p),
        None => store::default_path().ok_or(NoPath),
    }
}

/// What `gen` does about state: the store to give the generator (the state file or
/// uuidkitd), and what to say.
pub struct GenState {
    /// The store, or `None` to stay in memory.
    pub store: Option<Arc<dyn LeaseSource>>,
    /// Prints the warnings, each once.
    pub warnings: Warnings,
}

impl GenState {
    /// No state file, nothing to say.
    pub fn none() -> GenState {
        GenState {
            store: None,
            warnings: Warnings::default(),
        }
    }

    /// The state file for `gen`; `None` when there is no path, after a warning (the
    /// one warning of a state file that cannot be used: generation goes on in memory).
    pub fn open(explicit: Option<&Path>) -> GenState {
        let path = match resolve(explicit) {
            Ok(p) => p,
            Err(e) => {
                warn(format_args!(
                    "{e}; generating in memory without one (give --state PATH, or \
                     --no-state to silence this)"
                ));
                return GenState::none();
            }
        };
        let warnings = Warnings {
            removed: removed_state_file(&path).then(|| path.clone()),
            ..Warnings::default()
        };
        GenState {
            store: Some(Arc::new(StateStore::open(path))),
            warnings,
        }
    }

    /// The daemon `store` (already known to answer): anything it reports stops `gen`.
    pub fn daemon(store: Arc<dyn LeaseSource>) -> GenState {
        GenState {
            store: Some(store),
            warnings: Warnings {
                daemon: true,
                ..Warnings::default()
            },
        }
    }
}

/// How long the check for a removed state file waits for the lock. Short: a lock held
/// longer is the lease's to report (after its own, longer wait), and this check then
/// simply says nothing.
const REMOVED_CHECK_LOCK_WAIT: Duration = Duration::from_millis(200);

/// How old a lock file must be for a missing state file beside it to count as removed:
/// longer than a first writer takes from creating the lock file to writing the state
/// file (at most the lock wait, 2 s, and a synced write), with room to spare.
const REMOVED_MIN_LOCK_AGE: Duration = Duration::from_secs(10);

/// Whether the state file was removed: it is missing, but its lock file has been there
/// for a while.
///
/// The store treats a missing file as first use and says nothing (warning on the first
/// use of every host would teach people to ignore the warning). The lock file tells the
/// two apart: the first lease creates it just before it writes the state file, nothing
/// writes to it after, and nothing removes it. A young lock file is left alone: another
/// process may be between creating it and writing the state file, or may have been
/// killed there a moment ago (a restart after that is no reason to warn). The check is
/// made again under the lock, so that a first writer that was waiting for it is not
/// mistaken for a removal either.
fn removed_state_file(path: &Path) -> bool {
    let storage = FileStorage::new(path);
    let lock_age = std::fs::metadata(storage.lock_path())
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok());
    // No lock file (first use), or one too young to tell (a clock set back since it was
    // made gives no age, and no warning).
    if lock_age.is_none_or(|age| age < REMOVED_MIN_LOCK_AGE) {
        return false;
    }
    // Anything but "not found" (a file, or an error) is not a removal.
    if !matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
    {
        return false;
    }
    let Ok(_guard) = storage.lock(REMOVED_CHECK_LOCK_WAIT) else {
        return false;
    };
    matches!(storage.read(MAX_FILE_SIZE), Ok(None))
}

/// The warnings about the state file: printed as soon as they are known, each once.
#[derive(Debug, Default)]
pub struct Warnings {
    /// The state file was removed (see [`removed_state_file`]): said after the first
    /// batch, unless the generator reported something more specific by then.
    removed: Option<PathBuf>,
    /// A batch has been made.
    started: bool,
    /// The store is uuidkitd: a warning from it ends the run (see
    /// [`after_batch`](Warnings::after_batch)).
    daemon: bool,
    /// UUIDs written so far, for the message that ends a run.
    written: u64,
}

/// What ends a run of `gen` whose state file is in a newer format: `w` names the file
/// and both versions.
fn newer_format(w: &StoreWarning, written: u64) -> Failure {
    let stopped = stopped(written);
    Failure::Message(format!(
        "state file {}: {}; {stopped} and left the file untouched: it holds a newer \
         uuidkit's state, which rewriting it would lose (use the newer uuidkit, another \
         --state, or --no-state)",
        w.path().display(),
        w.problem()
    ))
}

/// How far a run that ends on its state got.
fn stopped(written: u64) -> String {
    match written {
        0 => "wrote no UUIDs".to_string(),
        n => format!("stopped after {n} UUIDs"),
    }
}

/// Prints `uuidkit: warning: MESSAGE` at once: a run of `gen` can last long, and a
/// warning about its state belongs on the terminal while it runs, not at its end.
fn warn(message: fmt::Arguments<'_>) {
    crate::stdio::report(format_args!("warning: {message}"));
    crate::stdio::flush_errors();
}

impl Warnings {
    /// After each batch of `made` UUIDs: prints what the generator reported about its
    /// store, or, when the store is uuidkitd, fails with it.
    ///
    /// A daemon that stops answering is not a warning: whoever named it wants its
    /// guarantee, and the generator has gone on in memory without it. The batch is then
    /// not to be written (some of it may come from an earlier lease, but leaving out
    /// good UUIDs costs nothing).
    ///
    /// Nor is a state file in a newer format: it is not damage, and the store left it as
    /// it was. Going on in memory, as for a file that cannot be read, would hand out
    /// UUIDs below the newer uuidkit's high-water marks (and, with the clock set back,
    /// repeats); it is a file a newer uuidkit keeps working, not a broken one, so the run
    /// ends with the batch unwritten, and on the first batch with no UUID written.
    pub fn after_batch(&mut self, reported: Vec<StoreWarning>, made: usize) -> Result<(), Failure> {
        if let Some(w) = reported
            .iter()
            .find(|w| matches!(w.problem(), Problem::FutureVersion { .. }))
        {
            return Err(newer_format(w, self.written));
        }
        // A kind whose range the file (or the daemon's) has used up: the generator can
        // only go on below UUIDs already written, which is what the state is there to
        // prevent. As for a newer format, the run ends with the batch unwritten.
        if let Some(w) = reported
            .iter()
            .find(|w| matches!(w.problem(), Problem::RangeUsedUp { .. }))
        {
            return Err(Failure::Message(format!(
                "{}: {}; {}",
                w.subject(),
                w.problem(),
                stopped(self.written)
            )));
        }
        if self.daemon {
            if let Some(w) = reported.first() {
                return Err(Failure::Message(format!(
                    "{}: {}; stopped after {} UUIDs rather than go on without the daemon",
                    w.subject(),
                    w.problem(),
                    self.written
                )));
            }
            self.written += made as u64;
            return Ok(());
        }
        self.written += made as u64;
        let first = !self.started;
        self.started = true;
        let removed = self.removed.take();
        if first
            && reported.is_empty()
            && let Some(path) = removed
        {
            warn(format_args!(
                "state file {}: does not exist, though its lock file has been there for \
                 a while (the file was removed, or the process that created the lock \
                 file was stopped before writing it); started afresh from the clock and \
                 wrote it",
                path.display()
            ));
        }
        for w in reported {
            warn(format_args!("{w}"));
        }
        Ok(())
    }
}

/// Where a daemon's socket path came from, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Flag,
    Env,
    Default,
}

/// `uuidkitd at PATH`, with where PATH came from unless the user typed it on this
/// command line (then it is in plain sight).
fn name(path: &Path, origin: Origin) -> String {
    match origin {
        Origin::Flag => format!("uuidkitd at {}", path.display()),
        Origin::Env => format!("uuidkitd at {} (from {DAEMON_ENV})", path.display()),
        Origin::Default => format!("uuidkitd at {} (the default socket)", path.display()),
    }
}

/// The daemon `gen` uses for a version that can use one: `--daemon`, else
/// `UUIDKIT_DAEMON` unless `--state`, `--no-state` or `--time` says otherwise (an
/// explicit choice beats the environment); `None` for the state file as before.
///
/// A daemon that was named and does not answer a status request is an error before any
/// UUID is made, from the flag and from the environment alike: a user who names a daemon
/// wants its guarantee, and generating without it would quietly lose that.
pub fn for_gen(a: &GenArgs) -> Result<Option<Arc<DaemonClient>>, Failure> {
    let (path, origin) = match &a.daemon {
        Some(p) => (p.clone(), Origin::Flag),
        None if a.state.is_some() || a.no_state || a.time.is_some() => return Ok(None),
        None => match uuidkit::generator::daemon_from_env() {
            Some(p) => (p, Origin::Env),
            None => return Ok(None),
        },
    };
    let client = Arc::new(DaemonClient::new(&path));
    // The connection opened here stays open for the generator's leases.
    let report = client
        .status()
        .map_err(|e| unreachable(&path, origin, &e))?;
    // A fleet-mode daemon's leases bring its own machine ID, which takes the place of
    // one given here: refused rather than quietly dropped.
    if let (Some(f), Some(MachineIdArg::Value(_) | MachineIdArg::Hash)) =
        (&report.fleet, a.machine_id)
    {
        return Err(usage_error(
            "gen",
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--machine-id cannot be used with {}: it is in fleet mode (fleet {:?}), and its leases bring the machine ID it holds",
                name(&path, origin),
                f.fleet
            ),
        ));
    }
    Ok(Some(client))
}

pub fn unreachable(path: &Path, origin: Origin, e: &ClientError) -> Failure {
    Failure::Message(format!("cannot reach {}: {e}", name(path, origin)))
}
