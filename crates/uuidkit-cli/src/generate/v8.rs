//! `gen v8` but the name-based one: layout b1 (RFC 9562 Appendix B.1, the default), the
//! 2021 draft's named layouts (`--layout draft-*`, with an optional machine ID), and raw fields
//! (`--custom-a/-b/-c`). The name-based v8 (b2) is a hash of the name, written as a
//! constant by the dispatcher.

use std::io::Write;
use std::sync::Arc;

use uuidkit::fleet::FleetGenerator;
use uuidkit::fleet::Placement;
use uuidkit::generator::draft::DraftGenerator;
use uuidkit::generator::v8::V8Generator;
use uuidkit::layout::{self, Layout};
use uuidkit::random::{Csprng, RngCore};
use uuidkit::service::client::DaemonClient;
use uuidkit::store::GeneratorKind;

use super::emit::{Stopped, emit_batches};
use super::sources::machine_id;
use super::{fleet, timed};
use crate::args::{GenArgs, GenVersion, MachineIdArg, V8Kind};
use crate::failure::{Failure, Status};

/// The draft layout `gen v8` is to write, if it is one.
pub(super) fn draft_layout(a: &GenArgs) -> Option<Layout> {
    a.layout.filter(|l| !matches!(l, Layout::B1 | Layout::B2))
}

/// Whether `gen v8` writes a draft layout or raw fields ([`run_layout`]).
pub(super) fn handles(a: &GenArgs) -> bool {
    a.version == GenVersion::V8 && matches!(V8Kind::of(a), V8Kind::Draft | V8Kind::Raw)
}

/// Whether `gen` may use a state store or daemon: not for raw fields.
pub(super) fn is_stateless(a: &GenArgs) -> bool {
    a.version == GenVersion::V8 && V8Kind::of(a) == V8Kind::Raw
}

/// The time-based `gen v8` in layout b1 (the default): RFC 9562 Appendix B.1.
pub(super) fn run_time_based(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    timed::run(a, out, daemon, V8Generator::new(), |_| {})
}

/// `gen v8` with a draft layout or raw fields.
pub(super) fn run_layout(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    let Some(layout) = draft_layout(a) else {
        return run_raw(a, out);
    };
    if a.machine_id == Some(MachineIdArg::Etcd) {
        return fleet::run(
            a,
            out,
            GeneratorKind::Draft(layout),
            Placement::Draft(layout),
            |id| FleetGenerator::draft(id, layout),
        );
    }
    let id = machine_id(a, Some(layout))?;
    let bad = |e: &dyn std::fmt::Display| Failure::Message(e.to_string());
    let mut g = DraftGenerator::new(layout).map_err(|e| bad(&e))?;
    if let Some(id) = id {
        g = g.with_machine_id(id).map_err(|e| bad(&e))?;
    }
    timed::run(a, out, daemon, g, |_| {})
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
