//! The one run of the timestamp-and-counter generators (v7, the time-based v8 and the
//! draft layouts, each a [`Timed`] of its stamp): on the stopped clock of `--time`, or
//! live, sharing the state of the daemon or the state file and reporting its warnings.

use std::io::Write;

use uuidkit::generator::timed::{Stamp, Timed};
use uuidkit::time::FnClock;

use super::emit::{Output, Stopped, emit_batches};
use super::plan::Clocked;
use crate::failure::{Failure, Status};
use crate::state_choice::GenState;

/// Runs `g` (built on the system clock, without a store) on `clock`.
pub(super) fn run<S: Stamp>(
    g: Timed<S>,
    clock: Clocked,
    output: &Output,
    out: &mut impl Write,
) -> Result<Status, Failure> {
    match clock {
        Clocked::At(t) => {
            let mut g = g.with_clock(FnClock(move || t));
            emit_batches(output, out, |b| {
                g.fill(b);
                Ok(())
            })
        }
        Clocked::Live(store) => {
            let GenState {
                store,
                mut warnings,
            } = store.open();
            let mut g = match store {
                Some(store) => g.with_store(store),
                None => g,
            };
            emit_batches(output, out, |b| {
                g.fill(b);
                warnings
                    .after_batch(g.take_store_warnings(), b.len())
                    .map_err(Stopped::all)
            })
        }
    }
}
