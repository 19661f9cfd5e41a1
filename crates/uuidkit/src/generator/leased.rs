//! A generator's link to a [`StateStore`]: the block of positions it leased, and the
//! rules for when to lease the next one.
//!
//! A generator with a store computes each UUID's position (its timestamp, and counter
//! where it has one, as one number that orders like the UUIDs) exactly as it does without
//! one, then *admits* it: a position inside the block this process leased is used as it
//! is, with no lock and no I/O; any other leads to a new lease starting at or above it,
//! and the generator goes on from the lease's start. Leases of different processes never
//! overlap, so neither do their UUIDs.
//!
//! Block size adapts to demand: a block that lasted less than the kind's target time
//! (about 30 ms of the clock) is followed by one that would last the target at the pace
//! the last one went (at least twice as large), one that lasted longer by one half as
//! large, between a floor (cheap for one-UUID commands, and keeping other processes'
//! timestamps close to the clock) and a ceiling (bounding how far ahead of the clock
//! other processes' blocks start). Growing by the pace, not by doubling, takes a process
//! at full speed from the floor to the ceiling in a few leases instead of ten: each lease
//! is a lock and a rename of the file, and the rename is the dearest part (on ext4 it
//! starts the new file's write-out, about 0.4 ms on a virtual disk). A block never spans
//! more than four times the clock time since the link's first lease: a short process
//! whose second lease comes a moment after its first (the millisecond turned) would
//! otherwise take a block of the ceiling's size, and a loop of short commands would run
//! others' timestamps up to the ceiling ahead of the clock (a block is leased whole,
//! used or not).

use std::sync::Arc;

use crate::layout::ClockSequence;
use crate::node::machine_id::MachineId;
use crate::store::{
    GeneratorKind, LeaseRequest, LeaseSource, Outcome, Problem, StoreError, StoreWarning,
};

/// Sizes of a kind's blocks, in its position units. `pub` in this crate-private module
/// only because a stamp's sealed trait names it; out of reach outside the crate.
#[derive(Clone, Copy, Debug)]
pub struct BlockSizes {
    pub(crate) min: u128,
    pub(crate) max: u128,
    /// A block that lasts less than this much of the clock is followed by a larger one.
    pub(crate) target: u128,
}

impl BlockSizes {
    /// The size of the block after one of `len` positions that lasted `lasted` of the
    /// clock: shorter than the target, one `target / lasted` times as large (at least
    /// twice; the clock not having moved counts as one unit), so that at the same pace it
    /// lasts the target, but at most four times `age` (the clock since the first lease);
    /// longer, one half as large. Always between the floor and the ceiling.
    pub(crate) fn next(&self, len: u128, lasted: u128, age: u128) -> u128 {
        if lasted < self.target {
            let grow = (self.target / lasted.max(1)).max(2);
            len.saturating_mul(grow)
                .min(age.saturating_mul(4))
                .clamp(self.min, self.max)
        } else {
            (len / 2).clamp(self.min, self.max)
        }
    }
}

/// What [`StoreLink::admit`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admit {
    /// Use this position (at or above the one asked for); with a clock sequence when a
    /// new Gregorian block brought one.
    Use(u128, Option<ClockSequence>),
    /// Every position up to `max_start` is leased by others: the next free one is this.
    Ahead(u128),
    /// No position is left in the kind's range.
    Exhausted,
    /// The store cannot be used (a warning says why); go on in memory.
    Fallback,
}

/// The clock sequence wishes of a Gregorian lease.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClockSeqWish {
    /// Fixed by the caller.
    pub(crate) fixed: Option<ClockSequence>,
    /// A random value for a new entry.
    pub(crate) fresh: ClockSequence,
}

/// The warnings of a generator's store link since the last call (none without a store).
pub(crate) fn take_warnings(link: &mut Option<StoreLink>) -> Vec<StoreWarning> {
    link.as_mut()
        .map(StoreLink::take_warnings)
        .unwrap_or_default()
}

pub(crate) struct StoreLink {
    store: Arc<dyn LeaseSource>,
    sizes: BlockSizes,
    len: u128,
    /// The leased block, inclusive, and the clock reading when it was leased.
    block: Option<(u128, u128, u128)>,
    /// The clock reading at this process's first lease: how long it has been leasing
    /// bounds how large its blocks grow.
    first_lease: Option<u128>,
    fork_generation: u64,
    warnings: Vec<StoreWarning>,
    failed: bool,
    /// The machine ID the last lease brought (a daemon in fleet mode), kept until a
    /// lease brings another, or the link fails (nothing vouches for it then).
    machine_id: Option<MachineId>,
}

