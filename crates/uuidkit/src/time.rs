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
//!
//! Without the `std` feature everything here but the operating system's clock is there:
//! `UnixTime::now`, the `SystemTime` conversions and `SystemClock` need `std`.

use alloc::string::{String, ToString};
use core::fmt;
use core::time::Duration;
#[cfg(feature = "std")]
use std::time::SystemTime;

/// 100 ns intervals between 1582-10-15 and 1970-01-01 (RFC 9562 Appendix A).
///
/// ```
/// use uuidkit::time::{GregorianTimestamp, UnixTime, GREGORIAN_UNIX_OFFSET};
/// assert_eq!(GregorianTimestamp::from_unix(UnixTime::EPOCH)?.ticks(), GREGORIAN_UNIX_OFFSET);
/// # Ok::<(), uuidkit::time::TimeError>(())
/// ```
pub const GREGORIAN_UNIX_OFFSET: u64 = 122_192_928_000_000_000;

/// An instant: seconds since 1970-01-01 00:00:00 UTC (negative before) and nanoseconds.
///
/// # Range
/// Seconds are an `i64`, so an instant lies between [`UnixTime::MIN`]
/// (`-292277022657-01-27T08:29:52Z`) and [`UnixTime::MAX`]
/// (`+292277026596-12-04T15:30:07.999999999Z`). Every constructor and every arithmetic
/// method saturates at those ends instead of wrapping or panicking; the conversions to
/// narrower counts ([`millis_since_epoch`](Self::millis_since_epoch),
/// [`nanos_since_epoch`](Self::nanos_since_epoch)) saturate at their own ends, and the
/// conversions to UUID timestamp fields ([`unix_millis_48`], [`unix_10ns_60`],
/// [`GregorianTimestamp::from_unix`]) return [`TimeError::OutOfRange`].
///
/// # Text
/// [`to_rfc3339`](Self::to_rfc3339) and [`parse_rfc3339`](Self::parse_rfc3339) follow
/// one rule in both directions: years 0000 to 9999 in RFC 3339's four digits, every
/// other year in ISO 8601's expanded form, a sign and at least six digits
/// (`+010889-08-02T05:31:50.655Z`, `-000001-12-31T00:00:00Z`). Every instant in the
/// range formats and parses back to itself.
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

/// What [`UnixTime::parse_rfc3339`] expects of a text naming an instant outside
/// [`UnixTime::MIN`]..=[`UnixTime::MAX`]; a test checks that it names those two.
const UNIX_TIME_RANGE: &str = "a date and time from -292277022657-01-27T08:29:52Z \
                               to +292277026596-12-04T15:30:07.999999999Z (UnixTime's range)";

/// A bound on the magnitude of a parsed year, a little past both ends of [`UnixTime`]:
/// it keeps the calendar arithmetic inside `i64`, and the exact range check comes after.
const YEAR_BOUND: i64 = 300_000_000_000;

impl UnixTime {
    /// 1970-01-01 00:00:00 UTC.
    ///
    /// ```
    /// assert_eq!(uuidkit::time::UnixTime::EPOCH.to_rfc3339(0), "1970-01-01T00:00:00Z");
    /// ```
    pub const EPOCH: UnixTime = UnixTime { secs: 0, nanos: 0 };

    /// The earliest instant: `i64::MIN` seconds, `-292277022657-01-27T08:29:52Z`.
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// assert_eq!(UnixTime::MIN.secs(), i64::MIN);
    /// assert_eq!(UnixTime::MIN.to_rfc3339(0), "-292277022657-01-27T08:29:52Z");
    /// ```
    pub const MIN: UnixTime = UnixTime {
        secs: i64::MIN,
        nanos: 0,
    };

    /// The latest instant: the last nanosecond of `i64::MAX` seconds,
    /// `+292277026596-12-04T15:30:07.999999999Z`.
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// assert_eq!(UnixTime::MAX.secs(), i64::MAX);
    /// assert_eq!(UnixTime::MAX.to_rfc3339(9), "+292277026596-12-04T15:30:07.999999999Z");
    /// ```
    pub const MAX: UnixTime = UnixTime {
        secs: i64::MAX,
        nanos: 999_999_999,
    };

