//! The graph API: IR, partitioner, compiler onto primitives, allocators.
//!
//! Layer: uses `core` and `prims`. It arrives with issue 6.

pub mod schema;
