//! Time: instants, the timestamp scales UUIDs use, RFC 3339 text, and the [`Clock`] trait.
//!
//! Three scales appear in RFC 9562:
//! - [`GregorianTimestamp`]: 60-bit count of 100 ns intervals since 1582-10-15 00:00 UTC
//!   (v1, v2, v6);
//! - Unix milliseconds, 48 bits (v7);
//! - Unix 10 ns steps, 60 bits (the time-based v8 example of Appendix B.1).
//!
//! All of them convert through [`UnixTime`], a signed instant with nanosecond resolution
//! that also reaches back to 1582.

use core::fmt;
use std::time::{Duration, SystemTime};

/// 100 ns intervals between 1582-10-15 and 1970-01-01 (RFC 9562 Appendix A).
pub const GREGORIAN_UNIX_OFFSET: u64 = 122_192_928_000_000_000;

/// An instant: seconds since 1970-01-01 00:00:00 UTC (negative before) and nanoseconds.
///
/// ```
/// use uuidkit::time::UnixTime;
/// let t = UnixTime::parse_rfc3339("2022-02-22T14:22:22-05:00")?;
/// assert_eq!(t.as_millis(), 1_645_557_742_000);
/// assert_eq!(t.to_rfc3339(3), "2022-02-22T19:22:22.000Z");
/// # Ok::<(), uuidkit::time::TimeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnixTime {
    secs: i64,
    nanos: u32,
}

impl UnixTime {
    /// 1970-01-01 00:00:00 UTC.
    pub const EPOCH: UnixTime = UnixTime { secs: 0, nanos: 0 };

    /// Builds an instant; `nanos` above one second carries into `secs`.
    ///
    /// ```
    /// let t = uuidkit::time::UnixTime::new(1, 1_500_000_000);
    /// assert_eq!(t.as_nanos(), 2_500_000_000);
    /// ```
    pub const fn new(secs: i64, nanos: u32) -> UnixTime {
        UnixTime {
            secs: secs + (nanos / 1_000_000_000) as i64,
            nanos: nanos % 1_000_000_000,
        }
    }

    /// From whole milliseconds since the epoch.
    ///
    /// ```
    /// let t = uuidkit::time::UnixTime::from_millis(1_645_557_742_123);
    /// assert_eq!(t.subsec_nanos(), 123_000_000);
    /// ```
    pub const fn from_millis(ms: u64) -> UnixTime {
        UnixTime::new((ms / 1000) as i64, ((ms % 1000) * 1_000_000) as u32)
    }

    /// From nanoseconds since the epoch (negative before it).
    ///
    /// ```
    /// let t = uuidkit::time::UnixTime::from_nanos(-1);
    /// assert_eq!((t.secs(), t.subsec_nanos()), (-1, 999_999_999));
    /// ```
    pub const fn from_nanos(ns: i128) -> UnixTime {
        UnixTime {
            secs: ns.div_euclid(1_000_000_000) as i64,
            nanos: ns.rem_euclid(1_000_000_000) as u32,
        }
    }

    /// Whole seconds since the epoch, rounded towards negative infinity.
    pub const fn secs(&self) -> i64 {
        self.secs
    }

    /// Nanoseconds past [`secs`](Self::secs), 0–999,999,999.
    pub const fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// Nanoseconds since the epoch.
    ///
    /// ```
    /// assert_eq!(uuidkit::time::UnixTime::from_millis(2).as_nanos(), 2_000_000);
    /// ```
    pub const fn as_nanos(&self) -> i128 {
        self.secs as i128 * 1_000_000_000 + self.nanos as i128
    }

    /// Milliseconds since the epoch, rounded towards negative infinity.
    pub const fn as_millis(&self) -> i128 {
        self.as_nanos().div_euclid(1_000_000)
    }

    /// Milliseconds since the epoch as `u64`, 0 for instants before it: cheap integer
    /// arithmetic for generators.
    #[inline]
    pub const fn millis_since_epoch(&self) -> u64 {
        if self.secs < 0 {
            0
        } else {
            self.secs as u64 * 1000 + (self.nanos / 1_000_000) as u64
        }
    }

    /// Nanoseconds since the epoch as `u64`, 0 before it and saturating after 2554.
    #[inline]
    pub const fn nanos_since_epoch(&self) -> u64 {
        if self.secs < 0 {
            0
        } else {
            (self.secs as u64)
                .saturating_mul(1_000_000_000)
                .saturating_add(self.nanos as u64)
        }
    }

    /// The current time from the system clock.
    ///
    /// ```
    /// assert!(uuidkit::time::UnixTime::now().secs() > 1_600_000_000);
    /// ```
    pub fn now() -> UnixTime {
        UnixTime::from_system_time(SystemTime::now())
    }