    /// Builds an instant; `nanos` above one second carries into `secs`, saturating at
    /// [`UnixTime::MAX`] where the carry would pass `i64::MAX` seconds.
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// assert_eq!(UnixTime::new(1, 1_500_000_000).as_nanos(), 2_500_000_000);
    /// assert_eq!(UnixTime::new(i64::MAX, 1_000_000_000), UnixTime::MAX);
    /// ```
    pub const fn new(secs: i64, nanos: u32) -> UnixTime {
        // At most 4 whole seconds carry, so only the top end can be passed.
        match secs.checked_add((nanos / 1_000_000_000) as i64) {
            Some(secs) => UnixTime {
                secs,
                nanos: nanos % 1_000_000_000,
            },
            None => UnixTime::MAX,
        }
    }

    /// From whole milliseconds since the epoch (every `u64` fits).
    ///
    /// ```
    /// let t = uuidkit::time::UnixTime::from_millis(1_645_557_742_123);
    /// assert_eq!(t.subsec_nanos(), 123_000_000);
    /// ```
    pub const fn from_millis(ms: u64) -> UnixTime {
        // u64::MAX / 1000 is far below i64::MAX: the cast is exact.
        UnixTime::new((ms / 1000) as i64, ((ms % 1000) * 1_000_000) as u32)
    }

    /// From nanoseconds since the epoch (negative before it), saturating at
    /// [`UnixTime::MIN`] and [`UnixTime::MAX`]: an `i128` reaches far beyond `i64`
    /// seconds.
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// let t = UnixTime::from_nanos(-1);
    /// assert_eq!((t.secs(), t.subsec_nanos()), (-1, 999_999_999));
    /// assert_eq!(UnixTime::from_nanos(i128::MAX), UnixTime::MAX);
    /// assert_eq!(UnixTime::from_nanos(i128::MIN), UnixTime::MIN);
    /// ```
    pub const fn from_nanos(ns: i128) -> UnixTime {
        if ns < UnixTime::MIN.as_nanos() {
            UnixTime::MIN
        } else if ns > UnixTime::MAX.as_nanos() {
            UnixTime::MAX
        } else {
            // In range, the quotient fits i64 and the remainder u32.
            UnixTime {
                secs: ns.div_euclid(1_000_000_000) as i64,
                nanos: ns.rem_euclid(1_000_000_000) as u32,
            }
        }
    }

    /// Whole seconds since the epoch, rounded towards negative infinity.
    ///
    /// ```
    /// assert_eq!(uuidkit::time::UnixTime::from_nanos(-1).secs(), -1);
    /// ```
    pub const fn secs(&self) -> i64 {
        self.secs
    }

    /// Nanoseconds past [`secs`](Self::secs), 0–999,999,999.
    ///
    /// ```
    /// assert_eq!(uuidkit::time::UnixTime::from_nanos(-1).subsec_nanos(), 999_999_999);
    /// ```
    pub const fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// Nanoseconds since the epoch (exact: every instant fits an `i128`).
    ///
    /// ```
    /// assert_eq!(uuidkit::time::UnixTime::from_millis(2).as_nanos(), 2_000_000);
    /// ```
    pub const fn as_nanos(&self) -> i128 {
        self.secs as i128 * 1_000_000_000 + self.nanos as i128
    }

    /// Milliseconds since the epoch, rounded towards negative infinity.
    ///
    /// ```
    /// assert_eq!(uuidkit::time::UnixTime::from_nanos(-1).as_millis(), -1);
    /// ```
    pub const fn as_millis(&self) -> i128 {
        self.as_nanos().div_euclid(1_000_000)
    }

