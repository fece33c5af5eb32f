//! Unified shared memory: Intel's `cl_intel_unified_shared_memory` where the
//! device has it, else OpenCL 2.0 shared virtual memory (SVM).
//!
//! Layer: `runtime::ocl`. A device's [`Provider`] says which:
//! - Intel's extension: its functions are looked up per platform
//!   (`clGetExtensionFunctionAddressForPlatform`) and kept in a table leaked
//!   once per platform, so nothing is released at exit;
//! - SVM, on devices with coarse-grained buffer SVM and no Intel USM (NVIDIA,
//!   PoCL, AMD): `clSVMAlloc` memory, given to kernels with
//!   `clSetKernelArgSVMPointer`, copied and filled with
//!   `clEnqueueSVMMemcpy` / `clEnqueueSVMMemFill`, mapped for the host with
//!   `clEnqueueSVMMap`. Its allocations are [`UsmKind::Svm`]. OpenCL has no
//!   query that tells whether a pointer is SVM of a context, so allocations
//!   made here are remembered (a registry of address ranges), and a pointer
//!   the user gives is taken at their word (see `core::ocl_storage`).
//!
//! A device with neither gets [`Error::Unimplemented`] from every USM
//! request, naming the device; buffers still work there.
//!
//! Allocations we make are owned by [`UsmAlloc`], freed with
//! `clMemBlockingFreeINTEL` (which waits for commands still using them) or
//! `clSVMFree` (which does not: the owners free after their streams are
//! done). Pointers the user gives us are never owned: they are only
//! inspected ([`usm_kind`], [`usm_device`]) and used.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CStr, c_void};
use std::sync::{Mutex, OnceLock};

use super::context::Context;
use super::device::Device;
use super::error::alloc_error;
use super::event::{Event, wait_list};
use super::loader::entry;
use super::platform::Platform;
use super::queue::{Queue, enqueued};
use super::sys::*;
use crate::base::{Error, Result};

