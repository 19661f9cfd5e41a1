//! Stateful generators, and the process-wide ones behind [`v1`], [`v4`], [`v6`], [`v7`]
//! and [`v8`].
//!
//! - [`gregorian`]: v1, v2 and v6 (100 ns since 1582, clock sequence, node ID).
//! - [`unix`]: v7 (Unix milliseconds), all three methods of RFC 9562 §6.2.
//! - [`custom`]: time-based v8 (Appendix B.1 layout).
//!
//! Each generator is a state machine over a [`Clock`](crate::time::Clock) and a random
//! source ([`RngCore`](crate::random::RngCore)): create and own one for full control, or
//! call the functions here, which share one generator per version per process.
//!
//! # Process-wide guarantees
//! From every thread of a process: every UUID returned by these functions is distinct,
//! and for v6, v7 and v8 each is greater than every UUID of the same version the process
//! generated before it. v1, v6 and v8 are handed out under one lock per version; v7 takes
//! no lock: its state is one 128-bit atomic advanced by compare-and-swap, whose order is
//! the order of the UUIDs.

use core::fmt;
use std::sync::{LazyLock, Mutex, MutexGuard};

pub mod custom;
pub mod gregorian;
pub(crate) mod monotonic;
pub mod unix;

use crate::Uuid;
use crate::time::UnixTime;

/// Why a generator could not give a UUID.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenError {
    /// Every 100 ns tick up to a millisecond ahead of the clock is used, and the
    /// generator was told to report it ([`gregorian::OverrunPolicy::Error`]).
    Overrun {
        /// The last timestamp handed out.
        timestamp: UnixTime,
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
        }
    }
}

impl std::error::Error for GenError {}

static V1: LazyLock<Mutex<gregorian::GregorianGenerator>> =
    LazyLock::new(|| Mutex::new(gregorian::GregorianGenerator::v1()));
static V6: LazyLock<Mutex<gregorian::GregorianGenerator>> =
    LazyLock::new(|| Mutex::new(gregorian::GregorianGenerator::v6()));
static V7: unix::SharedV7 = unix::SharedV7::new();
static V8: Mutex<custom::CustomGenerator> = Mutex::new(custom::CustomGenerator::new());

/// A poisoned lock only means another thread panicked while holding it; the generator
/// state inside is still consistent (each step is a few assignments), so go on with it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A v1 UUID from the process-wide generator (node strategy from `UUIDKIT_NODE`, waits
/// on overrun, so it never fails).
///
/// ```
/// assert_eq!(uuidkit::v1().version(), uuidkit::Version::V1);
/// ```
pub fn v1() -> Uuid {
    lock(&V1)
        .next()
        .expect("the process-wide v1 generator waits on overrun")
}

/// A v4 UUID: 122 bits from the CSPRNG ([`crate::random::Csprng`]).
///
/// ```
/// assert_ne!(uuidkit::v4(), uuidkit::v4());
/// ```
#[inline]
pub fn v4() -> Uuid {
    crate::layout::v4::encode(crate::random::bytes16())
}

/// A v6 UUID from the process-wide generator: greater than every v6 UUID this process
/// generated before.
///
/// ```
/// let a = uuidkit::v6();
/// assert!(uuidkit::v6() > a);
/// ```
pub fn v6() -> Uuid {
    lock(&V6)
        .next()
        .expect("the process-wide v6 generator counts on in the clock sequence on overrun")
}

/// A v7 UUID (Method 1, 42-bit counter) from the process-wide generator: greater than
/// every v7 UUID this process generated before.
///
/// ```
/// let a = uuidkit::v7();
/// assert!(uuidkit::v7() > a);
/// ```
#[inline]
pub fn v7() -> Uuid {
    V7.next()
}

/// A time-based v8 UUID (Appendix B.1 layout) from the process-wide generator: greater
/// than every such UUID this process generated before.
///
/// ```
/// let a = uuidkit::v8();
/// assert!(uuidkit::v8() > a);
/// ```
pub fn v8() -> Uuid {
    lock(&V8).next()
}
