//! The process-wide v7 generator behind [`crate::v7`] and [`crate::v7_fill`]: one 64-bit
//! word advanced by `fetch_add`, shared by every thread without a lock (the [`super`]
//! module documents its design and bound).

use core::mem::ManuallyDrop;
use core::sync::atomic::AtomicU64;

use aes::Aes128Enc;
use aes::cipher::{BlockEncrypt, KeyInit};
use rand_core::RngCore;

use super::gate::{MS_MAX, MillisGate};
use crate::layout::v7::pack;
use crate::platform::tsc::TickSource;
use crate::random::Csprng;
use crate::time::Clock;
use crate::uuid::Uuid;

/// Bits of the counter's per-millisecond part in the shared word, and of the
/// millisecond since the process's base.
const N_BITS: u32 = 23;
const REL_BITS: u32 = 40;
const N_MASK: u64 = (1 << N_BITS) - 1;
/// Width of the 42-bit counter's random seed: top bit clear (RFC 9562 §6.2's rollover
/// guard), so seed + n never leaves 42 bits.
const SEED_MASK: u64 = (1 << (COUNTER_BITS - 1)) - 1;
/// Bits of the fork generation kept beside a key, as in the wide state.
const FORK_MASK: u64 = (1 << FORK_BITS) - 1;

/// The process-wide v7 generator: Method 1 with a 42-bit counter, like
/// [`V7Generator`], shared by every thread through one 64-bit word advanced by
/// `fetch_add`.
///
/// # The word
/// `ms − base` (40 bits) and `n` (23 bits), below a guard bit: the position of the last
/// UUID handed out. `base` is the millisecond of the process's first use. Taking the
/// next position is one `fetch_add(1)` (a batch: `fetch_add(k)`), which never retries,
/// and the order of those additions is the order of the UUIDs. An `n` that overflows
/// carries into the millisecond, as RFC 9562 §6.2 says a counter overflow should; at
/// 2^23 UUIDs a millisecond that takes more than 8 billion a second. When the word is
/// behind the clock (a new millisecond), a compare-and-swap lifts it to the clock's
/// millisecond; it is never lowered, so a clock set back leaves the embedded time
/// standing until the clock catches up.
///
/// # The counter
/// UUID counter = seed(ms) + n, where seed(ms) is 41 bits of AES-128 of the millisecond
/// under a key drawn from the CSPRNG for this process: a fresh unpredictable value each
/// millisecond, as a seed drawn at random is, and the same for every thread without
/// sharing anything but the key. Each thread keeps the expanded key and the last seed.
/// 32 bits of every UUID come fresh from the thread's CSPRNG.
///
/// # fork
/// A child takes a new key (so new seeds) and first moves the word one millisecond on:
/// its UUIDs are greater than every UUID of the process before the fork, and its
/// counters are not its parent's. The key carries the fork generation it belongs to; a
/// thread whose generation is not the key's installs a new one with compare-and-swap
/// (one wins, the others adopt it), after moving the word on.
///
/// # The end of the window
/// A word at the guard (40 bits of milliseconds: 34 years after the base), or a
/// millisecond past [`MS_MAX`], hands over to the 128-bit state [`SharedV7`], lifted
/// above everything the word handed out; from then on every thread goes there.
pub(crate) struct ProcessV7 {
    word: AtomicU64,
    /// The base millisecond + 1; 0 until first use.
    base: AtomicU64,
    /// key (90 bits) | fork generation (38 bits); 0: none yet.
    key: portable_atomic::AtomicU128,
    wide: SharedV7,
}

