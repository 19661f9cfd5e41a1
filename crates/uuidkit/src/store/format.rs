//! The state file's text format (described in the module documentation): encoding, and
//! a parser that names the line and field of the first fault, takes any bytes without
//! panicking, and allocates no more than the (capped) input.

use sha2::{Digest, Sha256};

use super::error::Problem;
use super::kind::GeneratorKind;
use super::limits::{MAX_FILE_SIZE, MAX_GREGORIAN_ENTRIES};
use super::snapshot::EntrySnapshot;
use crate::layout::ClockSequence;
use crate::node::NodeId;

/// The format version written, and the newest one read.
pub(crate) const VERSION: u32 = 1;

const MAGIC: &str = "uuidkit-state";

/// The longest boot ID kept; Linux's is a 36-character UUID.
const MAX_BOOT_ID: usize = 64;

/// How much of a faulty value a message quotes.
const QUOTE: usize = 40;

/// One kind's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub kind: GeneratorKind,
    pub high: u128,
    pub durable: u128,
    pub last_clock: u128,
    pub clock_seq: Option<ClockSequence>,
}

impl Entry {
    pub fn snapshot(&self) -> EntrySnapshot {
        EntrySnapshot {
            kind: self.kind,
            high: self.high,
            durable: self.durable,
            last_clock: self.last_clock,
            clock_seq: self.clock_seq,
        }
    }
}

/// The whole file's content.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct State {
    pub boot: Option<String>,
    /// Sorted by [`GeneratorKind::sort_key`], one per kind.
    pub entries: Vec<Entry>,
}

impl State {
    pub fn get(&self, kind: GeneratorKind) -> Option<&Entry> {
        self.entries.iter().find(|e| e.kind == kind)
    }

    /// Replaces or inserts `entry`, keeping the order, and drops Gregorian entries beyond
    /// [`MAX_GREGORIAN_ENTRIES`]: first those whose write-ahead mark the new entry's clock
    /// reading has passed (a lease for their node would start above it anyway, so
    /// forgetting them loses nothing), the ones with the oldest readings first.
    pub fn put(&mut self, entry: Entry) {
        match self
            .entries
            .binary_search_by_key(&entry.kind.sort_key(), |e| e.kind.sort_key())
        {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
        let gregorian = |e: &Entry| matches!(e.kind, GeneratorKind::Gregorian(_));
        let now = entry.last_clock;
        while self.entries.iter().filter(|e| gregorian(e)).count() > MAX_GREGORIAN_ENTRIES {
            let victim = self
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| gregorian(e) && e.kind != entry.kind)
                .min_by_key(|(_, e)| (e.durable >= now, e.last_clock))
                .map(|(i, _)| i);
            match victim {
                Some(i) => {
                    self.entries.remove(i);
                }
                None => break,
            }
        }
    }
}

/// A boot ID as the file can hold it: 1 to 64 ASCII letters, digits and hyphens, and
/// not `none`. Anything else counts as unknown.
pub(crate) fn valid_boot_id(id: Option<String>) -> Option<String> {
    let id = id?;
    let id = id.trim();
    let ok = !id.is_empty()
        && id.len() <= MAX_BOOT_ID
        && id != "none"
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| id.to_string())
}

/// The checksum of `content`: the first 8 bytes of its SHA-256, big-endian.
fn checksum(content: &[u8]) -> u64 {
    let digest = Sha256::digest(content);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// The file's bytes for `state`.
pub(crate) fn encode(state: &State) -> Vec<u8> {
    use core::fmt::Write as _;
    let mut s = String::with_capacity(64 + 128 * state.entries.len());
    // Writing to a String cannot fail.
    let _ = writeln!(s, "{MAGIC} {VERSION}");
    let _ = writeln!(s, "boot {}", state.boot.as_deref().unwrap_or("none"));
    for e in &state.entries {
        let _ = write!(
            s,
            "{} high={} durable={} last-clock={}",
            e.kind, e.high, e.durable, e.last_clock
        );
        if let Some(cs) = e.clock_seq {
            let _ = write!(s, " clock-seq={}", cs.get());
        }
        s.push('\n');
    }
    let sum = checksum(s.as_bytes());
    let _ = writeln!(s, "checksum {sum:016x}");
    s.into_bytes()
}

/// What [`parse`] found: the state as far as it could be read, and the first problem.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// The version in the header; 0 if there is no header.
    pub version: u32,
    pub checksum_ok: bool,
    /// Everything read before the first fault.
    pub state: State,
    pub problem: Option<Problem>,
}

