//! The buffers behind execution arguments, taken out of their memory objects
//! for the length of one execution.
//!
//! Layer: prims, over `core::memory`. A memory object's storage sits behind a
//! lock; kernels must not hold two such locks at once (an in-place execution
//! names one memory twice, and two threads could lock two memories in
//! opposite orders), so each argument's buffer is copied out as an owned
//! value: a host address, a retained `cl_mem`, or a USM address. The memory
//! objects themselves stay alive in the execution's arguments.

use std::ffi::c_void;

use crate::core::error::{Error, Result};
use crate::core::gpu::KernelArg;
use crate::core::memory::{Memory, Storage};
use crate::core::ocl_storage::OclStorage;
use crate::runtime::ocl::Mem;

/// One argument's buffer.
pub enum Buffer {
    /// The memory has no buffer (`DNNL_MEMORY_NONE`, or an empty OpenCL tensor).
    None,
    /// Host memory at `addr`; `capacity` is known when the library allocated it.
    Host {
        addr: usize,
        capacity: Option<usize>,
    },
    /// An OpenCL buffer (retained for the execution).
    Mem(Mem),
    /// A USM pointer; `capacity` is known when the library allocated it.
    Usm {
        addr: usize,
        capacity: Option<usize>,
    },
}

impl Buffer {
    /// The buffer of `memory`'s first handle.
    pub fn of(memory: &Memory) -> Result<Buffer> {
        let own_size = memory.md().size(0);
        memory.with_storage(0, |s| {
            Ok(match s {
                Storage::None => Buffer::None,
                Storage::Host { addr, owned } => Buffer::Host {
                    addr: *addr,
                    capacity: owned.as_ref().map(|_| own_size),
                },
                Storage::Ocl(OclStorage::Buffer(mem)) => Buffer::Mem(mem.clone()),
                Storage::Ocl(OclStorage::Usm { addr, owned, .. }) => Buffer::Usm {
                    addr: *addr,
                    capacity: owned.as_ref().map(|_| own_size),
                },
                Storage::Ze(s) => Buffer::Usm {
                    addr: s.handle(),
                    capacity: s.is_owned().then_some(own_size),
                },
            })
        })
    }

    /// The buffer of a memory of values the primitive reads whole (scales,
    /// zero points: `bytes` bytes from the buffer start). Besides
    /// [`Buffer::check_holds`], the memory's descriptor must describe that
    /// many bytes: for a caller's pointer it is the only promise of the
    /// buffer's size (a 1x0 descriptor over a user pointer is 0 bytes).
    pub fn values(memory: &Memory, bytes: usize, what: &str) -> Result<Buffer> {
        let described = memory.md().size(0);
        if described < bytes {
            return Err(Error::invalid(format!(
                "the {what} memory's descriptor holds {described} bytes, the primitive reads {bytes}"
            )));
        }
        let buffer = Buffer::of(memory)?;
        buffer.check_holds(bytes, what)?;
        Ok(buffer)
    }

    /// Checks that the buffer exists and holds `bytes` bytes where that can
    /// be known (our own allocations and OpenCL buffers; a user pointer is
    /// trusted, as upstream trusts it).
    pub fn check_holds(&self, bytes: usize, what: &str) -> Result<()> {
        let capacity = match self {
            Buffer::None => {
                return Err(Error::invalid(format!("the {what} memory has no buffer")));
            }
            Buffer::Host { addr: 0, .. } => {
                return Err(Error::invalid(format!(
                    "the {what} memory has a NULL data handle"
                )));
            }
            Buffer::Host { capacity, .. } | Buffer::Usm { capacity, .. } => *capacity,
            Buffer::Mem(mem) => Some(mem.size()?),
        };
        match capacity {
            Some(have) if have < bytes => Err(Error::invalid(format!(
                "the {what} buffer has {have} bytes, the primitive's descriptor needs {bytes}"
            ))),
            _ => Ok(()),
        }
    }

    /// The host address (0 for other buffers).
    pub fn host_addr(&self) -> usize {
        match self {
            Buffer::Host { addr, .. } => *addr,
            _ => 0,
        }
    }

    /// Whether `self` and `other` are the same buffer (same `cl_mem` or address).
    pub fn same_as(&self, other: &Buffer) -> bool {
        match (self, other) {
            (Buffer::Host { addr: a, .. }, Buffer::Host { addr: b, .. }) => a == b,
            (Buffer::Usm { addr: a, .. }, Buffer::Usm { addr: b, .. }) => a == b,
            (Buffer::Mem(a), Buffer::Mem(b)) => a.raw() == b.raw(),
            _ => false,
        }
    }

    /// The address of a USM buffer (`None` for others).
    pub fn usm_addr(&self) -> Option<usize> {
        match self {
            Buffer::Usm { addr, .. } => Some(*addr),
            _ => None,
        }
    }

    /// The buffer as a GPU kernel argument.
    pub fn kernel_arg(&self) -> Result<KernelArg<'_>> {
        match self {
            Buffer::Mem(mem) => Ok(KernelArg::Mem(mem)),
            Buffer::Usm { addr, .. } => Ok(KernelArg::Usm(*addr as *const c_void)),
            Buffer::None => Ok(KernelArg::NullMem),
            Buffer::Host { .. } => Err(Error::invalid("host memory given to a GPU kernel")),
        }
    }
}

/// A shared view of `len` bytes of host memory at `addr`.
///
/// # Safety
/// `addr..addr + len` must be readable for `'a`, and nothing may write it
/// while the view lives.
pub unsafe fn host_bytes<'a>(addr: usize, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(addr as *const u8, len) }
}

/// A mutable view of `len` bytes of host memory at `addr`.
///
/// # Safety
/// `addr..addr + len` must be writable for `'a`, and no other view of those
/// bytes may exist while this one lives.
pub unsafe fn host_bytes_mut<'a>(addr: usize, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) }
}