    /// Milliseconds since the epoch as `u64`: 0 for instants before it, and `u64::MAX`
    /// from the year 584,556,019 on, where the count no longer fits. Cheap integer
    /// arithmetic for generators (one multiplication, no `i128`).
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// assert_eq!(UnixTime::from_millis(1_645_557_742_123).millis_since_epoch(), 1_645_557_742_123);
    /// assert_eq!(UnixTime::from_nanos(-1).millis_since_epoch(), 0);
    /// assert_eq!(UnixTime::MAX.millis_since_epoch(), u64::MAX);
    /// ```
    #[inline]
    pub const fn millis_since_epoch(&self) -> u64 {
        if self.secs < 0 {
            0
        } else {
            (self.secs as u64)
                .saturating_mul(1000)
                .saturating_add((self.nanos / 1_000_000) as u64)
        }
    }

    /// Nanoseconds since the epoch as `u64`: 0 before it, and `u64::MAX` from
    /// 2554-07-21T23:34:33.709551615Z on.
    ///
    /// ```
    /// use uuidkit::time::UnixTime;
    /// assert_eq!(UnixTime::from_millis(2).nanos_since_epoch(), 2_000_000);
    /// assert_eq!(UnixTime::MAX.nanos_since_epoch(), u64::MAX);
    /// ```
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

    /// The instant `d` later, saturating at [`UnixTime::MAX`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::time::UnixTime;
    /// assert_eq!(UnixTime::EPOCH.saturating_add(Duration::from_nanos(1)).as_nanos(), 1);
    /// assert_eq!(UnixTime::MAX.saturating_add(Duration::from_nanos(1)), UnixTime::MAX);
    /// ```
    pub const fn saturating_add(&self, d: Duration) -> UnixTime {
        // A Duration holds under 2^65 seconds: its nanoseconds fit i128 with room for
        // the sum, and from_nanos saturates.
        UnixTime::from_nanos(self.as_nanos() + d.as_nanos() as i128)
    }

    /// The instant `d` earlier, saturating at [`UnixTime::MIN`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::time::UnixTime;
    /// assert_eq!(UnixTime::EPOCH.saturating_sub(Duration::from_nanos(1)).as_nanos(), -1);
    /// assert_eq!(UnixTime::MIN.saturating_sub(Duration::MAX), UnixTime::MIN);
    /// ```
    pub const fn saturating_sub(&self, d: Duration) -> UnixTime {
        UnixTime::from_nanos(self.as_nanos() - d.as_nanos() as i128)
    }

    /// The current time from the system clock.
    ///
    /// ```
    /// assert!(uuidkit::time::UnixTime::now().secs() > 1_600_000_000);
    /// ```
    #[cfg(feature = "std")]
    pub fn now() -> UnixTime {
        UnixTime::from_system_time(SystemTime::now())
    }

    /// From a [`SystemTime`], before or after the epoch; saturating at [`UnixTime::MIN`]
    /// and [`UnixTime::MAX`] on a platform whose `SystemTime` reaches further.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// let t = uuidkit::time::UnixTime::from_system_time(SystemTime::UNIX_EPOCH - Duration::from_nanos(1));
    /// assert_eq!(t.as_nanos(), -1);
    /// ```
    #[cfg(feature = "std")]
    pub fn from_system_time(t: SystemTime) -> UnixTime {
        match t.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => match i64::try_from(d.as_secs()) {
                Ok(secs) => UnixTime::new(secs, d.subsec_nanos()),
                Err(_) => UnixTime::MAX,
            },
            // Under 2^65 seconds of nanoseconds: exact in i128; from_nanos saturates.
            Err(e) => UnixTime::from_nanos(-(e.duration().as_nanos() as i128)),
        }
    }

    /// As a [`SystemTime`]. Where the platform's `SystemTime` has a narrower range than
    /// `UnixTime` (Windows: 1601 to 30828), an instant outside it gives the nearest
    /// `SystemTime` there is; on Unix every instant converts exactly.
    ///
    /// ```
    /// use std::time::SystemTime;
    /// assert_eq!(uuidkit::time::UnixTime::EPOCH.to_system_time(), SystemTime::UNIX_EPOCH);
    /// ```
    #[cfg(feature = "std")]
    pub fn to_system_time(&self) -> SystemTime {
        let ns = self.as_nanos();
        let at = |abs: u128| {
            // abs is at most 2^63 seconds of nanoseconds: the quotient fits u64.
            let d = Duration::new((abs / 1_000_000_000) as u64, (abs % 1_000_000_000) as u32);
            if ns >= 0 {
                SystemTime::UNIX_EPOCH.checked_add(d)
            } else {
                SystemTime::UNIX_EPOCH.checked_sub(d)
            }
        };
        let abs = ns.unsigned_abs();
        if let Some(t) = at(abs) {
            return t;
        }
        // Past the platform's end: bisect for the farthest distance it can still hold
        // (the epoch itself always can). Rare, so a hundred tries cost nothing.
        let (mut fits, mut fails) = (0u128, abs);
        while fails - fits > 1 {
            let mid = fits + (fails - fits) / 2;
            if at(mid).is_some() {
                fits = mid;
            } else {
                fails = mid;
            }
        }
        at(fits).unwrap_or(SystemTime::UNIX_EPOCH)
    }

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

