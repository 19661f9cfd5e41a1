//! `uuidkit inspect`: the fields of each UUID, as a readable summary or as JSON lines.
//!
//! Both outputs come from one list of fields ([`fields_of`]), so they always agree: JSON
//! gets each field's machine value, the summary its readable text. Each field is written
//! where it goes as it is listed, so that inspecting a line allocates nothing. With
//! `--layout`, the fields of a named layout's reading ([`layout_fields`]) take the place
//! of the version's own time.

use std::fmt::{self, Display};
use std::io::{self, Write};

use serde_json::Value;
use uuidkit::inspect::{Field, Timestamp};
use uuidkit::layout::{self, Layout, LayoutError};
use uuidkit::{Case, Format, NodeId, Uuid, Variant, Version};

use crate::args::InspectArgs;
use crate::failure::{Failure, Status, usage_error};
use crate::input::{self, Item, Need, parse_or_report};
use crate::stdio::report;

/// A field's JSON value.
enum Json<'a> {
    /// A string (escaped on the way out).
    Text(&'a str),
    /// A string, as its `Display` text (escaped on the way out).
    Str(&'a dyn Display),
    /// A number.
    Int(u64),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// JSON text written as it is (an object built on the stack).
    Raw(&'a str),
    /// Any JSON value (the fields of `--layout`, which allocate anyway).
    Value(&'a serde_json::Value),
}

/// Where [`fields_of`] lists the fields: each with its key (also the summary's label),
/// its JSON value, and its summary text (`None`: not in the summary).
trait Fields {
    fn field(&mut self, key: &'static str, json: Json<'_>, text: Option<fmt::Arguments<'_>>);
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
fn time_fields(f: &mut impl Fields, t: Timestamp, v2_partial: bool) {
    let time = t.rfc3339();
    if v2_partial {
        f.field(
            "time",
            Json::Str(&time),
            Some(format_args!(
                "{time} (to about 7 minutes: v2 keeps only the top 28 bits)"
            )),
        );
    } else {
        f.field("time", Json::Str(&time), Some(format_args!("{time}")));
    }
    let unit = match t {
        Timestamp::Gregorian(_) => "100 ns ticks since 1582-10-15",
        Timestamp::UnixMillis(_) => "milliseconds since 1970-01-01",
    };
    f.field(
        "timestamp",
        Json::Int(t.raw()),
        Some(format_args!("{} ({unit})", t.raw())),
    );
}

/// The node and multicast fields of v1, v2 and v6.
fn node_fields(f: &mut impl Fields, node: &NodeId) {
    let multicast = node.is_multicast();
    let hex = node_hex(node);
    // Hex digits are ASCII.
    let text = std::str::from_utf8(&hex).unwrap_or_default();
    f.field("node", Json::Text(text), Some(format_args!("{text}")));
    let note = if multicast {
        "true (not a network card's address: random or hashed)"
    } else {
        "false (may be a network card's address)"
    };
    f.field(
        "multicast",
        Json::Bool(multicast),
        Some(format_args!("{note}")),
    );
}

/// The node as `NodeId`'s `Display` writes it, 12 lowercase hex digits, built on the
/// stack (the `Display` impl formats byte by byte).
fn node_hex(node: &NodeId) -> [u8; 12] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 12];
    for (pair, b) in out.chunks_exact_mut(2).zip(node.as_bytes()) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 15)];
    }
    out
}

