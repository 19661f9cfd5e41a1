//! The state file: which one `gen` and `state` use, the warnings `gen` prints about it,
//! and `uuidkit state show` / `uuidkit state check`.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use uuidkit::store::{
    self, EntrySnapshot, FileStorage, GeneratorKind, LeaseSource, MAX_FILE_SIZE, Problem,
    StateSnapshot, StateStore, Storage, StoreError, StoreWarning,
};
use uuidkit::time::{GregorianTimestamp, UnixTime};

use crate::args::{StateAction, StateArgs};
use crate::failure::{Failure, Status};

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

/// Runs `state`.
pub fn run(a: &StateArgs, out: &mut impl Write) -> Result<Status, Failure> {
    match &a.action {
        StateAction::Show(p) => show(&path_for(p.path.as_deref())?, out),
        StateAction::Check(p) => check(&path_for(p.path.as_deref())?),
    }
}

fn path_for(explicit: Option<&Path>) -> Result<PathBuf, Failure> {
    resolve(explicit).map_err(|e| Failure::Message(format!("{e}; give PATH")))
}

/// `state file PATH: PROBLEM`, for a file that cannot be read at all.
fn unreadable(w: &StoreWarning) -> Failure {
    Failure::Message(format!(
        "state file {}: {}",
        w.path().display(),
        w.problem()
    ))
}

fn read(path: &Path) -> Result<StateSnapshot, Failure> {
    match store::read_state(path) {
        Ok(s) => Ok(s),
        Err(StoreError::Unavailable(w)) => Err(unreadable(&w)),
        // Not damage, so neither `show`'s "damage" nor `check`'s "the next gen will
        // rewrite it": this uuidkit cannot read the file, and gen leaves it alone.
        Err(StoreError::NewerFormat {
            path,
            found,
            supported,
        }) => Err(Failure::Message(format!(
            "state file {}: {}; it holds a newer uuidkit's state: this one cannot read it, \
             and gen leaves it untouched and refuses to use it",
            path.display(),
            Problem::FutureVersion { found, supported }
        ))),
        // read_state reports nothing else; said plainly should that change.
        Err(e) => Err(Failure::Message(format!(
            "state file {}: {e}",
            path.display()
        ))),
    }
}

/// `uuidkit state check`: silent and 0 on a sound file, else the fault and 1.
fn check(path: &Path) -> Result<Status, Failure> {
    let snap = read(path)?;
    match &snap.damage {
        None => Ok(Status::Ok),
        Some(w) => {
            // The warning says what the next gen does about it, too.
            crate::stdio::report(format_args!("{w}"));
            Ok(Status::Invalid)
        }
    }
}

/// `uuidkit state show`: one JSON object, pretty-printed (there is no other form of
/// the output, and people read it).
fn show(path: &Path, out: &mut impl Write) -> Result<Status, Failure> {
    let snap = read(path)?;
    let entries: Vec<Value> = snap.entries.iter().map(entry_json).collect();
    let doc = json!({
        "path": snap.path.to_string_lossy(),
        "format_version": snap.format_version,
        "checksum_ok": snap.checksum_ok,
        "boot_id": snap.boot_id,
        "current_boot_id": snap.current_boot_id,
        "size": snap.size,
        "damage": snap.damage.as_ref().map(|w| w.problem().to_string()),
        "entries": entries,
    });
    // Serializing a Value built here cannot fail; the write can.
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    Ok(Status::Ok)
}

/// Bits of the counter below the timestamp in a position, for the kinds that have one.
fn counter_bits(kind: GeneratorKind) -> Option<u32> {
    kind.counter_bits()
}

