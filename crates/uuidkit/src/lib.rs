//! # uuidkit
//!
//! Every UUID of RFC 9562: a 16-byte [`Uuid`] value, its text forms, the layout of each
//! version, and generators that never repeat and never go backwards.
//!
//! ```
//! use uuidkit::{namespace, Uuid, Version};
//!
//! // Generate: time-ordered, random, name-based.
//! let a = uuidkit::v7();
//! let b = uuidkit::v7();
//! assert!(a < b);                                   // strictly increasing in a process
//! assert_eq!(uuidkit::v4().version(), Version::V4);
//! let n = uuidkit::v5(&namespace::DNS, b"www.example.com");
//! assert_eq!(n.to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
//!
//! // Parse any of the four text forms, and read the fields back.
//! let u: Uuid = "urn:uuid:C232AB00-9414-11EC-B3C8-9F6BDECED846".parse()?;
//! assert_eq!(u.version(), Version::V1);
//! assert_eq!(u.timestamp().unwrap().to_rfc3339(), "2022-02-22T19:22:22.0000000Z");
//! assert_eq!(u.clock_seq(), Some(0x33c8));
//! # Ok::<(), uuidkit::ParseError>(())
//! ```
//!
//! ## Where things are
//! - [`Uuid`], [`Version`], [`Variant`]: the value (`uuid.rs`).
//! - [`text`]: parsing and formatting ([`Uuid::format`], `Display`); [`uuid!`] for
//!   checked literals.
//! - [`encoding`]: the compact forms (base32/ULID, base58, base62, base64url).
//! - [`layout`]: one module per version, pure `encode`/`decode` of the fields; the 2021
//!   draft's layouts and [`layout::decode_as`] for v8 UUIDs of a named layout.
//! - [`time`]: timestamps, RFC 3339, the [`Clock`](time::Clock) trait.
//! - [`random`]: the CSPRNG; [`node`]: node IDs.
//! - [`generator`]: the stateful generators (v1, v6, v7, v8, the draft layouts), the
//!   process-wide defaults, machine-ID bits, the clock-sequence pool, sharded v1. The
//!   process-wide ones are unique and ordered within the process; [`use_state_file`]
//!   (or [`use_default_state_file`]) before the first UUID extends that to every process
//!   sharing the file, across restarts.
//! - [`store`]: generator state in a file shared by every generator on the host: leases
//!   of timestamp space that survive restarts, crashes and power loss.
//! - [`service`]: the protocol and client of `uuidkitd`, the host's UUID service.
//!
//! ## `no_std`
//! Everything that needs the operating system is behind the `std` feature, on by
//! default. With `default-features = false` the crate is `no_std` and needs only `core`
//! and `alloc` (for the `String`s of error messages, RFC 3339 text and
//! `encode_to_string`); what remains is:
//! - the value: [`Uuid`], [`Version`], [`Variant`], [`NodeId`], [`namespace`], and
//!   [`inspect`]'s accessors (timestamp, clock sequence, node, hash algorithm);
//! - the text codec: [`text`] and [`uuid!`], with the SIMD kernels the build's target
//!   features enable (`std` detects the CPU's at run time instead);
//! - the compact [`encoding`]s;
//! - the [`layout`]s, name-based included ([`v3`], [`v5`], [`v8_sha256`]);
//! - [`time`]'s timestamp types, conversions and RFC 3339 text, and the
//!   [`Clock`](time::Clock) trait for a clock of your own;
//! - the `serde` and `uuid` features (`serde` without `std` uses `serde`'s `alloc`).
//!
//! Without `std` there are no generators and no process-wide `v1`/`v4`/`v6`/`v7`/`v8`,
//! no CSPRNG, no system clock (`time::SystemClock`, `UnixTime::now`), no node IDs from
//! the host, no state store, no service client and no `collisions` estimates (they
//! need `f64::ln`). The database features turn `std` on. CI runs
//! `cargo build -p uuidkit --no-default-features` so this stays true.

