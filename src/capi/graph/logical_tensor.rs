//! Logical tensors (`dnnl_graph_logical_tensor_*`): plain structs the
//! caller owns; the rules live in `graph::logical_tensor`.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::graph::{read, slice};
use crate::graph::logical_tensor as lt;

/// Initializes `*logical_tensor` with unknown dimensions and strides.
/// `ndims` may be `DNNL_GRAPH_UNKNOWN_NDIMS`; more than `DNNL_MAX_NDIMS` is
/// invalid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_init(
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
    tid: usize,
    dtype: dnnl_data_type_t,
    ndims: i32,
    ltype: dnnl_graph_layout_type_t,
    ptype: dnnl_graph_tensor_property_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_logical_tensor_init", || {
        let out = boundary::out(logical_tensor, "logical_tensor")?;
        out.write(lt::init(tid, dtype, ndims, ltype, ptype)?);
        Ok(())
    })
}

/// Initializes `*logical_tensor` with `ndims` dimensions from `dims`; a
/// strided layout gets dense row-major strides when every dimension is
/// known. `dims` may be NULL for 0 dimensions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_init_with_dims(
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
    tid: usize,
    dtype: dnnl_data_type_t,
    ndims: i32,
    dims: *const dnnl_dim_t,
    ltype: dnnl_graph_layout_type_t,
    ptype: dnnl_graph_tensor_property_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_logical_tensor_init_with_dims", || {
        let out = boundary::out(logical_tensor, "logical_tensor")?;
        if ndims < 0 {
            out.write(lt::init(tid, dtype, ndims, ltype, ptype)?);
            return Ok(());
        }
        // SAFETY: the caller passes `ndims` dimensions.
        let dims = unsafe { slice(dims, ndims, "dims")? };
        out.write(lt::init_with_dims(tid, dtype, dims, ltype, ptype)?);
        Ok(())
    })
}

/// Initializes `*logical_tensor` with a strided layout of `dims` and `strides`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_init_with_strides(
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
    tid: usize,
    dtype: dnnl_data_type_t,
    ndims: i32,
    dims: *const dnnl_dim_t,
    strides: *const dnnl_dim_t,
    ptype: dnnl_graph_tensor_property_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_logical_tensor_init_with_strides", || {
        let out = boundary::out(logical_tensor, "logical_tensor")?;
        if ndims < 0 {
            let ltype = dnnl_graph_layout_type_strided;
            out.write(lt::init(tid, dtype, ndims, ltype, ptype)?);
            return Ok(());
        }
        // SAFETY: the caller passes `ndims` dimensions and strides.
        let dims = unsafe { slice(dims, ndims, "dims")? };
        // SAFETY: as above.
        let strides = unsafe { slice(strides, ndims, "strides")? };
        out.write(lt::init_with_strides(tid, dtype, dims, strides, ptype)?);
        Ok(())
    })
}

/// The bytes a tensor of `*logical_tensor` spans (`SIZE_MAX` for a layout
/// that is not strided). Deliberate difference: a size that does not fit
/// (upstream's wraps) or exceeds `PTRDIFF_MAX` is `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_get_mem_size(
    logical_tensor: *const dnnl_graph_logical_tensor_t,
    size: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_logical_tensor_get_mem_size", || {
        // SAFETY: the caller's struct.
        let l = unsafe { read(logical_tensor, "logical_tensor")? };
        let out = boundary::out(size, "size")?;
        let bytes = lt::mem_size(&l)?;
        out.write(bytes);
        Ok(())
    })
}

/// Whether two logical tensors are equal: id, data type, property, layout
/// type, dimensions and strides (or layout id).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_is_equal(
    lt1: *const dnnl_graph_logical_tensor_t,
    lt2: *const dnnl_graph_logical_tensor_t,
    is_equal: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_logical_tensor_is_equal", || {
        // SAFETY: the caller's structs.
        let a = unsafe { read(lt1, "lt1")? };
        // SAFETY: as above.
        let b = unsafe { read(lt2, "lt2")? };
        let out = boundary::out(is_equal, "is_equal")?;
        out.write(u8::from(lt::is_equal(&a, &b)));
        Ok(())
    })
}
