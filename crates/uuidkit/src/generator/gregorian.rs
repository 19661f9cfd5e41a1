//! Versions 1, 2 and 6 generation (RFC 9562 §5.1, §5.2, §5.6, §6.1, §6.10): Gregorian
//! 100 ns timestamps, a clock sequence and a node ID.

use core::fmt;

use rand_core::RngCore;

use super::error::GenError;
use crate::layout::{self, ClockSequence, GregorianFields, v2::Domain};
use std::sync::Arc;

use super::clock_seq_pool::{self, Claim, PoolError};
use super::leased::{self, Admit, BlockSizes, ClockSeqWish, StoreLink};
use crate::node::{NodeId, NodeStrategy, host_hash_node, random_node};
use crate::random::Csprng;
use crate::store::{GeneratorKind, LeaseSource, StoreWarning};
use crate::time::{Clock, GregorianTimestamp, SystemClock};
use crate::uuid::{Uuid, Version};

/// How many 100 ns ticks past the clock's reading a timestamp may run: one millisecond's
/// worth, so a clock with millisecond resolution gives 10,000 UUIDs a millisecond
/// ("millisecond × 10,000 + counter"), and a finer clock the same budget.
pub const MAX_AHEAD_TICKS: u64 = 9_999;

/// What a Gregorian generator does on overrun: when every 100 ns tick up to
/// [`MAX_AHEAD_TICKS`] past the clock is used (more than 10 million UUIDs a second).
///
/// None of them touches the clock sequence: it exists to keep generators that share a
/// node apart (RFC 9562 §5.1), so a generator that counted on in it would walk into the
/// sequences of its neighbours and repeat their UUIDs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OverrunPolicy {
    /// Wait for the clock to move on (the default; RFC 9562 §6.1 "stall the UUID
    /// generator until the system clock catches up"), through
    /// [`Clock::sleep_until`]. A clock that never moves (a function returning a constant)
    /// would wait forever: give such a clock [`Advance`](Self::Advance) or
    /// [`Error`](Self::Error). A clock set back during the wait ends it, and the
    /// generator goes on as after any step back (v1: a new clock sequence; v6: counting
    /// on above its last timestamp) instead of waiting as long as the step.
    Wait,
    /// Return [`GenError::Overrun`] (RFC 9562 §6.1 "return an error").
    Error,
    /// Move the timestamp one tick further ahead of the clock. Never waits; meant for a
    /// fixed, explicit time (`uuidkit gen v1 --time … -n N`). The timestamps then run
    /// ahead of the clock by one tick per UUID beyond 10 million a second.
    Advance,
}

/// Which layout a [`GregorianGenerator`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    V1,
    V6,
}

type ClockSeqFn = Box<dyn FnMut(Option<ClockSequence>) -> ClockSequence + Send>;

/// The clock sequences a generator has used since its timestamps last rose above every
/// timestamp it had used before: 16,384 bits.
///
/// A v1 generator follows the clock back and takes a new clock sequence each time; after
/// 16,384 steps back the sequences run out, and a sequence used before could meet a
/// timestamp used before. So when the next clock sequence is one already in this set,
/// a new *cycle* starts: the set is cleared and every later timestamp must be above the
/// highest one used so far (the *floor*). Within a cycle no clock sequence repeats, and
/// each cycle's timestamps are above all of the cycles before it: no (timestamp, clock
/// sequence) pair can ever repeat.
struct ClockSeqSet(Box<[u64; 256]>);

impl ClockSeqSet {
    fn new() -> ClockSeqSet {
        ClockSeqSet(Box::new([0; 256]))
    }

    /// Adds `cs`; false if it was there already.
    fn insert(&mut self, cs: ClockSequence) -> bool {
        let (word, bit) = ((cs.get() >> 6) as usize, cs.get() & 63);
        let was = self.0[word] >> bit & 1 == 1;
        self.0[word] |= 1 << bit;
        !was
    }

    fn clear(&mut self) {
        self.0.fill(0);
    }
}

