//! Primitive attributes: creation, the modes, rounding, dropout, RNN
//! quantization parameters and the attributes' post-ops.
//!
//! Layer: capi. Each function checks its pointers, converts the C values and
//! calls `core::attr`; outputs are written last. Getters accept NULL for the
//! outputs upstream treats as optional (every output of the `_v2` getters,
//! the dropout, RNN and post-op parameter getters) and skip them.
//! Scales, zero points and precomputed reductions are in `attr_quant.rs`,
//! the `dnnl_post_ops_*` functions in `post_ops.rs`.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary::{self, Out};
use crate::capi::handles;
use crate::capi::handles::resolve_md;
use crate::capi::handles::{resolve_cell, resolve_post_ops};
use crate::core::attr::AttrCell;
use crate::core::error::{Error, Result};

/// An output the caller may leave NULL (upstream skips such outputs).
pub(super) fn out_opt<T>(ptr: *mut T, what: &'static str) -> Result<Option<Out<T>>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        boundary::out(ptr, what).map(Some)
    }
}

/// Writes `value` to an optional output.
pub(super) fn write_opt<T>(out: Option<Out<T>>, value: T) {
    if let Some(out) = out {
        out.write(value);
    }
}

/// Creates default attributes (the floating-point math mode is the current
/// default, see `dnnl_set_default_fpmath_mode`). The caller owns `*attr` and
/// releases it with `dnnl_primitive_attr_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_create(
    attr: *mut dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_create", || {
        let out = boundary::out(attr, "attr")?;
        out.write(handles::publish(AttrCell::new()));
        Ok(())
    })
}

/// Writes an independent copy of `existing_attr` (post-ops included) to
/// `*attr`; the caller owns it and releases it with
/// `dnnl_primitive_attr_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_clone(
    attr: *mut dnnl_primitive_attr_t,
    existing_attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_clone", || {
        let out = boundary::out(attr, "attr")?;
        let value = resolve_cell(existing_attr)?.snapshot()?;
        out.write(handles::publish(AttrCell::from_snapshot(value)));
        Ok(())
    })
}

/// Releases the caller's primitive attributes handle; the post-ops handle
/// `dnnl_primitive_attr_get_post_ops` returned dies with it.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
/// Attributes the caller does not own (those of a primitive descriptor)
/// are refused with `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_destroy(attr: dnnl_primitive_attr_t) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_destroy", || handles::retire(attr))
}

/// Writes the scratchpad mode (`dnnl_scratchpad_mode_library` by default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_scratchpad_mode(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_scratchpad_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_scratchpad_mode", || {
        let out = boundary::out(mode, "mode")?;
        out.write(resolve_cell(attr)?.read(|a| a.scratchpad_mode())?);
        Ok(())
    })
}

/// Sets the scratchpad mode: `dnnl_scratchpad_mode_library` or
/// `dnnl_scratchpad_mode_user` (then the scratchpad is passed at execution
/// as `DNNL_ARG_SCRATCHPAD`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scratchpad_mode(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_scratchpad_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_scratchpad_mode", || {
        resolve_cell(attr)?.update(|a| a.set_scratchpad_mode(mode))
    })
}

/// Writes the floating-point math mode.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_fpmath_mode(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_fpmath_mode", || {
        let out = boundary::out(mode, "mode")?;
        out.write(resolve_cell(attr)?.read(|a| a.fpmath.mode)?);
        Ok(())
    })
}

/// Sets the floating-point math mode (and clears "apply to integer
/// primitives", as upstream does).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_fpmath_mode(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_fpmath_mode", || {
        resolve_cell(attr)?.update(|a| a.set_fpmath(mode, false))
    })
}

/// Writes the floating-point math mode and whether it applies to integer
/// primitives (0 or 1). Either output may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_fpmath_mode_v2(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_fpmath_mode_t,
    apply_to_int: *mut c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_fpmath_mode_v2", || {
        let mode = out_opt(mode, "mode")?;
        let apply_to_int = out_opt(apply_to_int, "apply_to_int")?;
        let fpmath = resolve_cell(attr)?.read(|a| a.fpmath)?;
        write_opt(mode, fpmath.mode);
        write_opt(apply_to_int, c_int::from(fpmath.apply_to_int));
        Ok(())
    })
}

/// Sets the floating-point math mode and whether it applies to integer
/// primitives (any non-zero `apply_to_int` is true).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_fpmath_mode_v2(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_fpmath_mode_t,
    apply_to_int: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_fpmath_mode_v2", || {
        resolve_cell(attr)?.update(|a| a.set_fpmath(mode, apply_to_int != 0))
    })
}

/// Writes the deterministic attribute (0 or 1).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_deterministic(
    attr: const_dnnl_primitive_attr_t,
    value: *mut c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_deterministic", || {
        let out = boundary::out(value, "value")?;
        out.write(c_int::from(resolve_cell(attr)?.read(|a| a.deterministic)?));
        Ok(())
    })
}

