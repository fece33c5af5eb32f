//! Pooling forward and backward
//! (`dnnl_pooling_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor logic (upstream's checks)
//! and the implementation list, best first:
//! - `cpu:pooling_direct` (`cpu.rs`): output (forward) or diff_src
//!   (backward) elements split over the host's threads;
//! - `ocl:pooling_direct` (`ocl.rs`, `pooling.cl`): one work-item per
//!   output element in memory order, reading its window; backward is a
//!   gather over the windows that cover each diff_src element (no atomics).
//!
//! Algorithms: `pooling_max`, `pooling_avg_include_padding` (the window
//! size divides) and `pooling_avg_exclude_padding` (the window's overlap
//! with the source divides), on 1D, 2D and 3D spatial data (3 to 5
//! dimensions), with strides, kernel, dilations (0: dense, as oneDNN counts
//! them) and padding on both sides. Shapes are checked as upstream checks
//! them: stride positive, dilation and left padding non-negative, right
//! padding not below minus the stride, `(I - ((K - 1)(D + 1) + 1) + PL + PR)
//! / S + 1 == O` (C division), and for `avg_exclude_padding` no padding as
//! large as the window's extent. A max window entirely in the padding gives
//! the lowest value of the source type (upstream's reference behaviour).
//!
//! Workspace: max pooling forward training writes, per output element, the
//! index `(kd * KH + kh) * KW + kw` of the window position holding the
//! maximum (the first one on ties), as `u8` when the window has at most 255
//! positions and `s32` otherwise, laid out like dst (upstream's choice,
//! checked against Intel's library). Max backward reads it: its descriptor
//! needs a `hint_fwd_pd` whose workspace is that same descriptor (else
//! `unimplemented`, as upstream; with no hint at all Intel's library
//! crashes, here it is `unimplemented` too).
//!
//! Types: forward src and dst each any of f32, f16, bf16, s8, u8, s32
//! (Intel's library on the CPU accepts every such pair, a superset of its
//! documentation's table); backward diff_src and diff_dst f32, f16, bf16.
//! Computation in f32; integer stores round to nearest even and saturate.
//! Attributes: eltwise and binary post-ops on forward (a sum, a PReLU,
//! scales or zero points are `unimplemented`, as upstream).
//!
//! Layouts: any blocked layout (plain, strided, permuted, nChw16c, ...);
//! padding of blocked outputs is written with zeros. `any`: forward dst
//! takes src's layout; backward diff_src takes diff_dst's and diff_dst
//! diff_src's (both `any`: plain). src given as `any` is invalid, as
//! upstream. Deliberate difference: src and dst of different ranks are
//! refused (`invalid_arguments`), which Intel's library accepts.

// The C enumerators are matched by their C names; dimension loops index
// several parallel arrays by the same `d`.
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
use crate::prims::common::layout::{Layout, resolve_any, resolve_like};
use crate::prims::common::post_ops::PostOpsPlan;

/// The pooling algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    Max,
    AvgIncludePadding,
    AvgExcludePadding,
}

impl Alg {
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<Alg> {
        match alg {
            dnnl_pooling_max => Some(Alg::Max),
            dnnl_pooling_avg_include_padding => Some(Alg::AvgIncludePadding),
            dnnl_pooling_avg_exclude_padding => Some(Alg::AvgExcludePadding),
            _ => None,
        }
    }

    pub fn to_c(self) -> dnnl_alg_kind_t {
        match self {
            Alg::Max => dnnl_pooling_max,
            Alg::AvgIncludePadding => dnnl_pooling_avg_include_padding,
            Alg::AvgExcludePadding => dnnl_pooling_avg_exclude_padding,
        }
    }
}

/// The window geometry, normalised to three spatial dimensions (depth,
/// height, width; the missing leading ones have size 1 and a one-position
/// window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Spatial dimensions of the op (1 to 3).
    pub nsp: usize,
    pub mb: i64,
    pub c: i64,
    /// Source and destination spatial sizes.
    pub i: [i64; 3],
    pub o: [i64; 3],
    /// Kernel, stride, distance between taps (dilation plus one), left padding.
    pub k: [i64; 3],
    pub s: [i64; 3],
    pub d: [i64; 3],
    pub p: [i64; 3],
}

