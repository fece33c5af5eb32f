//! The data of a memory object on an OpenCL engine: a buffer (`cl_mem`) or a
//! USM allocation, the library's own or the user's.
//!
//! Layer: core, over `runtime::ocl`. A user `cl_mem` is retained while held
//! and released when replaced or when the memory dies; a user USM pointer is
//! never freed. What the library allocates starts zeroed, by a kernel built
//! through the engine's program cache (so the cache blob has something real
//! to carry from the first allocation on).
//!
//! An allocation the device cannot make is `Error::OutOfMemory` naming the
//! size and the device, as on the CPU engine: more than the device's largest
//! allocation (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`) is refused before the driver is
//! asked, and a driver's `CL_INVALID_BUFFER_SIZE` (its own limit) counts as out
//! of memory too, as do the allocation failure codes `CL_OUT_OF_RESOURCES`,
//! `CL_OUT_OF_HOST_MEMORY` and `CL_MEM_OBJECT_ALLOCATION_FAILURE`, and an empty
//! `clSVMAlloc` (`runtime::ocl::error::alloc_error`, `runtime::ocl::usm`). A
//! driver that allocates lazily reports the failure at the first command on the
//! allocation, the zero fill, with the same codes: out of memory as well.

use std::ffi::c_void;

use crate::core::error::{Error, Result};
use crate::core::memory::DataHandle;
use crate::core::ocl_engine::OclEngine;
use crate::runtime::ocl::{self, KernelArg, MapAccess, Mem, UsmAlloc, UsmKind, sys};

/// The OpenCL memory kinds of `dnnl_ocl_interop_memory_kind_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OclKind {
    /// Unified shared memory (Intel's extension).
    Usm,
    /// An OpenCL buffer.
    Buffer,
}

/// Alignment of USM the library allocates (oneDNN's GPU buffer alignment).
const USM_ALIGNMENT: u32 = 128;

/// The kernel that zeroes new allocations: 16 bytes per work-item.
const ZERO_FILL_SOURCE: &str = r#"
kernel void dnnl_zero_fill(global uchar *dst, ulong size) {
    ulong i = (ulong)get_global_id(0) * 16;
    if (i + 16 <= size) {
        vstore4((uint4)(0), 0, (global uint *)(dst + i));
    } else {
        for (ulong j = i; j < size; ++j) dst[j] = 0;
    }
}
"#;

/// Allocates `size` bytes with `alloc` (`what`: "a buffer", "device USM", ...)
/// on `engine`'s device; what the device cannot hold is out of memory.
fn allocate<T>(
    engine: &OclEngine,
    size: usize,
    what: &str,
    alloc: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let out_of_memory = |why: &str| {
        Error::OutOfMemory(
            format!(
                "allocating {size} bytes of {what} on OpenCL device '{}' failed: {why}",
                engine.info().name
            )
            .into(),
        )
    };
    if !crate::base::fault::allocation() {
        return Err(out_of_memory("the allocation failed"));
    }
    let largest = engine.info().max_mem_alloc_size;
    if size as u64 > largest {
        return Err(out_of_memory(&format!(
            "its largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is {largest} bytes"
        )));
    }
    alloc().map_err(|e| match e {
        Error::OutOfMemory(m) => out_of_memory(&m),
        e => e,
    })
}

fn no_usm(engine: &OclEngine) -> Error {
    Error::unimplemented(format!(
        "USM memory needs cl_intel_unified_shared_memory or shared virtual memory \
         (OpenCL 2.0), and device '{}' has neither",
        engine.info().name
    ))
}

/// One buffer of an OpenCL memory object.
pub enum OclStorage {
    /// A `cl_mem`, retained (or created) by us.
    Buffer(Mem),
    /// A USM pointer: ours (`owned`) or the user's.
    Usm {
        addr: usize,
        kind: UsmKind,
        owned: Option<UsmAlloc>,
    },
}

