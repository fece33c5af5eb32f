//! Releasing graph objects.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;

/// Releases the caller's allocator handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_allocator_destroy(
    allocator: dnnl_graph_allocator_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_allocator_destroy", || {
        handles::retire(allocator)
    })
}

/// Releases the caller's tensor handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_destroy(tensor: dnnl_graph_tensor_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_destroy", || handles::retire(tensor))
}

/// Releases the caller's op handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_destroy(op: dnnl_graph_op_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_destroy", || handles::retire(op))
}

/// Releases the caller's partition handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_destroy(
    partition: dnnl_graph_partition_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_destroy", || {
        handles::retire(partition)
    })
}

/// Releases the caller's compiled partition handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_destroy(
    compiled_partition: dnnl_graph_compiled_partition_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_compiled_partition_destroy", || {
        handles::retire(compiled_partition)
    })
}

/// Releases the caller's graph handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_destroy(graph: dnnl_graph_graph_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_destroy", || handles::retire(graph))
}
