//! RFC 3339 text for [`UnixTime`]: the parser, the writer ([`Rfc3339`]) and the rule they
//! share for years outside 0000 to 9999 (ISO 8601's expanded form).

use alloc::string::{String, ToString};
use core::fmt;

use super::calendar::{civil_from_days, days_from_civil, days_in_month};
use super::error::TimeError;
use super::instant::UnixTime;

/// What [`UnixTime::parse_rfc3339`] expects of a text naming an instant outside
/// [`UnixTime::MIN`]..=[`UnixTime::MAX`]; a test checks that it names those two.
const UNIX_TIME_RANGE: &str = "a date and time from -292277022657-01-27T08:29:52Z \
                               to +292277026596-12-04T15:30:07.999999999Z (UnixTime's range)";

/// A bound on the magnitude of a parsed year, a little past both ends of [`UnixTime`]:
/// it keeps the calendar arithmetic inside `i64`, and the exact range check comes after.
const YEAR_BOUND: i64 = 300_000_000_000;

impl UnixTime {
    /// The instant as text in UTC with `Z` and exactly `digits` fractional digits (0–9,
    /// larger counts give 9; truncated, never rounded, so the text never claims a later
    /// instant).
    ///
    /// Years 0000 to 9999 are written in RFC 3339's four digits. RFC 3339 has no other
    /// years, so the rest take ISO 8601's expanded form, as JavaScript's `toISOString`
    /// and Temporal write them: a sign, then at least six digits (`+010889`, `-000001`,
    /// `+292277026596`). [`parse_rfc3339`](Self::parse_rfc3339) reads both forms back.
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// let t = UnixTime::from_nanos(-122_192_928_000_000_000_00);
    /// assert_eq!(t.to_rfc3339(7), "1582-10-15T00:00:00.0000000Z");
    /// // The largest v7 timestamp, 2^48 - 1 ms, is past the year 9999.
    /// let t = UnixTime::from_millis((1 << 48) - 1);
    /// assert_eq!(t.to_rfc3339(3), "+010889-08-02T05:31:50.655Z");
    /// assert_eq!(UnixTime::parse_rfc3339(&t.to_rfc3339(3))?, t);
    /// // 1 BC is the year 0000 of the proleptic Gregorian calendar; 2 BC is -000001.
    /// assert_eq!(UnixTime::new(-62_167_219_201, 0).to_rfc3339(0), "-000001-12-31T23:59:59Z");
    /// # Ok::<(), uuidkit::time::TimeError>(())
    /// ```
    pub fn to_rfc3339(&self, digits: usize) -> String {
        self.rfc3339(digits).to_string()
    }

    /// The text of [`to_rfc3339`](Self::to_rfc3339), for `Display`: written where it is
    /// wanted (a buffer, a stream) without a `String` of its own.
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// let t = UnixTime::from_millis(1_645_557_742_000);
    /// assert_eq!(format!("[{}]", t.rfc3339(3)), "[2022-02-22T19:22:22.000Z]");
    /// ```
    pub const fn rfc3339(&self, digits: usize) -> Rfc3339 {
        Rfc3339 {
            time: *self,
            digits,
        }
    }

