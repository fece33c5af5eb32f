//! Primitives: creation and execution.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::primitive::{ExecArgs, Primitive};
use crate::core::{Error, Result};

/// Reads the caller's `nargs` execution arguments.
///
/// # Safety
/// `args` must point to `nargs` readable `dnnl_exec_arg_t` when `nargs > 0`.
pub(crate) unsafe fn exec_args(nargs: c_int, args: *const dnnl_exec_arg_t) -> Result<ExecArgs> {
    let n = usize::try_from(nargs).map_err(|_| Error::invalid(format!("nargs is {nargs}")))?;
    if n > 0 && args.is_null() {
        return Err(Error::invalid("args is NULL"));
    }
    let raw = if n == 0 {
        &[][..]
    } else {
        // SAFETY: the caller's promise: `n` readable entries, checked non-NULL.
        unsafe { std::slice::from_raw_parts(args, n) }
    };
    let mut out = ExecArgs::new();
    for a in raw {
        if a.memory.is_null() {
            continue; // oneDNN treats a NULL memory as an absent argument
        }
        let memory = handles::resolve(a.memory)?;
        if out.insert(a.arg, memory).is_some() {
            return Err(Error::invalid(format!(
                "execution argument {} is given twice",
                a.arg
            )));
        }
    }
    Ok(out)
}

/// Creates a primitive from `primitive_desc` (building its kernels). The
/// caller owns `*primitive`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_create(
    primitive: *mut dnnl_primitive_t,
    primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_create", || {
        let out = boundary::out(primitive, "primitive")?;
        let pd = handles::resolve(primitive_desc)?.get()?;
        out.write(handles::publish(pd.create_primitive()?));
        Ok(())
    })
}

/// Executes `primitive` on `stream` with the `nargs` arguments of `args`. On a
/// CPU stream the work is done on return; on an OpenCL stream it is enqueued
/// (wait with `dnnl_stream_wait`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_execute", || {
        let primitive = handles::resolve(primitive)?;
        let stream = handles::resolve(stream)?;
        // SAFETY: the C contract on `args`.
        let args = unsafe { exec_args(nargs, args) }?;
        primitive.execute(&stream, &args, &[])?;
        Ok(())
    })
}

/// Writes the primitive's descriptor to `*primitive_desc`; it belongs to the
/// primitive (do not destroy it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_get_primitive_desc(
    primitive: const_dnnl_primitive_t,
    primitive_desc: *mut const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_get_primitive_desc", || {
        let out = boundary::out(primitive_desc, "primitive_desc")?;
        let primitive = handles::resolve(primitive)?;
        out.write(handles::expose::<dnnl_primitive_desc>(primitive.pd()).cast_const());
        Ok(())
    })
}

/// Releases the caller's primitive handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_destroy(primitive: dnnl_primitive_t) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_destroy", || handles::retire(primitive))
}

/// Writes the primitive's cache blob (the device binaries of its OpenCL
/// programs, under an id naming the device, driver, library version and
/// what the primitive computes) to `cache_blob`, or, when `cache_blob` is
/// NULL, its size to `*size`; otherwise `*size` must be that size. A CPU
/// primitive compiles nothing and has no blob: `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_get_cache_blob(
    primitive: const_dnnl_primitive_t,
    size: *mut usize,
    cache_blob: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_get_cache_blob", || {
        let primitive = handles::resolve(primitive)?;
        let blob = primitive.cache_blob()?;
        crate::capi::ocl::cache_blob::copy_out(&blob, size, cache_blob, "the cache blob")
    })
}

/// Creates the primitive of `primitive_desc` with the programs of
/// `cache_blob` (made by `dnnl_primitive_get_cache_blob` for the same
/// descriptor on the same device, driver and library version): no kernel
/// is compiled. Any other blob, or a corrupted one, is refused with
/// `dnnl_invalid_arguments`. The caller owns `*primitive`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_create_from_cache_blob(
    primitive: *mut dnnl_primitive_t,
    primitive_desc: const_dnnl_primitive_desc_t,
    size: usize,
    cache_blob: *const u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_create_from_cache_blob", || {
        let out = boundary::out(primitive, "primitive")?;
        let pd = handles::resolve(primitive_desc)?.get()?;
        if cache_blob.is_null() || size == 0 {
            return Err(Error::invalid("the cache blob is NULL or empty"));
        }
        // SAFETY: the caller's blob holds `size` bytes.
        let blob = unsafe { std::slice::from_raw_parts(cache_blob, size) };
        out.write(handles::publish(Primitive::from_cache_blob(&pd, blob)?));
        Ok(())
    })
}