/// A v1 / v6 (and v2) generator: a state machine over a clock, a random source and a
/// node strategy.
///
/// # Guarantees
/// - **Distinct**: no two UUIDs from one generator are equal, at any rate and whatever
///   the clock does (however often it steps back, whatever the node strategy and the
///   clock-sequence function return), until the timestamp range ends.
/// - **Sub-tick counter**: when the clock has not moved a whole 100 ns tick since the last
///   UUID (or reads coarser than that), the timestamp counts on by one tick, up to
///   [`MAX_AHEAD_TICKS`] past the clock's reading.
/// - **Overrun**: past that (more than 10 million UUIDs a second), the [`OverrunPolicy`]
///   decides; both v1 and v6 wait for the clock by default.
/// - **The clock sequence stays put** unless the clock goes back (v1), the node ID
///   changes, or the process forks. So two v6 generators that share a node and started
///   with different clock sequences never produce the same UUID, at any rate; two v1
///   generators neither, as long as their clocks do not step back (a step back moves v1
///   to the next clock sequence, which may be its neighbour's: what keeps generators
///   apart then is a shared [state store](crate::store), see
///   [`with_store`](Self::with_store)).
/// - **v6 is strictly increasing**: each v6 UUID's timestamp is greater than the one
///   before, whatever the clock does, so each v6 UUID is greater than the one before.
///   If the clock goes back, the timestamp counts on by one tick a UUID from where it
///   was (running ahead of the clock, and not limited by the overrun budget) until the
///   clock catches up; it never jumps back and the clock sequence does not change.
/// - **v1 follows the clock**: if the clock goes back, v1 takes the earlier time and a
///   new clock sequence (§5.1: "incremented if the clock is set backwards"); its
///   timestamps are non-decreasing otherwise. The clock sequence also changes when the
///   node ID changes (except with [`NodeStrategy::Random`], where the node changes every
///   time). After the clock has stepped back so often (16,384 times, or fewer with a
///   clock-sequence function that repeats itself) that the next clock sequence has been
///   used already since the timestamps last set a new high, v1 does not follow the clock
///   below that high: its timestamps count on from just above it, as v6's do, until the
///   clock catches up.
/// - **End of the range**: the 60-bit timestamp ends at 5236-03-31T21:21:00.6846975Z
///   ([`GregorianTimestamp::MAX`]). A clock reading past it counts as that last tick;
///   once a UUID would need a later timestamp, [`next`](Self::next) returns
///   [`GenError::TimestampExhausted`] whatever the policy (waiting cannot help), and
///   never wraps to 1582.
/// - **fork**: in a child process the generator picks a new clock sequence, different
///   from the parent's current one, and with the `static` or `random` strategy a new node
///   ID, so parent and child do not go on with the same (clock sequence, node). (Two
///   children of one parent draw their sequences independently: with a fixed node they
///   share one with a chance of 1 in 16,384, unless a store keeps them apart.)
/// - The clock sequence starts at a random 14-bit value unless given.
/// - **One (node, clock sequence) per generator in a process**: no two live generators
///   of this process that keep their state in memory make UUIDs with the same node and
///   clock sequence (see [`clock_seq_pool`]). A random starting
///   value, or one the generator moves to, that another generator holds is passed over
///   for the next free one; a clock sequence given with
///   [`with_clock_seq`](Self::with_clock_seq) that another holds is an error
///   ([`GenError::ClockSequenceInUse`]) from the first [`next`](Self::next), and so is a
///   node whose 16,384 clock sequences are all held ([`GenError::ClockSequencesExhausted`]).
///   A generator releases its clock sequence when it is dropped. Generators with a
///   [store](Self::with_store) are kept apart by the store instead (one clock sequence a
///   node, disjoint timestamps), and the `random` node strategy by its nodes.
///
/// ```
/// use uuidkit::generator::gregorian::GregorianGenerator;
/// let mut g = GregorianGenerator::v6();
/// let a = g.next()?;
/// let b = g.next()?;
/// assert!(a < b);
/// assert_eq!(a.node(), b.node());
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
pub struct GregorianGenerator<C = SystemClock, R = Csprng> {
    clock: C,
    rng: R,
    layout: Layout,
    policy: OverrunPolicy,
    strategy: NodeStrategy,
    node: NodeId,
    node_warning: Option<String>,
    clock_seq: ClockSequence,
    clock_seq_fn: Option<ClockSeqFn>,
    /// Clock sequences used in the current cycle (see [`ClockSeqSet`]).
    used: ClockSeqSet,
    /// Every timestamp of the current cycle is above this one.
    floor: Option<u64>,
    /// The highest timestamp handed out.
    high: u64,
    last_ticks: u64,
    last_reading: u64,
    started: bool,
    /// The timestamp is ahead of the clock because the clock went back (or below the
    /// floor), not because of the rate: the overrun budget does not apply.
    behind: bool,
    fork_generation: u64,
    /// The clock sequence was given by the caller (kept across store leases).
    clock_seq_fixed: bool,
    /// The clock went back since the last lease (with a store: lease anew).
    clock_went_back: bool,
    store: Option<StoreLink>,
    /// The (node, clock sequence) this generator holds in the process's pool.
    claim: Option<Claim>,
}

