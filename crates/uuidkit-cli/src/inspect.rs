//! `uuidkit inspect`: the fields of each UUID, as a readable summary or as JSON lines.
//!
//! Both outputs come from one list of fields, so they always agree: JSON gets each
//! field's machine value, the summary its readable text.

use std::io::Write;

use serde_json::Value;
use uuidkit::inspect::Timestamp;
use uuidkit::layout::{v2, v8};
use uuidkit::{Uuid, Variant, Version};

use crate::args::InspectArgs;
use crate::input::{self, parse_or_report};
use crate::{Failure, Status};

/// One field of the report.
struct Field {
    /// The JSON key, also the label of the summary.
    key: &'static str,
    /// The JSON value.
    json: Value,
    /// The summary's text; `None` leaves the field out of the summary.
    text: Option<String>,
}

fn field(key: &'static str, json: impl Into<Value>, text: impl Into<String>) -> Field {
    Field {
        key,
        json: json.into(),
        text: Some(text.into()),
    }
}

/// What a version is, for the summary.
fn describe(v: Version) -> &'static str {
    match v {
        Version::V1 => "Gregorian time-based",
        Version::V2 => "DCE Security",
        Version::V3 => "name-based, MD5",
        Version::V4 => "random",
        Version::V5 => "name-based, SHA-1",
        Version::V6 => "reordered Gregorian time-based",
        Version::V7 => "Unix time-based",
        Version::V8 => "custom",
        Version::Other(_) => "unassigned",
    }
}

fn describe_variant(u: &Uuid) -> &'static str {
    match u.variant() {
        Variant::Ncs if u.is_nil() => "the Nil UUID",
        Variant::Future if u.is_max() => "the Max UUID",
        Variant::Ncs => "reserved, NCS backward compatibility",
        Variant::Rfc9562 => "RFC 9562",
        Variant::Microsoft => "reserved, Microsoft backward compatibility",
        Variant::Future => "reserved for future definition",
    }
}

/// The time and raw timestamp fields.
fn time_fields(fields: &mut Vec<Field>, t: Timestamp, v2_partial: bool) {
    let time = t.to_rfc3339();
    let time_text = if v2_partial {
        format!("{time} (to about 7 minutes: v2 keeps only the top 28 bits)")
    } else {
        time.clone()
    };
    fields.push(field("time", time, time_text));
    let unit = match t {
        Timestamp::Gregorian(_) => "100 ns ticks since 1582-10-15",
        Timestamp::UnixMillis(_) => "milliseconds since 1970-01-01",
    };
    fields.push(field("timestamp", t.raw(), format!("{} ({unit})", t.raw())));
}

/// The clock sequence, node and multicast fields of v1, v2 and v6.
fn clock_and_node(fields: &mut Vec<Field>, u: &Uuid) {
    if let Some(cs) = u.clock_seq() {
        fields.push(field("clock_seq", cs, format!("{cs} (0x{cs:04x})")));
    }
    if let Some(node) = u.node() {
        let multicast = node.is_multicast();
        fields.push(field("node", node.to_string(), node.to_string()));
        let note = if multicast {
            "true (not a network card's address: random or hashed)"
        } else {
            "false (may be a network card's address)"
        };
        fields.push(field("multicast", multicast, note));
    }
}

/// Every field of `u`.
fn fields_of(u: &Uuid) -> Vec<Field> {
    let mut fields = Vec::with_capacity(12);
    fields.push(field("uuid", u.to_string(), u.to_string()));
    let variant = u.variant();
    fields.push(field(
        "variant",
        variant.name(),
        format!("{} ({})", variant.name(), describe_variant(u)),
    ));
    let rfc = variant == Variant::Rfc9562;
    let version = u.version();
    fields.push(if rfc {
        field(
            "version",
            version.number(),
            format!("{} ({})", version.number(), describe(version)),
        )
    } else {
        field(
            "version",
            Value::Null,
            "none (only the RFC 9562 variant has versions)",
        )
    });
    fields.push(Field {
        key: "nil",
        json: u.is_nil().into(),
        text: None,
    });
    fields.push(Field {
        key: "max",
        json: u.is_max().into(),
        text: None,
    });
    if !rfc {
        return fields;
    }
    match version {
        Version::V1 | Version::V6 => {
            if let Some(t) = u.timestamp() {
                time_fields(&mut fields, t, false);
            }
            clock_and_node(&mut fields, u);
        }
        Version::V7 => {
            if let Some(t) = u.timestamp() {
                time_fields(&mut fields, t, false);
            }
        }
        Version::V2 => {
            if let Ok(f) = v2::decode(u) {
                fields.push(field("domain", f.domain.to_string(), f.domain.to_string()));
                fields.push(field("local_id", f.local_id, f.local_id.to_string()));
            }
            if let Some(t) = u.timestamp() {
                time_fields(&mut fields, t, true);
            }
            clock_and_node(&mut fields, u);
        }
        Version::V3 | Version::V5 => {
            if let Some(h) = u.hash_algorithm() {
                fields.push(field("hash", h.name(), h.name()));
            }
        }
        Version::V8 => {
            if let Ok(f) = v8::decode(u) {
                fields.push(field(
                    "custom_a",
                    f.custom_a,
                    format!("0x{:012x} (48 bits)", f.custom_a),
                ));
                fields.push(field(
                    "custom_b",
                    f.custom_b,
                    format!("0x{:03x} (12 bits)", f.custom_b),
                ));
                fields.push(field(
                    "custom_c",
                    f.custom_c,
                    format!("0x{:016x} (62 bits)", f.custom_c),
                ));
            }
        }
        Version::V4 | Version::Other(_) => {}
    }
    fields
}

