//! The one place where uuidkit uses `unsafe`: what must talk to the CPU or the operating
//! system below `std` — the SIMD text codec ([`simd`]), the CSPRNG's AES-128-CTR written straight
//! into its destination ([`AesCtr`]), the time-stamp counter ([`tsc`])
//! the `fork` hooks ([`fork_generation`], [`set_fork_handlers`]) and the coarse monotonic
//! clock ([`fence_clock_ns`]). Every block carries a `// SAFETY:`
//! comment; everything here is checked against a safe reference path by tests, fuzzing
//! and Miri.

#![allow(unsafe_code)]

#[cfg(feature = "std")]
mod aes;
pub(crate) mod simd;
#[cfg(feature = "std")]
pub(crate) use aes::{AesCtr, Mask, uuid_blocks};
#[cfg(feature = "std")]
pub(crate) mod tsc;

#[cfg(feature = "std")]
mod os;
#[cfg(all(feature = "std", feature = "etcd"))]
pub(crate) use os::fence_clock_ns;
#[cfg(all(feature = "std", unix))]
pub(crate) use os::{block_termination_signals, die_of, effective_uid, wait_for_termination};
#[cfg(feature = "std")]
pub(crate) use os::{
    fork_generation, fork_generation_relaxed, has_aes_instructions, is_root, set_fork_handlers,
};
