//! Graph tensors.

use ::core::ffi::c_void;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::Result;
use crate::core::memory::DataHandle;
use crate::core::types::DataType;
use crate::graph::tensor::Tensor;

/// Reads a logical tensor the caller passed by pointer.
fn read_lt(lt: *const dnnl_graph_logical_tensor_t) -> Result<dnnl_graph_logical_tensor_t> {
    if lt.is_null() {
        return Err(crate::core::Error::invalid("logical_tensor is NULL"));
    }
    if !lt.is_aligned() {
        return Err(crate::core::Error::invalid("logical_tensor is misaligned"));
    }
    // SAFETY: checked non-NULL and aligned; the caller's readable logical tensor.
    Ok(unsafe { lt.read() })
}

/// Reads one element of `data_type` at `value`, which must point to one:
/// NULL and `DNNL_MEMORY_ALLOCATE` (which has no meaning for a value the
/// caller passes by pointer) are refused.
fn read_scalar(value: *const c_void, data_type: dnnl_data_type_t) -> Result<Vec<u8>> {
    match boundary::data_handle(value.cast_mut()) {
        DataHandle::User(_) => {}
        DataHandle::None => return Err(crate::core::Error::invalid("the scalar handle is NULL")),
        DataHandle::Allocate => {
            return Err(crate::core::Error::invalid(
                "the scalar handle is DNNL_MEMORY_ALLOCATE: a scalar tensor takes \
                 a pointer to its value",
            ));
        }
    }
    let size = DataType::try_from(data_type)?.size();
    // SAFETY: the caller's pointer to one value of the data type.
    Ok(unsafe { std::slice::from_raw_parts(value.cast::<u8>(), size) }.to_vec())
}

/// Creates a tensor of `logical_tensor` on `engine`. `handle` is the
/// caller's memory (a host pointer on the CPU engine, a USM pointer on
/// OpenCL; not owned), `DNNL_MEMORY_NONE` (NULL) for none yet, or
/// `DNNL_MEMORY_ALLOCATE` for memory of the tensor's size from the engine's
/// graph allocator, owned by the tensor (strided layouts with known dims
/// only; a size that does not fit is `dnnl_invalid_arguments`, one that
/// cannot be allocated `dnnl_out_of_memory`). The caller owns `*tensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_create(
    tensor: *mut dnnl_graph_tensor_t,
    logical_tensor: *const dnnl_graph_logical_tensor_t,
    engine: dnnl_engine_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_create", || {
        let out = boundary::out(tensor, "tensor")?;
        let lt = read_lt(logical_tensor)?;
        let engine = handles::resolve(engine)?;
        let created = Tensor::new(&lt, engine, boundary::data_handle(handle))?;
        out.write(handles::publish(created));
        Ok(())
    })
}

/// Creates a host scalar tensor holding a copy of the value `handle` points
/// to (one element of the logical tensor's data type; the logical tensor
/// must have the host_scalar property). NULL and `DNNL_MEMORY_ALLOCATE` are
/// `dnnl_invalid_arguments`, as upstream. The caller owns `*tensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_create_scalar(
    tensor: *mut dnnl_graph_tensor_t,
    logical_tensor: *const dnnl_graph_logical_tensor_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_create_scalar", || {
        let out = boundary::out(tensor, "tensor")?;
        let lt = read_lt(logical_tensor)?;
        let value = read_scalar(handle, lt.data_type)?;
        out.write(handles::publish(Tensor::scalar(&lt, &value)?));
        Ok(())
    })
}

/// Writes the tensor's data handle to `*handle` (NULL when it has none; for
/// a scalar tensor, a pointer to the tensor's copy of the value).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_get_data_handle(
    tensor: const_dnnl_graph_tensor_t,
    handle: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_get_data_handle", || {
        let out = boundary::out(handle, "handle")?;
        let tensor = handles::resolve(tensor)?;
        out.write(tensor.data_handle());
        Ok(())
    })
}

/// Points the tensor at `handle` (NULL: no memory); memory the tensor
/// allocated itself is freed. For a scalar tensor, copies the new value
/// `handle` points to (which must not be NULL). `DNNL_MEMORY_ALLOCATE` is
/// no pointer to data: `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_set_data_handle(
    tensor: dnnl_graph_tensor_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_set_data_handle", || {
        let tensor = handles::resolve(tensor)?;
        if tensor.holds_scalar_value() {
            let value = read_scalar(handle, tensor.logical_tensor().data_type)?;
            return tensor.set_scalar_value(&value);
        }
        if boundary::data_handle(handle) == DataHandle::Allocate {
            return Err(crate::core::Error::invalid(
                "DNNL_MEMORY_ALLOCATE is not a data handle to set (create a tensor with it instead)",
            ));
        }
        tensor.set_data_handle(handle)
    })
}

/// Writes the tensor's engine to `*engine` (not owned by the caller). A
/// scalar tensor made by `dnnl_graph_tensor_create_scalar` has none: NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_get_engine(
    tensor: const_dnnl_graph_tensor_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_get_engine", || {
        let out = boundary::out(engine, "engine")?;
        let tensor = handles::resolve(tensor)?;
        out.write(
            tensor
                .given_engine()
                .map_or(::core::ptr::null_mut(), handles::expose),
        );
        Ok(())
    })
}

/// Writes the tensor's logical tensor to `*logical_tensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_get_logical_tensor(
    tensor: const_dnnl_graph_tensor_t,
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_tensor_get_logical_tensor", || {
        let out = boundary::out(logical_tensor, "logical_tensor")?;
        let tensor = handles::resolve(tensor)?;
        out.write(*tensor.logical_tensor());
        Ok(())
    })
}
