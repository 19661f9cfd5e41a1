//! [`UnixTime`]: the instant every timestamp scale converts through, its constructors,
//! arithmetic and (with `std`) the operating system's clock.

use core::time::Duration;
#[cfg(feature = "std")]
use std::time::SystemTime;

/// An instant: seconds since 1970-01-01 00:00:00 UTC (negative before) and nanoseconds.
///
/// # Range
/// Seconds are an `i64`, so an instant lies between [`UnixTime::MIN`]
/// (`-292277022657-01-27T08:29:52Z`) and [`UnixTime::MAX`]
/// (`+292277026596-12-04T15:30:07.999999999Z`). Every constructor and every arithmetic
/// method saturates at those ends instead of wrapping or panicking; the conversions to
/// narrower counts ([`millis_since_epoch`](Self::millis_since_epoch),
/// [`nanos_since_epoch`](Self::nanos_since_epoch)) saturate at their own ends, and the
/// conversions to UUID timestamp fields ([`unix_millis_48`](super::unix_millis_48),
/// [`unix_10ns_60`](super::unix_10ns_60),
/// [`GregorianTimestamp::from_unix`](super::GregorianTimestamp::from_unix)) return
/// [`TimeError::OutOfRange`](super::TimeError::OutOfRange).
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
    pub(super) secs: i64,
    pub(super) nanos: u32,
}

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::testing::any_instant;
    use proptest::prelude::*;

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

    proptest! {
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