/// The UUID as a number, in Microsoft's GUID byte order, and split into RFC 4122's
/// fields: JSON only (the summary shows the UUID, which is all of them).
fn value_fields(u: &Uuid, f: &mut impl Fields) {
    let mut dec = itoa::Buffer::new();
    f.field("int", Json::Text(dec.format(u.as_u128())), None);
    let le = hex_bytes::<32>(&u.to_bytes_le());
    f.field("bytes_le", Json::Text(ascii(&le)), None);
    // {"time_low":"…","time_mid":"…",…}: 8, 4, 4, 2, 2 and 12 hex digits.
    let b = u.as_bytes();
    let parts: [(&str, &[u8]); 6] = [
        ("time_low", &b[0..4]),
        ("time_mid", &b[4..6]),
        ("time_hi_and_version", &b[6..8]),
        ("clock_seq_hi_and_reserved", &b[8..9]),
        ("clock_seq_low", &b[9..10]),
        ("node", &b[10..16]),
    ];
    let mut obj = [0u8; 160];
    let mut n = 0;
    let mut put = |bytes: &[u8]| {
        obj[n..n + bytes.len()].copy_from_slice(bytes);
        n += bytes.len();
    };
    for (i, (name, bytes)) in parts.iter().enumerate() {
        put(if i == 0 { b"{\"" } else { b",\"" });
        put(name.as_bytes());
        put(b"\":\"");
        for byte in *bytes {
            put(&hex_bytes::<2>(&[*byte]));
        }
        put(b"\"");
    }
    put(b"}");
    f.field("fields", Json::Raw(ascii(&obj[..n])), None);
}

/// `bytes` as lowercase hex, `N` = twice their number.
fn hex_bytes<const N: usize>(bytes: &[u8]) -> [u8; N] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; N];
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 15)];
    }
    out
}

/// Bytes known to be ASCII as a `&str`.
fn ascii(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or_default()
}

/// Every field of `u`, in order: the library's list ([`uuidkit::inspect::fields`]), each
/// with its keys, JSON values and summary text.
fn fields_of(u: &Uuid, f: &mut impl Fields) {
    uuidkit::inspect::fields(u, |field| match field {
        Field::Uuid(u) => {
            let text = u.format(Format::Hyphenated, Case::Lower);
            let text = text.as_str();
            f.field("uuid", Json::Text(text), Some(format_args!("{text}")));
        }
        Field::Variant(variant) => {
            let name = variant.name();
            f.field(
                "variant",
                Json::Text(name),
                Some(format_args!("{name} ({})", describe_variant(u))),
            );
        }
        Field::Version(Some(version)) => {
            let n = version.number();
            f.field(
                "version",
                Json::Int(n.into()),
                Some(format_args!("{n} ({})", describe(version))),
            );
        }
        Field::Version(None) => f.field(
            "version",
            Json::Null,
            Some(format_args!(
                "none (only the RFC 9562 variant has versions)"
            )),
        ),
        Field::Nil(nil) => f.field("nil", Json::Bool(nil), None),
        Field::Max(max) => f.field("max", Json::Bool(max), None),
        Field::Value(u) => value_fields(&u, f),
        Field::Time { timestamp, partial } => time_fields(f, timestamp, partial),
        Field::ClockSeq(cs) => f.field(
            "clock_seq",
            Json::Int(cs.into()),
            Some(format_args!("{cs} (0x{cs:04x})")),
        ),
        Field::Node(node) => node_fields(f, &node),
        Field::Dce(domain, id) => {
            f.field("domain", Json::Str(&domain), Some(format_args!("{domain}")));
            f.field("local_id", Json::Int(id.into()), Some(format_args!("{id}")));
        }
        Field::Hash(h) => {
            let name = h.name();
            f.field("hash", Json::Text(name), Some(format_args!("{name}")));
        }
        Field::Custom(c) => {
            f.field(
                "custom_a",
                Json::Int(c.custom_a),
                Some(format_args!("0x{:012x} (48 bits)", c.custom_a)),
            );
            f.field(
                "custom_b",
                Json::Int(c.custom_b.into()),
                Some(format_args!("0x{:03x} (12 bits)", c.custom_b)),
            );
            f.field(
                "custom_c",
                Json::Int(c.custom_c),
                Some(format_args!("0x{:016x} (62 bits)", c.custom_c)),
            );
        }
        // A field this command does not know yet: not shown.
        _ => {}
    });
}

