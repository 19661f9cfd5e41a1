//! `uuidkit check`: validate every input, report each invalid one.

use crate::args::CheckArgs;
use crate::failure::{Failure, Status};
use crate::input::{self, Item, Need, parse_or_report};

/// Checks every input; `Status::Invalid` if any was not a UUID.
pub fn run(a: &CheckArgs) -> Result<Status, Failure> {
    let mut status = Status::Ok;
    // Lines that are UUIDs are only counted (`Need::OnlyOthers`): the others need a look.
    input::for_each(
        &a.uuids,
        &mut std::io::sink(),
        Need::OnlyOthers,
        |_, item| {
            if let Item::Input(input) = item {
                status = status.and(parse_or_report(input).is_some());
            }
            Ok(())
        },
    )?;
    Ok(status)
}
