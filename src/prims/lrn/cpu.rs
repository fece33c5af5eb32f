//! LRN on the CPU engine. Forward across channels over layouts whose
//! spatial dimensions form one run (nchw-like: stride 1; channels-last:
//! channel stride 1) goes a block at a time: the threads take pieces
//! (image, span of spatial positions), load every channel of the piece once
//! into f32 buffers with their squares, and sum the window's rows. Otherwise
//! the elements (row-major) are split over the host's threads, each summing
//! its window. Backward takes two passes: the first
//! stores, per element, `omega^-beta` and `diff_dst * src * omega^(-beta-1)`
//! in host buffers (dense, row-major), the second sums the latter over
//! each element's window.
//!
//! Layer: prims.

use std::sync::Arc;

use super::LrnOp;
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::host::{self, Raw};
use crate::prims::common::layout::Layout;
use crate::prims::common::parallel;

/// Builds the implementation for `op`.
pub(super) fn create(op: &Arc<LrnOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuLrn { op: op.clone() }))
}

struct CpuLrn {
    op: Arc<LrnOp>,
}

/// The window of an element: its position, the tensor's dimensions, the
/// reach on each side, and whether it runs across channels.
struct Window<'a> {
    dims: &'a [i64],
    half: Option<i64>,
    across: bool,
}

impl Window<'_> {
    /// Calls `f(offset)` for every element of the window of `pos`, with
    /// offsets from `base` (the offset of `pos`) by `strides`.
    fn each(&self, pos: &[i64], strides: &[i64], base: i64, mut f: impl FnMut(i64)) {
        let Some(h) = self.half else { return };
        let dims = self.dims;
        if self.across {
            let (lo, hi) = ((pos[1] - h).max(0), (pos[1] + h).min(dims[1] - 1));
            for c in lo..=hi {
                f(base + (c - pos[1]) * strides[1]);
            }
            return;
        }
        // The box: an odometer over the spatial dimensions, each from its
        // clipped low to its clipped high delta.
        let n = dims.len();
        let mut lo = [0i64; MAX_NDIMS];
        let mut hi = [0i64; MAX_NDIMS];
        for d in 2..n {
            lo[d] = (pos[d] - h).max(0) - pos[d];
            hi[d] = (pos[d] + h).min(dims[d] - 1) - pos[d];
        }
        let mut delta = lo;
        let mut off = base + (2..n).map(|d| lo[d] * strides[d]).sum::<i64>();
        loop {
            f(off);
            let mut d = n;
            loop {
                if d == 2 {
                    return;
                }
                d -= 1;
                if delta[d] < hi[d] {
                    delta[d] += 1;
                    off += strides[d];
                    break;
                }
                off -= (delta[d] - lo[d]) * strides[d];
                delta[d] = lo[d];
            }
        }
    }
}

/// The position of row-major element `i` of `dims`.
fn position(dims: &[i64], mut i: i64, pos: &mut [i64; MAX_NDIMS]) {
    for d in (0..dims.len()).rev() {
        pos[d] = i % dims[d];
        i /= dims[d];
    }
}

/// Whether two tensors share bytes.
fn overlaps(a: &(Raw, &Layout), b: &(Raw, &Layout)) -> bool {
    let (ab, ae) = a.1.byte_range();
    let (bb, be) = b.1.byte_range();
    a.0.addr() + ab < b.0.addr() + be && b.0.addr() + bb < a.0.addr() + ae
}

fn offset(pos: &[i64], strides: &[i64], base: i64) -> i64 {
    base + pos.iter().zip(strides).map(|(p, s)| p * s).sum::<i64>()
}

/// The spatial dimensions of `l` (2 ..) merged into one: (elements,
/// stride), the stride 0 when there are no spatial elements but one;
/// `None` when they do not step uniformly.
fn spatial_run(l: &Layout) -> Option<(i64, i64)> {
    let st = l.outer_strides();
    let (mut size, mut stride) = (1i64, 0i64);
    for d in (2..l.ndims).rev() {
        if l.dims[d] == 1 {
            continue;
        }
        if size == 1 {
            stride = st[d];
        } else if st[d] != size * stride {
            return None;
        }
        size *= l.dims[d];
    }
    Some((size, stride))
}

