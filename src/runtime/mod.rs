//! Devices, contexts, queues, allocations and program caches of the runtimes
//! the engines run on (CPU, OpenCL, Level Zero): RAII over driver handles.
//!
//! Layer: below `core`. The OpenCL and Level Zero runtimes arrive with the
//! engine (issue 3) and Level Zero (issue 5) issues.
