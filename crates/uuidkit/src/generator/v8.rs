//! Time-based version 8 generation, in the layout of RFC 9562 Appendix B.1: 60 bits of
//! Unix 10 ns steps, then a 30-bit counter and 32 random bits in `custom_c`.

use super::leased::BlockSizes;
use super::monotonic::{Monotonic, Step};
use super::timed::{Timed, sealed};
use crate::layout::v8::pack_time_based;
use crate::random::Csprng;
use crate::store::GeneratorKind;
use crate::time::{SystemClock, UnixTime};
use crate::uuid::Uuid;

/// A generator of time-based v8 UUIDs (Appendix B.1 layout).
///
/// # Guarantees
/// The same as [`V7Generator`](super::v7::V7Generator)'s, with a 10 ns tick: each
/// UUID is greater than the one before from this generator; in one tick (or after the
/// clock went back) a 30-bit counter, seeded at random with its top bit clear, counts up;
/// on its overflow the embedded time moves one 10 ns step ahead. Readings before 1970
/// count as 1970, readings past the layout's end (the year 2335) as its last step. In
/// that last step, should the counter overflow (after at least 2^29 UUIDs in it), it is
/// seeded again: UUIDs stay unique with the probability of their random bits, but are no
/// longer ordered.
///
/// ```
/// let mut g = uuidkit::generator::v8::V8Generator::new();
/// let (a, b) = (g.next(), g.next());
/// assert!(a < b && a.version() == uuidkit::Version::V8);
/// ```
pub type V8Generator<C = SystemClock, R = Csprng> = Timed<V8Stamp, C, R>;

/// The time-based v8's stamp: 10 ns steps since 1970, a 30-bit counter and 32 random
/// bits (Appendix B.1). It has no settings; [`V8Generator`] is `Timed<V8Stamp>`.
///
/// ```
/// use uuidkit::generator::{timed::Timed, v8::V8Stamp};
/// let mut g: Timed<V8Stamp> = uuidkit::generator::v8::V8Generator::new();
/// assert_eq!(g.next().version(), uuidkit::Version::V8);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct V8Stamp;

/// v8 blocks: from 10 µs to 16 ms of 10 ns steps with all their counter values, grown
/// while a block lasts less than 32 ms (see the v7 blocks).
const V8_BLOCKS: BlockSizes = BlockSizes {
    min: 1_000 << 30,
    max: 1_600_000 << 30,
    target: 3_200_000 << 30,
};

impl V8Generator {
    /// A generator on the system clock and the default CSPRNG.
    ///
    /// ```
    /// let mut g = uuidkit::generator::v8::V8Generator::new();
    /// assert_eq!(g.next().version(), uuidkit::Version::V8);
    /// ```
    pub const fn new() -> V8Generator {
        V8Generator::with_sources(SystemClock, Csprng)
    }
}

impl Default for V8Generator {
    fn default() -> V8Generator {
        V8Generator::new()
    }
}

impl<C, R> V8Generator<C, R> {
    /// A generator on the given clock and random source.
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, generator::v8::V8Generator};
    /// use uuidkit::{random::Csprng, time::UnixTime};
    /// let clock = ManualClock::new(UnixTime::new(1_700_000_000, 0));
    /// let mut g = V8Generator::with_sources(&clock, Csprng);
    /// assert!(g.next() < g.next());
    /// ```
    pub const fn with_sources(clock: C, rng: R) -> V8Generator<C, R> {
        Timed::from_parts(V8Stamp, Monotonic::new(60, 30, Step::One), clock, rng)
    }
}

impl sealed::Stamp for V8Stamp {
    fn kind(&self) -> GeneratorKind {
        GeneratorKind::V8
    }

    fn blocks(&self) -> BlockSizes {
        V8_BLOCKS
    }

    fn units(&self, now: UnixTime) -> u64 {
        now.nanos_since_epoch() / 10
    }

    fn last_millis(&self, units: u64) -> u64 {
        units / 100_000
    }

    #[inline]
    fn pack_tail(&self, (steps, counter): (u64, u128), tail: u64) -> Uuid {
        pack_time_based(steps, ((counter as u64) << 32) | tail)
    }
}