    /// From a [`SystemTime`], before or after the epoch.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// let t = uuidkit::time::UnixTime::from_system_time(SystemTime::UNIX_EPOCH - Duration::from_nanos(1));
    /// assert_eq!(t.as_nanos(), -1);
    /// ```
    pub fn from_system_time(t: SystemTime) -> UnixTime {
        match t.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => UnixTime::new(d.as_secs() as i64, d.subsec_nanos()),
            Err(e) => UnixTime::from_nanos(-(e.duration().as_nanos() as i128)),
        }
    }

    /// As a [`SystemTime`].
    ///
    /// ```
    /// use std::time::SystemTime;
    /// assert_eq!(uuidkit::time::UnixTime::EPOCH.to_system_time(), SystemTime::UNIX_EPOCH);
    /// ```
    pub fn to_system_time(&self) -> SystemTime {
        let ns = self.as_nanos();
        let abs = ns.unsigned_abs();
        let d = Duration::new((abs / 1_000_000_000) as u64, (abs % 1_000_000_000) as u32);
        if ns >= 0 {
            SystemTime::UNIX_EPOCH + d
        } else {
            SystemTime::UNIX_EPOCH - d
        }
    }

    /// RFC 3339 in UTC with `Z` and exactly `digits` fractional digits (0–9; truncated,
    /// never rounded, so the text never claims a later instant).
    ///
    /// ```
    /// let t = uuidkit::time::UnixTime::from_nanos(-122_192_928_000_000_000_00);
    /// assert_eq!(t.to_rfc3339(7), "1582-10-15T00:00:00.0000000Z");
    /// ```
    pub fn to_rfc3339(&self, digits: usize) -> String {
        let days = self.secs.div_euclid(86_400);
        let sod = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let mut s = format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            sod / 3600,
            sod / 60 % 60,
            sod % 60
        );
        let digits = digits.min(9);
        if digits > 0 {
            let frac = format!("{:09}", self.nanos);
            s.push('.');
            s.push_str(&frac[..digits]);
        }
        s.push('Z');
        s
    }

    /// Parses RFC 3339: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1–9 digits, then
    /// `Z` or an offset `±HH:MM`. `t` and `z` may be lowercase (RFC 3339 §5.6 note).
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// let a = UnixTime::parse_rfc3339("2022-02-22T19:22:22.5Z")?;
    /// let b = UnixTime::parse_rfc3339("2022-02-22T14:22:22.500000000-05:00")?;
    /// assert_eq!(a, b);
    /// assert!(UnixTime::parse_rfc3339("2022-02-30T00:00:00Z").is_err());
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
        let year = num(0, 4, "a 4-digit year")?;
        lit(4, b"-", "'-'")?;
        let month = num(5, 2, "a 2-digit month")?;
        lit(7, b"-", "'-'")?;
        let day = num(8, 2, "a 2-digit day")?;
        lit(10, b"Tt", "'T'")?;
        let hour = num(11, 2, "a 2-digit hour")?;
        lit(13, b":", "':'")?;
        let minute = num(14, 2, "2-digit minutes")?;
        lit(16, b":", "':'")?;
        let second = num(17, 2, "2-digit seconds")?;
        if !(1..=12).contains(&month) {
            return Err(bad(5, "a month from 01 to 12"));
        }
        if day < 1 || day > days_in_month(year, month) {
            return Err(bad(8, "a day that exists in that month"));
        }
        if hour > 23 {
            return Err(bad(11, "an hour from 00 to 23"));
        }
        if minute > 59 {
            return Err(bad(14, "minutes from 00 to 59"));
        }
        if second > 59 {
            return Err(bad(
                17,
                "seconds from 00 to 59 (leap seconds are not representable)",
            ));
        }
        let mut i = 19;
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
        let days = days_from_civil(year, month, day);
        let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_secs;
        Ok(UnixTime { secs, nanos })
    }
}

impl fmt::Display for UnixTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339(9))
    }
}

/// A date or timestamp that cannot be read or does not fit a UUID's timestamp field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeError {
    /// RFC 3339 text that does not parse.
    Rfc3339 {
        /// The whole text.
        input: String,
        /// Byte index of the first offending byte.
        index: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// An instant outside the range a timestamp field can hold.
    OutOfRange {
        /// The instant, as RFC 3339.
        instant: String,
        /// The field's name and range, e.g. "a v7 timestamp (1970 to 10889)".
        field: &'static str,
    },
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::Rfc3339 {
                input,
                index,
                expected,
            } => write!(
                f,
                "invalid RFC 3339 time {input:?}: at byte {index}, expected {expected}"
            ),
            TimeError::OutOfRange { instant, field } => {
                write!(f, "the instant {instant} does not fit {field}")
            }
        }
    }
}

