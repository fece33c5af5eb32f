//! BatchNormForwardTraining and BatchNormTrainingBackward onto the batch
//! normalization primitive.
//!
//! Layer: graph. Data in `NXC` is seen as `N, C, spatial…` through permuted
//! strides. Forward training computes the batch statistics (the
//! primitive's mean and variance outputs, variance divided by the element
//! count), normalizes with gamma and beta when given (both or neither), and
//! applies a following ReLU as the primitive's post-op; the running
//! statistics are then `momentum · running + (1 - momentum) · batch`, one
//! binary add with scales per vector (momentum 0.5 when not given, as
//! upstream's library). Backward computes diff_src, and diff_gamma /
//! diff_beta when the op has those outputs (a missing gamma counts as
//! ones); without those outputs upstream's library ignores gamma and holds
//! the statistics constant (`diff_src = diff_dst / sqrt(variance + eps)`:
//! global statistics), and so does this one. Statistics and affine vectors of another type than
//! f32 go through f32 temporaries.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::conv_geom::ncx_view;
use super::{Arg, Buf, Builder};
use crate::abi::*;
use crate::core::attr::{PostOp, PrimitiveAttr, QuantKind, QuantSpec};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::graph::partitioner::PostChain;
use crate::prims::binary::BinaryOp;
use crate::prims::normalization::{BatchNormOp, USE_GLOBAL_STATS, USE_SCALE, USE_SHIFT};

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

/// The channel vector of `c` f32 values.
fn vector(c: i64) -> Result<MemoryDesc> {
    MemoryDesc::with_strides(&[c], dnnl_f32, None)
}

/// A data tensor seen as `N, C, spatial…`, and its channel count.
fn data(b: &Builder, op: &Op, id: usize) -> Result<(MemoryDesc, i64)> {
    let md = b.md(id)?;
    let nd = md.ndims();
    if nd < 2 {
        return Err(shape_err(
            op,
            format!("the data has {nd} dimensions (2 or more are needed)"),
        ));
    }
    let ncx = op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX";
    let view = ncx_view(ncx, nd, &md)?;
    let c = view.dims()[1];
    Ok((view, c))
}

/// Input `id`, `c` values, as a dense f32 vector (converted into a
/// temporary when it is of another type).
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
    let flat = md.reshape(&[c])?;
    let buf = b.buf(id)?;
    if flat.data_type() == dnnl_f32 {
        return Ok((flat, buf));
    }
    let f = vector(c)?;
    let tmp = b.temp(f.size(0));
    let step = b.reorder((&flat, buf), (&f, tmp), None, Vec::new())?;
    b.program.steps.push(step);
    Ok((f, tmp))
}

/// An output vector written as f32: the tensor itself, or a temporary
/// converted into it by [`Outputs::finish`].
struct Outputs {
    converts: Vec<(MemoryDesc, Buf, MemoryDesc, Buf)>,
}

impl Outputs {
    fn new() -> Outputs {
        Outputs {
            converts: Vec::new(),
        }
    }

    fn vector(&mut self, b: &mut Builder, op: &Op, id: usize, c: i64) -> Result<(MemoryDesc, Buf)> {
        let md = b.md(id)?;
        if md.dims().iter().product::<i64>() != c {
            return Err(shape_err(
                op,
                format!(
                    "output {id} {:?} is not one value per channel ({c})",
                    md.dims()
                ),
            ));
        }
        let flat = md.reshape(&[c])?;
        let buf = b.buf(id)?;
        if flat.data_type() == dnnl_f32 {
            return Ok((flat, buf));
        }
        let f = vector(c)?;
        let tmp = b.temp(f.size(0));
        self.converts.push((f.clone(), tmp, flat, buf));
        Ok((f, tmp))
    }

    fn finish(self, b: &mut Builder) -> Result<()> {
        for (src, sbuf, dst, dbuf) in self.converts {
            let step = b.reorder((&src, sbuf), (&dst, dbuf), None, Vec::new())?;
            b.program.steps.push(step);
        }
        Ok(())
    }
}

