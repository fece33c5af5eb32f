//! Helpers every primitive kind shares: element types and their conversions,
//! blocked layouts as kernels walk them, the buffers behind execution
//! arguments, and splitting CPU work over threads.
//!
//! Layer: prims, over `core` and `runtime`.

pub mod buffers;
pub mod dt;
pub mod layout;
pub mod parallel;
