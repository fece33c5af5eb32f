//! Devices, contexts, queues, allocations and program caches of the runtimes
//! the engines run on (CPU, OpenCL, Level Zero): RAII over driver handles.
//!
//! Layer: below `core`. OpenCL: `ocl`. The Level Zero runtime arrives with
//! issue 5.

pub mod ocl;
