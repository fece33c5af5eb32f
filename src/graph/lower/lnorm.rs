//! LayerNorm, LayerNormBackward and RMSNorm onto the layer normalization
//! primitive.
//!
//! Layer: graph. The primitive normalizes over the last dimension, so
//! `begin_norm_axis` must name it (-1 or the last index: other axes are not
//! supported, as upstream's library does not support them). LayerNorm
//! normalizes with gamma and beta when `use_affine` (the default), writes
//! mean and variance when `keep_stats` (the default: training), and takes
//! its chain as post-ops (a TypeCast to f32 right after it makes the
//! destination f32; a Quantize after the chain quantizes the f32 result).
//! RMSNorm is the primitive's `rms_norm` flag (no mean, the mean square as
//! variance) with an optional gamma. LayerNormBackward computes diff_src,
//! and diff_gamma and diff_beta with `use_affine`. The statistics are f32
//! tensors of src's dimensions but the last.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::post::{self, Conversions};
use super::{Arg, Buf, Builder};
use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::graph::partitioner::PostChain;
use crate::prims::normalization::{LayerNormOp, RMS_NORM, USE_SCALE, USE_SHIFT};

fn shape_err(op: &Op, why: String) -> Error {
    Error::InvalidShape(format!("op {} ({}): {why}", op.id, op.kind_name()).into())
}

fn arg(arg: i32, md: &MemoryDesc, buf: Buf) -> Arg {
    Arg {
        arg,
        buf,
        md: md.clone(),
    }
}

/// Whether `op`'s `begin_norm_axis` names the last of `nd` dimensions
/// (unknown ranks pass).
pub(crate) fn last_axis(op: &Op, nd: Option<usize>) -> bool {
    let axis = op.s64_or(dnnl_graph_op_attr_begin_norm_axis, -1);
    match nd {
        Some(n) => axis == -1 || axis == n as i64 - 1,
        None => axis == -1,
    }
}

fn check_axis(op: &Op, nd: usize) -> Result<()> {
    if nd < 2 {
        return Err(shape_err(
            op,
            format!("the source has {nd} dimensions (2 or more are needed)"),
        ));
    }
    if !last_axis(op, Some(nd)) {
        return Err(Error::unimplemented(format!(
            "op {} ({}): normalization from an axis before the last is not supported",
            op.id,
            op.kind_name()
        )));
    }
    Ok(())
}

/// The statistics' dimensions for a source of dimensions `src`.
pub(crate) fn stat_dims(src: &[i64]) -> Vec<i64> {
    src[..src.len().saturating_sub(1)].to_vec()
}

/// A vector input of `c` values (gamma, beta) seen as 1-D.
fn vector_in(b: &mut Builder, op: &Op, id: usize, c: i64) -> Result<(MemoryDesc, Buf)> {
    let md = b.md(id)?;
    if md.dims().iter().product::<i64>() != c {
        return Err(shape_err(
            op,
            format!(
                "tensor {id} {:?} is not one value per channel ({c})",
                md.dims()
            ),
        ));
    }
    Ok((md.reshape(&[c])?, b.buf(id)?))
}

/// A statistics tensor (mean, variance) seen with src's dimensions but the
/// last.
fn stat(b: &mut Builder, op: &Op, id: usize, dims: &[i64]) -> Result<(MemoryDesc, Buf)> {
    let md = b.md(id)?;
    if md.dims().iter().product::<i64>() != dims.iter().product::<i64>() {
        return Err(shape_err(
            op,
            format!("statistics {:?} for a source of rows {dims:?}", md.dims()),
        ));
    }
    if md.data_type() != dnnl_f32 {
        return Err(Error::unimplemented(format!(
            "op {} ({}): statistics of another type than f32",
            op.id,
            op.kind_name()
        )));
    }
    Ok((md.reshape(dims)?, b.buf(id)?))
}

