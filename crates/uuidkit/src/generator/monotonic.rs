//! The state machine v7 and the time-based v8 share: a timestamp and a counter below it,
//! read together as one number that only grows.
//!
//! On a clock reading later than the stored timestamp, the timestamp takes the reading and
//! the counter is seeded at random with its top bit clear (RFC 9562 §6.2's rollover
//! guard: at least half the counter's range is left to count in). Otherwise — the same
//! tick, or a clock that went back — the timestamp stays and the counter grows. A counter
//! that would overflow moves the timestamp one unit ahead and is seeded again; it never
//! wraps. So each output is greater than the one before, whatever the clock does.

use rand_core::RngCore;

use super::leased::{Admit, StoreLink};
use crate::store::GeneratorKind;

/// How the counter grows between two outputs in the same tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// By one (RFC 9562 §6.2 Method 1).
    One,
    /// By a random amount from 1 to 2^32 (Method 2, "monotonic random").
    Random,
}

#[derive(Clone, Debug)]
pub(crate) struct Monotonic {
    timestamp: u64,
    counter: u128,
    /// A store block's last (timestamp, counter), when one is leased: outputs only grow,
    /// so one at or below it is in the block. The fast path compares with this, without
    /// converting outputs to positions. Cleared in a child after `fork`.
    block_last: Option<(u64, u128)>,
    started: bool,
    timestamp_bits: u32,
    timestamp_max: u64,
    counter_bits: u32,
    step: Step,
    fork_generation: u64,
    /// Seeds are 0 (the 2021 draft's sequences), not random.
    zero_seed: bool,
    /// The last output stepped back (the range's last tick overflowed): the next
    /// admission leases whatever the block says.
    stepped_back: bool,
}

pub(crate) fn random_u128(rng: &mut impl RngCore) -> u128 {
    ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128
}

impl Monotonic {
    pub(crate) const fn new(timestamp_bits: u32, counter_bits: u32, step: Step) -> Monotonic {
        Monotonic {
            timestamp: 0,
            counter: 0,
            block_last: None,
            started: false,
            timestamp_bits,
            timestamp_max: (1u64 << timestamp_bits) - 1,
            counter_bits,
            step,
            fork_generation: 0,
            zero_seed: false,
            stepped_back: false,
        }
    }

    /// The counter starts at 0 on each new timestamp instead of at a random value (the
    /// 2021 draft's rule for its v7 and v8 sequences). After `fork` it then goes on from
    /// where it was: the child's random bits keep it apart from the parent.
    pub(crate) const fn zero_seeded(mut self) -> Monotonic {
        self.zero_seed = true;
        self
    }

    fn seed(&self, rng: &mut impl RngCore) -> u128 {
        if self.zero_seed {
            return 0;
        }
        random_u128(rng) & ((1u128 << (self.counter_bits - 1)) - 1)
    }

    /// The next (timestamp, counter) for a clock reading of `now` (already in the
    /// timestamp's units; readings above the maximum count as the maximum).
    #[inline]
    pub(crate) fn next(&mut self, now: u64, rng: &mut impl RngCore) -> (u64, u128) {
        let fork = crate::platform::fork_generation();
        if fork != self.fork_generation {
            // In a child after `fork` (or before the first output): the parent goes on
            // from the same counter, so the child seeds a fresh one.
            self.fork_generation = fork;
            // The parent's block is the parent's.
            self.block_last = None;
            if self.started && !self.zero_seed {
                self.counter = self.seed(rng);
            }
        }
        let now = now.min(self.timestamp_max);
        if !self.started || now > self.timestamp {
            self.started = true;
            self.timestamp = now;
            self.counter = self.seed(rng);
            return (self.timestamp, self.counter);
        }
        let step = match self.step {
            Step::One => 1,
            Step::Random => (rng.next_u32() as u128) + 1,
        };
        let next = self.counter + step;
        if next >> self.counter_bits == 0 {
            self.counter = next;
        } else {
            // Overflow: borrow the next tick. At the very end of the timestamp's range
            // (the year 10889 for v7) there is no next tick; the counter is then seeded
            // again, the one case where order cannot be kept (documented on each
            // generator). The addition saturates, so nothing wraps to 1970.
            if self.timestamp == self.timestamp_max {
                // A step back, below the leased block's last: not "in the block" (outputs
                // there only grow), so a store hears of it (and says the range is used
                // up) rather than the step back going by in silence.
                self.block_last = None;
                self.stepped_back = true;
            }
            self.timestamp = (self.timestamp + 1).min(self.timestamp_max);
            self.counter = self.seed(rng);
        }
        (self.timestamp, self.counter)
    }

