//! Local response normalization forward and backward
//! (`dnnl_lrn_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. Forward `dst(p) = src(p) * omega(p)^-beta` with
//! `omega(p) = k + alpha / D * sum of src(q)^2` over the window of `p`:
//! across channels, the channels `c - h ..= c + h`; within a channel, the
//! box `-h ..= h` around `p` in every spatial dimension; `h = (n - 1) / 2`
//! for the local size `n` (so an even size has the window of `n - 1`, as
//! the documentation's sum bounds give), the window clipped at the tensor's
//! edges. `D` is `n` across channels and `n` to the power of the number of
//! spatial dimensions within a channel (as Intel's library divides).
//! Training and inference are the same; no workspace. Backward is the
//! exact gradient: `diff_src(q)` is `diff_dst(q) * omega(q)^-beta` less
//! `2 alpha beta / D * src(q)` times the sum of `diff_dst(p) * src(p) *
//! omega(p)^(-beta - 1)` over the `p` whose window holds `q` (the same
//! window: it is symmetric).
//! Implementations: `cpu:lrn_plain` (threads over the elements; backward
//! in two passes through a host buffer), `ocl:lrn_plain` (`lrn.cl`: a
//! work-item per element; backward two kernels through the scratchpad).
//!
//! Types: f32, f16, bf16 (computed in f32), every tensor of one type.
//! Layouts: plain strided (blocked ones are unimplemented); src and dst
//! (diff_src and diff_dst) of one layout, as Intel's library requires;
//! backward src may differ. `any`: dst takes src's layout; backward
//! diff_src src's, diff_dst diff_src's, and src (given `any`) diff_src's or
//! plain. Checks as Intel's library makes them: an algorithm other than the
//! two, a propagation kind other than forward, fewer than 2 dimensions,
//! src `any` forward, tensors of other dimensions, a negative local size:
//! invalid arguments; other types: unimplemented.

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
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};
use crate::prims::common::layout::{Layout, resolve_like};

/// An LRN, either direction.
pub struct LrnOp {
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    across: bool,
    local_size: i64,
    alpha: f32,
    beta: f32,
    k: f32,
    /// (argument, descriptor, layout): forward src, dst; backward src,
    /// diff_dst, diff_src.
    tensors: Vec<(i32, Arc<MemoryDesc>, Layout)>,
}

fn plain_layout(md: &MemoryDesc, what: &str) -> Result<Layout> {
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "lrn {what} has run-time dimensions or strides"
        )));
    }
    if !matches!(md.format(), Format::Blocked(_)) {
        return Err(Error::unimplemented(format!(
            "lrn {what}: only blocked memory formats are supported"
        )));
    }
    let layout = Layout::new(md)?;
    if !layout.inner_blocks().is_empty() || layout.has_padding() {
        return Err(Error::unimplemented(format!(
            "lrn {what}: blocked (or padded) layouts are not implemented, only plain strided ones"
        )));
    }
    Ok(layout)
}

fn float_type(md: &MemoryDesc, what: &str) -> Result<()> {
    if !matches!(md.data_type(), dnnl_f32 | dnnl_f16 | dnnl_bf16) {
        return Err(Error::unimplemented(format!(
            "lrn {what}: data type {} is not supported (f32, f16, bf16)",
            names::enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "?")
        )));
    }
    Ok(())
}

fn same_dims(md: &MemoryDesc, reference: &MemoryDesc, what: &str, of: &str) -> Result<()> {
    if md.dims() != reference.dims() {
        return Err(Error::invalid(format!(
            "lrn {what} dimensions {:?} are not {of}'s {:?}",
            md.dims(),
            reference.dims()
        )));
    }
    Ok(())
}

fn valid(md: &MemoryDesc, what: &str) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!("lrn {what} has no dimensions")));
    }
    if md.ndims() < 2 {
        return Err(Error::invalid(format!(
            "lrn {what} has {} dimension(s): at least 2 (batch, channels) are needed",
            md.ndims()
        )));
    }
    Ok(())
}

