//! Normalization on the CPU engine: statistics, per-channel and per-stat
//! sums over the host's threads (in f64), then the element-wise pass.
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
}

impl Tensor {
    #[inline]
    fn load(&self, n: i64, c: i64, sp: i64) -> f32 {
        self.raw.load(self.off.at(n, c, sp))
    }
    #[inline]
    fn store(&self, n: i64, c: i64, sp: i64, v: f32) {
        self.raw.store(self.off.at(n, c, sp), v)
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
        for arg in op.inputs.iter().chain(&op.outputs) {
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
        Ok(Tensor {
            raw,
            off: Offsets::new(layout, op),
        })
    }

    fn vector(&self, arg: i32, what: &str) -> Result<Option<Vector>> {
        match self.get(arg) {
            Some((_, buffer, layout)) => Vector::new(buffer, layout, what).map(Some),
            None => Ok(None),
        }
    }
}

/// Mean and variance of every stat, two passes (mean, then the mean
/// square of `x - mean`).
fn statistics(g: &Geometry, src: &Tensor) -> (Vec<f32>, Vec<f32>) {
    let m = g.per_stat();
    let stats = map_par(g.stats(), m, |s| {
        let mut sum = 0f64;
        for r in 0..m {
            let (n, c, sp) = g.stat_elem(s, r);
            sum += f64::from(src.load(n, c, sp));
        }
        let mean = sum / m as f64;
        let mut sq = 0f64;
        for r in 0..m {
            let (n, c, sp) = g.stat_elem(s, r);
            let d = f64::from(src.load(n, c, sp)) - mean;
            sq += d * d;
        }
        (mean as f32, (sq / m as f64) as f32)
    });
    stats.into_iter().unzip()
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
    let (mean, var) = if op.global_stats() {
        let (Some(mv), Some(vv)) = (&mean_v, &var_v) else {
            return Err(crate::core::error::Error::runtime(
                "global statistics without mean or variance",
            ));
        };
        (
            (0..g.stats()).map(|s| mv.load(s)).collect(),
            (0..g.stats()).map(|s| vv.load(s)).collect(),
        )
    } else {
        statistics(&g, &src)
    };
    if op.writes_stats() {
        if let (Some(mv), Some(vv)) = (&mean_v, &var_v) {
            for s in 0..g.stats() {
                mv.store(s, mean[s as usize]);
                vv.store(s, var[s as usize]);
            }
        }
    }
    let inv: Vec<f32> = var
        .iter()
        .map(|v| 1.0 / (v + op.epsilon()).sqrt())
        .collect();
    let relu = op.relu();
    for_par(g.n * g.c, g.sp, |nc| {
        let (n, c) = (nc / g.c, nc % g.c);
        let s = g.stat(n, c) as usize;
        let gamma = scale.as_ref().map_or(1.0, |v| v.load(c));
        let beta = shift.as_ref().map_or(0.0, |v| v.load(c));
        let a = gamma * inv[s];
        let m = mean[s];
        for sp in 0..g.sp {
            let mut y = (src.load(n, c, sp) - m) * a + beta;
            if let Some(t) = &add {
                y += t.load(n, c, sp);
            }
            if let Some(alpha) = relu {
                let pass = y > 0.0;
                if let Some(w) = &ws {
                    w.store(nc * g.sp + sp, if pass { 1.0 } else { 0.0 });
                }
                if !pass {
                    y *= alpha;
                }
            }
            dst.store(n, c, sp, y * out_scale);
        }
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
    let (Some(mean_v), Some(var_v)) = (mean_v, var_v) else {
        return Err(crate::core::error::Error::runtime(
            "backward without mean or variance",
        ));
    };
    let scale = bufs.vector(DNNL_ARG_SCALE, "scale")?;
    let dscale = bufs.vector(DNNL_ARG_DIFF_SCALE, "diff_scale")?;
    let dshift = bufs.vector(DNNL_ARG_DIFF_SHIFT, "diff_shift")?;
    let mean: Vec<f32> = (0..g.stats()).map(|s| mean_v.load(s)).collect();
    let inv: Vec<f32> = (0..g.stats())
        .map(|s| 1.0 / (var_v.load(s) + op.epsilon()).sqrt())
        .collect();
    let gamma: Vec<f32> = (0..g.c)
        .map(|c| scale.as_ref().map_or(1.0, |v| v.load(c)))
        .collect();
    // diff_dst masked by the workspace.
    let ddm = |n: i64, c: i64, sp: i64| -> f32 {
        let d = dd.load(n, c, sp);
        match &ws {
            Some(w) if w.load((n * g.c + c) * g.sp + sp) == 0.0 => 0.0,
            _ => d,
        }
    };
    let xhat = |n: i64, c: i64, sp: i64| -> f32 {
        let s = g.stat(n, c) as usize;
        (src.load(n, c, sp) - mean[s]) * inv[s]
    };
    let global = op.global_stats();
    let batch = !g.per_n;
    // Per-channel sums (diff_shift, diff_scale).
    let need_chan = dscale.is_some() || dshift.is_some() || (batch && !global);
    let chan: Vec<(f64, f64)> = if need_chan {
        map_par(g.c, g.n * g.sp, |c| {
            let (mut db, mut dg) = (0f64, 0f64);
            for n in 0..g.n {
                for sp in 0..g.sp {
                    let d = f64::from(ddm(n, c, sp));
                    db += d;
                    dg += d * f64::from(xhat(n, c, sp));
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
            let (mut a, mut b) = (0f64, 0f64);
            for r in 0..m {
                let (n, c, sp) = g.stat_elem(s, r);
                let d = f64::from(ddm(n, c, sp)) * f64::from(gamma[c as usize]);
                a += d;
                b += d * f64::from(xhat(n, c, sp));
            }
            (a, b)
        })
    };
    let inv_m = 1.0 / m as f64;
    for_par(g.n * g.c, g.sp, |nc| {
        let (n, c) = (nc / g.c, nc % g.c);
        let s = g.stat(n, c) as usize;
        let gm = gamma[c as usize];
        for sp in 0..g.sp {
            let d = ddm(n, c, sp);
            if let Some(t) = &ds1 {
                t.store(n, c, sp, d);
            }
            let v = if global {
                d * gm * inv[s]
            } else {
                let (a, b) = stat_sums[s];
                let x = f64::from(xhat(n, c, sp));
                ((f64::from(gm * d) - a * inv_m - x * b * inv_m) * f64::from(inv[s])) as f32
            };
            ds.store(n, c, sp, v);
        }
    });
    Ok(())
}
