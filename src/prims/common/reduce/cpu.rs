//! Reductions on the CPU engine.
//!
//! Layer: prims. When the innermost kept dimensions form a run of stride 1
//! in both tensors (a reduction over outer or middle axes), the outputs go
//! a piece of that run at a time: each reduced element's run is loaded and
//! folded into a per-thread row of accumulators (elementwise, vectorised),
//! then finished and stored as a run. Otherwise outputs are split over the
//! host's threads; when there are fewer outputs than threads, each output's
//! reduction is split instead and the partial accumulators combined. An
//! output reads its elements with an odometer over the reduced dimensions,
//! the innermost (smallest stride) as a run: one `load_run` when its stride
//! is 1.

use super::{Alg, Idle, Plan, Reduce};
use crate::core::error::Result;
use crate::core::memory_desc::MAX_NDIMS;
use crate::prims::common::host::Raw;
use crate::prims::common::parallel;
use crate::prims::common::post_ops::HostPostOps;

/// Elements loaded per run.
const CHUNK: usize = 256;

/// `acc` with the elements of `v` accumulated (8 lanes where the algorithm
/// allows, so the loops vectorise).
pub(crate) fn fold(alg: Alg, p: f32, acc: f32, v: &[f32]) -> f32 {
    /// `step` over the lanes, which are then combined with `alg`.
    fn lanes(alg: Alg, v: &[f32], step: impl Fn(f32, f32) -> f32) -> f32 {
        let init = alg.init();
        let mut m = [init; 8];
        let mut chunks = v.chunks_exact(8);
        for c in &mut chunks {
            for k in 0..8 {
                m[k] = step(m[k], c[k]);
            }
        }
        let tail = chunks.remainder().iter().fold(init, |a, &x| step(a, x));
        m.iter().fold(tail, |a, &x| alg.combine(a, x))
    }
    let part = match alg {
        Alg::Max => lanes(alg, v, |a, x| if x > a { x } else { a }),
        Alg::Min => lanes(alg, v, |a, x| if x < a { x } else { a }),
        Alg::Sum | Alg::Mean => lanes(alg, v, |a, x| a + x),
        Alg::Mul => lanes(alg, v, |a, x| a * x),
        _ if p == 1.0 => lanes(alg, v, |a, x| a + x.abs()),
        _ if p == 2.0 => lanes(alg, v, |a, x| a + x * x),
        _ => v.iter().fold(0.0, |a, &x| a + x.abs().powf(p)),
    };
    alg.combine(acc, part)
}

/// Each `acc[k]` with `v[k]` accumulated (the step of [`fold`], per lane).
fn fold_rows(alg: Alg, p: f32, acc: &mut [f32], v: &[f32]) {
    fn each(acc: &mut [f32], v: &[f32], step: impl Fn(f32, f32) -> f32) {
        for (a, &x) in acc.iter_mut().zip(v) {
            *a = step(*a, x);
        }
    }
    match alg {
        Alg::Max => each(acc, v, |a, x| if x > a { x } else { a }),
        Alg::Min => each(acc, v, |a, x| if x < a { x } else { a }),
        Alg::Sum | Alg::Mean => each(acc, v, |a, x| a + x),
        Alg::Mul => each(acc, v, |a, x| a * x),
        _ if p == 1.0 => each(acc, v, |a, x| a + x.abs()),
        _ if p == 2.0 => each(acc, v, |a, x| a + x * x),
        _ => each(acc, v, |a, x| a + x.abs().powf(p)),
    }
}

/// Outputs per piece of the row path.
const PIECE: usize = 1024;

/// The kept dimensions' split for the row path: the outer ones and the
/// length of the innermost run (stride 1 in src and dst), when that run
/// is at least `min` long.
fn inner_run(plan: &Plan, min: i64) -> Option<(&[Idle], i64)> {
    let mut k = plan.idle.len();
    let mut len = 1i64;
    while k > 0 {
        let d = &plan.idle[k - 1];
        if d.src_stride != len || d.dst_stride != len {
            break;
        }
        len *= d.size;
        k -= 1;
    }
    (len >= min).then_some((&plan.idle[..k], len))
}