impl OclStorage {
    /// The storage for `handle` (never `DataHandle::None`, which has none) of
    /// `size` bytes on `engine`.
    pub fn new(
        engine: &OclEngine,
        kind: OclKind,
        size: usize,
        handle: DataHandle,
    ) -> Result<OclStorage> {
        match (kind, handle) {
            (_, DataHandle::None) => Err(Error::invalid("no storage for DNNL_MEMORY_NONE")),
            (OclKind::Buffer, DataHandle::Allocate) => {
                let mem = allocate(engine, size, "an OpenCL buffer", || {
                    Mem::create(engine.context(), size)
                })?;
                let storage = OclStorage::Buffer(mem);
                storage.zero(engine, size)?;
                Ok(storage)
            }
            (OclKind::Buffer, DataHandle::User(addr)) => {
                // SAFETY: the C contract: a handle of a buffer-kind memory is a `cl_mem`.
                let mem = unsafe { Mem::retain_borrowed(addr as sys::cl_mem) }?;
                if mem.context()? != *engine.context() {
                    return Err(Error::invalid(
                        "the cl_mem belongs to another OpenCL context than the engine",
                    ));
                }
                let have = mem.size()?;
                if have < size {
                    return Err(Error::invalid(format!(
                        "the cl_mem has {have} bytes, the memory descriptor needs {size}"
                    )));
                }
                Ok(OclStorage::Buffer(mem))
            }
            (OclKind::Usm, DataHandle::Allocate) => {
                // Without USM, that (not the size) is why nothing is allocated.
                if !ocl::supports_usm(engine.device()) {
                    return Err(no_usm(engine));
                }
                let alloc = allocate(engine, size, "device USM", || {
                    ocl::usm_alloc(
                        engine.context(),
                        engine.device(),
                        UsmKind::Device,
                        size,
                        USM_ALIGNMENT,
                    )
                })?;
                let storage = OclStorage::Usm {
                    addr: alloc.ptr() as usize,
                    kind: alloc.kind(),
                    owned: Some(alloc),
                };
                storage.zero(engine, size)?;
                Ok(storage)
            }
            (OclKind::Usm, DataHandle::User(addr)) => {
                if !ocl::supports_usm(engine.device()) {
                    return Err(no_usm(engine));
                }
                let kind = ocl::user_usm_kind(engine.context(), addr as *const c_void, size)?;
                if kind == UsmKind::Unknown && ocl::is_svm_context(engine.context()) {
                    return Err(Error::invalid(format!(
                        "{addr:#x} is not shared virtual memory of the engine's OpenCL \
                         context: not readable for {size} bytes"
                    )));
                }
                // A plain host pointer is USM too on devices that take
                // system allocations (oneDNN accepts it there as well).
                if kind == UsmKind::Unknown && !engine.device().supports_system_usm() {
                    return Err(Error::invalid(
                        "the pointer is not USM of the engine's OpenCL context, \
                         and the device does not take system allocations",
                    ));
                }
                if kind == UsmKind::Unknown && !ocl::foreign::range_readable(addr, size) {
                    return Err(Error::invalid(format!(
                        "{addr:#x} is not USM of the engine's OpenCL context, and not \
                         readable host memory for {size} bytes either"
                    )));
                }
                Ok(OclStorage::Usm {
                    addr,
                    kind,
                    owned: None,
                })
            }
        }
    }

    /// The handle C sees: the `cl_mem` or the USM pointer.
    pub fn handle(&self) -> usize {
        match self {
            OclStorage::Buffer(mem) => mem.raw() as usize,
            OclStorage::Usm { addr, .. } => *addr,
        }
    }

