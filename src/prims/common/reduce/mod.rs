//! A reduction of one tensor into another of the same rank (each dimension
//! kept or reduced to 1), on the CPU and on GPU engines: the reduction kind
//! runs it, and PReLU backward reduces its weights gradient with it.
//!
//! Layer: prims. [`Reduce`] is the plan (algorithm, layouts, the walk of
//! outputs and reduced elements, post-ops); `cpu::run` computes it on host
//! memory, `ocl::Kernels` builds and enqueues `reduce.cl`. Algorithms
//! accumulate in `f32`: max, min, sum, mul, mean (`sum / R`), and for the Lp
//! norms the sum `S` of `|x|^p`, finished as `norm_lp_max`:
//! `max(S, eps)^(1/p)`, `norm_lp_sum`: `(S + eps)^(1/p)`,
//! `norm_lp_power_p_max`: `max(S, eps)`, `norm_lp_power_p_sum`: `S + eps`.
//! Layouts must be plain strided (no inner blocks, no padding).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

pub(crate) mod cpu;
pub(crate) mod ocl;

use crate::abi::*;
use crate::prims::common::layout::Layout;
use crate::prims::common::post_ops::PostOpsPlan;

/// The reduction algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    Max,
    Min,
    Sum,
    Mul,
    Mean,
    NormLpMax,
    NormLpSum,
    NormLpPowerPMax,
    NormLpPowerPSum,
}

impl Alg {
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<Alg> {
        Some(match alg {
            dnnl_reduction_max => Alg::Max,
            dnnl_reduction_min => Alg::Min,
            dnnl_reduction_sum => Alg::Sum,
            dnnl_reduction_mul => Alg::Mul,
            dnnl_reduction_mean => Alg::Mean,
            dnnl_reduction_norm_lp_max => Alg::NormLpMax,
            dnnl_reduction_norm_lp_sum => Alg::NormLpSum,
            dnnl_reduction_norm_lp_power_p_max => Alg::NormLpPowerPMax,
            dnnl_reduction_norm_lp_power_p_sum => Alg::NormLpPowerPSum,
            _ => return None,
        })
    }

    pub fn to_c(self) -> dnnl_alg_kind_t {
        match self {
            Alg::Max => dnnl_reduction_max,
            Alg::Min => dnnl_reduction_min,
            Alg::Sum => dnnl_reduction_sum,
            Alg::Mul => dnnl_reduction_mul,
            Alg::Mean => dnnl_reduction_mean,
            Alg::NormLpMax => dnnl_reduction_norm_lp_max,
            Alg::NormLpSum => dnnl_reduction_norm_lp_sum,
            Alg::NormLpPowerPMax => dnnl_reduction_norm_lp_power_p_max,
            Alg::NormLpPowerPSum => dnnl_reduction_norm_lp_power_p_sum,
        }
    }

    /// Whether this is one of the Lp norms (accumulating `|x|^p`).
    pub fn is_lp(self) -> bool {
        matches!(
            self,
            Alg::NormLpMax | Alg::NormLpSum | Alg::NormLpPowerPMax | Alg::NormLpPowerPSum
        )
    }

    /// The accumulator's start.
    pub fn init(self) -> f32 {
        match self {
            Alg::Max => f32::NEG_INFINITY,
            Alg::Min => f32::INFINITY,
            Alg::Mul => 1.0,
            _ => 0.0,
        }
    }

    /// Two accumulators (partial results) combined.
    pub fn combine(self, a: f32, b: f32) -> f32 {
        match self {
            Alg::Max => a.max(b),
            Alg::Min => a.min(b),
            Alg::Mul => a * b,
            _ => a + b,
        }
    }

    /// The accumulator of `r` elements finished into the result.
    pub fn finish(self, acc: f32, p: f32, eps: f32, r: i64) -> f32 {
        match self {
            Alg::Mean => acc / r as f32,
            Alg::NormLpMax => acc.max(eps).powf(1.0 / p),
            Alg::NormLpSum => (acc + eps).powf(1.0 / p),
            Alg::NormLpPowerPMax => acc.max(eps),
            Alg::NormLpPowerPSum => acc + eps,
            _ => acc,
        }
    }