/// `omega^-beta` for each `omega` of `om` (in place); `beta = 0.75` (the
/// common one) through square roots, which vectorise.
fn pow_neg_beta(om: &mut [f32], beta: f32) {
    if beta == 0.75 {
        for v in om.iter_mut() {
            let r = v.sqrt();
            *v = 1.0 / (r * r.sqrt());
        }
    } else {
        for v in om.iter_mut() {
            *v = v.powf(-beta);
        }
    }
}

impl CpuLrn {
    /// Forward across channels, a block of channels by spatial positions
    /// at a time (see the module's comment); `false` when the layouts do
    /// not allow it.
    fn forward_across_blocks(&self, x: Raw, lx: &Layout, y: Raw, ly: &Layout) -> bool {
        let op = &self.op;
        let (Some((sp, ssx)), Some((_, ssy))) = (spatial_run(lx), spatial_run(ly)) else {
            return false;
        };
        let (xs, ys) = (lx.outer_strides(), ly.outer_strides());
        let (nb, c) = (lx.dims[0], lx.dims[1]);
        let cs1 = (c == 1 || (xs[1] == 1 && ys[1] == 1)) && sp > 0;
        let sp1 = sp > 0 && ((ssx == 1 && ssy == 1) || (sp == 1 && !cs1));
        if !cs1 && !sp1 {
            return false;
        }
        let (ad, beta, k) = (op.alpha_div(), op.beta(), op.k());
        let h = op.half();
        // Spatial positions per piece: the block of channels stays within
        // 32 KiB of f32 values (a single position where channels are
        // contiguous and spatial positions not).
        let p = if sp1 { sp.min((8192 / c).max(16)) } else { 1 };
        let pieces = (sp + p - 1) / p;
        let items = (nb * pieces) as usize;
        let per_thread = (16384 / (c * p)).max(1) as usize;
        let ranges = parallel::split(items, per_thread);
        let pu = p as usize;
        parallel::run_all(ranges, |range| {
            let cu = c as usize;
            let mut xb = vec![0f32; cu * pu];
            let mut sq = vec![0f32; cu * pu];
            let mut acc = vec![0f32; pu];
            let mut res = vec![0f32; if sp1 { 0 } else { cu }];
            for item in range {
                let (n, piece) = (item as i64 / pieces, item as i64 % pieces);
                let first = piece * p;
                let len = (sp - first).min(p) as usize;
                let xo = lx.offset0 + n * xs[0] + first * ssx;
                let yo = ly.offset0 + n * ys[0] + first * ssy;
                if sp1 {
                    for ch in 0..cu {
                        let row = &mut xb[ch * pu..ch * pu + len];
                        x.load_run(xo + ch as i64 * xs[1], row);
                    }
                } else {
                    // One position, its channels a run.
                    x.load_run(xo, &mut xb[..cu]);
                }
                for (q, &v) in sq.iter_mut().zip(xb.iter()) {
                    *q = v * v;
                }
                for ch in 0..cu {
                    let acc = &mut acc[..len];
                    acc.fill(0.0);
                    if let Some(h) = h {
                        let lo = (ch as i64 - h).max(0) as usize;
                        let hi = (ch as i64 + h).min(c - 1) as usize;
                        for c2 in lo..=hi {
                            if sp1 {
                                let row = &sq[c2 * pu..c2 * pu + len];
                                for (a, &q) in acc.iter_mut().zip(row) {
                                    *a += q;
                                }
                            } else {
                                acc[0] += sq[c2];
                            }
                        }
                    }
                    for a in acc.iter_mut() {
                        *a = k + ad * *a;
                    }
                    pow_neg_beta(acc, beta);
                    let xr = if sp1 {
                        &xb[ch * pu..ch * pu + len]
                    } else {
                        &xb[ch..ch + 1]
                    };
                    for (a, &v) in acc.iter_mut().zip(xr) {
                        *a *= v;
                    }
                    if sp1 {
                        y.store_run(yo + ch as i64 * ys[1], acc);
                    } else {
                        res[ch] = acc[0];
                    }
                }
                if !sp1 {
                    // The position's channels, a run.
                    y.store_run(yo, &res);
                }
            }
        });
        true
    }
}