    /// Fresh random bytes a step takes: 4 for Method 2's increments, none for one.
    pub(crate) const fn step_bytes(&self) -> usize {
        match self.step {
            Step::One => 0,
            Step::Random => 4,
        }
    }

    /// The run that may follow the last output by steps alone, without [`next`]: its
    /// timestamp, the last counter, and the highest counter a step may reach. That is
    /// below the counter's overflow and, when `leased` (a store link in use), inside the
    /// leased block: a timestamp below the block's last is covered for every counter, the
    /// block's last timestamp up to its last counter. `None` when no step may be taken so
    /// (before the first output, or no block covers the last one).
    ///
    /// Only for a caller that called [`next`] since the last `fork` (in this thread:
    /// the check there holds for what follows in the same call), on the same reading,
    /// which steps as [`next`] would (the timestamp stays, the counter grows by the step)
    /// and gives the last counter back through [`set_counter`](Self::set_counter).
    ///
    /// [`next`]: Self::next
    #[inline]
    pub(crate) fn run(&self, leased: bool) -> Option<(u64, u128, u128)> {
        if !self.started {
            return None;
        }
        let max = (1u128 << self.counter_bits) - 1;
        let limit = match self.block_last {
            _ if !leased => max,
            Some((t, _)) if self.timestamp < t => max,
            Some((t, c)) if self.timestamp == t => c.min(max),
            _ => return None,
        };
        Some((self.timestamp, self.counter, limit))
    }

    /// The counter after a run's steps (see [`run`](Self::run)): at most its limit.
    #[inline]
    pub(crate) fn set_counter(&mut self, counter: u128) {
        self.counter = counter;
    }

    /// Starts the machine at `timestamp` (a fleet holder's floor), as though it had
    /// handed out a UUID there: a clock reading below it then counts as a clock gone back
    /// (the timestamp stays and the counter grows), so nothing comes out below it, at no
    /// cost per UUID.
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))] // the fleet's
    pub(crate) fn prime(&mut self, timestamp: u64, rng: &mut impl RngCore) {
        self.fork_generation = crate::platform::fork_generation();
        self.started = true;
        self.timestamp = timestamp.min(self.timestamp_max);
        self.counter = self.seed(rng);
    }

    /// The last timestamp handed out.
    pub(crate) fn timestamp(&self) -> u64 {
        self.timestamp
    }

    /// Counter bits below the store's 90-bit position (the low bits of a 74-bit counter
    /// are not part of it: random, they need no lease).
    const fn dropped_bits(&self) -> u32 {
        (self.timestamp_bits + self.counter_bits).saturating_sub(POSITION_BITS)
    }

    /// The store position of (timestamp, counter): the first 90 payload bits of the
    /// UUID, the same for every v7 method and for v8, so that generators of one kind
    /// share one space of positions.
    pub(crate) const fn position(&self, timestamp: u64, counter: u128) -> u128 {
        let drop = self.dropped_bits();
        ((timestamp as u128) << (self.counter_bits - drop)) | (counter >> drop)
    }

    /// Goes on from `position` (a leased block's start, at or above the last output).
    /// Counter bits below the position are drawn at random, top bit clear, as a seed is.
    fn resume_at(&mut self, position: u128, rng: &mut impl RngCore) -> (u64, u128) {
        let drop = self.dropped_bits();
        let low = if drop == 0 {
            0
        } else {
            random_u128(rng) & ((1u128 << (drop - 1)) - 1)
        };
        let (timestamp, counter) = self.key(position, low);
        self.timestamp = timestamp.min(self.timestamp_max);
        self.counter = counter;
        self.started = true;
        (self.timestamp, self.counter)
    }

    /// Admits an output of [`next`](Self::next) (for the clock reading `now`) through a
    /// store link: unchanged when inside this process's block, else moved to the start of
    /// a new block.
    #[inline]
    pub(crate) fn admit(
        &mut self,
        link: &mut StoreLink,
        kind: GeneratorKind,
        out: (u64, u128),
        now: u64,
        rng: &mut impl RngCore,
    ) -> (u64, u128) {
        if let Some(last) = self.block_last
            && out <= last
        {
            return out;
        }
        self.lease(link, kind, out, now, rng)
    }

    /// Whether `out` lies in the leased block (the store path's fast test).
    #[inline(always)]
    pub(crate) fn in_block(&self, out: (u64, u128)) -> bool {
        matches!(self.block_last, Some(last) if out <= last)
    }

    /// Goes on from the admitted `out` with a counter `counter_bits` wide (v7 Method 2
    /// when a lease brings a machine ID, kept below its random value): the same position,
    /// its bits below drawn afresh, and the block's last key in the new width.
    pub(crate) fn rewidth(
        &mut self,
        counter_bits: u32,
        out: (u64, u128),
        link: &StoreLink,
        rng: &mut impl RngCore,
    ) -> (u64, u128) {
        if counter_bits == self.counter_bits {
            return out;
        }
        let p = self.position(out.0, out.1);
        self.counter_bits = counter_bits;
        let resumed = self.resume_at(p, rng);
        self.block_last = link.block().map(|(_, end)| self.last_key(end));
        resumed
    }

    /// The (timestamp, counter) of `position`, with `low` in the counter bits below it:
    /// the inverse of [`position`](Self::position).
    fn key(&self, position: u128, low: u128) -> (u64, u128) {
        let drop = self.dropped_bits();
        let shift = self.counter_bits - drop;
        (
            (position >> shift) as u64,
            (position & ((1u128 << shift) - 1)) << drop | low,
        )
    }

    /// The last (timestamp, counter) of position `end`.
    fn last_key(&self, end: u128) -> (u64, u128) {
        self.key(end, (1u128 << self.dropped_bits()) - 1)
    }

    #[cold]
    #[inline(never)]
    fn lease(
        &mut self,
        link: &mut StoreLink,
        kind: GeneratorKind,
        out: (u64, u128),
        now: u64,
        rng: &mut impl RngCore,
    ) -> (u64, u128) {
        let p = self.position(out.0, out.1);
        let clock = self.position(now.min(self.timestamp_max), 0);
        if std::mem::take(&mut self.stepped_back) {
            // Inside the link's block by position, but below what this generator made:
            // only a new lease (starting above everything) may admit it.
            link.drop_block();
        }
        let admitted = match link.admit(kind, p, clock, None, None) {
            Admit::Use(q, _) if q != p => self.resume_at(q, rng),
            Admit::Exhausted => {
                // Said once; from here in memory, with no lease per UUID.
                link.used_up(kind);
                out
            }
            // In the block; or the store is gone (the generator goes on in memory from
            // here).
            _ => out,
        };
        self.block_last = link.block().map(|(_, end)| self.last_key(end));
        admitted
    }
}

