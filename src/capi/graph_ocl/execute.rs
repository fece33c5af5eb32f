//! Compiled-partition execution with OpenCL events.

use ::core::ffi::c_int;
use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::graph::compiled_partition::tensors;
use crate::capi::handles;
use crate::capi::ocl::execute::{give_return_event, retain_events};
use crate::core::engine::EngineKind;
use crate::core::stream::{Stream, StreamBackend};
use crate::core::{Error, Result};
use crate::graph::tensor::Tensor;
use crate::runtime::ocl::Event;

/// Retains the caller's dependency events, skipping NULL entries. A NULL
/// `deps` means none, whatever `ndeps` says (as upstream); a negative `ndeps`
/// with a list is an error.
///
/// # Safety
/// As for `retain_events` (the array and each event are checked).
unsafe fn retain_deps(stream: &Stream, deps: *const cl_event, ndeps: c_int) -> Result<Vec<Event>> {
    if deps.is_null() {
        return Ok(Vec::new());
    }
    let n = usize::try_from(ndeps)
        .map_err(|_| Error::invalid(format!("deps is given but ndeps is {ndeps}")))?;
    // SAFETY: the caller's promise, checked non-NULL.
    unsafe { retain_events(stream, deps, n) }
}

/// The shared body of both entry points.
///
/// # Safety
/// The C contract of `dnnl_graph_ocl_interop_compiled_partition_execute_v2`.
#[allow(clippy::too_many_arguments)]
unsafe fn execute(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    inputs: (usize, *mut const_dnnl_graph_tensor_t),
    outputs: (usize, *mut const_dnnl_graph_tensor_t),
    scratchpad: const_dnnl_graph_tensor_t,
    deps: *const cl_event,
    ndeps: c_int,
    return_event: *mut cl_event,
) -> Result<()> {
    if inputs.1.is_null() {
        return Err(Error::invalid("inputs is NULL"));
    }
    if outputs.1.is_null() {
        return Err(Error::invalid("outputs is NULL"));
    }
    if !return_event.is_null() && !return_event.is_aligned() {
        return Err(Error::invalid("return_event is misaligned"));
    }
    let cp = handles::resolve(compiled_partition)?;
    let stream = handles::resolve(stream)?;
    if stream.engine().kind() != EngineKind::Gpu {
        return Err(Error::invalid(
            "the OpenCL interop execute needs a stream of a GPU engine",
        ));
    }
    let StreamBackend::Ocl(queue) = stream.backend() else {
        return Err(Error::invalid("the stream is not an OpenCL stream"));
    };
    // SAFETY: the caller's arrays.
    let ins = unsafe { tensors(inputs.1, inputs.0, "inputs")? };
    // SAFETY: as above.
    let outs = unsafe { tensors(outputs.1, outputs.0, "outputs")? };
    let scratch: Option<Arc<Tensor>> = if scratchpad.is_null() {
        None
    } else {
        Some(handles::resolve(scratchpad)?)
    };
    // SAFETY: the caller's events.
    let deps = unsafe { retain_deps(&stream, deps, ndeps)? };
    let done = cp.execute(&stream, &ins, &outs, scratch, &deps)?;
    // SAFETY: checked aligned above; the caller's writable cl_event.
    unsafe { give_return_event(&stream, queue.queue(), done, &deps, return_event) }
}

/// Executes `compiled_partition` on the OpenCL `stream` (of a GPU engine)
/// once every event of `deps` has completed (NULL entries are ignored; a
/// NULL `deps` means none). Unlike upstream, `deps` are honoured on in-order
/// streams too.
///
/// `*return_event` (when `return_event` is not NULL): on an out-of-order
/// stream, an event that completes with the execution, owned by the caller
/// (release it with `clReleaseEvent`); on an in-order stream NULL, as
/// upstream (later commands of the queue run after the execution anyway).
/// The temporaries of the execution go back to the engine's allocator once
/// their last command has completed, without blocking this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_ocl_interop_compiled_partition_execute(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
    deps: *const cl_event,
    ndeps: c_int,
    return_event: *mut cl_event,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_ocl_interop_compiled_partition_execute", || {
        // SAFETY: the C contract, forwarded.
        unsafe {
            execute(
                compiled_partition,
                stream,
                (num_inputs, inputs),
                (num_outputs, outputs),
                ::core::ptr::null(),
                deps,
                ndeps,
                return_event,
            )
        }
    })
}

/// As `dnnl_graph_ocl_interop_compiled_partition_execute`, with a scratchpad
/// tensor (may be NULL) of at least the size
/// `dnnl_graph_compiled_partition_get_scratchpad_logical_tensor` gives: the
/// temporaries then live in it instead of coming from the allocator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_ocl_interop_compiled_partition_execute_v2(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
    scratchpad: const_dnnl_graph_tensor_t,
    deps: *const cl_event,
    ndeps: c_int,
    return_event: *mut cl_event,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_graph_ocl_interop_compiled_partition_execute_v2",
        || {
            // SAFETY: the C contract, forwarded.
            unsafe {
                execute(
                    compiled_partition,
                    stream,
                    (num_inputs, inputs),
                    (num_outputs, outputs),
                    scratchpad,
                    deps,
                    ndeps,
                    return_event,
                )
            }
        },
    )
}