/// The instant of a position as RFC 3339, with the digits its unit has; `None` for a
/// value past the kind's range (a hand-edited file can hold one).
fn position_time(kind: GeneratorKind, pos: u128) -> Option<String> {
    match kind {
        GeneratorKind::Gregorian(_) => {
            let ticks = u64::try_from(pos).ok()?;
            Some(
                GregorianTimestamp::from_ticks(ticks)?
                    .to_unix()
                    .to_rfc3339(7),
            )
        }
        GeneratorKind::V7 => {
            let ms = u64::try_from(pos >> 42).ok()?;
            (ms < 1 << 48).then(|| UnixTime::from_millis(ms).to_rfc3339(3))
        }
        GeneratorKind::V8 => {
            let steps = pos >> 30;
            (steps < 1 << 60).then(|| UnixTime::from_nanos(steps as i128 * 10).to_rfc3339(8))
        }
        GeneratorKind::Draft(_) => kind.position_time(pos).map(|(t, d)| t.to_rfc3339(d)),
    }
}

/// `NAME`, `NAME_time` and (v7, v8) `NAME_counter` of one position.
fn position_fields(m: &mut Map<String, Value>, kind: GeneratorKind, name: &str, pos: u128) {
    m.insert(name.to_string(), Value::String(pos.to_string()));
    m.insert(
        format!("{name}_time"),
        position_time(kind, pos).map_or(Value::Null, Value::String),
    );
    if let Some(bits) = counter_bits(kind) {
        // At most 42 bits: exact in a JSON number.
        let counter = (pos & ((1u128 << bits) - 1)) as u64;
        m.insert(format!("{name}_counter"), counter.into());
    }
}

fn entry_json(e: &EntrySnapshot) -> Value {
    let mut m = Map::new();
    match e.kind {
        GeneratorKind::Gregorian(node) => {
            m.insert("kind".into(), "gregorian".into());
            m.insert("node".into(), node.to_string().into());
            m.insert(
                "clock_seq".into(),
                e.clock_seq.map_or(Value::Null, |c| c.get().into()),
            );
        }
        GeneratorKind::V7 => {
            m.insert("kind".into(), "v7".into());
        }
        GeneratorKind::V8 => {
            m.insert("kind".into(), "v8".into());
        }
        GeneratorKind::Draft(l) => {
            m.insert("kind".into(), l.name().into());
        }
    }
    position_fields(&mut m, e.kind, "high", e.high);
    position_fields(&mut m, e.kind, "durable", e.durable);
    m.insert("last_clock".into(), e.last_clock.to_string().into());
    m.insert(
        "last_clock_time".into(),
        position_time(e.kind, e.last_clock).map_or(Value::Null, Value::String),
    );
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_positions() {
        let node = uuidkit::NodeId::from_bytes([1, 2, 3, 4, 5, 6]);
        let g = GeneratorKind::Gregorian(node);
        assert_eq!(
            position_time(g, 0x1EC9414C232AB00).as_deref(),
            Some("2022-02-22T19:22:22.0000000Z")
        );
        assert_eq!(position_time(g, 1 << 60), None);
        assert_eq!(
            position_time(GeneratorKind::V7, (1_645_557_742_000u128 << 42) | 5).as_deref(),
            Some("2022-02-22T19:22:22.000Z")
        );
        assert_eq!(
            position_time(GeneratorKind::V8, (164_555_774_200_000_001u128 << 30) | 7).as_deref(),
            Some("2022-02-22T19:22:22.00000001Z")
        );
        assert_eq!(position_time(GeneratorKind::V7, 1 << 90), None);
    }

    #[test]
    fn entry_fields() {
        let e = EntrySnapshot {
            kind: GeneratorKind::V7,
            high: (1_000u128 << 42) | 9,
            durable: 6_000u128 << 42,
            last_clock: 1_000u128 << 42,
            clock_seq: None,
        };
        let v = entry_json(&e);
        assert_eq!(v["kind"], "v7");
        assert_eq!(v["high"], ((1_000u128 << 42) | 9).to_string());
        assert_eq!(v["high_counter"], 9);
        assert_eq!(v["high_time"], "1970-01-01T00:00:01.000Z");
        assert_eq!(v["durable_counter"], 0);
        assert!(v.get("node").is_none() && v.get("clock_seq").is_none());
    }
}