type Alloc = unsafe extern "C" fn(
    cl_context,
    cl_device_id,
    *const cl_mem_properties_intel,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type HostAlloc = unsafe extern "C" fn(
    cl_context,
    *const cl_mem_properties_intel,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type Free = unsafe extern "C" fn(cl_context, *mut c_void) -> cl_int;
type GetInfo = unsafe extern "C" fn(
    cl_context,
    *const c_void,
    cl_mem_info_intel,
    usize,
    *mut c_void,
    *mut usize,
) -> cl_int;
type Memcpy = unsafe extern "C" fn(
    cl_command_queue,
    cl_bool,
    *mut c_void,
    *const c_void,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type MemFill = unsafe extern "C" fn(
    cl_command_queue,
    *mut c_void,
    *const c_void,
    usize,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type SetArg = unsafe extern "C" fn(cl_kernel, cl_uint, *const c_void) -> cl_int;

/// The extension's entry points for one platform.
pub struct UsmFunctions {
    host_alloc: HostAlloc,
    device_alloc: Alloc,
    shared_alloc: Alloc,
    free: Free,
    blocking_free: Option<Free>,
    get_info: GetInfo,
    memcpy: Memcpy,
    fill: MemFill,
    pub(crate) set_kernel_arg: SetArg,
}

impl UsmFunctions {
    fn load(platform: &Platform) -> Option<UsmFunctions> {
        let get = |name: &CStr| {
            let f = platform.extension_function(name);
            (!f.is_null()).then_some(f)
        };
        /// A fn pointer of type `F` from an extension function's address.
        ///
        /// # Safety
        /// `address` must be the address of a function whose prototype is `F`.
        unsafe fn cast<F: Copy>(address: *mut c_void) -> F {
            debug_assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
            // SAFETY: the caller's guarantee; data and fn pointers have the
            // same size and representation on every platform OpenCL runs on.
            unsafe { std::mem::transmute_copy(&address) }
        }
        // Every `cast` below: each address is the extension function of that
        // name, whose prototype is the one declared above (cl_ext.h,
        // cl_intel_unified_shared_memory).
        Some(UsmFunctions {
            // SAFETY: as above.
            host_alloc: unsafe { cast(get(c"clHostMemAllocINTEL")?) },
            // SAFETY: as above.
            device_alloc: unsafe { cast(get(c"clDeviceMemAllocINTEL")?) },
            // SAFETY: as above.
            shared_alloc: unsafe { cast(get(c"clSharedMemAllocINTEL")?) },
            // SAFETY: as above.
            free: unsafe { cast(get(c"clMemFreeINTEL")?) },
            // SAFETY: as above.
            blocking_free: get(c"clMemBlockingFreeINTEL").map(|f| unsafe { cast(f) }),
            // SAFETY: as above.
            get_info: unsafe { cast(get(c"clGetMemAllocInfoINTEL")?) },
            // SAFETY: as above.
            memcpy: unsafe { cast(get(c"clEnqueueMemcpyINTEL")?) },
            // SAFETY: as above.
            fill: unsafe { cast(get(c"clEnqueueMemFillINTEL")?) },
            // SAFETY: as above.
            set_kernel_arg: unsafe { cast(get(c"clSetKernelArgMemPointerINTEL")?) },
        })
    }
}

/// The table of `platform`, `None` when it lacks any of the functions.
pub fn functions(platform: &Platform) -> Option<&'static UsmFunctions> {
    static TABLES: OnceLock<Mutex<HashMap<usize, Option<&'static UsmFunctions>>>> = OnceLock::new();
    let tables = TABLES.get_or_init(Default::default);
    let key = platform.raw() as usize;
    if let Ok(tables) = tables.lock()
        && let Some(found) = tables.get(&key)
    {
        return *found;
    }
    // Leaked on purpose: one small table per platform, for the process's life,
    // with nothing to release at exit.
    let loaded = UsmFunctions::load(platform).map(|t| &*Box::leak(Box::new(t)));
    if let Ok(mut tables) = tables.lock() {
        return *tables.entry(key).or_insert(loaded);
    }
    loaded
}

/// How a device provides USM.
#[derive(Clone, Copy)]
pub enum Provider {
    /// `cl_intel_unified_shared_memory`, with its functions.
    Intel(&'static UsmFunctions),
    /// Coarse-grained buffer SVM (OpenCL 2.0).
    Svm,
}

/// Whether `DNNL_OCL_USM=svm` asks for SVM even where Intel's extension
/// exists (so that Intel's runtime runs the SVM path too); read once.
fn svm_forced() -> bool {
    static FORCED: OnceLock<bool> = OnceLock::new();
    *FORCED.get_or_init(|| std::env::var_os("DNNL_OCL_USM").is_some_and(|v| v == "svm"))
}

/// The provider of `device`, or the unimplemented error naming it. Intel's
/// extension comes first where the device has both, unless
/// `DNNL_OCL_USM=svm`.
pub fn provider(device: &Device) -> Result<Provider> {
    if !svm_forced()
        && device.has_extension("cl_intel_unified_shared_memory")
        && let Some(table) = functions(&device.platform()?)
    {
        return Ok(Provider::Intel(table));
    }
    if device.supports_svm() && entry!(clSVMAlloc).is_ok() {
        return Ok(Provider::Svm);
    }
    let name = device.name().unwrap_or_else(|_| "?".into());
    Err(Error::unimplemented(format!(
        "device {name} has neither cl_intel_unified_shared_memory nor shared virtual memory"
    )))
}

/// The provider of the (first) device of `context`.
fn provider_for_context(context: &Context) -> Result<Provider> {
    let devices = context.devices()?;
    let device = devices
        .first()
        .ok_or_else(|| Error::runtime("an OpenCL context without devices"))?;
    provider(device)
}

/// Whether USM can be used on `device` (Intel's or through SVM).
pub fn supports_usm(device: &Device) -> bool {
    provider(device).is_ok()
}

/// An SVM allocation made here.
struct SvmAlloc {
    /// Bytes from the pointer handed out.
    size: usize,
    /// The `cl_context`'s address.
    context: usize,
    /// What `clSVMAlloc` returned (at or below the pointer handed out).
    base: usize,
}

/// The SVM allocations made here, by the pointer handed out.
fn svm_registry() -> &'static Mutex<BTreeMap<usize, SvmAlloc>> {
    static REGISTRY: OnceLock<Mutex<BTreeMap<usize, SvmAlloc>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Whether `ptr` lies in an SVM allocation made here in `context`.
fn svm_known(context: &Context, ptr: *const c_void) -> bool {
    let addr = ptr as usize;
    svm_registry().lock().is_ok_and(|r| {
        r.range(..=addr)
            .next_back()
            .is_some_and(|(start, a)| addr < start + a.size && a.context == context.raw() as usize)
    })
}

/// The kind of a USM allocation (`CL_MEM_ALLOC_TYPE_INTEL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UsmKind {
    /// Not a USM pointer of the context (`CL_MEM_TYPE_UNKNOWN_INTEL`).
    Unknown,
    /// Host memory the device can access.
    Host,
    /// Device memory.
    Device,
    /// Memory that migrates between host and device.
    Shared,
    /// Shared virtual memory (`clSVMAlloc`): the host maps it
    /// (`clEnqueueSVMMap`) before reading or writing it.
    Svm,
}

/// USM memory we allocated; freed (blocking) on drop.
pub struct UsmAlloc {
    ptr: *mut c_void,
    size: usize,
    kind: UsmKind,
    context: Context,
    provider: Provider,
}

// SAFETY: the pointer is an address of a driver allocation that any thread
// may use or free; the context is `Send + Sync` and the table is immutable.
unsafe impl Send for UsmAlloc {}
// SAFETY: as above; `UsmAlloc` has no interior mutability.
unsafe impl Sync for UsmAlloc {}

impl UsmAlloc {
    /// The pointer, borrowed: valid until this allocation is dropped.
    pub fn ptr(&self) -> *mut c_void {
        self.ptr
    }

    /// The size asked for, bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The kind asked for.
    pub fn kind(&self) -> UsmKind {
        self.kind
    }

    /// The context the memory belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }
}

impl Drop for UsmAlloc {
    fn drop(&mut self) {
        // SAFETY: we allocated `ptr` in `context` and free it once.
        unsafe { free(&self.context, self.provider, self.ptr) };
    }
}

/// Frees `ptr`, allocated by `provider` in `context` (failures are logged).
///
/// # Safety
/// `ptr` must be such an allocation, freed once, unused after this.
unsafe fn free(context: &Context, provider: Provider, ptr: *mut c_void) {
    match provider {
        Provider::Intel(functions) => {
            let free = functions.blocking_free.unwrap_or(functions.free);
            // SAFETY: the caller's guarantee.
            let code = unsafe { free(context.raw(), ptr) };
            super::error::log_failure(Ok(code), "clMemBlockingFreeINTEL");
        }
        Provider::Svm => {
            let base = svm_registry()
                .lock()
                .ok()
                .and_then(|mut r| r.remove(&(ptr as usize)))
                .map_or(ptr, |a| a.base as *mut c_void);
            if let Ok(svm_free) = entry!(clSVMFree) {
                // SAFETY: the caller's guarantee; `base` is what clSVMAlloc gave.
                unsafe { svm_free(context.raw(), base) };
            }
        }
    }
}

impl std::fmt::Debug for UsmAlloc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "UsmAlloc({:?} {:p}, {} bytes)",
            self.kind, self.ptr, self.size
        )
    }
}