impl std::error::Error for TimeError {}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Proleptic Gregorian calendar arithmetic after Howard Hinnant's "chrono-compatible
// low-level date algorithms": eras of 400 years, March-based years so that the leap day
// falls last.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A 60-bit count of 100 ns intervals since 1582-10-15 00:00:00 UTC: the timestamp of
/// v1, v2 and v6 (RFC 9562 §5.1).
///
/// ```
/// use uuidkit::time::{GregorianTimestamp, UnixTime};
/// let t = GregorianTimestamp::from_unix(UnixTime::from_millis(1_645_557_742_000))?;
/// assert_eq!(t.ticks(), 0x1EC9414C232AB00);
/// assert_eq!(t.to_unix().as_millis(), 1_645_557_742_000);
/// # Ok::<(), uuidkit::time::TimeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct GregorianTimestamp(u64);

impl GregorianTimestamp {
    /// The largest count that fits 60 bits (reached in the year 5236).
    pub const MAX: GregorianTimestamp = GregorianTimestamp((1 << 60) - 1);

    /// From a count of 100 ns ticks; `None` above 60 bits.
    ///
    /// ```
    /// assert!(uuidkit::time::GregorianTimestamp::from_ticks(1 << 60).is_none());
    /// ```
    pub const fn from_ticks(ticks: u64) -> Option<GregorianTimestamp> {
        if ticks >> 60 == 0 {
            Some(GregorianTimestamp(ticks))
        } else {
            None
        }
    }

    /// From a count of ticks, keeping the low 60 bits (what a layout stores).
    pub(crate) const fn from_ticks_masked(ticks: u64) -> GregorianTimestamp {
        GregorianTimestamp(ticks & ((1 << 60) - 1))
    }

    /// The count of 100 ns ticks since 1582-10-15.
    pub const fn ticks(&self) -> u64 {
        self.0
    }

    /// From an instant, truncated to 100 ns; an error before 1582-10-15 or after 5236.
    ///
    /// ```
    /// use uuidkit::time::{GregorianTimestamp, UnixTime};
    /// assert_eq!(GregorianTimestamp::from_unix(UnixTime::EPOCH)?.ticks(),
    ///            uuidkit::time::GREGORIAN_UNIX_OFFSET);
    /// # Ok::<(), uuidkit::time::TimeError>(())
    /// ```
    pub fn from_unix(t: UnixTime) -> Result<GregorianTimestamp, TimeError> {
        let ticks = t.as_nanos().div_euclid(100) + GREGORIAN_UNIX_OFFSET as i128;
        if (0..1i128 << 60).contains(&ticks) {
            Ok(GregorianTimestamp(ticks as u64))
        } else {
            Err(TimeError::OutOfRange {
                instant: t.to_rfc3339(9),
                field: "a Gregorian timestamp (1582-10-15 to 5236-03-31)",
            })
        }
    }

    /// From an instant, clamped to the representable range (1582-10-15 to 5236) instead
    /// of failing: what a generator does with a clock reading out of range. Integer
    /// arithmetic on `i64`, cheap enough for every UUID.
    #[inline]
    pub const fn from_unix_clamped(t: UnixTime) -> GregorianTimestamp {
        // 1e7 ticks a second times |secs| stays far inside i64 for any SystemTime.
        let secs = if t.secs < -20_000_000_000 {
            -20_000_000_000
        } else if t.secs > 200_000_000_000 {
            200_000_000_000
        } else {
            t.secs
        };
        let ticks = secs * 10_000_000 + (t.nanos / 100) as i64 + GREGORIAN_UNIX_OFFSET as i64;
        if ticks < 0 {
            GregorianTimestamp(0)
        } else if ticks >= 1 << 60 {
            GregorianTimestamp::MAX
        } else {
            GregorianTimestamp(ticks as u64)
        }
    }

    /// The instant this timestamp stands for.
    pub const fn to_unix(&self) -> UnixTime {
        UnixTime::from_nanos((self.0 as i128 - GREGORIAN_UNIX_OFFSET as i128) * 100)
    }
}

/// Unix milliseconds for a v7 timestamp: an error before 1970 or past 48 bits.
///
/// ```
/// use uuidkit::time::{unix_millis_48, UnixTime};
/// assert_eq!(unix_millis_48(UnixTime::from_millis(5))?, 5);
/// assert!(unix_millis_48(UnixTime::from_nanos(-1)).is_err());
/// # Ok::<(), uuidkit::time::TimeError>(())
/// ```
pub fn unix_millis_48(t: UnixTime) -> Result<u64, TimeError> {
    let ms = t.as_millis();
    if (0..1i128 << 48).contains(&ms) {
        Ok(ms as u64)
    } else {
        Err(TimeError::OutOfRange {
            instant: t.to_rfc3339(9),
            field: "a v7 timestamp (48-bit Unix milliseconds: 1970 to 10889)",
        })
    }
}