/// What one thread keeps of the process-wide v7 generator: the clock gate, and what it
/// needs of the shared state without touching it (base, the window's end, the key).
pub(crate) struct V7Thread {
    /// The fork generation this was set up for; `u64::MAX` before the first use.
    fork_generation: u64,
    base: u64,
    /// Word positions at or above this are past the window.
    limit: u64,
    gate: MillisGate,
    // `ManuallyDrop`: the expanded key is plain arrays with nothing to free, and without
    // drop glue the thread-local needs no destructor registered (one check less a call).
    prf: Option<ManuallyDrop<Aes128Enc>>,
    seed_ms: u64,
    seed: u64,
    /// Random tails for single calls, drawn from the thread's CSPRNG [`TAIL_BYTES`] at a
    /// time (one visit to it instead of one per UUID); dropped after `fork`.
    tails: [u8; TAIL_BYTES],
    tail_pos: usize,
}

/// Bytes of random tails a thread draws at once for single `v7()` calls.
const TAIL_BYTES: usize = 256;

impl V7Thread {
    pub(crate) const fn new() -> V7Thread {
        V7Thread {
            fork_generation: u64::MAX,
            base: 0,
            limit: 0,
            gate: MillisGate::new(),
            prf: None,
            seed_ms: u64::MAX,
            seed: 0,
            tails: [0; TAIL_BYTES],
            tail_pos: TAIL_BYTES,
        }
    }

    /// 32 fresh random bits from the thread's CSPRNG.
    #[inline]
    fn tail(&mut self) -> u32 {
        if self.tail_pos > TAIL_BYTES - 4 {
            self.draw_tails();
        }
        let p = self.tail_pos.min(TAIL_BYTES - 4);
        self.tail_pos = p + 4;
        u32::from_ne_bytes([
            self.tails[p],
            self.tails[p + 1],
            self.tails[p + 2],
            self.tails[p + 3],
        ])
    }

    #[cold]
    #[inline(never)]
    fn draw_tails(&mut self) {
        crate::random::with_thread_rng(|r| r.fill(&mut self.tails));
        self.tail_pos = 0;
    }

    /// seed(ms): the low 41 bits of AES-128 of `ms` under the process's key.
    #[inline]
    fn seed(&mut self, ms: u64) -> u64 {
        if ms != self.seed_ms {
            self.seed = self.compute_seed(ms);
            self.seed_ms = ms;
        }
        self.seed
    }

    #[cold]
    fn compute_seed(&self, ms: u64) -> u64 {
        let prf = self.prf.as_ref().expect("set up before the first position");
        let mut block = aes::Block::from(u128::from(ms).to_le_bytes());
        prf.encrypt_block(&mut block);
        let mut low = [0u8; 8];
        low.copy_from_slice(&block[..8]);
        u64::from_le_bytes(low) & SEED_MASK
    }
}

impl ProcessV7 {
    pub(crate) const fn new() -> ProcessV7 {
        ProcessV7 {
            word: AtomicU64::new(0),
            base: AtomicU64::new(0),
            key: portable_atomic::AtomicU128::new(0),
            wide: SharedV7::new(),
        }
    }

    /// The next UUID, for a thread `th` on `clock` and `ticks`, in fork generation `fork`.
    #[inline]
    pub(crate) fn next_with<C: Clock, T: TickSource>(
        &self,
        th: &mut V7Thread,
        clock: &C,
        ticks: &T,
        fork: u64,
    ) -> Uuid {
        if th.fork_generation != fork {
            self.set_up(th, clock, fork);
        }
        let now = th.gate.now_ms(clock, ticks);
        match self.reserve(th, now, 1) {
            Some(p) => {
                let tail = th.tail();
                self.make(th, p, tail)
            }
            None => self.wide_next(th, now, fork),
        }
    }