fn syntax(line: usize, field: &str, message: impl Into<String>) -> Problem {
    Problem::Syntax {
        line,
        field: field.to_string(),
        message: message.into(),
    }
}

/// `s` for a message: at most [`QUOTE`] characters, control characters escaped.
fn quote(s: &str) -> String {
    let mut out: String = s.chars().take(QUOTE).flat_map(char::escape_debug).collect();
    if s.chars().nth(QUOTE).is_some() {
        out.push('…');
    }
    format!("'{out}'")
}

/// Parses a state file. Never fails: problems are reported in [`Parsed::problem`], the
/// first one found, in this order: empty, a newer format's header, too large, not text,
/// header, cut short, checksum, then each line from the top.
pub(crate) fn parse(bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    if let Err(p) = parse_into(bytes, &mut out) {
        out.problem = Some(p);
    }
    out
}

fn parse_into(bytes: &[u8], out: &mut Parsed) -> Result<(), Problem> {
    if bytes.is_empty() {
        return Err(Problem::Empty);
    }
    // A newer format is told by its first line, before anything else is judged: its
    // size, its text and its checksum are that format's business, and judging them by
    // this one's would call a sound file damage and have it rewritten.
    if let Some((found, problem)) = newer_header(bytes) {
        out.version = found;
        return Err(problem);
    }
    if bytes.len() > MAX_FILE_SIZE {
        return Err(Problem::TooLarge {
            limit: MAX_FILE_SIZE,
        });
    }
    let text = core::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        syntax(line, "text", "not UTF-8 text")
    })?;

    // The header first, so that a file of some other kind is named as such rather than
    // as one cut short.
    let first = text.split('\n').next().unwrap_or("");
    out.version = parse_header(first)?;

    let Some(body_and_sum) = text.strip_suffix('\n') else {
        return Err(Problem::Truncated {
            line: text.split('\n').count(),
            mid_line: true,
        });
    };
    // Line feeds after the checksum line are padding: an in-place write (a file with
    // several hard links) pads its new text to the old length before cutting the file,
    // and a writer killed in between leaves them.
    let body_and_sum = body_and_sum.trim_end_matches('\n');
    let lines = body_and_sum.split('\n').count();
    // The checksum line is the last one; what precedes it (with its line feed) is
    // what it covers.
    let (covered, sum_line) = match body_and_sum.rfind('\n') {
        Some(i) => (&text[..=i], &body_and_sum[i + 1..]),
        None => ("", body_and_sum),
    };
    let Some(sum_text) = sum_line.strip_prefix("checksum ") else {
        return Err(Problem::Truncated {
            line: lines,
            mid_line: false,
        });
    };
    let stored = parse_hex64(sum_text).ok_or_else(|| {
        syntax(
            lines,
            "checksum",
            format!("{} is not 16 hex digits", quote(sum_text)),
        )
    })?;
    let computed = checksum(covered.as_bytes());
    out.checksum_ok = stored == computed;

    // Read the body even when the checksum is wrong: `state show` can still tell what
    // is there. The checksum problem comes first, as the one at the root.
    let body = parse_body(covered, out);
    if !out.checksum_ok {
        return Err(Problem::BadChecksum {
            line: lines,
            stored,
            computed,
        });
    }
    body
}

fn parse_header(line: &str) -> Result<u32, Problem> {
    let bad = || {
        syntax(
            1,
            "header",
            format!("expected '{MAGIC} <version>', found {}", quote(line)),
        )
    };
    let rest = line.strip_prefix(MAGIC).ok_or_else(bad)?;
    let version = rest.strip_prefix(' ').ok_or_else(bad)?;
    let v = parse_decimal(version)
        .and_then(|v| u32::try_from(v).ok())
        .filter(|&v| v >= 1)
        .ok_or_else(|| {
            syntax(
                1,
                "header",
                format!("version {} is not a whole number from 1", quote(version)),
            )
        })?;
    Ok(v)
}

