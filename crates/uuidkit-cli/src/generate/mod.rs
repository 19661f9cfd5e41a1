//! `uuidkit gen VERSION`: the arguments, checked once into a [`plan::Plan`], then run.
//!
//! The pieces only point down, from this dispatcher: [`plan`] builds the plan (with
//! [`checks`], which refuses what does not apply, and the choice of state in
//! [`crate::state_choice`]); the version groups ([`gregorian`], [`v4`], [`timed`] for v7,
//! v8 and the draft layouts, [`fleet`] for a leased machine ID) run their part of it and
//! never see the flags, and write through [`emit`] (batches of lines).

mod checks;
mod emit;
mod fleet;
mod gregorian;
mod plan;
mod timed;
mod v4;
mod v7;
mod v8;

use std::io::Write;

use uuidkit::generator::v8::V8Generator;

use crate::args::GenArgs;
use crate::failure::{Failure, Status};
use plan::{Make, Plan};

/// Runs `gen`.
pub fn run(a: &GenArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let Plan { make, output } = Plan::new(a)?;
    let output = &output;
    match make {
        Make::Constant(u) => emit::emit_constant(output, out, u),
        Make::Random(daemon) => v4::run(daemon, output, out),
        Make::Gregorian(g) => gregorian::run(g, output, out),
        Make::Sharded { shards, node } => gregorian::run_sharded(shards, node, output, out),
        Make::V7 {
            method,
            machine_id,
            clock,
        } => timed::run(v7::generator(method, machine_id)?, clock, output, out),
        Make::V8 { clock } => timed::run(V8Generator::new(), clock, output, out),
        Make::Draft {
            layout,
            machine_id,
            clock,
        } => timed::run(v8::draft_generator(layout, machine_id)?, clock, output, out),
        Make::Leased { lease, what } => fleet::run(lease, what, output, out),
        Make::Raw { fields } => v8::run_raw(fields, output, out),
    }
}