impl core::fmt::Debug for StoreLink {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StoreLink")
            .field("source", &self.store)
            .field("block", &self.block)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl StoreLink {
    pub(crate) fn new(store: Arc<dyn LeaseSource>, sizes: BlockSizes) -> StoreLink {
        StoreLink {
            store,
            sizes,
            len: sizes.min,
            block: None,
            first_lease: None,
            fork_generation: crate::platform::fork_generation(),
            warnings: Vec::new(),
            failed: false,
            machine_id: None,
        }
    }

    /// False once the store failed: the generator then stays in memory for good, since
    /// positions it makes from then on are not recorded anywhere.
    pub(crate) fn active(&self) -> bool {
        !self.failed
    }

    /// The machine ID the leases bring (the last one that brought any); `None` once the
    /// link failed.
    pub(crate) fn machine_id(&self) -> Option<MachineId> {
        self.machine_id
    }

    /// The warnings since the last call.
    pub(crate) fn take_warnings(&mut self) -> Vec<StoreWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// After [`Admit::Exhausted`], for a generator that goes on: `kind`'s positions are
    /// used up to the last one its layout can stamp (a clock once far ahead wrote them),
    /// so nothing above them can be made, and going on below them is not the store's
    /// guarantee. Said once, as a warning naming the source and the kind; the generator
    /// then goes on in memory for good, without a lease (a lock) per UUID.
    pub(crate) fn used_up(&mut self, kind: GeneratorKind) {
        self.warnings.push(
            self.store
                .warning(Problem::RangeUsedUp { kind }, Outcome::InMemory),
        );
        self.give_up();
    }

    /// From here in memory for good: no block, and no machine ID, since no lease
    /// vouches for one any more.
    fn give_up(&mut self) {
        self.failed = true;
        self.block = None;
        self.machine_id = None;
    }

    /// Forgets the block (the node changed, so the kind did).
    pub(crate) fn drop_block(&mut self) {
        self.block = None;
    }

    /// The current block, inclusive, if this process (not a parent before `fork`) leased
    /// it.
    #[inline(always)]
    pub(crate) fn block(&self) -> Option<(u128, u128)> {
        match self.block {
            Some((start, end, _))
                if crate::platform::fork_generation_relaxed() == self.fork_generation =>
            {
                Some((start, end))
            }
            _ => None,
        }
    }

    /// Admits position `p` of `kind`, with the clock at `clock` (same units).
    #[inline]
    pub(crate) fn admit(
        &mut self,
        kind: GeneratorKind,
        p: u128,
        clock: u128,
        max_start: Option<u128>,
        clock_seq: Option<ClockSeqWish>,
    ) -> Admit {
        if self.failed {
            return Admit::Fallback;
        }
        // `new` registered the fork hook, so the cheaper load is enough.
        let fork = crate::platform::fork_generation_relaxed();
        if fork != self.fork_generation {
            // A child never uses its parent's block: the parent goes on using it. Its
            // blocks grow from the floor again, as a new process's.
            self.fork_generation = fork;
            self.block = None;
            self.first_lease = None;
            self.len = self.sizes.min;
        }
        if let Some((start, end, _)) = self.block
            && (start..=end).contains(&p)
        {
            return Admit::Use(p, None);
        }
        self.lease(kind, p, clock, max_start, clock_seq)
    }

    #[cold]
    fn lease(
        &mut self,
        kind: GeneratorKind,
        p: u128,
        clock: u128,
        max_start: Option<u128>,
        clock_seq: Option<ClockSeqWish>,
    ) -> Admit {
        let first = *self.first_lease.get_or_insert(clock);
        if let Some((_, _, leased_at)) = self.block {
            self.len = self.sizes.next(
                self.len,
                clock.saturating_sub(leased_at),
                clock.saturating_sub(first),
            );
        }
        let wish = clock_seq.unwrap_or(ClockSeqWish {
            fixed: None,
            fresh: ClockSequence::default(),
        });
        let req = LeaseRequest {
            kind,
            clock,
            from: p,
            len: self.len,
            max_start,
            clock_seq: wish.fixed,
            fresh_clock_seq: wish.fresh,
        };
        match self.store.lease(&req) {
            Ok(lease) => {
                if let Some(w) = lease.warning {
                    self.warnings.push(w);
                }
                self.block = Some((lease.start, lease.end, clock));
                if lease.machine_id.is_some() {
                    self.machine_id = lease.machine_id;
                }
                Admit::Use(lease.start, lease.clock_seq)
            }
            Err(StoreError::Ahead { start }) => Admit::Ahead(start),
            // The caller decides: a Gregorian generator fails with the timestamp's end,
            // the others go on in memory through `used_up`.
            Err(StoreError::Exhausted) => Admit::Exhausted,
            Err(StoreError::Unavailable(w)) => {
                self.warnings.push(w);
                self.give_up();
                Admit::Fallback
            }
            // A daemon in fleet mode that cannot vouch for its machine ID (the client
            // asked again for a while first): the generator goes on in memory, as for a
            // daemon that cannot be reached, and the warning names the fence. Its UUIDs
            // no longer carry the ID the daemon's leases brought (another holder may
            // have it by now): unique by their random bits, as any in-memory
            // generator's.
            Err(StoreError::Fenced(w)) => {
                self.warnings.push(w);
                self.give_up();
                Admit::Fallback
            }
            // The file is a newer uuidkit's, and the store left it as it was: this
            // generator cannot use it, so it goes on in memory, as for a file that
            // cannot be read, and says so.
            Err(e @ StoreError::NewerFormat { .. }) => {
                self.warnings.extend(e.warning(Outcome::InMemory));
                self.give_up();
                Admit::Fallback
            }
            // A kind of failure this version does not know: treat it as unavailable.
            #[allow(unreachable_patterns)]
            Err(_) => {
                self.give_up();
                Admit::Fallback
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BlockSizes;

    const MS: u128 = 1 << 42;
    const SIZES: BlockSizes = BlockSizes {
        min: MS >> 6,
        max: 16 * MS,
        target: 32 * MS,
    };
    /// An age that does not limit.
    const OLD: u128 = u128::MAX;

    /// A process whose blocks each end at the next millisecond (a v7 at any rate) reaches
    /// the ceiling in two leases; doubling took ten.
    #[test]
    fn a_block_that_lasted_a_millisecond_grows_to_the_ceiling_in_two_leases() {
        let second = SIZES.next(SIZES.min, MS, OLD);
        assert_eq!(second, SIZES.min * 32);
        assert_eq!(SIZES.next(second, MS, OLD), SIZES.max);
        assert_eq!(SIZES.next(SIZES.max, MS, OLD), SIZES.max);
    }

    #[test]
    fn growth_is_at_least_twice_and_a_clock_that_did_not_move_counts_as_a_tick() {
        // Lasted most of the target: twice, not 1.07 times.
        assert_eq!(SIZES.next(SIZES.min, 30 * MS, OLD), SIZES.min * 2);
        assert_eq!(SIZES.next(SIZES.min, 0, OLD), SIZES.max);
        assert_eq!(SIZES.next(SIZES.max - 1, 1, OLD), SIZES.max);
    }

    /// A block never spans more than four times the time since the first lease: a short
    /// process whose millisecond turned 10 µs after its first lease gets a block of
    /// 40 µs, not of the ceiling; never less than the floor.
    #[test]
    fn a_young_process_gets_no_more_than_four_times_its_age() {
        let us = MS / 1000;
        assert_eq!(SIZES.next(SIZES.min, 10 * us, 10 * us), 40 * us);
        assert_eq!(SIZES.next(SIZES.min, us, us), SIZES.min);
        assert_eq!(SIZES.next(SIZES.min, 0, 0), SIZES.min);
        assert_eq!(SIZES.next(SIZES.min * 32, MS, 2 * MS), 8 * MS);
        assert_eq!(SIZES.next(SIZES.min * 32, MS, 5 * MS), SIZES.max);
    }

    #[test]
    fn a_block_that_outlasted_the_target_halves_down_to_the_floor() {
        assert_eq!(SIZES.next(SIZES.max, SIZES.target, OLD), SIZES.max / 2);
        assert_eq!(SIZES.next(SIZES.min, u128::MAX, OLD), SIZES.min);
        assert_eq!(SIZES.next(SIZES.min + 1, SIZES.target, OLD), SIZES.min);
    }
}