fn algorithm(alg: dnnl_alg_kind_t) -> Result<bool> {
    match alg {
        dnnl_lrn_across_channels => Ok(true),
        dnnl_lrn_within_channel => Ok(false),
        _ => Err(Error::invalid(format!(
            "bad algorithm {} for lrn (lrn_across_channels or lrn_within_channel)",
            alg.0
        ))),
    }
}

/// `md`, or `reference`'s layout where `md` is `any`.
fn resolve(md: &MemoryDesc, reference: &MemoryDesc) -> Result<MemoryDesc> {
    if !md.is_any_format() || md.dims() != reference.dims() {
        Ok(md.clone())
    } else if md.data_type() == reference.data_type() {
        Ok(reference.clone())
    } else {
        resolve_like(reference, md.dims(), md.data_type())
    }
}

fn local_size_ok(local_size: i64) -> Result<()> {
    if local_size < 0 {
        return Err(Error::invalid(format!(
            "lrn local size {local_size} is negative"
        )));
    }
    Ok(())
}

impl LrnOp {
    /// `dnnl_lrn_forward_primitive_desc_create`'s checks: `alg` is
    /// `dnnl_lrn_across_channels` or `dnnl_lrn_within_channel`; `dst` may
    /// be `any` (src's layout).
    #[allow(clippy::too_many_arguments)]
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        alg: dnnl_alg_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        local_size: i64,
        alpha: f32,
        beta: f32,
        k: f32,
        _attr: &PrimitiveAttr,
    ) -> Result<LrnOp> {
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for lrn forward",
                prop_kind.0
            )));
        }
        let across = algorithm(alg)?;
        valid(src, "src")?;
        valid(dst, "dst")?;
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        same_dims(dst, src, "dst", "src")?;
        local_size_ok(local_size)?;
        let dst = resolve(dst, src)?;
        float_type(src, "src")?;
        if dst.data_type() != src.data_type() {
            return Err(Error::unimplemented("lrn: dst must have src's data type"));
        }
        let ls = plain_layout(src, "src")?;
        let ld = plain_layout(&dst, "dst")?;
        if dst != *src {
            return Err(Error::unimplemented("lrn: dst must have src's layout"));
        }
        Ok(LrnOp {
            backward: false,
            prop_kind,
            across,
            local_size,
            alpha,
            beta,
            k,
            tensors: vec![
                (DNNL_ARG_SRC, Arc::new(src.clone()), ls),
                (DNNL_ARG_DST, Arc::new(dst), ld),
            ],
        })
    }

    /// `dnnl_lrn_backward_primitive_desc_create`'s checks (`hint_fwd_pd`
    /// does not change the result): every descriptor may be `any`.
    #[allow(clippy::too_many_arguments)]
    pub fn backward(
        alg: dnnl_alg_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        src: &MemoryDesc,
        local_size: i64,
        alpha: f32,
        beta: f32,
        k: f32,
        _attr: &PrimitiveAttr,
    ) -> Result<LrnOp> {
        let across = algorithm(alg)?;
        for (md, what) in [(diff_src, "diff_src"), (diff_dst, "diff_dst"), (src, "src")] {
            valid(md, what)?;
        }
        same_dims(diff_src, src, "diff_src", "src")?;
        same_dims(diff_dst, src, "diff_dst", "src")?;
        local_size_ok(local_size)?;
        let src = if !src.is_any_format() {
            src.clone()
        } else if !diff_src.is_any_format() {
            resolve(src, diff_src)?
        } else {
            MemoryDesc::with_strides(src.dims(), src.data_type(), None)?
        };
        let diff_src = resolve(diff_src, &src)?;
        let diff_dst = resolve(diff_dst, &diff_src)?;
        float_type(&src, "src")?;
        if diff_src.data_type() != src.data_type() || diff_dst.data_type() != src.data_type() {
            return Err(Error::unimplemented(
                "lrn: diff_src and diff_dst must have src's data type",
            ));
        }
        let mut tensors = Vec::new();
        for (arg, md, what) in [
            (DNNL_ARG_SRC, src, "src"),
            (DNNL_ARG_DIFF_DST, diff_dst, "diff_dst"),
            (DNNL_ARG_DIFF_SRC, diff_src, "diff_src"),
        ] {
            let layout = plain_layout(&md, what)?;
            tensors.push((arg, Arc::new(md), layout));
        }
        if tensors[1].1 != tensors[2].1 {
            return Err(Error::unimplemented(
                "lrn: diff_dst must have diff_src's layout",
            ));
        }
        Ok(LrnOp {
            backward: true,
            prop_kind: dnnl_backward_data,
            across,
            local_size,
            alpha,
            beta,
            k,
            tensors,
        })
    }

    pub fn is_backward(&self) -> bool {
        self.backward
    }

    /// Whether the window runs across channels (else within one).
    pub fn across(&self) -> bool {
        self.across
    }

    /// (argument, layout) of every tensor: forward src, dst; backward src,
    /// diff_dst, diff_src.
    pub fn layouts(&self) -> impl Iterator<Item = (i32, &Layout)> {
        self.tensors.iter().map(|t| (t.0, &t.2))
    }

    /// The layout of tensor `i` (in the order of [`LrnOp::layouts`]).
    pub fn layout(&self, i: usize) -> &Layout {
        &self.tensors[i].2
    }

    /// The elements.
    pub fn nelems(&self) -> i64 {
        self.tensors[0].2.nelems()
    }

    /// The window's reach on each side, `(n - 1) / 2`; `None` for a local
    /// size of 0 (an empty window).
    pub fn half(&self) -> Option<i64> {
        (self.local_size > 0).then_some((self.local_size - 1) / 2)
    }

    /// `alpha / D`: `D` the local size across channels, its power of the
    /// number of spatial dimensions within a channel (0 for an empty
    /// window, whose sum is 0).
    pub fn alpha_div(&self) -> f32 {
        if self.local_size == 0 {
            return 0.0;
        }
        let n = self.layout(0).ndims;
        let power = if self.across { 1 } else { n as i32 - 2 };
        (f64::from(self.alpha) / (self.local_size as f64).powi(power)) as f32
    }

    pub fn beta(&self) -> f32 {
        self.beta
    }

    pub fn k(&self) -> f32 {
        self.k
    }
}

