//! [`GenError`], why a generator could not give a UUID. A leaf, so that the generators
//! import it from here rather than from `mod.rs`.

use core::fmt;

use crate::time::UnixTime;

/// Why a generator could not give a UUID.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenError {
    /// Every 100 ns tick up to a millisecond ahead of the clock is used, and the
    /// generator was told to report it ([`OverrunPolicy::Error`](super::gregorian::OverrunPolicy::Error)).
    Overrun {
        /// The last timestamp handed out.
        timestamp: UnixTime,
    },
    /// The timestamp field is used up to its last value: the clock reads at or past the
    /// end of the 60-bit Gregorian range (5236-03-31), and every later UUID would need a
    /// timestamp the field cannot hold. Waiting cannot help; a clock set that far ahead
    /// needs correcting.
    TimestampExhausted {
        /// The last timestamp the field holds.
        timestamp: UnixTime,
    },
    /// Another live Gregorian generator of this process holds the clock sequence given
    /// for this node ([`clock_seq_pool`](super::clock_seq_pool)).
    ClockSequenceInUse {
        /// The node.
        node: crate::node::NodeId,
        /// The clock sequence asked for.
        clock_seq: crate::layout::ClockSequence,
    },
    /// Live Gregorian generators of this process hold all 16,384 clock sequences of the
    /// node ([`clock_seq_pool`](super::clock_seq_pool)).
    ClockSequencesExhausted {
        /// The node.
        node: crate::node::NodeId,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Overrun { timestamp } => write!(
                f,
                "overrun: every 100 ns tick up to {} is used; retry when the clock has moved on",
                timestamp.to_rfc3339(7)
            ),
            GenError::TimestampExhausted { timestamp } => write!(
                f,
                "the 60-bit Gregorian timestamp is used up to its last tick, {}: \
                 no later v1/v2/v6 UUID can be made (is the clock set past the year 5236?)",
                timestamp.to_rfc3339(7)
            ),
            GenError::ClockSequenceInUse { node, clock_seq } => write!(
                f,
                "clock sequence {} of node {node} is held by another live generator in this \
                 process: no two may share a (node, clock sequence), or they would make the \
                 same UUIDs; give another clock sequence (or none: a free one is chosen)",
                clock_seq.get()
            ),
            GenError::ClockSequencesExhausted { node } => write!(
                f,
                "all 16,384 clock sequences of node {node} are held by live generators in \
                 this process: no two may share a (node, clock sequence), or they would make \
                 the same UUIDs; drop one, or give this generator another node"
            ),
        }
    }
}

impl std::error::Error for GenError {}
