//! An anchor op with its post-op chain (`Pattern::Post`), and the pieces
//! the anchors' lowerings share.
//!
//! Layer: graph. The chain's unary ops become eltwise post-ops of the
//! anchor's primitive, its binary ops binary post-ops (the other operand
//! seen as the primitive sees its destination; an int8 Add's dequantized
//! operand dequantized into a temporary first). A Dequantize of the
//! anchor's source runs before it (into an f32 temporary), a Quantize
//! after it (from the f32 result); a TypeCast right after the anchor makes
//! the primitive's destination the TypeCast's type.
//!
//! Anchors: BatchNormInference + ReLU (the ReLU is the eltwise post-op of
//! the normalization's last binary step, `bnorm`); MaxPool and AvgPool
//! (`pool`); BatchNormForwardTraining + ReLU (`bnorm_train`); TypeCast +
//! Quantize (two reorders); LayerNorm
//! (and RMSNorm, which takes no chain) (`lnorm`); the reductions
//! (`reduce`); GroupNorm (`gnorm`); Interpolate (`interp`).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::single::quant_step;
use super::{Arg, Builder, kinds};
use crate::abi::*;
use crate::core::attr::{PostOp, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::graph::partition::Partition;
use crate::graph::partitioner::{Pattern, PostChain};

/// Lowers `p`, a `Pattern::Post` partition.
pub(super) fn lower(b: &mut Builder, p: &Partition) -> Result<()> {
    let Pattern::Post(chain) = p.pattern() else {
        return Err(Error::runtime("not an anchor with a post-op chain"));
    };
    lower_chain(b, p.ops(), chain)
}

/// Lowers anchor op `op` on its own.
pub(super) fn lower_alone(b: &mut Builder, op: &Op) -> Result<()> {
    lower_chain(b, std::slice::from_ref(op), &alone())
}

/// The chain of an anchor without post-ops (the anchor is op 0).
pub(super) fn alone() -> PostChain {
    PostChain {
        dq_src: None,
        anchor: 0,
        typecast: None,
        post: Vec::new(),
        quantize: None,
    }
}

fn lower_chain(b: &mut Builder, ops: &[Op], chain: &PostChain) -> Result<()> {
    let anchor = &ops[chain.anchor];
    let conversions =
        chain.dq_src.is_some() || chain.typecast.is_some() || chain.quantize.is_some();
    match anchor.kind {
        dnnl_graph_op_batch_norm_inference => {
            let last = chain.post.last().map_or(chain.anchor, |&(i, _)| i);
            let dst_id = ops[last]
                .outputs
                .first()
                .ok_or_else(|| Error::runtime("a chain op without an output"))?
                .id;
            if conversions {
                return Err(Error::runtime("BatchNormInference takes no conversions"));
            }
            super::bnorm::lower_with_relu(b, anchor, dst_id, relu_only(ops, chain)?)
        }
        dnnl_graph_op_batch_norm_forward_training => {
            if conversions {
                return Err(Error::runtime(
                    "BatchNormForwardTraining takes no conversions",
                ));
            }
            super::bnorm_train::forward(b, ops, chain, relu_only(ops, chain)?)
        }
        dnnl_graph_op_max_pool | dnnl_graph_op_avg_pool => super::pool::forward(b, ops, chain),
        // TypeCast + Quantize: the cast into an f32 temporary, quantized.
        dnnl_graph_op_type_cast => {
            let conv = Conversions::begin(b, ops, chain)?;
            let (src, dst) = (anchor.inputs[0].id, anchor.outputs[0].id);
            let (src_md, dst_md) = (b.md(src)?, b.md(dst)?);
            let (src_buf, dst_buf) = (b.buf(src)?, b.buf(dst)?);
            let step = b.reorder((&src_md, src_buf), (&dst_md, dst_buf), None, Vec::new())?;
            b.program.steps.push(step);
            conv.end(b)
        }
        dnnl_graph_op_layer_norm | dnnl_graph_op_rms_norm => super::lnorm::forward(b, ops, chain),
        dnnl_graph_op_group_norm => super::gnorm::forward(b, ops, chain),
        dnnl_graph_op_interpolate => super::interp::forward(b, ops, chain),
        kind if super::kinds::is_reduction(kind) => super::reduce::forward(b, ops, chain),
        _ => Err(Error::unimplemented(format!(
            "{} with post-ops does not lower onto a primitive",
            anchor.kind_name()
        ))),
    }
}

/// Whether the chain of a batch normalization is one ReLU (else none).
fn relu_only(ops: &[Op], chain: &PostChain) -> Result<bool> {
    match chain.post.as_slice() {
        [] => Ok(false),
        [(i, None)] if ops[*i].kind == dnnl_graph_op_relu => Ok(true),
        _ => Err(Error::runtime(
            "a batch normalization takes one ReLU as its chain",
        )),
    }
}

/// The (de)quantization around an anchor: the source's Dequantize runs
/// when the lowering begins, the Quantize when it ends.
pub(super) struct Conversions<'a> {
    quantize: Option<&'a Op>,
}

impl<'a> Conversions<'a> {
    /// Appends the Dequantize of the anchor's source (into its output, a
    /// temporary the anchor reads).
    pub fn begin(b: &mut Builder, ops: &'a [Op], chain: &PostChain) -> Result<Conversions<'a>> {
        if let Some(dq) = chain.dq_src {
            let step = quant_step(b, &ops[dq], None)?;
            b.program.steps.push(step);
        }
        Ok(Conversions {
            quantize: chain.quantize.map(|q| &ops[q]),
        })
    }

    /// Appends the Quantize of the chain's result.
    pub fn end(self, b: &mut Builder) -> Result<()> {
        if let Some(q) = self.quantize {
            let step = quant_step(b, q, None)?;
            b.program.steps.push(step);
        }
        Ok(())
    }
}

/// Appends the chain's unary and binary ops to `attr` as post-ops, each
/// binary operand (seen through `view`, as the primitive sees its
/// destination) to `args`. Returns the id of the chain's last tensor: the
/// primitive's destination (a Quantize after it reads it).
pub(super) fn post_ops(
    b: &mut Builder,
    ops: &[Op],
    chain: &PostChain,
    view: &dyn Fn(&MemoryDesc) -> Result<MemoryDesc>,
    attr: &mut PrimitiveAttr,
    args: &mut Vec<Arg>,
) -> Result<usize> {
    let first = chain.typecast.unwrap_or(chain.anchor);
    let mut tail = ops[first]
        .outputs
        .first()
        .ok_or_else(|| Error::runtime("an anchor without an output"))?
        .id;
    for &(i, dq) in &chain.post {
        let op = &ops[i];
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
                let step = quant_step(b, &ops[dq], None)?;
                b.program.steps.push(step);
            }
            let md = view(&b.md(other)?)?;
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
        tail = op
            .outputs
            .first()
            .ok_or_else(|| Error::runtime("a chain op without an output"))?
            .id;
    }
    Ok(tail)
}
