//! v1↔v6 conversion, text forms, and parsing with uuidkit's strict, positioned errors.
//!
//! PostgreSQL's own `uuid` input reads the hyphenated, simple and braced forms (and a
//! few looser spellings); `uuidkit_parse` reads exactly the four forms of uuidkit (also
//! `urn:uuid:`), or one of the compact encodings, and says which byte is wrong.

use pgrx::prelude::*;
use uuidkit::encoding::Encoding;
use uuidkit::{Case, Format, Uuid, layout};

use crate::{from_pg, or_raise, quoted, raise, to_pg};

/// The forms `uuidkit_format` and `uuidkit_parse` name, in the order an error lists them.
const FORMS: &str =
    "'hyphenated', 'simple', 'braced', 'urn', 'base32', 'base58', 'base62' or 'base64url'";

/// A text form: one of the four hex forms or a compact encoding.
enum Form {
    Hex(Format),
    Compact(Encoding),
}

fn form(function: &str, name: &str) -> Form {
    match name {
        "hyphenated" => Form::Hex(Format::Hyphenated),
        "simple" => Form::Hex(Format::Simple),
        "braced" => Form::Hex(Format::Braced),
        "urn" => Form::Hex(Format::Urn),
        _ => match name.parse::<Encoding>() {
            Ok(e) => Form::Compact(e),
            Err(_) => raise(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!(
                    "{function}: unknown form {}: expected {FORMS}",
                    quoted(name)
                ),
            ),
        },
    }
}

/// The v6 UUID of a v1 UUID: the same timestamp, clock sequence and node, reordered.
///
/// ```sql
/// SELECT uuidkit_v1_to_v6('c232ab00-9414-11ec-b3c8-9f6bdeced846');
/// -- 1ec9414c-232a-6b00-b3c8-9f6bdeced846
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_v1_to_v6(u: pgrx::Uuid) -> pgrx::Uuid {
    to_pg(or_raise(
        layout::v6::from_v1(&from_pg(u)),
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        || format!("uuidkit_v1_to_v6: {u}"),
    ))
}

/// The v1 UUID of a v6 UUID; the inverse of `uuidkit_v1_to_v6`.
///
/// ```sql
/// SELECT uuidkit_v6_to_v1('1ec9414c-232a-6b00-b3c8-9f6bdeced846');
/// -- c232ab00-9414-11ec-b3c8-9f6bdeced846
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_v6_to_v1(u: pgrx::Uuid) -> pgrx::Uuid {
    to_pg(or_raise(
        layout::v6::to_v1(&from_pg(u)),
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        || format!("uuidkit_v6_to_v1: {u}"),
    ))
}

/// A UUID in a text form: `hyphenated`, `simple`, `braced`, `urn` (lowercase hex), or
/// the compact `base32` (Crockford, the ULID form), `base58`, `base62`, `base64url`.
///
/// ```sql
/// SELECT uuidkit_format('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'urn');
/// -- urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f
/// SELECT uuidkit_format('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'base32');
/// -- 01FWHE4YDGFK1SHH6W1G60EECF
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_format(u: pgrx::Uuid, form_name: &str) -> String {
    let u = from_pg(u);
    match form("uuidkit_format", form_name) {
        Form::Hex(f) => u.format(f, Case::Lower).to_string(),
        Form::Compact(e) => e.encode_to_string(&u),
    }
}

fn parse_error(function: &str, text: &str, what: impl std::fmt::Display) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        format!("{function}: invalid UUID {}: {what}", quoted(text)),
    )
}

/// Parses any of the four hex forms (hyphenated, simple, braced, `urn:uuid:`; hex digits
/// in either case), strictly: anything else raises an error naming the byte at fault.
///
/// ```sql
/// SELECT uuidkit_parse('urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6');
/// SELECT uuidkit_parse('f81d4fae-7dec-11d0-a765_00a0c91e6bf6');
/// -- ERROR:  uuidkit_parse: invalid UUID "f81d4fae-7dec-11d0-a765_00a0c91e6bf6":
/// --         at byte 23: expected a hyphen '-', found '_'
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_parse(text: &str) -> pgrx::Uuid {
    match Uuid::parse_str(text) {
        Ok(u) => to_pg(u),
        Err(e) => parse_error("uuidkit_parse", text, e),
    }
}

/// Parses one named form (as `uuidkit_format` names them), strictly.
///
/// ```sql
/// SELECT uuidkit_parse('01FWHE4YDGFK1SHH6W1G60EECF', 'base32');
/// -- 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
/// ```
#[pg_extern(name = "uuidkit_parse", immutable, parallel_safe)]
pub fn uuidkit_parse_form(text: &str, form_name: &str) -> pgrx::Uuid {
    match form("uuidkit_parse", form_name) {
        Form::Hex(f) => match Uuid::parse_str(text) {
            Ok(u) if text.len() == f.len() => to_pg(u),
            Ok(_) => parse_error(
                "uuidkit_parse",
                text,
                format_args!(
                    "a {form_name} UUID is {} bytes, not {}",
                    f.len(),
                    text.len()
                ),
            ),
            Err(e) => parse_error("uuidkit_parse", text, e),
        },
        Form::Compact(e) => match e.decode(text.as_bytes()) {
            Ok(u) => to_pg(u),
            Err(err) => parse_error("uuidkit_parse", text, err),
        },
    }
}
