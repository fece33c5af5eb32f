//! Resampling forward and backward
//! (`dnnl_resampling_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor logic (upstream's checks,
//! probed against Intel's library) and the implementation list, best first:
//! - `cpu:resampling_direct` (`cpu.rs`): rows of the output split over the
//!   host's threads, with per-dimension coordinate tables;
//! - `ocl:resampling_direct` (`ocl.rs`, `resampling.cl`): one work-item per
//!   output element in memory order; backward is a gather over the outputs
//!   that touch each diff_src element (no atomics).
//!
//! Algorithms: `resampling_nearest` and `resampling_linear` on 1D, 2D and
//! 3D spatial data (3 to 5 dimensions). The coordinate mapping is the
//! documentation's, computed in f32 in the order Intel's library computes
//! it (checked on every size pair up to 40 -> 60): source coordinate
//! `x = (o + 0.5) * I / O - 0.5`; nearest takes `round(x)` (half away from
//! zero), linear interpolates between `floor(x)` and `ceil(x)` with weight
//! `x - floor(x)`; source indices are clamped to `[0, I - 1]`. Indices are
//! computed exactly in integers (the same on every engine; an OpenCL
//! division need not be correctly rounded), weights as one f32 division. The factors
//! the op uses are `O / I`, whatever the caller passed (as upstream).
//!
//! Shapes: given by the destination descriptor (the factors, if any, are
//! then ignored, as upstream) or, when it is NULL, by the factors:
//! `O = (dim_t)(I * factor)` in f32, of src's type and layout. Both NULL is
//! `invalid_arguments`. Deliberate difference: a negative or non-finite
//! factor is `invalid_arguments` here (Intel's library builds a destination
//! of negative size from it). Zero-sized tensors are accepted; a forward
//! from an empty source writes the post-ops applied to 0.
//!
//! Types: every pair of f32, f16, bf16, s32, s8, u8 in both directions
//! (Intel's library accepts all of them on the CPU, f16 where the hardware
//! has it); f32 math, integer stores round to nearest even and saturate.
//! Forward inference is forward training (`dnnl_query_prop_kind` answers
//! `forward_training` for both, as Intel's library does).
//! Attributes: sum, eltwise and binary post-ops on forward (one sum;
//! Intel's library also takes two, here `unimplemented`);
//! nothing on backward (`unimplemented`, as upstream).
//!
//! Layouts: any plain strided layout (permuted, padded strides), the same or
//! different for src and dst; layouts with inner blocks or padded
//! dimensions are `unimplemented`. `any`: dst (or NULL dst) takes src's
//! layout; backward diff_src takes diff_dst's and diff_dst (or NULL
//! diff_dst) takes diff_src's; both `any` is `unimplemented` (as upstream).
//! src given as `any` is invalid. `hint_fwd_pd` is not needed and not read
//! (Intel's library ignores it too).

// The C enumerators are matched by their C names; dimension loops index
// several parallel arrays by the same index.
#![allow(non_upper_case_globals, clippy::needless_range_loop)]

mod cpu;
mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrPart, AttrSupport, PostOp, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::{Layout, resolve_like};
use crate::prims::common::post_ops::PostOpsPlan;

/// The resampling algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    Nearest,
    Linear,
}

impl Alg {
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<Alg> {
        match alg {
            dnnl_resampling_nearest => Some(Alg::Nearest),
            dnnl_resampling_linear => Some(Alg::Linear),
            _ => None,
        }
    }

    pub fn to_c(self) -> dnnl_alg_kind_t {
        match self {
            Alg::Nearest => dnnl_resampling_nearest,
            Alg::Linear => dnnl_resampling_linear,
        }
    }
}

/// The source index nearest resampling reads for output position `o`
/// along a dimension of source size `i` and output size `big_o`:
/// `round((o + 0.5) * I / O - 0.5)` (half away from zero), clamped, computed
/// exactly in integers (`floor((2o + 1) I / 2O)`), which is what Intel's
/// library's f32 computation gives on every size pair checked.
pub fn nearest_index(o: i64, i: i64, big_o: i64) -> i64 {
    ((2 * o + 1) * i / (2 * big_o)).clamp(0, (i - 1).max(0))
}

