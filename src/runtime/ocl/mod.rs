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
//! Checking user handles: `retain_borrowed` of every handle type runs the
//! checks of `foreign.rs` first, so NULL, wild pointers, memory that is no
//! OpenCL object of a loaded platform and, where the driver tells, objects
//! of another type are `dnnl_invalid_arguments` before any OpenCL call sees
//! them. `foreign.rs` says what remains out of reach (a released object
//! whose memory still looks like one), which is why those functions stay
//! `unsafe fn`.

pub mod cache;
pub mod context;
pub mod device;
pub mod error;
pub mod event;
pub mod foreign;
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
pub use program::{Kernel, KernelArg, PTX_ARCH_SPECIFIC, Program};
pub use queue::{MapAccess, Queue, QueueProperties};
pub use select::{DeviceFilter, devices, devices_matching};
pub use usm::{
    UsmAlloc, UsmKind, is_svm_context, supports_usm, user_usm_kind, usm_alloc, usm_device,
    usm_free, usm_kind,
};
