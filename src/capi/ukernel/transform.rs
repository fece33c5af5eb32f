//! `dnnl_transform_*`: the B-packing ukernel (`prims::ukernel::transform`
//! says what is checked and the layout it writes).

use ::core::ffi::c_void;
use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::error::Error;
use crate::prims::ukernel::transform::Transform;

use super::pack_type;

/// Creates a transform packing a `K x N` B. `in_pack_type` is `no_trans`
/// (row-major, `in_ld >= N`) or `trans` (column-major, `in_ld >= K`);
/// `out_ld` is 16, 32, 48 or 64; `in_dt == out_dt`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_transform_create(
    transform: *mut dnnl_transform_t,
    K: dnnl_dim_t,
    N: dnnl_dim_t,
    in_pack_type: dnnl_pack_type_t,
    in_ld: dnnl_dim_t,
    out_ld: dnnl_dim_t,
    in_dt: dnnl_data_type_t,
    out_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_transform_create", || {
        let out = boundary::out(transform, "transform")?;
        let t = Transform::new(K, N, pack_type(in_pack_type), in_ld, out_ld, in_dt, out_dt)?;
        out.write(handles::publish(Arc::new(t)));
        Ok(())
    })
}

/// Readies the transform for execution (again: no effect).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_transform_generate(transform: dnnl_transform_t) -> dnnl_status_t {
    boundary::guard("dnnl_transform_generate", || {
        handles::resolve(transform)?.generate();
        Ok(())
    })
}

/// Packs `in_ptr` into `out_ptr`, after `dnnl_transform_generate`.
/// `out_ptr` receives `ceil(N / out_ld)` panels of `K' x out_ld` elements,
/// `K'` being `K` rounded up to the row group (1, 2 or 4 rows).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_transform_execute(
    transform: const_dnnl_transform_t,
    in_ptr: *const c_void,
    out_ptr: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_transform_execute", || {
        let t = handles::resolve(transform)?;
        if in_ptr.is_null() || out_ptr.is_null() {
            return Err(Error::invalid("in_ptr or out_ptr is NULL"));
        }
        // SAFETY: the C contract: the buffers hold what the transform describes.
        unsafe { t.execute(in_ptr.cast(), out_ptr.cast()) }
    })
}