impl Geometry {
    /// Window positions (`KD * KH * KW`).
    pub fn window(&self) -> i64 {
        self.k.iter().product()
    }

    /// The tensor dimension of normalised spatial slot `j` (`None` for the
    /// slots a 1D or 2D op leaves out).
    pub fn dim_of_slot(&self, j: usize) -> Option<usize> {
        let first = 3 - self.nsp;
        (j >= first).then(|| 2 + j - first)
    }

    /// How many taps of output position `o` along slot `j` fall inside the
    /// source.
    pub fn taps_inside(&self, j: usize, o: i64) -> i64 {
        let start = o * self.s[j] - self.p[j];
        let d = self.d[j];
        let first = if start >= 0 { 0 } else { (-start + d - 1) / d };
        let last_pos = self.i[j] - 1 - start;
        if last_pos < 0 {
            return 0;
        }
        let last = (self.k[j] - 1).min(last_pos / d);
        (last - first + 1).max(0)
    }

    /// The divisor of average pooling at output position `o` (normalised).
    pub fn divisor(&self, alg: Alg, o: [i64; 3]) -> f32 {
        match alg {
            Alg::AvgExcludePadding => {
                (0..3).map(|j| self.taps_inside(j, o[j])).product::<i64>() as f32
            }
            _ => self.window() as f32,
        }
    }
}

/// A pooling operation, either direction.
///
/// Forward: input src, output dst (and the workspace for max training).
/// Backward: inputs diff_dst (and the workspace for max), output diff_src.
pub struct PoolingOp {
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    alg: Alg,
    /// src (forward) or diff_src (backward).
    src: Arc<MemoryDesc>,
    /// dst (forward) or diff_dst (backward).
    dst: Arc<MemoryDesc>,
    /// The workspace, where the op has one.
    ws: Option<Arc<MemoryDesc>>,
    src_layout: Layout,
    dst_layout: Layout,
    ws_layout: Option<Layout>,
    geo: Geometry,
    /// The C-facing arrays, for queries (upstream's dilation, 0 = dense).
    strides: dnnl_dims_t,
    kernel: dnnl_dims_t,
    dilation: dnnl_dims_t,
    padding_l: dnnl_dims_t,
    padding_r: dnnl_dims_t,
    post_ops: PostOpsPlan,
}

/// The window arrays of a pooling descriptor, one value per spatial
/// dimension (extra values are ignored).
#[derive(Clone, Copy, Debug)]
pub struct Window<'a> {
    pub strides: &'a [i64],
    pub kernel: &'a [i64],
    /// `None`: dense (all 0).
    pub dilation: Option<&'a [i64]>,
    pub padding_l: &'a [i64],
    /// `None`: equal to `padding_l`.
    pub padding_r: Option<&'a [i64]>,
}

fn dims_array(v: &[i64]) -> dnnl_dims_t {
    let mut a = [0; DNNL_MAX_NDIMS as usize];
    a[..v.len()].copy_from_slice(v);
    a
}

fn elem(md: &MemoryDesc, what: &str, int_ok: bool) -> Result<Elem> {
    match Elem::from_c(md.data_type()) {
        Some(e) if int_ok || !e.is_int() => Ok(e),
        _ => Err(Error::unimplemented(format!(
            "pooling {what}: data type {} is not supported",
            names::enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "?")
        ))),
    }
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

