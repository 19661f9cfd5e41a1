//! The x86-64 kernels: `kernels.rs` the per-UUID kernels of each level (and why their
//! memory accesses are safe), `batch.rs` the batch kernels built on them. Only declares
//! and re-exports, so that `batch.rs` takes the kernels from their own file.

// As in kernels.rs: the `unsafe` blocks are written for compilers before Rust 1.87 (the
// crate supports 1.85), where the intrinsics are `unsafe` to call; this covers batch.rs.
#![allow(unused_unsafe)]

pub(super) mod batch;
mod kernels;

pub(super) use kernels::{avx2, sse2, ssse3};
