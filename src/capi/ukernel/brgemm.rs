//! `dnnl_brgemm_*`: the batch-reduce GEMM ukernel (`prims::ukernel::brgemm`
//! says what is checked and computed).

use ::core::ffi::{c_int, c_void};
use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::attr::PostOps;
use crate::core::error::{Error, Result};
use crate::prims::ukernel::brgemm::{self, Brgemm};
use crate::prims::ukernel::{PackType, ParamValues};

/// Creates a BRGeMM of `batch_size` products of `M x K` A and `K x N` B
/// blocks into an `M x N` C (leading dimensions in elements).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_create(
    brgemm: *mut dnnl_brgemm_t,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    batch_size: dnnl_dim_t,
    lda: dnnl_dim_t,
    ldb: dnnl_dim_t,
    ldc: dnnl_dim_t,
    a_dt: dnnl_data_type_t,
    b_dt: dnnl_data_type_t,
    c_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_create", || {
        let out = boundary::out(brgemm, "brgemm")?;
        let object = Brgemm::new(M, N, K, batch_size, lda, ldb, ldc, a_dt, b_dt, c_dt)?;
        out.write(handles::publish(Arc::new(object)));
        Ok(())
    })
}

/// Whether execution adds to C's values (non-zero) or overwrites them (0).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_add_C(
    brgemm: dnnl_brgemm_t,
    add_C: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_set_add_C", || {
        handles::resolve(brgemm)?.set_add_c(add_C != 0)
    })
}

/// Sets D (leading dimension, type) and the post-ops `execute_postops`
/// applies; NULL post-ops means none.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_post_ops(
    brgemm: dnnl_brgemm_t,
    ldd: dnnl_dim_t,
    d_dt: dnnl_data_type_t,
    post_ops: const_dnnl_post_ops_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_set_post_ops", || {
        let object = handles::resolve(brgemm)?;
        let chain = if post_ops.is_null() {
            PostOps::default()
        } else {
            handles::resolve_post_ops(post_ops)?.get()?
        };
        object.set_post_ops(ldd, d_dt, &chain)
    })
}

/// A scales (mask 0: one `f32`).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_A_scales(
    brgemm: dnnl_brgemm_t,
    a_scale_mask: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_set_A_scales", || {
        handles::resolve(brgemm)?.set_scales(DNNL_ARG_SRC, a_scale_mask)
    })
}

/// B scales (mask 0: one `f32`; mask 2: one per column of B).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_B_scales(
    brgemm: dnnl_brgemm_t,
    b_scale_mask: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_set_B_scales", || {
        handles::resolve(brgemm)?.set_scales(DNNL_ARG_WEIGHTS, b_scale_mask)
    })
}

/// D scales (mask 0: one `f32`, dividing the result).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_D_scales(
    brgemm: dnnl_brgemm_t,
    d_scale_mask: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_set_D_scales", || {
        handles::resolve(brgemm)?.set_scales(DNNL_ARG_DST, d_scale_mask)
    })
}

/// Freezes the configuration: the setters are refused from here on.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_finalize(brgemm: dnnl_brgemm_t) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_finalize", || {
        handles::resolve(brgemm)?.finalize()
    })
}

/// The layout B must be given in for `a_dt x b_dt`: `no_trans` (f32),
/// `pack32` (bf16, f16, u8/s8 x s8), `undef` for a pair not computed.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_get_B_pack_type(
    pack_type: *mut dnnl_pack_type_t,
    a_dt: dnnl_data_type_t,
    b_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_get_B_pack_type", || {
        let out = boundary::out(pack_type, "pack_type")?;
        out.write(match brgemm::b_pack_type(a_dt, b_dt) {
            PackType::Undef => dnnl_pack_type_undef,
            PackType::NoTrans => dnnl_pack_type_no_trans,
            PackType::Trans => dnnl_pack_type_trans,
            PackType::Pack32 => dnnl_pack_type_pack32,
        });
        Ok(())
    })
}

/// The scratchpad execution needs: 0 here (a NULL scratchpad is fine).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_get_scratchpad_size(
    brgemm: const_dnnl_brgemm_t,
    size: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_get_scratchpad_size", || {
        let object = handles::resolve(brgemm)?;
        boundary::out(size, "size")?.write(object.scratchpad_size());
        Ok(())
    })
}