/// One JSON object on one line, keys in the order of the fields.
fn write_json(out: &mut impl Write, fields: &[Field]) -> std::io::Result<()> {
    out.write_all(b"{")?;
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        // Keys are plain ASCII identifiers; values are serialized by serde_json.
        write!(out, "\"{}\":{}", f.key, f.json)?;
    }
    out.write_all(b"}\n")
}

/// The summary: `key: text` lines, labels aligned.
fn write_text(out: &mut impl Write, fields: &[Field]) -> std::io::Result<()> {
    for f in fields {
        if let Some(text) = &f.text {
            let label = format!("{}:", f.key);
            // `machine_id:` is the one label as wide as the column.
            if label.len() >= 11 {
                writeln!(out, "{label} {text}")?;
            } else {
                writeln!(out, "{label:<11}{text}")?;
            }
        }
    }
    Ok(())
}

/// Inspects every input; `Status::Invalid` if any was not a UUID.
pub fn run(a: &InspectArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let mut status = Status::Ok;
    let mut first = true;
    input::for_each(&a.uuids, |input| {
        let Some(u) = parse_or_report(input) else {
            status = Status::Invalid;
            return Ok(());
        };
        let mut fields = fields_of(&u);
        if let Some(layout) = a.layout {
            match crate::layouts::inspect(&u, layout, a.machine_id_bits) {
                Ok(extra) => {
                    // The layout's reading replaces the version's own time.
                    fields.retain(|f| !matches!(f.key, "time" | "timestamp"));
                    fields.extend(extra.into_iter().map(|(k, j, t)| field(k, j, t)));
                }
                Err(e) => {
                    crate::report(format_args!("{e}"));
                    status = Status::Invalid;
                }
            }
        }
        if a.json {
            write_json(out, &fields)?;
        } else {
            if !first {
                out.write_all(b"\n")?;
            }
            write_text(out, &fields)?;
        }
        first = false;
        Ok(())
    })?;
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &str) -> serde_json::Value {
        let mut out = Vec::new();
        write_json(&mut out, &fields_of(&s.parse().unwrap())).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn v1_fields() {
        let j = json("c232ab00-9414-11ec-b3c8-9f6bdeced846");
        assert_eq!(j["time"], "2022-02-22T19:22:22.0000000Z");
        assert_eq!(j["timestamp"], 138_648_505_420_000_000u64);
        assert_eq!(j["clock_seq"], 13256);
        assert_eq!(j["node"], "9f6bdeced846");
        assert_eq!(j["multicast"], true);
    }

    #[test]
    fn v2_fields() {
        let j = json("000003e8-9414-21ec-ac00-9f6bdeced846");
        assert_eq!(j["version"], 2);
        assert_eq!(j["domain"], "person");
        assert_eq!(j["local_id"], 1000);
        assert_eq!(j["clock_seq"], 0x2c);
        assert_eq!(j["node"], "9f6bdeced846");
        assert!(j["time"].as_str().unwrap().ends_with('Z'));
    }

    #[test]
    fn v8_fields() {
        let j = json("2489e9ad-2ee2-8e00-8ec9-32d5f69181c0");
        assert_eq!(j["custom_a"], 0x2489E9AD2EE2u64);
        assert_eq!(j["custom_b"], 0xE00);
        assert_eq!(j["custom_c"], 0x0EC932D5F69181C0u64);
        assert!(j.get("time").is_none());
    }

    #[test]
    fn other_variants_have_no_version() {
        let j = json("00000000-0000-4000-0000-000000000000");
        assert_eq!(j["variant"], "ncs");
        assert_eq!(j["version"], Value::Null);
        let j = json("00000000-0000-4000-c000-000000000000");
        assert_eq!(j["variant"], "microsoft");
        assert_eq!(j["version"], Value::Null);
    }
}
