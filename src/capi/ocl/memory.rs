//! OpenCL memory: buffers and USM, the library's or the user's.

use ::core::ffi::{c_int, c_void};

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::memory::handles_from_c;
use crate::capi::handles;
use crate::capi::handles::resolve_md;
use crate::core::memory::{DataHandle, Memory};
use crate::core::ocl_storage::OclKind;
use crate::core::{Error, Result};

fn kind_from_c(kind: dnnl_ocl_interop_memory_kind_t) -> Result<OclKind> {
    match kind {
        k if k == dnnl_ocl_interop_usm => Ok(OclKind::Usm),
        k if k == dnnl_ocl_interop_buffer => Ok(OclKind::Buffer),
        other => Err(Error::invalid(format!(
            "{} is not an OpenCL memory kind",
            other.0
        ))),
    }
}

fn kind_to_c(kind: OclKind) -> dnnl_ocl_interop_memory_kind_t {
    match kind {
        OclKind::Usm => dnnl_ocl_interop_usm,
        OclKind::Buffer => dnnl_ocl_interop_buffer,
    }
}

fn create(
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    kind: dnnl_ocl_interop_memory_kind_t,
    handles: &[DataHandle],
) -> Result<dnnl_memory_t> {
    let md = resolve_md(memory_desc)?;
    let engine = handles::resolve(engine)?;
    engine.ocl("OpenCL interop memory")?;
    let created = Memory::create(engine, (*md).clone(), Some(kind_from_c(kind)?), handles)?;
    Ok(handles::publish(created))
}

/// Creates a memory object of `memory_kind` on an OpenCL engine. `handle` is
/// `DNNL_MEMORY_ALLOCATE` (a buffer, or device USM, owned by the library),
/// `DNNL_MEMORY_NONE`, or the user's `cl_mem` (buffer kind, retained while
/// used) or USM pointer (USM kind, never freed by the library). USM is
/// Intel's `cl_intel_unified_shared_memory`, else shared virtual memory
/// (`clSVMAlloc` pointers, OpenCL 2.0); on a device with neither it is
/// `dnnl_unimplemented`. The caller owns `*memory`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_create(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    memory_kind: dnnl_ocl_interop_memory_kind_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_memory_create", || {
        let out = boundary::out(memory, "memory")?;
        let n = resolve_md(memory_desc)?.num_handles();
        let handles = vec![boundary::data_handle(handle); n];
        out.write(create(memory_desc, engine, memory_kind, &handles)?);
        Ok(())
    })
}

/// As `dnnl_ocl_interop_memory_create`, with one handle per buffer the
/// descriptor needs (`nhandles` of them).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_create_v2(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    memory_kind: dnnl_ocl_interop_memory_kind_t,
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_memory_create_v2", || {
        let out = boundary::out(memory, "memory")?;
        // SAFETY: the C contract: `handles` holds `nhandles` pointers.
        let handles = unsafe { handles_from_c(nhandles, handles) }?;
        out.write(create(memory_desc, engine, memory_kind, &handles)?);
        Ok(())
    })
}

/// Writes the memory's kind (USM or buffer) to `*memory_kind`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_get_memory_kind(
    memory: const_dnnl_memory_t,
    memory_kind: *mut dnnl_ocl_interop_memory_kind_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_memory_get_memory_kind", || {
        let out = boundary::out(memory_kind, "memory_kind")?;
        let memory = handles::resolve(memory)?;
        let kind = memory
            .ocl_kind()
            .ok_or_else(|| Error::invalid("the memory is not on an OpenCL engine"))?;
        out.write(kind_to_c(kind));
        Ok(())
    })
}

pub(crate) fn get_mem_object(memory: const_dnnl_memory_t, mem_object: *mut cl_mem) -> Result<()> {
    let out = boundary::out(mem_object, "mem_object")?;
    if memory.is_null() {
        // As upstream: no memory, no buffer.
        out.write(::core::ptr::null_mut());
        return Ok(());
    }
    let memory = handles::resolve(memory)?;
    match memory.ocl_kind() {
        Some(OclKind::Buffer) => {}
        Some(OclKind::Usm) => {
            return Err(Error::invalid("the memory is USM, not an OpenCL buffer"));
        }
        None => return Err(Error::invalid("the memory is not on an OpenCL engine")),
    }
    out.write(::core::ptr::with_exposed_provenance_mut(
        memory.data_handle(0)?,
    ));
    Ok(())
}

pub(crate) fn set_mem_object(memory: dnnl_memory_t, mem_object: cl_mem) -> Result<()> {
    let memory = handles::resolve(memory)?;
    match memory.ocl_kind() {
        Some(OclKind::Buffer) => memory.set_data_handle(0, boundary::data_handle(mem_object)),
        Some(OclKind::Usm) => Err(Error::invalid("the memory is USM, not an OpenCL buffer")),
        None => Err(Error::invalid("the memory is not on an OpenCL engine")),
    }
}

/// Writes the memory's `cl_mem` to `*mem_object`: borrowed, not retained
/// (NULL when the memory has no buffer, or `memory` is NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_get_mem_object(
    memory: const_dnnl_memory_t,
    mem_object: *mut cl_mem,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_memory_get_mem_object", || {
        get_mem_object(memory, mem_object)
    })
}

/// Replaces the memory's buffer with `mem_object` (retained; the previous
/// buffer is released, or freed if the library allocated it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_set_mem_object(
    memory: dnnl_memory_t,
    mem_object: cl_mem,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_memory_set_mem_object", || {
        set_mem_object(memory, mem_object)
    })
}
