//! Convolution ops onto the convolution and deconvolution primitives:
//! Convolution and ConvTranspose alone or with their fused chain, and the
//! four backward ops alone.
//!
//! Layer: graph. Every tensor is a view ([`conv_geom`]): data permuted to
//! `N, C, spatial…`, weights permuted and split by group, so nothing is
//! copied. A fused chain is one primitive:
//! - a BiasAdd becomes the bias (a binary add post-op when its
//!   `data_format` is not the convolution's);
//! - a BatchNormInference becomes a multiply and an add post-op by its
//!   per-channel scale and shift ([`bnorm`]);
//! - unary ops are eltwise post-ops, binary ops binary post-ops (their other
//!   operand seen like the data; an int8 Add's dequantized operand is
//!   dequantized into a temporary first);
//! - int8: the Dequantize ops become the primitive's source scale and zero
//!   point and its weight scales (per tensor, or per output channel), on
//!   the u8/s8 source and the s8 weights themselves; weights with a zero
//!   point other than 0 are refused (unimplemented, as the primitive has no
//!   weight zero points). A per-tensor Quantize at the end becomes the
//!   destination scale and zero point; a per-channel one a reorder of the
//!   f32 result. f32 weights quantized by a Quantize in the group are
//!   quantized by a reorder first;
//! - a TypeCast from bf16 to f32 at the end makes the destination f32.
//!
//! A depthwise convolution fused after a 1x1 one is a second primitive
//! reading the first one's result from a temporary. Constant weights (the
//! `constant` property) are prepacked once into the layout the primitive
//! prefers (`format_tag::any`) and kept in the constant tensor cache, after
//! their quantization where a Quantize is in the group.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::bnorm;
use super::conv_geom::{self, Family, Geom, Role};
use super::single::{bias_md, quant_reorder, quant_step};
use super::{Arg, Buf, Builder, Prepack, kinds};
use crate::abi::*;
use crate::core::attr::{PostOp, PrimitiveAttr, QuantKind, QuantSpec};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::OpDesc;
use crate::graph::logical_tensor;
use crate::graph::op::Op;
use crate::graph::partition::Partition;
use crate::graph::partitioner::{ConvChain, Pattern};
use crate::prims::convolution::{ConvOp, Geometry, Pass, Tensors};

/// The roles of one convolution's ops.
struct Chain<'a> {
    dq_src: Option<&'a Op>,
    q_wei: Option<&'a Op>,
    dq_wei: Option<&'a Op>,
    conv: &'a Op,
    bias_add: Option<&'a Op>,
    bn: Option<&'a Op>,
    post: Vec<(&'a Op, Option<&'a Op>)>,
    quantize: Option<&'a Op>,
    typecast: Option<&'a Op>,
}