/// One JSON object on one line, keys in the order of the fields, built in a buffer that
/// is kept from line to line.
struct JsonLine<'b> {
    line: &'b mut Vec<u8>,
}

/// A `fmt::Write` appending to a buffer.
struct Append<'b>(&'b mut Vec<u8>);

impl fmt::Write for Append<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Whether a byte must be escaped in a JSON string.
fn needs_escape(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < b' '
}

/// Appends `text` to `line` as the inside of a JSON string: `"`, `\\` and control
/// characters escaped.
fn escape_into(line: &mut Vec<u8>, text: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &c in text {
        match c {
            b'"' => line.extend_from_slice(b"\\\""),
            b'\\' => line.extend_from_slice(b"\\\\"),
            c if c < b' ' => {
                line.extend_from_slice(b"\\u00");
                line.extend_from_slice(&[HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
            }
            c => line.push(c),
        }
    }
}

impl Fields for JsonLine<'_> {
    fn field(&mut self, key: &'static str, json: Json<'_>, _: Option<fmt::Arguments<'_>>) {
        let line = &mut *self.line;
        line.push(if line.is_empty() { b'{' } else { b',' });
        // Keys are plain ASCII identifiers.
        line.push(b'"');
        line.extend_from_slice(key.as_bytes());
        line.extend_from_slice(b"\":");
        match json {
            Json::Text(s) => {
                line.push(b'"');
                if s.bytes().fold(false, |bad, c| bad | needs_escape(c)) {
                    escape_into(line, s.as_bytes());
                } else {
                    line.extend_from_slice(s.as_bytes());
                }
                line.push(b'"');
            }
            Json::Str(s) => {
                line.push(b'"');
                let start = line.len();
                // Appending to a Vec cannot fail; the fields' Display impls do not either.
                let _ = fmt::Write::write_fmt(&mut Append(line), format_args!("{s}"));
                // None of the fields has a character to escape today; if one ever does,
                // this keeps the output JSON (at the cost of a copy, for that line only).
                // (`fold`, not `any`: without an early exit the check is vectorised.)
                if line[start..]
                    .iter()
                    .fold(false, |bad, &c| bad | needs_escape(c))
                {
                    let text = line.split_off(start);
                    escape_into(line, &text);
                }
                line.push(b'"');
            }
            Json::Int(n) => line.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
            Json::Bool(true) => line.extend_from_slice(b"true"),
            Json::Bool(false) => line.extend_from_slice(b"false"),
            Json::Null => line.extend_from_slice(b"null"),
            Json::Raw(r) => line.extend_from_slice(r.as_bytes()),
            // Writing to a Vec cannot fail.
            Json::Value(v) => {
                let _ = serde_json::to_writer(&mut *line, v);
            }
        }
    }
}

/// The summary: `key: text` lines, labels aligned, written to `out`; the first write
/// error is kept (the field list itself cannot fail).
struct Summary<'w, W> {
    out: &'w mut W,
    result: io::Result<()>,
}

impl<W: Write> Fields for Summary<'_, W> {
    fn field(&mut self, key: &'static str, _: Json<'_>, text: Option<fmt::Arguments<'_>>) {
        let w = self;
        let Some(text) = text else { return };
        if w.result.is_err() {
            return;
        }
        // The label `key:` padded to 11 columns (`machine_id:` fills them: one space).
        let pad = 10usize
            .saturating_sub(key.len())
            .max(usize::from(key.len() >= 10));
        w.result = writeln!(w.out, "{key}:{:pad$}{text}", "");
    }
}

