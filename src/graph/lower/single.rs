//! Partitions of one op: each kind onto its primitive.
//!
//! Layer: graph. Unary ops are eltwise primitives (forward inference, or
//! backward data); binary ops are binary primitives with numpy broadcasting
//! (inputs of lower rank get leading dimensions of 1), SquaredDifference a
//! subtraction with a square post-op, Select `binary_select`, BiasAdd an
//! addition of the bias along the channel of `data_format`; SoftMax and
//! LogSoftmax are softmax primitives; Reorder, TypeCast, StaticTranspose
//! (the source seen through permuted axes) and StaticReshape (the source
//! seen with the new shape) are reorders, as are Quantize (`dst = src /
//! scale + zp`) and Dequantize (`dst = (src - zp) * scale`), per tensor or
//! per channel of `axis`, with their scales and zero points as compile-time
//! constants (or, for the Dynamic variants, inputs); Concat is a concat
//! primitive; the convolution ops go to `conv`, BatchNormInference to
//! `bnorm`, the other batch normalizations to `bnorm_train`, the pooling
//! ops to `pool` (forward ones through `post`, as anchors of no chain),
//! PReLU and its backward op to `prelu`.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::{Arg, Buf, Builder, kinds, shape};
use crate::abi::*;
use crate::core::attr::{PostOp, PrimitiveAttr, QuantKind, QuantSpec};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::logical_tensor;
use crate::graph::op::Op;
use crate::prims::binary::BinaryOp;
use crate::prims::concat::ConcatOp;
use crate::prims::eltwise::EltwiseOp;
use crate::prims::softmax::SoftmaxOp;

/// `md` with leading dimensions of 1 up to `ndims` dimensions.
pub(super) fn expand(md: &MemoryDesc, ndims: usize) -> Result<MemoryDesc> {
    if md.ndims() >= ndims {
        return Ok(md.clone());
    }
    let mut dims = vec![1; ndims - md.ndims()];
    dims.extend_from_slice(md.dims());
    md.reshape(&dims)
}

fn io(b: &mut Builder, op: &Op, i: usize) -> Result<(MemoryDesc, Buf)> {
    let id = op
        .inputs
        .get(i)
        .ok_or_else(|| Error::invalid("missing input"))?
        .id;
    Ok((b.md(id)?, b.buf(id)?))
}

fn out(b: &mut Builder, op: &Op) -> Result<(MemoryDesc, Buf)> {
    let id = op.outputs[0].id;
    Ok((b.md(id)?, b.buf(id)?))
}

fn arg(arg: i32, (md, buf): &(MemoryDesc, Buf)) -> Arg {
    Arg {
        arg,
        buf: *buf,
        md: md.clone(),
    }
}

/// Lowers `op`.
pub(super) fn lower(b: &mut Builder, op: &Op) -> Result<()> {
    if let Some(e) = kinds::eltwise_forward(op) {
        return eltwise_forward(b, op, e);
    }
    if let Some(e) = kinds::eltwise_backward(op) {
        return eltwise_backward(b, op, e);
    }
    if let Some(bin) = kinds::binary(op.kind) {
        return binary(b, op, bin);
    }
    match op.kind {
        dnnl_graph_op_matmul => super::matmul::lower_single(b, op),
        dnnl_graph_op_bias_add => bias_add(b, op),
        dnnl_graph_op_select => select(b, op),
        dnnl_graph_op_softmax | dnnl_graph_op_log_softmax => softmax_forward(b, op),
        dnnl_graph_op_softmax_backward | dnnl_graph_op_log_softmax_backward => {
            softmax_backward(b, op)
        }
        dnnl_graph_op_reorder | dnnl_graph_op_type_cast => copy(b, op, None),
        dnnl_graph_op_static_reshape => {
            let dst = b.md(op.outputs[0].id)?;
            copy(
                b,
                op,
                Some(Box::new(move |src: &MemoryDesc| src.reshape(dst.dims()))),
            )
        }
        dnnl_graph_op_static_transpose => {
            let n = b.md(op.inputs[0].id)?.ndims();
            let order = shape::transpose_order(op, n)?;
            // Output axis i is input axis order[i]: input axis order[i] moves to i.
            let mut perm = vec![0i32; n];
            for (i, &o) in order.iter().enumerate() {
                perm[o] = i as i32;
            }
            copy(
                b,
                op,
                Some(Box::new(move |src: &MemoryDesc| src.permute_axes(&perm))),
            )
        }
        dnnl_graph_op_quantize
        | dnnl_graph_op_dequantize
        | dnnl_graph_op_dynamic_quantize
        | dnnl_graph_op_dynamic_dequantize => {
            let step = quant_step(b, op, None)?;
            b.program.steps.push(step);
            Ok(())
        }
        dnnl_graph_op_concat => concat(b, op),
        dnnl_graph_op_convolution
        | dnnl_graph_op_conv_transpose
        | dnnl_graph_op_convolution_backward_data
        | dnnl_graph_op_convolution_backward_weights
        | dnnl_graph_op_conv_transpose_backward_data
        | dnnl_graph_op_conv_transpose_backward_weights => super::conv::lower_single(b, op),
        dnnl_graph_op_batch_norm_inference => super::bnorm::lower_single(b, op),
        dnnl_graph_op_batch_norm_forward_training
        | dnnl_graph_op_max_pool
        | dnnl_graph_op_avg_pool
        | dnnl_graph_op_layer_norm
        | dnnl_graph_op_rms_norm
        | dnnl_graph_op_group_norm
        | dnnl_graph_op_interpolate => super::post::lower_alone(b, op),
        dnnl_graph_op_interpolate_backward => super::interp::backward(b, op),
        kind if kinds::is_reduction(kind) => super::post::lower_alone(b, op),
        dnnl_graph_op_layer_norm_backward => super::lnorm::backward(b, op),
        dnnl_graph_op_prelu => super::prelu::forward(b, op),
        dnnl_graph_op_prelu_backward => super::prelu::backward(b, op),
        dnnl_graph_op_batch_norm_backward => super::bnorm_train::backward(b, op),
        dnnl_graph_op_max_pool_backward | dnnl_graph_op_avg_pool_backward => {
            super::pool::backward(b, op)
        }
        _ => Err(Error::unimplemented(format!(
            "{} does not lower onto a primitive",
            op.kind_name()
        ))),
    }
}

