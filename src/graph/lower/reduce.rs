//! The reduction ops (ReduceL1, ReduceL2, ReduceMax, ReduceMean,
//! ReduceMin, ReduceProd, ReduceSum) onto the reduction primitive.
//!
//! Layer: graph. `axes` (negative counting from the end, repeats ignored)
//! name the reduced dimensions; the primitive's destination keeps them as
//! dimensions of 1, which is the output itself with `keep_dims` and a view
//! of it (ones inserted) without. ReduceL1 and ReduceL2 are the Lp-norm
//! reduction with `p` 1 and 2 (`eps` 0). The chain's unary and binary ops
//! are post-ops, binary operands seen with the primitive's destination
//! rank (ones inserted where the output lost a dimension). Empty `axes`
//! (the identity) is a copy, or `|x|` for ReduceL1 and ReduceL2; so is a
//! reduction over dimensions of 1 only. Axes given as an input tensor are
//! not supported.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::post::{self, Conversions};
use super::{Arg, Builder};
use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::graph::partitioner::PostChain;
use crate::prims::eltwise::EltwiseOp;
use crate::prims::reduction::ReductionOp;

fn shape_err(op: &Op, why: String) -> Error {
    Error::InvalidShape(format!("op {} ({}): {why}", op.id, op.kind_name()).into())
}

/// The reduced dimensions of `op` over a source of `nd` dimensions, as a
/// mask.
fn reduced(op: &Op, nd: usize) -> Result<Vec<bool>> {
    if op.inputs.len() > 1 {
        return Err(Error::unimplemented(format!(
            "op {} ({}): axes given as an input tensor are not supported",
            op.id,
            op.kind_name()
        )));
    }
    let mut mask = vec![false; nd];
    for a in op.s64s(dnnl_graph_op_attr_axes).unwrap_or_default() {
        mask[super::shape::axis(op, a, nd)?] = true;
    }
    Ok(mask)
}

/// The output dimensions of a reduction of `src`.
pub(crate) fn infer(op: &Op, src: &[i64]) -> Result<Vec<i64>> {
    let mask = reduced(op, src.len())?;
    let keep = op.bool_or(dnnl_graph_op_attr_keep_dims, false);
    Ok(src
        .iter()
        .zip(&mask)
        .filter_map(|(&d, &r)| match (r, keep) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect())
}

/// The algorithm and `p` of a reduction op kind.
fn alg(op: &Op) -> Result<(dnnl_alg_kind_t, f32)> {
    Ok(match op.kind {
        dnnl_graph_op_reduce_l1 => (dnnl_reduction_norm_lp_sum, 1.0),
        dnnl_graph_op_reduce_l2 => (dnnl_reduction_norm_lp_sum, 2.0),
        dnnl_graph_op_reduce_max => (dnnl_reduction_max, 0.0),
        dnnl_graph_op_reduce_mean => (dnnl_reduction_mean, 0.0),
        dnnl_graph_op_reduce_min => (dnnl_reduction_min, 0.0),
        dnnl_graph_op_reduce_prod => (dnnl_reduction_mul, 0.0),
        dnnl_graph_op_reduce_sum => (dnnl_reduction_sum, 0.0),
        _ => {
            return Err(Error::runtime(format!(
                "{} is no reduction",
                op.kind_name()
            )));
        }
    })
}

fn arg(arg: i32, md: &MemoryDesc, buf: super::Buf) -> Arg {
    Arg {
        arg,
        buf,
        md: md.clone(),
    }
}

/// A reduction with its chain (`ops[chain.anchor]`).
pub(super) fn forward(b: &mut Builder, ops: &[Op], chain: &PostChain) -> Result<()> {
    let op = &ops[chain.anchor];
    let conv = Conversions::begin(b, ops, chain)?;
    let src_id = op.inputs[0].id;
    let src = b.md(src_id)?;
    let nd = src.ndims();
    let mask = reduced(op, nd)?;
    // The primitive's destination dimensions: ones where reduced.
    let kept: Vec<i64> = src
        .dims()
        .iter()
        .zip(&mask)
        .map(|(&d, &r)| if r { 1 } else { d })
        .collect();
    // A tensor of the output's shape (or broadcast to it: lower ranks
    // right-aligned) seen with the primitive's rank.
    let out_rank = if op.bool_or(dnnl_graph_op_attr_keep_dims, false) {
        nd
    } else {
        mask.iter().filter(|&&r| !r).count()
    };
    let view = |md: &MemoryDesc| -> Result<MemoryDesc> {
        let md = super::single::expand(md, out_rank)?;
        if md.ndims() != out_rank {
            return Err(shape_err(
                op,
                format!("an operand {:?} of rank above the output's", md.dims()),
            ));
        }
        if out_rank == nd {
            return Ok(md);
        }
        let mut dims = Vec::with_capacity(nd);
        let mut at = md.dims().iter();
        for &r in &mask {
            dims.push(if r { 1 } else { *at.next().unwrap_or(&1) });
        }
        md.reshape(&dims)
    };
    let mut attr = PrimitiveAttr::default();
    let src_buf = b.buf(src_id)?;
    let mut args = vec![arg(DNNL_ARG_SRC, &src, src_buf)];
    let tail = post::post_ops(b, ops, chain, &view, &mut attr, &mut args)?;
    let dst = view(&b.md(tail)?)?;
    let dst_buf = b.buf(tail)?;
    args.push(arg(DNNL_ARG_DST, &dst, dst_buf));
    let (alg, p) = alg(op)?;
    if kept.as_slice() == src.dims() {
        // Nothing to reduce: the identity (|x| for the norms).
        if !attr.post_ops.is_empty() {
            return Err(Error::unimplemented(format!(
                "op {} ({}): a reduction over no dimension with post-ops",
                op.id,
                op.kind_name()
            )));
        }
        if alg == dnnl_reduction_norm_lp_sum {
            let desc = EltwiseOp::forward(
                dnnl_forward_inference,
                dnnl_eltwise_abs,
                &src,
                &dst,
                0.0,
                0.0,
            )?;
            let prim = b.primitive(desc)?;
            b.step(
                prim,
                vec![
                    arg(DNNL_ARG_SRC, &src, src_buf),
                    arg(DNNL_ARG_DST, &dst, dst_buf),
                ],
            );
        } else {
            let step = b.reorder((&src, src_buf), (&dst, dst_buf), None, Vec::new())?;
            b.program.steps.push(step);
        }
        return conv.end(b);
    }
    let desc = ReductionOp::new(alg, &src, &dst, p, 0.0, &attr)?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    conv.end(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_shapes() {
        let mut op = Op::new(1, dnnl_graph_op_reduce_sum, "r");
        op.set_s64(dnnl_graph_op_attr_axes, &[1, -1]);
        assert_eq!(infer(&op, &[3, 5, 4, 7]).unwrap(), vec![3, 4]);
        op.set_bool(dnnl_graph_op_attr_keep_dims, true);
        assert_eq!(infer(&op, &[3, 5, 4, 7]).unwrap(), vec![3, 1, 4, 1]);
        op.set_s64(dnnl_graph_op_attr_axes, &[]);
        assert_eq!(infer(&op, &[3, 5]).unwrap(), vec![3, 5]);
        op.set_s64(dnnl_graph_op_attr_axes, &[4]);
        assert!(infer(&op, &[3, 5]).is_err());
    }
}