/// BatchNormForwardTraining, followed by a ReLU when `relu`.
pub(super) fn forward(b: &mut Builder, ops: &[Op], chain: &PostChain, relu: bool) -> Result<()> {
    let op = &ops[chain.anchor];
    if op.inputs.len() == 4 {
        return Err(Error::InvalidGraphOp(
            format!(
                "op {} (BatchNormForwardTraining): gamma and beta are given both or neither",
                op.id
            )
            .into(),
        ));
    }
    if op.outputs.len() != 5 {
        return Err(Error::InvalidGraphOp(
            format!("op {} (BatchNormForwardTraining) has 5 outputs", op.id).into(),
        ));
    }
    let dst_id = match chain.post.last() {
        Some(&(i, _)) => ops[i].outputs[0].id,
        None => op.outputs[0].id,
    };
    let src_id = op.inputs[0].id;
    let (src, c) = data(b, op, src_id)?;
    let (dst, _) = data(b, op, dst_id)?;
    let affine = op.inputs.len() == 5;
    let eps = op.f32_or(dnnl_graph_op_attr_epsilon, 1e-5);
    let mut attr = PrimitiveAttr::default();
    if relu {
        attr.post_ops
            .append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))?;
    }
    let flags = if affine { USE_SCALE | USE_SHIFT } else { 0 };
    let desc = BatchNormOp::forward(dnnl_forward_training, &src, &dst, eps, flags, &attr)?;
    let mut args = vec![
        arg(DNNL_ARG_SRC, &src, b.buf(src_id)?),
        arg(DNNL_ARG_DST, &dst, b.buf(dst_id)?),
    ];
    if affine {
        let gamma = vector_in(b, op, op.inputs[3].id, c)?;
        let beta = vector_in(b, op, op.inputs[4].id, c)?;
        args.push(arg(DNNL_ARG_SCALE, &gamma.0, gamma.1));
        args.push(arg(DNNL_ARG_SHIFT, &beta.0, beta.1));
    }
    let mut outs = Outputs::new();
    let batch_mean = outs.vector(b, op, op.outputs[3].id, c)?;
    let batch_var = outs.vector(b, op, op.outputs[4].id, c)?;
    args.push(arg(DNNL_ARG_MEAN, &batch_mean.0, batch_mean.1));
    args.push(arg(DNNL_ARG_VARIANCE, &batch_var.0, batch_var.1));
    if src == dst {
        b.inplace(src_id, dst_id);
    }
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    // running = momentum · running + (1 - momentum) · batch
    // Upstream's library takes 0.5 when the attribute is not given.
    let momentum = op.f32_or(dnnl_graph_op_attr_momentum, 0.5);
    for (k, batch) in [(1, &batch_mean), (2, &batch_var)] {
        let running = vector_in(b, op, op.inputs[k].id, c)?;
        let out = outs.vector(b, op, op.outputs[k].id, c)?;
        mix(b, momentum, &running, batch, &out)?;
    }
    outs.finish(b)
}

/// `dst = m · a + (1 - m) · b`, one binary add with source scales.
fn mix(
    b: &mut Builder,
    m: f32,
    x: &(MemoryDesc, Buf),
    y: &(MemoryDesc, Buf),
    dst: &(MemoryDesc, Buf),
) -> Result<()> {
    let mut attr = PrimitiveAttr::default();
    let mut args = vec![
        arg(DNNL_ARG_SRC_0, &x.0, x.1),
        arg(DNNL_ARG_SRC_1, &y.0, y.1),
        arg(DNNL_ARG_DST, &dst.0, dst.1),
    ];
    for (side, scale) in [(DNNL_ARG_SRC_0, m), (DNNL_ARG_SRC_1, 1.0 - m)] {
        attr.set_quant(
            QuantKind::Scales,
            side,
            QuantSpec::with_mask(QuantKind::Scales, 0)?,
        )?;
        let (buf, md) = b.konst_f32(&[scale])?;
        args.push(arg(DNNL_ARG_ATTR_SCALES | side, &md, buf));
    }
    let desc = BinaryOp::new(dnnl_binary_add, &x.0, &y.0, None, &dst.0, &attr)?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    Ok(())
}

/// BatchNormTrainingBackward: diff_src, and diff_gamma and diff_beta when
/// the op has those outputs.
pub(super) fn backward(b: &mut Builder, op: &Op) -> Result<()> {
    let src_id = op.inputs[0].id;
    let dd_id = op.inputs[1].id;
    let ds_id = op.outputs[0].id;
    let (src, c) = data(b, op, src_id)?;
    let (diff_dst, _) = data(b, op, dd_id)?;
    let (diff_src, _) = data(b, op, ds_id)?;
    let diffs = op.outputs.len() > 1;
    let eps = op.f32_or(dnnl_graph_op_attr_epsilon, 1e-5);
    // Without diff_gamma and diff_beta, upstream's library ignores gamma and
    // holds the statistics constant (checked through its C API).
    let (prop, flags) = if diffs {
        (dnnl_backward, USE_SCALE | USE_SHIFT)
    } else {
        (dnnl_backward_data, USE_GLOBAL_STATS)
    };
    let desc = BatchNormOp::backward(
        prop,
        &diff_src,
        &diff_dst,
        &src,
        eps,
        flags,
        None,
        &PrimitiveAttr::default(),
    )?;
    let mean = vector_in(b, op, op.inputs[2].id, c)?;
    let var = vector_in(b, op, op.inputs[3].id, c)?;
    let mut args = vec![
        arg(DNNL_ARG_SRC, &src, b.buf(src_id)?),
        arg(DNNL_ARG_DIFF_DST, &diff_dst, b.buf(dd_id)?),
        arg(DNNL_ARG_MEAN, &mean.0, mean.1),
        arg(DNNL_ARG_VARIANCE, &var.0, var.1),
        arg(DNNL_ARG_DIFF_SRC, &diff_src, b.buf(ds_id)?),
    ];
    if flags & USE_SCALE != 0 {
        let gamma = match op.inputs.get(4) {
            Some(l) => vector_in(b, op, l.id, c)?,
            None => {
                let (buf, md) = b.konst_f32(&vec![1.0; c as usize])?;
                (md, buf)
            }
        };
        args.push(arg(DNNL_ARG_SCALE, &gamma.0, gamma.1));
    }
    let mut outs = Outputs::new();
    if diffs {
        for (k, which) in [(1, DNNL_ARG_DIFF_SCALE), (2, DNNL_ARG_DIFF_SHIFT)] {
            let v = match op.outputs.get(k) {
                Some(l) => outs.vector(b, op, l.id, c)?,
                None => {
                    let md = vector(c)?;
                    let buf = b.temp(md.size(0));
                    (md, buf)
                }
            };
            args.push(arg(which, &v.0, v.1));
        }
    }
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    outs.finish(b)
}
