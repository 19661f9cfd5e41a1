//! The values of flags: the types they become and the parsers from their text, each
//! saying in its message what it expected.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::ValueEnum;
use uuidkit::encoding::Encoding;
use uuidkit::layout::{ClockSequence, Layout};
use uuidkit::node::NodeStrategy;
use uuidkit::time::UnixTime;
use uuidkit::{Format, Uuid};

/// An output text form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// 8-4-4-4-12 hex digits
    #[default]
    Hyphenated,
    /// 32 hex digits
    Simple,
    /// {hyphenated}
    Braced,
    /// urn:uuid:hyphenated
    Urn,
    /// Crockford base32, 26 characters (ULID's text form)
    Base32,
    /// Bitcoin base58, 22 characters
    Base58,
    /// base62 (0-9A-Za-z), 22 characters
    Base62,
    /// RFC 4648 base64url without padding, 22 characters
    Base64url,
}

impl FormatArg {
    /// The hex form, or `None` for a compact encoding.
    pub fn hex(self) -> Option<Format> {
        match self {
            FormatArg::Hyphenated => Some(Format::Hyphenated),
            FormatArg::Simple => Some(Format::Simple),
            FormatArg::Braced => Some(Format::Braced),
            FormatArg::Urn => Some(Format::Urn),
            _ => None,
        }
    }

    /// The compact encoding, or `None` for a hex form.
    pub fn encoding(self) -> Option<Encoding> {
        match self {
            FormatArg::Base32 => Some(Encoding::Base32),
            FormatArg::Base58 => Some(Encoding::Base58),
            FormatArg::Base62 => Some(Encoding::Base62),
            FormatArg::Base64url => Some(Encoding::Base64Url),
            _ => None,
        }
    }
}

/// How v7 fills the bits after the millisecond timestamp (RFC 9562 §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// §6.2 method 1: a 42-bit counter, seeded at random each millisecond, then 32 random bits
    Counter,
    /// §6.2 method 2: a 74-bit value seeded at random (top bit clear) each millisecond, then stepped by 1 to 2^32 at random
    Random,
    /// §6.2 method 3: 1/4096 ms in rand_a, then a 30-bit counter and 32 random bits
    Precision,
}

/// The local domain of a v2 UUID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainArg {
    /// The local ID is a POSIX user ID (default: your UID)
    Person,
    /// The local ID is a POSIX group ID (default: your GID)
    Group,
    /// The local ID is an organisation number (no default)
    Org,
    /// Another domain number, 3-255 (no default local ID), as Go's NewDCESecurity allows
    Other(u8),
}

/// `--domain`: person, group, org, or a domain number 0-255 (0-2 are person, group and
/// org), decimal or 0x hex.
pub fn parse_domain(s: &str) -> Result<DomainArg, String> {
    match s {
        "person" => return Ok(DomainArg::Person),
        "group" => return Ok(DomainArg::Group),
        "org" => return Ok(DomainArg::Org),
        _ => {}
    }
    let n = parse_number(s).map_err(|e| {
        format!("{e}; a domain is person, group, org or a number 0-255 (decimal or 0x hex)")
    })?;
    match n {
        0 => Ok(DomainArg::Person),
        1 => Ok(DomainArg::Group),
        2 => Ok(DomainArg::Org),
        3..=255 => Ok(DomainArg::Other(n as u8)),
        _ => Err(format!(
            "a domain number is one octet, 0-255; {n} is too large"
        )),
    }
}

/// A finite, non-negative number: decimal or scientific (`1e6`).
pub fn parse_figure(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(v) => Err(format!(
            "'{s}' is {v}: a figure must be a finite number at least 0"
        )),
        Err(_) => Err(format!("'{s}' is not a number (decimal, or like 1e6)")),
    }
}

/// An unsigned number in decimal or with a `0x`/`0X` prefix in hex.
fn parse_number(s: &str) -> Result<u64, String> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (s, 10),
    };
    // from_str_radix accepts a leading '+'; a number here is digits only.
    if digits.is_empty() || !digits.bytes().all(|b| (b as char).is_digit(radix)) {
        return Err(if radix == 16 {
            "expected hex digits after 0x".to_string()
        } else {
            "expected a decimal number or 0x followed by hex digits".to_string()
        });
    }
    u64::from_str_radix(digits, radix).map_err(|_| "the number is too large".to_string())
}

