//! A clock that only moves when told: for tests that freeze time, step it back or jump
//! ahead, deterministically.

use std::time::Duration;

use portable_atomic::{AtomicI128, Ordering};

use crate::time::{Clock, UnixTime};

/// A clock under the caller's control; share it with a generator by reference or `Arc`.
///
/// Its range is [`UnixTime`]'s whole range, [`UnixTime::MIN`] to [`UnixTime::MAX`]
/// (about 292 billion years either side of 1970). A move past either end stops at that
/// end: the reading saturates, never wraps.
///
/// ```
/// use std::time::Duration;
/// use uuidkit::{time::ManualClock, generator::v7::{V7Generator, V7Method}, random::Csprng};
///
/// let clock = ManualClock::at_millis(1_700_000_000_000);
/// let mut g = V7Generator::with_sources(V7Method::Counter, &clock, Csprng);
/// let a = g.next();
/// clock.step_back(Duration::from_secs(3600));
/// let b = g.next();
/// assert!(b > a, "a clock stepped back never makes a generator go backwards");
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    // Nanoseconds since the epoch, always within UnixTime::MIN..=UnixTime::MAX: an i128
    // holds the whole range (an i64 stops in 1678 and 2262). A single atomic keeps a
    // move from another thread whole.
    nanos: AtomicI128,
}

impl ManualClock {
    /// A clock reading `t` until moved.
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, time::{Clock, UnixTime}};
    /// let t = UnixTime::parse_rfc3339("9999-01-01T00:00:00Z")?;
    /// assert_eq!(ManualClock::new(t).now(), t);
    /// # Ok::<(), uuidkit::time::TimeError>(())
    /// ```
    pub fn new(t: UnixTime) -> ManualClock {
        ManualClock {
            nanos: AtomicI128::new(t.as_nanos()),
        }
    }

    /// A clock reading `ms` Unix milliseconds until moved (every `u64` is in range).
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, time::Clock};
    /// assert_eq!(ManualClock::at_millis(u64::MAX).now().as_millis(), u64::MAX as i128);
    /// ```
    pub fn at_millis(ms: u64) -> ManualClock {
        ManualClock::new(UnixTime::from_millis(ms))
    }

    /// Sets the reading.
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, time::{Clock, UnixTime}};
    /// let clock = ManualClock::at_millis(5);
    /// clock.set(UnixTime::MIN);
    /// assert_eq!(clock.now(), UnixTime::MIN);
    /// ```
    pub fn set(&self, t: UnixTime) {
        self.nanos.store(t.as_nanos(), Ordering::SeqCst);
    }

    /// Moves the reading forward, saturating at [`UnixTime::MAX`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::{time::ManualClock, time::{Clock, UnixTime}};
    /// let clock = ManualClock::at_millis(5);
    /// clock.advance(Duration::from_millis(2));
    /// assert_eq!(clock.now().as_millis(), 7);
    /// clock.advance(Duration::MAX);
    /// assert_eq!(clock.now(), UnixTime::MAX);
    /// ```
    pub fn advance(&self, d: Duration) {
        self.update(|t| t.saturating_add(d));
    }

    /// Moves the reading back, as a clock corrected by NTP or by hand; saturating at
    /// [`UnixTime::MIN`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::{time::ManualClock, time::{Clock, UnixTime}};
    /// let clock = ManualClock::at_millis(5);
    /// clock.step_back(Duration::from_millis(7));
    /// assert_eq!(clock.now().as_millis(), -2);
    /// clock.step_back(Duration::MAX);
    /// assert_eq!(clock.now(), UnixTime::MIN);
    /// ```
    pub fn step_back(&self, d: Duration) {
        self.update(|t| t.saturating_sub(d));
    }

    /// Replaces the reading with `f` of it, atomically with respect to other moves.
    fn update(&self, f: impl Fn(UnixTime) -> UnixTime) {
        // The closure always returns Some, so fetch_update cannot fail.
        let _ = self
            .nanos
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(f(UnixTime::from_nanos(n)).as_nanos())
            });
    }
}

