//! One folder per primitive kind: descriptor logic, CPU kernels and OpenCL
//! launch code with their `.cl` sources.
//!
//! Layer: uses `core` and `runtime`. The primitives arrive with issue 4.
