//! `uuidkit convert --to v6|v1`: between the two Gregorian time-based layouts.

use std::io::Write;

use uuidkit::layout::v6;
use uuidkit::text::{self, LineEnd};
use uuidkit::{Case, Format, Uuid, Version};

use crate::args::{ConvertArgs, ConvertTarget};
use crate::input::{self, Described, Input, Item, LineCursor, parse_or_report};
use crate::{Failure, Status};

/// The UUID in the target version; a UUID already of that version is returned as it is.
fn convert(u: &Uuid, to: ConvertTarget) -> Result<Uuid, String> {
    let (source, target) = match to {
        ConvertTarget::V6 => (Version::V1, Version::V6),
        ConvertTarget::V1 => (Version::V6, Version::V1),
    };
    match u.rfc_version() {
        Some(v) if v == target => Ok(*u),
        Some(v) if v == source => match to {
            ConvertTarget::V6 => v6::from_v1(u),
            ConvertTarget::V1 => v6::to_v1(u),
        }
        .map_err(|e| e.to_string()),
        _ => {
            let found = match u.rfc_version() {
                Some(v) => format!("version {}", v.number()),
                None if u.is_nil() => "the Nil UUID".to_string(),
                None if u.is_max() => "the Max UUID".to_string(),
                None => format!(
                    "a UUID of the {} variant (version nibble {})",
                    u.variant(),
                    u.version_number()
                ),
            };
            Err(format!(
                "only version 1 and version 6 UUIDs convert to version {}; this is {found}",
                target.number()
            ))
        }
    }
}

/// Reports an input that does not convert.
fn refuse(status: &mut Status, input: &Input<'_>, why: &str) {
    *status = Status::Invalid;
    crate::report(format_args!("cannot convert {}: {why}", Described(input)));
}

/// Converts every input, writing one UUID a line; `Status::Invalid` if any failed.
///
/// A run of lines that are UUIDs is converted into one array and written as one block of
/// lines ([`text::encode_lines`]); nothing is allocated for a line that converts.
pub fn run(a: &ConvertArgs, out: &mut impl Write) -> Result<Status, Failure> {
    const LINE: usize = text::line_len(Format::Hyphenated, LineEnd::Lf);
    let mut status = Status::Ok;
    let mut converted = [Uuid::NIL; 256];
    let mut lines = [0u8; 256 * LINE];
    input::for_each(&a.uuids, out, |out, item| {
        match item {
            Item::Uuids(batch) => {
                let mut cursor = LineCursor::default();
                for chunk in (0..batch.uuids.len()).step_by(converted.len()) {
                    let mut n = 0;
                    for (i, u) in batch
                        .uuids
                        .iter()
                        .enumerate()
                        .skip(chunk)
                        .take(converted.len())
                    {
                        match convert(u, a.to) {
                            Ok(c) => {
                                converted[n] = c;
                                n += 1;
                            }
                            Err(why) => refuse(&mut status, &batch.input(i, &mut cursor), &why),
                        }
                    }
                    let n = text::encode_lines(
                        &converted[..n],
                        Format::Hyphenated,
                        Case::Lower,
                        LineEnd::Lf,
                        &mut lines,
                    );
                    out.write_all(&lines[..n * LINE])?;
                }
            }
            Item::Input(input) => {
                let Some(u) = parse_or_report(input) else {
                    status = Status::Invalid;
                    return Ok(());
                };
                match convert(&u, a.to) {
                    Ok(c) => {
                        let n = text::encode_lines(
                            &[c],
                            Format::Hyphenated,
                            Case::Lower,
                            LineEnd::Lf,
                            &mut lines,
                        );
                        out.write_all(&lines[..n * LINE])?;
                    }
                    Err(why) => refuse(&mut status, input, &why),
                }
            }
        }
        Ok(())
    })?;
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: Uuid = uuidkit::uuid!("c232ab00-9414-11ec-b3c8-9f6bdeced846");
    const V6: Uuid = uuidkit::uuid!("1ec9414c-232a-6b00-b3c8-9f6bdeced846");

    #[test]
    fn both_ways_and_identity() {
        assert_eq!(convert(&V1, ConvertTarget::V6), Ok(V6));
        assert_eq!(convert(&V6, ConvertTarget::V1), Ok(V1));
        assert_eq!(convert(&V6, ConvertTarget::V6), Ok(V6));
        assert_eq!(convert(&V1, ConvertTarget::V1), Ok(V1));
    }

    #[test]
    fn refuses_others() {
        let v4 = uuidkit::uuid!("919108f7-52d1-4320-9bac-f847db4148a8");
        assert!(
            convert(&v4, ConvertTarget::V6)
                .unwrap_err()
                .contains("version 4")
        );
        assert!(
            convert(&Uuid::NIL, ConvertTarget::V1)
                .unwrap_err()
                .contains("Nil")
        );
    }
}