    /// Its code in `reduction.cl` (`-DALG=`).
    pub(crate) fn cl_code(self) -> u32 {
        match self {
            Alg::Max => 0,
            Alg::Min => 1,
            Alg::Sum => 2,
            Alg::Mul => 3,
            Alg::Mean => 4,
            Alg::NormLpMax => 5,
            Alg::NormLpSum => 6,
            Alg::NormLpPowerPMax => 7,
            Alg::NormLpPowerPSum => 8,
        }
    }
}

/// A dimension both tensors keep (dst has src's extent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Idle {
    /// The logical dimension (a post-op's position).
    pub dim: usize,
    pub size: i64,
    pub src_stride: i64,
    pub dst_stride: i64,
}

/// How the tensors are walked: the output index `o` runs over the idle
/// dimensions in dst's memory order (outermost first), the reduction index
/// `r` over the reduced ones in src's memory order, with reduced dimensions
/// that are contiguous with each other merged into one.
#[derive(Clone, Debug)]
pub struct Plan {
    pub idle: Vec<Idle>,
    /// (size, src stride), outermost first.
    pub red: Vec<(i64, i64)>,
    /// Number of outputs.
    pub outputs: i64,
    /// Elements reduced into each output.
    pub r: i64,
}

impl Plan {
    pub fn new(src: &Layout, dst: &Layout) -> Plan {
        let (ss, ds) = (src.outer_strides(), dst.outer_strides());
        let mut idle = Vec::new();
        let mut red = Vec::new();
        for d in 0..src.ndims {
            if dst.dims[d] == src.dims[d] {
                if src.dims[d] != 1 {
                    idle.push(Idle {
                        dim: d,
                        size: src.dims[d],
                        src_stride: ss[d],
                        dst_stride: ds[d],
                    });
                }
            } else {
                red.push((src.dims[d], ss[d]));
            }
        }
        // Stable sorts: ties keep the logical order.
        idle.sort_by_key(|i| std::cmp::Reverse(i.dst_stride));
        red.sort_by_key(|r| std::cmp::Reverse(r.1));
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (size, stride) in red {
            match merged.last_mut() {
                Some(last) if last.1 == size * stride => {
                    *last = (last.0 * size, stride);
                }
                _ => merged.push((size, stride)),
            }
        }
        Plan {
            outputs: idle.iter().map(|i| i.size).product(),
            r: merged.iter().map(|r| r.0).product(),
            idle,
            red: merged,
        }
    }
}

/// A reduction ready to run: what and how.
#[derive(Clone, Debug)]
pub struct Reduce {
    alg: Alg,
    p: f32,
    eps: f32,
    src: Layout,
    dst: Layout,
    plan: Plan,
    post_ops: PostOpsPlan,
    /// Where the partial results of a GPU's two passes start in the
    /// scratchpad, in f32 elements (a caller may keep its own data before).
    partial_offset: i64,
}

impl Reduce {
    /// Reduces `src` into `dst` (the same rank; each dst dimension src's or
    /// 1; plain strided layouts), then applies `post_ops`.
    pub fn new(
        alg: Alg,
        p: f32,
        eps: f32,
        src: Layout,
        dst: Layout,
        post_ops: PostOpsPlan,
    ) -> Reduce {
        Reduce {
            alg,
            p,
            eps,
            plan: Plan::new(&src, &dst),
            src,
            dst,
            post_ops,
            partial_offset: 0,
        }
    }

    /// The same reduction with its partial results `elems` f32 elements
    /// into the scratchpad.
    pub fn with_partial_offset(self, elems: i64) -> Reduce {
        Reduce {
            partial_offset: elems,
            ..self
        }
    }

    /// See [`Reduce::with_partial_offset`].
    pub fn partial_offset(&self) -> i64 {
        self.partial_offset
    }

    pub fn alg(&self) -> Alg {
        self.alg
    }

    pub fn p(&self) -> f32 {
        self.p
    }

    pub fn eps(&self) -> f32 {
        self.eps
    }

    pub fn src_layout(&self) -> &Layout {
        &self.src
    }

    pub fn dst_layout(&self) -> &Layout {
        &self.dst
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn post_ops(&self) -> &PostOpsPlan {
        &self.post_ops
    }
}