impl OpDesc for LrnOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_lrn
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        if self.across {
            dnnl_lrn_across_channels
        } else {
            dnnl_lrn_within_channel
        }
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        self.tensors.iter().find(|t| t.0 == arg).map(|t| &t.1)
    }

    fn inputs(&self) -> Vec<i32> {
        let n = if self.backward { 2 } else { 1 };
        self.tensors[..n].iter().map(|t| t.0).collect()
    }

    fn outputs(&self) -> Vec<i32> {
        let n = if self.backward { 2 } else { 1 };
        self.tensors[n..].iter().map(|t| t.0).collect()
    }

    fn query_f32(&self, what: dnnl_query_t) -> Option<f32> {
        match what {
            dnnl_query_alpha_f32 => Some(self.alpha),
            dnnl_query_beta_f32 => Some(self.beta),
            dnnl_query_k_f32 => Some(self.k),
            _ => None,
        }
    }

    fn query_s64(&self, what: dnnl_query_t) -> Option<i64> {
        (what == dnnl_query_local_size_s64).then_some(self.local_size)
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, self.alg_kind(), "dnnl_", "unknown");
        format!("alg:{name}")
    }

    fn verbose_problem(&self) -> String {
        let s = crate::core::primitive::mb_ic_spatial(self.layout(0).dims());
        format!("{s}ls{}beta{}", self.local_size, self.beta)
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("lrn")
            .put(&self.prop_kind)
            .bool(self.across)
            .i64(self.local_size)
            .f32(self.alpha)
            .f32(self.beta)
            .f32(self.k);
        for t in &self.tensors {
            w.i32(t.0).put(&t.1);
        }
        true
    }
}

impl Kind for LrnOp {
    const NAME: &'static str = "lrn";
    const IMPLS: &'static [Impl<LrnOp>] = &[
        Impl::cpu(c"cpu:lrn_plain", any_op, cpu::create),
        Impl::gpu(c"ocl:lrn_plain", any_op, ocl::create).with_scratchpad(ocl::scratchpad),
    ];

    fn attr_support(&self) -> AttrSupport {
        AttrSupport::NONE
    }
}
