//! Memory objects.

use ::core::ffi::{c_int, c_void};

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::handles::resolve_md;
use crate::core::memory::{DataHandle, Memory};

/// Decodes `nhandles` handles from a C array.
///
/// # Safety
/// `handles` must point to `nhandles` readable pointers when `nhandles > 0`.
pub(crate) unsafe fn handles_from_c(
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> crate::core::Result<Vec<DataHandle>> {
    let n = usize::try_from(nhandles)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            crate::core::Error::invalid(format!("nhandles is {nhandles}: at least 1 is needed"))
        })?;
    if handles.is_null() {
        return Err(crate::core::Error::invalid("handles is NULL"));
    }
    // SAFETY: the caller promises `n` readable entries; checked non-NULL above.
    let raw = unsafe { std::slice::from_raw_parts(handles, n) };
    Ok(raw.iter().map(|h| boundary::data_handle(*h)).collect())
}

/// Creates a memory object for `memory_desc` on `engine`. `handle` is
/// `DNNL_MEMORY_ALLOCATE` (the library allocates and owns the buffer),
/// `DNNL_MEMORY_NONE` (no buffer yet), or the caller's buffer: a host pointer on
/// a CPU engine, a `cl_mem` cast to `void *` on an OpenCL engine (retained while
/// the memory uses it). OpenCL memory made here is of the buffer kind.
/// The caller owns `*memory` and releases it with `dnnl_memory_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_create(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_create", || {
        let out = boundary::out(memory, "memory")?;
        let md = resolve_md(memory_desc)?;
        let engine = handles::resolve(engine)?;
        let handles = vec![boundary::data_handle(handle); md.num_handles()];
        let created = Memory::create(engine, (*md).clone(), None, &handles)?;
        out.write(handles::publish(created));
        Ok(())
    })
}

/// As `dnnl_memory_create`, with one handle per buffer the descriptor needs
/// (`nhandles` must equal that number).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_create_v2(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_create_v2", || {
        let out = boundary::out(memory, "memory")?;
        let md = resolve_md(memory_desc)?;
        let engine = handles::resolve(engine)?;
        // SAFETY: the C contract: `handles` holds `nhandles` pointers.
        let handles = unsafe { handles_from_c(nhandles, handles) }?;
        let created = Memory::create(engine, (*md).clone(), None, &handles)?;
        out.write(handles::publish(created));
        Ok(())
    })
}

/// Creates a host-side scalar memory object holding a copy of the value at
/// `scalar_ptr` (as many bytes as the descriptor's data type has).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_create_host_scalar(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    scalar_ptr: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_create_host_scalar", || {
        let out = boundary::out(memory, "memory")?;
        let md = resolve_md(memory_desc)?;
        if scalar_ptr.is_null() {
            return Err(crate::core::Error::invalid("scalar_ptr is NULL"));
        }
        // SAFETY: the caller's scalar has the descriptor's size (at most 8 bytes).
        let value =
            unsafe { std::slice::from_raw_parts(scalar_ptr as *const u8, md.size(0).min(8)) };
        let cpu = crate::core::engine::Engine::create(crate::core::engine::EngineKind::Cpu, 0)?;
        let created = Memory::create_host_scalar(cpu, (*md).clone(), value)?;
        out.write(handles::publish(created));
        Ok(())
    })
}

/// Writes the memory's descriptor to `*memory_desc`. The descriptor belongs to
/// the memory object: do not destroy it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_memory_desc(
    memory: const_dnnl_memory_t,
    memory_desc: *mut const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_get_memory_desc", || {
        let out = boundary::out(memory_desc, "memory_desc")?;
        let memory = handles::resolve(memory)?;
        out.write(handles::expose::<dnnl_memory_desc>(memory.md()).cast_const());
        Ok(())
    })
}

/// Writes the memory's engine to `*engine` (not a new reference): NULL for a
/// host-scalar memory object, which belongs to no engine (as upstream).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_engine(
    memory: const_dnnl_memory_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_get_engine", || {
        let out = boundary::out(engine, "engine")?;
        let memory = handles::resolve(memory)?;
        out.write(match memory.visible_engine() {
            Some(e) => handles::expose(e),
            None => ::core::ptr::null_mut(),
        });
        Ok(())
    })
}

/// Maps buffer 0 for host access; see `dnnl_memory_map_data_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_map_data(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_map_data", || map(memory, mapped_ptr, 0))
}