/// For a file whose first line is a well-formed header naming a version above
/// [`VERSION`]: that version, and [`Problem::FutureVersion`], or the damage to the
/// header of a file this format wrote. `None` for any other file, which [`parse`] judges
/// as this format.
///
/// A file of this format whose version number alone was damaged (one bit turns `1`
/// into `9`) would otherwise pass for a newer one, and be refused for good instead of
/// rewritten. Its checksum tells it apart: it covers the header, so it matches the
/// rest of the file under this format's header only if this format wrote it (a newer
/// one's covers its own header, or the newer format has none there).
pub(crate) fn newer_header(bytes: &[u8]) -> Option<(u32, Problem)> {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let line = core::str::from_utf8(&bytes[..end]).ok()?;
    let found = parse_header(line).ok().filter(|&v| v > VERSION)?;
    let mut as_this = format!("{MAGIC} {VERSION}").into_bytes();
    as_this.extend_from_slice(&bytes[end..]);
    if parse(&as_this).checksum_ok {
        let problem = syntax(
            1,
            "header",
            format!(
                "version {found}, but the checksum is that of a version {VERSION} file \
                 with a damaged header"
            ),
        );
        return Some((found, problem));
    }
    Some((
        found,
        Problem::FutureVersion {
            found,
            supported: VERSION,
        },
    ))
}

/// Lines 2 up to the checksum line: `boot`, then entries.
fn parse_body(covered: &str, out: &mut Parsed) -> Result<(), Problem> {
    // `covered` is the header and the lines after it, each with its line feed.
    let body = covered.strip_suffix('\n').unwrap_or(covered);
    let mut lines = body
        .split('\n')
        .enumerate()
        .skip(1)
        .map(|(i, l)| (i + 1, l));
    let Some((n, boot)) = lines.next() else {
        return Err(syntax(2, "boot", "missing: expected 'boot <id>'"));
    };
    out.state.boot = parse_boot(n, boot)?;
    for (n, line) in lines {
        let entry = parse_entry(n, line)?;
        if out.state.get(entry.kind).is_some() {
            return Err(syntax(
                n,
                "kind",
                format!("a second entry for {}", entry.kind),
            ));
        }
        let key = entry.kind.sort_key();
        if out
            .state
            .entries
            .last()
            .is_some_and(|e| e.kind.sort_key() > key)
        {
            return Err(syntax(n, "kind", format!("{} is out of order", entry.kind)));
        }
        if matches!(entry.kind, GeneratorKind::Gregorian(_))
            && out
                .state
                .entries
                .iter()
                .filter(|e| matches!(e.kind, GeneratorKind::Gregorian(_)))
                .count()
                >= MAX_GREGORIAN_ENTRIES
        {
            return Err(syntax(
                n,
                "kind",
                format!("more than {MAX_GREGORIAN_ENTRIES} gregorian entries"),
            ));
        }
        out.state.entries.push(entry);
    }
    Ok(())
}

fn parse_boot(n: usize, line: &str) -> Result<Option<String>, Problem> {
    let id = line.strip_prefix("boot ").ok_or_else(|| {
        syntax(
            n,
            "boot",
            format!("expected 'boot <id>', found {}", quote(line)),
        )
    })?;
    if id == "none" {
        return Ok(None);
    }
    valid_boot_id(Some(id.to_string()))
        .filter(|v| v == id)
        .map(Some)
        .ok_or_else(|| {
            syntax(
                n,
                "boot",
                format!(
                    "{} is not 1 to {MAX_BOOT_ID} letters, digits and hyphens",
                    quote(id)
                ),
            )
        })
}