impl Implementation for CpuLrn {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let n = op.nelems();
        if n == 0 {
            return Ok(None);
        }
        let mut raws = Vec::new();
        for (arg, layout) in op.layouts() {
            let buffer = Buffer::of(ctx.arg(arg)?)?;
            raws.push((Raw::of(&buffer, layout, "tensor")?, layout));
        }
        let src = op.layout(0);
        let nd = src.ndims;
        let dims = &src.dims[..nd];
        let window = Window {
            dims,
            half: op.half(),
            across: op.across(),
        };
        let (ad, beta, k) = (op.alpha_div(), op.beta(), op.k());
        let (mut x, lx) = raws[0];
        // Forward in place (or overlapping): read src from a copy, since
        // each window reads its neighbours.
        let copy = (!op.is_backward() && overlaps(&raws[0], &raws[1])).then(|| host::copy(&x, lx));
        if let Some(c) = &copy {
            x = Raw::over(c, lx.elem);
        }
        let omega = |pos: &[i64]| {
            let mut sum = 0f32;
            window.each(
                pos,
                lx.outer_strides(),
                offset(pos, lx.outer_strides(), lx.offset0),
                |o| {
                    let v = x.load(o);
                    sum += v * v;
                },
            );
            k + ad * sum
        };
        if !op.is_backward()
            && op.across()
            && self.forward_across_blocks(x, lx, raws[1].0, raws[1].1)
        {
            drop(copy);
            return Ok(None);
        }
        let ranges = parallel::split(n as usize, 4096);
        if !op.is_backward() {
            let (y, ly) = raws[1];
            parallel::run_all(ranges, |range| {
                let mut pos = [0i64; MAX_NDIMS];
                for i in range {
                    position(dims, i as i64, &mut pos);
                    let p = &pos[..nd];
                    let v = x.load(offset(p, lx.outer_strides(), lx.offset0));
                    y.store(
                        offset(p, ly.outer_strides(), ly.offset0),
                        v * omega(p).powf(-beta),
                    );
                }
            });
            drop(copy);
            return Ok(None);
        }
        let ((g, lg), (dx, ldx)) = (raws[1], raws[2]);
        // Pass 1: omega^-beta and diff_dst * src * omega^(-beta - 1).
        let mut scaled = vec![0f32; n as usize];
        let mut t = vec![0f32; n as usize];
        let mut items = Vec::new();
        {
            let (mut s_rest, mut t_rest) = (&mut scaled[..], &mut t[..]);
            for r in ranges.iter().cloned() {
                let (s_here, s_next) = std::mem::take(&mut s_rest).split_at_mut(r.len());
                let (t_here, t_next) = std::mem::take(&mut t_rest).split_at_mut(r.len());
                items.push((r, s_here, t_here));
                s_rest = s_next;
                t_rest = t_next;
            }
        }
        parallel::run_all(items, |(range, s_out, t_out)| {
            let mut pos = [0i64; MAX_NDIMS];
            for (j, i) in range.enumerate() {
                position(dims, i as i64, &mut pos);
                let p = &pos[..nd];
                let om = omega(p);
                let xv = x.load(offset(p, lx.outer_strides(), lx.offset0));
                let gv = g.load(offset(p, lg.outer_strides(), lg.offset0));
                let ob = om.powf(-beta);
                s_out[j] = ob;
                t_out[j] = gv * xv * ob / om;
            }
        });
        // Pass 2: the window sums of t (dense, row-major strides).
        let mut dense = [0i64; MAX_NDIMS];
        let mut s = 1;
        for d in (0..nd).rev() {
            dense[d] = s;
            s *= dims[d];
        }
        let (scaled, t) = (&scaled, &t);
        parallel::run_all(ranges, |range| {
            let mut pos = [0i64; MAX_NDIMS];
            for i in range {
                position(dims, i as i64, &mut pos);
                let p = &pos[..nd];
                let mut sum = 0f32;
                window.each(p, &dense[..nd], i as i64, |o| sum += t[o as usize]);
                let xv = x.load(offset(p, lx.outer_strides(), lx.offset0));
                let gv = g.load(offset(p, lg.outer_strides(), lg.offset0));
                let v = gv * scaled[i] - 2.0 * ad * beta * xv * sum;
                dx.store(offset(p, ldx.outer_strides(), ldx.offset0), v);
            }
        });
        Ok(None)
    }
}
