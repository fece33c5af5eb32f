//! Normalization on the CPU engine: statistics, per-channel and per-stat
//! sums over the host's threads (in f64), then the element-wise pass. With
//! at least as many stats as threads (and no global statistics), a thread
//! takes whole stats and runs both for each while its elements are still
//! in the cache (layer norm's rows likewise, a row at a time).
//!
//! Layer: prims. Element offsets come from tables per canonical index
//! (`n`, `c`, `sp`), which blocked layouts without padding allow: an offset
//! is a sum of one term per dimension. Each element is written by one
//! thread; an input overlapping the output other than element for element is
//! copied first (in place with the same layout reads each element before it
//! writes it).

use std::ops::Range;
use std::sync::Arc;

use super::{Geometry, NormOp, Role};
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation, Kind};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::host::{self, Raw};
use crate::prims::common::layout::Layout;
use crate::prims::common::parallel;

/// Builds the implementation for `op`.
pub(super) fn create<K: Kind + AsRef<NormOp>>(
    op: &Arc<K>,
    _: &Engine,
) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuNorm { op: op.clone() }))
}

struct CpuNorm<K> {
    op: Arc<K>,
}

/// The element offsets of `layout` at `(n, c, sp)`: one table per index.
pub(super) struct Offsets {
    n: Vec<i64>,
    c: Vec<i64>,
    sp: Vec<i64>,
}

impl Offsets {
    pub fn new(l: &Layout, op: &NormOp) -> Offsets {
        let axes = op.axes();
        let base_pos: [i64; MAX_NDIMS] = l.padded_offsets;
        let base = l.offset(&base_pos);
        let table = |dims: &[usize], with_base: bool| -> Vec<i64> {
            let count: i64 = dims.iter().map(|&d| l.dims[d]).product();
            (0..count)
                .map(|mut i| {
                    let mut p = base_pos;
                    for &d in dims.iter().rev() {
                        p[d] += i % l.dims[d];
                        i /= l.dims[d];
                    }
                    l.offset(&p) - base + if with_base { base } else { 0 }
                })
                .collect()
        };
        Offsets {
            n: table(&axes.n, true),
            c: table(&[axes.c], false),
            sp: table(&axes.sp, false),
        }
    }

    #[inline]
    pub fn at(&self, n: i64, c: i64, sp: i64) -> i64 {
        self.n[n as usize] + self.c[c as usize] + self.sp[sp as usize]
    }
}

/// A data tensor: its host buffer and offsets.
struct Tensor {
    raw: Raw,
    off: Offsets,
    /// Whether the spatial positions of an `(n, c)` are contiguous.
    sp_unit: bool,
    /// Whether the channels of an `n` are contiguous.
    c_unit: bool,
}

impl Tensor {
    /// Whether the channels of an `n` are contiguous.
    fn c_unit(&self) -> bool {
        self.c_unit
    }
    fn new(raw: Raw, off: Offsets) -> Tensor {
        let sp_unit = off.sp.iter().enumerate().all(|(i, &o)| o == i as i64);
        let c_unit = off.c.iter().enumerate().all(|(i, &o)| o == i as i64);
        Tensor {
            raw,
            off,
            sp_unit,
            c_unit,
        }
    }
    /// The spatial run of `(n, c)` into `buf` (of `SP` elements).
    fn gather(&self, n: i64, c: i64, buf: &mut [f32]) {
        let base = self.off.at(n, c, 0);
        if self.sp_unit {
            self.raw.load_run(base, buf);
        } else {
            for (v, &o) in buf.iter_mut().zip(&self.off.sp) {
                *v = self.raw.load(base + o);
            }
        }
    }
    /// Stores `buf` as the spatial run of `(n, c)`.
    fn scatter(&self, n: i64, c: i64, buf: &[f32]) {
        let base = self.off.at(n, c, 0);
        if self.sp_unit {
            self.raw.store_run(base, buf);
        } else {
            for (&v, &o) in buf.iter().zip(&self.off.sp) {
                self.raw.store(base + o, v);
            }
        }
    }
}

