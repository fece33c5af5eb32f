//! The graph API: IR, partitioner, compiler onto primitives, allocators.
//!
//! Layer: uses `core` and `prims`. It arrives with issue 6.

pub mod alloc;
pub mod reaper;
pub mod tensor;
