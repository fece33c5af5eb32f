//! Engines.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::engine::{Engine, EngineKind};

/// Returns the number of engines of `kind`: 1 for `dnnl_cpu`, the number of
/// OpenCL devices for `dnnl_gpu` (see the README for their order and the
/// `ONEDNN_OCL_DEVICES` filter), 0 for anything else.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_count(kind: dnnl_engine_kind_t) -> usize {
    boundary::guard_value("dnnl_engine_get_count", 0, || {
        EngineKind::try_from(kind).map(Engine::count).unwrap_or(0)
    })
}

/// Creates the engine of `kind` at `index`. A GPU engine gets its own OpenCL
/// context on the device. The caller owns `*engine` and releases it with
/// `dnnl_engine_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_create(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    index: usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_engine_create", || {
        let out = boundary::out(engine, "engine")?;
        let created = Engine::create(EngineKind::try_from(kind)?, index)?;
        out.write(handles::publish(created));
        Ok(())
    })
}

/// Writes the kind of `engine` to `*kind`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_kind(
    engine: dnnl_engine_t,
    kind: *mut dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_engine_get_kind", || {
        let out = boundary::out(kind, "kind")?;
        let engine = handles::resolve(engine)?;
        out.write(engine.kind().to_c());
        Ok(())
    })
}

/// Releases the caller's engine handle. Objects created on the engine keep it
/// alive until they are destroyed too.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_destroy(engine: dnnl_engine_t) -> dnnl_status_t {
    boundary::guard("dnnl_engine_destroy", || handles::retire(engine))
}
