//! Graph ops (`dnnl_graph_op_*`). Setters accept any attribute (typed by the
//! setter, vectors for the vector-typed ids); the op is checked against its
//! schema when added to a graph or a partition (see `graph::op`).

use ::core::ffi::c_char;
use std::ffi::CStr;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::graph::{read, slice_len};
use crate::capi::handles;
use crate::core::error::Error;
use crate::graph::op::{Op, OpCell};

/// Creates an op of `kind` with `id` and a name for verbose lines. On
/// success the caller owns `*op` and releases it with `dnnl_graph_op_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_create(
    op: *mut dnnl_graph_op_t,
    id: usize,
    kind: dnnl_graph_op_kind_t,
    verbose_name: *const c_char,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_create", || {
        let out = boundary::out(op, "op")?;
        if verbose_name.is_null() {
            return Err(Error::invalid("verbose_name is NULL"));
        }
        // SAFETY: a NUL-terminated string, checked non-NULL.
        let name = unsafe { CStr::from_ptr(verbose_name) }.to_string_lossy();
        out.write(handles::publish(OpCell::new(Op::new(id, kind, &name))));
        Ok(())
    })
}

/// Appends a copy of `*input` to the op's inputs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_add_input(
    op: dnnl_graph_op_t,
    input: *const dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_add_input", || {
        let cell = handles::resolve(op)?;
        // SAFETY: the caller's struct.
        let lt = unsafe { read(input, "input")? };
        cell.update(|o| o.inputs.push(lt))
    })
}

/// Appends a copy of `*output` to the op's outputs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_add_output(
    op: dnnl_graph_op_t,
    output: *const dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_add_output", || {
        let cell = handles::resolve(op)?;
        // SAFETY: the caller's struct.
        let lt = unsafe { read(output, "output")? };
        cell.update(|o| o.outputs.push(lt))
    })
}

/// Sets an f32 attribute (`value_len` values for a vector attribute).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_f32(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const f32,
    value_len: usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_set_attr_f32", || {
        let cell = handles::resolve(op)?;
        // SAFETY: `value_len` values.
        let v = unsafe { slice_len(value, value_len, "value")? };
        cell.update(|o| o.set_f32(name, v))
    })
}

/// Sets a bool attribute (the first of `value_len` bytes, nonzero = true).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_bool(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const u8,
    value_len: usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_set_attr_bool", || {
        let cell = handles::resolve(op)?;
        // SAFETY: at least one byte.
        let v = unsafe { read(value, "value")? };
        let _ = value_len;
        cell.update(|o| o.set_bool(name, v != 0))
    })
}

/// Sets an s64 attribute (`value_len` values for a vector attribute).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_s64(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const i64,
    value_len: usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_set_attr_s64", || {
        let cell = handles::resolve(op)?;
        // SAFETY: `value_len` values.
        let v = unsafe { slice_len(value, value_len, "value")? };
        cell.update(|o| o.set_s64(name, v))
    })
}

/// Sets a string attribute: `value` is read as a NUL-terminated string, as
/// upstream reads it; `value_len` only has to be nonzero (upstream refuses
/// 0 with `dnnl_invalid_arguments` and never cuts the string at it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_str(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const c_char,
    value_len: usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_set_attr_str", || {
        let cell = handles::resolve(op)?;
        if value.is_null() {
            return Err(Error::invalid("value is NULL"));
        }
        if value_len == 0 {
            return Err(Error::invalid("value_len is 0"));
        }
        // SAFETY: a NUL-terminated string, checked non-NULL.
        let s = unsafe { CStr::from_ptr(value) }.to_string_lossy();
        cell.update(|o| o.set_str(name, &s))
    })
}

/// The op's id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_get_id(
    op: const_dnnl_graph_op_t,
    id: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_get_id", || {
        let cell = handles::resolve(op)?;
        let out = boundary::out(id, "id")?;
        out.write(cell.get()?.id);
        Ok(())
    })
}

/// The op's kind.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_get_kind(
    op: const_dnnl_graph_op_t,
    kind: *mut dnnl_graph_op_kind_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_op_get_kind", || {
        let cell = handles::resolve(op)?;
        let out = boundary::out(kind, "kind")?;
        out.write(cell.get()?.kind);
        Ok(())
    })
}
