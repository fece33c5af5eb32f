//! The graph API: IR, partitioner, compiler onto primitives, allocators.
//!
//! Layer: uses `core` and `prims`. A C caller describes a computation as
//! ops connected by logical tensors ([`op`], [`logical_tensor`]), adds them
//! to a [`graph`], which the [`partitioner`] cuts into [`partition`]s;
//! a partition is compiled ([`lower`]: onto primitives of `prims`) into a
//! [`compiled`] partition that executes on a stream with tensors
//! ([`tensor`]) whose temporaries come from the engine's graph allocator
//! ([`alloc`]). Around that: the op schemas ([`schema`]), the constant
//! tensor cache ([`constant_cache`]), the compiled-partition cache
//! ([`cp_cache`]), graph dumps ([`dump`]) and verbose lines ([`verbose`]).

pub mod alloc;
pub mod compiled;
pub mod constant_cache;
pub mod cp_cache;
pub mod dump;
// The graph object of the graph API.
#[allow(clippy::module_inception)]
pub mod graph;
pub mod logical_tensor;
pub mod lower;
pub mod op;
pub mod partition;
pub mod partitioner;
pub mod reaper;
pub mod schema;
pub mod tensor;
pub mod verbose;

#[cfg(test)]
mod tests;
