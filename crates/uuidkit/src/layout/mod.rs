//! What each version's bits mean (RFC 9562 §5): one module a version, each a pair of pure
//! functions, `encode(fields) -> Uuid` and `decode(Uuid) -> fields`, with no clock, no
//! randomness and no state. Generators ([`crate::generator`]) decide the field values; these
//! modules only pack and unpack them.
//!
//! Beyond the versions: [`draft`] has the 2021 draft's v7 and v8 layouts, and [`Layout`]
//! names every layout a v8 UUID may follow (`b1`, `b2`, `draft-v7-ms`, …) for
//! [`decode_as`], which reads a UUID as the layout the caller names.

pub mod v1;
pub mod v2;
pub mod v3;
pub mod v4;
pub mod v5;
pub mod v6;
pub mod v7;
pub mod v8;

mod choice;
pub mod draft;
pub use choice::{Decoded, Layout, decode_as};

mod name_based;
pub use name_based::HashAlgorithm;

mod bits;
mod error;
mod gregorian;
pub use error::LayoutError;
pub use gregorian::{ClockSequence, GregorianFields};
// For crate::inspect, which reads these fields of any v1, v2 or v6 UUID.
pub(crate) use gregorian::{clock_seq_of, node_of};