/// Unix 10 ns steps for the time-based v8 layout (RFC 9562 Appendix B.1): an error before
/// 1970 or past 60 bits.
///
/// ```
/// use uuidkit::time::{unix_10ns_60, UnixTime};
/// assert_eq!(unix_10ns_60(UnixTime::from_millis(1_645_557_742_000))?, 0x2489E9AD2EE2E00);
/// # Ok::<(), uuidkit::time::TimeError>(())
/// ```
pub fn unix_10ns_60(t: UnixTime) -> Result<u64, TimeError> {
    let steps = t.as_nanos().div_euclid(10);
    if (0..1i128 << 60).contains(&steps) {
        Ok(steps as u64)
    } else {
        Err(TimeError::OutOfRange {
            instant: t.to_rfc3339(9),
            field: "a v8 time-based timestamp (60-bit Unix 10 ns steps: 1970 to 2335)",
        })
    }
}

/// A source of the current time. Generators ask it for every UUID; tests give them a
/// [`ManualClock`](crate::clock::ManualClock) to freeze it, step it back or jump ahead.
///
/// ```
/// use uuidkit::time::{Clock, SystemClock};
/// assert!(SystemClock.now().secs() > 0);
/// ```
pub trait Clock {
    /// The current instant.
    fn now(&self) -> UnixTime;

    /// Returns once [`now`](Clock::now) has reached `t`. Generators call it when they
    /// must wait for time to pass (a v1 generator that has used every 100 ns tick of the
    /// current millisecond). The default yields the thread between readings; a manual
    /// clock moves itself forward instead, which simulates the wait.
    fn sleep_until(&self, t: UnixTime) {
        while self.now() < t {
            std::thread::yield_now();
        }
    }
}

/// The operating system's real-time clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[inline]
    fn now(&self) -> UnixTime {
        UnixTime::now()
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now(&self) -> UnixTime {
        (**self).now()
    }
    fn sleep_until(&self, t: UnixTime) {
        (**self).sleep_until(t)
    }
}

impl<C: Clock + ?Sized> Clock for std::sync::Arc<C> {
    fn now(&self) -> UnixTime {
        (**self).now()
    }
    fn sleep_until(&self, t: UnixTime) {
        (**self).sleep_until(t)
    }
}

/// A user-supplied function as the clock, as uuid-creator's time functions.
///
/// ```
/// use uuidkit::time::{Clock, FnClock, UnixTime};
/// let fixed = FnClock(|| UnixTime::from_millis(1_645_557_742_000));
/// assert_eq!(fixed.now().as_millis(), 1_645_557_742_000);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FnClock<F>(pub F);

impl<F: Fn() -> UnixTime> Clock for FnClock<F> {
    fn now(&self) -> UnixTime {
        (self.0)()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rfc_appendix_a_timestamp() {
        let t = UnixTime::parse_rfc3339("2022-02-22T14:22:22-05:00").unwrap();
        assert_eq!(t.as_nanos(), 1_645_557_742_000_000_000);
        assert_eq!(
            GregorianTimestamp::from_unix(t).unwrap().ticks(),
            138_648_505_420_000_000
        );
    }

    #[test]
    fn gregorian_epoch_and_end() {
        assert_eq!(
            GregorianTimestamp(0).to_unix().to_rfc3339(7),
            "1582-10-15T00:00:00.0000000Z"
        );
        assert_eq!(
            GregorianTimestamp::MAX.to_unix().to_rfc3339(7),
            "5236-03-31T21:21:00.6846975Z"
        );
        let before = UnixTime::parse_rfc3339("1582-10-14T23:59:59.9999999Z").unwrap();
        assert!(GregorianTimestamp::from_unix(before).is_err());
    }

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

    proptest! {
        #[test]
        fn rfc3339_round_trips(ns in -12_219_292_800_000_000_000i128..100_000_000_000_000_000_000i128) {
            let t = UnixTime::from_nanos(ns);
            prop_assert_eq!(UnixTime::parse_rfc3339(&t.to_rfc3339(9)).unwrap(), t);
        }

        #[test]
        fn civil_round_trips(days in -1_000_000i64..1_000_000) {
            let (y, m, d) = civil_from_days(days);
            prop_assert_eq!(days_from_civil(y, m, d), days);
        }

        #[test]
        fn system_time_round_trips(ns in -12_219_292_800_000_000_000i128..100_000_000_000_000_000_000i128) {
            let t = UnixTime::from_nanos(ns);
            prop_assert_eq!(UnixTime::from_system_time(t.to_system_time()), t);
        }
    }
}
