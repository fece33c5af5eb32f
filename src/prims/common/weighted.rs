//! The arguments of the kinds with weights and three passes (inner
//! product, convolution, deconvolution): which memory descriptor each
//! execution argument has, what a pass reads and writes, and the check of a
//! descriptor given at creation.
//!
//! Layer: prims. A kind keeps its descriptors in four slots (src or
//! diff_src, weights or diff_weights, bias or diff_bias, dst or diff_dst)
//! and answers its `OpDesc` queries through [`Slots`].

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use std::sync::Arc;

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::prims::common::post_ops::PostOpsPlan;

/// The pass of a primitive with weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    Forward,
    BackwardData,
    BackwardWeights,
}

/// A primitive's four descriptors, by pass.
pub(crate) struct Slots<'a> {
    pub pass: Pass,
    pub src: &'a Arc<MemoryDesc>,
    pub weights: &'a Arc<MemoryDesc>,
    pub bias: Option<&'a Arc<MemoryDesc>>,
    pub dst: &'a Arc<MemoryDesc>,
    /// The forward pass's post-ops (their operands are arguments too).
    pub post_ops: &'a PostOpsPlan,
}

impl<'a> Slots<'a> {
    /// The descriptor of execution argument `arg` (the bias answers as the
    /// second weights too, as upstream's `weights_md` query with index 1).
    pub fn arg_md(&self, arg: i32) -> Option<&'a Arc<MemoryDesc>> {
        match (self.pass, arg) {
            (Pass::Forward, DNNL_ARG_SRC) => Some(self.src),
            (Pass::Forward, DNNL_ARG_WEIGHTS) => Some(self.weights),
            (Pass::Forward, DNNL_ARG_BIAS | DNNL_ARG_WEIGHTS_1) => self.bias,
            (Pass::Forward, DNNL_ARG_DST) => Some(self.dst),
            (Pass::Forward, _) => self.post_ops.arg_md(arg),
            (Pass::BackwardData, DNNL_ARG_DIFF_SRC) => Some(self.src),
            (Pass::BackwardData, DNNL_ARG_WEIGHTS) => Some(self.weights),
            (Pass::BackwardData, DNNL_ARG_DIFF_DST) => Some(self.dst),
            (Pass::BackwardWeights, DNNL_ARG_SRC) => Some(self.src),
            (Pass::BackwardWeights, DNNL_ARG_DIFF_WEIGHTS) => Some(self.weights),
            (Pass::BackwardWeights, DNNL_ARG_DIFF_BIAS | DNNL_ARG_DIFF_WEIGHTS_1) => self.bias,
            (Pass::BackwardWeights, DNNL_ARG_DIFF_DST) => Some(self.dst),
            _ => None,
        }
    }

    /// The arguments the pass reads, in the order of `num_of_inputs`.
    pub fn inputs(&self) -> Vec<i32> {
        match self.pass {
            Pass::Forward => {
                let mut v = vec![DNNL_ARG_SRC, DNNL_ARG_WEIGHTS];
                if self.bias.is_some() {
                    v.push(DNNL_ARG_BIAS);
                }
                v.extend(self.post_ops.inputs());
                v
            }
            Pass::BackwardData => vec![DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS],
            Pass::BackwardWeights => vec![DNNL_ARG_SRC, DNNL_ARG_DIFF_DST],
        }
    }

    /// The arguments the pass writes.
    pub fn outputs(&self) -> Vec<i32> {
        match self.pass {
            Pass::Forward => vec![DNNL_ARG_DST],
            Pass::BackwardData => vec![DNNL_ARG_DIFF_SRC],
            Pass::BackwardWeights if self.bias.is_some() => {
                vec![DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS]
            }
            Pass::BackwardWeights => vec![DNNL_ARG_DIFF_WEIGHTS],
        }
    }
}

/// A descriptor given at creation: it must have dimensions, and none of
/// them (or its strides) may be run-time values.
pub(crate) fn check_given(md: &MemoryDesc, what: &str) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!(
            "the {what} memory descriptor has no dimensions"
        )));
    }
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "{what}: run-time dimensions or strides are not supported"
        )));
    }
    Ok(())
}