/// The fields of a UUID read as a named layout (`inspect --layout`): the layout's own
/// reading of time, timestamp, sequence, random bits and machine ID.
type LayoutFields = Vec<(&'static str, serde_json::Value, String)>;

/// A JSON number when it fits a `u64`, else its decimal text.
fn big(v: u128) -> Value {
    u64::try_from(v).map_or_else(|_| Value::String(v.to_string()), Value::from)
}

/// The fields `inspect --layout` adds: `(key, JSON value, summary text)`.
/// Hex digits for `value` of `bits` bits, zero-padded to the width.
fn hex_of(value: u128, bits: u32) -> String {
    format!("{value:0width$x}", width = bits.div_ceil(4) as usize)
}

fn layout_fields(
    u: &Uuid,
    layout: Layout,
    machine_id_bits: Option<u32>,
) -> Result<LayoutFields, String> {
    let d = layout::decode_as(u, layout)
        .map_err(|e: LayoutError| format!("{u} cannot be read as layout {layout}: {e}"))?;
    let mut f = vec![(
        "layout",
        Value::from(layout.name()),
        layout.name().to_string(),
    )];
    if let (Some(time), Some(ts)) = (d.time_rfc3339(), d.timestamp) {
        f.push(("time", Value::from(time.clone()), time));
        f.push((
            "timestamp",
            big(ts),
            format!("{ts} ({})", layout.timestamp_unit()),
        ));
    }
    if let (Some(seq), Some(bits)) = (d.sequence, layout.sequence_bits()) {
        f.push(("sequence", Value::from(seq), format!("{seq} ({bits} bits)")));
    }
    let (random, random_bits) = match machine_id_bits {
        Some(bits) => {
            let (id, rest, rest_bits) = d.machine_id(bits).ok_or_else(|| {
                format!(
                    "--machine-id-bits {bits}: layout {layout} has {} random bits; a machine \
                     ID takes fewer",
                    d.random_bits
                )
            })?;
            f.push((
                "machine_id",
                Value::from(id),
                format!("{id} (0x{id:x}, {bits} bits)"),
            ));
            (rest, rest_bits)
        }
        None => (d.random, d.random_bits),
    };
    let hex = hex_of(random, random_bits);
    f.push((
        "random",
        Value::from(hex.clone()),
        format!("{hex} ({random_bits} bits)"),
    ));
    Ok(f)
}

/// Every field of `u`; with a layout's fields, those replace the version's own time.
fn all_fields(u: &Uuid, layout: Option<&LayoutFields>, f: &mut impl Fields) {
    let Some(extra) = layout else {
        return fields_of(u, f);
    };
    fields_of(u, &mut WithoutTime(&mut *f));
    for (key, value, text) in extra {
        f.field(key, Json::Value(value), Some(format_args!("{text}")));
    }
}

/// Passes every field on but the version's own `time` and `timestamp`.
struct WithoutTime<'f, F>(&'f mut F);

impl<F: Fields> Fields for WithoutTime<'_, F> {
    fn field(&mut self, key: &'static str, json: Json<'_>, text: Option<fmt::Arguments<'_>>) {
        if !matches!(key, "time" | "timestamp") {
            self.0.field(key, json, text);
        }
    }
}

/// One JSON object on one line, keys in the order of the fields; `line` is a buffer kept
/// from call to call, so that nothing is allocated once it has grown to a line's size.
fn write_json(
    out: &mut impl Write,
    u: &Uuid,
    layout: Option<&LayoutFields>,
    line: &mut Vec<u8>,
) -> io::Result<()> {
    line.clear();
    all_fields(u, layout, &mut JsonLine { line });
    line.extend_from_slice(b"}\n");
    out.write_all(line)
}

/// The summary: `key: text` lines, labels aligned.
fn write_text(out: &mut impl Write, u: &Uuid, layout: Option<&LayoutFields>) -> io::Result<()> {
    let mut summary = Summary {
        out,
        result: Ok(()),
    };
    all_fields(u, layout, &mut summary);
    summary.result
}

