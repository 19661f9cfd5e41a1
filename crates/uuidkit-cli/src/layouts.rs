//! The options beyond RFC 9562's own: `gen v8 --layout` for the named layouts, machine-ID
//! bits (`--machine-id`), raw v8 fields (`--custom-a/-b/-c`), names that are bytes
//! (`--name-hex`, `--name-file`), v2's numeric domains, `gen v1 --shards`, and
//! `inspect --layout`.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::sync::Arc;

use clap::error::ErrorKind;
use serde_json::Value;
use uuidkit::Uuid;
use uuidkit::generator::draft::DraftGenerator;
use uuidkit::generator::machine_id::MachineId;
use uuidkit::layout::{self, Layout, LayoutError, hex_of};
use uuidkit::random::{Csprng, RngCore};
use uuidkit::service::client::DaemonClient;

use crate::args::{GenArgs, GenVersion, MachineIdArg, MethodArg};
use crate::generate::{Stopped, emit_batches, fixed, live_state};
use crate::{Failure, Status, usage_error};

/// The most bytes `--name-file` reads.
const MAX_NAME_FILE: u64 = 16 << 20;

/// Bits of a machine ID from `hash` without `--machine-id-bits`.
const DEFAULT_HASH_BITS: u32 = 16;

fn usage(kind: ErrorKind, message: impl std::fmt::Display) -> Failure {
    usage_error("gen", kind, message)
}

fn conflict(message: impl std::fmt::Display) -> Failure {
    usage(ErrorKind::ArgumentConflict, message)
}

/// Whether any raw v8 field is given.
fn raw(a: &GenArgs) -> bool {
    a.custom_a.is_some() || a.custom_b.is_some() || a.custom_c.is_some()
}

/// The draft layout `gen v8` is to write, if it is one.
fn draft_layout(a: &GenArgs) -> Option<Layout> {
    a.layout.filter(|l| !matches!(l, Layout::B1 | Layout::B2))
}

/// Whether `gen v8` is this module's: a draft layout or raw fields.
pub fn handles_v8(a: &GenArgs) -> bool {
    a.version == GenVersion::V8 && (draft_layout(a).is_some() || raw(a))
}

/// Whether `gen` may use a state store or daemon: not for raw fields.
pub fn is_stateless_v8(a: &GenArgs) -> bool {
    a.version == GenVersion::V8 && raw(a)
}

/// Refuses the new flags where they do not apply; runs before `gen`'s own checks.
pub fn validate(a: &GenArgs) -> Result<(), Failure> {
    use GenVersion::*;
    let v = a.version;
    let named_versions = [V3, V5, V8];
    for (flag, given) in [
        ("--name-hex", a.name_hex.is_some()),
        ("--name-file", a.name_file.is_some()),
    ] {
        if given && !named_versions.contains(&v) {
            return Err(conflict(format!(
                "{flag} does not apply to gen {}; it is for v3, v5 and v8",
                v.name()
            )));
        }
    }
    for (flag, given) in [
        ("--layout", a.layout.is_some()),
        ("--custom-a", a.custom_a.is_some()),
        ("--custom-b", a.custom_b.is_some()),
        ("--custom-c", a.custom_c.is_some()),
    ] {
        if given && v != V8 {
            return Err(conflict(format!(
                "{flag} does not apply to gen {}; it is for v8",
                v.name()
            )));
        }
    }
    if a.shards.is_some() && v != V1 {
        return Err(conflict(format!(
            "--shards does not apply to gen {}; it is for v1",
            v.name()
        )));
    }
    if a.shards.is_some() {
        for (flag, given) in [
            ("--time", a.time.is_some()),
            ("--clock-seq", a.clock_seq.is_some()),
        ] {
            if given {
                return Err(conflict(format!(
                    "{flag} does not apply with --shards: each of the generators holds a \
                     clock sequence of its own, in memory"
                )));
            }
        }
        // The environment's state file and daemon are refused the same way, with the
        // same reason (see `generate::shards_without_state`).
        for (flag, given) in [
            ("--state", a.state.is_some()),
            ("--daemon", a.daemon.is_some()),
        ] {
            if given {
                return Err(conflict(format!(
                    "{flag} does not apply with --shards: the shards keep their state in \
                     memory (through a state file or uuidkitd they would share one node's \
                     timestamps, no faster than one generator); leave out --shards to use it"
                )));
            }
        }
    }
    if a.machine_id.is_some() {
        match v {
            V7 if a.method == Some(MethodArg::Random) => {
                return Err(conflict(
                    "--machine-id does not apply to gen v7 --method random: the ID goes right \
                     after the counter, and method random has none",
                ));
            }
            V7 => {}
            V8 if draft_layout(a).is_some() => {}
            V8 => {
                return Err(conflict(
                    "--machine-id does not apply to gen v8 without --layout draft-*: it is for \
                     v7 and the 2021 draft's layouts",
                ));
            }
            _ => {
                return Err(conflict(format!(
                    "--machine-id does not apply to gen {}; it is for v7 and gen v8 --layout \
                     draft-*",
                    v.name()
                )));
            }
        }
        if matches!(a.machine_id, Some(MachineIdArg::Value(_))) && a.machine_id_bits.is_none() {
            return Err(usage(
                ErrorKind::MissingRequiredArgument,
                "--machine-id N needs --machine-id-bits B, its width (or give --machine-id hash)",
            ));
        }
        // Width and room, as errors naming the options.
        machine_id(a)?;
    }
    if v != V8 {
        return Ok(());
    }
    let named = a.namespace.is_some() || a.has_name();
    if raw(a) {
        for (flag, given) in [
            ("--layout", a.layout.is_some()),
            ("--namespace", a.namespace.is_some()),
            ("--name", a.has_name()),
            ("--time", a.time.is_some()),
            ("--state", a.state.is_some()),
            ("--daemon", a.daemon.is_some()),
        ] {
            if given {
                return Err(conflict(format!(
                    "{flag} does not apply to gen v8 with --custom-a/-b/-c: raw fields are \
                     the whole UUID"
                )));
            }
        }
    }
    match a.layout {
        Some(Layout::B2) if !named => Err(usage(
            ErrorKind::MissingRequiredArgument,
            "gen v8 --layout b2 needs --namespace NS and --name NAME (or --name-hex, \
             --name-file)",
        )),
        Some(l) if l != Layout::B2 && named => Err(conflict(format!(
            "--namespace and --name do not apply to gen v8 --layout {l}: only b2 is name-based"
        ))),
        Some(l) => match &a.time {
            Some(t) if l != Layout::B2 => l.check_time(t.time).map_err(|e| {
                usage(
                    ErrorKind::ValueValidation,
                    format!("invalid value '{}' for '--time <RFC3339>': {e}", t.text),
                )
            }),
            _ => Ok(()),
        },
        None => Ok(()),
    }
}