/// The row path (see the module's comment); `false` when the layouts do
/// not allow it or the outputs are too few to share among the threads.
fn run_rows(op: &Reduce, src: &Raw, dst: &Raw, post: &HostPostOps, sum: Option<Raw>) -> bool {
    let plan = op.plan();
    let Some((outer, len)) = inner_run(plan, 16) else {
        return false;
    };
    let (ls, ld) = (op.src_layout(), op.dst_layout());
    let rows: i64 = outer.iter().map(|d| d.size).product();
    let piece = (len as usize).min(PIECE);
    let pieces = (len + piece as i64 - 1) / piece as i64;
    let items = (rows * pieces) as usize;
    if items < parallel::max_threads() && plan.r >= 1 << 14 {
        return false;
    }
    let (alg, p, eps) = (op.alg(), op.p(), op.eps());
    let with_post = !op.post_ops().is_empty();
    let ndims = ld.ndims;
    // The kept dimensions of the run, innermost last, for post-op positions.
    let run_dims = &plan.idle[outer.len()..];
    let per_thread = (1usize << 14).div_ceil(piece * plan.r.max(1) as usize);
    let ranges = parallel::split(items, per_thread);
    parallel::run_all(ranges, |range| {
        let mut acc = vec![0f32; piece];
        let mut buf = vec![0f32; piece];
        let mut pos = [0i64; MAX_NDIMS];
        let mut red_pos = vec![0i64; plan.red.len()];
        for item in range {
            let item = item as i64;
            let (mut row, k) = (item / pieces, item % pieces);
            let first = k * piece as i64;
            let n = ((len - first) as usize).min(piece);
            let (mut s, mut d) = (ls.offset0 + first, ld.offset0 + first);
            for idle in outer.iter().rev() {
                let i = row % idle.size;
                row /= idle.size;
                pos[idle.dim] = i;
                s += i * idle.src_stride;
                d += i * idle.dst_stride;
            }
            let acc = &mut acc[..n];
            let buf = &mut buf[..n];
            acc.fill(alg.init());
            // The odometer over the reduced dimensions.
            red_pos.fill(0);
            let mut off = s;
            for _ in 0..plan.r {
                src.load_run(off, buf);
                fold_rows(alg, p, acc, buf);
                for (j, &(size, stride)) in plan.red.iter().enumerate().rev() {
                    red_pos[j] += 1;
                    off += stride;
                    if red_pos[j] < size {
                        break;
                    }
                    off -= size * stride;
                    red_pos[j] = 0;
                }
            }
            for (t, a) in acc.iter_mut().enumerate() {
                *a = alg.finish(*a, p, eps, plan.r);
                if with_post {
                    let mut q = first + t as i64;
                    for idle in run_dims.iter().rev() {
                        pos[idle.dim] = q % idle.size;
                        q /= idle.size;
                    }
                    let old = sum.map_or(0.0, |s| s.load(d + t as i64));
                    *a = post.apply(*a, old, &pos[..ndims]);
                }
            }
            dst.store_run(d, acc);
        }
    });
    true
}

/// The accumulator of the elements `r0..r1` of the reduction from `base`.
fn accumulate(op: &Reduce, src: &Raw, base: i64, r0: i64, r1: i64, buf: &mut [f32]) -> f32 {
    let plan = op.plan();
    let (alg, p) = (op.alg(), op.p());
    let mut acc = alg.init();
    if r0 >= r1 {
        return acc;
    }
    let Some(&(inner, inner_stride)) = plan.red.last() else {
        // Nothing reduced (a zero-size tensor only): one element.
        return fold(alg, p, acc, &[src.load(base)]);
    };
    let outer = &plan.red[..plan.red.len() - 1];
    let mut r = r0;
    while r < r1 {
        // The odometer's position of r: the outer reduced dimensions.
        let mut off = base;
        let mut q = r / inner;
        for &(size, stride) in outer.iter().rev() {
            off += q % size * stride;
            q /= size;
        }
        let i0 = r % inner;
        let i1 = inner.min(i0 + (r1 - r));
        let mut i = i0;
        while i < i1 {
            let n = ((i1 - i) as usize).min(buf.len());
            let run = &mut buf[..n];
            if inner_stride == 1 {
                src.load_run(off + i, run);
            } else {
                for (k, x) in run.iter_mut().enumerate() {
                    *x = src.load(off + (i + k as i64) * inner_stride);
                }
            }
            acc = fold(alg, p, acc, run);
            i += n as i64;
        }
        r += i1 - i0;
    }
    acc
}