    /// Parses RFC 3339: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1–9 digits, then
    /// `Z` or an offset `±HH:MM`. `t` and `z` may be lowercase (RFC 3339 §5.6 note).
    ///
    /// The year is RFC 3339's four digits (0000–9999) or, for any year, ISO 8601's
    /// expanded form that [`to_rfc3339`](Self::to_rfc3339) writes outside 0000–9999: `+`
    /// or `-` and at least six digits (`+010889`, `-000001`; `-000000` is refused, as
    /// ISO 8601 and JavaScript refuse it, since year zero is not negative). The calendar
    /// is the proleptic Gregorian one, year 0000 being 1 BC.
    ///
    /// # Errors
    /// [`TimeError::Rfc3339`] with the input, the byte index of the first offending
    /// byte and what was expected there; an instant outside [`UnixTime::MIN`] to
    /// [`UnixTime::MAX`] (after applying the offset) is reported at index 0.
    ///
    /// ```
    /// use uuidkit::time::{TimeError, UnixTime};
    /// let a = UnixTime::parse_rfc3339("2022-02-22T19:22:22.5Z")?;
    /// let b = UnixTime::parse_rfc3339("2022-02-22T14:22:22.500000000-05:00")?;
    /// assert_eq!(a, b);
    /// assert!(UnixTime::parse_rfc3339("2022-02-30T00:00:00Z").is_err());
    /// let far = UnixTime::parse_rfc3339("+010889-08-02T05:31:50.655Z")?;
    /// assert_eq!(far.as_millis(), (1 << 48) - 1);
    /// match UnixTime::parse_rfc3339("10889-08-02T05:31:50.655Z") {
    ///     Err(TimeError::Rfc3339 { index: 4, .. }) => {}
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), uuidkit::time::TimeError>(())
    /// ```
    pub fn parse_rfc3339(text: &str) -> Result<UnixTime, TimeError> {
        let s = text.as_bytes();
        let bad = |at: usize, what: &'static str| TimeError::Rfc3339 {
            input: text.to_string(),
            index: at,
            expected: what,
        };
        let num = |at: usize, n: usize, what: &'static str| -> Result<i64, TimeError> {
            let mut v = 0i64;
            for i in at..at + n {
                match s.get(i) {
                    Some(c @ b'0'..=b'9') => v = v * 10 + (c - b'0') as i64,
                    _ => return Err(bad(i, what)),
                }
            }
            Ok(v)
        };
        let lit = |at: usize, c: &[u8], what: &'static str| -> Result<(), TimeError> {
            match s.get(at) {
                Some(b) if c.contains(b) => Ok(()),
                _ => Err(bad(at, what)),
            }
        };
        // The year, and the index p of the '-' after it: every later index counts from p.
        let (year, p) = match s.first() {
            Some(&sign @ (b'+' | b'-')) => {
                let mut i = 1;
                let mut v = 0i64;
                while let Some(c @ b'0'..=b'9') = s.get(i) {
                    // Saturating: any number of digits is read without overflow, and a
                    // saturated value fails the bound below.
                    v = v.saturating_mul(10).saturating_add((c - b'0') as i64);
                    i += 1;
                }
                if i - 1 < 6 {
                    return Err(bad(i, "a year of at least 6 digits after its sign"));
                }
                if sign == b'-' && v == 0 {
                    return Err(bad(
                        0,
                        "a year other than -000000 (year zero is 0000 or +000000)",
                    ));
                }
                if v > YEAR_BOUND {
                    return Err(bad(0, UNIX_TIME_RANGE));
                }
                (if sign == b'-' { -v } else { v }, i)
            }
            _ => {
                let y = num(0, 4, "a 4-digit year, or '+' or '-' and at least 6 digits")?;
                if let Some(b'0'..=b'9') = s.get(4) {
                    return Err(bad(
                        4,
                        "'-' after a 4-digit year (years past 9999 take a sign and at least 6 digits: +010000)",
                    ));
                }
                (y, 4)
            }
        };
        lit(p, b"-", "'-'")?;
        let month = num(p + 1, 2, "a 2-digit month")?;
        lit(p + 3, b"-", "'-'")?;
        let day = num(p + 4, 2, "a 2-digit day")?;
        lit(p + 6, b"Tt", "'T'")?;
        let hour = num(p + 7, 2, "a 2-digit hour")?;
        lit(p + 9, b":", "':'")?;
        let minute = num(p + 10, 2, "2-digit minutes")?;
        lit(p + 12, b":", "':'")?;
        let second = num(p + 13, 2, "2-digit seconds")?;
        if !(1..=12).contains(&month) {
            return Err(bad(p + 1, "a month from 01 to 12"));
        }
        if day < 1 || day > days_in_month(year, month) {
            return Err(bad(p + 4, "a day that exists in that month"));
        }
        if hour > 23 {
            return Err(bad(p + 7, "an hour from 00 to 23"));
        }
        if minute > 59 {
            return Err(bad(p + 10, "minutes from 00 to 59"));
        }
        if second > 59 {
            return Err(bad(
                p + 13,
                "seconds from 00 to 59 (leap seconds are not representable)",
            ));
        }
        let mut i = p + 15;
        let mut nanos = 0u32;
        if s.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while let Some(c @ b'0'..=b'9') = s.get(i) {
                if i - start == 9 {
                    return Err(bad(i, "at most 9 fractional digits"));
                }
                nanos = nanos * 10 + (c - b'0') as u32;
                i += 1;
            }
            if i == start {
                return Err(bad(i, "a fractional digit"));
            }
            nanos *= 10u32.pow(9 - (i - start) as u32);
        }
        let offset_secs = match s.get(i) {
            Some(b'Z' | b'z') => {
                i += 1;
                0
            }
            Some(sign @ (b'+' | b'-')) => {
                let h = num(i + 1, 2, "a 2-digit offset hour")?;
                lit(i + 3, b":", "':'")?;
                let m = num(i + 4, 2, "2-digit offset minutes")?;
                if h > 23 || m > 59 {
                    return Err(bad(i + 1, "an offset from -23:59 to +23:59"));
                }
                let o = h * 3600 + m * 60;
                let o = if *sign == b'-' { -o } else { o };
                i += 6;
                o
            }
            _ => return Err(bad(i, "'Z', '+HH:MM', '-HH:MM' or a fraction '.digits'")),
        };
        if i != s.len() {
            return Err(bad(i, "the end of the input"));
        }
        // |year| <= YEAR_BOUND keeps the day count near 1.1e14, inside i64; the seconds
        // of the ends of that range pass i64, hence i128 and the exact check.
        let days = days_from_civil(year, month, day);
        let secs =
            days as i128 * 86_400 + (hour * 3600 + minute * 60 + second - offset_secs) as i128;
        match i64::try_from(secs) {
            Ok(secs) => Ok(UnixTime { secs, nanos }),
            Err(_) => Err(bad(0, UNIX_TIME_RANGE)),
        }
    }
}