fn parse_entry(n: usize, line: &str) -> Result<Entry, Problem> {
    let mut words = line.split(' ');
    let kind_word = words.next().unwrap_or("");
    let draft = kind_word
        .parse::<crate::layout::Layout>()
        .ok()
        .filter(|l| crate::layout::draft::Units::of(*l).is_some());
    let gregorian = match kind_word {
        "gregorian" => true,
        "v7" | "v8" => false,
        _ if draft.is_some() => false,
        _ => {
            return Err(syntax(
                n,
                "kind",
                format!(
                    "{} is not a generator kind (gregorian, v7, v8, draft-v7-ms, \
                     draft-v7-us, draft-v7-ns, draft-v8-32, draft-v8-48, draft-v8-60, \
                     draft-v8-64)",
                    quote(kind_word)
                ),
            ));
        }
    };
    let names: &[&str] = if gregorian {
        &["node", "high", "durable", "last-clock", "clock-seq"]
    } else {
        &["high", "durable", "last-clock"]
    };
    let mut values: [Option<&str>; 5] = [None; 5];
    for word in words {
        let Some((name, value)) = word.split_once('=') else {
            return Err(syntax(
                n,
                kind_word,
                format!("expected name=value, found {}", quote(word)),
            ));
        };
        let Some(i) = names.iter().position(|&k| k == name) else {
            return Err(syntax(
                n,
                name,
                format!("not a field of a {kind_word} entry"),
            ));
        };
        if values[i].replace(value).is_some() {
            return Err(syntax(n, name, "given twice"));
        }
    }
    let get = |name: &'static str| -> Result<&str, Problem> {
        let i = names.iter().position(|&k| k == name).unwrap_or(0);
        values[i].ok_or_else(|| syntax(n, name, "missing"))
    };
    let kind = match kind_word {
        "gregorian" => {
            let v = get("node")?;
            let node = (v.len() == 12)
                .then(|| u64::from_str_radix(v, 16).ok())
                .flatten()
                .filter(|_| v.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(NodeId::from_u64)
                .ok_or_else(|| syntax(n, "node", format!("{} is not 12 hex digits", quote(v))))?;
            GeneratorKind::Gregorian(node)
        }
        "v7" => GeneratorKind::V7,
        "v8" => GeneratorKind::V8,
        _ => match draft {
            Some(l) => GeneratorKind::Draft(l),
            None => GeneratorKind::V8,
        },
    };
    let max = kind.max_position();
    let position = |name: &'static str| -> Result<u128, Problem> {
        let v = get(name)?;
        let x = parse_decimal(v)
            .ok_or_else(|| syntax(n, name, format!("{} is not a decimal number", quote(v))))?;
        if x > max {
            return Err(syntax(
                n,
                name,
                format!("{x} is past the last position, {max}"),
            ));
        }
        Ok(x)
    };
    let high = position("high")?;
    let durable = position("durable")?;
    let last_clock = position("last-clock")?;
    if durable < high {
        return Err(syntax(
            n,
            "durable",
            format!("{durable} is below high ({high})"),
        ));
    }
    let clock_seq = if gregorian {
        let v = get("clock-seq")?;
        let cs = parse_decimal(v)
            .and_then(|x| u16::try_from(x).ok())
            .and_then(ClockSequence::new)
            .ok_or_else(|| syntax(n, "clock-seq", format!("{} is not 0 to 16383", quote(v))))?;
        Some(cs)
    } else {
        None
    };
    Ok(Entry {
        kind,
        high,
        durable,
        last_clock,
        clock_seq,
    })
}

/// A decimal number of 1 to 39 ASCII digits that fits a `u128`.
fn parse_decimal(s: &str) -> Option<u128> {
    if s.is_empty() || s.len() > 39 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Exactly 16 hex digits.
fn parse_hex64(s: &str) -> Option<u64> {
    if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

/// The problem of a state file whose bytes are `bytes`, when its header names a newer
/// format ([`Problem::FutureVersion`]): for checks that read the file themselves.
pub(crate) fn newer_format(bytes: &[u8]) -> Option<Problem> {
    match newer_header(bytes) {
        Some((_, p @ Problem::FutureVersion { .. })) => Some(p),
        _ => None,
    }
}
