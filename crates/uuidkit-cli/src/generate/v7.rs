//! v7: a 48-bit Unix millisecond timestamp, then a counter, random bits or finer time
//! (`--method`), and optionally a machine ID (`--machine-id`, fixed or leased from etcd).

use std::io::Write;
use std::sync::Arc;

use uuidkit::fleet::FleetGenerator;
use uuidkit::fleet::Placement;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::service::client::DaemonClient;
use uuidkit::store::GeneratorKind;

use super::sources::machine_id;
use super::{fleet, timed};
use crate::args::{GenArgs, MachineIdArg, MethodArg};
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
    if a.machine_id == Some(MachineIdArg::Etcd) {
        return fleet::run(a, out, GeneratorKind::V7, Placement::of_v7(method), |id| {
            FleetGenerator::v7(id, method)
        });
    }
    let mut g = V7Generator::new(method);
    if let Some(id) = machine_id(a, None)? {
        // `machine_id` checked the width against v7's room.
        g = g
            .with_machine_id(id)
            .map_err(|e| Failure::Message(e.to_string()))?;
    }
    timed::run(a, out, daemon, g, |_| {})
}