/// Upstream's shape checks; `names` are the two tensors' names.
fn geometry(
    alg: Alg,
    src: &MemoryDesc,
    dst: &MemoryDesc,
    w: &Window,
    names: [&str; 2],
) -> Result<(Geometry, [Vec<i64>; 5])> {
    let nd = src.ndims();
    if !(3..=5).contains(&nd) {
        return Err(Error::invalid(format!(
            "pooling takes 3 to 5 dimensions (1D to 3D spatial), not {nd}"
        )));
    }
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
    for (v, what) in [
        (w.strides, "strides"),
        (w.kernel, "kernel"),
        (w.padding_l, "padding_l"),
    ] {
        if v.len() < nsp {
            return Err(Error::invalid(format!("{what}: {nsp} values expected")));
        }
    }
    let opt = |v: Option<&[i64]>, what: &str| -> Result<Option<Vec<i64>>> {
        match v {
            Some(v) if v.len() < nsp => {
                Err(Error::invalid(format!("{what}: {nsp} values expected")))
            }
            Some(v) => Ok(Some(v[..nsp].to_vec())),
            None => Ok(None),
        }
    };
    let strides = w.strides[..nsp].to_vec();
    let kernel = w.kernel[..nsp].to_vec();
    let dil = opt(w.dilation, "dilation")?.unwrap_or(vec![0; nsp]);
    let pl = w.padding_l[..nsp].to_vec();
    let pr = opt(w.padding_r, "padding_r")?.unwrap_or(pl.clone());
    let mut geo = Geometry {
        nsp,
        mb: s[0],
        c: s[1],
        i: [1; 3],
        o: [1; 3],
        k: [1; 3],
        s: [1; 3],
        d: [1; 3],
        p: [0; 3],
    };
    for x in 0..nsp {
        let (i, o, k, st) = (s[2 + x], d[2 + x], kernel[x], strides[x]);
        if st <= 0 {
            return Err(Error::invalid(format!(
                "spatial dimension {x}: stride {st} must be positive"
            )));
        }
        if dil[x] < 0 {
            return Err(Error::invalid(format!(
                "spatial dimension {x}: dilation {} must be non-negative",
                dil[x]
            )));
        }
        if pl[x] < 0 {
            return Err(Error::invalid(format!(
                "spatial dimension {x}: padding_l {} must be non-negative",
                pl[x]
            )));
        }
        if pr[x].saturating_add(st) < 0 {
            return Err(Error::invalid(format!(
                "spatial dimension {x}: padding_r {} must not be below minus the stride {st}",
                pr[x]
            )));
        }
        let range = (k - 1)
            .checked_mul(dil[x] + 1)
            .and_then(|r| r.checked_add(1))
            .ok_or_else(|| Error::invalid("the kernel's extent overflows"))?;
        let span = i
            .checked_add(pl[x])
            .and_then(|v| v.checked_add(pr[x]))
            .and_then(|v| v.checked_sub(range))
            .ok_or_else(|| Error::invalid("the padded size overflows"))?;
        // C division, as upstream computes it.
        if span / st + 1 != o {
            return Err(Error::invalid(format!(
                "spatial dimension {x}: ({i} - {range} + {} + {}) / {st} + 1 is not {o}",
                pl[x], pr[x]
            )));
        }
        if alg == Alg::AvgExcludePadding && (pl[x] >= range || pr[x] >= range) {
            return Err(Error::invalid(format!(
                "spatial dimension {x}: avg_exclude_padding with padding ({}, {}) as large as \
                 the window's extent {range} (a window could hold no source element)",
                pl[x], pr[x]
            )));
        }
        let j = 3 - nsp + x;
        geo.i[j] = i;
        geo.o[j] = o;
        geo.k[j] = k;
        geo.s[j] = st;
        geo.d[j] = dil[x] + 1;
        geo.p[j] = pl[x];
    }
    Ok((geo, [strides, kernel, dil, pl, pr]))
}

/// The workspace of a max pooling: `like`'s layout (dst or diff_dst), of
/// type u8 for windows of at most 255 positions and s32 beyond.
fn workspace_md(like: &MemoryDesc, window: i64) -> Result<MemoryDesc> {
    let dt = if window <= 255 { dnnl_u8 } else { dnnl_s32 };
    let blocking = like
        .blocking()
        .ok_or_else(|| Error::unimplemented("the workspace needs a blocked layout"))?;
    if blocking.inner_nblks == 0
        && like.offset0() == 0
        && like.padded_offsets().iter().all(|&o| o == 0)
    {
        // The same strides, counted in workspace elements (upstream's
        // descriptor with the data type replaced).
        let n = like.ndims();
        return MemoryDesc::with_strides(like.dims(), dt, Some(&blocking.strides[..n]));
    }
    resolve_like(like, like.dims(), dt)
}