/// The fields a table can show, and each column's width (a field's usual width, at least
/// its header's; a longer value widens its own row only).
const TABLE_COLUMNS: &[(&str, usize)] = &[
    ("uuid", 36),
    ("variant", 9),
    ("version", 7),
    ("nil", 5),
    ("max", 5),
    ("int", 39),
    ("bytes_le", 32),
    ("fields", 40),
    ("time", 30),
    ("timestamp", 18),
    ("clock_seq", 9),
    ("node", 12),
    ("multicast", 9),
    ("domain", 6),
    ("local_id", 10),
    ("hash", 6),
    ("custom_a", 15),
    ("custom_b", 8),
    ("custom_c", 19),
    ("layout", 11),
    ("sequence", 8),
    ("random", 16),
    ("machine_id", 10),
];

/// One table row: the plain value of each column asked for (`-` when the UUID has no
/// such field).
struct Row<'c> {
    columns: &'c [String],
    values: Vec<Option<String>>,
}

impl Fields for Row<'_> {
    fn field(&mut self, key: &'static str, json: Json<'_>, _: Option<fmt::Arguments<'_>>) {
        let Some(i) = self.columns.iter().position(|c| c == key) else {
            return;
        };
        self.values[i] = Some(match json {
            Json::Text(s) | Json::Raw(s) => s.to_string(),
            Json::Str(d) => d.to_string(),
            Json::Int(n) => n.to_string(),
            Json::Bool(b) => b.to_string(),
            Json::Null => "-".to_string(),
            Json::Value(serde_json::Value::String(s)) => s.clone(),
            Json::Value(v) => v.to_string(),
        });
    }
}

fn table_line(out: &mut impl Write, cells: &[(&str, usize)]) -> io::Result<()> {
    let mut line = String::new();
    for (i, (text, width)) in cells.iter().enumerate() {
        if i + 1 == cells.len() {
            line.push_str(text);
        } else {
            line.push_str(&format!("{text:<width$} "));
        }
    }
    writeln!(out, "{}", line.trim_end())
}

fn widths(columns: &[String]) -> Vec<usize> {
    columns
        .iter()
        .map(|c| {
            let w = TABLE_COLUMNS
                .iter()
                .find(|(k, _)| k == c)
                .map_or(0, |(_, w)| *w);
            w.max(c.len())
        })
        .collect()
}

/// Inspects every input; `Status::Invalid` if any was not a UUID.
pub fn run<W: Write>(a: &InspectArgs, out: &mut W) -> Result<Status, Failure> {
    if a.output.as_deref() == Some("table") {
        return run_table(a, out);
    }
    let json = a.json || a.output.as_deref() == Some("json");
    let mut first = true;
    let mut line = Vec::with_capacity(512);
    each_uuid(a, out, |out, u, layout| {
        if json {
            write_json(out, u, layout, &mut line)
        } else {
            if !first {
                out.write_all(b"\n")?;
            }
            first = false;
            write_text(out, u, layout)
        }
    })
}

/// Calls `write` with every input UUID and, with `--layout`, its reading as that layout;
/// reports inputs that are not UUIDs, and UUIDs the layout cannot read (those are still
/// written, as their version reads them). `Status::Invalid` if there was either.
fn each_uuid<W: Write>(
    a: &InspectArgs,
    out: &mut W,
    mut write: impl FnMut(&mut W, &Uuid, Option<&LayoutFields>) -> io::Result<()>,
) -> Result<Status, Failure> {
    let mut status = Status::Ok;
    let mut one = |out: &mut W, u: &Uuid, status: &mut Status| -> io::Result<()> {
        let layout = match a.layout {
            None => None,
            Some(layout) => match layout_fields(u, layout, a.machine_id_bits) {
                Ok(extra) => Some(extra),
                Err(e) => {
                    report(format_args!("{e}"));
                    *status = Status::Invalid;
                    None
                }
            },
        };
        write(out, u, layout.as_ref())
    };
    input::for_each(&a.uuids, out, Need::Uuids, |out, item| {
        match item {
            Item::Uuids(batch) => {
                for u in batch.uuids {
                    one(out, u, &mut status)?;
                }
            }
            Item::Input(input) => match parse_or_report(input) {
                Some(u) => one(out, &u, &mut status)?,
                None => status = Status::Invalid,
            },
        }
        Ok(())
    })?;
    Ok(status)
}

