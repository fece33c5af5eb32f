//! OpenCL engines from the user's device and context.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::Result;
use crate::core::engine::{Engine, EngineKind};
use crate::core::ocl_engine::OclEngine;

/// Wraps a user's device and context in a GPU engine (both retained, and
/// released when the engine dies). Any OpenCL device the library enumerates
/// is accepted (a deliberate difference: upstream takes Intel GPUs only), and
/// sub-devices of one; the device must be in the context.
pub(crate) fn engine_from_user(
    device: cl_device_id,
    context: cl_context,
) -> Result<std::sync::Arc<Engine>> {
    // SAFETY: the C contract: `device` and `context` are OpenCL handles of those types.
    let (ocl, index) = unsafe { OclEngine::from_user(device.cast(), context.cast()) }?;
    Ok(Engine::from_ocl(EngineKind::Gpu, index, ocl))
}

/// Creates a GPU engine on the user's `device` and `context` (both retained
/// until the engine is destroyed). The caller owns `*engine`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_create(
    engine: *mut dnnl_engine_t,
    device: cl_device_id,
    context: cl_context,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_engine_create", || {
        let out = boundary::out(engine, "engine")?;
        out.write(handles::publish(engine_from_user(device, context)?));
        Ok(())
    })
}

/// Writes the engine's OpenCL context to `*context`: borrowed, not retained.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_get_context(
    engine: dnnl_engine_t,
    context: *mut cl_context,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_engine_get_context", || {
        let out = boundary::out(context, "context")?;
        let engine = handles::resolve(engine)?;
        out.write(
            engine
                .ocl("dnnl_ocl_interop_engine_get_context")?
                .context()
                .raw()
                .cast(),
        );
        Ok(())
    })
}

/// Writes the engine's OpenCL device to `*device`: borrowed, not retained.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_get_device(
    engine: dnnl_engine_t,
    device: *mut cl_device_id,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_get_device", || {
        let out = boundary::out(device, "device")?;
        let engine = handles::resolve(engine)?;
        out.write(
            engine
                .ocl("dnnl_ocl_interop_get_device")?
                .device()
                .raw()
                .cast(),
        );
        Ok(())
    })
}
