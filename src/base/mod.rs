//! Base services every layer uses: errors, the environment variables,
//! names of C values, the library version, the verbose log, allocation-failure
//! injection for tests, the CPU ISA level.
//!
//! Layer: the bottom (over `abi` only). `runtime`, `core`, `prims`, `graph`
//! and `capi` all import from here; nothing here imports any of them.

pub mod env;
pub mod error;
pub mod fault;
pub mod isa;
pub mod names;
pub mod verbose;
pub mod version;

pub use error::{Error, Result};
