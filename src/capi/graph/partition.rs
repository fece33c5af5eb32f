//! Partitions (`dnnl_graph_partition_*`) and their compilation.

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::graph::{read, slice_len};
use crate::capi::handles;
use crate::core::engine::EngineKind;
use crate::core::error::{Error, Result};
use crate::graph::logical_tensor::Lt;
use crate::graph::partition::Partition;

/// The partition of one op (checked against its schema:
/// `dnnl_invalid_graph_op`), for engines of `ekind`. The caller owns
/// `*partition`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_create_with_op(
    partition: *mut dnnl_graph_partition_t,
    op: const_dnnl_graph_op_t,
    ekind: dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_create_with_op", || {
        let out = boundary::out(partition, "partition")?;
        let op = handles::resolve(op)?.get()?;
        let kind = EngineKind::try_from(ekind)?;
        out.write(handles::publish(Partition::with_op(&op, kind)?));
        Ok(())
    })
}

/// The number of ops.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_op_num(
    partition: const_dnnl_graph_partition_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_op_num", || {
        let p = handles::resolve(partition)?;
        boundary::out(num, "num")?.write(p.ops().len());
        Ok(())
    })
}

fn check_num(have: usize, num: usize, what: &str) -> Result<()> {
    if have != num {
        return Err(Error::invalid(format!(
            "the partition has {have} {what}, {num} asked for"
        )));
    }
    Ok(())
}

/// Writes `values` (exactly `num` of them) to the caller's array.
fn write_all<T: Copy>(ptr: *mut T, num: usize, values: &[T], what: &'static str) -> Result<()> {
    check_num(values.len(), num, what)?;
    boundary::out(ptr, what)?;
    for (i, v) in values.iter().enumerate() {
        // SAFETY: the caller's array of `num` elements, checked non-NULL.
        unsafe { ptr.add(i).write(*v) };
    }
    Ok(())
}

/// The ids of the ops; `num` must be their number.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_ops(
    partition: dnnl_graph_partition_t,
    num: usize,
    ids: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_ops", || {
        let p = handles::resolve(partition)?;
        let v: Vec<usize> = p.ops().iter().map(|o| o.id).collect();
        write_all(ids, num, &v, "ops")
    })
}

/// The partition's id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_id(
    partition: const_dnnl_graph_partition_t,
    id: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_id", || {
        let p = handles::resolve(partition)?;
        boundary::out(id, "id")?.write(p.id());
        Ok(())
    })
}

/// Reads `n` logical tensors through an array of pointers.
///
/// # Safety
/// `ptrs` holds `n` pointers to logical tensors.
unsafe fn lts(ptrs: *mut *const Lt, n: usize, what: &str) -> Result<Vec<Lt>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: forwarded to the caller.
    let ptrs = unsafe { slice_len(ptrs.cast_const(), n, what)? };
    // SAFETY: as above: each a logical tensor.
    ptrs.iter().map(|&p| unsafe { read(p, what) }).collect()
}

/// Compiles `partition` into `compiled_partition` (made by
/// `dnnl_graph_compiled_partition_create` from the same partition) for
/// `engine`, with the shapes of `inputs` (every input port, matched by id)
/// and `outputs` (shapes may be unknown and layouts `any`: they are
/// inferred and resolved to dense strides; see
/// `dnnl_graph_compiled_partition_query_logical_tensor`). An unsupported
/// partition or an engine of another kind is an invalid argument.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_compile(
    partition: dnnl_graph_partition_t,
    compiled_partition: dnnl_graph_compiled_partition_t,
    in_num: usize,
    inputs: *mut *const dnnl_graph_logical_tensor_t,
    out_num: usize,
    outputs: *mut *const dnnl_graph_logical_tensor_t,
    engine: dnnl_engine_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_compile", || {
        let p = handles::resolve(partition)?;
        let cp = handles::resolve(compiled_partition)?;
        let engine = handles::resolve(engine)?;
        // SAFETY: the caller's arrays.
        let ins = unsafe { lts(inputs, in_num, "inputs")? };
        // SAFETY: as above.
        let outs = unsafe { lts(outputs, out_num, "outputs")? };
        if !Arc::ptr_eq(cp.partition(), &p) {
            return Err(Error::invalid(
                "the compiled partition was created from another partition",
            ));
        }
        let compiled = p.compile(&ins, &outs, &engine)?;
        cp.set(compiled)
    })
}

/// The number of input ports.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_input_ports_num(
    partition: const_dnnl_graph_partition_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_input_ports_num", || {
        let p = handles::resolve(partition)?;
        boundary::out(num, "num")?.write(p.inputs().len());
        Ok(())
    })
}

/// The input ports; `num` must be their number.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_input_ports(
    partition: const_dnnl_graph_partition_t,
    num: usize,
    inputs: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_input_ports", || {
        let p = handles::resolve(partition)?;
        write_all(inputs, num, p.inputs(), "inputs")
    })
}

/// The number of output ports.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_output_ports_num(
    partition: const_dnnl_graph_partition_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_output_ports_num", || {
        let p = handles::resolve(partition)?;
        boundary::out(num, "num")?.write(p.outputs().len());
        Ok(())
    })
}

/// The output ports; `num` must be their number.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_output_ports(
    partition: const_dnnl_graph_partition_t,
    num: usize,
    outputs: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_output_ports", || {
        let p = handles::resolve(partition)?;
        write_all(outputs, num, p.outputs(), "outputs")
    })
}

/// Whether the partition lowers onto this library's primitives (1) or not (0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_is_supported(
    partition: const_dnnl_graph_partition_t,
    is_supported: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_is_supported", || {
        let p = handles::resolve(partition)?;
        boundary::out(is_supported, "is_supported")?.write(u8::from(p.is_supported()));
        Ok(())
    })
}

/// The engine kind the partition is for.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_engine_kind(
    partition: const_dnnl_graph_partition_t,
    kind: *mut dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_partition_get_engine_kind", || {
        let p = handles::resolve(partition)?;
        boundary::out(kind, "kind")?.write(p.engine_kind().to_c());
        Ok(())
    })
}