impl PoolingOp {
    /// `dnnl_pooling_forward_primitive_desc_create`'s checks, with resolved
    /// descriptors (`dst` may be `any`: it takes src's layout).
    /// `forward_training` with `pooling_max` gets a workspace
    /// ([`PoolingOp::workspace`]).
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        alg_kind: dnnl_alg_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        window: Window,
        attr: &PrimitiveAttr,
    ) -> Result<PoolingOp> {
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for pooling forward",
                prop_kind.0
            )));
        }
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a pooling algorithm", alg_kind.0))
        })?;
        check_given(src, "src")?;
        check_given(dst, "dst")?;
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        let (geo, arrays) = geometry(alg, src, dst, &window, ["src", "dst"])?;
        elem(src, "src", true)?;
        elem(dst, "dst", true)?;
        for entry in attr.post_ops.entries() {
            if !matches!(entry, PostOp::Eltwise { .. } | PostOp::Binary { .. }) {
                return Err(Error::unimplemented(
                    "pooling post-ops: only eltwise and binary are supported (as upstream)",
                ));
            }
        }
        let dst = if dst.is_any_format() {
            resolve_like(src, dst.dims(), dst.data_type())?
        } else {
            dst.clone()
        };
        let post_ops = PostOpsPlan::new(&attr.post_ops, &dst)?;
        let ws = (alg == Alg::Max && prop_kind == dnnl_forward_training)
            .then(|| workspace_md(&dst, geo.window()))
            .transpose()?;
        PoolingOp::build(
            false,
            prop_kind,
            alg,
            src.clone(),
            dst,
            ws,
            geo,
            arrays,
            post_ops,
        )
    }

    /// `dnnl_pooling_backward_primitive_desc_create`'s checks, with resolved
    /// descriptors (`diff_src` and `diff_dst` may be `any`). Max pooling
    /// needs `hint` (the forward training descriptor) with the workspace
    /// this op reads; average pooling ignores it.
    pub fn backward(
        alg_kind: dnnl_alg_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        window: Window,
        hint: Option<&PoolingOp>,
        _attr: &PrimitiveAttr,
    ) -> Result<PoolingOp> {
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a pooling algorithm", alg_kind.0))
        })?;
        check_given(diff_src, "diff_src")?;
        check_given(diff_dst, "diff_dst")?;
        let (geo, arrays) = geometry(alg, diff_src, diff_dst, &window, ["diff_src", "diff_dst"])?;
        elem(diff_src, "diff_src", false)?;
        elem(diff_dst, "diff_dst", false)?;
        let (diff_src, diff_dst) = match (diff_src.is_any_format(), diff_dst.is_any_format()) {
            (false, false) => (diff_src.clone(), diff_dst.clone()),
            (true, false) => (
                resolve_like(diff_dst, diff_src.dims(), diff_src.data_type())?,
                diff_dst.clone(),
            ),
            (false, true) => (
                diff_src.clone(),
                resolve_like(diff_src, diff_dst.dims(), diff_dst.data_type())?,
            ),
            (true, true) => (
                resolve_any(None, diff_src.dims(), diff_src.data_type())?,
                resolve_any(None, diff_dst.dims(), diff_dst.data_type())?,
            ),
        };
        let ws = if alg == Alg::Max {
            let ws = workspace_md(&diff_dst, geo.window())?;
            let hinted = hint.and_then(|h| h.ws.as_deref());
            if hinted != Some(&ws) {
                return Err(Error::unimplemented(
                    "max pooling backward reads the workspace of a forward training \
                     descriptor: hint_fwd_pd must be one whose workspace matches diff_dst",
                ));
            }
            Some(ws)
        } else {
            None
        };
        PoolingOp::build(
            true,
            dnnl_backward_data,
            alg,
            diff_src,
            diff_dst,
            ws,
            geo,
            arrays,
            PostOpsPlan::none(),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn build(
        backward: bool,
        prop_kind: dnnl_prop_kind_t,
        alg: Alg,
        src: MemoryDesc,
        dst: MemoryDesc,
        ws: Option<MemoryDesc>,
        geo: Geometry,
        arrays: [Vec<i64>; 5],
        post_ops: PostOpsPlan,
    ) -> Result<PoolingOp> {
        let [strides, kernel, dilation, padding_l, padding_r] = arrays;
        Ok(PoolingOp {
            backward,
            prop_kind,
            alg,
            src_layout: Layout::new(&src)?,
            dst_layout: Layout::new(&dst)?,
            ws_layout: ws.as_ref().map(Layout::new).transpose()?,
            src: Arc::new(src),
            dst: Arc::new(dst),
            ws: ws.map(Arc::new),
            geo,
            strides: dims_array(&strides),
            kernel: dims_array(&kernel),
            dilation: dims_array(&dilation),
            padding_l: dims_array(&padding_l),
            padding_r: dims_array(&padding_r),
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

    /// The workspace's layout, where the op has one.
    pub fn ws_layout(&self) -> Option<&Layout> {
        self.ws_layout.as_ref()
    }

    /// The workspace descriptor (max pooling forward training and backward).
    pub fn workspace(&self) -> Option<&Arc<MemoryDesc>> {
        self.ws.as_ref()
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

impl OpDesc for PoolingOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_pooling
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
            DNNL_ARG_WORKSPACE => self.ws.as_ref(),
            _ => self.post_ops.arg_md(arg),
        }
    }

    fn inputs(&self) -> Vec<i32> {
        if self.backward {
            let mut v = vec![DNNL_ARG_DIFF_DST];
            if self.ws.is_some() {
                v.push(DNNL_ARG_WORKSPACE);
            }
            v
        } else {
            let mut v = vec![DNNL_ARG_SRC];
            v.extend(self.post_ops.inputs());
            v
        }
    }

    fn outputs(&self) -> Vec<i32> {
        if self.backward {
            vec![DNNL_ARG_DIFF_SRC]
        } else if self.ws.is_some() {
            vec![DNNL_ARG_DST, DNNL_ARG_WORKSPACE]
        } else {
            vec![DNNL_ARG_DST]
        }
    }

    fn query_dims(&self, what: dnnl_query_t) -> Option<&dnnl_dims_t> {
        match what {
            dnnl_query_strides => Some(&self.strides),
            dnnl_query_kernel => Some(&self.kernel),
            dnnl_query_dilations => Some(&self.dilation),
            dnnl_query_padding_l => Some(&self.padding_l),
            dnnl_query_padding_r => Some(&self.padding_r),
            _ => None,
        }
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, self.alg.to_c(), "dnnl_", "unknown");
        format!("alg:{name}")
    }

    /// Upstream's problem string: `mbNicC_[idIodOkdKsdSddDpdP_]…`.
    fn verbose_problem(&self) -> String {
        let g = &self.geo;
        let mut out = format!("mb{}ic{}", g.mb, g.c);
        let names = ["d", "h", "w"];
        for j in 3 - g.nsp..3 {
            let n = names[j];
            out += &format!(
                "_i{n}{}o{n}{}k{n}{}s{n}{}d{n}{}p{n}{}",
                g.i[j],
                g.o[j],
                g.k[j],
                g.s[j],
                g.d[j] - 1,
                g.p[j]
            );
        }
        out
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("pooling")
            .bool(self.backward)
            .put(&self.prop_kind)
            .put(&self.alg.to_c())
            .put(&*self.src)
            .put(&*self.dst)
            .opt(self.ws.as_deref())
            .i64s(&self.strides)
            .i64s(&self.kernel)
            .i64s(&self.dilation)
            .i64s(&self.padding_l)
            .i64s(&self.padding_r);
        self.post_ops.cache_key(w);
        true
    }
}

impl Kind for PoolingOp {
    const NAME: &'static str = "pooling";
    const IMPLS: &'static [Impl<PoolingOp>] = &[
        Impl::cpu(c"cpu:pooling_direct", any_op, cpu::create),
        Impl::gpu(c"ocl:pooling_direct", any_op, ocl::create),
    ];

    fn attr_support(&self) -> AttrSupport {
        if self.backward {
            return AttrSupport::NONE;
        }
        AttrSupport::parts(&[AttrPart::PostOps])
    }
}
