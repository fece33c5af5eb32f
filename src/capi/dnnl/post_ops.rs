//! Post-ops: `dnnl_post_ops_*`.
//!
//! Layer: capi. Appends go through `core::attr::PostOps::append`, which
//! checks the room left before the entry's arguments (as upstream). A getter
//! given the index of an entry of another kind, or an index out of range,
//! returns `dnnl_invalid_arguments`; its outputs may be NULL. Memory
//! descriptor handles that getters return belong to the post-ops entry: valid
//! while it exists, not to be destroyed.

use ::core::ffi::c_int;

use super::attr::{out_opt, write_opt};
use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::handles::resolve_md;
use crate::capi::handles::resolve_post_ops;
use crate::core::attr::{PostOp, PostOps, PostOpsCell, zero_md};
use crate::core::error::{Error, Result};

/// The entry at `index` of the post-ops behind `post_ops`, cloned.
fn entry(post_ops: const_dnnl_post_ops_t, index: c_int) -> Result<PostOp> {
    resolve_post_ops(post_ops)?.read(|ops| ops.entry(index).cloned())?
}

/// The error for an entry of another kind than the getter's.
fn wrong_kind(index: c_int, expected: &str) -> Error {
    Error::invalid(format!("post-op {index} is not a {expected} post-op"))
}

/// Creates an empty post-op chain; the caller owns `*post_ops` and releases
/// it with `dnnl_post_ops_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_create(post_ops: *mut dnnl_post_ops_t) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_create", || {
        let out = boundary::out(post_ops, "post_ops")?;
        out.write(handles::publish(PostOpsCell::new(PostOps::default())));
        Ok(())
    })
}

/// Releases the caller's post-ops handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
/// The post-ops of attributes (`dnnl_primitive_attr_get_post_ops`), which
/// the caller does not own, are refused with `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_destroy(post_ops: dnnl_post_ops_t) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_destroy", || handles::retire(post_ops))
}

/// Writes an independent copy of `existing_post_ops` to `*post_ops`; the
/// caller owns it and releases it with `dnnl_post_ops_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_clone(
    post_ops: *mut dnnl_post_ops_t,
    existing_post_ops: const_dnnl_post_ops_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_clone", || {
        let out = boundary::out(post_ops, "post_ops")?;
        let value = resolve_post_ops(existing_post_ops)?.get()?;
        out.write(handles::publish(PostOpsCell::new(value)));
        Ok(())
    })
}

/// Returns the number of entries; 0 for an invalid handle (logged).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_len(post_ops: const_dnnl_post_ops_t) -> c_int {
    let mut len = 0;
    boundary::guard("dnnl_post_ops_len", || {
        len = resolve_post_ops(post_ops)?.read(PostOps::len)? as c_int;
        Ok(())
    });
    len
}

/// Returns the kind of entry `index` (`dnnl_sum`, `dnnl_eltwise`,
/// `dnnl_binary`, `dnnl_prelu`, `dnnl_convolution` for depthwise), or
/// `dnnl_undefined_primitive` for an index out of range or an invalid handle
/// (the latter is logged).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_get_kind(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
) -> dnnl_primitive_kind_t {
    let mut kind = dnnl_undefined_primitive;
    boundary::guard("dnnl_post_ops_get_kind", || {
        let found = resolve_post_ops(post_ops)?.read(|ops| ops.entry(index).map(PostOp::kind))?;
        kind = found.unwrap_or(dnnl_undefined_primitive);
        Ok(())
    });
    kind
}

/// Appends a sum: `dst = scale * (dst - zero_point) + result`, reading `dst`
/// as `data_type` unless that is `dnnl_data_type_undef`. Unlike upstream, a
/// `data_type` that is not a data type is refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_append_sum(
    post_ops: dnnl_post_ops_t,
    scale: f32,
    zero_point: i32,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_append_sum", || {
        resolve_post_ops(post_ops)?
            .update(|ops| ops.append(|| PostOp::sum(scale, zero_point, data_type)))
    })
}

