//! The one run of the timestamp-and-counter generators (v7, the time-based v8 and the
//! draft layouts, each a [`Timed`] of its stamp): on the stopped clock of `--time`, or
//! live, sharing the state of the daemon or the state file and reporting its warnings.

use std::io::Write;
use std::sync::Arc;

use uuidkit::Uuid;
use uuidkit::generator::timed::{Stamp, Timed};
use uuidkit::service::client::DaemonClient;

use super::emit::{Stopped, emit_batches};
use super::sources::{fixed, live_state};
use crate::args::GenArgs;
use crate::failure::{Failure, Status};
use crate::state::GenState;

/// Runs `g` (built on the system clock, without a store) for `gen`, passing each batch
/// through `finish` (v7's machine ID) before it is written.
pub(super) fn run<S: Stamp>(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
    g: Timed<S>,
    mut finish: impl FnMut(&mut [Uuid]),
) -> Result<Status, Failure> {
    match &a.time {
        Some(t) => {
            let mut g = g.with_clock(fixed(t.time));
            emit_batches(a, out, |b| {
                g.fill(b);
                finish(b);
                Ok(())
            })
        }
        None => {
            let GenState {
                store,
                mut warnings,
            } = live_state(a, daemon);
            let mut g = match store {
                Some(store) => g.with_store(store),
                None => g,
            };
            emit_batches(a, out, |b| {
                g.fill(b);
                finish(b);
                warnings
                    .after_batch(g.take_store_warnings(), b.len())
                    .map_err(Stopped::all)
            })
        }
    }
}
