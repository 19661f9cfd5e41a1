//! `uuidkit check`: validate every input, report each invalid one.

use crate::args::CheckArgs;
use crate::input::{self, parse_or_report};
use crate::{Failure, Status};

/// Checks every input; `Status::Invalid` if any was not a UUID.
pub fn run(a: &CheckArgs) -> Result<Status, Failure> {
    let mut status = Status::Ok;
    input::for_each(&a.uuids, |input| {
        status = status.and(parse_or_report(input).is_some());
        Ok(())
    })?;
    Ok(status)
}