/// Allocates `size` bytes (not zero) of `kind` USM (not `Unknown`) for
/// `device` in `context`, aligned to `alignment` (0: the driver's default).
/// Through SVM every kind is an SVM allocation ([`UsmKind::Svm`]).
pub fn usm_alloc(
    context: &Context,
    device: &Device,
    kind: UsmKind,
    size: usize,
    alignment: u32,
) -> Result<UsmAlloc> {
    let provider = provider(device)?;
    if size == 0 {
        return Err(Error::invalid("USM allocations cannot have size 0"));
    }
    if kind == UsmKind::Unknown {
        return Err(Error::invalid("cannot allocate USM of unknown kind"));
    }
    let functions = match provider {
        Provider::Intel(functions) => functions,
        Provider::Svm => return svm_alloc(context, size, alignment),
    };
    let mut code = CL_SUCCESS;
    let ptr = match kind {
        // SAFETY: a live context, no properties, a valid status pointer.
        UsmKind::Host => unsafe {
            (functions.host_alloc)(context.raw(), std::ptr::null(), size, alignment, &mut code)
        },
        // SAFETY: a live context and device, no properties, a valid status pointer.
        UsmKind::Device | UsmKind::Svm => unsafe {
            (functions.device_alloc)(
                context.raw(),
                device.raw(),
                std::ptr::null(),
                size,
                alignment,
                &mut code,
            )
        },
        // SAFETY: as for device memory.
        UsmKind::Shared => unsafe {
            (functions.shared_alloc)(
                context.raw(),
                device.raw(),
                std::ptr::null(),
                size,
                alignment,
                &mut code,
            )
        },
        UsmKind::Unknown => return Err(Error::invalid("cannot allocate USM of unknown kind")),
    };
    if code != CL_SUCCESS || ptr.is_null() {
        return Err(alloc_error(code, "clMemAllocINTEL"));
    }
    let kind = if kind == UsmKind::Svm {
        UsmKind::Device
    } else {
        kind
    };
    Ok(UsmAlloc {
        ptr,
        size,
        kind,
        context: context.clone(),
        provider,
    })
}