/// 1 where the configuration has post-ops, scales, or a D that differs from
/// C in type or leading dimension (so `execute_postops` is the call to make).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_is_execute_postops_valid(
    brgemm: const_dnnl_brgemm_t,
    valid: *mut c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_is_execute_postops_valid", || {
        let object = handles::resolve(brgemm)?;
        let out = boundary::out(valid, "valid")?;
        out.write(c_int::from(object.has_epilogue()?));
        Ok(())
    })
}

/// Succeeds: no kernel here uses a hardware context (AMX tiles), as upstream
/// on a CPU without AMX.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_hw_context(brgemm: const_dnnl_brgemm_t) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_set_hw_context", || {
        handles::resolve(brgemm).map(drop)
    })
}

/// Succeeds: there is no hardware context to release.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_release_hw_context() -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_release_hw_context", || Ok(()))
}

/// Readies a finalized BRGeMM for execution (again: no effect).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_generate(brgemm: dnnl_brgemm_t) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_generate", || {
        handles::resolve(brgemm)?.generate()
    })
}

/// The batch's (A offset, B offset) pairs, in elements.
///
/// # Safety
/// `offsets` is NULL or holds `2 * batch` values (the C contract).
unsafe fn pairs<'a>(offsets: *const dnnl_dim_t, batch: usize) -> Result<&'a [i64]> {
    if offsets.is_null() {
        return Err(Error::invalid("A_B_offsets is NULL"));
    }
    if !offsets.is_aligned() {
        return Err(Error::invalid("A_B_offsets is misaligned"));
    }
    // SAFETY: non-NULL, aligned, and the caller's array holds 2 * batch values.
    Ok(unsafe { ::core::slice::from_raw_parts(offsets, 2 * batch) })
}

/// `C (+)= sum_i A[off_A(i)] B[off_B(i)]` over the batch, after generate.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_execute(
    brgemm: const_dnnl_brgemm_t,
    A_ptr: *const c_void,
    B_ptr: *const c_void,
    A_B_offsets: *const dnnl_dim_t,
    C_ptr: *mut c_void,
    scratchpad_ptr: *mut c_void,
) -> dnnl_status_t {
    let _ = scratchpad_ptr;
    boundary::guard("dnnl_brgemm_execute", || {
        let object = handles::resolve(brgemm)?;
        if A_ptr.is_null() || B_ptr.is_null() || C_ptr.is_null() {
            return Err(Error::invalid("A_ptr, B_ptr or C_ptr is NULL"));
        }
        // SAFETY: the C contract: the array and buffers are as configured.
        unsafe {
            let pairs = pairs(A_B_offsets, object.batch()?)?;
            object.execute(A_ptr.cast(), B_ptr.cast(), pairs, C_ptr.cast())
        }
    })
}

/// `D = postops(scales * (C? + sum_i A_i B_i))`, after generate; C is read
/// only with add_C set (and may then be NULL otherwise). `attr_params` must
/// hold every scale and binary argument the configuration uses; NULL is
/// taken as parameters with nothing set.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_execute_postops(
    brgemm: const_dnnl_brgemm_t,
    A: *const c_void,
    B: *const c_void,
    A_B_offsets: *const dnnl_dim_t,
    C_ptr: *const c_void,
    D_ptr: *mut c_void,
    scratchpad_ptr: *mut c_void,
    attr_params: const_dnnl_ukernel_attr_params_t,
) -> dnnl_status_t {
    let _ = scratchpad_ptr;
    boundary::guard("dnnl_brgemm_execute_postops", || {
        let object = handles::resolve(brgemm)?;
        let params = if attr_params.is_null() {
            ParamValues::default()
        } else {
            handles::resolve(attr_params)?.get()?
        };
        if A.is_null() || B.is_null() || D_ptr.is_null() {
            return Err(Error::invalid("A, B or D_ptr is NULL"));
        }
        // SAFETY: the C contract: the array and buffers are as configured.
        unsafe {
            let pairs = pairs(A_B_offsets, object.batch()?)?;
            object.execute_postops(
                A.cast(),
                B.cast(),
                pairs,
                C_ptr.cast(),
                D_ptr.cast(),
                &params,
            )
        }
    })
}
