//! Node IDs: the 48-bit `node` field of v1, v2 and v6 (RFC 9562 §5.1, §6.10).

// The value and its parser need no `std`; the strategies read the host and the
// environment.
mod id;
#[cfg(feature = "std")]
mod strategy;

pub use id::NodeId;
#[cfg(feature = "std")]
pub use strategy::{NodeEnvError, NodeStrategy, host_hash_node, random_node};
