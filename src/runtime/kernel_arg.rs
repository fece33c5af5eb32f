//! Kernel arguments as the primitives spell them, for either runtime.
//!
//! Layer: runtime. OpenCL sets them with `clSetKernelArg` (`ocl::program`),
//! Level Zero with `zeKernelSetArgumentValue` (`ze::module`). An OpenCL
//! buffer (`Mem`) only exists on OpenCL engines; the other variants mean the
//! same on both (a USM pointer or NULL is passed by value).

use std::ffi::c_void;

use crate::runtime::ocl::Mem;

/// One kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum KernelArg<'a> {
    /// An OpenCL buffer (OpenCL engines only).
    Mem(&'a Mem),
    /// A NULL buffer (`__global T *` that the kernel will not touch).
    NullMem,
    /// A USM pointer (OpenCL: `clSetKernelArgMemPointerINTEL`, the device
    /// needs USM; Level Zero: the pointer by value).
    Usm(*const c_void),
    /// `__local` memory of this many bytes.
    Local(usize),
    /// A by-value `int`.
    I32(i32),
    /// A by-value `uint`.
    U32(u32),
    /// A by-value `long`.
    I64(i64),
    /// A by-value `ulong`.
    U64(u64),
    /// A by-value `float`.
    F32(f32),
    /// Any other by-value argument (a struct), as its bytes.
    Bytes(&'a [u8]),
}
