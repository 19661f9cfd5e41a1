//! `uuidkit state show` and `uuidkit state check`: a state file read and shown, or
//! checked. Which file is the choice of [`crate::state_choice`], as for `gen`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use uuidkit::store::{
    self, EntrySnapshot, GeneratorKind, Problem, StateSnapshot, StoreError, StoreWarning,
};
use uuidkit::time::{GregorianTimestamp, UnixTime};

use crate::args::{StateAction, StateArgs};
use crate::failure::{Failure, Status};
use crate::state_choice::resolve;

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