impl fmt::Display for UnixTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339(9))
    }
}

/// An instant in RFC 3339 text, for `Display`; made by [`UnixTime::rfc3339`].
///
/// ```
/// let t = uuidkit::time::UnixTime::new(0, 5);
/// assert_eq!(t.rfc3339(9).to_string(), "1970-01-01T00:00:00.000000005Z");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Rfc3339 {
    time: UnixTime,
    digits: usize,
}

impl fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// Writes `n` as `N` decimal digits (the lowest `N` of them) at `out[at..]`.
        fn digits<const N: usize>(out: &mut [u8], at: usize, mut n: u64) {
            for i in (0..N).rev() {
                out[at + i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
        }
        let t = &self.time;
        let days = t.secs.div_euclid(86_400);
        let sod = t.secs.rem_euclid(86_400) as u64;
        let (y, m, d) = civil_from_days(days);
        if (0..=9999).contains(&y) {
            // The common case, built in one buffer and written at once:
            // `YYYY-MM-DDTHH:MM:SS`, then `.` and the fraction, then `Z`.
            let mut text = *b"0000-00-00T00:00:00.000000000Z";
            digits::<4>(&mut text, 0, y as u64);
            digits::<2>(&mut text, 5, m as u64);
            digits::<2>(&mut text, 8, d as u64);
            digits::<2>(&mut text, 11, sod / 3600);
            digits::<2>(&mut text, 14, sod / 60 % 60);
            digits::<2>(&mut text, 17, sod % 60);
            let digits_shown = self.digits.min(9);
            // Truncated, never rounded: the first digits of the nine-digit fraction.
            digits::<9>(&mut text, 20, u64::from(t.nanos));
            let end = if digits_shown == 0 {
                19
            } else {
                20 + digits_shown
            };
            text[end] = b'Z';
            let text = &text[..=end];
            // Only ASCII digits and punctuation were written.
            return f.write_str(core::str::from_utf8(text).map_err(|_| fmt::Error)?);
        }
        let sign = if y < 0 { '-' } else { '+' };
        write!(f, "{sign}{:06}", y.unsigned_abs())?;
        write!(
            f,
            "-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            sod / 3600,
            sod / 60 % 60,
            sod % 60
        )?;
        let digits = self.digits.min(9);
        if digits > 0 {
            // The first `digits` of the nine-digit fraction: truncated, never rounded.
            let frac = t.nanos / 10u32.pow(9 - digits as u32);
            write!(f, ".{frac:0digits$}")?;
        }
        f.write_str("Z")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::testing::any_instant;
    use core::time::Duration;
    use proptest::prelude::*;

    #[test]
    fn rejects_bad_rfc3339_with_position() {
        for (s, at) in [
            ("2022-02-22", 10),
            ("2022-02-22T14:22:22", 19),
            ("2022-02-22 14:22:22Z", 10),
            ("2022-13-01T00:00:00Z", 5),
            ("2021-02-29T00:00:00Z", 8),
            ("2022-02-22T24:00:00Z", 11),
            ("2022-02-22T14:22:60Z", 17),
            ("2022-02-22T14:22:22.Z", 20),
            ("2022-02-22T14:22:22.1234567890Z", 29),
            ("2022-02-22T14:22:22+5:00", 21),
            ("2022-02-22T14:22:22Zjunk", 20),
            ("22-02-22T14:22:22Z", 2),
        ] {
            match UnixTime::parse_rfc3339(s) {
                Err(TimeError::Rfc3339 { index, .. }) => assert_eq!(index, at, "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
        assert!(UnixTime::parse_rfc3339("2024-02-29t00:00:00z").is_ok());
    }

    /// The text of `t` shifted by `offset_secs` (a multiple of 60, |offset| < 24 h) and
    /// written with that offset, as a writer in that time zone would write it; `None`
    /// where the local wall-clock time is outside UnixTime's range.
    fn with_offset(t: UnixTime, offset_secs: i64) -> Option<String> {
        let local = t.secs.checked_add(offset_secs)?;
        let utc = UnixTime::new(local, t.nanos).to_rfc3339(9);
        let (sign, o) = if offset_secs < 0 {
            ('-', -offset_secs)
        } else {
            ('+', offset_secs)
        };
        Some(format!(
            "{}{sign}{:02}:{:02}",
            utc.strip_suffix('Z').unwrap(),
            o / 3600,
            o / 60 % 60
        ))
    }

    fn parses_at(text: &str, at: usize) -> TimeError {
        match UnixTime::parse_rfc3339(text) {
            Err(e @ TimeError::Rfc3339 { index, .. }) if index == at => e,
            other => panic!("{text}: expected an error at byte {at}, got {other:?}"),
        }
    }

    // Issue item 11: years past 9999 were written with 5 digits, negative years as "-001".
    #[test]
    fn years_outside_0000_to_9999_take_the_expanded_form() {
        for (t, text) in [
            (
                UnixTime::from_millis((1 << 48) - 1),
                "+010889-08-02T05:31:50.655000000Z",
            ),
            (
                UnixTime::parse_rfc3339("9999-12-31T23:59:59.999999999-23:59").unwrap(),
                "+010000-01-01T23:58:59.999999999Z",
            ),
            (
                UnixTime::new(253_402_300_800, 0),
                "+010000-01-01T00:00:00.000000000Z",
            ),
            (
                UnixTime::new(253_402_300_799, 999_999_999),
                "9999-12-31T23:59:59.999999999Z",
            ),
            (
                UnixTime::new(-62_167_219_200, 0),
                "0000-01-01T00:00:00.000000000Z",
            ),
            (
                UnixTime::new(-62_167_219_200, 0).saturating_sub(Duration::from_nanos(1)),
                "-000001-12-31T23:59:59.999999999Z",
            ),
            (UnixTime::MAX, "+292277026596-12-04T15:30:07.999999999Z"),
            (UnixTime::MIN, "-292277022657-01-27T08:29:52.000000000Z"),
        ] {
            assert_eq!(t.to_rfc3339(9), text);
            assert_eq!(UnixTime::parse_rfc3339(text).unwrap(), t, "{text}");
        }
    }

    // Issue item 11: the -23:59 edge of 9999 did not round-trip.
    #[test]
    fn offset_edges_round_trip() {
        for text in [
            "9999-12-31T23:59:59.999999999-23:59",
            "0000-01-01T00:00:00+23:59",
            "0000-01-01T00:00:00-23:59",
            "9999-12-31T23:59:59.999999999+23:59",
            "+292277026596-12-05T15:29:07.999999999+23:59",
            "-292277022657-01-26T08:30:52-23:59",
        ] {
            let t = UnixTime::parse_rfc3339(text).unwrap();
            assert_eq!(
                UnixTime::parse_rfc3339(&t.to_rfc3339(9)).unwrap(),
                t,
                "{text} → {}",
                t.to_rfc3339(9)
            );
        }
        assert_eq!(
            UnixTime::parse_rfc3339("+292277026596-12-05T15:29:07.999999999+23:59").unwrap(),
            UnixTime::MAX
        );
        assert_eq!(
            UnixTime::parse_rfc3339("-292277022657-01-26T08:30:52-23:59").unwrap(),
            UnixTime::MIN
        );
    }

    #[test]
    fn instants_past_the_range_are_errors_at_byte_0() {
        for text in [
            "+292277026596-12-04T15:30:08Z",
            "+292277026596-12-04T15:31:07-00:01",
            "-292277022657-01-27T08:29:51.999999999Z",
            "-292277022657-01-27T08:29:52+00:01",
            "+999999999999-01-01T00:00:00Z",
            "-999999999999-01-01T00:00:00Z",
            "+99999999999999999999999999999999-01-01T00:00:00Z",
        ] {
            let e = parses_at(text, 0);
            assert!(e.to_string().contains(UNIX_TIME_RANGE), "{e}");
        }
        // The range the message names is exactly UnixTime's.
        let (lo, hi) = UNIX_TIME_RANGE
            .strip_prefix("a date and time from ")
            .and_then(|r| r.strip_suffix(" (UnixTime's range)"))
            .and_then(|r| r.split_once(" to "))
            .unwrap();
        assert_eq!(UnixTime::parse_rfc3339(lo).unwrap(), UnixTime::MIN);
        assert_eq!(UnixTime::parse_rfc3339(hi).unwrap(), UnixTime::MAX);
    }

    #[test]
    fn rejects_bad_expanded_years_with_position() {
        for (s, at) in [
            ("10889-08-02T05:31:50.655Z", 4),
            ("+10889-08-02T05:31:50.655Z", 6),
            ("+1-01-01T00:00:00Z", 2),
            ("+-01-01T00:00:00Z", 1),
            ("+", 1),
            ("-000000-01-01T00:00:00Z", 0),
            ("+010889", 7),
            ("+010889-13-02T05:31:50Z", 8),
            ("+010889-02-29T00:00:00Z", 11),
            ("+010889-08-02 05:31:50Z", 13),
            ("+010889-08-02T24:31:50Z", 14),
            ("+010889-08-02T05:31:50", 22),
            ("+010889-08-02T05:31:50ZZ", 23),
            ("-000001-02-29T00:00:00Z", 11),
        ] {
            parses_at(s, at);
        }
        // Expanded years are accepted for any year, leading zeros included; leap years
        // follow the proleptic calendar (year 0 and -4 are leap years).
        assert_eq!(
            UnixTime::parse_rfc3339("+002022-02-22T19:22:22Z").unwrap(),
            UnixTime::parse_rfc3339("2022-02-22T19:22:22Z").unwrap()
        );
        assert_eq!(
            UnixTime::parse_rfc3339("+000000010889-08-02T05:31:50.655Z").unwrap(),
            UnixTime::from_millis((1 << 48) - 1)
        );
        assert!(UnixTime::parse_rfc3339("+000000-02-29T00:00:00Z").is_ok());
        assert!(UnixTime::parse_rfc3339("-000004-02-29T00:00:00Z").is_ok());
    }

    proptest! {
        #[test]
        fn rfc3339_round_trips(t in any_instant()) {
            let text = t.to_rfc3339(9);
            prop_assert_eq!(UnixTime::parse_rfc3339(&text).unwrap(), t, "{}", text);
        }

        #[test]
        fn rfc3339_truncates_to_the_digits_asked(t in any_instant(), digits in 0usize..=9) {
            let text = t.to_rfc3339(digits);
            let unit = 10u32.pow(9 - digits as u32);
            let truncated = UnixTime::new(t.secs(), t.subsec_nanos() / unit * unit);
            prop_assert_eq!(UnixTime::parse_rfc3339(&text).unwrap(), truncated, "{}", text);
        }

        #[test]
        fn rfc3339_with_an_offset_round_trips(
            t in any_instant(),
            minutes in prop_oneof![-1439i64..=1439, Just(-1439i64), Just(1439i64)],
        ) {
            if let Some(text) = with_offset(t, minutes * 60) {
                prop_assert_eq!(UnixTime::parse_rfc3339(&text).unwrap(), t, "{}", text);
            }
        }

        #[test]
        fn rfc3339_parser_never_panics(text in "[-+0-9]{0,14}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,10})?([Zz]|[-+][0-9]{2}:[0-9]{2})?") {
            if let Ok(t) = UnixTime::parse_rfc3339(&text) {
                prop_assert_eq!(UnixTime::parse_rfc3339(&t.to_rfc3339(9)).unwrap(), t);
            }
        }
    }
}