/// The two source indices linear resampling reads for output position `o`
/// (`floor` and `ceil` of `(o + 0.5) * I / O - 0.5`, clamped) and the weight
/// of the second (the first's is `1 - w`), from exact integers.
pub fn linear_taps(o: i64, i: i64, big_o: i64) -> (i64, i64, f32) {
    let den = 2 * big_o;
    let num = (2 * o + 1) * i - big_o;
    let f = num.div_euclid(den);
    let rem = num.rem_euclid(den);
    let c = if rem == 0 { f } else { f + 1 };
    let hi = (i - 1).max(0);
    (f.clamp(0, hi), c.clamp(0, hi), rem as f32 / den as f32)
}

/// The weight with which output position `o` reads source index `i` (0
/// when it does not).
pub fn weight(alg: Alg, o: i64, i: i64, big_i: i64, big_o: i64) -> f32 {
    let (a, b, w) = match alg {
        Alg::Nearest => {
            let a = nearest_index(o, big_i, big_o);
            (a, a, 0.0)
        }
        Alg::Linear => linear_taps(o, big_i, big_o),
    };
    let mut v = 0.0;
    if a == i {
        v += 1.0 - w;
    }
    if b == i {
        v += w;
    }
    v
}

/// The output positions that may read source index `i` (a superset; the
/// caller checks each with [`weight`]): `lo..=hi`, clipped to the output.
/// Nearest: `2iO <= (2o + 1) I < 2(i + 1)O`; linear: `(2i - 1)O < (2o + 1) I
/// < (2i + 3)O`; the edge indices also take every clamped position.
pub fn touching(alg: Alg, i: i64, big_i: i64, big_o: i64) -> (i64, i64) {
    let (a, b) = match alg {
        Alg::Nearest => (2 * i, 2 * i + 2),
        Alg::Linear => (2 * i - 1, 2 * i + 3),
    };
    let lo = if i == 0 {
        0
    } else {
        (a * big_o - big_i).div_euclid(2 * big_i)
    };
    let hi = if i == big_i - 1 {
        big_o - 1
    } else {
        (b * big_o - big_i).div_euclid(2 * big_i) + 1
    };
    (lo.max(0), hi.min(big_o - 1))
}

/// The shape normalised to three spatial slots (depth, height, width; the
/// missing leading ones have size 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Spatial dimensions of the op (1 to 3).
    pub nsp: usize,
    pub mb: i64,
    pub c: i64,
    /// Source and destination spatial sizes.
    pub i: [i64; 3],
    pub o: [i64; 3],
}

impl Geometry {
    /// The tensor dimension of normalised spatial slot `j` (`None` for the
    /// slots a 1D or 2D op leaves out).
    pub fn dim_of_slot(&self, j: usize) -> Option<usize> {
        let first = 3 - self.nsp;
        (j >= first).then(|| 2 + j - first)
    }
}

/// A resampling operation, either direction.
///
/// Forward: input src, output dst. Backward: input diff_dst, output
/// diff_src.
pub struct ResamplingOp {
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    alg: Alg,
    /// src (forward) or diff_src (backward).
    src: Arc<MemoryDesc>,
    /// dst (forward) or diff_dst (backward).
    dst: Arc<MemoryDesc>,
    src_layout: Layout,
    dst_layout: Layout,
    geo: Geometry,
    /// `O / I` per spatial dimension, for `dnnl_query_factors`.
    factors: [f32; DNNL_MAX_NDIMS as usize],
    post_ops: PostOpsPlan,
}

fn elem(md: &MemoryDesc, what: &str) -> Result<Elem> {
    Elem::from_c(md.data_type()).ok_or_else(|| {
        Error::unimplemented(format!(
            "resampling {what}: data type {} is not supported",
            names::enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "?")
        ))
    })
}

