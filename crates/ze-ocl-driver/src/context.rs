//! Contexts and unified shared memory.
//!
//! A ze context owns one OpenCL context on the device; host, device and shared
//! allocations are `cl_intel_unified_shared_memory` allocations in it, and
//! zeMemGetAllocProperties / zeMemGetAddressRange ask OpenCL
//! (`clGetMemAllocInfoINTEL`). Each allocation also gets an id (ze's
//! `ze_memory_allocation_properties_t.id`), kept in a per-context table.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use level_zero_sys::*;

use crate::cl::{self, *};
use crate::driver::{self, Device};
use crate::objects::{Registry, ZeResult, guard, input, out};

pub struct Context {
    pub device: Arc<Device>,
    pub cl_context: cl_context,
    /// Allocation base address -> id.
    allocations: Mutex<BTreeMap<usize, u64>>,
}

// SAFETY: OpenCL contexts are thread-safe objects.
unsafe impl Send for Context {}
// SAFETY: as above; the table is behind a mutex.
unsafe impl Sync for Context {}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: created by clCreateContext, released once.
        unsafe { (self.device.cl.clReleaseContext)(self.cl_context) };
    }
}

pub static CONTEXTS: Registry<Context> = Registry::new();

pub fn context(h: ze_context_handle_t) -> ZeResult<Arc<Context>> {
    CONTEXTS.get(h)
}

/// Checks that `h` is this driver's device (and returns it).
pub fn context_device(ctx: &Context, h: ze_device_handle_t) -> ZeResult<Arc<Device>> {
    let dev = driver::device(h)?;
    if !Arc::ptr_eq(&dev, &ctx.device) {
        return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    Ok(dev)
}

impl Context {
    /// The USM type of `ptr` as OpenCL sees it.
    pub fn mem_type(&self, addr: usize) -> cl_uint {
        let ptr = addr as *const c_void;
        // SAFETY: a valid context; any pointer value may be asked about.
        cl::info_value::<cl_uint>(|s, p, r| unsafe {
            (self.device.usm.clGetMemAllocInfoINTEL)(
                self.cl_context,
                ptr,
                CL_MEM_ALLOC_TYPE_INTEL,
                s,
                p,
                r,
            )
        })
        .unwrap_or(CL_MEM_TYPE_UNKNOWN_INTEL)
    }

    fn alloc_info<T: Copy + Default>(&self, addr: usize, param: cl_uint) -> ZeResult<T> {
        let ptr = addr as *const c_void;
        // SAFETY: as in mem_type.
        cl::info_value::<T>(|s, p, r| unsafe {
            (self.device.usm.clGetMemAllocInfoINTEL)(self.cl_context, ptr, param, s, p, r)
        })
        .map_err(cl::to_ze)
    }

    fn record(&self, ptr: *mut c_void) {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        self.allocations
            .lock()
            .unwrap()
            .insert(ptr as usize, NEXT_ID.fetch_add(1, Ordering::Relaxed));
    }
}

pub unsafe extern "C" fn zeContextCreate(
    hdriver: ze_driver_handle_t,
    desc: *const ze_context_desc_t,
    out_ctx: *mut ze_context_handle_t,
) -> ze_result_t {
    guard(|| {
        let drv = driver::driver(hdriver)?;
        let desc = input(desc)?;
        let out_ctx = out(out_ctx)?;
        if desc.flags.0 & !ZE_CONTEXT_FLAG_TBD.0 != 0 {
            return Err(ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        let dev = drv.device.clone();
        let mut err = 0;
        // SAFETY: one valid device id; no callback.
        let cl_context = unsafe {
            (dev.cl.clCreateContext)(ptr::null(), 1, &dev.id, None, ptr::null_mut(), &mut err)
        };
        cl::check(err)?;
        let ctx = Context {
            device: dev,
            cl_context,
            allocations: Mutex::new(BTreeMap::new()),
        };
        *out_ctx = CONTEXTS.insert(Arc::new(ctx));
        Ok(())
    })
}

pub unsafe extern "C" fn zeContextDestroy(h: ze_context_handle_t) -> ze_result_t {
    guard(|| CONTEXTS.remove(h).map(drop))
}

pub unsafe extern "C" fn zeContextGetStatus(h: ze_context_handle_t) -> ze_result_t {
    guard(|| context(h).map(|_| ()))
}

/// Alignment must be 0 or a power of two.
fn check_alignment(alignment: usize) -> ZeResult<()> {
    if alignment != 0 && !alignment.is_power_of_two() {
        return Err(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    }
    Ok(())
}

fn finish_alloc(
    ctx: &Context,
    p: *mut c_void,
    err: cl_int,
    size: usize,
    pptr: &mut *mut c_void,
) -> ZeResult<()> {
    if p.is_null() || err != CL_SUCCESS {
        return Err(
            if err == CL_INVALID_BUFFER_SIZE
                || size as u64
                    > driver::device_value::<u64>(&ctx.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE)
            {
                ZE_RESULT_ERROR_UNSUPPORTED_SIZE
            } else {
                ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
            },
        );
    }
    ctx.record(p);
    *pptr = p;
    Ok(())
}

fn check_size(ctx: &Context, size: usize) -> ZeResult<()> {
    if size == 0 {
        return Err(ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    }
    if size as u64 > driver::device_value::<u64>(&ctx.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE) {
        return Err(ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    }
    Ok(())
}

pub unsafe extern "C" fn zeMemAllocHost(
    h: ze_context_handle_t,
    desc: *const ze_host_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let ctx = context(h)?;
        input(desc)?;
        let pptr = out(pptr)?;
        check_alignment(alignment)?;
        check_size(&ctx, size)?;
        let mut err = 0;
        // SAFETY: valid context; no properties.
        let p = unsafe {
            (ctx.device.usm.clHostMemAllocINTEL)(
                ctx.cl_context,
                ptr::null(),
                size,
                alignment as u32,
                &mut err,
            )
        };
        finish_alloc(&ctx, p, err, size, pptr)
    })
}

pub unsafe extern "C" fn zeMemAllocDevice(
    h: ze_context_handle_t,
    desc: *const ze_device_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    hdevice: ze_device_handle_t,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let ctx = context(h)?;
        let dev = context_device(&ctx, hdevice)?;
        input(desc)?;
        let pptr = out(pptr)?;
        check_alignment(alignment)?;
        check_size(&ctx, size)?;
        let mut err = 0;
        // SAFETY: valid context and device; no properties.
        let p = unsafe {
            (dev.usm.clDeviceMemAllocINTEL)(
                ctx.cl_context,
                dev.id,
                ptr::null(),
                size,
                alignment as u32,
                &mut err,
            )
        };
        finish_alloc(&ctx, p, err, size, pptr)
    })
}

pub unsafe extern "C" fn zeMemAllocShared(
    h: ze_context_handle_t,
    device_desc: *const ze_device_mem_alloc_desc_t,
    host_desc: *const ze_host_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    hdevice: ze_device_handle_t,
    pptr: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let ctx = context(h)?;
        // The device is optional for shared allocations.
        let dev_id = if hdevice.is_null() {
            ptr::null_mut()
        } else {
            context_device(&ctx, hdevice)?.id
        };
        input(device_desc)?;
        input(host_desc)?;
        let pptr = out(pptr)?;
        check_alignment(alignment)?;
        check_size(&ctx, size)?;
        let mut err = 0;
        // SAFETY: valid context; the device id is valid or NULL (allowed by the extension).
        let p = unsafe {
            (ctx.device.usm.clSharedMemAllocINTEL)(
                ctx.cl_context,
                dev_id,
                ptr::null(),
                size,
                alignment as u32,
                &mut err,
            )
        };
        finish_alloc(&ctx, p, err, size, pptr)
    })
}

