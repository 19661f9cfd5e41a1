//! v7: a 48-bit Unix millisecond timestamp, then a counter, random bits or finer time
//! (`--method`), and optionally a machine ID written after them (`--machine-id`).

use std::io::Write;
use std::sync::Arc;

use uuidkit::Uuid;
use uuidkit::generator::machine_id::MachineId;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::service::client::DaemonClient;

use super::sources::machine_id;
use super::timed;
use crate::args::{GenArgs, MethodArg};
use crate::failure::{Failure, Status};

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
    timed::run(a, out, daemon, V7Generator::new(method), |b| {
        stamp_v7(b, machine_id)
    })
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
