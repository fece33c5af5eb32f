//! `dnnl_version.h`: the oneDNN API version this library implements.
//! `tests/version.rs` keeps these equal to the crate version in Cargo.toml.

/// Major version.
pub const DNNL_VERSION_MAJOR: i32 = 3;
/// Minor version.
pub const DNNL_VERSION_MINOR: i32 = 13;
/// Patch version.
pub const DNNL_VERSION_PATCH: i32 = 0;
