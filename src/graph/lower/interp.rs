//! Interpolate and InterpolateBackward onto the resampling primitive.
//!
//! Layer: graph. Data in `NXC` (the default) is seen as `N, C, spatial…`
//! through permuted strides. The output's spatial sizes are `sizes`, else
//! `floor(I · scale)` from `scales`; `nearest` is the primitive's nearest
//! algorithm, `linear`, `bilinear` and `trilinear` its linear one, both with
//! `half_pixel` coordinates (`align_corners` is not supported, as upstream's
//! library does not support it). The chain's unary and binary ops are
//! post-ops. Sizes given as an input tensor are not supported.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::conv_geom::ncx_view;
use super::post::{self, Conversions};
use super::{Arg, Buf, Builder};
use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::graph::partitioner::PostChain;
use crate::prims::resampling::ResamplingOp;

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

/// Whether `op` (Interpolate or its backward op) lowers: `half_pixel`
/// coordinates and its sizes as an attribute.
pub(crate) fn lowers(op: &Op) -> bool {
    let max_inputs = if op.kind == dnnl_graph_op_interpolate {
        1
    } else {
        2
    };
    op.inputs.len() <= max_inputs
        && op.str_or(
            dnnl_graph_op_attr_coordinate_transformation_mode,
            "half_pixel",
        ) == "half_pixel"
}

fn ncx(op: &Op) -> bool {
    op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX"
}

/// The output dimensions of Interpolate (or the diff_dst dimensions of its
/// backward op) for a source of dimensions `src`.
pub(crate) fn dst_dims(op: &Op, src: &[i64]) -> Result<Vec<i64>> {
    let nd = src.len();
    if !(3..=5).contains(&nd) {
        return Err(shape_err(
            op,
            format!("{src:?}: the data needs 3 to 5 dimensions"),
        ));
    }
    let nsp = nd - 2;
    let first = if ncx(op) { 2 } else { 1 };
    let mut out = src.to_vec();
    if let Some(sizes) = op.s64s(dnnl_graph_op_attr_sizes) {
        if sizes.len() != nsp || sizes.iter().any(|&s| s < 1) {
            return Err(shape_err(
                op,
                format!("sizes {sizes:?} for {nsp} spatial dimensions"),
            ));
        }
        out[first..first + nsp].copy_from_slice(&sizes);
        return Ok(out);
    }
    let scales = op.f32s(dnnl_graph_op_attr_scales);
    if scales.len() != nsp || scales.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(shape_err(
            op,
            format!("scales {scales:?} for {nsp} spatial dimensions"),
        ));
    }
    for (i, s) in scales.iter().enumerate() {
        out[first + i] = (src[first + i] as f32 * s) as i64;
    }
    Ok(out)
}

fn alg(op: &Op) -> Result<dnnl_alg_kind_t> {
    match op.str_or(dnnl_graph_op_attr_mode, "nearest").as_str() {
        "nearest" => Ok(dnnl_resampling_nearest),
        "linear" | "bilinear" | "trilinear" => Ok(dnnl_resampling_linear),
        other => Err(Error::InvalidGraphOp(
            format!("op {}: mode '{other}' is unknown", op.id).into(),
        )),
    }
}

fn check(op: &Op) -> Result<()> {
    if lowers(op) {
        Ok(())
    } else {
        Err(Error::unimplemented(format!(
            "op {} ({}): align_corners, or sizes given as an input tensor, are not supported",
            op.id,
            op.kind_name()
        )))
    }
}

/// Interpolate with its chain (`ops[chain.anchor]`).
pub(super) fn forward(b: &mut Builder, ops: &[Op], chain: &PostChain) -> Result<()> {
    let op = &ops[chain.anchor];
    check(op)?;
    let conv = Conversions::begin(b, ops, chain)?;
    let src_id = op.inputs[0].id;
    let src_md = b.md(src_id)?;
    let nd = src_md.ndims();
    let ncx = ncx(op);
    let view = |md: &MemoryDesc| ncx_view(ncx, nd, md);
    let src = view(&src_md)?;
    let mut attr = PrimitiveAttr::default();
    let mut args = vec![arg(DNNL_ARG_SRC, &src, b.buf(src_id)?)];
    let tail = post::post_ops(b, ops, chain, &view, &mut attr, &mut args)?;
    let dst = view(&b.md(tail)?)?;
    args.push(arg(DNNL_ARG_DST, &dst, b.buf(tail)?));
    let desc = ResamplingOp::forward(
        dnnl_forward_inference,
        alg(op)?,
        None,
        &src,
        Some(&dst),
        &attr,
    )?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    conv.end(b)
}

/// InterpolateBackward: src (for its shape), diff_dst -> diff_src.
pub(super) fn backward(b: &mut Builder, op: &Op) -> Result<()> {
    check(op)?;
    let dd_id = op.inputs[1].id;
    let ds_id = op.outputs[0].id;
    let ds_md = b.md(ds_id)?;
    let nd = ds_md.ndims();
    let ncx = ncx(op);
    let dd_md = b.md(dd_id)?;
    let want = dst_dims(op, ds_md.dims())?;
    if dd_md.dims() != want.as_slice() {
        return Err(shape_err(
            op,
            format!(
                "diff_dst is {:?}, the interpolation of {:?} gives {want:?}",
                dd_md.dims(),
                ds_md.dims()
            ),
        ));
    }
    let diff_dst = ncx_view(ncx, nd, &dd_md)?;
    let diff_src = ncx_view(ncx, nd, &ds_md)?;
    let desc = ResamplingOp::backward(
        alg(op)?,
        None,
        &diff_src,
        Some(&diff_dst),
        &PrimitiveAttr::default(),
    )?;
    let args = vec![
        arg(DNNL_ARG_DIFF_DST, &diff_dst, b.buf(dd_id)?),
        arg(DNNL_ARG_DIFF_SRC, &diff_src, b.buf(ds_id)?),
    ];
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    Ok(())
}
