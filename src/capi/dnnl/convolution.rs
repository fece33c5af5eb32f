//! Convolution and deconvolution primitive descriptors
//! (`dnnl_convolution_*_primitive_desc_create`,
//! `dnnl_deconvolution_*_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::convolution`; these
//! functions read the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint, optional_md};
use crate::capi::handles::resolve_md;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::prims::convolution::{ConvOp, Geometry, Pass, Tensors};

/// The geometry arrays as the C API passes them: one entry per spatial
/// dimension of `data` (`ndims - 2`, read only when `data` has 3 to 5
/// dimensions). `strides` and `padding_l` are required; NULL `dilates`
/// means dense and NULL `padding_r` means `padding_l`, as upstream.
struct Raw {
    strides: *const dnnl_dim_t,
    dilates: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
}

/// Owned copies of the arrays.
struct Arrays {
    strides: Vec<i64>,
    dilates: Option<Vec<i64>>,
    padding_l: Vec<i64>,
    padding_r: Option<Vec<i64>>,
}

impl Arrays {
    /// # Safety
    /// Each non-NULL pointer must point to `ndims - 2` readable values.
    unsafe fn read(raw: &Raw, data: &MemoryDesc) -> Result<Arrays> {
        let nd = data.ndims();
        if !(3..=5).contains(&nd) {
            return Err(Error::invalid(format!(
                "convolutions take 3 to 5 dimensions (1D to 3D), not {nd}"
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
        let required = |v: Option<Vec<i64>>, what: &str| {
            v.ok_or_else(|| Error::invalid(format!("{what} is NULL")))
        };
        Ok(Arrays {
            strides: required(read(raw.strides, "strides")?, "strides")?,
            dilates: read(raw.dilates, "dilates")?,
            padding_l: required(read(raw.padding_l, "padding_l")?, "padding_l")?,
            padding_r: read(raw.padding_r, "padding_r")?,
        })
    }

    fn geometry(&self) -> Geometry<'_> {
        Geometry {
            strides: &self.strides,
            dilates: self.dilates.as_deref(),
            padding_l: &self.padding_l,
            padding_r: self.padding_r.as_deref(),
        }
    }
}

/// The shared body of the two forward functions.
#[allow(clippy::too_many_arguments)]
unsafe fn forward(
    deconv: bool,
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    raw: Raw,
    attr: const_dnnl_primitive_attr_t,
) -> Result<()> {
    create(primitive_desc, engine, attr, |attr| {
        let src = resolve_md(src_desc)?;
        let weights = resolve_md(weights_desc)?;
        let bias = optional_md(bias_desc)?;
        let dst = resolve_md(dst_desc)?;
        // SAFETY: forwarded contract.
        let arrays = unsafe { Arrays::read(&raw, &src) }?;
        let tensors = Tensors {
            src: &src,
            weights: &weights,
            bias: bias.as_deref(),
            dst: &dst,
        };
        ConvOp::new(
            deconv,
            Pass::Forward,
            prop_kind,
            alg_kind,
            tensors,
            arrays.geometry(),
            Some(attr),
        )
    })
}

/// The shared body of the two backward data functions.
#[allow(clippy::too_many_arguments)]
unsafe fn backward_data(
    deconv: bool,
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    raw: Raw,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> Result<()> {
    create(primitive_desc, engine, attr, |attr| {
        let diff_src = resolve_md(diff_src_desc)?;
        let weights = resolve_md(weights_desc)?;
        let diff_dst = resolve_md(diff_dst_desc)?;
        hint::<ConvOp>(hint_fwd_pd)?;
        // SAFETY: forwarded contract.
        let arrays = unsafe { Arrays::read(&raw, &diff_src) }?;
        let tensors = Tensors {
            src: &diff_src,
            weights: &weights,
            bias: None,
            dst: &diff_dst,
        };
        ConvOp::new(
            deconv,
            Pass::BackwardData,
            dnnl_backward_data,
            alg_kind,
            tensors,
            arrays.geometry(),
            Some(attr),
        )
    })
}

/// The shared body of the two backward weights functions.
#[allow(clippy::too_many_arguments)]
unsafe fn backward_weights(
    deconv: bool,
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    diff_weights_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    raw: Raw,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> Result<()> {
    create(primitive_desc, engine, attr, |attr| {
        let src = resolve_md(src_desc)?;
        let diff_weights = resolve_md(diff_weights_desc)?;
        let diff_bias = optional_md(diff_bias_desc)?;
        let diff_dst = resolve_md(diff_dst_desc)?;
        hint::<ConvOp>(hint_fwd_pd)?;
        // SAFETY: forwarded contract.
        let arrays = unsafe { Arrays::read(&raw, &src) }?;
        let tensors = Tensors {
            src: &src,
            weights: &diff_weights,
            bias: diff_bias.as_deref(),
            dst: &diff_dst,
        };
        ConvOp::new(
            deconv,
            Pass::BackwardWeights,
            dnnl_backward_weights,
            alg_kind,
            tensors,
            arrays.geometry(),
            Some(attr),
        )
    })
}

/// Creates a primitive descriptor for convolution forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`, `alg_kind`
/// `dnnl_convolution_direct` or `dnnl_convolution_auto`). `bias_desc` may be
/// NULL or the zero descriptor (no bias); `strides` and `padding_l` hold one
/// value per spatial dimension, `dilates` NULL means dense (0 is dense, as
/// oneDNN counts) and `padding_r` NULL means `padding_l`. Descriptors may
/// use `format_tag::any`; attributes: scales, zero points (int8) and
/// post-ops (see `prims::convolution`). On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_convolution_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    dilates: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_convolution_forward_primitive_desc_create", || {
        let raw = Raw {
            strides,
            dilates,
            padding_l,
            padding_r,
        };
        // SAFETY: the caller's arrays, as documented.
        unsafe {
            forward(
                false,
                primitive_desc,
                engine,
                prop_kind,
                alg_kind,
                src_desc,
                weights_desc,
                bias_desc,
                dst_desc,
                raw,
                attr,
            )
        }
    })
}

/// Creates a primitive descriptor for convolution backward data:
/// `diff_src` from `diff_dst` and the weights. `hint_fwd_pd` may be NULL; it
/// does not change the result (a non-NULL one must be a live convolution
/// handle). The arrays as for the forward function. On success the caller
/// owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_convolution_backward_data_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    dilates: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_convolution_backward_data_primitive_desc_create",
        || {
            let raw = Raw {
                strides,
                dilates,
                padding_l,
                padding_r,
            };
            // SAFETY: the caller's arrays, as documented.
            unsafe {
                backward_data(
                    false,
                    primitive_desc,
                    engine,
                    alg_kind,
                    diff_src_desc,
                    weights_desc,
                    diff_dst_desc,
                    raw,
                    hint_fwd_pd,
                    attr,
                )
            }
        },
    )
}