fn check_given(md: &MemoryDesc, what: &str) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!(
            "the {what} memory descriptor has no dimensions"
        )));
    }
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "{what} has run-time dimensions or strides"
        )));
    }
    if !matches!(md.format(), Format::Blocked(_) | Format::Any) {
        return Err(Error::unimplemented(format!(
            "{what}: only blocked memory formats are supported"
        )));
    }
    Ok(())
}

/// The destination dimensions the factors give (`(dim_t)(I * F)`, in f32).
fn dims_from_factors(src: &MemoryDesc, factors: &[f32]) -> Result<Vec<i64>> {
    let nsp = src.ndims() - 2;
    if factors.len() < nsp {
        return Err(Error::invalid(format!("factors: {nsp} values expected")));
    }
    let mut dims = src.dims().to_vec();
    for x in 0..nsp {
        let f = factors[x];
        if !f.is_finite() || f < 0.0 {
            return Err(Error::invalid(format!(
                "factor {x} is {f}: factors must be finite and non-negative"
            )));
        }
        dims[2 + x] = (dims[2 + x] as f32 * f) as i64;
    }
    Ok(dims)
}

/// Upstream's shape checks; `names` are the two tensors' names.
fn geometry(src: &MemoryDesc, dst: &MemoryDesc, names: [&str; 2]) -> Result<Geometry> {
    let nd = src.ndims();
    if dst.ndims() != nd {
        return Err(Error::invalid(format!(
            "{} has {} dimensions, {} {nd}",
            names[1],
            dst.ndims(),
            names[0]
        )));
    }
    let (s, d) = (src.dims(), dst.dims());
    if s[0] != d[0] || s[1] != d[1] {
        return Err(Error::invalid(format!(
            "the minibatch and channels differ: {} {:?}, {} {:?}",
            names[0], s, names[1], d
        )));
    }
    let nsp = nd - 2;
    let mut geo = Geometry {
        nsp,
        mb: s[0],
        c: s[1],
        i: [1; 3],
        o: [1; 3],
    };
    for x in 0..nsp {
        geo.i[3 - nsp + x] = s[2 + x];
        geo.o[3 - nsp + x] = d[2 + x];
    }
    Ok(geo)
}

fn check_ndims(md: &MemoryDesc, what: &str) -> Result<()> {
    let nd = md.ndims();
    if !(3..=5).contains(&nd) {
        return Err(Error::invalid(format!(
            "resampling {what} takes 3 to 5 dimensions (1D to 3D spatial), not {nd}"
        )));
    }
    Ok(())
}

/// A plain layout: no inner blocks, no padded dimensions.
fn plain_layout(md: &MemoryDesc, what: &str) -> Result<Layout> {
    let l = Layout::new(md)?;
    if !l.inner_blocks().is_empty() || l.has_padding() {
        return Err(Error::unimplemented(format!(
            "resampling {what}: layouts with inner blocks or padded dimensions are not \
             implemented (plain strided layouts are)"
        )));
    }
    Ok(l)
}