#![cfg_attr(not(any(feature = "std", test)), no_std)]
// The docs link to the generators and the rest of the `std` side, absent without it.
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]
#![deny(unsafe_code)]
#![warn(missing_docs)]
// Every public fallible function says, under `# Errors`, when it fails.
#![warn(clippy::missing_errors_doc)]

// `String` and `format!` for the text of errors, RFC 3339 and the compact encodings.
extern crate alloc;

mod codec;
#[cfg(feature = "std")]
pub mod collisions;
#[cfg(any(
    feature = "postgres-types",
    feature = "sqlx",
    feature = "rusqlite",
    feature = "diesel"
))]
pub mod db;
pub mod encoding;
mod error;
#[cfg(feature = "etcd")]
pub mod fleet;
#[cfg(feature = "std")]
pub mod generator;
#[cfg(feature = "std")]
mod host;
pub mod inspect;
mod interop;
pub mod layout;
pub mod namespace;
pub mod node;
mod platform;
#[cfg(feature = "std")]
pub mod random;
#[cfg(feature = "serde")]
pub mod serde;
#[cfg(all(unix, feature = "std"))]
pub mod service;
#[cfg(all(feature = "std", unix))]
pub mod signals;
#[cfg(feature = "std")]
pub mod store;
pub mod text;
pub mod time;
mod uuid;

// From `process`, not `generator`: there `v7` and `v8` also name the generator modules,
// which belong under `generator`, not at the root.
pub use error::{Expected, InputKind, ParseError, UnknownName};
#[cfg(feature = "std")]
pub use generator::process::{try_v1, try_v6, v1, v4, v4_fill, v6, v7, v7_fill, v8};
#[cfg(feature = "std")]
pub use generator::{use_default_state_file, use_state_file};
pub use node::NodeId;
pub use text::{Case, Format};
pub use uuid::{Uuid, Variant, Version};

/// The v3 (MD5) UUID of `name` in `namespace`; see [`layout::v3`].
///
/// ```
/// let u = uuidkit::v3(&uuidkit::namespace::DNS, b"www.example.com");
/// assert_eq!(u.to_string(), "5df41881-3aed-3515-88a7-2f4a814cf09e");
/// ```
pub fn v3(namespace: &Uuid, name: &[u8]) -> Uuid {
    layout::v3::encode(namespace, name)
}

/// The v5 (SHA-1) UUID of `name` in `namespace`; see [`layout::v5`].
///
/// ```
/// let u = uuidkit::v5(&uuidkit::namespace::DNS, b"www.example.com");
/// assert_eq!(u.to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
/// ```
pub fn v5(namespace: &Uuid, name: &[u8]) -> Uuid {
    layout::v5::encode(namespace, name)
}

/// The name-based v8 (SHA-256, RFC 9562 Appendix B.2) UUID of `name` in `namespace`.
///
/// ```
/// let u = uuidkit::v8_sha256(&uuidkit::namespace::DNS, b"www.example.com");
/// assert_eq!(u.to_string(), "5c146b14-3c52-8afd-938a-375d0df1fbf6");
/// ```
pub fn v8_sha256(namespace: &Uuid, name: &[u8]) -> Uuid {
    layout::v8::encode_sha256(namespace, name)
}

/// What the workspace's own command, daemon, tests and fuzz targets need beyond the
/// library's API: the scalar reference codec the fuzz targets hold the SIMD kernels to,
/// the host's MAC address a test compares the `mac` node strategy with. Not part of the API: no promise of stability, hidden from the docs.
#[doc(hidden)]
pub mod __private {
    pub use crate::codec::scalar::{encode_hyphenated, encode_simple, parse_scalar};
    #[cfg(feature = "std")]
    pub use crate::host::primary_mac;
}

/// README.md's Rust examples, compiled and run as doctests (`cargo test -p uuidkit
/// --doc`) so that they cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// docs/fleet.md's Rust example (moved there from README.md), compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/fleet.md")]
pub struct FleetDocDoctests;
