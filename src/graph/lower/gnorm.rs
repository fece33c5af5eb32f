//! GroupNorm onto the group normalization primitive.
//!
//! Layer: graph. Data in `NXC` (the default) is seen as `N, C, spatial…`
//! through permuted strides. `groups` divide the channels; gamma and beta
//! (one value per channel) with `use_affine` (the default); mean and
//! variance (`N x groups`, f32) written with `keep_stats` (the default:
//! training). The chain's unary and binary ops are post-ops (operands seen
//! like the data); a TypeCast to f32 right after it makes the destination
//! f32, a Quantize after the chain quantizes the f32 result.

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
use crate::prims::normalization::{GroupNormOp, USE_SCALE, USE_SHIFT};

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

/// The statistics' dimensions (`N x groups`) for a source of dimensions
/// `src`.
pub(crate) fn stat_dims(op: &Op, src: &[i64]) -> Vec<i64> {
    vec![
        src.first().copied().unwrap_or(1),
        op.s64_or(dnnl_graph_op_attr_groups, 1),
    ]
}

/// A tensor of `dims`' element count seen with `dims` (f32 only).
fn view_as(b: &mut Builder, op: &Op, id: usize, dims: &[i64]) -> Result<(MemoryDesc, Buf)> {
    let md = b.md(id)?;
    if md.dims().iter().product::<i64>() != dims.iter().product::<i64>() {
        return Err(shape_err(
            op,
            format!("tensor {id} {:?} is not {dims:?}", md.dims()),
        ));
    }
    if md.data_type() != dnnl_f32 {
        return Err(Error::unimplemented(format!(
            "op {} (GroupNorm): gamma, beta and statistics of another type than f32",
            op.id
        )));
    }
    Ok((md.reshape(dims)?, b.buf(id)?))
}

/// GroupNorm with its chain (`ops[chain.anchor]`).
pub(super) fn forward(b: &mut Builder, ops: &[Op], chain: &PostChain) -> Result<()> {
    let op = &ops[chain.anchor];
    let conv = Conversions::begin(b, ops, chain)?;
    let src_id = op.inputs[0].id;
    let src_md = b.md(src_id)?;
    let nd = src_md.ndims();
    if nd < 2 {
        return Err(shape_err(
            op,
            format!("the source has {nd} dimensions (2 or more are needed)"),
        ));
    }
    let ncx = op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX";
    let view = |md: &MemoryDesc| ncx_view(ncx, nd, md);
    let src = view(&src_md)?;
    let c = src.dims()[1];
    let groups = op.s64_or(dnnl_graph_op_attr_groups, 1);
    let mut attr = PrimitiveAttr::default();
    let mut args = vec![arg(DNNL_ARG_SRC, &src, b.buf(src_id)?)];
    let tail = post::post_ops(b, ops, chain, &view, &mut attr, &mut args)?;
    let dst = view(&b.md(tail)?)?;
    args.push(arg(DNNL_ARG_DST, &dst, b.buf(tail)?));
    let mut flags = 0;
    if op.bool_or(dnnl_graph_op_attr_use_affine, true) {
        let (Some(gamma), Some(beta)) = (op.inputs.get(1), op.inputs.get(2)) else {
            return Err(shape_err(op, "use_affine needs gamma and beta".into()));
        };
        let g = view_as(b, op, gamma.id, &[c])?;
        let be = view_as(b, op, beta.id, &[c])?;
        args.push(arg(DNNL_ARG_SCALE, &g.0, g.1));
        args.push(arg(DNNL_ARG_SHIFT, &be.0, be.1));
        flags |= USE_SCALE | USE_SHIFT;
    }
    let prop = if op.bool_or(dnnl_graph_op_attr_keep_stats, true) {
        let rows = stat_dims(op, src_md.dims());
        let (Some(mean), Some(var)) = (op.outputs.get(1), op.outputs.get(2)) else {
            return Err(Error::InvalidGraphOp(
                format!(
                    "op {} (GroupNorm): keep_stats needs mean and variance",
                    op.id
                )
                .into(),
            ));
        };
        let m = view_as(b, op, mean.id, &rows)?;
        let v = view_as(b, op, var.id, &rows)?;
        args.push(arg(DNNL_ARG_MEAN, &m.0, m.1));
        args.push(arg(DNNL_ARG_VARIANCE, &v.0, v.1));
        dnnl_forward_training
    } else {
        dnnl_forward_inference
    };
    let eps = op.f32_or(dnnl_graph_op_attr_epsilon, 1e-5);
    let desc = GroupNormOp::forward(prop, &src, &dst, groups, eps, flags, &attr)?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    conv.end(b)
}