/// The machine ID of `--machine-id` and `--machine-id-bits`, checked against the version
/// or layout's room.
pub fn machine_id(a: &GenArgs) -> Result<Option<MachineId>, Failure> {
    let bad = |e: &dyn std::fmt::Display| {
        usage(
            ErrorKind::ValueValidation,
            format!("invalid value for '--machine-id'/'--machine-id-bits': {e}"),
        )
    };
    let id = match a.machine_id {
        None => return Ok(None),
        Some(MachineIdArg::Value(v)) => {
            MachineId::new(v, a.machine_id_bits.unwrap_or(64)).map_err(|e| bad(&e))?
        }
        Some(MachineIdArg::Hash) => {
            MachineId::from_host_hash(a.machine_id_bits.unwrap_or(DEFAULT_HASH_BITS))
                .map_err(|e| bad(&e))?
        }
    };
    match draft_layout(a) {
        Some(l) if a.version == GenVersion::V8 => DraftGenerator::new(l)
            .map_err(|e| bad(&e))?
            .with_machine_id(id)
            .map(drop)
            .map_err(|e| bad(&e))?,
        _ => {
            // v7: the room is the same in every v7 UUID.
            id.stamp_v7(Uuid::NIL).map_err(|e| bad(&e))?;
        }
    }
    Ok(Some(id))
}

/// Writes the machine ID into each v7 UUID of a batch.
pub fn stamp_v7(batch: &mut [Uuid], id: Option<MachineId>) {
    if let Some(m) = id {
        for u in batch {
            // `machine_id` checked the width against v7's room.
            *u = m.stamp_v7(*u).unwrap_or(*u);
        }
    }
}

/// The name's bytes: `--name`, `--name-hex` or `--name-file`.
pub fn name_bytes(a: &GenArgs) -> Result<Cow<'_, [u8]>, Failure> {
    if let Some(n) = &a.name {
        return Ok(Cow::Borrowed(n.as_bytes()));
    }
    if let Some(b) = &a.name_hex {
        return Ok(Cow::Borrowed(&b.0));
    }
    let Some(path) = &a.name_file else {
        return Ok(Cow::Borrowed(&[]));
    };
    let fail = |e: std::io::Error| Failure::Message(format!("--name-file {}: {e}", path.display()));
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_NAME_FILE + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_NAME_FILE + 1).read_to_end(&mut bytes))
    };
    read.map_err(fail)?;
    if bytes.len() as u64 > MAX_NAME_FILE {
        return Err(Failure::Message(format!(
            "--name-file {}: longer than the 16 MiB a name may be",
            path.display()
        )));
    }
    Ok(Cow::Owned(bytes))
}