    /// Fills `out` with the next UUIDs: per chunk of [`FILL_CHUNK`], one gate check,
    /// one `fetch_add` and one visit to the thread's random stream.
    pub(crate) fn fill_with<C: Clock, T: TickSource>(
        &self,
        th: &mut V7Thread,
        clock: &C,
        ticks: &T,
        fork: u64,
        out: &mut [Uuid],
    ) {
        if th.fork_generation != fork {
            self.set_up(th, clock, fork);
        }
        for chunk in out.chunks_mut(FILL_CHUNK) {
            let now = th.gate.now_ms(clock, ticks);
            match self.reserve(th, now, chunk.len() as u64) {
                Some(first) => crate::random::with_thread_rng(|r| {
                    for (p, u) in (first..).zip(chunk.iter_mut()) {
                        *u = self.make(th, p, u32::from_ne_bytes(r.bytes::<4>()));
                    }
                }),
                None => {
                    for u in chunk {
                        *u = self.wide_next(th, now, fork);
                    }
                }
            }
        }
    }

    /// The first of `k` consecutive positions for a clock at `now_ms`, or `None` past
    /// the window (the caller goes to the wide state).
    #[inline]
    fn reserve(&self, th: &V7Thread, now_ms: u64, k: u64) -> Option<u64> {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let rel = now_ms.saturating_sub(th.base);
        if rel >= th.limit >> N_BITS {
            return None;
        }
        let floor = rel << N_BITS;
        let old = self.word.fetch_add(k, AcqRel);
        let first = if old + 1 >= floor {
            old + 1
        } else {
            // The word is behind the clock: lift it. The positions just added are below
            // `floor` and below the new word, so nobody hands them out.
            let mut cur = self.word.load(Acquire);
            loop {
                let first = (cur + 1).max(floor);
                match self
                    .word
                    .compare_exchange_weak(cur, first + k - 1, AcqRel, Acquire)
                {
                    Ok(_) => break first,
                    Err(actual) => cur = actual,
                }
            }
        };
        (first + k - 1 < th.limit).then_some(first)
    }

    /// The UUID at word position `p`.
    #[inline]
    fn make(&self, th: &mut V7Thread, p: u64, tail: u32) -> Uuid {
        let ms = th.base + (p >> N_BITS);
        let counter = th.seed(ms) + (p & N_MASK);
        pack(
            ms,
            (counter >> 30) as u16,
            ((counter & ((1 << 30) - 1)) << 32) | u64::from(tail),
        )
    }

    /// Past the window: the 128-bit state, lifted above every position of the word.
    #[cold]
    #[inline(never)]
    fn wide_next(&self, th: &V7Thread, now_ms: u64, fork: u64) -> Uuid {
        // Close the window first, for good: a later call whose clock reads inside it
        // (set back) must not take a position below what the wide state hands out. A
        // call still taking a word position now is concurrent with this one, so either
        // order is the order of the calls.
        self.word
            .fetch_max(th.limit, core::sync::atomic::Ordering::AcqRel);
        let last_ms = (th.base + (th.limit >> N_BITS) - 1).min(MS_MAX);
        self.wide.raise(last_ms, fork);
        let [r1, r2] = [Csprng.next_u64(), Csprng.next_u64()];
        self.wide.next(now_ms, fork, r1, r2)
    }

    /// First use in this thread, or in a new fork generation: the base, the window and
    /// the key of this process (creating them where this is the first use at all).
    #[cold]
    #[inline(never)]
    fn set_up<C: Clock>(&self, th: &mut V7Thread, clock: &C, fork: u64) {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        th.gate.forget();
        let mut base = self.base.load(Acquire);
        if base == 0 {
            let now = clock.now().millis_since_epoch().min(MS_MAX);
            base = match self.base.compare_exchange(0, now + 1, AcqRel, Acquire) {
                Ok(_) => now + 1,
                Err(winner) => winner,
            };
        }
        th.base = base - 1;
        let window = (1u64 << REL_BITS).min(MS_MAX - th.base + 1);
        th.limit = window << N_BITS;
        let tag = fork & FORK_MASK;
        let key = loop {
            let rec = self.key.load(Acquire);
            if rec != 0 && (rec as u64 & FORK_MASK) == tag {
                break rec;
            }
            if rec != 0 {
                // A parent's key: this is a child after fork. Move past everything the
                // process handed out before, then take a key of its own.
                self.skip_millisecond();
            }
            let fresh = loop {
                let r = u128::from_ne_bytes(crate::random::bytes16()) << FORK_BITS;
                if r != 0 {
                    break r | u128::from(tag);
                }
            };
            if self
                .key
                .compare_exchange(rec, fresh, AcqRel, Acquire)
                .is_ok()
            {
                break fresh;
            }
        };
        th.prf = Some(ManuallyDrop::new(Aes128Enc::new(&key.to_le_bytes().into())));
        th.seed_ms = u64::MAX;
        // Tails drawn before a fork are the parent's too.
        th.tail_pos = TAIL_BYTES;
        th.fork_generation = fork;
    }

