//! Graphs (`dnnl_graph_graph_*`, `dnnl_graph_add_op`); the rules live in
//! `graph::graph`.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::engine::EngineKind;
use crate::core::error::Error;
use crate::graph::graph::{FpMath, Graph, Policy};

/// Creates an empty graph for engines of `engine_kind`, with the default
/// floating-point math mode. The caller owns `*graph`
/// (`dnnl_graph_graph_destroy`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_create(
    graph: *mut dnnl_graph_graph_t,
    engine_kind: dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_create", || {
        let out = boundary::out(graph, "graph")?;
        let kind = EngineKind::try_from(engine_kind)?;
        out.write(handles::publish(Graph::new(kind, None)?));
        Ok(())
    })
}

/// Creates an empty graph with floating-point math mode `mode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_create_with_fpmath_mode(
    graph: *mut dnnl_graph_graph_t,
    engine_kind: dnnl_engine_kind_t,
    mode: dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_create_with_fpmath_mode", || {
        let out = boundary::out(graph, "graph")?;
        let kind = EngineKind::try_from(engine_kind)?;
        let fpmath = FpMath {
            mode,
            apply_to_int: false,
        };
        out.write(handles::publish(Graph::new(kind, Some(fpmath))?));
        Ok(())
    })
}

/// Sets the floating-point math mode (before finalization).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_set_fpmath_mode(
    graph: dnnl_graph_graph_t,
    mode: dnnl_fpmath_mode_t,
    apply_to_int: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_set_fpmath_mode", || {
        let g = handles::resolve(graph)?;
        g.set_fpmath(FpMath {
            mode,
            apply_to_int: apply_to_int != 0,
        })
    })
}

/// The floating-point math mode and whether it applies to integer ops.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_get_fpmath_mode(
    graph: dnnl_graph_graph_t,
    mode: *mut dnnl_fpmath_mode_t,
    apply_to_int: *mut c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_get_fpmath_mode", || {
        let g = handles::resolve(graph)?;
        let out_mode = boundary::out(mode, "mode")?;
        let out_apply = boundary::out(apply_to_int, "apply_to_int")?;
        let f = g.fpmath()?;
        out_mode.write(f.mode);
        out_apply.write(c_int::from(f.apply_to_int));
        Ok(())
    })
}

/// Adds a copy of `op`: `dnnl_invalid_graph` once the graph is finalized,
/// `dnnl_invalid_graph_op` when the op breaks its schema; an op id already
/// in the graph is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_add_op(
    graph: dnnl_graph_graph_t,
    op: dnnl_graph_op_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_add_op", || {
        let g = handles::resolve(graph)?;
        let op = handles::resolve(op)?.get()?;
        g.add_op(&op)
    })
}

/// Finalizes the graph: `dnnl_invalid_graph` for inconsistent tensor
/// descriptions or a cycle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_finalize(graph: dnnl_graph_graph_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_finalize", || {
        handles::resolve(graph)?.finalize()
    })
}

/// Whether the graph is finalized.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_is_finalized(
    graph: dnnl_graph_graph_t,
    finalized: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_is_finalized", || {
        let g = handles::resolve(graph)?;
        let out = boundary::out(finalized, "finalized")?;
        out.write(u8::from(g.is_finalized()?));
        Ok(())
    })
}

/// Partitions a finalized graph with `policy` (`debug`: one op per partition).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_filter(
    graph: dnnl_graph_graph_t,
    policy: dnnl_graph_partition_policy_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_filter", || {
        handles::resolve(graph)?.filter(Policy::from_c(policy))
    })
}

/// The number of partitions of the last `dnnl_graph_graph_filter` (0 before).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_get_partition_num(
    graph: const_dnnl_graph_graph_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_get_partition_num", || {
        let g = handles::resolve(graph)?;
        let out = boundary::out(num, "num")?;
        out.write(g.partitions()?.len());
        Ok(())
    })
}

/// The partitions: `num` must be their number. The caller owns each handle
/// written (`dnnl_graph_partition_destroy`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_get_partitions(
    graph: dnnl_graph_graph_t,
    num: usize,
    partitions: *mut dnnl_graph_partition_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_get_partitions", || {
        let g = handles::resolve(graph)?;
        let all = g.partitions()?;
        if num != all.len() {
            return Err(Error::invalid(format!(
                "the graph has {} partitions, {num} asked for",
                all.len()
            )));
        }
        boundary::out(partitions, "partitions")?;
        for (i, p) in all.into_iter().enumerate() {
            // SAFETY: the caller's array of `num` handles, checked non-NULL.
            unsafe { partitions.add(i).write(handles::publish(p)) };
        }
        Ok(())
    })
}