/// Sets the deterministic attribute (any non-zero `value` is true).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_deterministic(
    attr: dnnl_primitive_attr_t,
    value: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_deterministic", || {
        resolve_cell(attr)?.update(|a| {
            a.deterministic = value != 0;
            Ok(())
        })
    })
}

/// Writes the accumulation mode (`dnnl_accumulation_mode_strict` by default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_accumulation_mode(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_accumulation_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_accumulation_mode", || {
        let out = boundary::out(mode, "mode")?;
        out.write(resolve_cell(attr)?.read(|a| a.accumulation)?);
        Ok(())
    })
}

/// Sets the accumulation mode.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_accumulation_mode(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_accumulation_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_accumulation_mode", || {
        resolve_cell(attr)?.update(|a| a.set_accumulation_mode(mode))
    })
}

/// Sets the rounding mode of `arg`. As upstream, `dnnl_rounding_mode_environment`
/// (the default) changes nothing, for any `arg`; `dnnl_rounding_mode_stochastic`
/// applies to `DNNL_ARG_DST`, `DNNL_ARG_DIFF_SRC` and `DNNL_ARG_DIFF_WEIGHTS`.
/// Unlike upstream, a `mode` that is not a rounding mode is refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rounding(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mode: dnnl_rounding_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_rounding", || {
        resolve_cell(attr)?.update(|a| a.set_rounding(arg, mode))
    })
}

/// Writes the rounding mode of `arg` (`dnnl_rounding_mode_environment` unless
/// set; any `arg` may be asked about).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rounding(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mode: *mut dnnl_rounding_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_rounding", || {
        let out = boundary::out(mode, "mode")?;
        out.write(resolve_cell(attr)?.read(|a| a.rounding(arg))?);
        Ok(())
    })
}

/// Writes the dropout mask descriptor: a handle owned by the attributes
/// (valid while they live and until the next `set_dropout`; not to be
/// destroyed), the zero descriptor when dropout is not set or the mask is
/// not written. `mask_desc` may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_dropout(
    attr: const_dnnl_primitive_attr_t,
    mask_desc: *mut const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the same pointers, with the other outputs NULL.
    unsafe {
        dnnl_primitive_attr_get_dropout_v2(
            attr,
            mask_desc,
            ::core::ptr::null_mut(),
            ::core::ptr::null_mut(),
            ::core::ptr::null_mut(),
        )
    }
}

/// Sets dropout with an `s32` seed, no offset and no host scalars. The mask
/// descriptor is of type `u8`, or the zero descriptor (the mask is then not
/// written); it is copied.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_dropout(
    attr: dnnl_primitive_attr_t,
    mask_desc: const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the same handles, with the `_v2` defaults upstream uses.
    unsafe { dnnl_primitive_attr_set_dropout_v2(attr, mask_desc, dnnl_s32, 0, 0) }
}

/// Writes the dropout parameters; every output may be NULL. Without dropout:
/// the zero descriptor, `dnnl_data_type_undef`, 0 and 0. The descriptor
/// handle is owned by the attributes (see `dnnl_primitive_attr_get_dropout`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_dropout_v2(
    attr: const_dnnl_primitive_attr_t,
    mask_desc: *mut const_dnnl_memory_desc_t,
    seed_dt: *mut dnnl_data_type_t,
    use_offset: *mut c_int,
    use_host_scalars: *mut c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_dropout_v2", || {
        let mask_out = out_opt(mask_desc, "mask_desc")?;
        let seed_out = out_opt(seed_dt, "seed_dt")?;
        let offset_out = out_opt(use_offset, "use_offset")?;
        let host_out = out_opt(use_host_scalars, "use_host_scalars")?;
        let dropout = resolve_cell(attr)?.read(|a| a.dropout.clone())?;
        let (md, seed, offset, host) = match dropout {
            Some(d) => (d.mask_desc, d.seed_dt, d.use_offset, d.use_host_scalars),
            None => (
                crate::core::attr::zero_md(),
                dnnl_data_type_undef,
                false,
                false,
            ),
        };
        write_opt(
            mask_out,
            handles::expose::<dnnl_memory_desc>(&md).cast_const(),
        );
        write_opt(seed_out, seed);
        write_opt(offset_out, c_int::from(offset));
        write_opt(host_out, c_int::from(host));
        Ok(())
    })
}

/// Sets dropout: the mask descriptor (`u8`, or the zero descriptor; copied),
/// the seed type (`dnnl_s32` or `dnnl_s64`), whether an offset argument is
/// used and whether probability, seed and offset are host scalars (non-zero
/// is true).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_dropout_v2(
    attr: dnnl_primitive_attr_t,
    mask_desc: const_dnnl_memory_desc_t,
    seed_dt: dnnl_data_type_t,
    use_offset: c_int,
    use_host_scalars: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_dropout_v2", || {
        let cell = resolve_cell(attr)?;
        let md = resolve_md(mask_desc)?;
        cell.update(|a| a.set_dropout(&md, seed_dt, use_offset != 0, use_host_scalars != 0))
    })
}

