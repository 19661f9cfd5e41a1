//! Who made a UUID: node IDs, the 48-bit `node` field of v1, v2 and v6 (RFC 9562 §5.1,
//! §6.10), and machine IDs, the bits v7 and the 2021 draft's layouts may give a host
//! ([`machine_id`]; also at its first home, `uuidkit::generator::machine_id`). Values,
//! below the generators, the store and the service that carry them.

// The value and its parser need no `std`; the strategies read the host and the
// environment.
mod id;
#[cfg(feature = "std")]
pub mod machine_id;
#[cfg(feature = "std")]
mod strategy;

pub use id::NodeId;
#[cfg(feature = "std")]
pub use strategy::{NodeEnvError, NodeStrategy, host_hash_node, random_node};