/// `clSVMAlloc` (read-write, coarse grain), remembered in the registry.
/// A driver that refuses the alignment (PoCL takes at most 128 bytes) gets
/// a larger request at its default alignment, and the pointer is rounded up
/// within it (SVM pointers may point inside an allocation).
fn svm_alloc(context: &Context, size: usize, alignment: u32) -> Result<UsmAlloc> {
    let alloc = entry!(clSVMAlloc)?;
    let fail = || {
        Error::OutOfMemory(
            format!("clSVMAlloc could not allocate {size} bytes (alignment {alignment})").into(),
        )
    };
    // SAFETY: a live context; no fine-grain or atomics flags.
    let mut base = unsafe { alloc(context.raw(), CL_MEM_READ_WRITE, size, alignment) };
    let mut ptr = base;
    if base.is_null() && alignment > 1 {
        let align = alignment as usize;
        let padded = size.checked_add(align).ok_or_else(fail)?;
        // SAFETY: as above, at the default alignment.
        base = unsafe { alloc(context.raw(), CL_MEM_READ_WRITE, padded, 0) };
        ptr = base.wrapping_add(base.addr().next_multiple_of(align) - base.addr());
    }
    if base.is_null() {
        return Err(fail());
    }
    if let Ok(mut registry) = svm_registry().lock() {
        registry.insert(
            ptr as usize,
            SvmAlloc {
                size,
                context: context.raw() as usize,
                base: base as usize,
            },
        );
    }
    Ok(UsmAlloc {
        ptr,
        size,
        kind: UsmKind::Svm,
        context: context.clone(),
        provider: Provider::Svm,
    })
}

/// Frees USM that no [`UsmAlloc`] owns, waiting for commands using it
/// (Intel's; an SVM free does not wait).
///
/// # Safety
/// `ptr` must be a USM allocation of `context` that nothing else frees or uses after this.
pub unsafe fn usm_free(context: &Context, ptr: *mut c_void) -> Result<()> {
    let provider = provider_for_context(context)?;
    // SAFETY: the caller's guarantee.
    unsafe { free(context, provider, ptr) };
    Ok(())
}

fn alloc_info<T: super::info::InfoScalar>(
    context: &Context,
    functions: &UsmFunctions,
    ptr: *const c_void,
    param: cl_mem_info_intel,
) -> Result<T> {
    super::info::scalar(
        // SAFETY: a live context; any pointer value may be asked about; the
        // helper passes a buffer of `size` bytes.
        &|size, value, ret| unsafe {
            (functions.get_info)(context.raw(), ptr, param, size, value, ret)
        },
        "clGetMemAllocInfoINTEL",
    )
}

/// The kind of `ptr` in `context` (`Unknown` for an ordinary host pointer,
/// and through SVM for any pointer not allocated here).
pub fn usm_kind(context: &Context, ptr: *const c_void) -> Result<UsmKind> {
    let functions = match provider_for_context(context)? {
        Provider::Intel(functions) => functions,
        Provider::Svm if svm_known(context, ptr) => return Ok(UsmKind::Svm),
        Provider::Svm => return Ok(UsmKind::Unknown),
    };
    // NULL is never USM; some drivers (PoCL 5) fail the query for it.
    if ptr.is_null() {
        return Ok(UsmKind::Unknown);
    }
    let kind: cl_unified_shared_memory_type_intel =
        alloc_info(context, functions, ptr, CL_MEM_ALLOC_TYPE_INTEL)?;
    Ok(match kind {
        CL_MEM_TYPE_HOST_INTEL => UsmKind::Host,
        CL_MEM_TYPE_DEVICE_INTEL => UsmKind::Device,
        CL_MEM_TYPE_SHARED_INTEL => UsmKind::Shared,
        _ => UsmKind::Unknown,
    })
}

/// The kind of a pointer the user gives for `size` bytes: [`usm_kind`], but
/// through SVM a pointer not allocated here counts as the user's
/// `clSVMAlloc` memory when the host can read it (SVM is mapped into the
/// host's address space on NVIDIA, PoCL and Intel's runtime alike), since
/// OpenCL cannot tell SVM from other host memory; `Unknown` otherwise.
pub fn user_usm_kind(context: &Context, ptr: *const c_void, size: usize) -> Result<UsmKind> {
    let kind = usm_kind(context, ptr)?;
    if kind == UsmKind::Unknown
        && is_svm_context(context)
        && super::foreign::range_readable(ptr as usize, size)
    {
        return Ok(UsmKind::Svm);
    }
    Ok(kind)
}

