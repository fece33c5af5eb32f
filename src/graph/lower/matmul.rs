//! MatMul partitions: one matmul primitive, its post-ops, and the reorders
//! of the (de)quantization around it.
//!
//! Layer: graph. Operands are views of the tensors as the primitive wants
//! them: a 1-D src is `[1, K]`, a 1-D weights tensor `[K, 1]`, `transpose_a`
//! / `transpose_b` swap the last two axes of the view, and operands of lower
//! rank get leading dimensions of 1. A dequantized operand is reordered to
//! dense f32 first (the primitive computes in floating point); a Quantize
//! at the end reorders the f32 result into the quantized output. Constant
//! weights and bias (the `constant` property) are prepacked: reordered once
//! into the dense layout the primitive is created with (after their
//! dequantization, if any) and kept in the constant tensor cache. A BiasAdd
//! becomes the matmul's bias; eltwise ops become eltwise post-ops and binary
//! ops binary post-ops, their other operand an execution argument.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::single::{bias_md, expand, quant_step};
use super::{Arg, Buf, Builder, kinds, shape};
use crate::abi::*;
use crate::core::attr::{PostOp, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::logical_tensor;
use crate::graph::op::Op;
use crate::graph::partition::Partition;
use crate::graph::partitioner::Pattern;
use crate::prims::matmul::MatmulOp;

/// The roles of a MatMul group's ops.
struct Chain<'a> {
    dq_src: Option<&'a Op>,
    dq_wei: Option<&'a Op>,
    matmul: &'a Op,
    bias_add: Option<&'a Op>,
    post: Vec<&'a Op>,
    quantize: Option<&'a Op>,
}

/// A MatMul alone.
pub(super) fn lower_single(b: &mut Builder, op: &Op) -> Result<()> {
    lower_chain(
        b,
        Chain {
            dq_src: None,
            dq_wei: None,
            matmul: op,
            bias_add: None,
            post: Vec::new(),
            quantize: None,
        },
    )
}

/// A fused MatMul group.
pub(super) fn lower(b: &mut Builder, p: &Partition) -> Result<()> {
    let Pattern::Matmul {
        dq_src,
        dq_wei,
        matmul,
        bias_add,
        post,
        quantize,
    } = p.pattern()
    else {
        return Err(Error::runtime("not a MatMul partition"));
    };
    let ops = p.ops();
    lower_chain(
        b,
        Chain {
            dq_src: dq_src.map(|i| &ops[i]),
            dq_wei: dq_wei.map(|i| &ops[i]),
            matmul: &ops[*matmul],
            bias_add: bias_add.map(|i| &ops[i]),
            post: post.iter().map(|&i| &ops[i]).collect(),
            quantize: quantize.map(|i| &ops[i]),
        },
    )
}

/// Dense row-major `md` of the same shape and type.
fn dense(md: &MemoryDesc) -> Result<MemoryDesc> {
    MemoryDesc::with_strides(md.dims(), md.data_type(), None)
}

/// The buffer and descriptor an operand (`id`, read by the MatMul) is
/// stored in: dequantized into dense f32 by `dq`, or prepacked when it is a
/// constant input, or the tensor itself.
fn operand(
    b: &mut Builder,
    id: usize,
    dq: Option<&Op>,
    prepack: bool,
) -> Result<(MemoryDesc, Buf)> {
    let md = b.md(id)?;
    if let Some(dq) = dq {
        if let Some(port) = b.constant_input(dq.inputs[0].id) {
            let k = b.program.prepacks.len();
            let step = quant_step(b, dq, Some((md.clone(), Buf::Cached(k))))?;
            b.program.prepacks.push(super::Prepack {
                input: port,
                size: md.size(0),
                step,
            });
            return Ok((md, Buf::Cached(k)));
        }
        let buf = b.buf(id)?;
        let step = quant_step(b, dq, Some((md.clone(), buf)))?;
        b.program.steps.push(step);
        return Ok((md, buf));
    }
    let buf = b.buf(id)?;
    match b.constant_input(id) {
        Some(port) if prepack => {
            let packed = dense(&md)?;
            let k = b.program.prepacks.len();
            let step = b.reorder((&md, buf), (&packed, Buf::Cached(k)), None, Vec::new())?;
            b.program.prepacks.push(super::Prepack {
                input: port,
                size: packed.size(0),
                step,
            });
            Ok((packed, Buf::Cached(k)))
        }
        _ => Ok((md, buf)),
    }
}