/// Writes the parameters of sum entry `index`; each output may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_sum(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    scale: *mut f32,
    zero_point: *mut i32,
    data_type: *mut dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_get_params_sum", || {
        let (scale, zero_point, data_type) = (
            out_opt(scale, "scale")?,
            out_opt(zero_point, "zero_point")?,
            out_opt(data_type, "data_type")?,
        );
        let PostOp::Sum {
            scale: s,
            zero_point: z,
            data_type: d,
        } = entry(post_ops, index)?
        else {
            return Err(wrong_kind(index, "sum"));
        };
        write_opt(scale, s);
        write_opt(zero_point, z);
        write_opt(data_type, d);
        Ok(())
    })
}

/// Appends an eltwise post-op (`alg_kind` one of `dnnl_eltwise_*`; the clip
/// algorithms need `beta >= alpha`, `relu`/`elu_use_dst_for_bwd` need
/// `alpha >= 0`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_append_eltwise(
    post_ops: dnnl_post_ops_t,
    alg_kind: dnnl_alg_kind_t,
    alpha: f32,
    beta: f32,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_append_eltwise", || {
        resolve_post_ops(post_ops)?
            .update(|ops| ops.append(|| PostOp::eltwise(alg_kind, alpha, beta)))
    })
}

/// Writes the parameters of eltwise entry `index`; each output may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_eltwise(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    alg_kind: *mut dnnl_alg_kind_t,
    alpha: *mut f32,
    beta: *mut f32,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_get_params_eltwise", || {
        let (alg_kind, alpha, beta) = (
            out_opt(alg_kind, "alg_kind")?,
            out_opt(alpha, "alpha")?,
            out_opt(beta, "beta")?,
        );
        let PostOp::Eltwise {
            alg,
            alpha: a,
            beta: b,
        } = entry(post_ops, index)?
        else {
            return Err(wrong_kind(index, "eltwise"));
        };
        write_opt(alg_kind, alg);
        write_opt(alpha, a);
        write_opt(beta, b);
        Ok(())
    })
}

/// Appends a fused depthwise convolution: weights and destination types
/// defined, kernel and stride positive, left padding below the kernel size.
/// Stored and reported faithfully; a primitive that cannot fuse it refuses
/// the attributes at descriptor creation. Unlike upstream, values that are
/// not data types are refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_append_dw(
    post_ops: dnnl_post_ops_t,
    weights_data_type: dnnl_data_type_t,
    bias_data_type: dnnl_data_type_t,
    dst_data_type: dnnl_data_type_t,
    kernel_size: dnnl_dim_t,
    stride_size: dnnl_dim_t,
    padding_l_size: dnnl_dim_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_append_dw", || {
        resolve_post_ops(post_ops)?.update(|ops| {
            ops.append(|| {
                PostOp::depthwise(
                    weights_data_type,
                    bias_data_type,
                    dst_data_type,
                    kernel_size,
                    stride_size,
                    padding_l_size,
                )
            })
        })
    })
}

/// Writes the parameters of depthwise entry `index`; each output may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_dw(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    weights_data_type: *mut dnnl_data_type_t,
    bias_data_type: *mut dnnl_data_type_t,
    dst_data_type: *mut dnnl_data_type_t,
    kernel_size: *mut dnnl_dim_t,
    stride_size: *mut dnnl_dim_t,
    padding_l_size: *mut dnnl_dim_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_get_params_dw", || {
        let outs = (
            out_opt(weights_data_type, "weights_data_type")?,
            out_opt(bias_data_type, "bias_data_type")?,
            out_opt(dst_data_type, "dst_data_type")?,
            out_opt(kernel_size, "kernel_size")?,
            out_opt(stride_size, "stride_size")?,
            out_opt(padding_l_size, "padding_l_size")?,
        );
        let PostOp::Depthwise {
            weights_dt,
            bias_dt,
            dst_dt,
            kernel,
            stride,
            padding_l,
        } = entry(post_ops, index)?
        else {
            return Err(wrong_kind(index, "depthwise"));
        };
        write_opt(outs.0, weights_dt);
        write_opt(outs.1, bias_dt);
        write_opt(outs.2, dst_dt);
        write_opt(outs.3, kernel);
        write_opt(outs.4, stride);
        write_opt(outs.5, padding_l);
        Ok(())
    })
}

