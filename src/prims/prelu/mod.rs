//! PReLU forward and backward
//! (`dnnl_prelu_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. Forward: `dst = src > 0 ? src : src * w`, with the weights
//! broadcast by their shape (each weights dimension src's or 1: scalar,
//! per channel, whole tensor or any set of shared axes). Training and
//! inference are the same. Backward: `diff_src = src > 0 ? diff_dst :
//! diff_dst * w` and `diff_weights = sum of min(src, 0) * diff_dst` over the
//! dimensions where diff_weights has 1 and src more: the products go to the
//! scratchpad (f32, dense, src's dimensions) and `prims::common::reduce`
//! sums them (directly into diff_weights when nothing is broadcast).
//! Implementations: `cpu:prelu_plain` (threads over the elements),
//! `ocl:prelu_plain` (`prelu.cl`: a work-item per element in the output's
//! memory order).
//!
//! Types: f32, f16, bf16, s8, u8, s32 for each tensor (computed in f32;
//! src and dst of one type, as Intel's library requires); weights of any
//! of them. Layouts: plain strided (blocked ones are unimplemented).
//! `any`: the weights take src's order of dimensions, dense; dst (diff_src,
//! diff_dst, diff_weights) src's (weights') layout. src may not be `any`.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

mod cpu;
mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrSupport, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op, dims_str};
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::{Layout, resolve_like};
use crate::prims::common::post_ops::PostOpsPlan;
use crate::prims::common::reduce::{Alg, Reduce};

/// A PReLU, either direction.
pub struct PreluOp {
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    /// (argument, descriptor, layout): forward src, weights, dst; backward
    /// src, weights, diff_dst, diff_src, diff_weights.
    tensors: Vec<(i32, Arc<MemoryDesc>, Layout)>,
    /// Backward with broadcast weights: the products' sum into diff_weights.
    reduce: Option<Reduce>,
}

fn plain_layout(md: &MemoryDesc, what: &str) -> Result<Layout> {
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "prelu {what} has run-time dimensions or strides"
        )));
    }
    if !matches!(md.format(), Format::Blocked(_)) {
        return Err(Error::unimplemented(format!(
            "prelu {what}: only blocked memory formats are supported"
        )));
    }
    if Elem::from_c(md.data_type()).is_none() {
        return Err(Error::unimplemented(format!(
            "prelu {what}: data type {} is not supported",
            names::enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "?")
        )));
    }
    let layout = Layout::new(md)?;
    if !layout.inner_blocks().is_empty() || layout.has_padding() {
        return Err(Error::unimplemented(format!(
            "prelu {what}: blocked (or padded) layouts are not implemented, only plain strided ones"
        )));
    }
    Ok(layout)
}

fn nonzero(md: &MemoryDesc, what: &str) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!("prelu {what} has no dimensions")));
    }
    Ok(())
}

/// `md` with `reference`'s dimensions, or an invalid-arguments error.
fn same_dims(md: &MemoryDesc, reference: &MemoryDesc, what: &str, of: &str) -> Result<()> {
    if md.dims() != reference.dims() {
        return Err(Error::invalid(format!(
            "prelu {what} dimensions {:?} are not {of}'s {:?}",
            md.dims(),
            reference.dims()
        )));
    }
    Ok(())
}

/// Weights must broadcast to src: the same rank, each dimension src's or 1.
fn broadcasts(w: &MemoryDesc, src: &MemoryDesc, what: &str) -> Result<()> {
    let ok = w.ndims() == src.ndims()
        && w.dims()
            .iter()
            .zip(src.dims())
            .all(|(&a, &b)| a == b || a == 1);
    if !ok {
        return Err(Error::invalid(format!(
            "prelu {what} dimensions {:?} do not broadcast to src's {:?}",
            w.dims(),
            src.dims()
        )));
    }
    Ok(())
}

fn resolve(md: &MemoryDesc, reference: &MemoryDesc) -> Result<MemoryDesc> {
    if md.is_any_format() {
        resolve_like(reference, md.dims(), md.data_type())
    } else {
        Ok(md.clone())
    }
}