/// `-n`/`--count`: 0 to 2^64-1, decimal or hex. Whatever follows `-n` comes here, also
/// text starting with '-' (rather than clap's tip to write `-- -1`, which would make the
/// number an unknown version).
pub fn parse_count(s: &str) -> Result<u64, String> {
    const RANGE: &str = "a count is from 0 to 2^64-1 (18446744073709551615), decimal or 0x hex";
    match s.strip_prefix('-').map(parse_number) {
        Some(Ok(_)) => Err(format!("{RANGE}, without a sign")),
        _ => parse_number(s).map_err(|e| format!("{e}; {RANGE}")),
    }
}

/// `--clock-seq`: 0–16383, decimal or hex.
pub fn parse_clock_seq(s: &str) -> Result<ClockSequence, String> {
    let v = parse_number(s)?;
    u16::try_from(v)
        .ok()
        .and_then(ClockSequence::new)
        .ok_or_else(|| {
            format!(
                "the clock sequence is 14 bits: 0 to {} (0x{:x}); {s} is too large",
                ClockSequence::MAX,
                ClockSequence::MAX
            )
        })
}

/// `--local-id`: a u32, decimal or hex.
pub fn parse_local_id(s: &str) -> Result<u32, String> {
    let v = parse_number(s)?;
    u32::try_from(v).map_err(|_| format!("a local ID is 32 bits: 0 to {}", u32::MAX))
}

/// `--namespace`: `@dns`, `@url`, `@oid`, `@x500` or a UUID.
pub fn parse_namespace(s: &str) -> Result<Uuid, String> {
    if let Some(name) = s.strip_prefix('@') {
        return uuidkit::namespace::by_name(name).ok_or_else(|| {
            format!("unknown namespace name @{name}: expected @dns, @url, @oid or @x500")
        });
    }
    Uuid::parse_str(s)
        .map_err(|e| format!("not a UUID ({e}); a namespace is @dns, @url, @oid, @x500 or a UUID"))
}

/// The value of `--time`: the text as given (for messages) and the instant.
#[derive(Clone, Debug)]
pub struct TimeArg {
    /// The text on the command line.
    pub text: String,
    /// The instant it names.
    pub time: UnixTime,
}

/// `--time`: RFC 3339.
pub fn parse_time(s: &str) -> Result<TimeArg, String> {
    let time = UnixTime::parse_rfc3339(s).map_err(|e| e.to_string())?;
    Ok(TimeArg {
        text: s.to_string(),
        time,
    })
}

/// `--state` and the `state` operand: any non-empty path (an empty one would name the
/// current directory's nothing; `--no-state` is the way to have no state file).
pub fn parse_state_path(s: OsString) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err(
            "a state file path cannot be empty (gen --no-state keeps the state in memory)"
                .to_string(),
        );
    }
    Ok(PathBuf::from(s))
}

/// The value parser of state file paths: any bytes the system allows, not only UTF-8.
pub(super) fn state_path_parser() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(parse_state_path)
}

/// `--daemon`: any non-empty path (an empty one names no socket; leaving the flag out
/// is the way to use none).
pub fn parse_daemon_path(s: OsString) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err("a daemon socket path cannot be empty".to_string());
    }
    Ok(PathBuf::from(s))
}

/// The value parser of daemon socket paths: any bytes the system allows.
pub(super) fn daemon_path_parser() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(parse_daemon_path)
}

/// `--node`: a strategy name or a node value.
pub fn parse_node(s: &str) -> Result<NodeStrategy, String> {
    s.parse::<NodeStrategy>().map_err(|e| e.to_string())
}

/// `--shards`: 1 to 64.
pub fn parse_shards(s: &str) -> Result<u32, String> {
    match parse_number(s) {
        Ok(n @ 1..=64) => Ok(n as u32),
        Ok(n) => Err(format!("shards are 1 to 64, not {n}")),
        Err(e) => Err(e),
    }
}

/// `--layout`: a layout name.
pub fn parse_layout(s: &str) -> Result<Layout, String> {
    s.parse::<Layout>().map_err(|e| e.to_string())
}

/// The value of `--machine-id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineIdArg {
    /// A given number.
    Value(u64),
    /// Derived from a hash of the host.
    Hash,
    /// Leased from etcd (`--etcd`, `--fleet`).
    Etcd,
}