impl ResamplingOp {
    /// `dnnl_resampling_forward_primitive_desc_create`'s checks, with
    /// resolved descriptors: `dst` `None` (NULL) takes its shape from
    /// `factors` (one per spatial dimension) and src's type and layout;
    /// `dst` given as `any` takes src's layout.
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        alg_kind: dnnl_alg_kind_t,
        factors: Option<&[f32]>,
        src: &MemoryDesc,
        dst: Option<&MemoryDesc>,
        attr: &PrimitiveAttr,
    ) -> Result<ResamplingOp> {
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a resampling algorithm", alg_kind.0))
        })?;
        if dst.is_none() && factors.is_none() {
            return Err(Error::invalid(
                "resampling needs the destination descriptor or the factors",
            ));
        }
        check_given(src, "src")?;
        check_ndims(src, "src")?;
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for resampling forward",
                prop_kind.0
            )));
        }
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        let dst = match dst {
            Some(d) => {
                check_given(d, "dst")?;
                geometry(src, d, ["src", "dst"])?;
                if d.is_any_format() {
                    resolve_like(src, d.dims(), d.data_type())?
                } else {
                    d.clone()
                }
            }
            None => {
                let dims = dims_from_factors(src, factors.unwrap_or(&[]))?;
                resolve_like(src, &dims, src.data_type())?
            }
        };
        let geo = geometry(src, &dst, ["src", "dst"])?;
        elem(src, "src")?;
        elem(&dst, "dst")?;
        for entry in attr.post_ops.entries() {
            if !matches!(
                entry,
                PostOp::Sum { .. } | PostOp::Eltwise { .. } | PostOp::Binary { .. }
            ) {
                return Err(Error::unimplemented(
                    "resampling post-ops: only sum, eltwise and binary are supported (as upstream)",
                ));
            }
        }
        let post_ops = PostOpsPlan::new(&attr.post_ops, &dst)?;
        // Training and inference compute the same; upstream answers
        // forward_training for both.
        ResamplingOp::build(
            false,
            dnnl_forward_training,
            alg,
            src.clone(),
            dst,
            geo,
            post_ops,
        )
    }

    /// `dnnl_resampling_backward_primitive_desc_create`'s checks, with
    /// resolved descriptors: `diff_dst` `None` (NULL) takes its shape from
    /// `factors` and diff_src's type and layout; either may be `any` (not
    /// both).
    pub fn backward(
        alg_kind: dnnl_alg_kind_t,
        factors: Option<&[f32]>,
        diff_src: &MemoryDesc,
        diff_dst: Option<&MemoryDesc>,
        _attr: &PrimitiveAttr,
    ) -> Result<ResamplingOp> {
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a resampling algorithm", alg_kind.0))
        })?;
        if diff_dst.is_none() && factors.is_none() {
            return Err(Error::invalid(
                "resampling needs the diff_dst descriptor or the factors",
            ));
        }
        check_given(diff_src, "diff_src")?;
        check_ndims(diff_src, "diff_src")?;
        let diff_dst = match diff_dst {
            Some(d) => {
                check_given(d, "diff_dst")?;
                d.clone()
            }
            None => {
                let dims = dims_from_factors(diff_src, factors.unwrap_or(&[]))?;
                MemoryDesc::with_tag(&dims, diff_src.data_type(), dnnl_format_tag_any)?
            }
        };
        geometry(diff_src, &diff_dst, ["diff_src", "diff_dst"])?;
        let (diff_src, diff_dst) = match (diff_src.is_any_format(), diff_dst.is_any_format()) {
            (false, false) => (diff_src.clone(), diff_dst),
            (true, false) => (
                resolve_like(&diff_dst, diff_src.dims(), diff_src.data_type())?,
                diff_dst,
            ),
            (false, true) => {
                let d = resolve_like(diff_src, diff_dst.dims(), diff_dst.data_type())?;
                (diff_src.clone(), d)
            }
            (true, true) => {
                return Err(Error::unimplemented(
                    "resampling backward: diff_src and diff_dst cannot both be any \
                     (as upstream)",
                ));
            }
        };
        let geo = geometry(&diff_src, &diff_dst, ["diff_src", "diff_dst"])?;
        elem(&diff_src, "diff_src")?;
        elem(&diff_dst, "diff_dst")?;
        ResamplingOp::build(
            true,
            dnnl_backward_data,
            alg,
            diff_src,
            diff_dst,
            geo,
            PostOpsPlan::none(),
        )
    }

    fn build(
        backward: bool,
        prop_kind: dnnl_prop_kind_t,
        alg: Alg,
        src: MemoryDesc,
        dst: MemoryDesc,
        geo: Geometry,
        post_ops: PostOpsPlan,
    ) -> Result<ResamplingOp> {
        let names = if backward {
            ["diff_src", "diff_dst"]
        } else {
            ["src", "dst"]
        };
        let mut factors = [0f32; DNNL_MAX_NDIMS as usize];
        for x in 0..geo.nsp {
            let j = 3 - geo.nsp + x;
            factors[x] = geo.o[j] as f32 / geo.i[j] as f32;
        }
        Ok(ResamplingOp {
            backward,
            prop_kind,
            alg,
            src_layout: plain_layout(&src, names[0])?,
            dst_layout: plain_layout(&dst, names[1])?,
            src: Arc::new(src),
            dst: Arc::new(dst),
            geo,
            factors,
            post_ops,
        })
    }

    pub fn is_backward(&self) -> bool {
        self.backward
    }

    pub fn alg(&self) -> Alg {
        self.alg
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// src (forward) or diff_src (backward).
    pub fn src_layout(&self) -> &Layout {
        &self.src_layout
    }

    /// dst (forward) or diff_dst (backward).
    pub fn dst_layout(&self) -> &Layout {
        &self.dst_layout
    }

    /// src (forward) or diff_src (backward).
    pub fn src_md(&self) -> &Arc<MemoryDesc> {
        &self.src
    }

    /// dst (forward) or diff_dst (backward).
    pub fn dst_md(&self) -> &Arc<MemoryDesc> {
        &self.dst
    }

    /// The factors the op uses (`O / I`), one per spatial dimension.
    pub fn factors(&self) -> &[f32] {
        &self.factors[..self.geo.nsp]
    }

    pub fn post_ops(&self) -> &PostOpsPlan {
        &self.post_ops
    }

    /// The execution arguments of the src side and the dst side.
    fn args(&self) -> (i32, i32) {
        if self.backward {
            (DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_DST)
        } else {
            (DNNL_ARG_SRC, DNNL_ARG_DST)
        }
    }
}

