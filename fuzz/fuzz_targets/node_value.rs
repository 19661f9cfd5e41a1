//! Fuzzing of the node-value parsers: `NodeId::from_str`, `NodeStrategy::from_str` and
//! `NodeStrategy::from_env_value`, the code behind `--node` and `UUIDKIT_NODE`.
//!
//! Each input is used twice:
//! 1. as raw bytes: `from_env_value` on them as an OS string, and, when they are UTF-8,
//!    both `from_str`s, checked against a plain reference of the rule (12 hex digits,
//!    `0x` and 1 to 12 hex digits, or six 2-digit octets with the same `:` or `-` between
//!    them) and for well-formed errors;
//! 2. when it has at least 7 bytes, as a node ID (the first 6 bytes) written in the form
//!    the next byte picks and then edited by the bytes after it, so that the near-valid
//!    texts around every form are reached.
//!
//! Nothing may panic; an accepted node ID formats as 12 lowercase hex digits that parse
//! back to it; an error's byte index is within the input (at most its length) and on a
//! character boundary.

#![no_main]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use libfuzzer_sys::fuzz_target;
use uuidkit::node::NodeStrategy;
use uuidkit::{Expected, InputKind, NodeId};

/// The rule, written as plainly as possible: the value of `s` as a node ID, if it is one.
fn reference(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let all_hex = |d: &[u8]| d.iter().all(u8::is_ascii_hexdigit);
    let digits: Vec<u8> = if b.len() == 12 && all_hex(b) {
        b.to_vec()
    } else if (s.starts_with("0x") || s.starts_with("0X"))
        && (3..=14).contains(&b.len())
        && all_hex(&b[2..])
    {
        b[2..].to_vec()
    } else if b.len() == 17 && (b[2] == b':' || b[2] == b'-') {
        let sep = b[2];
        let seps_ok = (0..5).all(|k| b[3 * k + 2] == sep);
        let octets: Vec<u8> = (0..6).flat_map(|k| [b[3 * k], b[3 * k + 1]]).collect();
        if !(seps_ok && all_hex(&octets)) {
            return None;
        }
        octets
    } else {
        return None;
    };
    u64::from_str_radix(core::str::from_utf8(&digits).unwrap(), 16).ok()
}

/// `NodeId::from_str` agrees with the reference; its result is well formed.
fn check_node_id(s: &str) {
    let got = s.parse::<NodeId>();
    assert_eq!(
        got.as_ref().ok().map(NodeId::as_u64),
        reference(s),
        "{s:?}: {got:?}"
    );
    match got {
        Ok(n) => {
            let text = n.to_string();
            assert_eq!(text.len(), 12, "{s:?}");
            assert!(
                text.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')),
                "{text}"
            );
            assert_eq!(text.parse::<NodeId>(), Ok(n), "{text}");
            assert_eq!(format!("0x{:x}", n.as_u64()).parse::<NodeId>(), Ok(n));
        }
        Err(e) => {
            assert!(e.index() <= s.len(), "{s:?}: {e}");
            assert!(s.is_char_boundary(e.index()), "{s:?}: {e}");
            assert_eq!(e.kind(), InputKind::Node);
            assert_eq!(e.found(), s.as_bytes().get(e.index()).copied());
            assert_ne!(e.expected(), Expected::StrategyOrNode, "{s:?}");
            let m = e.to_string();
            assert!(m.contains(&format!("at byte {},", e.index())), "{m}");
            assert!(!m.contains("decimal digit"), "{m}");
        }
    }
}

/// `NodeStrategy::from_str`: a word, the node ID, or an error within the input.
fn check_strategy(s: &str) {
    let got = s.parse::<NodeStrategy>();
    let words = ["static", "random", "mac", "hash"];
    match (&got, s.parse::<NodeId>()) {
        (Ok(NodeStrategy::Fixed(a)), Ok(b)) => assert_eq!(*a, b, "{s:?}"),
        (Ok(_), Err(_)) => assert!(words.contains(&s), "{s:?}: {got:?}"),
        (Ok(other), Ok(_)) => panic!("{s:?}: node ID read as {other:?}"),
        (Err(e), node) => {
            assert!(node.is_err() && !words.contains(&s), "{s:?}: {e}");
            assert!(e.index() <= s.len(), "{s:?}: {e}");
            if e.expected() == Expected::StrategyOrNode {
                assert_eq!(e.index(), 0, "{s:?}");
            }
            let _ = e.to_string();
        }
    }
}

/// `from_env_value` on raw bytes: UTF-8 is parsed as a strategy, anything else is an
/// error at the first byte that is not UTF-8.
fn check_env(data: &[u8]) {
    let got = NodeStrategy::from_env_value(OsStr::from_bytes(data));
    match core::str::from_utf8(data) {
        Ok("") => assert_eq!(got, Ok(None)),
        Ok(s) => assert_eq!(
            got.clone().map_err(|e| e.parse_error().cloned()),
            s.parse::<NodeStrategy>().map(Some).map_err(Some),
            "{s:?}"
        ),
        Err(u) => {
            let e = got.as_ref().expect_err("not UTF-8");
            assert_eq!((e.index(), e.parse_error()), (u.valid_up_to(), None));
            assert!(e.to_string().starts_with("invalid UUIDKIT_NODE value \""));
        }
    }
    if let Err(e) = got {
        assert!(e.index() <= data.len(), "{data:?}: {e}");
        assert_eq!(e.value().as_bytes(), data);
    }
}

fn check(data: &[u8]) {
    check_env(data);
    if let Ok(s) = core::str::from_utf8(data) {
        check_node_id(s);
        check_strategy(s);
    }
}

/// Node ID `n` written in the form `pick` chooses: bare, `0x` with or without leading
/// zeros, `:`- or `-`-separated; upper case when bit 3 is set.
fn text_of(n: NodeId, pick: u8) -> Vec<u8> {
    let v = n.as_u64();
    let b = n.as_bytes();
    let t = match pick & 7 {
        0 => format!("{v:012x}"),
        1 => format!("0x{v:x}"),
        2 => format!("0x{v:012x}"),
        3 | 4 => {
            let sep = if pick & 7 == 3 { ":" } else { "-" };
            b.iter()
                .map(|o| format!("{o:02x}"))
                .collect::<Vec<_>>()
                .join(sep)
        }
        5 => "static".to_string(),
        6 => "mac".to_string(),
        _ => "0X".to_string() + &format!("{v:X}"),
    };
    if pick & 8 != 0 {
        t.to_ascii_uppercase().into_bytes()
    } else {
        t.into_bytes()
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);

    let Some((bytes, rest)) = data.split_first_chunk::<6>() else {
        return;
    };
    let Some((&pick, edits)) = rest.split_first() else {
        return;
    };
    let n = NodeId::from_bytes(*bytes);
    let mut t = text_of(n, pick);
    if pick & 7 <= 4 || pick & 7 == 7 {
        assert_eq!(core::str::from_utf8(&t).unwrap().parse::<NodeId>(), Ok(n));
    }
    check(&t);
    // Edits, two bytes each: what to do (low 2 bits) and where (the rest), then a byte.
    for edit in edits.chunks_exact(2) {
        let (op, value) = (edit[0], edit[1]);
        let at = usize::from(op >> 2);
        match op & 3 {
            0 if !t.is_empty() => {
                let at = at % t.len();
                t[at] = value;
            }
            1 if t.len() < 64 => t.insert(at.min(t.len()), value),
            2 if !t.is_empty() => {
                t.remove(at % t.len());
            }
            3 => t.truncate(at),
            _ => {}
        }
        check(&t);
    }
});
