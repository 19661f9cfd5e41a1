//! v7: a 48-bit Unix millisecond timestamp, then a counter, random bits or finer time
//! (`--method`), and optionally a fixed machine ID (a leased one is [`super::fleet`]'s).

use uuidkit::generator::machine_id::MachineId;
use uuidkit::generator::v7::{V7Generator, V7Method};

use crate::failure::Failure;

/// The v7 generator of `method`, with `machine_id` in its last bits.
pub(super) fn generator(
    method: V7Method,
    machine_id: Option<MachineId>,
) -> Result<V7Generator, Failure> {
    let g = V7Generator::new(method);
    match machine_id {
        // The checks made sure the width fits v7's room.
        Some(id) => g
            .with_machine_id(id)
            .map_err(|e| Failure::Message(e.to_string())),
        None => Ok(g),
    }
}