/// A vector argument (mean, variance, scale, shift, their diffs): element
/// offsets in logical row-major order.
struct Vector {
    raw: Raw,
    off: Vec<i64>,
}

impl Vector {
    fn new(buffer: &Buffer, md_layout: &Layout, what: &str) -> Result<Vector> {
        let raw = Raw::of(buffer, md_layout, what)?;
        let n = md_layout.nelems();
        let off = (0..n)
            .map(|mut i| {
                let mut p = md_layout.padded_offsets;
                for d in (0..md_layout.ndims).rev() {
                    p[d] += i % md_layout.dims[d];
                    i /= md_layout.dims[d];
                }
                md_layout.offset(&p)
            })
            .collect();
        Ok(Vector { raw, off })
    }
    fn load(&self, i: i64) -> f32 {
        self.raw.load(self.off[i as usize])
    }
    fn store(&self, i: i64, v: f32) {
        self.raw.store(self.off[i as usize], v)
    }
}

/// Splits `0..total` for the host's threads, items of about `cost` elements each.
fn ranges(total: i64, cost: i64) -> Vec<Range<usize>> {
    let min = ((1i64 << 14) / cost.max(1)).max(1) as usize;
    parallel::split(total as usize, min)
}

/// Runs `f(i)` for every `i` of `0..total` over the host's threads and
/// collects the results in order.
fn map_par<T: Send + Default + Clone>(
    total: i64,
    cost: i64,
    f: impl Fn(i64) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); total as usize];
    let parts = ranges(total, cost);
    let mut items = Vec::new();
    let mut rest: &mut [T] = &mut out;
    for r in parts {
        let (head, tail) = rest.split_at_mut(r.len());
        items.push((r, head));
        rest = tail;
    }
    parallel::run_all(items, |(r, slots)| {
        for (i, slot) in r.zip(slots.iter_mut()) {
            *slot = f(i as i64);
        }
    });
    out
}

/// [`map_par`] with per-thread state made by `init` (buffers reused
/// across items).
fn map_par_with<T: Send + Default + Clone, S>(
    total: i64,
    cost: i64,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, i64) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); total as usize];
    let parts = ranges(total, cost);
    let mut items = Vec::new();
    let mut rest: &mut [T] = &mut out;
    for r in parts {
        let (head, tail) = rest.split_at_mut(r.len());
        items.push((r, head));
        rest = tail;
    }
    parallel::run_all(items, |(r, slots)| {
        let mut state = init();
        for (i, slot) in r.zip(slots.iter_mut()) {
            *slot = f(&mut state, i as i64);
        }
    });
    out
}

/// Runs `f(i)` for every `i` of `0..total` over the host's threads.
fn for_par(total: i64, cost: i64, f: impl Fn(i64) + Sync) {
    parallel::run_all(ranges(total, cost), |r| {
        for i in r {
            f(i as i64);
        }
    });
}

impl<K: Kind + AsRef<NormOp>> Implementation for CpuNorm<K> {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op: &NormOp = (*self.op).as_ref();
        if op.geometry().nelems() == 0 {
            return Ok(None);
        }
        if op.is_backward() {
            backward(op, ctx)
        } else {
            forward(op, ctx)
        }?;
        Ok(None)
    }
}

/// The buffers of the op's arguments, kept alive for the execution.
struct Bufs {
    list: Vec<(i32, Buffer, Layout)>,
    copies: Vec<(i32, Vec<u8>)>,
}