impl OpDesc for ResamplingOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_resampling
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        self.alg.to_c()
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        let (s, d) = self.args();
        match arg {
            a if a == s => Some(&self.src),
            a if a == d => Some(&self.dst),
            _ => self.post_ops.arg_md(arg),
        }
    }

    fn inputs(&self) -> Vec<i32> {
        if self.backward {
            vec![DNNL_ARG_DIFF_DST]
        } else {
            let mut v = vec![DNNL_ARG_SRC];
            v.extend(self.post_ops.inputs());
            v
        }
    }

    fn outputs(&self) -> Vec<i32> {
        if self.backward {
            vec![DNNL_ARG_DIFF_SRC]
        } else {
            vec![DNNL_ARG_DST]
        }
    }

    fn query_f32s(&self, what: dnnl_query_t) -> Option<&[f32]> {
        (what == dnnl_query_factors).then_some(&self.factors[..])
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, self.alg.to_c(), "dnnl_", "unknown");
        format!("alg:{name}")
    }

    /// Upstream's problem string: `mbNicC_[idIodO_]ihIohO_iwIowO`.
    fn verbose_problem(&self) -> String {
        let g = &self.geo;
        let mut out = format!("mb{}ic{}", g.mb, g.c);
        let names = ["d", "h", "w"];
        for j in 3 - g.nsp..3 {
            let n = names[j];
            out += &format!("_i{n}{}o{n}{}", g.i[j], g.o[j]);
        }
        out
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("resampling")
            .bool(self.backward)
            .put(&self.prop_kind)
            .put(&self.alg.to_c())
            .put(&*self.src)
            .put(&*self.dst);
        self.post_ops.cache_key(w);
        true
    }
}

impl Kind for ResamplingOp {
    const NAME: &'static str = "resampling";
    const IMPLS: &'static [Impl<ResamplingOp>] = &[
        Impl::cpu(c"cpu:resampling_direct", any_op, cpu::create),
        Impl::gpu(c"ocl:resampling_direct", any_op, ocl::create),
    ];

    fn attr_support(&self) -> AttrSupport {
        if self.backward {
            return AttrSupport::NONE;
        }
        AttrSupport::parts(&[AttrPart::PostOps])
    }
}