/// Maps buffer `index` for host access: `*mapped_ptr` holds its current
/// contents until `dnnl_memory_unmap_data_v2` writes them back. Host memory is
/// returned directly; OpenCL buffers are mapped, device USM is staged. A
/// host-scalar memory object gives the address of its value, which writes
/// through the pointer change (as upstream).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_map_data_v2(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_map_data_v2", || map(memory, mapped_ptr, index))
}

fn map(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut *mut c_void,
    index: c_int,
) -> crate::core::Result<()> {
    let out = boundary::out(mapped_ptr, "mapped_ptr")?;
    let index = boundary::index(index)?;
    let addr = handles::resolve(memory)?.map(index)?;
    out.write(::core::ptr::with_exposed_provenance_mut(addr));
    Ok(())
}

/// Unmaps buffer 0; see `dnnl_memory_unmap_data_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_unmap_data(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_unmap_data", || {
        handles::resolve(memory)?.unmap(0, mapped_ptr.addr())
    })
}

/// Ends the mapping of buffer `index` made by `dnnl_memory_map_data_v2`,
/// writing the host copy back. A NULL `mapped_ptr` does nothing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_unmap_data_v2(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_unmap_data_v2", || {
        let index = boundary::index(index)?;
        handles::resolve(memory)?.unmap(index, mapped_ptr.addr())
    })
}

/// Writes data handle 0 to `*handle`; see `dnnl_memory_get_data_handle_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_data_handle(
    memory: const_dnnl_memory_t,
    handle: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_get_data_handle", || {
        get_handle(memory, handle, 0)
    })
}

/// Writes data handle `index` to `*handle`: the host pointer, the `cl_mem` or
/// the USM pointer, or NULL when the memory has no buffer. Not a new reference.
/// A host-scalar memory object has no data handle (`dnnl_invalid_arguments`,
/// as upstream): `dnnl_memory_map_data` gives its value's address.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_data_handle_v2(
    memory: const_dnnl_memory_t,
    handle: *mut *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_get_data_handle_v2", || {
        get_handle(memory, handle, index)
    })
}

fn get_handle(
    memory: const_dnnl_memory_t,
    handle: *mut *mut c_void,
    index: c_int,
) -> crate::core::Result<()> {
    let out = boundary::out(handle, "handle")?;
    let index = boundary::index(index)?;
    let addr = handles::resolve(memory)?.data_handle(index)?;
    out.write(::core::ptr::with_exposed_provenance_mut(addr));
    Ok(())
}

/// Sets data handle 0; see `dnnl_memory_set_data_handle_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_data_handle(
    memory: dnnl_memory_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_set_data_handle", || {
        handles::resolve(memory)?.set_data_handle(0, boundary::data_handle(handle))
    })
}

/// Replaces data handle `index` with `handle` (same meanings as at creation;
/// on an OpenCL engine of the buffer kind, a `cl_mem` cast to `void *`). The
/// previous buffer is released if it was a retained `cl_mem`, freed if ours.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_data_handle_v2(
    memory: dnnl_memory_t,
    handle: *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_set_data_handle_v2", || {
        let index = boundary::index(index)?;
        handles::resolve(memory)?.set_data_handle(index, boundary::data_handle(handle))
    })
}

/// Copies the value of a host-scalar memory object to `value`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_host_scalar_value(
    memory: const_dnnl_memory_t,
    value: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_get_host_scalar_value", || {
        if value.is_null() {
            return Err(crate::core::Error::invalid("value is NULL"));
        }
        let bytes = handles::resolve(memory)?.scalar_value()?;
        // SAFETY: the caller's buffer holds a value of the scalar's data type.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), value as *mut u8, bytes.len()) };
        Ok(())
    })
}

/// Sets the value of a host-scalar memory object from `value`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_host_scalar_value(
    memory: dnnl_memory_t,
    value: *const c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_set_host_scalar_value", || {
        if value.is_null() {
            return Err(crate::core::Error::invalid("value is NULL"));
        }
        let memory = handles::resolve(memory)?;
        let size = memory.md().size(0).min(8);
        // SAFETY: the caller's value has the scalar's data type size.
        let bytes = unsafe { std::slice::from_raw_parts(value as *const u8, size) };
        memory.set_scalar_value(bytes)
    })
}

/// Releases the caller's memory handle. A buffer the library allocated is
/// freed once no primitive execution uses it; the caller's buffer is not.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_destroy(memory: dnnl_memory_t) -> dnnl_status_t {
    boundary::guard("dnnl_memory_destroy", || handles::retire(memory))
}