impl Bufs {
    fn new(op: &NormOp, ctx: &ExecContext) -> Result<Bufs> {
        let mut list = Vec::new();
        // Post-op operands are bound by the post-ops themselves.
        for arg in op
            .inputs
            .iter()
            .chain(&op.outputs)
            .filter(|&&a| op.arg(a).is_some())
        {
            let layout = op.layout(*arg).ok_or_else(|| {
                crate::core::error::Error::runtime("a normalization argument without layout")
            })?;
            list.push((*arg, Buffer::of(ctx.arg(*arg)?)?, layout));
        }
        Ok(Bufs {
            list,
            copies: Vec::new(),
        })
    }

    fn get(&self, arg: i32) -> Option<&(i32, Buffer, Layout)> {
        self.list.iter().find(|b| b.0 == arg)
    }

    /// Copies input `arg` when it overlaps `out` other than element for element.
    fn copy_if_overlapping(&mut self, arg: i32, out: i32) -> Result<()> {
        let (Some(a), Some(o)) = (self.get(arg), self.get(out)) else {
            return Ok(());
        };
        let ra = Raw::of(&a.1, &a.2, "input")?;
        let ro = Raw::of(&o.1, &o.2, "output")?;
        if host::must_copy(&ra, &a.2, &ro, &o.2) {
            let copy = host::copy(&ra, &a.2);
            self.copies.push((arg, copy));
        }
        Ok(())
    }

    fn tensor(&self, op: &NormOp, arg: i32, what: &str) -> Result<Tensor> {
        let (_, buffer, layout) = self
            .get(arg)
            .ok_or_else(|| crate::core::error::Error::invalid(format!("{what} is missing")))?;
        let raw = match self.copies.iter().find(|c| c.0 == arg) {
            Some((_, bytes)) => Raw::over(bytes, layout.elem),
            None => Raw::of(buffer, layout, what)?,
        };
        Ok(Tensor::new(raw, Offsets::new(layout, op)))
    }

    fn vector(&self, arg: i32, what: &str) -> Result<Option<Vector>> {
        match self.get(arg) {
            Some((_, buffer, layout)) => Vector::new(buffer, layout, what).map(Some),
            None => Ok(None),
        }
    }
}

/// The sum of `v` (no `center`) or of `(v - center)^2` over a run: 8 f32
/// lanes (so the loop vectorises), added up in f64.
fn run_sum(v: &[f32], center: Option<f32>) -> f64 {
    let mut lanes = [0f32; 8];
    let mut chunks = v.chunks_exact(8);
    let square = center.is_some();
    let center = center.unwrap_or(0.0);
    for ch in &mut chunks {
        for k in 0..8 {
            let d = ch[k] - center;
            lanes[k] += if square { d * d } else { ch[k] };
        }
    }
    let tail: f64 = chunks
        .remainder()
        .iter()
        .map(|&x| {
            let d = f64::from(x - center);
            if square { d * d } else { f64::from(x) }
        })
        .sum();
    lanes.iter().map(|&l| f64::from(l)).sum::<f64>() + tail
}

/// The `(n, c)` pairs of stat `s`.
fn stat_pairs(g: &Geometry, s: i64) -> impl Iterator<Item = (i64, i64)> + '_ {
    let (per_n, g_, cg, count) = (g.per_n, g.g, g.cg, if g.per_n { g.cg } else { g.n });
    (0..count).map(move |k| {
        if per_n {
            (s / g_, s % g_ * cg + k)
        } else {
            (k, s)
        }
    })
}

/// Mean and variance of every stat, two passes (mean, then the mean
/// square of `x - mean`).
fn statistics(g: &Geometry, src: &Tensor, rms: bool) -> (Vec<f32>, Vec<f32>) {
    let m = g.per_stat();
    let stats = map_par(g.stats(), m, |s| {
        let mut buf = vec![0f32; g.sp as usize];
        let mut sum = 0f64;
        if !rms {
            for (n, c) in stat_pairs(g, s) {
                src.gather(n, c, &mut buf);
                sum += run_sum(&buf, None);
            }
        }
        let mean = sum / m as f64;
        let mut sq = 0f64;
        for (n, c) in stat_pairs(g, s) {
            src.gather(n, c, &mut buf);
            sq += run_sum(&buf, Some(mean as f32));
        }
        (mean as f32, (sq / m as f64) as f32)
    });
    stats.into_iter().unzip()
}

