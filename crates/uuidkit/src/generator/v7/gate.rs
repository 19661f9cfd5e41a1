//! The clock gate of the process-wide v7 generator ([`super::lock_free`]): the system
//! clock's millisecond, read again only when the CPU's tick counter cannot vouch that the
//! last reading's millisecond is still the current one.

use crate::platform::tsc::TickSource;
use crate::time::{Clock, UnixTime};

/// The last millisecond of v7's 48-bit field (10889-08-02T05:31:50.655Z): readings past it
/// count as it.
pub(crate) const MS_MAX: u64 = (1 << 48) - 1;

/// How close to the end of a millisecond the clock gate stops trusting the tick counter
/// and reads the clock again: room for counters of two cores that differ a little, and
/// for the tick read landing a few nanoseconds after the clock read it precedes.
pub(crate) const GATE_MARGIN_NS: u64 = 20_000;

/// The clock gate: the last system clock reading of this thread, its millisecond, and
/// how many ticks of the CPU's counter may pass before that millisecond can have ended.
///
/// A call first reads the tick counter (a few nanoseconds); while fewer ticks than
/// `span` passed since the reading, the millisecond of the reading is still the
/// current one and the clock is not read (about 25 ns). `span` is the time left in the
/// millisecond less [`GATE_MARGIN_NS`], at the measured tick rate less 1/64. The gate
/// reads the clock again on any doubt: a counter that went back (another core, a
/// migrated VM), a tick rate not measured or refused, a reading within the margin of
/// the millisecond's end, a reading before 1970 or at the end of the 48-bit range, and
/// after `fork` ([`forget`](Self::forget)).
///
/// So the millisecond it returns is the one the system clock showed at a reading taken
/// less than a millisecond earlier, and in which, by the counter, the clock still is:
/// the same millisecond a fresh read would give unless the clock was set in between
/// (then it is at most one millisecond stale, which RFC 9562 §6.1 allows: "altering,
/// fuzzing, or smearing" the timestamp). The timestamp still only ever comes from the
/// system clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MillisGate {
    ms: u64,
    start: u64,
    /// 0: read the clock on the next call.
    span: u64,
}

impl MillisGate {
    pub(crate) const fn new() -> MillisGate {
        MillisGate {
            ms: 0,
            start: 0,
            span: 0,
        }
    }

    /// The current Unix millisecond (at most [`MS_MAX`]), read from `clock` only when
    /// `ticks` cannot vouch that the last reading's millisecond is still current.
    #[inline]
    pub(crate) fn now_ms<C: Clock, T: TickSource>(&mut self, clock: &C, ticks: &T) -> u64 {
        // One comparison covers both "not past the span" and "not before the start":
        // a counter that went back wraps to a huge difference.
        if self.span != 0 && ticks.now().wrapping_sub(self.start) < self.span {
            return self.ms;
        }
        self.read(clock, ticks)
    }

    #[cold]
    #[inline(never)]
    fn read<C: Clock, T: TickSource>(&mut self, clock: &C, ticks: &T) -> u64 {
        let per_ms = ticks.per_ms();
        // The counter first, then the clock: the real time at `start` is then no later
        // than the reading, so the span measured from it ends no later than it should.
        let start = if per_ms.is_some() { ticks.now() } else { 0 };
        let now = clock.now();
        let ms = now.millis_since_epoch().min(MS_MAX);
        self.ms = ms;
        self.start = start;
        self.span = 0;
        if let Some(f) = per_ms
            && now >= UnixTime::EPOCH
            && ms < MS_MAX
        {
            let left = 1_000_000 - u64::from(now.subsec_nanos() % 1_000_000);
            if left > GATE_MARGIN_NS {
                let slow = f - f / 64;
                self.span = ((left - GATE_MARGIN_NS) as u128 * slow as u128 / 1_000_000) as u64;
            }
        }
        ms
    }

    /// Reads the clock on the next call.
    pub(crate) fn forget(&mut self) {
        self.span = 0;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::random::{RngCore, SeedableRng};
    use crate::time::ManualClock;
    use core::cell::Cell;

    /// A tick counter under the test's control: `per_ms` ticks a millisecond, or none.
    pub(crate) struct ManualTicks {
        now: Cell<u64>,
        per_ms: Option<u64>,
    }

    impl ManualTicks {
        pub(crate) fn new(per_ms: Option<u64>) -> ManualTicks {
            ManualTicks {
                now: Cell::new(1_000_000),
                per_ms,
            }
        }
        pub(crate) fn advance(&self, ticks: u64) {
            self.now.set(self.now.get() + ticks);
        }
        fn back(&self, ticks: u64) {
            self.now.set(self.now.get() - ticks);
        }
    }

    impl TickSource for ManualTicks {
        fn now(&self) -> u64 {
            self.now.get()
        }
        fn per_ms(&self) -> Option<u64> {
            self.per_ms
        }
    }

    /// A clock that counts its readings.
    struct Counting<'a>(&'a ManualClock, Cell<u32>);