/// A date or timestamp that cannot be read or does not fit a UUID's timestamp field.
///
/// ```
/// use uuidkit::time::{unix_millis_48, TimeError, UnixTime};
/// let err = UnixTime::parse_rfc3339("2022-02-22T14:22").unwrap_err();
/// assert_eq!(err.to_string(),
///            r#"invalid RFC 3339 time "2022-02-22T14:22": at byte 16, expected ':'"#);
/// let err = unix_millis_48(UnixTime::from_millis(1 << 48)).unwrap_err();
/// assert!(matches!(err, TimeError::OutOfRange { .. }));
/// ```
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
        /// The instant, as [`UnixTime::to_rfc3339`] writes it with 9 digits.
        instant: String,
        /// The field's name and range, the ends written as
        /// [`UnixTime::to_rfc3339`] writes them (so that
        /// [`UnixTime::parse_rfc3339`] reads them back), e.g. "a v7 timestamp (48-bit
        /// Unix milliseconds: 1970-01-01T00:00:00.000Z to +010889-08-02T05:31:50.655Z)".
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

impl core::error::Error for TimeError {}

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
    /// The largest count that fits 60 bits, 5236-03-31T21:21:00.6846975Z.
    ///
    /// ```
    /// use uuidkit::time::GregorianTimestamp;
    /// assert_eq!(GregorianTimestamp::MAX.to_unix().to_rfc3339(7), "5236-03-31T21:21:00.6846975Z");
    /// ```
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
    ///
    /// ```
    /// assert_eq!(uuidkit::time::GregorianTimestamp::MAX.ticks(), (1 << 60) - 1);
    /// ```
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
                field: "a Gregorian timestamp (60-bit 100 ns ticks: \
                        1582-10-15T00:00:00.0000000Z to 5236-03-31T21:21:00.6846975Z)",
            })
        }
    }

    /// From an instant, clamped to the representable range (1582-10-15 to 5236) instead
    /// of failing: what a generator does with a clock reading out of range. Integer
    /// arithmetic on `i64`, cheap enough for every UUID.
    ///
    /// ```
    /// use uuidkit::time::{GregorianTimestamp, UnixTime};
    /// assert_eq!(GregorianTimestamp::from_unix_clamped(UnixTime::MIN).ticks(), 0);
    /// assert_eq!(GregorianTimestamp::from_unix_clamped(UnixTime::MAX), GregorianTimestamp::MAX);
    /// ```
    #[inline]
    pub const fn from_unix_clamped(t: UnixTime) -> GregorianTimestamp {
        // Clamping the seconds first (to years 1336 and 8307, past both ends of the
        // field) keeps 1e7 ticks a second times secs far inside i64 for every instant.
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

    /// The instant this timestamp stands for (every 60-bit count is one).
    ///
    /// ```
    /// use uuidkit::time::{GregorianTimestamp, UnixTime};
    /// let t = GregorianTimestamp::from_ticks(uuidkit::time::GREGORIAN_UNIX_OFFSET).unwrap();
    /// assert_eq!(t.to_unix(), UnixTime::EPOCH);
    /// ```
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
            field: "a v7 timestamp (48-bit Unix milliseconds: \
                    1970-01-01T00:00:00.000Z to +010889-08-02T05:31:50.655Z)",
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
            field: "a v8 time-based timestamp (60-bit Unix 10 ns steps: \
                    1970-01-01T00:00:00.00000000Z to 2335-05-07T23:44:06.06846975Z)",
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

    /// Returns once [`now`](Clock::now) has reached `t`, or as soon as a reading is
    /// earlier than the one before it. Generators call it when they must wait for time
    /// to pass (a v1 generator that has used every 100 ns tick of the current
    /// millisecond). The default yields the thread between readings (without `std`, it
    /// spins); a manual clock moves itself forward instead, which simulates the wait.
    ///
    /// A clock set back during the wait ends it: `t` was computed from the clock before
    /// the step, so waiting for it would last as long as the step (an hour for an hour
    /// back). The caller reads the clock again, sees it went back and decides afresh, as
    /// it does for any step back.
    fn sleep_until(&self, t: UnixTime) {
        self.sleep_from_until(self.now(), t);
    }

    /// Returns once [`now`](Clock::now) has reached `t`, or as soon as it reads earlier
    /// than `since`: the reading the caller decided to wait on, so that a step back
    /// between that reading and the wait ends the wait too (with
    /// [`sleep_until`](Clock::sleep_until), `since` is the wait's own first reading).
    /// Generators call this one; a clock that simulates waiting overrides both.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use uuidkit::time::{Clock, FnClock, UnixTime};
    /// // A clock set back an hour just after the caller read it: the wait ends at once.
    /// let reads = Cell::new(0);
    /// let clock = FnClock(|| {
    ///     reads.set(reads.get() + 1);
    ///     UnixTime::from_millis(1_700_000_000_000 - 3_600_000)
    /// });
    /// clock.sleep_from_until(UnixTime::from_millis(1_700_000_000_000), UnixTime::from_millis(1_700_000_000_001));
    /// assert_eq!(reads.get(), 1);
    /// ```
    fn sleep_from_until(&self, since: UnixTime, t: UnixTime) {
        loop {
            let now = self.now();
            if now >= t || now < since {
                return;
            }
            #[cfg(feature = "std")]
            std::thread::yield_now();
            #[cfg(not(feature = "std"))]
            core::hint::spin_loop();
        }
    }
}

