//! The key kinds the benchmark compares, and how each makes its keys.

use std::fmt;
use std::str::FromStr;

use uuidkit::Uuid;
use uuidkit::generator::v7::{V7Generator, V7Method};

/// A primary key kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// The database's own integer sequence (`bigserial`, SQLite's rowid).
    Serial,
    /// uuidkit's process-wide v1.
    V1,
    /// Random.
    V4,
    /// uuidkit's process-wide v6.
    V6,
    /// v7 from a generator per connection, with one of RFC 9562 §6.2's methods.
    V7(V7Method),
    /// uuidkit's process-wide time-based v8 (RFC 9562 Appendix B.1).
    V8,
}

impl Key {
    /// Every kind, in the order tables and charts show them.
    pub const ALL: [Key; 8] = [
        Key::Serial,
        Key::V1,
        Key::V4,
        Key::V6,
        Key::V7(V7Method::Counter),
        Key::V7(V7Method::Random),
        Key::V7(V7Method::Precision),
        Key::V8,
    ];

    /// The name in results: `serial`, `v1`, `v4`, `v6`, `v7-counter`, `v7-random`,
    /// `v7-precision`, `v8`.
    pub fn name(self) -> String {
        match self {
            Key::Serial => "serial".into(),
            Key::V1 => "v1".into(),
            Key::V4 => "v4".into(),
            Key::V6 => "v6".into(),
            Key::V7(m) => format!("v7-{m}"),
            Key::V8 => "v8".into(),
        }
    }

    /// A source of this kind's keys for one connection; `None` for `Serial`, whose keys
    /// the database makes.
    pub fn source(self) -> Option<KeySource> {
        match self {
            Key::Serial => None,
            Key::V7(m) => Some(KeySource::V7(Box::new(V7Generator::new(m)))),
            k => Some(KeySource::ProcessWide(k)),
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Parses a comma-separated list; `v7` alone means all three methods.
pub fn parse_keys(s: &str) -> Result<Vec<Key>, String> {
    let mut out = Vec::new();
    for word in s.split(',').map(str::trim) {
        let add: Vec<Key> = match word {
            "v7" => Key::ALL
                .iter()
                .copied()
                .filter(|k| matches!(k, Key::V7(_)))
                .collect(),
            w => match Key::ALL.iter().find(|k| k.name() == w) {
                Some(k) => vec![*k],
                None => {
                    return Err(format!(
                        "unknown key kind '{w}' (expected serial, v1, v4, v6, v7, v7-counter, v7-random, v7-precision or v8)"
                    ));
                }
            },
        };
        for k in add {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    Ok(out)
}

/// Makes one connection's keys.
pub enum KeySource {
    /// The process-wide generator of a version.
    ProcessWide(Key),
    /// A v7 generator of this connection's own.
    V7(Box<V7Generator>),
}

impl KeySource {
    /// The next key.
    pub fn next(&mut self) -> Uuid {
        match self {
            KeySource::ProcessWide(Key::V1) => uuidkit::v1(),
            KeySource::ProcessWide(Key::V4) => uuidkit::v4(),
            KeySource::ProcessWide(Key::V6) => uuidkit::v6(),
            KeySource::ProcessWide(_) => uuidkit::v8(),
            KeySource::V7(g) => V7Generator::next(g),
        }
    }
}

impl FromStr for Key {
    type Err = String;

    fn from_str(s: &str) -> Result<Key, String> {
        match parse_keys(s)?.as_slice() {
            [k] => Ok(*k),
            _ => Err(format!("'{s}' is not one key kind")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_and_v7_means_every_method() {
        let k = parse_keys("serial,v7,v4").unwrap();
        assert_eq!(k.len(), 5);
        assert_eq!(k[1], Key::V7(V7Method::Counter));
        assert!(parse_keys("v9").unwrap_err().contains("'v9'"));
        assert_eq!(parse_keys("v4,v4").unwrap(), vec![Key::V4]);
    }
}
