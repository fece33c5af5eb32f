//! Devices, contexts, queues, allocations and program caches of the GPU
//! runtimes the engines run on (OpenCL, Level Zero): RAII over driver handles.
//! The CPU engine has no runtime module: host memory and threads are plain Rust.
//!
//! Layer: below `core`. OpenCL: `ocl`; Level Zero: `ze`; kernel arguments, which both GPU
//! runtimes take: `kernel_arg`.

pub mod kernel_arg;
pub mod ocl;
pub mod program_cache;
pub mod ze;