/// Bits of a position: 48-bit milliseconds and 42 counter bits for v7, 60-bit 10 ns steps
/// and 30 counter bits for v8.
const POSITION_BITS: u32 = 90;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::SeedableRng;

    fn key(bits: u32, (t, c): (u64, u128)) -> u128 {
        ((t as u128) << bits) | c
    }

    #[test]
    fn overflow_moves_to_the_next_tick_and_never_wraps() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut m = Monotonic::new(48, 4, Step::One);
        let mut last = key(4, m.next(100, &mut rng));
        let mut ticks_used = std::collections::BTreeSet::new();
        for _ in 0..1000 {
            let out = m.next(100, &mut rng);
            ticks_used.insert(out.0);
            assert!(out.1 < 16);
            let k = key(4, out);
            assert!(k > last);
            last = k;
        }
        assert!(ticks_used.len() > 60, "overflow borrowed later ticks");
    }

    #[test]
    fn the_last_tick_of_the_range_never_wraps() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut m = Monotonic::new(48, 4, Step::One);
        let max = (1 << 48) - 1;
        for now in [max, max + 1, u64::MAX] {
            for _ in 0..100 {
                let (t, c) = m.next(now, &mut rng);
                assert_eq!(t, max, "stays on the last tick");
                assert!(c < 16);
            }
        }
    }

    #[test]
    fn seeds_keep_the_top_bit_clear() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut m = Monotonic::new(48, 42, Step::One);
        for now in 1..10_000 {
            let (_, c) = m.next(now, &mut rng);
            assert!(c < 1 << 41);
        }
    }

    proptest! {
        #[test]
        fn strictly_increasing_for_any_clock(
            readings in proptest::collection::vec(0u64..1000, 1..500),
            bits in 2u32..80,
            random_step in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let step = if random_step { Step::Random } else { Step::One };
            let bits = bits.min(74);
            let mut m = Monotonic::new(60, bits, step);
            let mut last = None;
            for now in readings {
                let k = key(bits, m.next(now, &mut rng));
                if let Some(l) = last {
                    prop_assert!(k > l);
                }
                last = Some(k);
            }
        }
    }
}