/// LayerNorm or RMSNorm with its chain (`ops[chain.anchor]`).
pub(super) fn forward(b: &mut Builder, ops: &[Op], chain: &PostChain) -> Result<()> {
    let op = &ops[chain.anchor];
    let rms = op.kind == dnnl_graph_op_rms_norm;
    let conv = Conversions::begin(b, ops, chain)?;
    let src_id = op.inputs[0].id;
    let src = b.md(src_id)?;
    let nd = src.ndims();
    check_axis(op, nd)?;
    let c = src.dims()[nd - 1];
    let rows = stat_dims(src.dims());
    let view = |md: &MemoryDesc| super::single::expand(md, nd);
    let mut attr = PrimitiveAttr::default();
    let mut args = vec![arg(DNNL_ARG_SRC, &src, b.buf(src_id)?)];
    let tail = post::post_ops(b, ops, chain, &view, &mut attr, &mut args)?;
    let dst = b.md(tail)?;
    args.push(arg(DNNL_ARG_DST, &dst, b.buf(tail)?));
    let mut flags = if rms { RMS_NORM } else { 0 };
    let affine = if rms {
        op.inputs.len() > 1
    } else {
        op.bool_or(dnnl_graph_op_attr_use_affine, true)
    };
    let mut ss_dt = dnnl_f32;
    if affine {
        let gamma = op
            .inputs
            .get(1)
            .ok_or_else(|| shape_err(op, "use_affine needs gamma".into()))?;
        let g = vector_in(b, op, gamma.id, c)?;
        ss_dt = g.0.data_type();
        args.push(arg(DNNL_ARG_SCALE, &g.0, g.1));
        flags |= USE_SCALE;
        if !rms {
            let beta = op
                .inputs
                .get(2)
                .ok_or_else(|| shape_err(op, "use_affine needs beta".into()))?;
            let be = vector_in(b, op, beta.id, c)?;
            if be.0.data_type() != ss_dt {
                return Err(Error::unimplemented(format!(
                    "op {} (LayerNorm): gamma and beta of different types",
                    op.id
                )));
            }
            args.push(arg(DNNL_ARG_SHIFT, &be.0, be.1));
            flags |= USE_SHIFT;
        }
    }
    let keep_stats = !rms && op.bool_or(dnnl_graph_op_attr_keep_stats, true);
    let prop = if keep_stats {
        if op.outputs.len() < 3 {
            return Err(Error::InvalidGraphOp(
                format!(
                    "op {} (LayerNorm): keep_stats needs mean and variance",
                    op.id
                )
                .into(),
            ));
        }
        let mean = stat(b, op, op.outputs[1].id, &rows)?;
        let var = stat(b, op, op.outputs[2].id, &rows)?;
        args.push(arg(DNNL_ARG_MEAN, &mean.0, mean.1));
        args.push(arg(DNNL_ARG_VARIANCE, &var.0, var.1));
        dnnl_forward_training
    } else {
        dnnl_forward_inference
    };
    let eps = op.f32_or(dnnl_graph_op_attr_epsilon, 1e-5);
    let stat_md = MemoryDesc::with_strides(&rows, dnnl_f32, None)?;
    let desc = LayerNormOp::forward(prop, &src, &dst, Some(&stat_md), ss_dt, eps, flags, &attr)?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    conv.end(b)
}

/// LayerNormBackward.
pub(super) fn backward(b: &mut Builder, op: &Op) -> Result<()> {
    let src_id = op.inputs[0].id;
    let dd_id = op.inputs[1].id;
    let ds_id = op.outputs[0].id;
    let src = b.md(src_id)?;
    let nd = src.ndims();
    check_axis(op, nd)?;
    let c = src.dims()[nd - 1];
    let rows = stat_dims(src.dims());
    let diff_dst = b.md(dd_id)?;
    let diff_src = b.md(ds_id)?;
    let mean = stat(b, op, op.inputs[2].id, &rows)?;
    let var = stat(b, op, op.inputs[3].id, &rows)?;
    let mut args = vec![
        arg(DNNL_ARG_SRC, &src, b.buf(src_id)?),
        arg(DNNL_ARG_DIFF_DST, &diff_dst, b.buf(dd_id)?),
        arg(DNNL_ARG_MEAN, &mean.0, mean.1),
        arg(DNNL_ARG_VARIANCE, &var.0, var.1),
        arg(DNNL_ARG_DIFF_SRC, &diff_src, b.buf(ds_id)?),
    ];
    let affine = op.bool_or(dnnl_graph_op_attr_use_affine, true);
    let (prop, flags) = if affine {
        (dnnl_backward, USE_SCALE | USE_SHIFT)
    } else {
        (dnnl_backward_data, 0)
    };
    let (mut ss_dt, mut dss_dt) = (dnnl_f32, dnnl_f32);
    if affine {
        let gamma = op
            .inputs
            .get(4)
            .ok_or_else(|| shape_err(op, "use_affine needs gamma".into()))?;
        let g = vector_in(b, op, gamma.id, c)?;
        ss_dt = g.0.data_type();
        args.push(arg(DNNL_ARG_SCALE, &g.0, g.1));
        for (k, which) in [(1, DNNL_ARG_DIFF_SCALE), (2, DNNL_ARG_DIFF_SHIFT)] {
            let v = match op.outputs.get(k) {
                Some(l) => vector_in(b, op, l.id, c)?,
                None => {
                    let md = MemoryDesc::with_strides(&[c], dnnl_f32, None)?;
                    let buf = b.temp(md.size(0));
                    (md, buf)
                }
            };
            dss_dt = v.0.data_type();
            args.push(arg(which, &v.0, v.1));
        }
    }
    let eps = op.f32_or(dnnl_graph_op_attr_epsilon, 1e-5);
    let stat_md = MemoryDesc::with_strides(&rows, dnnl_f32, None)?;
    let desc = LayerNormOp::backward(
        prop,
        &diff_src,
        &diff_dst,
        &src,
        Some(&stat_md),
        dss_dt,
        ss_dt,
        eps,
        flags,
        None,
        &PrimitiveAttr::default(),
    )?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    Ok(())
}