/// Gregorian blocks: from 16 ticks to 10 ms, grown while a block lasts less than 30 ms of
/// the clock (above the largest block's 10 ms, so that a generator at full speed keeps
/// the largest instead of swinging between two sizes). At full speed (10 million a
/// second) a generator then leases about 100 times a second; one that makes a UUID once
/// in a while keeps small blocks, so others sharing the node are rarely held up by it.
/// (The overrun budget still applies to each UUID: a block reaching past it is used as
/// the clock gets there.)
const GREGORIAN_BLOCKS: BlockSizes = BlockSizes {
    min: 16,
    max: 100_000,
    target: 300_000,
};

/// A stored high-water mark further ahead of the clock than this (one second) means the
/// clock was set back, not that other processes leased ahead: count on from the mark
/// instead of waiting for the clock.
const SET_BACK_TICKS: u64 = 10_000_000;

impl<C, R> fmt::Debug for GregorianGenerator<C, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GregorianGenerator")
            .field("layout", &self.layout)
            .field("policy", &self.policy)
            .field("strategy", &self.strategy)
            .field("node", &self.node)
            .field("clock_seq", &self.clock_seq)
            .field("last_ticks", &self.last_ticks)
            .finish_non_exhaustive()
    }
}

impl GregorianGenerator {
    /// A v1 generator on the system clock and the CSPRNG, with the node strategy
    /// `UUIDKIT_NODE` names (`static` when unset or malformed: use
    /// [`NodeStrategy::from_env`] to see the error) and [`OverrunPolicy::Wait`].
    pub fn v1() -> GregorianGenerator {
        GregorianGenerator::with_sources(Version::V1, SystemClock, Csprng)
            .with_node(NodeStrategy::from_env().ok().flatten().unwrap_or_default())
    }

    /// A v6 generator on the system clock and the CSPRNG, with the node strategy
    /// `UUIDKIT_NODE` names and [`OverrunPolicy::Wait`].
    pub fn v6() -> GregorianGenerator {
        GregorianGenerator::with_sources(Version::V6, SystemClock, Csprng)
            .with_node(NodeStrategy::from_env().ok().flatten().unwrap_or_default())
    }
}

