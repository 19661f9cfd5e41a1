//! `uuidkit gen VERSION`: check which flags apply, pick the source of state (uuidkitd,
//! the state file, or none), and hand the run to the version's group, which builds the
//! generator and writes N UUIDs.
//!
//! The pieces only point down, from this dispatcher: [`checks`] refuses what does not
//! apply; the version groups ([`gregorian`], [`v4`], [`v7`], [`v8`]) build their
//! generators from [`sources`] (the state file or daemon, a fixed clock, the node, the
//! machine ID, the name) and write through [`emit`] (batches of lines).

mod checks;
mod emit;
mod fleet;
mod gregorian;
mod sources;
mod timed;
mod v4;
mod v7;
mod v8;

use std::io::Write;

use uuidkit::Uuid;

use crate::args::{GenArgs, GenVersion};
use crate::failure::{Failure, Status};

use GenVersion::*;

/// Runs `gen`.
pub fn run(a: &GenArgs, out: &mut impl Write) -> Result<Status, Failure> {
    checks::validate(a)?;
    // Asked before anything is made, so that an unreachable daemon writes no UUID.
    // A leased machine ID keeps UUIDs apart on its own: no daemon (checks.rs refuses
    // --daemon with it; UUIDKIT_DAEMON is set aside).
    let leased = a.machine_id == Some(crate::args::MachineIdArg::Etcd);
    let daemon = match a.version {
        _ if leased => None,
        V1 | V2 | V4 | V6 | V7 => crate::daemon::for_gen(a)?,
        V8 if !a.has_name() && !v8::is_stateless(a) => crate::daemon::for_gen(a)?,
        _ => None,
    };
    let named = || -> Result<_, Failure> {
        // validate() made sure both are there.
        let ns = a.namespace.unwrap_or_default();
        Ok((ns, sources::name_bytes(a)?))
    };
    match a.version {
        Nil => emit::emit_constant(a, out, Uuid::NIL),
        Max => emit::emit_constant(a, out, Uuid::MAX),
        V3 => {
            let (ns, name) = named()?;
            emit::emit_constant(a, out, uuidkit::v3(&ns, &name))
        }
        V5 => {
            let (ns, name) = named()?;
            emit::emit_constant(a, out, uuidkit::v5(&ns, &name))
        }
        V8 if v8::handles(a) => v8::run_layout(a, out, daemon),
        V8 if a.has_name() => {
            let (ns, name) = named()?;
            emit::emit_constant(a, out, uuidkit::v8_sha256(&ns, &name))
        }
        V8 => v8::run_time_based(a, out, daemon),
        V4 => v4::run(a, out, daemon),
        V1 | V2 | V6 => gregorian::run(a, out, daemon),
        V7 => v7::run(a, out, daemon),
    }
}