/// The logical position of `(n, c, sp)` in `dims`.
fn logical(op: &NormOp, dims: &[i64], n: i64, c: i64, sp: i64, pos: &mut [i64; MAX_NDIMS]) {
    let axes = op.axes();
    let mut rest = n;
    for &d in axes.n.iter().rev() {
        pos[d] = rest % dims[d];
        rest /= dims[d];
    }
    pos[axes.c] = c;
    let mut rest = sp;
    for &d in axes.sp.iter().rev() {
        pos[d] = rest % dims[d];
        rest /= dims[d];
    }
}

/// A row (layer norm): the `C` elements of `n`, through the `c` offsets.
fn gather_row(t: &Tensor, n: i64, buf: &mut [f32]) {
    let base = t.off.at(n, 0, 0);
    if t.c_unit() {
        t.raw.load_run(base, buf);
    } else {
        for (v, &o) in buf.iter_mut().zip(&t.off.c) {
            *v = t.raw.load(base + o);
        }
    }
}

fn scatter_row(t: &Tensor, n: i64, buf: &[f32]) {
    let base = t.off.at(n, 0, 0);
    if t.c_unit() {
        t.raw.store_run(base, buf);
    } else {
        for (&v, &o) in buf.iter().zip(&t.off.c) {
            t.raw.store(base + o, v);
        }
    }
}

/// Whether the op is layer-norm shaped: one stat per `n`, over its `C`
/// channels, no spatial dimensions (then rows are the runs).
fn rows_shape(g: &Geometry) -> bool {
    g.per_n && g.g == 1 && g.sp == 1
}