    /// Moves the word to the start of its next millisecond.
    fn skip_millisecond(&self) {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let _ = self
            .word
            .fetch_update(AcqRel, Acquire, |w| Some(((w >> N_BITS) + 1) << N_BITS));
    }
}

/// UUIDs per gate check and `fetch_add` in [`ProcessV7::fill_with`]: a chunk takes about
/// 2 µs, so its timestamps are as fresh as single calls', and the word moves by at most
/// this much at once.
const FILL_CHUNK: usize = 1024;

/// The 128-bit state the process-wide v7 generator moves to past the end of its 64-bit
/// word's window: Method 1 with the same 42-bit counter, millisecond, counter and fork
/// generation in one atomic advanced by compare-and-swap, whose order is the order of
/// the UUIDs.
pub(crate) struct SharedV7 {
    // ms (48) | counter (42) | fork generation (38)
    state: portable_atomic::AtomicU128,
}

const COUNTER_BITS: u32 = 42;
const FORK_BITS: u32 = 38;
const COUNTER_MAX: u64 = (1 << COUNTER_BITS) - 1;

impl SharedV7 {
    pub(crate) const fn new() -> SharedV7 {
        SharedV7 {
            state: portable_atomic::AtomicU128::new(0),
        }
    }

    const fn encode(ms: u64, counter: u64, fork: u128) -> u128 {
        (ms as u128) << (COUNTER_BITS + FORK_BITS) | (counter as u128) << FORK_BITS | fork
    }

    /// Makes the state at least (`ms`, last counter value), so that the next UUID is in a
    /// later millisecond than `ms`.
    fn raise(&self, ms: u64, fork: u64) {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let floor = SharedV7::encode(ms, COUNTER_MAX, u128::from(fork & FORK_MASK));
        let _ = self
            .state
            .fetch_update(AcqRel, Acquire, |cur| (cur < floor).then_some(floor));
    }

