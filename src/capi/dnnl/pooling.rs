//! Pooling primitive descriptors
//! (`dnnl_pooling_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::pooling`; these functions
//! read the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::prims::pooling::{PoolingOp, Window};

/// Owned copies of the window arrays: one value per spatial dimension of
/// `data` (`ndims - 2`, read only when `data` has 3 to 5 dimensions).
/// `strides`, `kernel` and `padding_l` are required; NULL `dilation` means
/// dense and NULL `padding_r` means `padding_l` (Intel's library crashes on
/// either).
struct Arrays {
    strides: Vec<i64>,
    kernel: Vec<i64>,
    dilation: Option<Vec<i64>>,
    padding_l: Vec<i64>,
    padding_r: Option<Vec<i64>>,
}

impl Arrays {
    /// # Safety
    /// Each non-NULL pointer must point to `ndims - 2` readable values.
    unsafe fn read(
        data: &MemoryDesc,
        strides: *const dnnl_dim_t,
        kernel: *const dnnl_dim_t,
        dilation: *const dnnl_dim_t,
        padding_l: *const dnnl_dim_t,
        padding_r: *const dnnl_dim_t,
    ) -> Result<Arrays> {
        let nd = data.ndims();
        if !(3..=5).contains(&nd) {
            return Err(Error::invalid(format!(
                "pooling takes 3 to 5 dimensions (1D to 3D spatial), not {nd}"
            )));
        }
        let n = nd - 2;
        let read = |ptr: *const dnnl_dim_t, what: &str| -> Result<Option<Vec<i64>>> {
            if ptr.is_null() {
                return Ok(None);
            }
            if !ptr.is_aligned() {
                return Err(Error::invalid(format!("{what} is misaligned")));
            }
            // SAFETY: non-NULL and aligned (checked); the caller promises
            // one value per spatial dimension.
            Ok(Some(unsafe { std::slice::from_raw_parts(ptr, n) }.to_vec()))
        };
        let required = |ptr, what: &str| {
            read(ptr, what)?.ok_or_else(|| Error::invalid(format!("{what} is NULL")))
        };
        Ok(Arrays {
            strides: required(strides, "strides")?,
            kernel: required(kernel, "kernel")?,
            dilation: read(dilation, "dilation")?,
            padding_l: required(padding_l, "padding_l")?,
            padding_r: read(padding_r, "padding_r")?,
        })
    }

    fn window(&self) -> Window<'_> {
        Window {
            strides: &self.strides,
            kernel: &self.kernel,
            dilation: self.dilation.as_deref(),
            padding_l: &self.padding_l,
            padding_r: self.padding_r.as_deref(),
        }
    }
}

/// Creates a primitive descriptor for pooling forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`) with `alg_kind`
/// `dnnl_pooling_max`, `dnnl_pooling_avg_include_padding` or
/// `dnnl_pooling_avg_exclude_padding`. The arrays hold one value per
/// spatial dimension; `dilation` counts as oneDNN does (0: dense). Max
/// pooling in training writes a workspace (`DNNL_ARG_WORKSPACE`,
/// `dnnl_query_workspace_md`). `dst_desc` may be `any` (it takes
/// `src_desc`'s layout). Attributes: eltwise and binary post-ops; others are
/// `dnnl_unimplemented`. On success the caller owns `*primitive_desc` and
/// releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_pooling_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    kernel: *const dnnl_dim_t,
    dilation: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_pooling_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            // SAFETY: the caller's contract on the arrays.
            let arrays =
                unsafe { Arrays::read(&src, strides, kernel, dilation, padding_l, padding_r) }?;
            PoolingOp::forward(prop_kind, alg_kind, &src, &dst, arrays.window(), attr)
        })
    })
}

/// Creates a primitive descriptor for pooling backward (execution arguments
/// `DNNL_ARG_DIFF_DST`, `DNNL_ARG_DIFF_SRC` and, for max pooling,
/// `DNNL_ARG_WORKSPACE`). Max pooling needs `hint_fwd_pd`: the forward
/// training descriptor whose workspace this one reads
/// (`dnnl_unimplemented` without it); average pooling accepts NULL.
/// `diff_src_desc` and `diff_dst_desc` may be `any`. Attributes other than
/// the defaults are `dnnl_unimplemented`. On success the caller owns
/// `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_pooling_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    kernel: *const dnnl_dim_t,
    dilation: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_pooling_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_dst = resolve_md(diff_dst_desc)?;
            // SAFETY: the caller's contract on the arrays.
            let arrays = unsafe {
                Arrays::read(&diff_src, strides, kernel, dilation, padding_l, padding_r)
            }?;
            let fwd = hint::<PoolingOp>(hint_fwd_pd)?;
            PoolingOp::backward(
                alg_kind,
                &diff_src,
                &diff_dst,
                arrays.window(),
                fwd.as_deref(),
                attr,
            )
        })
    })
}
