//! BatchNormInference as a per-channel affine map: `dst = src · scale +
//! shift` with `scale = gamma / sqrt(variance + epsilon)` and
//! `shift = beta - mean · scale`, computed at execution by three small binary
//! primitives over the channel vectors (so the same program runs on every
//! engine, and new gamma, beta, mean or variance values take effect at once).
//!
//! Layer: graph. After a Convolution the two vectors become the
//! convolution's binary post-ops (multiply, then add), which is the folding
//! of the normalisation into the convolution's output channels; alone, the
//! op is one binary multiply with an add post-op (and a ReLU post-op when a
//! ReLU follows it in its partition).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::single::bias_md;
use super::{Arg, Buf, Builder};
use crate::abi::*;
use crate::core::attr::{PostOp, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::prims::binary::BinaryOp;

/// The channel vectors `scale` and `shift` (dense f32 temporaries).
pub(super) struct ScaleShift {
    pub md: MemoryDesc,
    pub scale: Buf,
    pub shift: Buf,
}

fn input(b: &mut Builder, op: &Op, i: usize) -> Result<(MemoryDesc, Buf)> {
    let id = op
        .inputs
        .get(i)
        .ok_or_else(|| Error::invalid("BatchNormInference takes 5 inputs"))?
        .id;
    Ok((b.md(id)?, b.buf(id)?))
}

/// A binary step `dst = alg(src0, src1)` followed by `post`, whose binary
/// entries take `extra` operands in order.
fn binary(
    b: &mut Builder,
    alg: dnnl_alg_kind_t,
    src0: &(MemoryDesc, Buf),
    src1: &(MemoryDesc, Buf),
    dst: &(MemoryDesc, Buf),
    post: &[PostOp],
    extra: &[(MemoryDesc, Buf)],
) -> Result<()> {
    let mut attr = PrimitiveAttr::default();
    let mut args = vec![
        Arg {
            arg: DNNL_ARG_SRC_0,
            buf: src0.1,
            md: src0.0.clone(),
        },
        Arg {
            arg: DNNL_ARG_SRC_1,
            buf: src1.1,
            md: src1.0.clone(),
        },
        Arg {
            arg: DNNL_ARG_DST,
            buf: dst.1,
            md: dst.0.clone(),
        },
    ];
    let mut operands = extra.iter();
    for p in post {
        attr.post_ops.append(|| Ok(p.clone()))?;
        if matches!(p, PostOp::Binary { .. }) {
            let (md, buf) = operands
                .next()
                .ok_or_else(|| Error::runtime("a binary post-op without its operand"))?;
            let index = attr.post_ops.len() as i32 - 1;
            args.push(Arg {
                arg: (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (index + 1)) | DNNL_ARG_SRC_1,
                buf: *buf,
                md: md.clone(),
            });
        }
    }
    let desc = BinaryOp::new(alg, &src0.0, &src1.0, None, &dst.0, &attr)?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    Ok(())
}

/// Appends the steps computing `bn`'s scale and shift vectors.
pub(super) fn scale_shift(b: &mut Builder, bn: &Op) -> Result<ScaleShift> {
    let gamma = input(b, bn, 1)?;
    let beta = input(b, bn, 2)?;
    let mean = input(b, bn, 3)?;
    let var = input(b, bn, 4)?;
    let c = gamma.0.dims().iter().product::<i64>();
    for (what, v) in [("beta", &beta), ("mean", &mean), ("variance", &var)] {
        if v.0.dims().iter().product::<i64>() != c {
            return Err(Error::InvalidShape(
                format!(
                    "op {} (BatchNormInference): {what} has {:?} elements, gamma {c}",
                    bn.id,
                    v.0.dims()
                )
                .into(),
            ));
        }
    }
    let md = MemoryDesc::with_strides(&[c], dnnl_f32, None)?;
    let flat =
        |v: &(MemoryDesc, Buf)| -> Result<(MemoryDesc, Buf)> { Ok((v.0.reshape(&[c])?, v.1)) };
    let (gamma, beta, mean, var) = (flat(&gamma)?, flat(&beta)?, flat(&mean)?, flat(&var)?);
    let bytes = md.size(0);
    let inv = (md.clone(), b.temp(bytes));
    let scale = (md.clone(), b.temp(bytes));
    let shift = (md.clone(), b.temp(bytes));
    let eps = bn.f32_or(dnnl_graph_op_attr_epsilon, 1e-5);
    let (eps_buf, eps_md) = b.konst_f32(&[eps])?;
    // inv = (variance + epsilon)^(-1/2)
    binary(
        b,
        dnnl_binary_add,
        &var,
        &(eps_md, eps_buf),
        &inv,
        &[PostOp::eltwise(dnnl_eltwise_pow, 1.0, -0.5)?],
        &[],
    )?;
    // scale = gamma · inv
    binary(b, dnnl_binary_mul, &gamma, &inv, &scale, &[], &[])?;
    // shift = -(mean · scale) + beta
    binary(
        b,
        dnnl_binary_mul,
        &mean,
        &scale,
        &shift,
        &[
            PostOp::eltwise(dnnl_eltwise_linear, -1.0, 0.0)?,
            PostOp::binary(dnnl_binary_add, &beta.0, None)?,
        ],
        std::slice::from_ref(&beta),
    )?;
    Ok(ScaleShift {
        md,
        scale: scale.1,
        shift: shift.1,
    })
}

/// BatchNormInference alone: `dst = src · scale + shift` along the channel
/// axis of `data_format`.
pub(super) fn lower_single(b: &mut Builder, bn: &Op) -> Result<()> {
    lower_with_relu(b, bn, bn.outputs[0].id, false)
}

/// BatchNormInference into tensor `dst_id`, followed by a ReLU when `relu`
/// (the eltwise post-op of the last step).
pub(super) fn lower_with_relu(b: &mut Builder, bn: &Op, dst_id: usize, relu: bool) -> Result<()> {
    let src = input(b, bn, 0)?;
    let dst = (b.md(dst_id)?, b.buf(dst_id)?);
    let n = src.0.ndims();
    if n < 2 {
        return Err(Error::InvalidShape(
            format!(
                "op {} (BatchNormInference): the source has {n} dimensions",
                bn.id
            )
            .into(),
        ));
    }
    let ss = scale_shift(b, bn)?;
    let scale = (bias_md(bn, &ss.md, n)?, ss.scale);
    let shift = (bias_md(bn, &ss.md, n)?, ss.shift);
    let channel = if bn.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX" {
        1
    } else {
        n - 1
    };
    if src.0.dims()[channel] != ss.md.dims()[0] {
        return Err(Error::InvalidShape(
            format!(
                "op {} (BatchNormInference): {} channels, {} values of gamma",
                bn.id,
                src.0.dims()[channel],
                ss.md.dims()[0]
            )
            .into(),
        ));
    }
    if src.0 == dst.0 {
        b.inplace(bn.inputs[0].id, dst_id);
    }
    let mut post = vec![PostOp::binary(dnnl_binary_add, &shift.0, None)?];
    if relu {
        post.push(PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0)?);
    }
    binary(
        b,
        dnnl_binary_mul,
        &src,
        &scale,
        &dst,
        &post,
        std::slice::from_ref(&shift),
    )
}
