//! Devices, contexts, queues, allocations and program caches of the runtimes
//! the engines run on (CPU, OpenCL, Level Zero): RAII over driver handles.
//!
//! Layer: below `core`. OpenCL: `ocl`; Level Zero: `ze`; kernel arguments, which both GPU
//! runtimes take: `kernel_arg`.

pub mod kernel_arg;
pub mod ocl;
pub mod program_cache;
pub mod ze;
