//! Entry points of `dnnl_ze.h`: Level Zero engines, streams, memory,
//! execution with events, and engine cache blobs.
//!
//! Without a Level Zero loader (or driver) they return `dnnl_unimplemented`
//! with the reason in the verbose log; NULL or foreign handles are
//! `dnnl_invalid_arguments`. Handles the user gives (driver, device,
//! context, command list, events, USM pointers) are borrowed: never
//! destroyed by the library, so they must outlive the objects made on them.

pub mod engine;
pub mod execute;
pub mod memory;
pub mod stream;
