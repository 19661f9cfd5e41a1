//! `uuidkit convert --to v6|v1`: between the two Gregorian time-based layouts.

use std::io::Write;

use uuidkit::layout::v6;
use uuidkit::{Case, Format, Uuid, Version};

use crate::args::{ConvertArgs, ConvertTarget};
use crate::input::{self, Described, parse_or_report};
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

/// Converts every input, writing one UUID a line; `Status::Invalid` if any failed.
pub fn run(a: &ConvertArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let mut status = Status::Ok;
    let mut buf = [0u8; Format::MAX_LEN];
    input::for_each(&a.uuids, |input| {
        let Some(u) = parse_or_report(input) else {
            status = Status::Invalid;
            return Ok(());
        };
        match convert(&u, a.to) {
            Ok(c) => {
                out.write_all(
                    c.encode(Format::Hyphenated, Case::Lower, &mut buf)
                        .as_bytes(),
                )?;
                out.write_all(b"\n")?;
            }
            Err(why) => {
                status = Status::Invalid;
                crate::report(format_args!("cannot convert {}: {why}", Described(input)));
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
