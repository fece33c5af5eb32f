//! The oneDNN v1 names of the OpenCL interoperability API (seeds:
//! ocl_interop_guide_v1.md). Same rules as their v3 successors: objects
//! given to us are retained, getters return borrowed handles.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::ocl::engine::engine_from_user;
use crate::capi::ocl::memory::{get_mem_object, set_mem_object};
use crate::capi::ocl::stream::{queue_of, stream_from_user};
use crate::core::Error;
use crate::core::engine::EngineKind;

/// Creates an engine of `kind` (which must be `dnnl_gpu`) on the user's
/// `device` and `context`; v1 name of `dnnl_ocl_interop_engine_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_create_ocl(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    device: cl_device_id,
    context: cl_context,
) -> dnnl_status_t {
    boundary::guard("dnnl_engine_create_ocl", || {
        let out = boundary::out(engine, "engine")?;
        if EngineKind::try_from(kind)? != EngineKind::Gpu {
            return Err(Error::invalid(
                "OpenCL engines are GPU engines: kind must be dnnl_gpu",
            ));
        }
        out.write(handles::publish(engine_from_user(device, context)?));
        Ok(())
    })
}

/// Writes the engine's OpenCL device to `*device` (borrowed); v1 name of
/// `dnnl_ocl_interop_get_device`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_ocl_device(
    engine: dnnl_engine_t,
    device: *mut cl_device_id,
) -> dnnl_status_t {
    boundary::guard("dnnl_engine_get_ocl_device", || {
        let out = boundary::out(device, "device")?;
        let engine = handles::resolve(engine)?;
        out.write(
            engine
                .ocl("dnnl_engine_get_ocl_device")?
                .device()
                .raw()
                .cast(),
        );
        Ok(())
    })
}

/// Writes the engine's OpenCL context to `*context` (borrowed); v1 name of
/// `dnnl_ocl_interop_engine_get_context`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_ocl_context(
    engine: dnnl_engine_t,
    context: *mut cl_context,
) -> dnnl_status_t {
    boundary::guard("dnnl_engine_get_ocl_context", || {
        let out = boundary::out(context, "context")?;
        let engine = handles::resolve(engine)?;
        out.write(
            engine
                .ocl("dnnl_engine_get_ocl_context")?
                .context()
                .raw()
                .cast(),
        );
        Ok(())
    })
}

/// Creates a stream on the user's `queue` (retained); v1 name of
/// `dnnl_ocl_interop_stream_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_create_ocl(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    queue: cl_command_queue,
) -> dnnl_status_t {
    boundary::guard("dnnl_stream_create_ocl", || {
        let out = boundary::out(stream, "stream")?;
        out.write(handles::publish(stream_from_user(engine, queue)?));
        Ok(())
    })
}

/// Writes the stream's command queue to `*queue` (borrowed); v1 name of
/// `dnnl_ocl_interop_stream_get_command_queue`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_get_ocl_command_queue(
    stream: dnnl_stream_t,
    queue: *mut cl_command_queue,
) -> dnnl_status_t {
    boundary::guard("dnnl_stream_get_ocl_command_queue", || {
        let out = boundary::out(queue, "queue")?;
        out.write(queue_of(stream)?);
        Ok(())
    })
}

/// Writes the memory's `cl_mem` to `*mem_object` (borrowed); v1 name of
/// `dnnl_ocl_interop_memory_get_mem_object`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_ocl_mem_object(
    memory: const_dnnl_memory_t,
    mem_object: *mut cl_mem,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_get_ocl_mem_object", || {
        get_mem_object(memory, mem_object)
    })
}

/// Replaces the memory's buffer with `mem_object` (retained); v1 name of
/// `dnnl_ocl_interop_memory_set_mem_object`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_ocl_mem_object(
    memory: dnnl_memory_t,
    mem_object: cl_mem,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_set_ocl_mem_object", || {
        set_mem_object(memory, mem_object)
    })
}
