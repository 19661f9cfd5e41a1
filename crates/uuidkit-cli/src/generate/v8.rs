//! `gen v8` but the name-based one (a constant, written by the dispatcher) and layout b1
//! (a `V8Generator` run as is): the 2021 draft's named layouts (`--layout draft-*`, with
//! an optional machine ID), and raw fields (`--custom-a/-b/-c`).

use std::io::Write;

use uuidkit::generator::draft::DraftGenerator;
use uuidkit::generator::machine_id::MachineId;
use uuidkit::layout::{self, Layout};
use uuidkit::random::{Csprng, RngCore};

use super::emit::{Output, Stopped, emit_batches};
use super::plan::RawFields;
use crate::failure::{Failure, Status};

/// The generator of a draft layout, with `machine_id` in its node bits.
pub(super) fn draft_generator(
    layout: Layout,
    machine_id: Option<MachineId>,
) -> Result<DraftGenerator, Failure> {
    let bad = |e: &dyn std::fmt::Display| Failure::Message(e.to_string());
    let g = DraftGenerator::new(layout).map_err(|e| bad(&e))?;
    match machine_id {
        Some(id) => g.with_machine_id(id).map_err(|e| bad(&e)),
        None => Ok(g),
    }
}

/// Raw v8 fields, as Python's `uuid.uuid8(a, b, c)`: those not given are random.
pub(super) fn run_raw(
    raw: RawFields,
    output: &Output,
    out: &mut impl Write,
) -> Result<Status, Failure> {
    let mut rng = Csprng;
    emit_batches(output, out, |batch| {
        for u in batch {
            let f = layout::v8::Fields {
                custom_a: raw.custom_a.unwrap_or_else(|| rng.next_u64() >> 16),
                custom_b: raw
                    .custom_b
                    .unwrap_or_else(|| rng.next_u32() as u16 & 0xfff),
                custom_c: raw.custom_c.unwrap_or_else(|| rng.next_u64() >> 2),
            };
            // The parsers checked each width.
            *u = layout::v8::encode(&f)
                .map_err(|e| Stopped::all(Failure::Message(e.to_string())))?;
        }
        Ok(())
    })
}