/// Creates a primitive descriptor for convolution backward weights:
/// `diff_weights` (and `diff_bias`, when `diff_bias_desc` is neither NULL
/// nor the zero descriptor) from `src` and `diff_dst`. `hint_fwd_pd` may be
/// NULL. On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_convolution_backward_weights_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    diff_weights_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    dilates: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_convolution_backward_weights_primitive_desc_create",
        || {
            let raw = Raw {
                strides,
                dilates,
                padding_l,
                padding_r,
            };
            // SAFETY: the caller's arrays, as documented.
            unsafe {
                backward_weights(
                    false,
                    primitive_desc,
                    engine,
                    alg_kind,
                    src_desc,
                    diff_weights_desc,
                    diff_bias_desc,
                    diff_dst_desc,
                    raw,
                    hint_fwd_pd,
                    attr,
                )
            }
        },
    )
}

/// Creates a primitive descriptor for deconvolution (transposed
/// convolution) forward (`alg_kind` `dnnl_deconvolution_direct`). Weights
/// are `[G x] OC x IC x K…` with the deconvolution's own OC and IC; the
/// arrays, `bias_desc` and the attributes as for convolution forward. On
/// success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_deconvolution_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    dilates: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_deconvolution_forward_primitive_desc_create", || {
        let raw = Raw {
            strides,
            dilates,
            padding_l,
            padding_r,
        };
        // SAFETY: the caller's arrays, as documented.
        unsafe {
            forward(
                true,
                primitive_desc,
                engine,
                prop_kind,
                alg_kind,
                src_desc,
                weights_desc,
                bias_desc,
                dst_desc,
                raw,
                attr,
            )
        }
    })
}

/// Creates a primitive descriptor for deconvolution backward data. As
/// convolution backward data; `hint_fwd_pd` may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_deconvolution_backward_data_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    dilates: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_deconvolution_backward_data_primitive_desc_create",
        || {
            let raw = Raw {
                strides,
                dilates,
                padding_l,
                padding_r,
            };
            // SAFETY: the caller's arrays, as documented.
            unsafe {
                backward_data(
                    true,
                    primitive_desc,
                    engine,
                    alg_kind,
                    diff_src_desc,
                    weights_desc,
                    diff_dst_desc,
                    raw,
                    hint_fwd_pd,
                    attr,
                )
            }
        },
    )
}

/// Creates a primitive descriptor for deconvolution backward weights. As
/// convolution backward weights; `hint_fwd_pd` may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_deconvolution_backward_weights_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    diff_weights_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    strides: *const dnnl_dim_t,
    dilates: *const dnnl_dim_t,
    padding_l: *const dnnl_dim_t,
    padding_r: *const dnnl_dim_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_deconvolution_backward_weights_primitive_desc_create",
        || {
            let raw = Raw {
                strides,
                dilates,
                padding_l,
                padding_r,
            };
            // SAFETY: the caller's arrays, as documented.
            unsafe {
                backward_weights(
                    true,
                    primitive_desc,
                    engine,
                    alg_kind,
                    src_desc,
                    diff_weights_desc,
                    diff_bias_desc,
                    diff_dst_desc,
                    raw,
                    hint_fwd_pd,
                    attr,
                )
            }
        },
    )
}
