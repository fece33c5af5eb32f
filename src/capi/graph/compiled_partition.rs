//! Compiled partitions (`dnnl_graph_compiled_partition_*`) and their
//! execution on CPU and OpenCL streams. `graph_ocl` builds its interop
//! execute on [`tensors`] and `CompiledPartition::execute`.

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::graph::slice_len;
use crate::capi::handles;
use crate::core::error::Result;
use crate::graph::compiled::CompiledPartition;
use crate::graph::tensor::Tensor;

/// An empty compiled partition of `partition`, to be filled by
/// `dnnl_graph_partition_compile`. The caller owns `*compiled_partition`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_create(
    compiled_partition: *mut dnnl_graph_compiled_partition_t,
    partition: dnnl_graph_partition_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_compiled_partition_create", || {
        let out = boundary::out(compiled_partition, "compiled_partition")?;
        let p = handles::resolve(partition)?;
        out.write(handles::publish(CompiledPartition::new(p)));
        Ok(())
    })
}

/// The tensors of a C array of `n` tensor handles (none for `n` = 0).
///
/// # Safety
/// `ptr` holds `n` handles.
pub(crate) unsafe fn tensors(
    ptr: *const const_dnnl_graph_tensor_t,
    n: usize,
    what: &str,
) -> Result<Vec<Arc<Tensor>>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: forwarded to the caller.
    let handles_ = unsafe { slice_len(ptr, n, what)? };
    handles_.iter().map(|&h| handles::resolve(h)).collect()
}

fn execute(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    inputs: (usize, *mut const_dnnl_graph_tensor_t),
    outputs: (usize, *mut const_dnnl_graph_tensor_t),
    scratchpad: Option<const_dnnl_graph_tensor_t>,
) -> Result<()> {
    let cp = handles::resolve(compiled_partition)?;
    let stream = handles::resolve(stream)?;
    // SAFETY: the caller's arrays.
    let ins = unsafe { tensors(inputs.1, inputs.0, "inputs")? };
    // SAFETY: as above.
    let outs = unsafe { tensors(outputs.1, outputs.0, "outputs")? };
    let scratch = match scratchpad.filter(|s| !s.is_null()) {
        Some(s) => Some(handles::resolve(s)?),
        None => None,
    };
    cp.execute(&stream, &ins, &outs, scratch, &[])?;
    Ok(())
}

/// Executes with `inputs` and `outputs` (matched to the ports by logical
/// tensor id) on `stream`, which must be a stream of the engine the
/// partition was compiled for (another engine, even of the same device, is
/// `dnnl_invalid_arguments`, the status upstream's primitives give; its graph
/// layer lets it escape as an exception). Synchronous on the CPU engine;
/// enqueued on OpenCL streams. Deliberate difference: each tensor is checked against
/// its port first (engine, data type, known dimensions and strides, memory
/// present and, where the library allocated it, large enough); one that
/// does not fit is `dnnl_invalid_arguments` and nothing runs. Unknown
/// dimensions and an `any` layout in a tensor's logical tensor pass.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_execute(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_compiled_partition_execute", || {
        execute(
            compiled_partition,
            stream,
            (num_inputs, inputs),
            (num_outputs, outputs),
            None,
        )
    })
}

/// As `dnnl_graph_compiled_partition_execute`, with a scratchpad tensor
/// (may be NULL) of at least the size
/// `dnnl_graph_compiled_partition_get_scratchpad_logical_tensor` gives: the
/// temporaries then live in it instead of coming from the allocator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_execute_v2(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
    scratchpad: const_dnnl_graph_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_compiled_partition_execute_v2", || {
        execute(
            compiled_partition,
            stream,
            (num_inputs, inputs),
            (num_outputs, outputs),
            Some(scratchpad),
        )
    })
}

/// The compiled (shapes and layouts resolved) logical tensor of input or
/// output `tid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_query_logical_tensor(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    tid: usize,
    lt: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_compiled_partition_query_logical_tensor", || {
        let cp = handles::resolve(compiled_partition)?;
        let out = boundary::out(lt, "lt")?;
        out.write(cp.query_logical_tensor(tid)?);
        Ok(())
    })
}

/// The (input id, output id) pairs that may share memory; the array
/// belongs to the compiled partition.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_get_inplace_ports(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    num_inplace_pairs: *mut usize,
    inplace_pairs: *mut *const dnnl_graph_inplace_pair_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_compiled_partition_get_inplace_ports", || {
        let cp = handles::resolve(compiled_partition)?;
        let out_num = boundary::out(num_inplace_pairs, "num_inplace_pairs")?;
        let out_pairs = boundary::out(inplace_pairs, "inplace_pairs")?;
        let (n, pairs) = cp.inplace_ports()?;
        out_num.write(n);
        out_pairs.write(pairs);
        Ok(())
    })
}

/// The scratchpad logical tensor: 1-D `u8`, strided, id `SIZE_MAX`, of
/// the bytes the temporaries need.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_get_scratchpad_logical_tensor(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    lt: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_graph_compiled_partition_get_scratchpad_logical_tensor",
        || {
            let cp = handles::resolve(compiled_partition)?;
            let out = boundary::out(lt, "lt")?;
            out.write(cp.scratchpad_lt()?);
            Ok(())
        },
    )
}
