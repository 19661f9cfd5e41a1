//! `uuidkit format --to FORM`: each input re-encoded, one a line.

use std::io::Write;

use clap::error::ErrorKind;
use uuidkit::encoding::Encoding;
use uuidkit::text::LineEnd;
use uuidkit::{Case, Format, Uuid, text};

use crate::args::FormatArgs;
use crate::failure::{Failure, Status, usage_error};
use crate::input::{self, Item, Need, parse_or_report};

/// Writes `u` in the chosen form, with its line end, into `line` (cleared first).
fn encode(u: &Uuid, to: Result<(Format, Case), Encoding>, line: &mut Vec<u8>) {
    line.clear();
    match to {
        Ok((format, case)) => {
            line.extend_from_slice(u.format(format, case).as_bytes());
        }
        Err(e) => {
            let mut buf = [0u8; Encoding::MAX_LEN];
            line.extend_from_slice(e.encode(u, &mut buf).as_bytes());
        }
    }
    line.push(b'\n');
}

/// Re-encodes every input; `Status::Invalid` if any was not a UUID.
pub fn run<W: Write>(a: &FormatArgs, out: &mut W) -> Result<Status, Failure> {
    let case = if a.upper { Case::Upper } else { Case::Lower };
    let to = match (a.to.hex(), a.to.encoding()) {
        (Some(f), _) => Ok((f, case)),
        (None, Some(e)) if a.upper => {
            return Err(usage_error(
                "format",
                ErrorKind::ArgumentConflict,
                format!("--upper applies to the hex forms; {e} has its own alphabet"),
            ));
        }
        (None, Some(e)) => Err(e),
        (None, None) => unreachable!("every form is hex or compact"),
    };
    let mut status = Status::Ok;
    let mut line = Vec::with_capacity(64);
    let mut lines = Vec::new();
    input::for_each(&a.uuids, out, Need::Uuids, |out, item| {
        match item {
            Item::Uuids(batch) => {
                if let Ok((format, case)) = to {
                    // Hex to hex: the batch encoder, straight into whole lines.
                    let len = text::line_len(format, LineEnd::Lf);
                    lines.resize(batch.uuids.len() * len, 0);
                    let n = text::encode_lines(batch.uuids, format, case, LineEnd::Lf, &mut lines);
                    out.write_all(&lines[..n * len])?;
                } else {
                    for u in batch.uuids {
                        encode(u, to, &mut line);
                        out.write_all(&line)?;
                    }
                }
            }
            Item::Input(input) => match parse_or_report(input) {
                Some(u) => {
                    encode(&u, to, &mut line);
                    out.write_all(&line)?;
                }
                None => status = Status::Invalid,
            },
        }
        Ok(())
    })?;
    Ok(status)
}