/// The body of both binary appends.
fn append_binary(
    post_ops: dnnl_post_ops_t,
    alg_kind: dnnl_alg_kind_t,
    src1_desc: const_dnnl_memory_desc_t,
    src2_desc: const_dnnl_memory_desc_t,
) -> Result<()> {
    resolve_post_ops(post_ops)?.update(|ops| {
        ops.check_room()?;
        let src1 = resolve_md(src1_desc)?;
        let src2 = match src2_desc.is_null() {
            true => None,
            false => Some(resolve_md(src2_desc)?),
        };
        ops.append(|| PostOp::binary(alg_kind, &src1, src2.as_deref()))
    })
}

/// Appends a binary post-op with a second operand described by `src1_desc`
/// (copied). `dnnl_binary_select` needs a third operand: use
/// `dnnl_post_ops_append_binary_v2` (here it is `dnnl_invalid_arguments`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_append_binary(
    post_ops: dnnl_post_ops_t,
    alg_kind: dnnl_alg_kind_t,
    src1_desc: const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_append_binary", || {
        append_binary(post_ops, alg_kind, src1_desc, ::core::ptr::null())
    })
}

/// Appends a binary post-op; `src2_desc` describes the third operand of
/// `dnnl_binary_select` (required there) and is stored, if given, for the
/// other algorithms. Both descriptors are copied.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_append_binary_v2(
    post_ops: dnnl_post_ops_t,
    alg_kind: dnnl_alg_kind_t,
    src1_desc: const_dnnl_memory_desc_t,
    src2_desc: const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_append_binary_v2", || {
        append_binary(post_ops, alg_kind, src1_desc, src2_desc)
    })
}

/// Writes the algorithm and second-operand descriptor of binary entry
/// `index`; each output may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_binary(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    alg_kind: *mut dnnl_alg_kind_t,
    src1_desc: *mut const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the same pointers, without the third operand's output.
    unsafe {
        dnnl_post_ops_get_params_binary_v2(
            post_ops,
            index,
            alg_kind,
            src1_desc,
            ::core::ptr::null_mut(),
        )
    }
}

/// As `dnnl_post_ops_get_params_binary`, with the third operand's descriptor
/// (the zero descriptor when none was given).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_binary_v2(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    alg_kind: *mut dnnl_alg_kind_t,
    src1_desc: *mut const_dnnl_memory_desc_t,
    src2_desc: *mut const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_get_params_binary_v2", || {
        let (alg_out, src1_out, src2_out) = (
            out_opt(alg_kind, "alg_kind")?,
            out_opt(src1_desc, "src1_desc")?,
            out_opt(src2_desc, "src2_desc")?,
        );
        let PostOp::Binary { alg, src1, src2 } = entry(post_ops, index)? else {
            return Err(wrong_kind(index, "binary"));
        };
        // The entry keeps the descriptors alive, so their handles stay valid.
        let src2 = src2.unwrap_or_else(zero_md);
        write_opt(alg_out, alg);
        write_opt(
            src1_out,
            handles::expose::<dnnl_memory_desc>(&src1).cast_const(),
        );
        write_opt(
            src2_out,
            handles::expose::<dnnl_memory_desc>(&src2).cast_const(),
        );
        Ok(())
    })
}

/// Appends a PReLU post-op whose weights are selected by `mask` (stored as
/// given, as upstream).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_append_prelu(
    post_ops: dnnl_post_ops_t,
    mask: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_append_prelu", || {
        resolve_post_ops(post_ops)?.update(|ops| ops.append(|| Ok(PostOp::Prelu { mask })))
    })
}

/// Writes the mask of PReLU entry `index`; `mask` may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_prelu(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    mask: *mut c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_get_params_prelu", || {
        let out = out_opt(mask, "mask")?;
        let PostOp::Prelu { mask } = entry(post_ops, index)? else {
            return Err(wrong_kind(index, "prelu"));
        };
        write_opt(out, mask);
        Ok(())
    })
}