    /// The next UUID for a clock at `now` ms, with random words `r1` (seed) and `r2`
    /// (tail).
    fn next(&self, now: u64, fork: u64, r1: u64, r2: u64) -> Uuid {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let now = now.min(MS_MAX);
        let seed = r1 & SEED_MASK;
        let fork = u128::from(fork & FORK_MASK);
        let mut cur = self.state.load(Acquire);
        let (ms, counter) = loop {
            let ms = (cur >> (COUNTER_BITS + FORK_BITS)) as u64;
            let counter = (cur >> FORK_BITS) as u64 & COUNTER_MAX;
            let (ms, counter) = if cur & u128::from(FORK_MASK) != fork && cur != 0 {
                // The first UUID in a child after fork: a millisecond on, new seed.
                ((ms + 1).max(now).min(MS_MAX), seed)
            } else if now > ms {
                (now, seed)
            } else if counter < COUNTER_MAX {
                (ms, counter + 1)
            } else {
                // Overflow: the next millisecond; at the range's end, reseed (documented).
                ((ms + 1).min(MS_MAX), seed)
            };
            let next = SharedV7::encode(ms, counter, fork);
            match self.state.compare_exchange_weak(cur, next, AcqRel, Acquire) {
                Ok(_) => break (ms, counter),
                Err(actual) => cur = actual,
            }
        };
        pack(
            ms,
            (counter >> 30) as u16,
            ((counter & ((1 << 30) - 1)) << 32) | (r2 & 0xffff_ffff),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::gate::tests::{GHZ, ManualTicks, T0, at};
    use super::*;
    use crate::random::SeedableRng;
    use crate::time::ManualClock;
    use crate::time::UnixTime;
    use std::time::Duration;

    trait Millis {
        fn unix_millis(&self) -> Option<u64>;
    }

    impl Millis for Uuid {
        fn unix_millis(&self) -> Option<u64> {
            crate::layout::v7::decode(self).ok().map(|f| f.unix_ts_ms)
        }
    }

    fn counter(u: &Uuid) -> u64 {
        let f = crate::layout::v7::decode(u).unwrap();
        ((f.rand_a as u64) << 30) | (f.rand_b >> 32)
    }

    #[test]
    fn process_v7_increases_through_any_clock_and_batch() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(Some(GHZ));
        let mut th = V7Thread::new();
        let mut last = Uuid::NIL;
        let mut batch = vec![Uuid::NIL; 3000];
        let mut rng = <rand_chacha::ChaCha8Rng as SeedableRng>::seed_from_u64(4);
        for step in 0..3000 {
            match rng.next_u32() % 6 {
                0 => manual.advance(Duration::from_micros(rng.next_u64() % 3000)),
                1 => manual.step_back(Duration::from_millis(rng.next_u64() % 50)),
                2 => ticks.advance(rng.next_u64() % (2 * GHZ)),
                _ => {}
            }
            let out = if step % 7 == 0 {
                let n = (rng.next_u64() % 3000) as usize;
                g.fill_with(&mut th, &manual, &ticks, 0, &mut batch[..n]);
                &batch[..n]
            } else {
                batch[0] = g.next_with(&mut th, &manual, &ticks, 0);
                &batch[..1]
            };
            for u in out {
                assert!(*u > last, "step {step}: {u} after {last}");
                assert_eq!(u.version(), crate::uuid::Version::V7);
                assert!(counter(u) < 1 << COUNTER_BITS);
                last = *u;
            }
        }
    }

    #[test]
    fn process_v7_timestamp_follows_the_gated_clock_and_new_milliseconds_reseed() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let a = g.next_with(&mut th, &manual, &ticks, 0);
        let b = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(a.unix_millis(), Some(T0));
        assert_eq!(counter(&b), counter(&a) + 1, "counts within a millisecond");
        manual.advance(Duration::from_millis(1));
        let c = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(c.unix_millis(), Some(T0 + 1));
        let mut seeds = std::collections::HashSet::new();
        for ms in 0..200 {
            manual.set(at(T0 + 10 + ms, 0));
            let u = g.next_with(&mut th, &manual, &ticks, 0);
            assert_eq!(u.unix_millis(), Some(T0 + 10 + ms));
            // The first position of a millisecond is 0 or 1 over its seed.
            assert!(seeds.insert(counter(&u) >> 1), "a seed repeated");
            assert!(counter(&u) < (1 << 41) + 2, "seeded with its top bit clear");
        }
        // Another thread of the same process shares the key: the same seeds.
        let mut other = V7Thread::new();
        let d = g.next_with(&mut other, &manual, &ticks, 0);
        assert_eq!(d.unix_millis(), Some(T0 + 209));
        let e = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(counter(&e), counter(&d) + 1);
    }

