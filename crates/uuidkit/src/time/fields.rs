//! The timestamp fields of UUIDs and the conversions into them: [`GregorianTimestamp`]
//! (v1, v2, v6), 48-bit Unix milliseconds (v7) and 60-bit Unix 10 ns steps (v8).

use super::error::TimeError;
use super::instant::UnixTime;

/// 100 ns intervals between 1582-10-15 and 1970-01-01 (RFC 9562 Appendix A).
///
/// ```
/// use uuidkit::time::{GregorianTimestamp, UnixTime, GREGORIAN_UNIX_OFFSET};
/// assert_eq!(GregorianTimestamp::from_unix(UnixTime::EPOCH)?.ticks(), GREGORIAN_UNIX_OFFSET);
/// # Ok::<(), uuidkit::time::TimeError>(())
/// ```
pub const GREGORIAN_UNIX_OFFSET: u64 = 122_192_928_000_000_000;

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
    ///
    /// # Errors
    ///
    /// [`TimeError::OutOfRange`] when `t` is before 1582-10-15 or past the 60-bit field
    /// (5236-03-31).
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
///
/// # Errors
///
/// [`TimeError::OutOfRange`] when `t` is before 1970 or past 48 bits of milliseconds.
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
///
/// # Errors
///
/// [`TimeError::OutOfRange`] when `t` is before 1970 or past 60 bits of 10 ns steps.
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

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

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
}