/// Whether `ptr` would be passed to kernels of `context`'s device through
/// SVM (the device has no Intel USM).
pub fn is_svm_context(context: &Context) -> bool {
    matches!(provider_for_context(context), Ok(Provider::Svm))
}

/// The device `ptr` was allocated for (`None` for host USM, unknown
/// pointers and SVM, which belongs to the whole context).
pub fn usm_device(context: &Context, ptr: *const c_void) -> Result<Option<Device>> {
    let functions = match provider_for_context(context)? {
        Provider::Intel(functions) => functions,
        Provider::Svm => return Ok(None),
    };
    if ptr.is_null() {
        return Ok(None);
    }
    let raw: cl_device_id = alloc_info(context, functions, ptr, CL_MEM_ALLOC_DEVICE_INTEL)?;
    if raw.is_null() {
        return Ok(None);
    }
    // SAFETY: the driver returned a live device of the context.
    unsafe { Device::retain_borrowed(raw) }.map(Some)
}

impl Queue {
    /// `clEnqueueMemcpyINTEL`: copies `size` bytes between USM or host pointers.
    ///
    /// # Safety
    /// `src` must be readable and `dst` writable for `size` bytes until the
    /// command completes (until this call returns when `blocking`).
    pub unsafe fn usm_memcpy(
        &self,
        blocking: bool,
        dst: *mut c_void,
        src: *const c_void,
        size: usize,
        wait: &[Event],
    ) -> Result<Event> {
        if size == 0 {
            return self.marker(wait);
        }
        let (n, list) = wait_list(wait);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        match provider(&self.device()?)? {
            // SAFETY: a live queue, the caller's guarantee on the pointers.
            Provider::Intel(functions) => enqueued("clEnqueueMemcpyINTEL", |e| unsafe {
                (functions.memcpy)(self.raw(), blocking, dst, src, size, n, list, e)
            }),
            Provider::Svm => {
                let memcpy = entry!(clEnqueueSVMMemcpy)?;
                // SAFETY: as above.
                enqueued("clEnqueueSVMMemcpy", |e| unsafe {
                    memcpy(self.raw(), blocking, dst, src, size, n, list, e)
                })
            }
        }
    }

    /// `clEnqueueMemFillINTEL`: fills `size` bytes at `dst` with `pattern`
    /// (its length a power of two up to 128, `size` a multiple of it).
    ///
    /// # Safety
    /// `dst` must be USM writable for `size` bytes until the command completes.
    pub unsafe fn usm_fill(
        &self,
        dst: *mut c_void,
        pattern: &[u8],
        size: usize,
        wait: &[Event],
    ) -> Result<Event> {
        if size == 0 {
            return self.marker(wait);
        }
        let (n, list) = wait_list(wait);
        let fill = match provider(&self.device()?)? {
            Provider::Intel(functions) => functions.fill,
            Provider::Svm => entry!(clEnqueueSVMMemFill)?,
        };
        // SAFETY: a live queue, the caller's guarantee on `dst`; the pattern is
        // copied before the call returns. Both functions have this prototype.
        enqueued("clEnqueueMemFill", |e| unsafe {
            fill(
                self.raw(),
                dst,
                pattern.as_ptr().cast(),
                pattern.len(),
                size,
                n,
                list,
                e,
            )
        })
    }

    /// `clEnqueueSVMMap` (blocking, read and write): `size` bytes at `ptr`
    /// become the host's until [`Queue::svm_unmap`].
    ///
    /// # Safety
    /// `ptr` must be SVM of the queue's context holding `size` bytes.
    pub unsafe fn svm_map(&self, ptr: *mut c_void, size: usize) -> Result<()> {
        let map = entry!(clEnqueueSVMMap)?;
        // SAFETY: a live queue, the caller's guarantee on `ptr`.
        enqueued("clEnqueueSVMMap", |e| unsafe {
            map(
                self.raw(),
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE,
                ptr,
                size,
                0,
                std::ptr::null(),
                e,
            )
        })
        .map(drop)
    }

    /// `clEnqueueSVMUnmap`, then waits for it: the device sees the host's
    /// writes.
    ///
    /// # Safety
    /// `ptr` must be mapped by [`Queue::svm_map`].
    pub unsafe fn svm_unmap(&self, ptr: *mut c_void) -> Result<()> {
        let unmap = entry!(clEnqueueSVMUnmap)?;
        // SAFETY: a live queue, the caller's guarantee on `ptr`.
        enqueued("clEnqueueSVMUnmap", |e| unsafe {
            unmap(self.raw(), ptr, 0, std::ptr::null(), e)
        })?;
        self.finish()
    }
}
