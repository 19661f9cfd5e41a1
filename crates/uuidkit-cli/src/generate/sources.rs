//! Where a generator's inputs come from, beyond its clock and randomness: the state of a
//! live generator (uuidkitd, the state file, or none), the stopped clock of `--time`, the
//! node strategy, the machine ID, and a name's bytes (`--name`, `--name-hex`,
//! `--name-file`). Each turns flags and the environment into a value, with usage errors
//! that name the flag or variable.

use std::borrow::Cow;
use std::io::Read;
use std::sync::Arc;

use clap::error::ErrorKind;
use uuidkit::Uuid;
use uuidkit::fleet;
use uuidkit::generator::draft::DraftGenerator;
use uuidkit::generator::machine_id::MachineId;
use uuidkit::layout::Layout;
use uuidkit::node::NodeStrategy;
use uuidkit::service::client::DaemonClient;
use uuidkit::time::{FnClock, UnixTime};

use crate::args::{GenArgs, MachineIdArg};
use crate::failure::{Failure, usage_error};
use crate::state::GenState;

/// The most bytes `--name-file` reads.
const MAX_NAME_FILE: u64 = 16 << 20;

/// Bits of a machine ID from `hash` without `--machine-id-bits`.
const DEFAULT_HASH_BITS: u32 = 16;

fn usage(kind: ErrorKind, message: impl std::fmt::Display) -> Failure {
    usage_error("gen", kind, message)
}

/// The node strategy: `--node`, else `UUIDKIT_NODE`, else the generator's default
/// (`static`). A malformed or non-UTF-8 `UUIDKIT_NODE` is a usage error naming it (the
/// library's own `GregorianGenerator::v1()` would quietly fall back to `static`), and
/// says that `--node` overrides it, the way out when the environment is not the user's
/// to change.
pub(super) fn node_strategy(a: &GenArgs) -> Result<Option<NodeStrategy>, Failure> {
    if let Some(n) = &a.node {
        return Ok(Some(n.clone()));
    }
    NodeStrategy::from_env().map_err(|e| {
        usage(
            ErrorKind::ValueValidation,
            format!("{e}; --node overrides {}", e.variable()),
        )
    })
}

/// The state of a live (not `--time`) generator: the daemon when there is one, else the
/// state file unless `--no-state`.
pub(super) fn live_state(a: &GenArgs, daemon: Option<Arc<DaemonClient>>) -> GenState {
    if let Some(d) = daemon {
        GenState::daemon(d)
    } else if a.no_state {
        GenState::none()
    } else {
        GenState::open(a.state.as_deref())
    }
}

/// A clock stopped at `t`.
pub(super) fn fixed(t: UnixTime) -> FnClock<impl Fn() -> UnixTime> {
    FnClock(move || t)
}

/// The machine ID of `--machine-id` and `--machine-id-bits`, checked against the room
/// that `draft` (the draft layout of `gen v8 --layout`) or else v7 leaves for it. The
/// layout is passed in, rather than read from `a` here, so that the sources stay below
/// the version groups that know which layout is asked for.
pub(super) fn machine_id(a: &GenArgs, draft: Option<Layout>) -> Result<Option<MachineId>, Failure> {
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
        // Its width, checked here before anything is asked of etcd; the ID comes with the
        // lease (generate/fleet.rs).
        Some(MachineIdArg::Etcd) => {
            let bits = a.machine_id_bits.unwrap_or(0);
            if bits > fleet::MAX_BITS {
                return Err(bad(&format!(
                    "a machine ID leased from etcd is 1 to {max} bits wide (up to 2^{max} \
                     hosts), not {bits}",
                    max = fleet::MAX_BITS
                )));
            }
            MachineId::new(0, bits).map_err(|e| bad(&e))?
        }
    };
    match draft {
        Some(l) => DraftGenerator::new(l)
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

/// The name's bytes: `--name`, `--name-hex` or `--name-file`.
pub(super) fn name_bytes(a: &GenArgs) -> Result<Cow<'_, [u8]>, Failure> {
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
