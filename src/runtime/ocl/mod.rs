//! The OpenCL runtime: devices, contexts, queues, buffers, USM, events,
//! programs and kernels, as RAII types over driver handles.
//!
//! Layer: `runtime`, below `core`; it uses only `core`'s errors, environment
//! and verbose log, and knows nothing of engines or C callers. OpenCL is
//! loaded at run time (`loader.rs`): without it, [`devices`] is empty and
//! every other call fails cleanly.
//!
//! Ownership (STYLE.md, "Ownership and reference counts"): each handle type
//! has `from_owned(raw)` for references we created, `retain_borrowed(raw)`
//! for the user's (checked, then retained), `Clone` = retain, `Drop` =
//! release, and `raw()` to borrow; nothing gives a raw handle away by value.
//! All types are `Send + Sync` (`handle.rs` says why); setting kernel
//! arguments, the one call that is not thread-safe, is serialised per kernel
//! (`program.rs`). Nothing here runs at process exit: the library stays
//! open, and no static holds an OpenCL object.
//!
//! Checking user handles: `retain_borrowed` and `is_valid` reject NULL and
//! any handle the driver refuses for its `clGet*Info` reference-count query,
//! so the engine can return `dnnl_invalid_arguments` instead of crashing.
//! Two limits, which is why they are `unsafe fn`: a pointer to arbitrary
//! memory may crash inside OpenCL (the ICD loader reads the object's dispatch
//! table through it before any driver sees it), and a live object of another
//! type is only refused by drivers that check types (Intel's CPU runtime
//! does; PoCL and NVIDIA 580 answer the query for it).

pub mod cache;
pub mod context;
pub mod device;
pub mod error;
pub mod event;
mod handle;
pub mod info;
pub mod loader;
pub mod mem;
pub mod platform;
pub mod program;
pub mod queue;
pub mod select;
pub mod sys;
pub mod usm;

pub use cache::{ProgramCache, ProgramKey, cache_blob_id};
pub use context::Context;
pub use device::{Device, DeviceInfo, DeviceType};
pub use error::ClStatus;
pub use event::Event;
pub use mem::Mem;
pub use platform::Platform;
pub use program::{Kernel, KernelArg, Program};
pub use queue::{MapAccess, Queue, QueueProperties};
pub use select::{DeviceFilter, devices, devices_matching};
pub use usm::{UsmAlloc, UsmKind, supports_usm, usm_alloc, usm_device, usm_free, usm_kind};
