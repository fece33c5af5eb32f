//! OpenCL graph allocators and the engines that carry them.

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::ocl::engine::engine_from_user;
use crate::core::ocl_engine::OclEngine;
use crate::core::{Error, Result};
use crate::graph::alloc::{self, Allocator};

/// Creates an OpenCL allocator from `ocl_malloc` (which must return USM
/// device memory of the given device and context, aligned as asked: Intel's
/// device USM, or `clSVMAlloc` memory on devices without Intel's extension)
/// and `ocl_free`. When either is NULL the allocator is the library's
/// default (device USM through `cl_intel_unified_shared_memory`, else
/// `clSVMAlloc`), not an error.
///
/// `ocl_free` receives the event of the last command that used the memory,
/// always complete by then: the library calls it only once that event has
/// completed (on a library thread when the event was still pending at
/// release time). It receives NULL only for memory no enqueued command was
/// known to use. The callbacks may be called from any thread. The caller
/// owns `*allocator`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_ocl_interop_allocator_create(
    allocator: *mut dnnl_graph_allocator_t,
    ocl_malloc: dnnl_graph_ocl_allocate_f,
    ocl_free: dnnl_graph_ocl_deallocate_f,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_ocl_interop_allocator_create", || {
        let out = boundary::out(allocator, "allocator")?;
        let created = Arc::new(Allocator::ocl(ocl_malloc, ocl_free));
        out.write(handles::publish(created));
        Ok(())
    })
}

/// `dnnl_ocl_interop_engine_create` on `device` and `context`, plus a copy of
/// `alloc` for the engine's graph memory.
fn make_engine(
    device: cl_device_id,
    context: cl_context,
    alloc: const_dnnl_graph_allocator_t,
) -> Result<Arc<crate::core::engine::Engine>> {
    let allocator = handles::resolve(alloc)?;
    let engine = engine_from_user(device, context)?;
    alloc::bind(&engine, *allocator)?;
    Ok(engine)
}

/// Creates a GPU engine on the user's `device` and `context` (retained until
/// the engine dies, as `dnnl_ocl_interop_engine_create`) carrying a copy of
/// `alloc`: the caller may destroy `alloc` right away. Unlike upstream, a
/// NULL `alloc` is refused. The caller owns `*engine`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_ocl_interop_make_engine_with_allocator(
    engine: *mut dnnl_engine_t,
    device: cl_device_id,
    context: cl_context,
    alloc: const_dnnl_graph_allocator_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_ocl_interop_make_engine_with_allocator", || {
        let out = boundary::out(engine, "engine")?;
        out.write(handles::publish(make_engine(device, context, alloc)?));
        Ok(())
    })
}

/// As `dnnl_graph_ocl_interop_make_engine_with_allocator`, loading the
/// programs of `cache_blob` (`size` bytes, from
/// `dnnl_ocl_interop_engine_get_cache_blob`) into the engine. As upstream
/// accepts them, an empty blob (`size` 0) and the device's cache blob id
/// (`dnnl_ocl_interop_engine_get_cache_blob_id`) given as the blob load
/// nothing: the engine builds its programs as it needs them. A NULL
/// `cache_blob` is refused. Deliberate difference: a blob made for another
/// device, driver or library version, or a corrupted one, is refused with
/// `dnnl_invalid_arguments`, as by
/// `dnnl_ocl_interop_engine_create_from_cache_blob`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
    engine: *mut dnnl_engine_t,
    device: cl_device_id,
    context: cl_context,
    alloc: const_dnnl_graph_allocator_t,
    size: usize,
    cache_blob: *const u8,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator",
        || {
            let out = boundary::out(engine, "engine")?;
            if cache_blob.is_null() {
                return Err(Error::invalid("the cache blob is NULL"));
            }
            let blob: &[u8] = if size == 0 {
                &[]
            } else {
                // SAFETY: the caller's blob holds `size` bytes.
                unsafe { std::slice::from_raw_parts(cache_blob, size) }
            };
            let created = make_engine(device, context, alloc)?;
            let ocl = created.ocl("an engine cache blob")?;
            if !blob.is_empty() && blob != OclEngine::cache_blob_id(ocl.device())? {
                ocl.load_cache_blob(blob)?;
            }
            out.write(handles::publish(created));
            Ok(())
        },
    )
}