fn eltwise_forward(b: &mut Builder, op: &Op, e: kinds::Eltwise) -> Result<()> {
    let src = io(b, op, 0)?;
    let dst = out(b, op)?;
    let desc = EltwiseOp::forward(
        dnnl_forward_inference,
        e.alg,
        &src.0,
        &dst.0,
        e.alpha,
        e.beta,
    )?;
    let prim = b.primitive(desc)?;
    if src.0 == dst.0 {
        b.inplace(op.inputs[0].id, op.outputs[0].id);
    }
    b.step(prim, vec![arg(DNNL_ARG_SRC, &src), arg(DNNL_ARG_DST, &dst)]);
    Ok(())
}

fn eltwise_backward(b: &mut Builder, op: &Op, e: kinds::Eltwise) -> Result<()> {
    let data = io(b, op, 0)?;
    let diff_dst = io(b, op, 1)?;
    let diff_src = out(b, op)?;
    let desc = EltwiseOp::backward(e.alg, &diff_src.0, &diff_dst.0, &data.0, e.alpha, e.beta)?;
    let data_arg = desc.data_arg();
    let prim = b.primitive(desc)?;
    b.step(
        prim,
        vec![
            arg(data_arg, &data),
            arg(DNNL_ARG_DIFF_DST, &diff_dst),
            arg(DNNL_ARG_DIFF_SRC, &diff_src),
        ],
    );
    Ok(())
}

fn binary_step(
    b: &mut Builder,
    alg: dnnl_alg_kind_t,
    srcs: &[(MemoryDesc, Buf)],
    dst: &(MemoryDesc, Buf),
    attr: &PrimitiveAttr,
) -> Result<()> {
    let n = dst.0.ndims();
    let mds: Vec<MemoryDesc> = srcs
        .iter()
        .map(|s| expand(&s.0, n))
        .collect::<Result<_>>()?;
    let desc = BinaryOp::new(alg, &mds[0], &mds[1], mds.get(2), &dst.0, attr)?;
    let prim = b.primitive(desc)?;
    let names = [DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2];
    let mut args: Vec<Arg> = srcs
        .iter()
        .zip(mds)
        .zip(names)
        .map(|((s, md), a)| Arg {
            arg: a,
            buf: s.1,
            md,
        })
        .collect();
    args.push(arg(DNNL_ARG_DST, dst));
    b.step(prim, args);
    Ok(())
}

fn binary(b: &mut Builder, op: &Op, bin: kinds::Binary) -> Result<()> {
    let srcs = [io(b, op, 0)?, io(b, op, 1)?];
    let dst = out(b, op)?;
    let mut attr = PrimitiveAttr::default();
    if bin.square {
        attr.post_ops
            .append(|| PostOp::eltwise(dnnl_eltwise_square, 0.0, 0.0))?;
    }
    if srcs[0].0 == dst.0 {
        b.inplace(op.inputs[0].id, op.outputs[0].id);
    }
    binary_step(b, bin.alg, &srcs, &dst, &attr)
}

