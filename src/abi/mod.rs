//! The C-visible types and constants of the oneDNN v3.13 ABI, and nothing else.
//!
//! Layer: bottom. Depends on nothing of ours; holds no logic. cbindgen reads
//! these files to write the headers (see build.rs), so every item here is
//! spelled the way C sees it.
//!
//! The C enums are written as Rust enums in `c_enums/*.rs`, which are not
//! compiled: build.rs turns each into a `#[repr(transparent)]` newtype plus one
//! constant per enumerator (included below), because a C caller may pass any
//! integer and a Rust enum holding an undeclared value is undefined behaviour.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

pub mod common_types;
pub mod config;
pub mod graph_ocl;
pub mod graph_types;
pub mod ocl_types;
pub mod types;
pub mod ukernel_types;
pub mod version;
pub mod ze_types;

mod macros {
    pub mod common_types;
    pub mod graph_types;
    pub mod types;
}

pub use common_types::*;
pub use config::*;
pub use graph_ocl::*;
pub use graph_types::*;
pub use ocl_types::*;
pub use types::*;
pub use ukernel_types::*;
pub use version::*;
pub use ze_types::*;

mod layout;