    /// The 8,388,608th UUID of a millisecond carries into the next one, reseeded.
    #[test]
    fn process_v7_counter_overflow_borrows_the_next_millisecond() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut batch = vec![Uuid::NIL; 1 << N_BITS];
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        assert!(batch.windows(2).all(|w| w[0] < w[1]));
        let last = batch[batch.len() - 1];
        assert_eq!(last.unix_millis(), Some(T0 + 1));
        assert_eq!(batch[batch.len() - 2].unix_millis(), Some(T0));
    }

    /// Past the 64-bit word's window (a clock 2^40 ms, 34 years, after the process's
    /// first use), the wide state takes over, above everything before, and stays
    /// increasing.
    #[test]
    fn process_v7_hands_over_to_the_wide_state_past_the_window() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut batch = vec![Uuid::NIL; 5000];
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        let mut all = batch.clone();
        manual.set(at(T0 + (1 << REL_BITS) - 1, 0));
        all.push(g.next_with(&mut th, &manual, &ticks, 0));
        manual.set(at(T0 + (1 << REL_BITS) + 5, 0));
        all.push(g.next_with(&mut th, &manual, &ticks, 0));
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        all.extend_from_slice(&batch);
        manual.step_back(Duration::from_secs(1));
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        all.extend_from_slice(&batch);
        // Another thread arriving later goes to the wide state too.
        let mut other = V7Thread::new();
        all.push(g.next_with(&mut other, &manual, &ticks, 0));
        for (i, w) in all.windows(2).enumerate() {
            assert!(w[0] < w[1], "{i}: {} then {}", w[0], w[1]);
        }
        assert_eq!(all[5001].unix_millis(), Some(T0 + (1 << REL_BITS) + 5));
    }

    /// A base near the end of the 48-bit range: the window ends there, and the last
    /// millisecond keeps making distinct v7 UUIDs (unordered once its counter is used
    /// up, as the owned generator does there), never wrapping to 1970.
    #[test]
    fn process_v7_at_the_end_of_the_range() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(MS_MAX, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut batch = vec![Uuid::NIL; 1 << N_BITS];
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        assert!(g.word.load(core::sync::atomic::Ordering::Relaxed) >= th.limit);
        let mut seen = std::collections::HashSet::new();
        batch.truncate(100_000);
        for _ in 0..2 {
            g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
            for u in &batch {
                assert_eq!(u.unix_millis(), Some(MS_MAX));
                assert!(seen.insert(*u));
            }
        }
        manual.set(UnixTime::MAX);
        let u = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(u.unix_millis(), Some(MS_MAX));
        assert!(seen.insert(u));
    }

    /// A child after fork (a copy of the state, a new fork generation): its UUIDs are
    /// greater than everything before the fork and its counters are not the parent's.
    #[test]
    fn process_v7_child_after_fork_moves_on_with_its_own_key() {
        let parent = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut before = Uuid::NIL;
        for _ in 0..100 {
            before = parent.next_with(&mut th, &manual, &ticks, 0);
        }
        // What fork copies: the shared state and this thread's part.
        let child = ProcessV7::new();
        use core::sync::atomic::Ordering::Relaxed;
        child.word.store(parent.word.load(Relaxed), Relaxed);
        child.base.store(parent.base.load(Relaxed), Relaxed);
        child.key.store(parent.key.load(Relaxed), Relaxed);
        let mut child_th = V7Thread {
            prf: th.prf.clone(),
            tails: th.tails,
            ..th
        };
        let mut child_new_thread = V7Thread::new();
        let p = parent.next_with(&mut th, &manual, &ticks, 0);
        let c = child.next_with(&mut child_th, &manual, &ticks, 1);
        let c2 = child.next_with(&mut child_new_thread, &manual, &ticks, 1);
        assert!(p > before);
        assert!(c > before && c2 > c);
        assert_eq!(c.unix_millis(), Some(T0 + 1), "a millisecond on");
        // The parent, in that millisecond too, counts from another seed.
        manual.advance(Duration::from_millis(1));
        let p2 = parent.next_with(&mut th, &manual, &ticks, 0);
        let c3 = child.next_with(&mut child_th, &manual, &ticks, 1);
        assert_eq!(p2.unix_millis(), c3.unix_millis());
        assert_ne!(counter(&p2) >> 2, counter(&c3) >> 2);
        assert_ne!(parent.key.load(Relaxed), child.key.load(Relaxed));
    }
}
