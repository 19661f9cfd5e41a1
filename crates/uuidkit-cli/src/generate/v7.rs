//! v7: a 48-bit Unix millisecond timestamp, then a counter, random bits or finer time
//! (`--method`), and optionally a machine ID written after them (`--machine-id`).

use std::io::Write;
use std::sync::Arc;

use uuidkit::Uuid;
use uuidkit::generator::machine_id::MachineId;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::random::Csprng;
use uuidkit::service::client::DaemonClient;

use super::emit::{Stopped, emit_batches};
use super::sources::{fixed, live_state, machine_id};
use crate::args::{GenArgs, MethodArg};
use crate::failure::{Failure, Status};
use crate::state::GenState;

/// `gen v7`.
pub(super) fn run(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    let method = match a.method.unwrap_or(MethodArg::Counter) {
        MethodArg::Counter => V7Method::Counter,
        MethodArg::Random => V7Method::Random,
        MethodArg::Precision => V7Method::Precision,
    };
    let machine_id = machine_id(a, None)?;
    match &a.time {
        Some(t) => {
            let mut g = V7Generator::with_sources(method, fixed(t.time), Csprng);
            emit_batches(a, out, |b| {
                g.fill(b);
                stamp_v7(b, machine_id);
                Ok(())
            })
        }
        None => {
            let GenState {
                store,
                mut warnings,
            } = live_state(a, daemon);
            let mut g = V7Generator::new(method);
            if let Some(store) = store {
                g = g.with_store(store);
            }
            emit_batches(a, out, |b| {
                g.fill(b);
                stamp_v7(b, machine_id);
                warnings
                    .after_batch(g.take_store_warnings(), b.len())
                    .map_err(Stopped::all)
            })
        }
    }
}

/// Writes the machine ID into each v7 UUID of a batch.
fn stamp_v7(batch: &mut [Uuid], id: Option<MachineId>) {
    if let Some(m) = id {
        for u in batch {
            // `machine_id` checked the width against v7's room.
            *u = m.stamp_v7(*u).unwrap_or(*u);
        }
    }
}
