//! Gregorian generators side by side (uuid-creator's "LessBlockingFactory"): v1 allows
//! one UUID per 100 ns tick for each (node, clock sequence), 10 million a second, and a
//! single generator is one lock. [`ShardedGregorian`] holds several generators of one
//! node with distinct clock sequences (the [pool](super::clock_seq_pool) guarantees them)
//! and gives each thread its own, so that the rate goes past that cap and grows with the
//! threads.

use std::cell::RefCell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::error::GenError;
use super::gregorian::GregorianGenerator;
use crate::node::{NodeId, NodeStrategy};
use crate::uuid::{Uuid, Version};

/// Several Gregorian generators of one node, one per thread.
///
/// # Guarantees
/// - **Distinct**: no two UUIDs from it are equal: its generators share the node but
///   hold distinct clock sequences (no other live generator of the process holds them
///   either), and each generator's UUIDs are distinct.
/// - **Per thread**: a thread always gets its UUIDs from the same generator (threads are
///   given generators in turn; with more threads than generators, some share one, under
///   its lock). So the timestamps of one thread's UUIDs increase: strictly for v6, and
///   for v1 unless the clock steps back (v1 then follows the clock under a new clock
///   sequence). Across threads there is no order.
/// - **Rate**: each generator has its own budget of one UUID per 100 ns tick; `n`
///   generators can make `n` × 10 million a second.
///
/// ```
/// use uuidkit::generator::sharded::ShardedGregorian;
/// let g = ShardedGregorian::new(uuidkit::Version::V1, 4)?;
/// let (a, b) = (g.next()?, g.next()?);
/// assert_ne!(a, b);
/// assert_eq!(a.clock_seq(), b.clock_seq(), "one thread, one generator");
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
#[derive(Debug)]
pub struct ShardedGregorian {
    shards: Box<[Mutex<GregorianGenerator>]>,
    next_shard: AtomicUsize,
    id: u64,
}

static IDS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The shard this thread uses in each sharded generator, by the generator's ID.
    static SHARD_OF: RefCell<Vec<(u64, usize)>> = const { RefCell::new(Vec::new()) };
}

impl ShardedGregorian {
    /// `shards` generators (at least 1) of `version` (v6, or v1 for anything else) on
    /// the system clock, sharing the node of the strategy `UUIDKIT_NODE` names (a random
    /// one for `static` and `random`): an error when that node has fewer than `shards`
    /// free clock sequences in this process.
    ///
    /// # Errors
    ///
    /// [`GenError::ClockSequencesExhausted`] when the node has fewer than `shards` free clock
    /// sequences in this process.
    pub fn new(version: Version, shards: usize) -> Result<ShardedGregorian, GenError> {
        let strategy = NodeStrategy::from_env().ok().flatten().unwrap_or_default();
        let node = match strategy {
            NodeStrategy::Static | NodeStrategy::Random => {
                crate::node::random_node(&mut crate::random::Csprng)
            }
            s => s.resolve(&mut crate::random::Csprng).0,
        };
        ShardedGregorian::with_node(version, shards, node)
    }

    /// `shards` generators (at least 1) of `version` with the node `node`.
    ///
    /// # Errors
    ///
    /// [`GenError::ClockSequencesExhausted`] when `node` has fewer than `shards` free clock
    /// sequences in this process.
    pub fn with_node(
        version: Version,
        shards: usize,
        node: NodeId,
    ) -> Result<ShardedGregorian, GenError> {
        let make = || {
            let g = if version == Version::V6 {
                GregorianGenerator::v6()
            } else {
                GregorianGenerator::v1()
            };
            g.with_node(NodeStrategy::Fixed(node))
        };
        let mut all = Vec::with_capacity(shards.max(1));
        for _ in 0..shards.max(1) {
            let mut g = make();
            // Claimed now, so that a node without enough free clock sequences is an
            // error here rather than at some later UUID.
            g.reserve_clock_seq()?;
            all.push(Mutex::new(g));
        }
        Ok(ShardedGregorian {
            shards: all.into_boxed_slice(),
            next_shard: AtomicUsize::new(0),
            id: IDS.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// How many generators it holds.
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// The shard of the calling thread, chosen in turn on its first call.
    fn my_shard(&self) -> usize {
        SHARD_OF.with(|m| {
            let mut m = m.borrow_mut();
            if let Some(&(_, i)) = m.iter().find(|(id, _)| *id == self.id) {
                return i;
            }
            let i = self.next_shard.fetch_add(1, Ordering::Relaxed) % self.shards.len();
            m.push((self.id, i));
            i
        })
    }

    /// The next UUID from the calling thread's generator.
    ///
    /// # Errors
    ///
    /// As [`GregorianGenerator::next`](super::gregorian::GregorianGenerator::next).
    // Fallible, so not `Iterator::next`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&self) -> Result<Uuid, GenError> {
        self.next_from(self.my_shard())
    }

    /// The next UUID from generator `shard` (modulo the number of generators): for one
    /// thread that takes from each in turn, as `uuidkit gen v1 --shards N` does.
    ///
    /// # Errors
    ///
    /// As [`GregorianGenerator::next`](super::gregorian::GregorianGenerator::next).
    pub fn next_from(&self, shard: usize) -> Result<Uuid, GenError> {
        let g = &self.shards[shard % self.shards.len()];
        // A panic elsewhere leaves the generator consistent (see the process-wide locks).
        g.lock().unwrap_or_else(|e| e.into_inner()).next()
    }
}

impl ShardedGregorian {
    /// Fills `out` from generator `shard` (modulo the number of generators), under one
    /// lock: for one thread that takes a batch from each in turn. On an error, the
    /// UUIDs before it are in `out[..done]` and `Err((done, error))` says how many.
    ///
    /// ```
    /// use uuidkit::generator::sharded::ShardedGregorian;
    /// let g = ShardedGregorian::new(uuidkit::Version::V1, 2)?;
    /// let mut batch = [uuidkit::Uuid::NIL; 8];
    /// g.fill_from(1, &mut batch).map_err(|(_, e)| e)?;
    /// assert!(batch.iter().all(|u| u.clock_seq() == batch[0].clock_seq()));
    /// # Ok::<(), uuidkit::generator::GenError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `(done, error)`: the first error of
    /// [`GregorianGenerator::next`](super::gregorian::GregorianGenerator::next), after `done`
    /// UUIDs were written.
    pub fn fill_from(&self, shard: usize, out: &mut [Uuid]) -> Result<(), (usize, GenError)> {
        let mut g = self.shards[shard % self.shards.len()]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for (done, u) in out.iter_mut().enumerate() {
            *u = g.next().map_err(|e| (done, e))?;
        }
        Ok(())
    }
}

impl Drop for ShardedGregorian {
    fn drop(&mut self) {
        // Forget this generator's entry in the dropping thread (others' entries are a few
        // bytes each and never match a new ID).
        let _ = SHARD_OF.try_with(|m| m.borrow_mut().retain(|(id, _)| *id != self.id));
    }
}