/// `--machine-id`: a number or `hash`.
pub fn parse_machine_id(s: &str) -> Result<MachineIdArg, String> {
    match s {
        "hash" => return Ok(MachineIdArg::Hash),
        "etcd" => return Ok(MachineIdArg::Etcd),
        _ => {}
    }
    parse_number(s)
        .map(MachineIdArg::Value)
        .map_err(|e| format!("{e}; a machine ID is a number (decimal or 0x hex), 'hash' or 'etcd'"))
}

/// `--machine-id-bits`: 1 to 64.
pub fn parse_machine_id_bits(s: &str) -> Result<u32, String> {
    match parse_number(s) {
        Ok(n @ 1..=64) => Ok(n as u32),
        Ok(n) => Err(format!("a machine ID is 1 to 64 bits wide, not {n}")),
        Err(e) => Err(e),
    }
}

/// `--lease-ttl`, `--claim-wait`, `--fence-wait`: seconds, 0 to a day.
pub fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=86_400.0).contains(&v) => Ok(std::time::Duration::from_secs_f64(v)),
        _ => Err(format!("{s:?} is not a number of seconds from 0 to 86400")),
    }
}

/// A number of at most `bits` bits, decimal or hex; the message names the width.
fn parse_bits(s: &str, bits: u32) -> Result<u64, String> {
    let v = parse_number(s)?;
    if v >> bits != 0 {
        return Err(format!(
            "the field is {bits} bits: 0 to {} (0x{:x}); {s} is too large",
            (1u64 << bits) - 1,
            (1u64 << bits) - 1
        ));
    }
    Ok(v)
}

/// `--custom-a`: 48 bits.
pub fn parse_custom_a(s: &str) -> Result<u64, String> {
    parse_bits(s, 48)
}

/// `--custom-b`: 12 bits.
pub fn parse_custom_b(s: &str) -> Result<u64, String> {
    parse_bits(s, 12)
}

/// `--custom-c`: 62 bits.
pub fn parse_custom_c(s: &str) -> Result<u64, String> {
    parse_bits(s, 62)
}

/// The bytes of a name given in hex (a type of its own: clap reads a bare `Vec` as a
/// list of values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameBytes(pub Vec<u8>);

/// `--name-hex`: bytes in hex, an even number of digits, optional 0x.
pub fn parse_name_hex(s: &str) -> Result<NameBytes, String> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if let Some(i) = digits.bytes().position(|b| !b.is_ascii_hexdigit()) {
        return Err(format!(
            "expected hex digits; {:?} at digit {} is not one",
            digits[i..].chars().next().unwrap_or('?'),
            i + 1
        ));
    }
    if !digits.len().is_multiple_of(2) {
        return Err(format!(
            "expected two hex digits a byte; {} digits is an odd number",
            digits.len()
        ));
    }
    Ok(NameBytes(
        digits
            .as_bytes()
            .chunks_exact(2)
            .map(|p| {
                // Every byte was checked to be a hex digit above.
                let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                hex(p[0]) << 4 | hex(p[1])
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn numbers() {
        assert_eq!(parse_clock_seq("0x33C8").unwrap().get(), 0x33c8);
        assert_eq!(parse_clock_seq("16383").unwrap().get(), 16383);
        assert!(parse_clock_seq("16384").is_err());
        assert!(parse_clock_seq("0x").is_err());
        assert!(parse_clock_seq("+1").is_err());
        assert!(parse_clock_seq("-1").is_err());
        assert!(parse_clock_seq("99999999999999999999999").is_err());
        assert_eq!(parse_count("0x10"), Ok(16));
        assert_eq!(parse_count("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_count("18446744073709551616").is_err());
        assert!(parse_count("-1").unwrap_err().ends_with("without a sign"));
        assert!(parse_count("-0").unwrap_err().ends_with("without a sign"));
        assert!(
            parse_count("--upper")
                .unwrap_err()
                .starts_with("expected a decimal")
        );
        assert_eq!(parse_local_id("0xffffffff").unwrap(), u32::MAX);
        assert!(parse_local_id("4294967296").is_err());
    }

    #[test]
    fn namespaces() {
        assert_eq!(parse_namespace("@dns").unwrap(), uuidkit::namespace::DNS);
        assert_eq!(parse_namespace("@X500").unwrap(), uuidkit::namespace::X500);
        assert_eq!(
            parse_namespace("{6ba7b811-9dad-11d1-80b4-00c04fd430c8}").unwrap(),
            uuidkit::namespace::URL
        );
        assert!(parse_namespace("@foo").is_err());
        assert!(parse_namespace("dns").is_err());
    }
}