pub unsafe extern "C" fn zeMemFree(h: ze_context_handle_t, p: *mut c_void) -> ze_result_t {
    guard(|| {
        let ctx = context(h)?;
        if p.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // Only base addresses of this context's allocations may be freed.
        if ctx
            .allocations
            .lock()
            .unwrap()
            .remove(&(p as usize))
            .is_none()
        {
            return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: p is a live USM allocation of this context; blocking free waits for
        // commands still using it.
        cl::check(unsafe { (ctx.device.usm.clMemBlockingFreeINTEL)(ctx.cl_context, p) })
    })
}

pub unsafe extern "C" fn zeMemGetAllocProperties(
    h: ze_context_handle_t,
    p: *const c_void,
    props: *mut ze_memory_allocation_properties_t,
    hdevice: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        let ctx = context(h)?;
        if p.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        let props = out(props)?;
        let kind = ctx.mem_type(p as usize);
        props.r#type = match kind {
            CL_MEM_TYPE_HOST_INTEL => ZE_MEMORY_TYPE_HOST,
            CL_MEM_TYPE_DEVICE_INTEL => ZE_MEMORY_TYPE_DEVICE,
            CL_MEM_TYPE_SHARED_INTEL => ZE_MEMORY_TYPE_SHARED,
            _ => ZE_MEMORY_TYPE_UNKNOWN,
        };
        props.pageSize = if kind == CL_MEM_TYPE_UNKNOWN_INTEL {
            0
        } else {
            4096
        };
        props.id = 0;
        if kind != CL_MEM_TYPE_UNKNOWN_INTEL {
            let base: usize = ctx
                .alloc_info(p as usize, CL_MEM_ALLOC_BASE_PTR_INTEL)
                .unwrap_or(p as usize);
            props.id = ctx
                .allocations
                .lock()
                .unwrap()
                .get(&base)
                .copied()
                .unwrap_or(0);
        }
        if !hdevice.is_null() {
            let dev: cl_device_id =
                if kind == CL_MEM_TYPE_UNKNOWN_INTEL || kind == CL_MEM_TYPE_HOST_INTEL {
                    ptr::null_mut()
                } else {
                    ctx.alloc_info(p as usize, CL_MEM_ALLOC_DEVICE_INTEL)
                        .unwrap_or(ptr::null_mut())
                };
            // SAFETY: non-NULL output pointer.
            unsafe {
                *hdevice = if dev.is_null() {
                    ptr::null_mut()
                } else {
                    driver::device_handle()
                }
            };
        }
        Ok(())
    })
}

pub unsafe extern "C" fn zeMemGetAddressRange(
    h: ze_context_handle_t,
    p: *const c_void,
    base: *mut *mut c_void,
    size: *mut usize,
) -> ze_result_t {
    guard(|| {
        let ctx = context(h)?;
        if p.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        if ctx.mem_type(p as usize) == CL_MEM_TYPE_UNKNOWN_INTEL {
            return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let b: usize = ctx.alloc_info(p as usize, CL_MEM_ALLOC_BASE_PTR_INTEL)?;
        let s: usize = ctx.alloc_info(p as usize, CL_MEM_ALLOC_SIZE_INTEL)?;
        if !base.is_null() {
            // SAFETY: non-NULL output pointer.
            unsafe { *base = b as *mut c_void };
        }
        if !size.is_null() {
            // SAFETY: non-NULL output pointer.
            unsafe { *size = s };
        }
        Ok(())
    })
}
