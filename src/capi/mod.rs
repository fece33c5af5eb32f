//! Every exported `extern "C"` function, one folder per upstream header.
//!
//! Layer: top. A function here checks its arguments, calls `core` (or
//! `graph`), and turns the `Result` into a `dnnl_status_t` through
//! `boundary::guard`. No logic lives here. Each folder's `unimplemented.rs`
//! holds the entry points that are exported but not implemented yet, so the
//! split between done and not done is visible in the tree.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]
// Every function here is `unsafe extern "C"` because a C caller passes raw
// pointers; the contract is the C API's (documented per function in the
// header), and each function checks what can be checked (NULL, alignment,
// handles through the registry) before touching anything.
#![allow(clippy::missing_safety_doc)]

pub mod boundary;
pub mod common;
pub mod debug;
pub mod dnnl;
pub mod graph;
pub mod graph_ocl;
pub mod handles;
pub mod ocl;
pub mod threadpool;
#[cfg(feature = "experimental_ukernel")]
pub mod ukernel;
pub mod ze;