    /// The buffer, for kernels that take one.
    pub fn kernel_arg(&self) -> KernelArg<'_> {
        match self {
            OclStorage::Buffer(mem) => KernelArg::Mem(mem),
            OclStorage::Usm { addr, .. } => KernelArg::Usm(*addr as *const c_void),
        }
    }

    fn zero(&self, engine: &OclEngine, size: usize) -> Result<()> {
        if size == 0 {
            return Ok(());
        }
        let kernel = engine.kernel(ZERO_FILL_SOURCE, "", "dnnl_zero_fill")?;
        let queue = engine.service_queue()?;
        let items = size.div_ceil(16);
        queue.enqueue_kernel(
            &kernel,
            &[self.kernel_arg(), KernelArg::U64(size as u64)],
            &[items],
            None,
            &[],
        )?;
        queue.finish()
    }

    /// Makes `size` bytes host-accessible with their current contents.
    pub fn map(&self, engine: &OclEngine, size: usize) -> Result<Mapping> {
        if size == 0 {
            return Ok(Mapping::Direct(0));
        }
        let queue = engine.service_queue()?;
        match self {
            OclStorage::Buffer(mem) => {
                let (ptr, _event) = queue.map_buffer(mem, MapAccess::ReadWrite, 0, size, &[])?;
                Ok(Mapping::Buffer(ptr as usize))
            }
            OclStorage::Usm {
                addr,
                kind: UsmKind::Host | UsmKind::Shared | UsmKind::Unknown,
                ..
            } => {
                // Host, shared and system memory are host-accessible once the device is idle.
                queue.finish()?;
                Ok(Mapping::Direct(*addr))
            }
            OclStorage::Usm {
                addr,
                kind: UsmKind::Svm,
                ..
            } => {
                // SAFETY: SVM of the engine's context holding `size` bytes.
                unsafe { queue.svm_map(*addr as *mut c_void, size) }?;
                Ok(Mapping::Svm(*addr))
            }
            OclStorage::Usm { addr, .. } => {
                let staging = allocate(engine, size, "host USM (a mapping's copy)", || {
                    ocl::usm_alloc(
                        engine.context(),
                        engine.device(),
                        UsmKind::Host,
                        size,
                        USM_ALIGNMENT,
                    )
                })?;
                // SAFETY: both pointers hold `size` bytes; the copy blocks.
                unsafe {
                    queue.usm_memcpy(true, staging.ptr(), *addr as *const c_void, size, &[])
                }?;
                Ok(Mapping::Staged { staging, size })
            }
        }
    }

    /// Ends a mapping, writing the host copy back.
    pub fn unmap(&self, engine: &OclEngine, mapping: Mapping) -> Result<()> {
        let queue = engine.service_queue()?;
        match (self, mapping) {
            (_, Mapping::Direct(_)) => Ok(()),
            // SAFETY: mapped by `map`; nothing uses the mapping after this.
            (OclStorage::Usm { .. }, Mapping::Svm(addr)) => unsafe {
                queue.svm_unmap(addr as *mut c_void)
            },
            (OclStorage::Buffer(mem), Mapping::Buffer(ptr)) => {
                // SAFETY: `ptr` is the mapping of `mem` made by `map`; nothing uses it after this.
                unsafe { queue.unmap_buffer(mem, ptr as *mut c_void, &[]) }?;
                queue.finish()
            }
            (OclStorage::Usm { addr, .. }, Mapping::Staged { staging, size }) => {
                // SAFETY: both pointers hold `size` bytes; the copy blocks.
                unsafe { queue.usm_memcpy(true, *addr as *mut c_void, staging.ptr(), size, &[]) }?;
                Ok(())
            }
            _ => Err(Error::runtime("a mapping does not match its storage")),
        }
    }
}

/// A host view made by [`OclStorage::map`].
pub enum Mapping {
    /// The storage itself (host/shared USM), or nothing for size 0.
    Direct(usize),
    /// A `clEnqueueMapBuffer` pointer.
    Buffer(usize),
    /// A host USM copy of device USM, written back at unmap.
    Staged { staging: UsmAlloc, size: usize },
    /// SVM mapped in place (`clEnqueueSVMMap`).
    Svm(usize),
}

impl Mapping {
    /// The host address the caller gets.
    pub fn host_addr(&self) -> usize {
        match self {
            Mapping::Direct(addr) | Mapping::Buffer(addr) | Mapping::Svm(addr) => *addr,
            Mapping::Staged { staging, .. } => staging.ptr() as usize,
        }
    }
}