/// Output `o`'s offsets (src base, dst) and logical dst position.
fn output_at(plan: &Plan, o: i64, pos: &mut [i64; MAX_NDIMS]) -> (i64, i64) {
    let (mut s, mut d) = (0, 0);
    let mut q = o;
    for idle in plan.idle.iter().rev() {
        let i = q % idle.size;
        q /= idle.size;
        pos[idle.dim] = i;
        s += i * idle.src_stride;
        d += i * idle.dst_stride;
    }
    (s, d)
}

/// Runs `op` from `src` (`None`: no elements) into `dst`, applying `post`.
pub(crate) fn run(op: &Reduce, src: Option<Raw>, dst: Raw, post: &HostPostOps) -> Result<()> {
    let (ls, ld) = (op.src_layout(), op.dst_layout());
    if ld.nelems() == 0 {
        return Ok(());
    }
    let plan = op.plan();
    let sum = op.post_ops().sum_elem(ld.elem).map(|e| dst.with_elem(e));
    let (alg, p, eps) = (op.alg(), op.p(), op.eps());
    let ndims = ld.ndims;
    let finish = |acc: f32, o: i64| {
        let mut pos = [0i64; MAX_NDIMS];
        let (_, d) = output_at(plan, o, &mut pos);
        let off = ld.offset0 + d;
        let v = alg.finish(acc, p, eps, plan.r);
        let old = sum.map_or(0.0, |s| s.load(off));
        dst.store(off, post.apply(v, old, &pos[..ndims]));
    };
    let threads = parallel::max_threads() as i64;
    let Some(src) = src else {
        // Nothing to reduce: every output is the finished start value.
        for o in 0..plan.outputs {
            finish(alg.init(), o);
        }
        return Ok(());
    };
    if run_rows(op, &src, &dst, post, sum) {
        return Ok(());
    }
    if plan.outputs >= threads || plan.r < 1 << 14 {
        let per_thread = (1usize << 14).div_ceil(plan.r.max(1) as usize);
        let ranges = parallel::split(plan.outputs as usize, per_thread);
        parallel::run_all(ranges, |range| {
            let mut buf = [0f32; CHUNK];
            let mut pos = [0i64; MAX_NDIMS];
            for o in range {
                let (s, _) = output_at(plan, o as i64, &mut pos);
                let acc = accumulate(op, &src, ls.offset0 + s, 0, plan.r, &mut buf);
                finish(acc, o as i64);
            }
        });
        return Ok(());
    }
    // Few outputs: each one's reduction is split over the threads.
    for o in 0..plan.outputs {
        let mut pos = [0i64; MAX_NDIMS];
        let (s, _) = output_at(plan, o, &mut pos);
        let ranges = parallel::split(plan.r as usize, 1 << 14);
        let parts = std::sync::Mutex::new(Vec::new());
        parallel::run_all(ranges, |range| {
            let mut buf = [0f32; CHUNK];
            let acc = accumulate(
                op,
                &src,
                ls.offset0 + s,
                range.start as i64,
                range.end as i64,
                &mut buf,
            );
            if let Ok(mut parts) = parts.lock() {
                parts.push(acc);
            }
        });
        let parts = parts.into_inner()?;
        let acc = parts.iter().fold(alg.init(), |a, &b| alg.combine(a, b));
        finish(acc, o);
    }
    Ok(())
}
