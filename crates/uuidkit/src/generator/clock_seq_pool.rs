//! The clock sequences held by the live Gregorian generators of this process, per node:
//! no two generators hold the same (node, clock sequence), as uuid-creator hands out
//! clock sequences from a pool so that two instances in one JVM never share one.
//!
//! Two v1 generators with the same node and the same clock sequence would make the same
//! UUID whenever they read the same 100 ns tick. Each in-memory
//! [`GregorianGenerator`](super::gregorian::GregorianGenerator) therefore *claims* its
//! (node, clock sequence) here before making a UUID with it, and releases it when it
//! moves to another or is dropped. A node has 16,384 clock sequences: the 16,385th live
//! generator of one node gets an error.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use crate::layout::ClockSequence;
use crate::node::NodeId;

/// Bitmaps of the claimed clock sequences, by node. A `BTreeMap` because its `new` is
/// `const`; an entry goes when its last claim does.
pub(crate) type Pool = BTreeMap<u64, Box<[u64; 256]>>;

static POOL: Mutex<Pool> = Mutex::new(BTreeMap::new());

fn pool() -> MutexGuard<'static, Pool> {
    // Through the generators' `lock`, which sets the fork handlers that take this lock
    // around `fork` (each change is a bit flip: a poisoned lock is still consistent).
    super::lock(&POOL)
}

/// Takes the pool's lock for `fork` (see the generators' fork handlers), so that a child
/// never inherits it held by a thread it does not have.
pub(crate) fn lock_for_fork() -> MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why a claim failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PoolError {
    /// Every clock sequence of the node is held.
    Exhausted,
    /// The one asked for exactly is held by another generator.
    InUse,
}

/// A (node, clock sequence) held by one generator; released when dropped.
#[derive(Debug)]
pub(crate) struct Claim {
    node: NodeId,
    clock_seq: ClockSequence,
}

impl Claim {
    /// Whether this claim is for `node` and `clock_seq`.
    pub(crate) fn is(&self, node: NodeId, clock_seq: ClockSequence) -> bool {
        self.node == node && self.clock_seq == clock_seq
    }

    /// The clock sequence held.
    pub(crate) fn clock_seq(&self) -> ClockSequence {
        self.clock_seq
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut p = pool();
        let key = self.node.as_u64();
        if let Some(bits) = p.get_mut(&key) {
            let cs = self.clock_seq.get();
            bits[(cs >> 6) as usize] &= !(1 << (cs & 63));
            if bits.iter().all(|w| *w == 0) {
                p.remove(&key);
            }
        }
    }
}

/// Claims `wish` for `node`, or with `exact` false the first free clock sequence after
/// it (wrapping from 16383 to 0).
pub(crate) fn claim(node: NodeId, wish: ClockSequence, exact: bool) -> Result<Claim, PoolError> {
    let mut p = pool();
    let bits = p.entry(node.as_u64()).or_insert_with(|| Box::new([0; 256]));
    let mut cs = wish.get();
    for _ in 0..=ClockSequence::MAX {
        let (word, bit) = ((cs >> 6) as usize, cs & 63);
        if bits[word] >> bit & 1 == 0 {
            bits[word] |= 1 << bit;
            return Ok(Claim {
                node,
                clock_seq: ClockSequence::from_masked(cs),
            });
        }
        if exact {
            return Err(PoolError::InUse);
        }
        cs = (cs + 1) & ClockSequence::MAX;
    }
    Err(PoolError::Exhausted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_distinct_and_released_on_drop() {
        let node = NodeId::from_u64(0x5eed_0000_0001).unwrap();
        let cs = ClockSequence::new(5).unwrap();
        let a = claim(node, cs, false).unwrap();
        let b = claim(node, cs, false).unwrap();
        assert_eq!((a.clock_seq().get(), b.clock_seq().get()), (5, 6));
        assert_eq!(claim(node, cs, true).unwrap_err(), PoolError::InUse);
        drop(a);
        let c = claim(node, cs, true).unwrap();
        assert_eq!(c.clock_seq().get(), 5);
        drop((b, c));
        assert!(!pool().contains_key(&node.as_u64()), "an empty entry goes");
    }

    #[test]
    fn wraps_and_runs_out() {
        let node = NodeId::from_u64(0x5eed_0000_0002).unwrap();
        let last = ClockSequence::new(ClockSequence::MAX).unwrap();
        let all: Vec<Claim> = (0..=ClockSequence::MAX)
            .map(|_| claim(node, last, false).unwrap())
            .collect();
        assert_eq!(all[1].clock_seq().get(), 0, "wraps from 16383 to 0");
        assert_eq!(claim(node, last, false).unwrap_err(), PoolError::Exhausted);
    }
}
