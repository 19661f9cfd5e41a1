//! Where a fleet keeps its machine IDs in etcd, and what it writes there.
//!
//! - `/uuidkit/<fleet>/machine-id/<n>`: the holder of ID `n`, attached to its lease (so
//!   it vanishes when the lease expires, and the holder deletes it when it gives the ID back); its value says who holds it
//!   (`pid=… host=…`), for people, and the fleet's geometry (`bits=… place=…`), so that
//!   live holders keep it even if the geometry key is deleted.
//! - `/uuidkit/<fleet>/machine-id/<n>/mark`: the high-water mark of ID `n`, in Unix
//!   milliseconds (decimal ASCII), with no lease: it outlives every holder. A holder
//!   issues nothing stamped after its mark, and raises it ahead of time; the next holder
//!   starts strictly above it.
//! - `/uuidkit/<fleet>/geometry`: which bits an ID occupies, `bits=<B> place=<where>`
//!   ([`Placement`](super::Placement)), written by the fleet's first claim and compared
//!   by every later one in its claim transaction: holders that would put their IDs in
//!   different bits (another width, another method) never share a fleet.

use super::error::FleetError;

/// The prefix of every key of `fleet`'s IDs.
pub(crate) fn prefix(fleet: &str) -> String {
    format!("/uuidkit/{fleet}/machine-id/")
}

/// The prefix of every key of `fleet`: its IDs' and its geometry.
pub(crate) fn fleet_prefix(fleet: &str) -> String {
    format!("/uuidkit/{fleet}/")
}

/// The fleet's geometry key.
pub(crate) fn geometry(fleet: &str) -> String {
    format!("/uuidkit/{fleet}/geometry")
}

/// The holder key of ID `n`.
pub(crate) fn holder(fleet: &str, n: u64) -> String {
    format!("{}{n}", prefix(fleet))
}

/// The mark key of ID `n`.
pub(crate) fn mark(fleet: &str, n: u64) -> String {
    format!("{}{n}/mark", prefix(fleet))
}

/// A holder key's value: `pid=P host=H bits=B place=X`, one space between the fields,
/// the host name with no space in it (`_` for each, `?` for none).
pub(crate) fn holder_value(pid: u32, host: &str, geometry: &str) -> String {
    let host: String = if host.is_empty() {
        "?".into()
    } else {
        host.chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect()
    };
    format!("pid={pid} host={host} {geometry}")
}

/// The geometry a holder key's value carries, if the value is one uuidkit writes
/// ([`holder_value`]: a process ID, a host name, the geometry, nothing else).
pub(crate) fn holder_geometry(value: &[u8]) -> Option<String> {
    let text = core::str::from_utf8(value).ok()?;
    let mut fields = text.splitn(3, ' ');
    let pid = fields.next()?.strip_prefix("pid=")?;
    let host = fields.next()?.strip_prefix("host=")?;
    let g = fields.next()?;
    let pid_ok = pid
        .parse::<u32>()
        .is_ok_and(|p| p > 0 && p.to_string() == pid);
    let host_ok = !host.is_empty() && !host.chars().any(char::is_whitespace);
    (pid_ok && host_ok && super::config::Geometry::parse(g).is_some()).then(|| g.to_string())
}

/// What a key under the prefix is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A holder of ID `n`.
    Holder(u64),
    /// The mark of ID `n`, in Unix milliseconds.
    Mark(u64, u64),
    /// The fleet's geometry, as written.
    Geometry(String),
}

/// A key of `fleet` (under [`fleet_prefix`]) and its value: the geometry, or a key of
/// an ID ([`parse`]); else the garbage error naming them.
pub(crate) fn parse_fleet(fleet: &str, key: &[u8], value: &[u8]) -> Result<Entry, FleetError> {
    if key != geometry(fleet).as_bytes() {
        return parse(&prefix(fleet), key, value);
    }
    core::str::from_utf8(value)
        .ok()
        .filter(|v| super::config::Geometry::parse(v).is_some())
        .map(|v| Entry::Geometry(v.to_string()))
        .ok_or_else(|| garbage(key, value))
}

/// The error for a key under the fleet that uuidkit did not write, and its value.
/// Escaped: the key and value are anyone's bytes, and go into one line of a message.
pub(crate) fn garbage(key: &[u8], value: &[u8]) -> FleetError {
    FleetError::Garbage {
        key: String::from_utf8_lossy(key).escape_debug().to_string(),
        value: String::from_utf8_lossy(&value[..value.len().min(64)]).into_owned(),
    }
}