impl PreluOp {
    /// `dnnl_prelu_forward_primitive_desc_create`'s checks.
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        src: &MemoryDesc,
        weights: &MemoryDesc,
        dst: &MemoryDesc,
        _attr: &PrimitiveAttr,
    ) -> Result<PreluOp> {
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for prelu forward",
                prop_kind.0
            )));
        }
        for (md, what) in [(src, "src"), (weights, "weights"), (dst, "dst")] {
            nonzero(md, what)?;
        }
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        same_dims(dst, src, "dst", "src")?;
        broadcasts(weights, src, "weights")?;
        if dst.data_type() != src.data_type() {
            return Err(Error::unimplemented("prelu: dst must have src's data type"));
        }
        let weights = resolve(weights, src)?;
        let dst = resolve(dst, src)?;
        let mut tensors = Vec::new();
        for (arg, md, what) in [
            (DNNL_ARG_SRC, src.clone(), "src"),
            (DNNL_ARG_WEIGHTS, weights, "weights"),
            (DNNL_ARG_DST, dst, "dst"),
        ] {
            let layout = plain_layout(&md, what)?;
            tensors.push((arg, Arc::new(md), layout));
        }
        Ok(PreluOp {
            backward: false,
            prop_kind,
            tensors,
            reduce: None,
        })
    }

    /// `dnnl_prelu_backward_primitive_desc_create`'s checks (`hint_fwd_pd`
    /// does not change the result).
    pub fn backward(
        src: &MemoryDesc,
        weights: &MemoryDesc,
        diff_src: &MemoryDesc,
        diff_weights: &MemoryDesc,
        diff_dst: &MemoryDesc,
        _attr: &PrimitiveAttr,
    ) -> Result<PreluOp> {
        for (md, what) in [
            (src, "src"),
            (weights, "weights"),
            (diff_src, "diff_src"),
            (diff_weights, "diff_weights"),
            (diff_dst, "diff_dst"),
        ] {
            nonzero(md, what)?;
        }
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        same_dims(diff_src, src, "diff_src", "src")?;
        same_dims(diff_dst, src, "diff_dst", "src")?;
        broadcasts(weights, src, "weights")?;
        broadcasts(diff_weights, src, "diff_weights")?;
        let weights = resolve(weights, src)?;
        let diff_dst = resolve(diff_dst, src)?;
        let diff_src = resolve(diff_src, src)?;
        let diff_weights = resolve(diff_weights, &weights)?;
        let mut tensors = Vec::new();
        for (arg, md, what) in [
            (DNNL_ARG_SRC, src.clone(), "src"),
            (DNNL_ARG_WEIGHTS, weights, "weights"),
            (DNNL_ARG_DIFF_DST, diff_dst, "diff_dst"),
            (DNNL_ARG_DIFF_SRC, diff_src, "diff_src"),
            (DNNL_ARG_DIFF_WEIGHTS, diff_weights, "diff_weights"),
        ] {
            let layout = plain_layout(&md, what)?;
            tensors.push((arg, Arc::new(md), layout));
        }
        let dw = &tensors[4];
        let reduce = if dw.1.dims() == src.dims() {
            None
        } else {
            let products = Layout::new(&MemoryDesc::with_strides(src.dims(), dnnl_f32, None)?)?;
            // The GPU's partial results follow the products in the scratchpad.
            let n = products.nelems();
            Some(
                Reduce::new(
                    Alg::Sum,
                    0.0,
                    0.0,
                    products,
                    dw.2.clone(),
                    PostOpsPlan::none(),
                )
                .with_partial_offset(n),
            )
        };
        Ok(PreluOp {
            backward: true,
            prop_kind: dnnl_backward,
            tensors,
            reduce,
        })
    }

    pub fn is_backward(&self) -> bool {
        self.backward
    }

    /// (argument, layout) of every tensor: forward src, weights, dst;
    /// backward src, weights, diff_dst, diff_src, diff_weights.
    pub fn layouts(&self) -> impl Iterator<Item = (i32, &Layout)> {
        self.tensors.iter().map(|t| (t.0, &t.2))
    }

    /// The layout of tensor `i` (in the order of [`PreluOp::layouts`]).
    pub fn layout(&self, i: usize) -> &Layout {
        &self.tensors[i].2
    }

    /// The reduction of the products into diff_weights (backward, when
    /// the weights are broadcast).
    pub fn reduce(&self) -> Option<&Reduce> {
        self.reduce.as_ref()
    }

    /// The elements (src's).
    pub fn nelems(&self) -> i64 {
        self.tensors[0].2.nelems()
    }
}

impl OpDesc for PreluOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_prelu
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        self.tensors.iter().find(|t| t.0 == arg).map(|t| &t.1)
    }

    fn inputs(&self) -> Vec<i32> {
        let n = if self.backward { 3 } else { 2 };
        self.tensors[..n].iter().map(|t| t.0).collect()
    }

    fn outputs(&self) -> Vec<i32> {
        let n = if self.backward { 3 } else { 2 };
        self.tensors[n..].iter().map(|t| t.0).collect()
    }

    /// `src dims:weights dims`, as upstream's verbose lines give them.
    fn verbose_problem(&self) -> String {
        format!(
            "{}:{}",
            dims_str(self.layout(0).dims()),
            dims_str(self.layout(1).dims())
        )
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("prelu").put(&self.prop_kind);
        for t in &self.tensors {
            w.i32(t.0).put(&t.1);
        }
        true
    }
}

impl Kind for PreluOp {
    const NAME: &'static str = "prelu";
    const IMPLS: &'static [Impl<PreluOp>] = &[
        Impl::cpu(c"cpu:prelu_plain", any_op, cpu::create),
        Impl::gpu(c"ocl:prelu_plain", any_op, ocl::create).with_scratchpad(ocl::scratchpad),
    ];

    fn attr_support(&self) -> AttrSupport {
        AttrSupport::NONE
    }
}

/// The dimensions of `op` in the output's memory order (outermost first),
/// each with its stride in every tensor (0 where a tensor broadcasts it),
/// then in a dense row-major f32 tensor of src's dimensions (the backward
/// products).
pub(crate) fn walk(op: &PreluOp) -> Vec<(i64, Vec<i64>)> {
    let out = if op.backward { 3 } else { 2 };
    let src = op.layout(0);
    let mut plain = vec![0i64; src.ndims];
    let mut s = 1;
    for d in (0..src.ndims).rev() {
        plain[d] = s;
        s *= src.dims[d];
    }
    let mut dims: Vec<(usize, i64, Vec<i64>)> = (0..src.ndims)
        .filter(|&d| src.dims[d] > 1)
        .map(|d| {
            let mut strides: Vec<i64> = op
                .tensors
                .iter()
                .map(|t| {
                    if t.2.dims[d] == 1 {
                        0
                    } else {
                        t.2.outer_strides()[d]
                    }
                })
                .collect();
            strides.push(plain[d]);
            (d, src.dims[d], strides)
        })
        .collect();
    dims.sort_by_key(|(_, _, s)| std::cmp::Reverse(s[out]));
    dims.into_iter().map(|(_, n, s)| (n, s)).collect()
}