impl Clock for ManualClock {
    /// The reading.
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, time::Clock};
    /// assert_eq!(ManualClock::at_millis(42).now().as_millis(), 42);
    /// ```
    fn now(&self) -> UnixTime {
        UnixTime::from_nanos(self.nanos.load(Ordering::SeqCst))
    }

    /// Simulates the wait: the clock jumps to `t` (if it is not already past it).
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, time::{Clock, UnixTime}};
    /// let clock = ManualClock::at_millis(42);
    /// clock.sleep_until(UnixTime::MAX);
    /// assert_eq!(clock.now(), UnixTime::MAX);
    /// clock.sleep_until(UnixTime::EPOCH);
    /// assert_eq!(clock.now(), UnixTime::MAX);
    /// ```
    fn sleep_until(&self, t: UnixTime) {
        self.nanos.fetch_max(t.as_nanos(), Ordering::SeqCst);
    }

    /// Simulates the wait as [`sleep_until`](Clock::sleep_until) does, unless the clock
    /// was set back below `since`: then it returns at once, as a real clock's wait does.
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, time::{Clock, UnixTime}};
    /// let clock = ManualClock::at_millis(1_000);
    /// clock.sleep_from_until(UnixTime::from_millis(2_000), UnixTime::from_millis(3_000));
    /// assert_eq!(clock.now(), UnixTime::from_millis(1_000));
    /// clock.sleep_from_until(UnixTime::from_millis(1_000), UnixTime::from_millis(3_000));
    /// assert_eq!(clock.now(), UnixTime::from_millis(3_000));
    /// ```
    fn sleep_from_until(&self, since: UnixTime, t: UnixTime) {
        if self.now() >= since {
            self.sleep_until(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> UnixTime {
        UnixTime::parse_rfc3339(text).unwrap()
    }

    const DAY: Duration = Duration::from_secs(86_400);

    // Issue item 5: an i64 of nanoseconds wrapped at 1678 and 2262.
    #[test]
    fn readings_past_2262_do_not_wrap() {
        assert_eq!(
            ManualClock::at_millis(u64::MAX).now(),
            UnixTime::from_millis(u64::MAX)
        );
        let clock = ManualClock::new(at("2262-01-01T00:00:00Z"));
        clock.advance(DAY * 365);
        assert_eq!(clock.now(), at("2263-01-01T00:00:00Z"));
        assert_eq!(
            ManualClock::new(at("9999-01-01T00:00:00Z")).now(),
            at("9999-01-01T00:00:00Z")
        );
        let clock = ManualClock::new(at("1678-01-01T00:00:00Z"));
        clock.step_back(DAY * 365);
        assert_eq!(clock.now(), at("1677-01-01T00:00:00Z"));
        clock.set(at("+010889-08-02T05:31:50.655Z"));
        assert_eq!(clock.now().as_millis(), (1 << 48) - 1);
        clock.sleep_until(at("+010889-08-02T05:31:50.656Z"));
        assert_eq!(clock.now().as_millis(), 1 << 48);
    }

    #[test]
    fn moves_saturate_at_the_ends() {
        let clock = ManualClock::new(UnixTime::MAX);
        clock.advance(Duration::from_nanos(1));
        assert_eq!(clock.now(), UnixTime::MAX);
        clock.advance(Duration::MAX);
        assert_eq!(clock.now(), UnixTime::MAX);
        clock.step_back(Duration::from_nanos(1));
        assert_eq!(
            clock.now(),
            UnixTime::new(i64::MAX, 999_999_998),
            "saturation does not stick: the clock moves back from the end"
        );
        // Duration::MAX (2^64 s less a nanosecond) is just over the whole range.
        clock.step_back(Duration::MAX);
        assert_eq!(clock.now(), UnixTime::MIN);
        clock.step_back(Duration::from_nanos(1));
        assert_eq!(clock.now(), UnixTime::MIN);
        clock.sleep_until(UnixTime::MIN);
        assert_eq!(clock.now(), UnixTime::MIN);
        clock.advance(Duration::from_nanos(1));
        assert_eq!(clock.now().as_nanos(), UnixTime::MIN.as_nanos() + 1);
        clock.sleep_until(UnixTime::MAX);
        assert_eq!(clock.now(), UnixTime::MAX);
        assert_eq!(ManualClock::default().now(), UnixTime::EPOCH);
    }
}
