//! Releasing graph objects.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::Error;

/// Releases the caller's allocator handle. The handle is dead from this call
/// on, even where graph engines keep the allocator alive. A NULL, unknown or
/// already destroyed handle gets `dnnl_invalid_arguments` (upstream refuses
/// NULL here, unlike its other destroy functions).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_allocator_destroy(
    allocator: dnnl_graph_allocator_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_allocator_destroy", || {
        if allocator.is_null() {
            return Err(Error::invalid("allocator is NULL"));
        }
        handles::retire(allocator)
    })
}

/// Releases the caller's tensor handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_destroy(tensor: dnnl_graph_tensor_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_destroy", || handles::retire(tensor))
}

/// Releases the caller's op handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_destroy(op: dnnl_graph_op_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_destroy", || handles::retire(op))
}

/// Releases the caller's partition handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_destroy(
    partition: dnnl_graph_partition_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_destroy", || {
        handles::retire(partition)
    })
}

/// Releases the caller's compiled partition handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_destroy(
    compiled_partition: dnnl_graph_compiled_partition_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_compiled_partition_destroy", || {
        handles::retire(compiled_partition)
    })
}

/// Releases the caller's graph handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_destroy(graph: dnnl_graph_graph_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_graph_destroy", || handles::retire(graph))
}