impl<C: Clock, R: RngCore> GregorianGenerator<C, R> {
    /// A generator for `version` ([`Version::V6`] for v6, anything else for v1) on the
    /// given sources, with the `static` node strategy, a random clock sequence, and
    /// [`OverrunPolicy::Wait`].
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, generator::gregorian::GregorianGenerator, random::Csprng, Version};
    /// let clock = ManualClock::at_millis(1_645_557_742_000);
    /// let mut g = GregorianGenerator::with_sources(Version::V1, &clock, Csprng);
    /// assert_eq!(g.next()?.timestamp().unwrap().raw(), 0x1EC9414C232AB00);
    /// # Ok::<(), uuidkit::generator::GenError>(())
    /// ```
    pub fn with_sources(version: Version, clock: C, mut rng: R) -> GregorianGenerator<C, R> {
        let layout = match version {
            Version::V6 => Layout::V6,
            _ => Layout::V1,
        };
        let node = random_node(&mut rng);
        let clock_seq = ClockSequence::from_masked(rng.next_u32() as u16);
        GregorianGenerator {
            clock,
            rng,
            layout,
            policy: OverrunPolicy::Wait,
            strategy: NodeStrategy::Static,
            node,
            node_warning: None,
            clock_seq,
            clock_seq_fn: None,
            used: ClockSeqSet::new(),
            floor: None,
            high: 0,
            last_ticks: 0,
            last_reading: 0,
            started: false,
            behind: false,
            fork_generation: crate::platform::fork_generation(),
            clock_seq_fixed: false,
            clock_went_back: false,
            store: None,
            claim: None,
        }
    }

    /// Shares the timestamps of this generator's node with every other generator that
    /// uses `store`, in this process or any other: from now on none of them makes the
    /// same UUID — even when they all have the same node and the same fixed clock
    /// sequence — and this one continues above every timestamp the store has handed out
    /// for the node (also across restarts, crashes and a clock set back). See
    /// [`crate::store`].
    ///
    /// With a store:
    /// - v1's timestamps never go below the store's high-water mark: when the clock is
    ///   behind it (set back), v1 counts on from it as v6 does, and takes the next clock
    ///   sequence (RFC 9562 §5.1) unless the caller fixed one.
    /// - The `static` node strategy uses the host's hash node ([`NodeStrategy::Hash`])
    ///   instead of a random one per generator, so that every process of the host
    ///   shares one entry of the store (and one clock sequence).
    /// - The `random` and function strategies, whose node changes from UUID to UUID,
    ///   stay in memory: their nodes keep them apart without shared state.
    /// - v2 replaces 32 bits of the timestamp by design, so its UUIDs are outside the
    ///   store's guarantee.
    /// - More than 10 million UUIDs a second for one node, across all processes, is an
    ///   overrun: the generators take turns ([`OverrunPolicy::Wait`]) or report it.
    ///
    /// A store that cannot be used leaves the generator in memory from then on, with a
    /// new random clock sequence (unless fixed) and a warning in
    /// [`take_store_warnings`](Self::take_store_warnings).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use uuidkit::{generator::gregorian::GregorianGenerator, layout::ClockSequence,
    ///               node::NodeStrategy, store::StateStore, NodeId};
    /// let path = std::env::temp_dir().join(format!("uuidkit-doc-v6-{}", std::process::id()));
    /// let store = Arc::new(StateStore::open(&path));
    /// let node = NodeStrategy::Fixed(NodeId::from_u64(0x0123_4567_89ab).unwrap());
    /// let cs = ClockSequence::new(7).unwrap();
    /// let mut a = GregorianGenerator::v6().with_node(node.clone()).with_clock_seq(cs)
    ///     .with_store(store.clone());
    /// let mut b = GregorianGenerator::v6().with_node(node).with_clock_seq(cs).with_store(store);
    /// assert_ne!(a.next()?, b.next()?);
    /// # let _ = std::fs::remove_file(&path);
    /// # Ok::<(), uuidkit::generator::GenError>(())
    /// ```
    pub fn with_store(mut self, store: Arc<dyn LeaseSource>) -> Self {
        self.store = Some(StoreLink::new(store, GREGORIAN_BLOCKS));
        if self.strategy == NodeStrategy::Static {
            self.node = host_hash_node();
        }
        self
    }

    /// What went wrong with the store since the last call (damaged and repaired, or
    /// unusable so the generator went on in memory). The library never prints them.
    pub fn take_store_warnings(&mut self) -> Vec<StoreWarning> {
        leased::take_warnings(&mut self.store)
    }

    /// The node for the `static` strategy: random, or with a store the host's hash.
    fn static_node(&mut self) -> NodeId {
        if self.store.is_some() {
            host_hash_node()
        } else {
            random_node(&mut self.rng)
        }
    }

    /// Whether this UUID's position goes through the store.
    fn stored(&self) -> bool {
        self.store.as_ref().is_some_and(StoreLink::active)
            && matches!(
                self.strategy,
                NodeStrategy::Static
                    | NodeStrategy::Mac
                    | NodeStrategy::Hash
                    | NodeStrategy::Fixed(_)
            )
    }

    /// Chooses the node strategy. A node ID different from the current one changes the
    /// clock sequence.
    pub fn with_node(mut self, strategy: NodeStrategy) -> Self {
        self.set_node(strategy);
        self
    }

    /// Changes the node strategy of a running generator; see [`with_node`](Self::with_node).
    pub fn set_node(&mut self, strategy: NodeStrategy) {
        let (mut node, warning) = strategy.resolve(&mut self.rng);
        if strategy == NodeStrategy::Static && self.store.is_some() {
            node = host_hash_node();
        }
        self.strategy = strategy;
        self.node_warning = warning;
        if node != self.node {
            self.node = node;
            if let Some(link) = &mut self.store {
                // The block was leased for the old node.
                link.drop_block();
            }
            if self.started {
                self.change_clock_seq();
            }
        }
    }

    /// Why the node strategy could not be followed (`mac` without an interface), if so.
    pub fn node_warning(&self) -> Option<&str> {
        self.node_warning.as_deref()
    }

    /// The node ID of the last UUID (or of the next, before the first).
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// Starts from this clock sequence instead of a random one (on a running generator:
    /// goes on with it, keeping every guarantee).
    pub fn with_clock_seq(mut self, clock_seq: ClockSequence) -> Self {
        self.clock_seq_fixed = true;
        if self.started {
            self.switch_clock_seq(clock_seq);
        } else {
            self.clock_seq = clock_seq;
        }
        self
    }

    /// A user-supplied clock-sequence function, as uuid-creator's: called with `None` for
    /// the first value and with the current value whenever the generator must change it
    /// (clock gone back, node changed, fork). A result equal to the current value is
    /// incremented, so the change still happens. Whatever it returns, the generator's
    /// UUIDs stay distinct (see the guarantees).
    pub fn with_clock_seq_fn(
        mut self,
        f: impl FnMut(Option<ClockSequence>) -> ClockSequence + Send + 'static,
    ) -> Self {
        let mut f: ClockSeqFn = Box::new(f);
        let first = f(None);
        self.clock_seq_fn = Some(f);
        self.with_clock_seq(first)
    }

    /// Chooses what happens on overrun.
    pub fn with_overrun(mut self, policy: OverrunPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The clock sequence of the last UUID (or of the next, before the first).
    pub fn clock_seq(&self) -> ClockSequence {
        self.clock_seq
    }

    /// Claims this generator's (node, clock sequence) in the process's
    /// [pool](super::clock_seq_pool) now rather than at the first UUID, and returns the
    /// clock sequence: the one it had, or the next free one when another generator holds
    /// that. An error when the caller fixed a clock sequence another generator holds, or
    /// when every clock sequence of the node is held. (A generator with a store, or with
    /// the `random` node strategy, holds none and always succeeds.)
    ///
    /// ```
    /// use uuidkit::{generator::gregorian::GregorianGenerator, node::NodeStrategy, NodeId};
    /// let node = NodeStrategy::Fixed(NodeId::from_u64(0x0bad_cafe_0001).unwrap());
    /// let mut a = GregorianGenerator::v1().with_node(node.clone());
    /// let mut b = GregorianGenerator::v1().with_node(node);
    /// assert_ne!(a.reserve_clock_seq()?, b.reserve_clock_seq()?);
    /// # Ok::<(), uuidkit::generator::GenError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`GenError::ClockSequenceInUse`] when the clock sequence fixed is held by another
    /// generator of the node, and [`GenError::ClockSequencesExhausted`] when every one is.
    pub fn reserve_clock_seq(&mut self) -> Result<ClockSequence, GenError> {
        self.ensure_claim()?;
        Ok(self.clock_seq)
    }

    /// Goes on with `cs`. A clock sequence already used in this cycle starts a new one:
    /// from now on timestamps stay above every timestamp handed out so far.
    fn switch_clock_seq(&mut self, cs: ClockSequence) {
        self.clock_seq = cs;
        if !self.used.insert(cs) {
            self.used.clear();
            self.used.insert(cs);
            self.floor = Some(self.high);
        }
    }

    /// Whether this generator's (node, clock sequence) must be held in the pool: in
    /// memory and with a node that does not change at every UUID.
    fn pooled(&self) -> bool {
        !self.stored() && self.strategy != NodeStrategy::Random
    }

    /// Makes sure the pool holds this generator's (node, clock sequence), moving to the
    /// next free clock sequence when another generator holds it (an error for one the
    /// caller fixed, or when the node has none left).
    fn ensure_claim(&mut self) -> Result<(), GenError> {
        if !self.pooled() {
            self.claim = None;
            return Ok(());
        }
        if self
            .claim
            .as_ref()
            .is_some_and(|c| c.is(self.node, self.clock_seq))
        {
            return Ok(());
        }
        let exact = self.clock_seq_fixed && self.claim.is_none();
        match clock_seq_pool::claim(self.node, self.clock_seq, exact) {
            Ok(c) => {
                let cs = c.clock_seq();
                self.claim = Some(c);
                if cs != self.clock_seq {
                    if self.started {
                        self.switch_clock_seq(cs);
                    } else {
                        self.clock_seq = cs;
                    }
                }
                Ok(())
            }
            Err(PoolError::InUse) => Err(GenError::ClockSequenceInUse {
                node: self.node,
                clock_seq: self.clock_seq,
            }),
            Err(PoolError::Exhausted) => Err(GenError::ClockSequencesExhausted { node: self.node }),
        }
    }

    /// The clock sequence to move to instead of `wish`: the first free one from it in
    /// the pool (held from now on), or the current one when the node has none free.
    fn claim_next(&mut self, wish: ClockSequence) -> ClockSequence {
        if !self.pooled() {
            return wish;
        }
        match clock_seq_pool::claim(self.node, wish, false) {
            Ok(c) => {
                let cs = c.clock_seq();
                self.claim = Some(c);
                cs
            }
            // Every other one is held: stay on ours, which `switch_clock_seq` then
            // treats as reused (a new cycle above every timestamp so far).
            Err(_) => self.clock_seq,
        }
    }

    fn change_clock_seq(&mut self) {
        let current = self.clock_seq;
        let mut next = match &mut self.clock_seq_fn {
            Some(f) => f(Some(current)),
            None => current.next(),
        };
        if next == current {
            next = current.next();
        }
        let next = self.claim_next(next);
        self.switch_clock_seq(next);
    }

    fn after_fork(&mut self) {
        let parent = self.clock_seq;
        let mut cs = match &mut self.clock_seq_fn {
            Some(f) => f(None),
            None => ClockSequence::from_masked(self.rng.next_u32() as u16),
        };
        if cs == parent {
            // The parent goes on with its sequence, maybe with the same node and clock.
            cs = parent.next();
        }
        match self.strategy {
            NodeStrategy::Static => self.node = self.static_node(),
            NodeStrategy::Random => self.node = random_node(&mut self.rng),
            _ => {}
        }
        if self.started {
            self.switch_clock_seq(cs);
        } else {
            self.clock_seq = cs;
        }
    }

    fn reading(&self) -> u64 {
        GregorianTimestamp::from_unix_clamped(self.clock.now()).ticks()
    }

    /// The fields of the next UUID.
    ///
    /// # Errors
    ///
    /// [`GenError::Overrun`] when the ticks ahead of the clock are used up and the overrun
    /// policy is to report it, [`GenError::TimestampExhausted`] when the clock reads past
    /// 5236, and the clock-sequence errors of [`reserve_clock_seq`](Self::reserve_clock_seq).
    pub fn next_fields(&mut self) -> Result<GregorianFields, GenError> {
        let fork = crate::platform::fork_generation();
        if fork != self.fork_generation {
            self.fork_generation = fork;
            self.after_fork();
        }
        match &self.strategy {
            NodeStrategy::Random => self.node = random_node(&mut self.rng),
            NodeStrategy::Function(f) => {
                let node = f();
                if node != self.node {
                    self.node = node;
                    if self.started {
                        self.change_clock_seq();
                    }
                }
            }
            _ => {}
        }
        self.ensure_claim()?;
        let stored = self.stored();
        // With a store, v1 too keeps its timestamps above every one handed out.
        let v6 = self.layout == Layout::V6 || stored;
        let ticks = 'admitted: loop {
            let (now, ticks) = self.next_ticks(v6)?;
            if !stored {
                break ticks;
            }
            match self.admit(now, ticks) {
                Ok(Some(ticks)) => break 'admitted ticks,
                Ok(None) => continue 'admitted,
                Err(e) => return Err(e),
            }
        };
        if ticks > GregorianTimestamp::MAX.ticks() {
            return Err(GenError::TimestampExhausted {
                timestamp: GregorianTimestamp::MAX.to_unix(),
            });
        }
        self.started = true;
        self.last_ticks = ticks;
        self.high = self.high.max(ticks);
        Ok(GregorianFields {
            timestamp: GregorianTimestamp::from_ticks_masked(ticks),
            clock_seq: self.clock_seq,
            node: self.node,
        })
    }

    /// Admits `ticks` through the store: `Some` with the ticks to use (and the clock
    /// sequence taken from a new block), `None` after waiting for the clock (start over).
    fn admit(&mut self, now: u64, ticks: u64) -> Result<Option<u64>, GenError> {
        let kind = GeneratorKind::Gregorian(self.node);
        let wish = ClockSeqWish {
            fixed: self.clock_seq_fixed.then_some(self.clock_seq),
            fresh: self.clock_seq,
        };
        let bounded = !self.behind && self.policy != OverrunPolicy::Advance;
        let mut max_start = bounded.then(|| now.saturating_add(MAX_AHEAD_TICKS) as u128);
        let Some(link) = self.store.as_mut() else {
            return Ok(Some(ticks));
        };
        if std::mem::take(&mut self.clock_went_back) {
            // Lease anew even inside the block: the store sees the step back and moves
            // v1 to the next clock sequence (RFC 9562 §5.1) now, not when the block ends.
            link.drop_block();
        }
        loop {
            match link.admit(kind, ticks as u128, now as u128, max_start, Some(wish)) {
                Admit::Use(q, cs) => {
                    if let Some(cs) = cs {
                        self.clock_seq = cs;
                    }
                    // A position the store grants fits 60 bits (its Gregorian range).
                    return Ok(Some(q as u64));
                }
                Admit::Ahead(start) if start > (now + SET_BACK_TICKS) as u128 => {
                    // The clock was set back below the stored mark: count on from it.
                    self.behind = true;
                    max_start = None;
                }
                Admit::Ahead(start) => {
                    let start = start as u64;
                    return match self.policy {
                        OverrunPolicy::Error => Err(GenError::Overrun {
                            timestamp: GregorianTimestamp::from_ticks_masked(start - 1).to_unix(),
                        }),
                        _ => {
                            let until =
                                GregorianTimestamp::from_ticks_masked(start - MAX_AHEAD_TICKS);
                            // Ends early if the clock is set back below the reading this wait
                            // was decided on: the caller reads again and decides afresh.
                            let since = GregorianTimestamp::from_ticks_masked(now).to_unix();
                            self.clock.sleep_from_until(since, until.to_unix());
                            Ok(None)
                        }
                    };
                }
                Admit::Exhausted => {
                    return Err(GenError::TimestampExhausted {
                        timestamp: GregorianTimestamp::MAX.to_unix(),
                    });
                }
                Admit::Fallback => {
                    // In memory from here: a new random clock sequence (others may go on
                    // with the stored one at the same timestamps), in a new cycle above
                    // every timestamp used so far.
                    if !self.clock_seq_fixed {
                        let wish = ClockSequence::from_masked(self.rng.next_u32() as u16);
                        self.clock_seq = self.claim_next(wish);
                    }
                    self.used.clear();
                    self.used.insert(self.clock_seq);
                    self.floor = Some(self.high.max(ticks));
                    return Ok(Some(ticks.max(self.high.saturating_add(1))));
                }
            }
        }
    }

    /// Waits until the clock reaches `next` less the overrun budget; ends early if the
    /// clock is set back below `now`, the reading this wait was decided on (the caller
    /// reads again and decides afresh). Out of line: the 128-bit arithmetic of `to_unix`
    /// stays off the path of every UUID.
    #[cold]
    #[inline(never)]
    fn wait_for(&self, now: u64, next: u64) {
        let until = GregorianTimestamp::from_ticks_masked(next - MAX_AHEAD_TICKS);
        let since = GregorianTimestamp::from_ticks_masked(now).to_unix();
        self.clock.sleep_from_until(since, until.to_unix());
    }

    /// The clock reading and the next timestamp by the clock and this generator's own
    /// state (`v6`: timestamps only increase).
    fn next_ticks(&mut self, v6: bool) -> Result<(u64, u64), GenError> {
        let ticks = loop {
            let now = self.reading();
            let went_back = self.started && now < self.last_reading;
            let mut ticks = if !self.started {
                self.used.insert(self.clock_seq);
                self.behind = false;
                now
            } else if went_back && !v6 {
                // v1 follows the clock back under a new clock sequence.
                self.change_clock_seq();
                self.behind = false;
                now
            } else if now > self.last_ticks {
                self.behind = false;
                now
            } else {
                if went_back {
                    // v6 keeps its timestamp and counts on from it.
                    self.behind = true;
                    self.clock_went_back = true;
                }
                let next = self.last_ticks.saturating_add(1);
                if self.behind || next <= now.saturating_add(MAX_AHEAD_TICKS) {
                    next
                } else {
                    match self.policy {
                        OverrunPolicy::Wait if next <= GregorianTimestamp::MAX.ticks() => {
                            self.wait_for(now, next);
                            continue;
                        }
                        OverrunPolicy::Error if next <= GregorianTimestamp::MAX.ticks() => {
                            return Err(GenError::Overrun {
                                timestamp: GregorianTimestamp::from_ticks_masked(self.last_ticks)
                                    .to_unix(),
                            });
                        }
                        _ => next,
                    }
                }
            };
            if let Some(floor) = self.floor
                && ticks <= floor
            {
                // The clock is below timestamps that older cycles used with the
                // clock sequences this cycle may reuse: stay above them.
                ticks = floor.saturating_add(1);
                self.behind = true;
            }
            self.last_reading = now;
            break (now, ticks);
        };
        Ok(ticks)
    }

    /// The next UUID in this generator's layout (v1 or v6).
    ///
    /// # Errors
    ///
    /// As [`next_fields`](Self::next_fields).
    // Fallible, so not `Iterator::next`; named as users of generators expect.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Uuid, GenError> {
        let f = self.next_fields()?;
        Ok(match self.layout {
            Layout::V1 => layout::v1::encode(&f),
            Layout::V6 => layout::v6::encode(&f),
        })
    }

    /// The next v2 (DCE Security) UUID for a local identifier in a domain: this
    /// generator's next timestamp, clock sequence and node, with `time_low` replaced by
    /// `local_id` and `clock_seq_low` by the domain (RFC 9562 §5.2). Two v2 UUIDs of the
    /// same domain and identifier within about 7 minutes share their timestamp bits and
    /// can collide: that is in the DCE design, and why the RFC leaves v2 out of scope.
    ///
    /// ```
    /// use uuidkit::{generator::gregorian::GregorianGenerator, layout::v2::{self, Domain}};
    /// let u = GregorianGenerator::v1().next_v2(Domain::Group, 100)?;
    /// assert_eq!(v2::decode(&u).unwrap().local_id, 100);
    /// # Ok::<(), uuidkit::generator::GenError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`next_fields`](Self::next_fields).
    pub fn next_v2(&mut self, domain: Domain, local_id: u32) -> Result<Uuid, GenError> {
        let f = self.next_fields()?;
        let fields = layout::v2::Fields {
            local_id,
            domain,
            timestamp: f.timestamp,
            clock_seq: (f.clock_seq.get() >> 8) as u8,
            node: f.node,
        };
        Ok(layout::v2::encode(&fields).expect("a 14-bit clock sequence has 6 high bits"))
    }
}