fn select(b: &mut Builder, op: &Op) -> Result<()> {
    let cond = io(b, op, 0)?;
    let then = io(b, op, 1)?;
    let other = io(b, op, 2)?;
    let dst = out(b, op)?;
    binary_step(
        b,
        dnnl_binary_select,
        &[then, other, cond],
        &dst,
        &PrimitiveAttr::default(),
    )
}

/// The bias of BiasAdd seen with the data's rank: its values along the
/// channel axis (`data_format` NXC: the last; NCX: the second).
pub(super) fn bias_md(op: &Op, bias: &MemoryDesc, ndims: usize) -> Result<MemoryDesc> {
    if bias.ndims() != 1 {
        return expand(bias, ndims);
    }
    let ncx = op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX";
    let channel = if ncx && ndims > 1 { 1 } else { ndims - 1 };
    let mut dims = vec![1; ndims];
    dims[channel] = bias.dims()[0];
    bias.reshape(&dims)
}

fn bias_add(b: &mut Builder, op: &Op) -> Result<()> {
    let src = io(b, op, 0)?;
    let bias = io(b, op, 1)?;
    let dst = out(b, op)?;
    let bias = (bias_md(op, &bias.0, dst.0.ndims())?, bias.1);
    if src.0 == dst.0 {
        b.inplace(op.inputs[0].id, op.outputs[0].id);
    }
    binary_step(
        b,
        dnnl_binary_add,
        &[src, bias],
        &dst,
        &PrimitiveAttr::default(),
    )
}

fn softmax_alg(op: &Op) -> dnnl_alg_kind_t {
    match op.kind {
        dnnl_graph_op_log_softmax | dnnl_graph_op_log_softmax_backward => dnnl_softmax_log,
        _ => dnnl_softmax_accurate,
    }
}

fn softmax_axis(b: &Builder, op: &Op, id: usize) -> Result<i32> {
    let n = logical_tensor::dims(&b.lt(id)?).len();
    let default = if matches!(
        op.kind,
        dnnl_graph_op_log_softmax | dnnl_graph_op_log_softmax_backward
    ) {
        -1
    } else {
        1
    };
    Ok(shape::axis(op, op.s64_or(dnnl_graph_op_attr_axis, default), n)? as i32)
}

fn softmax_forward(b: &mut Builder, op: &Op) -> Result<()> {
    if op.str_or(dnnl_graph_op_attr_mode, "none") != "none" {
        return Err(Error::unimplemented(
            "SoftMax: only mode 'none' is supported",
        ));
    }
    let src = io(b, op, 0)?;
    let dst = out(b, op)?;
    let axis = softmax_axis(b, op, op.inputs[0].id)?;
    let desc = SoftmaxOp::forward(
        dnnl_forward_inference,
        softmax_alg(op),
        &src.0,
        &dst.0,
        axis,
        &PrimitiveAttr::default(),
    )?;
    let prim = b.primitive(desc)?;
    b.step(prim, vec![arg(DNNL_ARG_SRC, &src), arg(DNNL_ARG_DST, &dst)]);
    Ok(())
}

fn softmax_backward(b: &mut Builder, op: &Op) -> Result<()> {
    let diff_dst = io(b, op, 0)?;
    let dst = io(b, op, 1)?;
    let diff_src = out(b, op)?;
    let axis = softmax_axis(b, op, op.inputs[1].id)?;
    let desc = SoftmaxOp::backward(
        softmax_alg(op),
        &diff_src.0,
        &diff_dst.0,
        &dst.0,
        axis,
        &PrimitiveAttr::default(),
    )?;
    let prim = b.primitive(desc)?;
    b.step(
        prim,
        vec![
            arg(DNNL_ARG_DIFF_DST, &diff_dst),
            arg(DNNL_ARG_DST, &dst),
            arg(DNNL_ARG_DIFF_SRC, &diff_src),
        ],
    );
    Ok(())
}

type View = Box<dyn FnOnce(&MemoryDesc) -> Result<MemoryDesc>>;

fn copy(b: &mut Builder, op: &Op, view: Option<View>) -> Result<()> {
    let (src_md, src_buf) = io(b, op, 0)?;
    let dst = out(b, op)?;
    let src_md = match view {
        Some(v) => v(&src_md).map_err(|e| {
            Error::unimplemented(format!(
                "{}: the source cannot be viewed with the output's shape: {e}",
                op.kind_name()
            ))
        })?,
        None => src_md,
    };
    let step = b.reorder((&src_md, src_buf), (&dst.0, dst.1), None, Vec::new())?;
    b.program.steps.push(step);
    Ok(())
}