fn forward(op: &NormOp, ctx: &ExecContext) -> Result<()> {
    let g = *op.geometry();
    let mut bufs = Bufs::new(op, ctx)?;
    let out_arg = op.role_arg(Role::Out);
    bufs.copy_if_overlapping(DNNL_ARG_SRC, out_arg)?;
    bufs.copy_if_overlapping(DNNL_ARG_SRC_1, out_arg)?;
    let src = bufs.tensor(op, DNNL_ARG_SRC, "src")?;
    let dst = bufs.tensor(op, out_arg, "dst")?;
    let add = if op.add_relu() {
        Some(bufs.tensor(op, DNNL_ARG_SRC_1, "src_1")?)
    } else {
        None
    };
    let mean_v = bufs.vector(DNNL_ARG_MEAN, "mean")?;
    let var_v = bufs.vector(DNNL_ARG_VARIANCE, "variance")?;
    let scale = bufs.vector(DNNL_ARG_SCALE, "scale")?;
    let shift = bufs.vector(DNNL_ARG_SHIFT, "shift")?;
    let ws = match bufs.get(DNNL_ARG_WORKSPACE) {
        Some((_, b, l)) => Some(Raw::of(b, l, "workspace")?),
        None => None,
    };
    let [s_src, s_dst] = op.scales();
    let src_scale = host::scale(ctx, DNNL_ARG_SRC, s_src)?;
    let dst_scale = host::scale(ctx, DNNL_ARG_DST, s_dst)?;
    let out_scale = src_scale / dst_scale;
    let post = op.post_ops().bind(ctx)?;
    let has_post = !op.post_ops().is_empty();
    let dims: Vec<i64> = op
        .arg(DNNL_ARG_SRC)
        .map(|m| m.dims().to_vec())
        .unwrap_or_default();
    let gamma: Vec<f32> = (0..g.c)
        .map(|c| scale.as_ref().map_or(1.0, |v| v.load(c)))
        .collect();
    let beta: Vec<f32> = (0..g.c)
        .map(|c| shift.as_ref().map_or(0.0, |v| v.load(c)))
        .collect();
    let rms = op.rms();
    let global = op.global_stats();
    let load_stats = || -> Result<(Vec<f32>, Vec<f32>)> {
        let Some(vv) = &var_v else {
            return Err(crate::core::error::Error::runtime(
                "global statistics without variance",
            ));
        };
        let mean = match (&mean_v, rms) {
            (Some(mv), false) => (0..g.stats()).map(|s| mv.load(s)).collect(),
            _ => vec![0.0; g.stats() as usize],
        };
        Ok((mean, (0..g.stats()).map(|s| vv.load(s)).collect()))
    };
    // The results of (n, c) in `y` (normalized, shifted): then src_1, the
    // ReLU and its workspace, scales and post-ops.
    let finish = |n: i64, c: i64, y: &mut [f32], pos: &mut [i64; MAX_NDIMS]| {
        if let Some(t) = &add {
            let mut b = vec![0f32; y.len()];
            t.gather(n, c, &mut b);
            for (v, w) in y.iter_mut().zip(&b) {
                *v += w;
            }
        }
        if let Some(alpha) = op.relu() {
            for (sp, v) in y.iter_mut().enumerate() {
                let pass = *v > 0.0;
                if let Some(w) = &ws {
                    w.store(
                        (n * g.c + c) * g.sp + sp as i64,
                        if pass { 1.0 } else { 0.0 },
                    );
                }
                if !pass {
                    *v *= alpha;
                }
            }
        }
        if has_post {
            for (sp, v) in y.iter_mut().enumerate() {
                logical(op, &dims, n, c, sp as i64, pos);
                *v = post.apply(*v * src_scale, 0.0, &pos[..dims.len()]) / dst_scale;
            }
        } else if out_scale != 1.0 {
            for v in y.iter_mut() {
                *v *= out_scale;
            }
        }
    };
    if rows_shape(&g) {
        // A row per stat: statistics and results in one pass over it.
        let (gmean, gvar) = if global {
            load_stats()?
        } else {
            (Vec::new(), Vec::new())
        };
        let row_buf = || vec![0f32; g.c as usize];
        let stats = map_par_with(g.n, g.c, row_buf, |row, n| {
            gather_row(&src, n, row);
            let (m, v) = if global {
                (gmean[n as usize], gvar[n as usize])
            } else {
                let m = if rms {
                    0.0
                } else {
                    (run_sum(row, None) / g.c as f64) as f32
                };
                (m, (run_sum(row, Some(m)) / g.c as f64) as f32)
            };
            let inv = 1.0 / (v + op.epsilon()).sqrt();
            for (x, (&gm, &bt)) in row.iter_mut().zip(gamma.iter().zip(&beta)) {
                *x = (*x - m) * inv * gm + bt;
            }
            let mut pos = [0i64; MAX_NDIMS];
            if has_post || out_scale != 1.0 {
                // Per element: the chain sees each position.
                for c in 0..g.c {
                    let mut one = [row[c as usize]];
                    finish(n, c, &mut one, &mut pos);
                    row[c as usize] = one[0];
                }
            }
            scatter_row(&dst, n, row);
            (m, v)
        });
        if op.writes_stats() {
            for (s, &(m, v)) in stats.iter().enumerate() {
                if let (Some(mv), false) = (&mean_v, rms) {
                    mv.store(s as i64, m);
                }
                if let Some(vv) = &var_v {
                    vv.store(s as i64, v);
                }
            }
        }
        return Ok(());
    }
    if !global && g.stats() >= parallel::max_threads() as i64 {
        // Enough stats for every thread: each stat's statistics and results
        // together, its elements read from memory once and then from the
        // cache (the same arithmetic as `statistics` and the pass below).
        let m = g.per_stat();
        let sp_buf = || vec![0f32; g.sp as usize];
        let stats = map_par_with(g.stats(), 3 * m, sp_buf, |buf, s| {
            let mut sum = 0f64;
            if !rms {
                for (n, c) in stat_pairs(&g, s) {
                    src.gather(n, c, buf);
                    sum += run_sum(buf, None);
                }
            }
            let mean = sum / m as f64;
            let mut sq = 0f64;
            for (n, c) in stat_pairs(&g, s) {
                src.gather(n, c, buf);
                sq += run_sum(buf, Some(mean as f32));
            }
            let (mean, var) = (mean as f32, (sq / m as f64) as f32);
            let inv = 1.0 / (var + op.epsilon()).sqrt();
            let mut pos = [0i64; MAX_NDIMS];
            for (n, c) in stat_pairs(&g, s) {
                let a = gamma[c as usize] * inv;
                let bt = beta[c as usize];
                src.gather(n, c, buf);
                for v in buf.iter_mut() {
                    *v = (*v - mean) * a + bt;
                }
                finish(n, c, buf, &mut pos);
                dst.scatter(n, c, buf);
            }
            (mean, var)
        });
        if op.writes_stats() {
            for (s, &(m, v)) in stats.iter().enumerate() {
                if let (Some(mv), false) = (&mean_v, rms) {
                    mv.store(s as i64, m);
                }
                if let Some(vv) = &var_v {
                    vv.store(s as i64, v);
                }
            }
        }
        return Ok(());
    }
    let (mean, var) = if global {
        load_stats()?
    } else {
        statistics(&g, &src, rms)
    };
    if op.writes_stats() {
        for s in 0..g.stats() {
            if let (Some(mv), false) = (&mean_v, rms) {
                mv.store(s, mean[s as usize]);
            }
            if let Some(vv) = &var_v {
                vv.store(s, var[s as usize]);
            }
        }
    }
    let inv: Vec<f32> = var
        .iter()
        .map(|v| 1.0 / (v + op.epsilon()).sqrt())
        .collect();
    for_par(g.n * g.c, g.sp, |nc| {
        let (n, c) = (nc / g.c, nc % g.c);
        let s = g.stat(n, c) as usize;
        let a = gamma[c as usize] * inv[s];
        let (m, bt) = (mean[s], beta[c as usize]);
        let mut y = vec![0f32; g.sp as usize];
        src.gather(n, c, &mut y);
        for v in y.iter_mut() {
            *v = (*v - m) * a + bt;
        }
        let mut pos = [0i64; MAX_NDIMS];
        finish(n, c, &mut y, &mut pos);
        dst.scatter(n, c, &y);
    });
    Ok(())
}