/// The operating system's real-time clock.
///
/// ```
/// use uuidkit::time::{Clock, SystemClock, UnixTime};
/// assert!(SystemClock.now() > UnixTime::EPOCH);
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

#[cfg(feature = "std")]
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
    fn sleep_from_until(&self, since: UnixTime, t: UnixTime) {
        (**self).sleep_from_until(since, t)
    }
}

// `Arc` is in `alloc` only where the target has pointer-sized atomics.
#[cfg(target_has_atomic = "ptr")]
impl<C: Clock + ?Sized> Clock for alloc::sync::Arc<C> {
    fn now(&self) -> UnixTime {
        (**self).now()
    }
    fn sleep_until(&self, t: UnixTime) {
        (**self).sleep_until(t)
    }
    fn sleep_from_until(&self, since: UnixTime, t: UnixTime) {
        (**self).sleep_from_until(since, t)
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

    // Issue item 5: constructors overflowed (debug panic) or truncated.
    #[test]
    fn constructors_saturate() {
        assert_eq!(UnixTime::new(i64::MAX, 1_000_000_000), UnixTime::MAX);
        assert_eq!(UnixTime::new(i64::MAX, u32::MAX), UnixTime::MAX);
        assert_eq!(UnixTime::new(i64::MAX - 4, u32::MAX).secs(), i64::MAX);
        assert_eq!(UnixTime::from_nanos(i128::MAX), UnixTime::MAX);
        assert_eq!(UnixTime::from_nanos(i128::MIN), UnixTime::MIN);
        assert_eq!(
            UnixTime::from_nanos(UnixTime::MAX.as_nanos() + 1),
            UnixTime::MAX
        );
        assert_eq!(
            UnixTime::from_nanos(UnixTime::MIN.as_nanos() - 1),
            UnixTime::MIN
        );
        assert_eq!(
            UnixTime::from_nanos(UnixTime::MAX.as_nanos()),
            UnixTime::MAX
        );
        assert_eq!(
            UnixTime::from_nanos(UnixTime::MIN.as_nanos()),
            UnixTime::MIN
        );
        assert_eq!(
            UnixTime::from_millis(u64::MAX).as_millis(),
            u64::MAX as i128
        );
        assert_eq!(UnixTime::MAX.saturating_add(Duration::MAX), UnixTime::MAX);
        assert_eq!(UnixTime::MIN.saturating_sub(Duration::MAX), UnixTime::MIN);
        assert_eq!(UnixTime::MIN.saturating_add(Duration::MAX), UnixTime::MAX);
    }

    // Issue item 5: `UnixTime::new(i64::MAX, 0).millis_since_epoch()` overflowed.
    #[test]
    fn epoch_counts_saturate() {
        for t in [UnixTime::new(i64::MAX, 0), UnixTime::MAX] {
            assert_eq!(t.millis_since_epoch(), u64::MAX);
            assert_eq!(t.nanos_since_epoch(), u64::MAX);
        }
        // Around the last millisecond a u64 counts (the year 584,556,019), and past it.
        let last = (u64::MAX / 1000) as i64;
        assert_eq!(
            UnixTime::new(last, 615_000_000).millis_since_epoch(),
            u64::MAX
        );
        assert_eq!(
            UnixTime::new(last, 614_999_999).millis_since_epoch(),
            u64::MAX - 1
        );
        assert_eq!(
            UnixTime::new(last, 999_999_999).millis_since_epoch(),
            u64::MAX
        );
        assert_eq!(UnixTime::new(last + 1, 0).millis_since_epoch(), u64::MAX);
        assert_eq!(UnixTime::MIN.millis_since_epoch(), 0);
        assert_eq!(UnixTime::MIN.nanos_since_epoch(), 0);
        assert_eq!(
            UnixTime::parse_rfc3339("2554-07-21T23:34:33.709551615Z")
                .unwrap()
                .nanos_since_epoch(),
            u64::MAX
        );
    }

    #[test]
    fn gregorian_and_field_conversions_never_panic_at_the_ends() {
        for t in [UnixTime::MIN, UnixTime::MAX] {
            assert!(GregorianTimestamp::from_unix(t).is_err());
            assert!(unix_millis_48(t).is_err());
            assert!(unix_10ns_60(t).is_err());
        }
        assert_eq!(
            GregorianTimestamp::from_unix_clamped(UnixTime::MIN).ticks(),
            0
        );
        assert_eq!(
            GregorianTimestamp::from_unix_clamped(UnixTime::MAX),
            GregorianTimestamp::MAX
        );
        assert_eq!(
            GregorianTimestamp::from_unix_clamped(GregorianTimestamp::MAX.to_unix()),
            GregorianTimestamp::MAX
        );
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

    /// The ends that an `OutOfRange` field text names, parsed back.
    fn field_range(field: &str) -> (UnixTime, UnixTime) {
        let (_, range) = field.rsplit_once(": ").unwrap();
        let (lo, hi) = range.strip_suffix(')').unwrap().split_once(" to ").unwrap();
        (
            UnixTime::parse_rfc3339(lo).unwrap(),
            UnixTime::parse_rfc3339(hi).unwrap(),
        )
    }

    fn field_of(e: TimeError) -> &'static str {
        match e {
            TimeError::OutOfRange { field, .. } => field,
            other => panic!("{other:?}"),
        }
    }

    // Issue item 11: the v7 range read "1970 to 10889", which the parser could not read.
    #[test]
    fn out_of_range_messages_name_parseable_exact_ends() {
        let after = |t: UnixTime, step: u64| t.saturating_add(Duration::from_nanos(step));
        let before = |t: UnixTime, step: u64| t.saturating_sub(Duration::from_nanos(step));

        let field = field_of(unix_millis_48(UnixTime::MAX).unwrap_err());
        let (lo, hi) = field_range(field);
        assert_eq!(unix_millis_48(lo).unwrap(), 0);
        assert_eq!(unix_millis_48(hi).unwrap(), (1 << 48) - 1);
        assert!(unix_millis_48(before(lo, 1)).is_err());
        assert!(unix_millis_48(after(hi, 1_000_000)).is_err());

        let field = field_of(unix_10ns_60(UnixTime::MAX).unwrap_err());
        let (lo, hi) = field_range(field);
        assert_eq!(unix_10ns_60(lo).unwrap(), 0);
        assert_eq!(unix_10ns_60(hi).unwrap(), (1 << 60) - 1);
        assert!(unix_10ns_60(before(lo, 1)).is_err());
        assert!(unix_10ns_60(after(hi, 10)).is_err());

        let field = field_of(GregorianTimestamp::from_unix(UnixTime::MAX).unwrap_err());
        let (lo, hi) = field_range(field);
        assert_eq!(GregorianTimestamp::from_unix(lo).unwrap().ticks(), 0);
        assert_eq!(
            GregorianTimestamp::from_unix(hi).unwrap(),
            GregorianTimestamp::MAX
        );
        assert!(GregorianTimestamp::from_unix(before(lo, 1)).is_err());
        assert!(GregorianTimestamp::from_unix(after(hi, 100)).is_err());

        // The instant in the message is written by the same rule.
        match unix_millis_48(UnixTime::from_millis(1 << 48)).unwrap_err() {
            TimeError::OutOfRange { instant, .. } => {
                assert_eq!(instant, "+010889-08-02T05:31:50.656000000Z")
            }
            other => panic!("{other:?}"),
        }
    }

    fn any_instant() -> impl Strategy<Value = UnixTime> {
        prop_oneof![
            // The whole range...
            (any::<i64>(), 0..1_000_000_000u32).prop_map(|(s, n)| UnixTime::new(s, n)),
            // ...its ends...
            (0..100_000_000_000i64, 0..1_000_000_000u32)
                .prop_map(|(s, n)| UnixTime::new(i64::MAX - s, n)),
            (0..100_000_000_000i64, 0..1_000_000_000u32)
                .prop_map(|(s, n)| UnixTime::new(i64::MIN + s, n)),
            // ...and the years around 0000 and 9999, where the form of the year changes.
            (-63_000_000_000i64..-61_000_000_000, 0..1_000_000_000u32)
                .prop_map(|(s, n)| UnixTime::new(s, n)),
            (252_000_000_000i64..254_000_000_000, 0..1_000_000_000u32)
                .prop_map(|(s, n)| UnixTime::new(s, n)),
        ]
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

        #[test]
        fn civil_round_trips(days in -106_751_991_167_301i64..=106_751_991_167_300) {
            let (y, m, d) = civil_from_days(days);
            prop_assert_eq!(days_from_civil(y, m, d), days);
        }

        #[cfg(feature = "std")]
        #[test]
        fn system_time_round_trips(ns in -12_219_292_800_000_000_000i128..100_000_000_000_000_000_000i128) {
            let t = UnixTime::from_nanos(ns);
            prop_assert_eq!(UnixTime::from_system_time(t.to_system_time()), t);
        }

        // On Unix, SystemTime holds i64 seconds too: every instant converts both ways.
        #[cfg(all(unix, feature = "std"))]
        #[test]
        fn system_time_round_trips_over_the_whole_range(t in any_instant()) {
            prop_assert_eq!(UnixTime::from_system_time(t.to_system_time()), t);
        }
    }

    #[cfg(all(unix, feature = "std"))]
    #[test]
    fn system_time_ends() {
        for t in [UnixTime::MIN, UnixTime::MAX] {
            assert_eq!(UnixTime::from_system_time(t.to_system_time()), t);
        }
    }
}