/// The reorder of a (de)quantization op; `dst_override` writes elsewhere
/// than the op's output (a prepacked constant, a dense temporary).
pub(super) fn quant_step(
    b: &mut Builder,
    op: &Op,
    dst_override: Option<(MemoryDesc, Buf)>,
) -> Result<super::Step> {
    let src = io(b, op, 0)?;
    let dst = match dst_override {
        Some(d) => d,
        None => out(b, op)?,
    };
    let n = src.0.ndims();
    let per_channel = op.str_or(dnnl_graph_op_attr_qtype, "per_tensor") == "per_channel";
    let mask = if per_channel {
        1 << shape::axis(op, op.s64_or(dnnl_graph_op_attr_axis, 1), n)?
    } else {
        0
    };
    quant_reorder(b, op, src, dst, mask)
}

/// The reorder of (de)quantization op `op` from `src` to `dst` (views of
/// its input and output), its scales and zero points applied along `mask`
/// of those views.
pub(super) fn quant_reorder(
    b: &mut Builder,
    op: &Op,
    src: (MemoryDesc, Buf),
    dst: (MemoryDesc, Buf),
    mask: i32,
) -> Result<super::Step> {
    let quantize = matches!(
        op.kind,
        dnnl_graph_op_quantize | dnnl_graph_op_dynamic_quantize
    );
    let side = if quantize { DNNL_ARG_DST } else { DNNL_ARG_SRC };
    let dynamic = matches!(
        op.kind,
        dnnl_graph_op_dynamic_quantize | dnnl_graph_op_dynamic_dequantize
    );
    let (scales, zps) = if dynamic {
        let s = io(b, op, 1)?;
        let z = if op.inputs.len() > 2 {
            Some(io(b, op, 2)?)
        } else {
            None
        };
        if let Some((md, _)) = &z
            && md.data_type() != dnnl_s32
        {
            return Err(Error::unimplemented(format!(
                "{}: zero points must be s32",
                op.kind_name()
            )));
        }
        (s, z)
    } else {
        let values = op.f32s(dnnl_graph_op_attr_scales);
        if values.is_empty() {
            return Err(Error::InvalidGraphOp(
                format!("{} needs scales", op.kind_name()).into(),
            ));
        }
        let zps: Vec<i32> = op
            .s64s(dnnl_graph_op_attr_zps)
            .unwrap_or_default()
            .iter()
            .map(|&z| z as i32)
            .collect();
        let s = b.konst_f32(&values)?;
        let z = if zps.iter().any(|&z| z != 0) {
            Some(b.konst_s32(&zps)?)
        } else {
            None
        };
        let (sb, smd) = s;
        ((smd, sb), z.map(|(zb, zmd)| (zmd, zb)))
    };
    let mut attr = PrimitiveAttr::default();
    attr.set_quant(
        QuantKind::Scales,
        side,
        QuantSpec::with_mask(QuantKind::Scales, mask)?,
    )?;
    let mut extra = vec![arg(DNNL_ARG_ATTR_SCALES | side, &scales)];
    if let Some(z) = &zps {
        attr.set_quant(
            QuantKind::ZeroPoints,
            side,
            QuantSpec::with_mask(QuantKind::ZeroPoints, mask)?,
        )?;
        extra.push(arg(DNNL_ARG_ATTR_ZERO_POINTS | side, z));
    }
    b.reorder((&src.0, src.1), (&dst.0, dst.1), Some(&attr), extra)
}

fn concat(b: &mut Builder, op: &Op) -> Result<()> {
    let srcs: Vec<(MemoryDesc, Buf)> = (0..op.inputs.len())
        .map(|i| io(b, op, i))
        .collect::<Result<_>>()?;
    let dst = out(b, op)?;
    let axis = shape::axis(op, op.s64_or(dnnl_graph_op_attr_axis, 0), dst.0.ndims())? as i32;
    let mds: Vec<MemoryDesc> = srcs.iter().map(|s| s.0.clone()).collect();
    let desc = ConcatOp::new(Some(&dst.0), axis, &mds, None)?;
    let prim = b.primitive(desc)?;
    let mut args: Vec<Arg> = srcs
        .iter()
        .enumerate()
        .map(|(i, s)| arg(DNNL_ARG_MULTIPLE_SRC + i as i32, s))
        .collect();
    args.push(arg(DNNL_ARG_DST, &dst));
    b.step(prim, args);
    Ok(())
}
