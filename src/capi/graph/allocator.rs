//! Graph allocators and the engines that carry them.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::engine::{Engine, EngineKind};
use crate::graph::alloc::{self, Allocator};
use std::sync::Arc;

/// Creates a host allocator from `host_malloc` and `host_free`. When either
/// is NULL the allocator is the library's default (as upstream), not an
/// error. The callbacks may be called from any thread that executes a
/// compiled partition. The caller owns `*allocator`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_allocator_create(
    allocator: *mut dnnl_graph_allocator_t,
    host_malloc: dnnl_graph_host_allocate_f,
    host_free: dnnl_graph_host_deallocate_f,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_allocator_create", || {
        let out = boundary::out(allocator, "allocator")?;
        let created = Arc::new(Allocator::host(host_malloc, host_free));
        out.write(handles::publish(created));
        Ok(())
    })
}

/// Creates the engine of `kind` at `index` (as `dnnl_engine_create`) carrying
/// a copy of `alloc`: the graph memory of that engine comes from it, and the
/// caller may destroy `alloc` right away. A GPU engine uses the allocator's
/// OpenCL callbacks (the default USM allocator when it has none). The caller
/// owns `*engine`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_make_engine_with_allocator(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    index: usize,
    alloc: const_dnnl_graph_allocator_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_make_engine_with_allocator", || {
        let out = boundary::out(engine, "engine")?;
        let allocator = handles::resolve(alloc)?;
        let kind = EngineKind::try_from(kind)?;
        let created = Engine::create(kind, index)?;
        alloc::bind(&created, *allocator)?;
        out.write(handles::publish(created));
        Ok(())
    })
}