    impl Clock for Counting<'_> {
        fn now(&self) -> UnixTime {
            self.1.set(self.1.get() + 1);
            self.0.now()
        }
    }

    pub(crate) const T0: u64 = 1_700_000_000_000;
    /// One tick a nanosecond.
    pub(crate) const GHZ: u64 = 1_000_000;

    pub(crate) fn at(ms: u64, sub_ns: u32) -> UnixTime {
        UnixTime::new((ms / 1000) as i64, (ms % 1000) as u32 * 1_000_000 + sub_ns)
    }

    /// The ticks the gate trusts after a reading `into` ns into a millisecond.
    fn trusted(into: u64) -> u64 {
        let slow = GHZ - GHZ / 64;
        (1_000_000 - into - GATE_MARGIN_NS) * slow / 1_000_000
    }

    #[test]
    fn gate_keeps_the_millisecond_only_while_the_ticks_vouch_for_it() {
        let manual = ManualClock::new(at(T0, 200_000));
        let clock = Counting(&manual, Cell::new(0));
        let ticks = ManualTicks::new(Some(GHZ));
        let mut gate = MillisGate::new();
        assert_eq!(gate.now_ms(&clock, &ticks), T0);
        assert_eq!(clock.1.get(), 1);
        // The clock moves on but the ticks say the millisecond cannot have ended: the
        // clock is not read (the manual clock's jump is what shows it).
        manual.set(at(T0 + 5, 0));
        ticks.advance(trusted(200_000) - 1);
        assert_eq!(gate.now_ms(&clock, &ticks), T0);
        assert_eq!(clock.1.get(), 1);
        // One tick more: read.
        ticks.advance(1);
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 5);
        assert_eq!(clock.1.get(), 2);
        // Read at the millisecond's very start: trusted for nearly all of it.
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 5);
        assert_eq!(clock.1.get(), 2);
        // Ticks that went back (another core, a migrated machine): read.
        ticks.back(1);
        manual.set(at(T0 + 6, 0));
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 6);
        assert_eq!(clock.1.get(), 3);
        // After fork (or any doubt): read.
        gate.forget();
        manual.set(at(T0 + 7, 0));
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 7);
        assert_eq!(clock.1.get(), 4);
    }

    #[test]
    fn gate_reads_every_time_without_a_trusted_counter_or_near_the_end() {
        for (per_ms, sub_ns, ms) in [
            (None, 0, T0),
            // Within the margin of the millisecond's end.
            (Some(GHZ), 1_000_000 - GATE_MARGIN_NS as u32, T0),
            // Before 1970, and at the end of the 48-bit range.
            (Some(GHZ), 0, 0),
            (Some(GHZ), 0, MS_MAX),
        ] {
            let manual = if ms == 0 {
                ManualClock::new(UnixTime::new(-5, 0))
            } else {
                ManualClock::new(at(ms, sub_ns))
            };
            let clock = Counting(&manual, Cell::new(0));
            let ticks = ManualTicks::new(per_ms);
            let mut gate = MillisGate::new();
            for i in 1..=5 {
                assert_eq!(gate.now_ms(&clock, &ticks), ms);
                assert_eq!(clock.1.get(), i, "{per_ms:?} {sub_ns} {ms}");
            }
        }
    }

    /// The bound: whenever the gate keeps a millisecond without reading, the real time
    /// (the counter at a true rate anywhere from the measured one down to 1/64 below
    /// it) is still inside that millisecond, at least the margin before its end.
    #[test]
    fn gate_never_keeps_an_ended_millisecond() {
        let mut rng = <rand_chacha::ChaCha8Rng as SeedableRng>::seed_from_u64(9);
        for _ in 0..20_000 {
            let into = rng.next_u64() % 1_000_000;
            let true_per_ms = GHZ - rng.next_u64() % (GHZ / 64 + 1);
            let elapsed = rng.next_u64() % (2 * GHZ);
            let manual = ManualClock::new(at(T0, into as u32));
            let ticks = ManualTicks::new(Some(GHZ));
            let mut gate = MillisGate::new();
            gate.now_ms(&manual, &ticks);
            ticks.advance(elapsed);
            // Where the clock really is by then.
            let real_ns = into + elapsed * 1_000_000 / true_per_ms;
            manual.set(at(T0 + real_ns / 1_000_000, (real_ns % 1_000_000) as u32));
            let got = gate.now_ms(&manual, &ticks);
            assert_eq!(
                got,
                T0 + real_ns / 1_000_000,
                "{into} {elapsed} {true_per_ms}"
            );
        }
    }
}