/// `inspect --output table`: a header, then one row a UUID.
fn run_table<W: Write>(a: &InspectArgs, out: &mut W) -> Result<Status, Failure> {
    if let Some(bad) = a
        .columns
        .iter()
        .find(|c| !TABLE_COLUMNS.iter().any(|(k, _)| k == c))
    {
        let known: Vec<&str> = TABLE_COLUMNS.iter().map(|(k, _)| *k).collect();
        return Err(usage_error(
            "inspect",
            clap::error::ErrorKind::InvalidValue,
            format!(
                "--columns: no column '{bad}'; the columns are {}",
                known.join(", ")
            ),
        ));
    }
    let widths = widths(&a.columns);
    let header: Vec<String> = a.columns.iter().map(|c| c.to_uppercase()).collect();
    let cells: Vec<(&str, usize)> = header
        .iter()
        .map(String::as_str)
        .zip(widths.iter().copied())
        .collect();
    table_line(out, &cells)?;
    each_uuid(a, out, |out, u, layout| {
        let mut row = Row {
            columns: &a.columns,
            values: vec![None; a.columns.len()],
        };
        all_fields(u, layout, &mut row);
        let cells: Vec<(&str, usize)> = row
            .values
            .iter()
            .map(|v| v.as_deref().unwrap_or("-"))
            .zip(widths.iter().copied())
            .collect();
        table_line(out, &cells)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn json(s: &str) -> serde_json::Value {
        let mut out = Vec::new();
        write_json(&mut out, &s.parse().unwrap(), None, &mut Vec::new()).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn inspecting_a_line_allocates_nothing() {
        use crate::platform::counting::allocations;
        let uuids: Vec<Uuid> = [
            "c232ab00-9414-11ec-b3c8-9f6bdeced846",
            "000003e8-9414-21ec-ac00-9f6bdeced846",
            "6fa459ea-ee8a-3ca4-894e-db77e160355e",
            "919108f7-52d1-4320-9bac-f847db4148a8",
            "886313e1-3b8a-5372-9b90-0c9aee199e5d",
            "1ec9414c-232a-6b00-b3c8-9f6bdeced846",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0",
            "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "00000000-0000-4000-c000-000000000000",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        let mut out = Vec::with_capacity(1 << 20);
        let mut line = Vec::new();
        // The first round lets the line buffer grow to its size.
        for u in &uuids {
            write_json(&mut out, u, None, &mut line).unwrap();
        }
        let before = allocations();
        for _ in 0..100 {
            for u in &uuids {
                write_json(&mut out, u, None, &mut line).unwrap();
                write_text(&mut out, u, None).unwrap();
            }
        }
        assert_eq!(allocations() - before, 0);
        assert!(out.len() < 1 << 20, "the output buffer itself had to grow");
    }

    #[test]
    fn node_hex_is_the_display_text() {
        for b in [[0u8; 6], [0xff; 6], [0x01, 0x23, 0x45, 0x67, 0x89, 0xab]] {
            let node = NodeId::from_bytes(b);
            assert_eq!(node_hex(&node), node.to_string().as_bytes());
        }
    }

    #[test]
    fn json_strings_are_escaped() {
        let mut line = Vec::new();
        let text = "a\"b\\c\nd\u{1}é";
        let mut json = JsonLine { line: &mut line };
        json.field("k", Json::Str(&text), None);
        json.field("t", Json::Text(text), None);
        line.push(b'}');
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!((&v["k"], &v["t"]), (&Value::from(text), &Value::from(text)));
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