/// `gen v8` with a draft layout or raw fields.
pub fn run_v8(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    let Some(layout) = draft_layout(a) else {
        return run_raw(a, out);
    };
    let id = machine_id(a)?;
    let bad = |e: &dyn std::fmt::Display| Failure::Message(e.to_string());
    match &a.time {
        Some(t) => {
            let mut g =
                DraftGenerator::with_sources(layout, fixed(t.time), Csprng).map_err(|e| bad(&e))?;
            if let Some(id) = id {
                g = g.with_machine_id(id).map_err(|e| bad(&e))?;
            }
            emit_batches(a, out, |b| {
                g.fill(b);
                Ok(())
            })
        }
        None => {
            let crate::state::GenState {
                store,
                mut warnings,
            } = live_state(a, daemon);
            let mut g = DraftGenerator::new(layout).map_err(|e| bad(&e))?;
            if let Some(id) = id {
                g = g.with_machine_id(id).map_err(|e| bad(&e))?;
            }
            if let Some(store) = store {
                g = g.with_store(store);
            }
            emit_batches(a, out, |b| {
                g.fill(b);
                warnings
                    .after_batch(g.take_store_warnings(), b.len())
                    .map_err(Stopped::all)
            })
        }
    }
}

/// Raw v8 fields, as Python's `uuid.uuid8(a, b, c)`: those not given are random.
fn run_raw(a: &GenArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let mut rng = Csprng;
    emit_batches(a, out, |b| {
        for u in b {
            let f = layout::v8::Fields {
                custom_a: a.custom_a.unwrap_or_else(|| rng.next_u64() >> 16),
                custom_b: a
                    .custom_b
                    .map_or_else(|| rng.next_u32() as u16 & 0xfff, |v| v as u16),
                custom_c: a.custom_c.unwrap_or_else(|| rng.next_u64() >> 2),
            };
            // The parsers checked each width.
            *u = layout::v8::encode(&f)
                .map_err(|e| Stopped::all(Failure::Message(e.to_string())))?;
        }
        Ok(())
    })
}

/// A JSON number when it fits a `u64`, else its decimal text.
fn big(v: u128) -> Value {
    u64::try_from(v).map_or_else(|_| Value::String(v.to_string()), Value::from)
}

/// The fields `inspect --layout` adds: `(key, JSON value, summary text)`.
pub fn inspect(
    u: &Uuid,
    layout: Layout,
    machine_id_bits: Option<u32>,
) -> Result<Vec<(&'static str, Value, String)>, String> {
    let d = layout::decode_as(u, layout)
        .map_err(|e: LayoutError| format!("{u} cannot be read as layout {layout}: {e}"))?;
    let mut f = vec![(
        "layout",
        Value::from(layout.name()),
        layout.name().to_string(),
    )];
    if let (Some(time), Some(ts)) = (d.time_rfc3339(), d.timestamp) {
        f.push(("time", Value::from(time.clone()), time));
        f.push((
            "timestamp",
            big(ts),
            format!("{ts} ({})", layout.timestamp_unit()),
        ));
    }
    if let (Some(seq), Some(bits)) = (d.sequence, layout.sequence_bits()) {
        f.push(("sequence", Value::from(seq), format!("{seq} ({bits} bits)")));
    }
    let (random, random_bits) = match machine_id_bits {
        Some(bits) => {
            let (id, rest, rest_bits) = d.machine_id(bits).ok_or_else(|| {
                format!(
                    "--machine-id-bits {bits}: layout {layout} has {} random bits; a machine \
                     ID takes fewer",
                    d.random_bits
                )
            })?;
            f.push((
                "machine_id",
                Value::from(id),
                format!("{id} (0x{id:x}, {bits} bits)"),
            ));
            (rest, rest_bits)
        }
        None => (d.random, d.random_bits),
    };
    let hex = hex_of(random, random_bits);
    f.push((
        "random",
        Value::from(hex.clone()),
        format!("{hex} ({random_bits} bits)"),
    ));
    Ok(f)
}

/// `gen v1 --shards N`: N generators of one node with distinct clock sequences, a batch
/// from each in turn, each with its own budget of one UUID per 100 ns tick.
pub fn run_sharded(a: &GenArgs, out: &mut impl Write, shards: u32) -> Result<Status, Failure> {
    use uuidkit::node::NodeStrategy;
    let strategy = match &a.node {
        Some(n) => n.clone(),
        None => NodeStrategy::from_env()
            .map_err(|e| {
                usage(
                    ErrorKind::ValueValidation,
                    format!("{e}; --node overrides {}", e.variable()),
                )
            })?
            .unwrap_or_default(),
    };
    let (node, warning) = match strategy {
        // One node for all of them: their clock sequences keep them apart.
        NodeStrategy::Static | NodeStrategy::Random => {
            (uuidkit::node::random_node(&mut Csprng), None)
        }
        s => s.resolve(&mut Csprng),
    };
    if let Some(w) = warning {
        crate::report(format_args!("warning: {w}"));
    }
    let g = uuidkit::generator::sharded::ShardedGregorian::with_node(
        uuidkit::Version::V1,
        shards as usize,
        node,
    )
    .map_err(|e| Failure::Message(e.to_string()))?;
    // A batch from each generator in turn: one lock a batch.
    let mut turn = 0usize;
    emit_batches(a, out, |b| {
        let made = g.fill_from(turn, b).map_err(|(done, e)| Stopped {
            done,
            failure: Failure::Message(e.to_string()),
        });
        turn = turn.wrapping_add(1);
        made
    })
}
