//! Unified shared memory through Intel's `cl_intel_unified_shared_memory`.
//!
//! Layer: `runtime::ocl`. The extension's functions are looked up per
//! platform (`clGetExtensionFunctionAddressForPlatform`) and kept in a table
//! leaked once per platform, so nothing is released at exit. A device without
//! the extension (PoCL 3, NVIDIA, AMD) gets [`Error::Unimplemented`] from
//! every USM request, naming the device; buffers still work there.
//!
//! Allocations we make are owned by [`UsmAlloc`], freed with
//! `clMemBlockingFreeINTEL` (which waits for commands still using them).
//! Pointers the user gives us are never owned: they are only inspected
//! ([`usm_kind`], [`usm_device`]) and used.

use std::collections::HashMap;
use std::ffi::{CStr, c_void};
use std::sync::{Mutex, OnceLock};

use super::context::Context;
use super::device::Device;
use super::error::{check, to_error};
use super::event::{Event, wait_list};
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
    if let Ok(tables) = tables.lock() {
        if let Some(found) = tables.get(&key) {
            return *found;
        }
    }
    // Leaked on purpose: one small table per platform, for the process's life,
    // with nothing to release at exit.
    let loaded = UsmFunctions::load(platform).map(|t| &*Box::leak(Box::new(t)));
    if let Ok(mut tables) = tables.lock() {
        return *tables.entry(key).or_insert(loaded);
    }
    loaded
}

/// The table for `device`, or the unimplemented error naming it.
pub fn functions_for(device: &Device) -> Result<&'static UsmFunctions> {
    if device.has_extension("cl_intel_unified_shared_memory") {
        if let Some(table) = functions(&device.platform()?) {
            return Ok(table);
        }
    }
    let name = device.name().unwrap_or_else(|_| "?".into());
    Err(Error::unimplemented(format!(
        "device {name} has no cl_intel_unified_shared_memory"
    )))
}

/// The table for the (first) device of `context`.
fn functions_for_context(context: &Context) -> Result<&'static UsmFunctions> {
    let devices = context.devices()?;
    let device = devices
        .first()
        .ok_or_else(|| Error::runtime("an OpenCL context without devices"))?;
    functions_for(device)
}

/// Whether USM can be used on `device`.
pub fn supports_usm(device: &Device) -> bool {
    functions_for(device).is_ok()
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
}

/// USM memory we allocated; freed (blocking) on drop.
pub struct UsmAlloc {
    ptr: *mut c_void,
    size: usize,
    kind: UsmKind,
    context: Context,
    functions: &'static UsmFunctions,
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
        let free = self.functions.blocking_free.unwrap_or(self.functions.free);
        // SAFETY: we allocated `ptr` in `context` and free it once.
        let code = unsafe { free(self.context.raw(), self.ptr) };
        super::error::log_failure(Ok(code), "clMemBlockingFreeINTEL");
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
pub fn usm_alloc(
    context: &Context,
    device: &Device,
    kind: UsmKind,
    size: usize,
    alignment: u32,
) -> Result<UsmAlloc> {
    let functions = functions_for(device)?;
    if size == 0 {
        return Err(Error::invalid("USM allocations cannot have size 0"));
    }
    let mut code = CL_SUCCESS;
    let ptr = match kind {
        // SAFETY: a live context, no properties, a valid status pointer.
        UsmKind::Host => unsafe {
            (functions.host_alloc)(context.raw(), std::ptr::null(), size, alignment, &mut code)
        },
        // SAFETY: a live context and device, no properties, a valid status pointer.
        UsmKind::Device => unsafe {
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
    check(code, "clMemAllocINTEL")?;
    if ptr.is_null() {
        return Err(to_error(code, "clMemAllocINTEL"));
    }
    Ok(UsmAlloc {
        ptr,
        size,
        kind,
        context: context.clone(),
        functions,
    })
}

/// Frees USM that no [`UsmAlloc`] owns, waiting for commands using it.
///
/// # Safety
/// `ptr` must be a USM allocation of `context` that nothing else frees or uses after this.
pub unsafe fn usm_free(context: &Context, ptr: *mut c_void) -> Result<()> {
    let functions = functions_for_context(context)?;
    let free = functions.blocking_free.unwrap_or(functions.free);
    // SAFETY: the caller's guarantee.
    check(
        unsafe { free(context.raw(), ptr) },
        "clMemBlockingFreeINTEL",
    )
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

/// The kind of `ptr` in `context` (`Unknown` for an ordinary host pointer).
pub fn usm_kind(context: &Context, ptr: *const c_void) -> Result<UsmKind> {
    let functions = functions_for_context(context)?;
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

/// The device `ptr` was allocated for (`None` for host USM and unknown pointers).
pub fn usm_device(context: &Context, ptr: *const c_void) -> Result<Option<Device>> {
    let functions = functions_for_context(context)?;
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
        let functions = functions_for(&self.device()?)?;
        let (n, list) = wait_list(wait);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: a live queue, the caller's guarantee on the pointers.
        enqueued("clEnqueueMemcpyINTEL", |e| unsafe {
            (functions.memcpy)(self.raw(), blocking, dst, src, size, n, list, e)
        })
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
        let functions = functions_for(&self.device()?)?;
        let (n, list) = wait_list(wait);
        // SAFETY: a live queue, the caller's guarantee on `dst`; the pattern is
        // copied before the call returns.
        enqueued("clEnqueueMemFillINTEL", |e| unsafe {
            (functions.fill)(
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
}
