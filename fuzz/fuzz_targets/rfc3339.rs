//! Fuzzing of the RFC 3339 / ISO 8601 expanded-year text of `UnixTime`.
//!
//! Each input is used twice:
//! 1. as text (when it is UTF-8): `parse_rfc3339` must not panic, and an instant it
//!    accepts must come back unchanged from its own 9-digit text;
//! 2. when it has at least 12 bytes, as an instant (an `i64` of seconds and a `u32` of
//!    nanoseconds, saturated by `UnixTime::new`) whose text at every precision must
//!    parse back to it, truncated to that precision; and with the offset the next two
//!    bytes pick (within ±23:59), written in that zone's wall-clock time, must parse
//!    back to it exactly.

#![no_main]

use libfuzzer_sys::fuzz_target;
use uuidkit::time::{TimeError, UnixTime};

/// `text` parses to `t`.
fn parses_to(text: &str, t: UnixTime) {
    match UnixTime::parse_rfc3339(text) {
        Ok(back) => assert_eq!(back, t, "{text}"),
        Err(e) => panic!("{text} does not parse back: {e}"),
    }
}

/// The text of `t` as a writer at `offset_secs` from UTC would write it; `None` where
/// that wall-clock time is past UnixTime's range.
fn with_offset(t: UnixTime, offset_secs: i64) -> Option<String> {
    let local = t.secs().checked_add(offset_secs)?;
    let text = UnixTime::new(local, t.subsec_nanos()).to_rfc3339(9);
    let o = offset_secs.unsigned_abs();
    let sign = if offset_secs < 0 { '-' } else { '+' };
    Some(format!(
        "{}{sign}{:02}:{:02}",
        text.strip_suffix('Z')?,
        o / 3600,
        o / 60 % 60
    ))
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        match UnixTime::parse_rfc3339(text) {
            Ok(t) => parses_to(&t.to_rfc3339(9), t),
            Err(TimeError::Rfc3339 { input, index, .. }) => {
                assert_eq!(input, text);
                assert!(index <= text.len(), "{text}: index {index}");
            }
            Err(e) => panic!("{text}: not a text error: {e:?}"),
        }
    }

    if let Some((secs, rest)) = data.split_first_chunk::<8>() {
        if let Some((nanos, rest)) = rest.split_first_chunk::<4>() {
            let t = UnixTime::new(i64::from_le_bytes(*secs), u32::from_le_bytes(*nanos));
            for digits in 0..=9 {
                let unit = 10u32.pow(9 - digits as u32);
                let truncated = UnixTime::new(t.secs(), t.subsec_nanos() / unit * unit);
                parses_to(&t.to_rfc3339(digits), truncated);
            }
            if let Some((offset, _)) = rest.split_first_chunk::<2>() {
                // An offset in minutes, -23:59 to +23:59.
                let minutes = i64::from(i16::from_le_bytes(*offset)) % 1440;
                if let Some(text) = with_offset(t, minutes * 60) {
                    parses_to(&text, t);
                }
            }
        }
    }
});