/// `md` (of `orig` dimensions) seen as `want` (the primitive's operand
/// shape of `n` dimensions): 1-D promoted, last two axes swapped when
/// `transpose`, leading dimensions of 1 added.
fn view(md: &MemoryDesc, one_d_as_row: bool, transpose: bool, n: usize) -> Result<MemoryDesc> {
    let mut v = if md.ndims() == 1 {
        let k = md.dims()[0];
        md.reshape(&if one_d_as_row { [1, k] } else { [k, 1] })?
    } else if transpose {
        let k = md.ndims();
        let mut perm: Vec<i32> = (0..k as i32).collect();
        perm.swap(k - 1, k - 2);
        md.permute_axes(&perm)?
    } else {
        md.clone()
    };
    v = expand(&v, n)?;
    Ok(v)
}

fn lower_chain(b: &mut Builder, c: Chain) -> Result<()> {
    let mm = c.matmul;
    let shapes = shape::matmul(
        mm,
        logical_tensor::dims(&b.lt(mm.inputs[0].id)?),
        logical_tensor::dims(&b.lt(mm.inputs[1].id)?),
    )?;
    let n = shapes.dst.len();
    let ta = mm.bool_or(dnnl_graph_op_attr_transpose_a, false);
    let tb = mm.bool_or(dnnl_graph_op_attr_transpose_b, false);
    let (src_md, src_buf) = operand(b, mm.inputs[0].id, c.dq_src, false)?;
    let (wei_md, wei_buf) = operand(b, mm.inputs[1].id, c.dq_wei, true)?;
    let src_md = view(&src_md, true, ta, n)?;
    let wei_md = view(&wei_md, false, tb, n)?;
    let mut args = vec![
        Arg {
            arg: DNNL_ARG_SRC,
            buf: src_buf,
            md: src_md.clone(),
        },
        Arg {
            arg: DNNL_ARG_WEIGHTS,
            buf: wei_buf,
            md: wei_md.clone(),
        },
    ];
    // The bias: MatMul's third input, or the BiasAdd's second.
    let bias = if mm.inputs.len() > 2 {
        let (md, buf) = operand(b, mm.inputs[2].id, None, true)?;
        Some((expand(&md, n)?, buf))
    } else if let Some(ba) = c.bias_add {
        let (md, buf) = operand(b, ba.inputs[1].id, None, true)?;
        Some((bias_md(ba, &md, n)?, buf))
    } else {
        None
    };
    if let Some((md, buf)) = &bias {
        args.push(Arg {
            arg: DNNL_ARG_BIAS,
            buf: *buf,
            md: md.clone(),
        });
    }
    // The post-ops, following the chain's tensor.
    let mut attr = PrimitiveAttr::default();
    attr.set_fpmath(b.fpmath.mode, b.fpmath.apply_to_int)?;
    let mut tail = c.bias_add.map_or(mm.outputs[0].id, |ba| ba.outputs[0].id);
    for op in &c.post {
        if let Some(e) = kinds::eltwise_forward(op) {
            attr.post_ops
                .append(|| PostOp::eltwise(e.alg, e.alpha, e.beta))?;
        } else if let Some(bin) = kinds::binary(op.kind) {
            let other = if op.inputs[0].id == tail {
                op.inputs[1].id
            } else {
                op.inputs[0].id
            };
            let md = expand(&b.md(other)?, n)?;
            let buf = b.buf(other)?;
            attr.post_ops
                .append(|| PostOp::binary(bin.alg, &md, None))?;
            let index = attr.post_ops.len() as i32 - 1;
            args.push(Arg {
                arg: (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (index + 1)) | DNNL_ARG_SRC_1,
                buf,
                md,
            });
            if bin.square {
                attr.post_ops
                    .append(|| PostOp::eltwise(dnnl_eltwise_square, 0.0, 0.0))?;
            }
        } else {
            return Err(Error::runtime(format!("{} is no post-op", op.kind_name())));
        }
        tail = op.outputs[0].id;
    }
    let dst_md = b.md(tail)?.reshape(&shapes.dst)?;
    let dst_buf = b.buf(tail)?;
    args.push(Arg {
        arg: DNNL_ARG_DST,
        buf: dst_buf,
        md: dst_md.clone(),
    });
    let desc = MatmulOp::new(
        &src_md,
        &wei_md,
        bias.as_ref().map(|x| &x.0),
        &dst_md,
        Some(&attr),
    )?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    if let Some(q) = c.quantize {
        let step = quant_step(b, q, None)?;
        b.program.steps.push(step);
    }
    Ok(())
}