/// Writes a handle to the attributes' post-ops. The attributes own it: it is
/// the same handle for their whole life, shows later changes, and is not to
/// be destroyed (`dnnl_post_ops_destroy` refuses it). As upstream, appending
/// through it changes the attributes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_post_ops(
    attr: const_dnnl_primitive_attr_t,
    post_ops: *mut const_dnnl_post_ops_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_post_ops", || {
        let out = boundary::out(post_ops, "post_ops")?;
        let cell = resolve_cell(attr)?;
        out.write(handles::expose::<dnnl_post_ops>(cell.post_ops_view()).cast_const());
        Ok(())
    })
}

/// Replaces the attributes' post-ops with a copy of `post_ops`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_post_ops(
    attr: dnnl_primitive_attr_t,
    post_ops: const_dnnl_post_ops_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_post_ops", || {
        let cell = resolve_cell(attr)?;
        // Read first, then write: the source may be this attribute's own view.
        let value = resolve_post_ops(post_ops)?.get()?;
        cell.update(|a| {
            a.post_ops = value;
            Ok(())
        })
    })
}

/// Sets the RNN data quantization: `scale * data + shift`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_data_qparams(
    attr: dnnl_primitive_attr_t,
    scale: f32,
    shift: f32,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_rnn_data_qparams", || {
        resolve_cell(attr)?.update(|a| {
            a.set_rnn_data_qparams(scale, shift);
            Ok(())
        })
    })
}

/// Writes the RNN data scale and shift (1 and 0 by default); either output
/// may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_data_qparams(
    attr: const_dnnl_primitive_attr_t,
    scale: *mut f32,
    shift: *mut f32,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_rnn_data_qparams", || {
        let scale = out_opt(scale, "scale")?;
        let shift = out_opt(shift, "shift")?;
        let q = resolve_cell(attr)?.read(|a| a.rnn_data_qparams)?;
        write_opt(scale, q.scale);
        write_opt(shift, q.shift);
        Ok(())
    })
}

/// Reads `count` scales (`count > 0`, `scales` not NULL, `mask >= 0`).
///
/// # Safety
/// When `count > 0` and `scales` is not NULL, `scales` points to `count`
/// readable floats.
unsafe fn set_rnn_weights(
    attr: dnnl_primitive_attr_t,
    projection: bool,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> Result<()> {
    let cell = resolve_cell(attr)?;
    let n = usize::try_from(count)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| Error::invalid(format!("count {count} is not positive")))?;
    if scales.is_null() {
        return Err(Error::invalid("scales is NULL"));
    }
    if !scales.is_aligned() {
        return Err(Error::invalid("scales is misaligned"));
    }
    // SAFETY: non-NULL and aligned (checked); the caller promises `count` floats.
    let values = unsafe { std::slice::from_raw_parts(scales, n) };
    cell.update(|a| a.set_rnn_weights_qparams(projection, mask, values))
}

/// Writes count, mask and scales of RNN weights quantization; each output
/// may be NULL. The scales pointer is owned by the attributes: valid while
/// they live and until the next set. By default: 1, 0 and `{1.0}`.
fn get_rnn_weights(
    attr: const_dnnl_primitive_attr_t,
    projection: bool,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> Result<()> {
    let count = out_opt(count, "count")?;
    let mask = out_opt(mask, "mask")?;
    let scales = out_opt(scales, "scales")?;
    let q = resolve_cell(attr)?.read(|a| {
        if projection {
            a.rnn_weights_projection_qparams.clone()
        } else {
            a.rnn_weights_qparams.clone()
        }
    })?;
    // The attributes keep `q.scales` alive, so the pointer outlives this call.
    write_opt(count, q.scales.len() as dnnl_dim_t);
    write_opt(mask, q.mask);
    write_opt(scales, q.scales.as_ptr());
    Ok(())
}

/// Sets the RNN weights scales: `count` values (at least one) read from
/// `scales`, selected by `mask` (`>= 0`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_weights_qparams(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_set_rnn_weights_qparams", || {
        // SAFETY: forwarded contract: `scales` holds `count` floats.
        unsafe { set_rnn_weights(attr, false, count, mask, scales) }
    })
}

/// Writes the RNN weights scales (see `set`); each output may be NULL, and
/// the scales array belongs to the attributes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_weights_qparams(
    attr: const_dnnl_primitive_attr_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_get_rnn_weights_qparams", || {
        get_rnn_weights(attr, false, count, mask, scales)
    })
}

/// Sets the RNN projection weights scales, as
/// `dnnl_primitive_attr_set_rnn_weights_qparams`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_weights_projection_qparams(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_primitive_attr_set_rnn_weights_projection_qparams",
        || {
            // SAFETY: forwarded contract: `scales` holds `count` floats.
            unsafe { set_rnn_weights(attr, true, count, mask, scales) }
        },
    )
}

/// Writes the RNN projection weights scales, as
/// `dnnl_primitive_attr_get_rnn_weights_qparams`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_weights_projection_qparams(
    attr: const_dnnl_primitive_attr_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_primitive_attr_get_rnn_weights_projection_qparams",
        || get_rnn_weights(attr, true, count, mask, scales),
    )
}
