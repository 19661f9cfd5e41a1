//! The [`Clock`] trait and the clocks that are not for tests: [`SystemClock`] (with
//! `std`) and [`FnClock`]. The manual clock for tests is
//! [`ManualClock`](super::ManualClock), beside it.

use super::instant::UnixTime;

/// A source of the current time. Generators ask it for every UUID; tests give them a
/// [`ManualClock`](crate::time::ManualClock) to freeze it, step it back or jump ahead.
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
