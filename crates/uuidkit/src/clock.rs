//! A clock that only moves when told: for tests that freeze time, step it back or jump
//! ahead, deterministically.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use crate::time::{Clock, UnixTime};

/// A clock under the caller's control; share it with a generator by reference or `Arc`.
///
/// Its range is that of `i64` nanoseconds since 1970 (years 1678 to 2262).
///
/// ```
/// use std::time::Duration;
/// use uuidkit::{clock::ManualClock, generator::unix::{UnixGenerator, V7Method}, random::Csprng};
///
/// let clock = ManualClock::at_millis(1_700_000_000_000);
/// let mut g = UnixGenerator::with_sources(V7Method::Counter, &clock, Csprng);
/// let a = g.next();
/// clock.step_back(Duration::from_secs(3600));
/// let b = g.next();
/// assert!(b > a, "a clock stepped back never makes a generator go backwards");
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    nanos: AtomicI64,
}

impl ManualClock {
    /// A clock reading `t` until moved.
    pub fn new(t: UnixTime) -> ManualClock {
        ManualClock {
            nanos: AtomicI64::new(t.as_nanos() as i64),
        }
    }

    /// A clock reading `ms` Unix milliseconds until moved.
    pub fn at_millis(ms: u64) -> ManualClock {
        ManualClock::new(UnixTime::from_millis(ms))
    }

    /// Sets the reading.
    pub fn set(&self, t: UnixTime) {
        self.nanos.store(t.as_nanos() as i64, Ordering::SeqCst);
    }

    /// Moves the reading forward.
    pub fn advance(&self, d: Duration) {
        self.nanos.fetch_add(d.as_nanos() as i64, Ordering::SeqCst);
    }

    /// Moves the reading back, as a clock corrected by NTP or by hand.
    pub fn step_back(&self, d: Duration) {
        self.nanos.fetch_sub(d.as_nanos() as i64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> UnixTime {
        UnixTime::from_nanos(self.nanos.load(Ordering::SeqCst) as i128)
    }

    /// Simulates the wait: the clock jumps to `t` (if it is not already past it).
    fn sleep_until(&self, t: UnixTime) {
        self.nanos.fetch_max(t.as_nanos() as i64, Ordering::SeqCst);
    }
}