/// A key under `prefix` and its value, or the garbage error naming them.
pub(crate) fn parse(prefix: &str, key: &[u8], value: &[u8]) -> Result<Entry, FleetError> {
    let garbage = || garbage(key, value);
    let rest = core::str::from_utf8(key)
        .ok()
        .and_then(|k| k.strip_prefix(prefix))
        .ok_or_else(garbage)?;
    // Only as uuidkit writes numbers: decimal, no sign, no leading zero. `00/mark` is not
    // ID 0's mark (whose key is `0/mark`): taken for it, a claim would compare the
    // revision of one key and find another's, and never succeed.
    let number = |s: &str| {
        (!s.is_empty()
            && s.len() <= 20
            && s.bytes().all(|b| b.is_ascii_digit())
            && (s == "0" || !s.starts_with('0')))
        .then(|| s.parse::<u64>().ok())
        .flatten()
    };
    match rest.split_once('/') {
        // A holder's value is as uuidkit writes it: who, then the fleet's geometry.
        None => number(rest)
            .filter(|_| holder_geometry(value).is_some())
            .map(Entry::Holder)
            .ok_or_else(garbage),
        Some((n, "mark")) => {
            let n = number(n).ok_or_else(garbage)?;
            // A mark past v7's last millisecond (the year 10889) is no time uuidkit wrote.
            let ms = core::str::from_utf8(value)
                .ok()
                .and_then(number)
                .filter(|ms| *ms < 1 << 48)
                .ok_or_else(garbage)?;
            Ok(Entry::Mark(n, ms))
        }
        Some(_) => Err(garbage()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_back_and_garbage_is_named() {
        let p = prefix("web");
        assert_eq!(holder("web", 3), "/uuidkit/web/machine-id/3");
        assert_eq!(
            parse(
                &p,
                holder("web", 3).as_bytes(),
                b"pid=1 host=h bits=2 place=v7"
            ),
            Ok(Entry::Holder(3))
        );
        assert_eq!(
            parse(&p, mark("web", 3).as_bytes(), b"1700000000000"),
            Ok(Entry::Mark(3, 1_700_000_000_000))
        );
        for (k, v) in [
            ("/uuidkit/web/machine-id/3/mark", &b"soon"[..]),
            ("/uuidkit/web/machine-id/3/mark", b""),
            ("/uuidkit/web/machine-id/3/mark", b"281474976710656"),
            ("/uuidkit/web/machine-id/x", b""),
            ("/uuidkit/web/machine-id/3/other", b"1"),
            ("/uuidkit/web/machine-id/99999999999999999999999/mark", b"1"),
            ("/uuidkit/web/machine-id/00/mark", b"1"),
            ("/uuidkit/web/machine-id/007", b""),
            ("/uuidkit/web/machine-id/3/mark", b"0100"),
            // A holder's value without who or without the geometry.
            ("/uuidkit/web/machine-id/3", b"garbage"),
            ("/uuidkit/web/machine-id/3", b"pid=1 host=h"),
            (
                "/uuidkit/web/machine-id/3",
                b"pid=1 host=h bits=04 place=v7",
            ),
            (
                "/uuidkit/web/machine-id/3",
                b"pid=1 host=h bits=+4 place=v7",
            ),
            (
                "/uuidkit/web/machine-id/3",
                b"pid=1  host=h bits=4 place=v7",
            ),
            (
                "/uuidkit/web/machine-id/3",
                b"pid=1 host=a b bits=4 place=v7",
            ),
            (
                "/uuidkit/web/machine-id/3",
                b"pid=abc host=h bits=4 place=v7",
            ),
            ("/uuidkit/web/machine-id/3", b"pid=0 host=h bits=4 place=v7"),
            ("/uuidkit/web/machine-id/3", b"pid=1 host= bits=4 place=v7"),
        ] {
            let e = parse(&p, k.as_bytes(), v).unwrap_err();
            assert!(e.to_string().contains(k), "{e}");
        }
        // What uuidkit writes reads back, whatever the host's name.
        for host in ["web-1", "", "a b\tc"] {
            let v = holder_value(7, host, "bits=4 place=v7");
            assert_eq!(
                holder_geometry(v.as_bytes()).as_deref(),
                Some("bits=4 place=v7"),
                "{v}"
            );
        }
        // A key with control characters is named escaped, on one line.
        let e = parse(&p, b"/uuidkit/web/machine-id/\x1b[31m\nx", b"").unwrap_err();
        assert!(!e.to_string().contains(['\x1b', '\n']), "{e}");
        assert_eq!(
            parse(&p, mark("web", 0).as_bytes(), b"0"),
            Ok(Entry::Mark(0, 0))
        );
    }
}
