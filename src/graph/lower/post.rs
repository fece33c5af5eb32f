//! An anchor op with its post-op chain (`Pattern::Post`).
//!
//! Layer: graph. BatchNormInference + ReLU: the ReLU is the eltwise post-op
//! of the normalization's last binary step (`bnorm`). The other anchors of
//! the partitioner's chain rules (pooling, Interpolate, the reductions,
//! LayerNorm, GroupNorm, BatchNormForwardTraining) lower here once their
//! primitives exist; until then `kinds::lowers_chain` keeps them out of
//! fused groups.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::Builder;
use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::graph::partition::Partition;
use crate::graph::partitioner::Pattern;

/// Lowers `p`, a `Pattern::Post` partition.
pub(super) fn lower(b: &mut Builder, p: &Partition) -> Result<()> {
    let Pattern::Post(chain) = p.pattern() else {
        return Err(Error::runtime("not an anchor with a post-op chain"));
    };
    let ops = p.ops();
    let anchor = &ops[chain.anchor];
    let last = chain.post.last().map_or(chain.anchor, |&(i, _)| i);
    let dst_id = ops[last]
        .outputs
        .first()
        .ok_or_else(|| Error::runtime("a chain op without an output"))?
        .id;
    match anchor.kind {
        dnnl_graph_op_batch_norm_inference => {
            let relu = match chain.post.as_slice() {
                [] => false,
                [(i, None)] if ops[*i].kind == dnnl_graph_op_relu => true,
                _ => return Err(Error::runtime("BatchNormInference takes one ReLU")),
            };
            if chain.dq_src.is_some() || chain.typecast.is_some() || chain.quantize.is_some() {
                return Err(Error::runtime("BatchNormInference takes no conversions"));
            }
            super::bnorm::lower_with_relu(b, anchor, dst_id, relu)
        }
        _ => Err(Error::unimplemented(format!(
            "{} with post-ops does not lower onto a primitive",
            anchor.kind_name()
        ))),
    }
}