impl<'a> Chain<'a> {
    fn alone(conv: &'a Op) -> Chain<'a> {
        Chain {
            dq_src: None,
            q_wei: None,
            dq_wei: None,
            conv,
            bias_add: None,
            bn: None,
            post: Vec::new(),
            quantize: None,
            typecast: None,
        }
    }

    fn of(ops: &'a [Op], c: &ConvChain) -> Chain<'a> {
        let at = |i: Option<usize>| i.map(|i| &ops[i]);
        Chain {
            dq_src: at(c.dq_src),
            q_wei: at(c.q_wei),
            dq_wei: at(c.dq_wei),
            conv: &ops[c.conv],
            bias_add: at(c.bias_add),
            bn: at(c.bn),
            post: c.post.iter().map(|&(p, d)| (&ops[p], at(d))).collect(),
            quantize: at(c.quantize),
            typecast: at(c.typecast),
        }
    }
}

/// A fused convolution group.
pub(super) fn lower(b: &mut Builder, p: &Partition) -> Result<()> {
    let Pattern::Conv(chains) = p.pattern() else {
        return Err(Error::runtime("not a convolution partition"));
    };
    for c in chains {
        lower_chain(b, Chain::of(p.ops(), c))?;
    }
    Ok(())
}

/// A convolution op alone.
pub(super) fn lower_single(b: &mut Builder, op: &Op) -> Result<()> {
    let (_, role) = conv_geom::kind_of(op.kind)
        .ok_or_else(|| Error::runtime(format!("{} is no convolution", op.kind_name())))?;
    match role {
        Role::Forward => lower_chain(b, Chain::alone(op)),
        Role::BackwardData | Role::BackwardWeights => backward(b, op, role),
    }
}

/// The geometry of `op` from the resolved tensors.
fn geom_of(b: &Builder, op: &Op) -> Result<Geom> {
    let ins: Vec<Vec<i64>> = op
        .inputs
        .iter()
        .map(|l| Ok(logical_tensor::dims(&b.lt(l.id)?).to_vec()))
        .collect::<Result<_>>()?;
    let refs: Vec<&[i64]> = ins.iter().map(Vec::as_slice).collect();
    let out = b.lt(op.outputs[0].id)?;
    conv_geom::geom(op, &refs, Some(&out))
}

fn arg(arg: i32, md: &MemoryDesc, buf: Buf) -> Arg {
    Arg {
        arg,
        buf,
        md: md.clone(),
    }
}

fn alg(g: &Geom) -> dnnl_alg_kind_t {
    match g.attrs.family {
        Family::Conv => dnnl_convolution_direct,
        Family::ConvT => dnnl_deconvolution_direct,
    }
}

/// The primitive for `t` with `g`'s geometry.
fn conv_op(g: &Geom, pass: Pass, t: Tensors, attr: Option<&PrimitiveAttr>) -> Result<ConvOp> {
    let [s, d, pl, pr] = g.primitive_geometry();
    let prop = match pass {
        Pass::Forward => dnnl_forward_inference,
        Pass::BackwardData => dnnl_backward_data,
        Pass::BackwardWeights => dnnl_backward_weights,
    };
    ConvOp::new(
        g.attrs.family == Family::ConvT,
        pass,
        prop,
        alg(g),
        t,
        Geometry {
            strides: &s,
            dilates: Some(&d),
            padding_l: &pl,
            padding_r: Some(&pr),
        },
        attr,
    )
}

/// The single scale of a per-tensor (de)quantization, or its vector.
fn scales_of(op: &Op) -> Result<Vec<f32>> {
    let v = op.f32s(dnnl_graph_op_attr_scales);
    if v.is_empty() {
        return Err(Error::InvalidGraphOp(
            format!("op {} ({}) needs scales", op.id, op.kind_name()).into(),
        ));
    }
    Ok(v)
}

fn zps_of(op: &Op) -> Vec<i32> {
    op.s64s(dnnl_graph_op_attr_zps)
        .unwrap_or_default()
        .iter()
        .map(|&z| z as i32)
        .collect()
}

fn per_channel(op: &Op) -> bool {
    op.str_or(dnnl_graph_op_attr_qtype, "per_tensor") == "per_channel"
}

/// Adds scales (and zero points, when any is not 0) of `q` for `arg` with
/// `mask` to the attributes and their arguments.
fn quant_attr(
    b: &mut Builder,
    q: &Op,
    arg_of: i32,
    mask: i32,
    zps: bool,
    attr: &mut PrimitiveAttr,
    args: &mut Vec<Arg>,
) -> Result<()> {
    let scales = scales_of(q)?;
    let (buf, md) = b.konst_f32(&scales)?;
    attr.set_quant(
        QuantKind::Scales,
        arg_of,
        QuantSpec::with_mask(QuantKind::Scales, mask)?,
    )?;
    args.push(arg(DNNL_ARG_ATTR_SCALES | arg_of, &md, buf));
    let z = zps_of(q);
    if zps && z.iter().any(|&v| v != 0) {
        let (buf, md) = b.konst_s32(&z)?;
        attr.set_quant(
            QuantKind::ZeroPoints,
            arg_of,
            QuantSpec::with_mask(QuantKind::ZeroPoints, mask)?,
        )?;
        args.push(arg(DNNL_ARG_ATTR_ZERO_POINTS | arg_of, &md, buf));
    }
    Ok(())
}

/// The weight scales' mask for a per-output-channel quantization along the
/// weights tensor's `axis`: the primitive's OC dimension (and G before it).
fn weight_mask(op: &Op, g: &Geom, q: &Op, n: usize) -> Result<i32> {
    if !per_channel(q) {
        return Ok(0);
    }
    let a = &g.attrs;
    let axis = crate::graph::lower::shape::axis(q, q.s64_or(dnnl_graph_op_attr_axis, 1), n)?;
    if axis != conv_geom::weights_oc_axis(a) {
        return Err(Error::unimplemented(format!(
            "op {} ({}): weights quantized per channel along axis {axis}, not the output \
             channels",
            op.id,
            op.kind_name()
        )));
    }
    match (a.family, a.groups) {
        (_, 1) => Ok(1),
        (Family::Conv, _) => Ok(3),
        (Family::ConvT, _) => Err(Error::unimplemented(format!(
            "op {} ({}): grouped weights quantized per channel",
            op.id,
            op.kind_name()
        ))),
    }
}

/// Where the weights come from: their view, buffer, and (prepacked or
/// quantized) how they got there.
fn weights(
    b: &mut Builder,
    c: &Chain,
    g: &Geom,
    make: &dyn Fn(&MemoryDesc) -> Result<ConvOp>,
) -> Result<(ConvOp, MemoryDesc, Buf)> {
    let a = &g.attrs;
    let raw = match (c.q_wei, c.dq_wei) {
        (Some(q), _) => q.inputs[0].id,
        (None, Some(dq)) => dq.inputs[0].id,
        (None, None) => c.conv.inputs[1].id,
    };
    let raw_md = b.md(raw)?;
    let view = conv_geom::weights_view(a, &raw_md)?;
    let constant = b.constant_input(raw);
    if c.q_wei.is_none() && constant.is_none() {
        let op = make(&view)?;
        let buf = b.buf(raw)?;
        return Ok((op, view, buf));
    }
    // Into the layout the primitive picks for `any`.
    let dt = match c.dq_wei {
        Some(dq) => b.md(dq.inputs[0].id)?.data_type(),
        None => view.data_type(),
    };
    let any = MemoryDesc::with_tag(view.dims(), dt, dnnl_format_tag_any)?;
    let op = make(&any)?;
    let packed = op
        .arg_md(DNNL_ARG_WEIGHTS)
        .map(|m| (**m).clone())
        .ok_or_else(|| Error::runtime("the convolution has no weights descriptor"))?;
    let src = (view, b.buf(raw)?);
    let (dst, prepack) = match constant {
        Some(port) => {
            let k = b.program.prepacks.len();
            (Buf::Cached(k), Some(port))
        }
        None => (b.temp(packed.size(0)), None),
    };
    let step = match c.q_wei {
        Some(q) => {
            let mask = weight_mask(c.conv, g, q, raw_md.ndims())?;
            quant_reorder(b, q, src, (packed.clone(), dst), mask)?
        }
        None => b.reorder((&src.0, src.1), (&packed, dst), None, Vec::new())?,
    };
    match prepack {
        Some(port) => b.program.prepacks.push(Prepack {
            input: port,
            size: packed.size(0),
            step,
        }),
        None => b.program.steps.push(step),
    }
    Ok((op, packed, dst))
}

fn lower_chain(b: &mut Builder, c: Chain) -> Result<()> {
    let cv = c.conv;
    let g = geom_of(b, cv)?;
    let a = g.attrs.clone();
    let refuse = |why: &str| {
        Err(Error::unimplemented(format!(
            "op {} ({}): {why}",
            cv.id,
            cv.kind_name()
        )))
    };
    let mut attr = PrimitiveAttr::default();
    attr.set_fpmath(b.fpmath.mode, b.fpmath.apply_to_int)?;
    let mut args: Vec<Arg> = Vec::new();

    // Source: the tensor, or the quantized one under its Dequantize.
    let src_id = c.dq_src.map_or(cv.inputs[0].id, |dq| dq.inputs[0].id);
    let src_md = conv_geom::data_view(&a, &b.md(src_id)?)?;
    let src_buf = b.buf(src_id)?;
    args.push(arg(DNNL_ARG_SRC, &src_md, src_buf));
    if let Some(dq) = c.dq_src {
        if per_channel(dq) {
            return refuse("a source dequantized per channel");
        }
        quant_attr(b, dq, DNNL_ARG_SRC, 0, true, &mut attr, &mut args)?;
    }
    if let Some(dq) = c.dq_wei {
        if zps_of(dq).iter().any(|&z| z != 0) {
            return refuse("weights with a zero point other than 0 (the primitive has none)");
        }
        let n = b.md(dq.inputs[0].id)?.ndims();
        let mask = weight_mask(cv, &g, dq, n)?;
        quant_attr(b, dq, DNNL_ARG_WEIGHTS, mask, false, &mut attr, &mut args)?;
    }

    // Bias: the third input, or the BiasAdd's when it reads the same channel
    // axis; otherwise the BiasAdd is a post-op.
    let nd = a.nsp + 2;
    let mut bias: Option<(MemoryDesc, Buf)> = None;
    let mut bias_post: Option<(MemoryDesc, Buf)> = None;
    if cv.inputs.len() > 2 {
        let id = cv.inputs[2].id;
        bias = Some((b.md(id)?, b.buf(id)?));
    } else if let Some(ba) = c.bias_add {
        let id = ba.inputs[1].id;
        let (md, buf) = (b.md(id)?, b.buf(id)?);
        let same_axis = ba.str_or(dnnl_graph_op_attr_data_format, "NXC") == {
            if a.ncx { "NCX" } else { "NXC" }
        };
        if same_axis && md.ndims() == 1 && md.dims()[0] == g.oc {
            bias = Some((md, buf));
        } else {
            let graph_md = bias_md(ba, &md, nd)?;
            bias_post = Some((conv_geom::data_view(&a, &graph_md)?, buf));
        }
    }
    if let Some((md, buf)) = &bias {
        if md.ndims() != 1 || md.dims()[0] != g.oc {
            return Err(Error::InvalidShape(
                format!(
                    "op {} ({}): the bias {:?} is not one value per output channel ({})",
                    cv.id,
                    cv.kind_name(),
                    md.dims(),
                    g.oc
                )
                .into(),
            ));
        }
        args.push(arg(DNNL_ARG_BIAS, md, *buf));
    }

    // Post-ops, following the chain's tensor.
    let mut tail = c.bias_add.map_or(cv.outputs[0].id, |ba| ba.outputs[0].id);
    let binary_post = |attr: &mut PrimitiveAttr,
                       args: &mut Vec<Arg>,
                       alg: dnnl_alg_kind_t,
                       md: MemoryDesc,
                       buf: Buf|
     -> Result<()> {
        attr.post_ops.append(|| PostOp::binary(alg, &md, None))?;
        let index = attr.post_ops.len() as i32 - 1;
        args.push(arg(
            (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (index + 1)) | DNNL_ARG_SRC_1,
            &md,
            buf,
        ));
        Ok(())
    };
    if let Some((md, buf)) = bias_post {
        binary_post(&mut attr, &mut args, dnnl_binary_add, md, buf)?;
    }
    if let Some(bn) = c.bn {
        if bn.str_or(dnnl_graph_op_attr_data_format, "NXC")
            != cv.str_or(dnnl_graph_op_attr_data_format, "NXC")
        {
            return refuse("a BatchNormInference of another data_format");
        }
        let ss = bnorm::scale_shift(b, bn)?;
        if ss.md.dims()[0] != g.oc {
            return Err(Error::InvalidShape(
                format!(
                    "op {} (BatchNormInference): {} values for {} channels",
                    bn.id,
                    ss.md.dims()[0],
                    g.oc
                )
                .into(),
            ));
        }
        let mut dims = vec![1; nd];
        dims[1] = g.oc;
        let per_channel = ss.md.reshape(&dims)?;
        binary_post(
            &mut attr,
            &mut args,
            dnnl_binary_mul,
            per_channel.clone(),
            ss.scale,
        )?;
        binary_post(&mut attr, &mut args, dnnl_binary_add, per_channel, ss.shift)?;
        tail = bn.outputs[0].id;
    }
    for (op, dq) in &c.post {
        if let Some(e) = kinds::eltwise_forward(op) {
            attr.post_ops
                .append(|| PostOp::eltwise(e.alg, e.alpha, e.beta))?;
        } else if let Some(bin) = kinds::binary(op.kind) {
            let other = if op.inputs[0].id == tail {
                op.inputs[1].id
            } else {
                op.inputs[0].id
            };
            if let Some(dq) = dq {
                let step = quant_step(b, dq, None)?;
                b.program.steps.push(step);
            }
            let md = conv_geom::data_view(&a, &b.md(other)?)?;
            let buf = b.buf(other)?;
            binary_post(&mut attr, &mut args, bin.alg, md, buf)?;
            if bin.square {
                attr.post_ops
                    .append(|| PostOp::eltwise(dnnl_eltwise_square, 0.0, 0.0))?;
            }
        } else {
            return Err(Error::runtime(format!("{} is no post-op", op.kind_name())));
        }
        tail = op.outputs[0].id;
    }

    // Destination: the chain's end, or the TypeCast's output, or the
    // Quantize's (per tensor: the primitive's destination scale and zero
    // point; per channel: a reorder after).
    let mut after = None;
    let dst_id = match (c.typecast, c.quantize) {
        (Some(tc), _) => tc.outputs[0].id,
        (None, Some(q)) if !per_channel(q) => {
            if scales_of(q)?.len() != 1 {
                return Err(Error::InvalidGraphOp(
                    format!("op {}: a per_tensor Quantize has 1 scale", q.id).into(),
                ));
            }
            quant_attr(b, q, DNNL_ARG_DST, 0, true, &mut attr, &mut args)?;
            q.outputs[0].id
        }
        (None, Some(q)) => {
            after = Some(q);
            tail
        }
        (None, None) => tail,
    };
    let dst_md = conv_geom::data_view(&a, &b.md(dst_id)?)?;
    let dst_buf = b.buf(dst_id)?;
    args.push(arg(DNNL_ARG_DST, &dst_md, dst_buf));

    let make = |wei: &MemoryDesc| {
        conv_op(
            &g,
            Pass::Forward,
            Tensors {
                src: &src_md,
                weights: wei,
                bias: bias.as_ref().map(|x| &x.0),
                dst: &dst_md,
            },
            Some(&attr),
        )
    };
    let (op, wei_md, wei_buf) = weights(b, &c, &g, &make)?;
    args.push(arg(DNNL_ARG_WEIGHTS, &wei_md, wei_buf));
    let prim = b.primitive(op)?;
    b.step(prim, args);
    if let Some(q) = after {
        let step = quant_step(b, q, None)?;
        b.program.steps.push(step);
    }
    Ok(())
}

/// ConvolutionBackwardData / Weights, ConvTransposeBackwardData / Weights.
fn backward(b: &mut Builder, op: &Op, role: Role) -> Result<()> {
    if op.inputs.len() != 2 {
        return Err(Error::unimplemented(format!(
            "op {} ({}): a shape given as an input tensor is not supported",
            op.id,
            op.kind_name()
        )));
    }
    let g = geom_of(b, op)?;
    let a = &g.attrs;
    let io =
        |b: &mut Builder, id: usize| -> Result<(MemoryDesc, Buf)> { Ok((b.md(id)?, b.buf(id)?)) };
    let (in0, in1, out) = (
        io(b, op.inputs[0].id)?,
        io(b, op.inputs[1].id)?,
        io(b, op.outputs[0].id)?,
    );
    let (desc, args) = match role {
        Role::BackwardData => {
            let diff_dst = conv_geom::data_view(a, &in0.0)?;
            let wei = conv_geom::weights_view(a, &in1.0)?;
            let diff_src = conv_geom::data_view(a, &out.0)?;
            let desc = conv_op(
                &g,
                Pass::BackwardData,
                Tensors {
                    src: &diff_src,
                    weights: &wei,
                    bias: None,
                    dst: &diff_dst,
                },
                None,
            )?;
            let args = vec![
                arg(DNNL_ARG_DIFF_DST, &diff_dst, in0.1),
                arg(DNNL_ARG_WEIGHTS, &wei, in1.1),
                arg(DNNL_ARG_DIFF_SRC, &diff_src, out.1),
            ];
            (desc, args)
        }
        _ => {
            let src = conv_geom::data_view(a, &in0.0)?;
            let diff_dst = conv_geom::data_view(a, &in1.0)?;
            let diff_wei = conv_geom::weights_view(a, &out.0)?;
            let desc = conv_op(
                &g,
                Pass::BackwardWeights,
                Tensors {
                    src: &src,
                    weights: &diff_wei,
                    bias: None,
                    dst: &diff_dst,
                },
                None,
            )?;
            let args = vec![
                arg(DNNL_ARG_SRC, &src, in0.1),
                arg(DNNL_ARG_DIFF_DST, &diff_dst, in1.1),
                arg(DNNL_ARG_DIFF_WEIGHTS, &diff_wei, out.1),
            ];
            (desc, args)
        }
    };
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    Ok(())
}
