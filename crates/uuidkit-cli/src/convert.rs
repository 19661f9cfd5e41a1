//! `uuidkit convert --to v6|v1`: between the two Gregorian time-based layouts.

use std::io::Write;

use uuidkit::layout::v6;
use uuidkit::text::{self, LineEnd};
use uuidkit::{Case, Format, Uuid, Version};

use crate::args::{ConvertArgs, ConvertTarget};
use crate::failure::{Failure, Status};
use crate::input::{self, Described, Input, Item, LineCursor, Need, parse_or_report};

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
    crate::stdio::report(format_args!("cannot convert {}: {why}", Described(input)));
}

/// Bytes of one output line.
const LINE: usize = text::line_len(Format::Hyphenated, LineEnd::Lf);

/// UUIDs converted and written a block.
const BLOCK: usize = 256;

/// Converts what the reader hands it and writes the results: a run of lines that are
/// UUIDs is converted into one array and written as one block of lines
/// ([`text::encode_lines`]), so nothing is allocated for a line that converts.
struct Converter {
    to: ConvertTarget,
    status: Status,
    converted: [Uuid; BLOCK],
    lines: [u8; BLOCK * LINE],
}

impl Converter {
    fn new(to: ConvertTarget) -> Converter {
        Converter {
            to,
            status: Status::Ok,
            converted: [Uuid::NIL; BLOCK],
            lines: [0; BLOCK * LINE],
        }
    }

    /// Writes the first `n` converted UUIDs, one a line.
    fn write(&mut self, out: &mut impl Write, n: usize) -> Result<(), Failure> {
        let n = text::encode_lines(
            &self.converted[..n],
            Format::Hyphenated,
            Case::Lower,
            LineEnd::Lf,
            &mut self.lines,
        );
        out.write_all(&self.lines[..n * LINE])?;
        Ok(())
    }

    fn item(&mut self, out: &mut impl Write, item: Item<'_>) -> Result<(), Failure> {
        match item {
            Item::Uuids(batch) => {
                let mut cursor = LineCursor::default();
                for chunk in (0..batch.uuids.len()).step_by(BLOCK) {
                    let mut n = 0;
                    for (i, u) in batch.uuids.iter().enumerate().skip(chunk).take(BLOCK) {
                        match convert(u, self.to) {
                            Ok(c) => {
                                self.converted[n] = c;
                                n += 1;
                            }
                            Err(why) => {
                                refuse(&mut self.status, &batch.input(i, &mut cursor), &why)
                            }
                        }
                    }
                    self.write(out, n)?;
                }
            }
            Item::Input(input) => {
                let Some(u) = parse_or_report(input) else {
                    self.status = Status::Invalid;
                    return Ok(());
                };
                match convert(&u, self.to) {
                    Ok(c) => {
                        self.converted[0] = c;
                        self.write(out, 1)?;
                    }
                    Err(why) => refuse(&mut self.status, input, &why),
                }
            }
        }
        Ok(())
    }
}

/// Converts every input, writing one UUID a line; `Status::Invalid` if any failed.
pub fn run(a: &ConvertArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let mut converter = Converter::new(a.to);
    input::for_each(&a.uuids, out, Need::Uuids, |out, item| {
        converter.item(out, item)
    })?;
    Ok(converter.status)
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
    fn converting_lines_allocates_nothing() {
        use crate::platform::counting::allocations;
        let mut text = Vec::new();
        let mut expected = Vec::new();
        for i in 0..5000 {
            // Mostly runs of UUID lines; every 97th in another form, which the reader hands
            // over as an input of its own.
            if i % 97 == 0 {
                text.extend_from_slice(
                    V1.format(Format::Braced, Case::Upper)
                        .to_string()
                        .as_bytes(),
                );
                text.extend_from_slice(b"\r\n");
            } else {
                text.extend_from_slice(
                    format!("{}\n", if i % 2 == 0 { V1 } else { V6 }).as_bytes(),
                );
            }
            expected.extend_from_slice(format!("{V6}\n").as_bytes());
        }
        let mut out = Vec::with_capacity(2 * expected.len());
        let mut converter = Converter::new(ConvertTarget::V6);
        let reader = Box::new(std::io::Cursor::new(text));
        let stdin = input::Stdin::Stream {
            reader,
            ahead: false,
        };
        let before = allocations();
        // Reading on this thread: the read buffer is the one allocation.
        input::for_each_line(stdin, 4096, &mut out, Need::Uuids, |out, item| {
            converter.item(out, item)
        })
        .unwrap_or_else(|_| panic!("converting failed"));
        assert_eq!(allocations() - before, 1);
        assert_eq!(converter.status, Status::Ok);
        assert_eq!(out, expected);
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