fn backward(op: &NormOp, ctx: &ExecContext) -> Result<()> {
    let g = *op.geometry();
    let mut bufs = Bufs::new(op, ctx)?;
    let out_arg = op.role_arg(Role::Out);
    bufs.copy_if_overlapping(DNNL_ARG_DIFF_DST, out_arg)?;
    bufs.copy_if_overlapping(DNNL_ARG_SRC, out_arg)?;
    let src = bufs.tensor(op, DNNL_ARG_SRC, "src")?;
    let dd = bufs.tensor(op, DNNL_ARG_DIFF_DST, "diff_dst")?;
    let ds = bufs.tensor(op, out_arg, "diff_src")?;
    let ds1 = if op.add_relu() {
        Some(bufs.tensor(op, DNNL_ARG_DIFF_SRC_1, "diff_src_1")?)
    } else {
        None
    };
    let ws = match bufs.get(DNNL_ARG_WORKSPACE) {
        Some((_, b, l)) => Some(Raw::of(b, l, "workspace")?),
        None => None,
    };
    let mean_v = bufs.vector(DNNL_ARG_MEAN, "mean")?;
    let var_v = bufs.vector(DNNL_ARG_VARIANCE, "variance")?;
    let Some(var_v) = var_v else {
        return Err(crate::core::error::Error::runtime(
            "backward without variance",
        ));
    };
    let rms = op.rms();
    let scale = bufs.vector(DNNL_ARG_SCALE, "scale")?;
    let dscale = bufs.vector(DNNL_ARG_DIFF_SCALE, "diff_scale")?;
    let dshift = bufs.vector(DNNL_ARG_DIFF_SHIFT, "diff_shift")?;
    let mean: Vec<f32> = match (&mean_v, rms) {
        (Some(mv), false) => (0..g.stats()).map(|s| mv.load(s)).collect(),
        _ => vec![0.0; g.stats() as usize],
    };
    let inv: Vec<f32> = (0..g.stats())
        .map(|s| 1.0 / (var_v.load(s) + op.epsilon()).sqrt())
        .collect();
    let gamma: Vec<f32> = (0..g.c)
        .map(|c| scale.as_ref().map_or(1.0, |v| v.load(c)))
        .collect();
    let sp_len = g.sp as usize;
    // The run of (n, c): diff_dst masked by the workspace, and xhat.
    let runs = |n: i64, c: i64, d: &mut [f32], x: &mut [f32]| {
        dd.gather(n, c, d);
        if let Some(w) = &ws {
            let base = (n * g.c + c) * g.sp;
            for (sp, v) in d.iter_mut().enumerate() {
                if w.load(base + sp as i64) == 0.0 {
                    *v = 0.0;
                }
            }
        }
        let s = g.stat(n, c) as usize;
        src.gather(n, c, x);
        for v in x.iter_mut() {
            *v = (*v - mean[s]) * inv[s];
        }
    };
    let global = op.global_stats();
    if rows_shape(&g) {
        return backward_rows(
            op,
            &g,
            &RowsBwd {
                src: &src,
                dd: &dd,
                ds: &ds,
                mean: &mean,
                inv: &inv,
                gamma: &gamma,
                dscale: dscale.as_ref(),
                dshift: dshift.as_ref(),
            },
        );
    }
    let batch = !g.per_n;
    // Per-channel sums (diff_shift, diff_scale).
    let need_chan = dscale.is_some() || dshift.is_some() || (batch && !global);
    let chan: Vec<(f64, f64)> = if need_chan {
        map_par(g.c, g.n * g.sp, |c| {
            let (mut d, mut x) = (vec![0f32; sp_len], vec![0f32; sp_len]);
            let (mut db, mut dg) = (0f64, 0f64);
            for n in 0..g.n {
                runs(n, c, &mut d, &mut x);
                for (&dv, &xv) in d.iter().zip(&x) {
                    db += f64::from(dv);
                    dg += f64::from(dv) * f64::from(xv);
                }
            }
            (db, dg)
        })
    } else {
        Vec::new()
    };
    for c in 0..g.c {
        if let Some(v) = &dshift {
            v.store(c, chan[c as usize].0 as f32);
        }
        if let Some(v) = &dscale {
            v.store(c, chan[c as usize].1 as f32);
        }
    }
    // Per-stat sums A (scale * dd) and B (scale * dd * xhat).
    let m = g.per_stat();
    let stat_sums: Vec<(f64, f64)> = if global {
        Vec::new()
    } else if batch {
        chan.iter()
            .zip(&gamma)
            .map(|(&(db, dg), &gm)| (db * f64::from(gm), dg * f64::from(gm)))
            .collect()
    } else {
        map_par(g.stats(), m, |s| {
            let (mut d, mut x) = (vec![0f32; sp_len], vec![0f32; sp_len]);
            let (mut a, mut b) = (0f64, 0f64);
            for (n, c) in stat_pairs(&g, s) {
                runs(n, c, &mut d, &mut x);
                let gm = f64::from(gamma[c as usize]);
                for (&dv, &xv) in d.iter().zip(&x) {
                    a += f64::from(dv) * gm;
                    b += f64::from(dv) * gm * f64::from(xv);
                }
            }
            (a, b)
        })
    };
    let inv_m = 1.0 / m as f64;
    for_par(g.n * g.c, g.sp, |nc| {
        let (n, c) = (nc / g.c, nc % g.c);
        let s = g.stat(n, c) as usize;
        let gm = gamma[c as usize];
        let (mut d, mut x) = (vec![0f32; sp_len], vec![0f32; sp_len]);
        runs(n, c, &mut d, &mut x);
        if let Some(t) = &ds1 {
            t.scatter(n, c, &d);
        }
        if global {
            for v in d.iter_mut() {
                *v *= gm * inv[s];
            }
        } else {
            let (a, b) = stat_sums[s];
            let (a, b) = ((a * inv_m) as f32, (b * inv_m) as f32);
            for (v, &xv) in d.iter_mut().zip(&x) {
                *v = (gm * *v - a - xv * b) * inv[s];
            }
        }
        ds.scatter(n, c, &d);
    });
    Ok(())
}

