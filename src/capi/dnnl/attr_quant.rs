//! Scales, zero points and precomputed reductions of primitive attributes.
//!
//! Layer: capi. Each setter reads its group dimensions, builds a checked
//! `QuantSpec` (the rules are in `core::attr::quant`) and stores it for the
//! argument, replacing an earlier setting. There are no getters in the C
//! API; primitives read the values, and `ONEDNN_VERBOSE` prints them.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles::resolve_cell;
use crate::core::attr::{QuantKind, QuantSpec};
use crate::core::error::{Error, Result};

/// Reads the group dimensions: none, or two from `group_dims`.
///
/// # Safety
/// When `ndims` is 2 and `group_dims` is not NULL, it points to two readable
/// `dnnl_dim_t`.
unsafe fn groups_in<'a>(ndims: c_int, group_dims: *const dnnl_dim_t) -> Result<&'a [i64]> {
    match ndims {
        0 => Ok(&[]),
        2 => {
            if group_dims.is_null() {
                return Err(Error::invalid("group_dims is NULL"));
            }
            if !group_dims.is_aligned() {
                return Err(Error::invalid("group_dims is misaligned"));
            }
            // SAFETY: non-NULL and aligned (checked); the caller promises the
            // two entries.
            Ok(unsafe { std::slice::from_raw_parts(group_dims, 2) })
        }
        n => Err(Error::invalid(format!(
            "{n} group dimensions given, 0 or 2 are supported"
        ))),
    }
}

/// The common body of the setters.
///
/// # Safety
/// As [`groups_in`].
#[allow(clippy::too_many_arguments)]
unsafe fn set(
    kind: QuantKind,
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
    ndims: c_int,
    group_dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    is_on_host: c_int,
    qmode: dnnl_quantization_mode_t,
) -> Result<()> {
    let cell = resolve_cell(attr)?;
    // SAFETY: forwarded contract.
    let groups = unsafe { groups_in(ndims, group_dims) }?;
    let spec = QuantSpec::new(kind, mask, groups, data_type, is_on_host != 0, qmode)?;
    cell.update(|a| a.set_quant(kind, arg, spec))
}

/// Sets scales for `arg` with `mask`, values of type `f32`, no groups.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scales_mask(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_scales_mask", || {
        let cell = resolve_cell(attr)?;
        let spec = QuantSpec::with_mask(QuantKind::Scales, mask)?;
        cell.update(|a| a.set_quant(QuantKind::Scales, arg, spec))
    })
}

/// Sets scales for `arg`: `mask`, 0 or 2 group dimensions (positive; they
/// need a non-zero mask) and the values' data type (`f32`, `bf16`, `f16`;
/// with a non-zero mask also `f8_e4m3`, `e8m0`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scales(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
    group_ndims: c_int,
    group_dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_scales", || {
        // SAFETY: forwarded contract on `group_dims`.
        unsafe {
            set(
                QuantKind::Scales,
                attr,
                arg,
                mask,
                group_ndims,
                group_dims,
                data_type,
                0,
                dnnl_quantization_mode_static_sazp,
            )
        }
    })
}

/// As `dnnl_primitive_attr_set_scales`; with `is_on_host` non-zero the
/// scale is one host-scalar value (mask 0, no groups).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scales_v2(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
    ndims: c_int,
    group_dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    is_on_host: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_scales_v2", || {
        // SAFETY: forwarded contract on `group_dims`.
        unsafe {
            set(
                QuantKind::Scales,
                attr,
                arg,
                mask,
                ndims,
                group_dims,
                data_type,
                is_on_host,
                dnnl_quantization_mode_static_sazp,
            )
        }
    })
}

/// As `dnnl_primitive_attr_set_scales_v2`, with a quantization mode
/// (`static_sazp`, `dynamic_mx` or `dynamic_fp`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scales_v3(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
    ndims: c_int,
    group_dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    is_on_host: c_int,
    qmode: dnnl_quantization_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_scales_v3", || {
        // SAFETY: forwarded contract on `group_dims`.
        unsafe {
            set(
                QuantKind::Scales,
                attr,
                arg,
                mask,
                ndims,
                group_dims,
                data_type,
                is_on_host,
                qmode,
            )
        }
    })
}

/// Sets zero points for `arg` with `mask`, values of type `s32`, no groups.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_zero_points_mask(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_zero_points_mask", || {
        let cell = resolve_cell(attr)?;
        let spec = QuantSpec::with_mask(QuantKind::ZeroPoints, mask)?;
        cell.update(|a| a.set_quant(QuantKind::ZeroPoints, arg, spec))
    })
}

/// Sets zero points for `arg` (`DNNL_ARG_SRC`, `_SRC_2`, `_DST`,
/// `_WEIGHTS_0..2`): `mask`, 0 or 2 group dimensions and the values' type
/// (`s32`, `s8`, `u8`; with a non-zero mask also `s4`, `u4`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_zero_points(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
    group_ndims: c_int,
    group_dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_zero_points", || {
        // SAFETY: forwarded contract on `group_dims`.
        unsafe {
            set(
                QuantKind::ZeroPoints,
                attr,
                arg,
                mask,
                group_ndims,
                group_dims,
                data_type,
                0,
                dnnl_quantization_mode_static_sazp,
            )
        }
    })
}

/// Sets precomputed reductions for `arg` (`DNNL_ARG_SRC` only, type `s32`):
/// `mask` and 0 or 2 group dimensions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_precomputed_reductions(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
    group_ndims: c_int,
    group_dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_precomputed_reductions", || {
        // SAFETY: forwarded contract on `group_dims`.
        unsafe {
            set(
                QuantKind::PrecomputedReductions,
                attr,
                arg,
                mask,
                group_ndims,
                group_dims,
                data_type,
                0,
                dnnl_quantization_mode_static_sazp,
            )
        }
    })
}

/// As `dnnl_primitive_attr_set_zero_points`; with `is_on_host` non-zero the
/// zero point is one host-scalar value (mask 0, no groups).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_zero_points_v2(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
    ndims: c_int,
    group_dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    is_on_host: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_zero_points_v2", || {
        // SAFETY: forwarded contract on `group_dims`.
        unsafe {
            set(
                QuantKind::ZeroPoints,
                attr,
                arg,
                mask,
                ndims,
                group_dims,
                data_type,
                is_on_host,
                dnnl_quantization_mode_static_sazp,
            )
        }
    })
}