/// What the rows path of backward reads and writes.
struct RowsBwd<'a> {
    src: &'a Tensor,
    dd: &'a Tensor,
    ds: &'a Tensor,
    mean: &'a [f32],
    inv: &'a [f32],
    gamma: &'a [f32],
    dscale: Option<&'a Vector>,
    dshift: Option<&'a Vector>,
}

/// Backward of a layer-norm shape, a row at a time: the per-row sums, then
/// diff_src; diff_scale and diff_shift summed over rows per thread, then
/// added up.
fn backward_rows(op: &NormOp, g: &Geometry, t: &RowsBwd) -> Result<()> {
    let c_len = g.c as usize;
    let global = op.global_stats();
    let chans = t.dscale.is_some() || t.dshift.is_some();
    let parts = ranges(g.n, g.c);
    let mut partials: Vec<(Vec<f64>, Vec<f64>)> = vec![Default::default(); parts.len()];
    let items: Vec<_> = parts.into_iter().zip(partials.iter_mut()).collect();
    parallel::run_all(items, |(range, (db, dg))| {
        if chans {
            *db = vec![0f64; c_len];
            *dg = vec![0f64; c_len];
        }
        let (mut d, mut x) = (vec![0f32; c_len], vec![0f32; c_len]);
        for n in range {
            let n = n as i64;
            let s = n as usize;
            gather_row(t.dd, n, &mut d);
            gather_row(t.src, n, &mut x);
            for v in x.iter_mut() {
                *v = (*v - t.mean[s]) * t.inv[s];
            }
            if chans {
                for c in 0..c_len {
                    db[c] += f64::from(d[c]);
                    dg[c] += f64::from(d[c]) * f64::from(x[c]);
                }
            }
            if global {
                for (v, &gm) in d.iter_mut().zip(t.gamma) {
                    *v *= gm * t.inv[s];
                }
            } else {
                let (mut a, mut b) = (0f64, 0f64);
                for c in 0..c_len {
                    let gd = f64::from(d[c]) * f64::from(t.gamma[c]);
                    a += gd;
                    b += gd * f64::from(x[c]);
                }
                let m = g.c as f64;
                let (a, b) = ((a / m) as f32, (b / m) as f32);
                for c in 0..c_len {
                    d[c] = (t.gamma[c] * d[c] - a - x[c] * b) * t.inv[s];
                }
            }
            scatter_row(t.ds, n, &d);
        }
    });
    if chans {
        for c in 0..c_len {
            let db: f64 = partials.iter().map(|p| p.0[c]).sum();
            let dg: f64 = partials.iter().map(|p| p.1[c]).sum();
            if let Some(v) = t.dshift {
                v.store(c as i64, db as f32);
            }
            if let Some(v) = t.dscale {
                v.store(c as i64, dg as f32);
            }
        }
    }
    Ok(())
}
