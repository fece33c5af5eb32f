//! Eltwise on the CPU engine: two kernels over the `f32` formulas of
//! `prims::common::eltwise_alg`, the transcendental ones (exp, log, tanh,
//! elu, logistic, swish, the gelus; forward and backward) vectorised through
//! `prims::common::vmath` on the ISA level fixed at primitive creation.
//!
//! Layer: prims. Safe Rust over byte slices of the arguments' buffers (the
//! only `unsafe` is making those slices, in `common::buffers`). Work is split
//! over the host's threads: the dense kernel splits the flat arrays, the
//! strided one splits the output's walk in memory order, so each thread owns
//! a disjoint slice of the output. Elements go through blocks of `f32`: load
//! (converting), compute (one tight loop per algorithm), store (converting).
//!
//! In-place execution: an input that is the output's very buffer with the
//! same layout is read from the output slice itself, element by element
//! before it is written; an input that overlaps the output any other way is
//! copied first.

use std::sync::Arc;

use super::{Alg, Direction, EltwiseOp};
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt;
use crate::prims::common::eltwise_alg::{bwd, fwd};
use crate::prims::common::layout::{Layout, Walker};
use crate::prims::common::parallel;
use crate::prims::common::post_ops::HostPostOps;
use crate::prims::common::vmath::{self, Func, Level};

// ---------------------------------------------------------------------------
// The block loops over the formulas of `prims::common::eltwise_alg`.

/// Applies `f` to every value (a tight loop the compiler specialises per `f`).
fn map(values: &mut [f32], f: impl Fn(f32) -> f32) {
    for v in values {
        *v = f(*v);
    }
}

/// Applies `f(dd, x)` to every pair, leaving the results in `dd`.
fn map2(dd: &mut [f32], x: &[f32], f: impl Fn(f32, f32) -> f32) {
    for (d, &s) in dd.iter_mut().zip(x) {
        *d = f(*d, s);
    }
}

/// The forward function over a block: the transcendental ones through
/// `vmath` on the `level` path, the others one loop per algorithm.
fn fwd_block(level: Level, alg: Alg, a: f32, b: f32, v: &mut [f32]) {
    match alg.forward_base() {
        Alg::Relu => vmath::map(level, Func::Relu(a), v),
        Alg::Tanh => vmath::map(level, Func::Tanh, v),
        Alg::Elu => vmath::map(level, Func::Elu(a), v),
        Alg::Square => map(v, |s| fwd(Alg::Square, a, b, s)),
        Alg::Abs => map(v, |s| fwd(Alg::Abs, a, b, s)),
        Alg::Sqrt => map(v, |s| fwd(Alg::Sqrt, a, b, s)),
        Alg::Linear => map(v, |s| fwd(Alg::Linear, a, b, s)),
        Alg::Exp => vmath::map(level, Func::Exp, v),
        Alg::Log => vmath::map(level, Func::Log, v),
        Alg::Logistic => vmath::map(level, Func::Logistic, v),
        Alg::Swish => vmath::map(level, Func::Swish(a), v),
        Alg::GeluTanh => vmath::map(level, Func::GeluTanh, v),
        Alg::GeluErf => vmath::map(level, Func::GeluErf, v),
        Alg::Clip | Alg::ClipV2 => map(v, |s| fwd(Alg::Clip, a, b, s)),
        other => map(v, |s| fwd(other, a, b, s)),
    }
}

/// 1 / sqrt(2 pi).
const INV_SQRT_2PI: f32 = 0.398_942_3;
const SQRT_2_OVER_PI: f32 = 0.797_884_6;
const GELU_TANH_C: f32 = 0.044_715;

/// `t[i] = f(x[i])` through `vmath`.
fn vfill(level: Level, t: &mut [f32], x: &[f32], pre: impl Fn(f32) -> f32, f: Func) {
    for (t, &x) in t.iter_mut().zip(x) {
        *t = pre(x);
    }
    vmath::map(level, f, t);
}

/// The backward function over a block: `dd` becomes the source gradient.
/// The transcendental parts go through `vmath` into `t` and `u` (scratch of
/// the block's length), then one loop combines them as `bwd` does.
fn bwd_block(
    level: Level,
    alg: Alg,
    a: f32,
    b: f32,
    dd: &mut [f32],
    x: &[f32],
    [t, u]: [&mut [f32]; 2],
) {
    let t = &mut t[..dd.len()];
    let u = &mut u[..dd.len()];
    match alg {
        Alg::Relu | Alg::ReluDst => map2(dd, x, |d, s| bwd(Alg::Relu, a, b, d, s)),
        Alg::Linear => map2(dd, x, |d, s| bwd(Alg::Linear, a, b, d, s)),
        Alg::Tanh => {
            vfill(level, t, x, |s| s, Func::Tanh);
            map2(dd, t, |d, t| d * (1.0 - t * t));
        }
        Alg::TanhDst => map2(dd, x, |d, s| bwd(Alg::TanhDst, a, b, d, s)),
        Alg::LogisticDst => map2(dd, x, |d, s| bwd(Alg::LogisticDst, a, b, d, s)),
        Alg::Logistic => {
            vfill(level, t, x, |s| s, Func::Logistic);
            map2(dd, t, |d, v| d * v * (1.0 - v));
        }
        Alg::Exp => {
            vfill(level, t, x, |s| s, Func::Exp);
            map2(dd, t, |d, e| d * e);
        }
        Alg::Elu => {
            vfill(level, t, x, |s| s, Func::Exp);
            for ((d, &s), &e) in dd.iter_mut().zip(x).zip(t.iter()) {
                *d = if s > 0.0 { *d } else { *d * a * e };
            }
        }
        Alg::SoftRelu => {
            vfill(level, t, x, |s| a * s, Func::Logistic);
            map2(dd, t, |d, v| d * v);
        }
        Alg::Swish => {
            vfill(level, t, x, |s| a * s, Func::Logistic);
            for ((d, &s), &v) in dd.iter_mut().zip(x).zip(t.iter()) {
                *d *= v + a * s * v * (1.0 - v);
            }
        }
        Alg::GeluTanh => {
            // 0.5 (1 + tanh(g)) (1 + x (1 - tanh(g)) g'), with
            // 1 + tanh(g) = 2 logistic(2g) and 1 - tanh(g) = 2 logistic(-2g).
            let g = |s: f32| SQRT_2_OVER_PI * s * (1.0 + GELU_TANH_C * s * s);
            vfill(level, t, x, |s| 2.0 * g(s), Func::Logistic);
            vfill(level, u, x, |s| -2.0 * g(s), Func::Logistic);
            for (((d, &s), &p), &q) in dd.iter_mut().zip(x).zip(t.iter()).zip(u.iter()) {
                let dg = SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_TANH_C * s * s);
                *d *= p * (1.0 + 2.0 * s * q * dg);
            }
        }
        Alg::GeluErf => {
            vfill(
                level,
                t,
                x,
                |s| -s * std::f32::consts::FRAC_1_SQRT_2,
                Func::Erfc,
            );
            vfill(level, u, x, |s| -0.5 * s * s, Func::Exp);
            for (((d, &s), &c), &e) in dd.iter_mut().zip(x).zip(t.iter()).zip(u.iter()) {
                *d *= 0.5 * c + s * INV_SQRT_2PI * e;
            }
        }
        other => map2(dd, x, |d, s| bwd(other, a, b, d, s)),
    }
}

// ---------------------------------------------------------------------------
// Kernels.

/// Elements per block of the conversion/compute loops.
const BLOCK: usize = 1024;
/// The fewest elements worth a thread of their own.
const MIN_PER_THREAD: usize = 1 << 15;

/// Where an input's values come from.
#[derive(Clone, Copy)]
enum Input<'a> {
    /// Its own bytes, starting at the layout's `offset0`.
    Bytes(&'a [u8]),
    /// The output itself (same buffer, same layout: in-place).
    Output,
}

/// What one execution computes with.
struct Work<'a> {
    /// The `vmath` path.
    level: Level,
    alg: Alg,
    alpha: f32,
    beta: f32,
    backward: bool,
    /// Input 0 (source or data) and input 1 (diff_dst, backward only).
    inputs: [(Input<'a>, &'a Layout); 2],
    out: &'a Layout,
    /// Forward post-ops, with the type the sum reads the output as.
    post: Option<(HostPostOps<'a>, Option<dt::Elem>)>,
}

impl Work<'_> {
    /// Computes a block: `a` holds input 0 and `b` input 1 (backward); the
    /// result is left in `a`.
    fn compute(&self, a: &mut [f32], b: &mut [f32], scratch: [&mut [f32]; 2]) {
        if self.backward {
            bwd_block(self.level, self.alg, self.alpha, self.beta, b, a, scratch);
            a.copy_from_slice(b);
        } else {
            fwd_block(self.level, self.alg, self.alpha, self.beta, a);
        }
    }

    fn num_inputs(&self) -> usize {
        if self.backward { 2 } else { 1 }
    }

    /// The `vmath` function that computes this forward algorithm alone.
    fn vmath_forward(&self) -> Option<Func> {
        if self.backward {
            return None;
        }
        Some(match self.alg.forward_base() {
            Alg::Relu => Func::Relu(self.alpha),
            Alg::Tanh => Func::Tanh,
            Alg::Elu => Func::Elu(self.alpha),
            Alg::Exp => Func::Exp,
            Alg::Log => Func::Log,
            Alg::Logistic => Func::Logistic,
            Alg::Swish => Func::Swish(self.alpha),
            Alg::GeluTanh => Func::GeluTanh,
            Alg::GeluErf => Func::GeluErf,
            _ => return None,
        })
    }

    /// f32 in and out, forward, one `vmath` function: straight from the
    /// source slice into the output's, with no copies through blocks.
    /// False (nothing done) when that does not apply.
    fn dense_f32(&self, range: &std::ops::Range<usize>, out: &mut [u8]) -> bool {
        let Some(f) = self.vmath_forward() else {
            return false;
        };
        let (input, layout) = self.inputs[0];
        if self.out.elem != dt::Elem::F32 || layout.elem != dt::Elem::F32 {
            return false;
        }
        // SAFETY: every bit pattern is an f32; `align_to_mut` returns an
        // empty prefix and suffix only when the bytes are f32-aligned.
        let (pre, dst, post) = unsafe { out.align_to_mut::<f32>() };
        if !pre.is_empty() || !post.is_empty() {
            return false;
        }
        match input {
            Input::Output => vmath::map(self.level, f, dst),
            Input::Bytes(bytes) => {
                let bytes = &bytes[range.start * 4..range.end * 4];
                // SAFETY: as above, for the source's bytes.
                let (pre, src, post) = unsafe { bytes.align_to::<f32>() };
                if !pre.is_empty() || !post.is_empty() {
                    return false;
                }
                // Outputs far beyond the caches go to memory with streaming
                // stores (no read of the lines they replace).
                if vmath::streams(self.level, self.out.padded_nelems() as usize * 4) {
                    let fence = vmath::StreamFence::new();
                    vmath::map_into_streaming(self.level, f, src, dst, &fence);
                } else {
                    vmath::map_into(self.level, f, src, dst);
                }
            }
        }
        true
    }

    /// Elements `range` of flat arrays; `out` holds exactly those elements.
    fn dense(&self, range: std::ops::Range<usize>, out: &mut [u8]) {
        if self.dense_f32(&range, out) {
            return;
        }
        let mut a = [0f32; BLOCK];
        let mut b = [0f32; BLOCK];
        let mut t = [0f32; BLOCK];
        let mut u = [0f32; BLOCK];
        let mut start = range.start;
        while start < range.end {
            let n = BLOCK.min(range.end - start);
            let local = start - range.start;
            for (k, buf) in [&mut a, &mut b]
                .into_iter()
                .enumerate()
                .take(self.num_inputs())
            {
                let (input, layout) = self.inputs[k];
                match input {
                    Input::Bytes(bytes) => dt::load_run(layout.elem, bytes, start, &mut buf[..n]),
                    Input::Output => dt::load_run(self.out.elem, out, local, &mut buf[..n]),
                }
            }
            self.compute(&mut a[..n], &mut b[..n], [&mut t, &mut u]);
            dt::store_run(self.out.elem, out, local, &a[..n]);
            start += n;
        }
    }

    /// Elements `range` of the output's walk; `out` starts at the element
    /// whose offset (from the output's `offset0`) is `base`.
    fn strided(&self, walker: &Walker, range: std::ops::Range<usize>, out: &mut [u8], base: i64) {
        let mut a = [0f32; BLOCK];
        let mut b = [0f32; BLOCK];
        let mut t = [0f32; BLOCK];
        let mut u = [0f32; BLOCK];
        let mut offs = [0i64; BLOCK];
        let mut inside = [false; BLOCK];
        let mut p = [0i64; MAX_NDIMS];
        let mut q = [0i64; MAX_NDIMS];
        let ndims = self.out.ndims;
        let mut start = range.start;
        while start < range.end {
            let n = BLOCK.min(range.end - start);
            for i in 0..n {
                offs[i] = walker.at((start + i) as i64, &mut p) - base;
                let logical = |d: usize| p[d] - self.out.padded_offsets[d];
                inside[i] = (0..ndims).all(|d| (0..self.out.dims[d]).contains(&logical(d)));
                if !inside[i] {
                    continue;
                }
                for (k, buf) in [&mut a, &mut b]
                    .into_iter()
                    .enumerate()
                    .take(self.num_inputs())
                {
                    let (input, layout) = self.inputs[k];
                    buf[i] = match input {
                        Input::Bytes(bytes) => {
                            for (d, qd) in q.iter_mut().enumerate().take(ndims) {
                                *qd = logical(d) + layout.padded_offsets[d];
                            }
                            let at = layout.offset(&q) - layout.offset0;
                            dt::load(layout.elem, bytes, at as usize)
                        }
                        Input::Output => dt::load(self.out.elem, out, offs[i] as usize),
                    };
                }
            }
            self.compute(&mut a[..n], &mut b[..n], [&mut t, &mut u]);
            for i in 0..n {
                let mut v = if inside[i] { a[i] } else { 0.0 };
                if let (Some((post, sum)), true) = (&self.post, inside[i]) {
                    walker.at((start + i) as i64, &mut p);
                    for (d, qd) in q.iter_mut().enumerate().take(ndims) {
                        *qd = p[d] - self.out.padded_offsets[d];
                    }
                    let old = sum.map_or(0.0, |e| dt::load(e, out, offs[i] as usize));
                    v = post.apply(v, old, &q[..ndims]);
                }
                dt::store(self.out.elem, out, offs[i] as usize, v);
            }
            start += n;
        }
    }
}

/// `parallel::split`'s ranges of `n` elements of `size` bytes, with every
/// boundary moved down to a multiple of 64 bytes, so that no two threads
/// write into one cache line (of a 64-byte aligned output).
fn cache_line_ranges(n: usize, size: usize) -> Vec<std::ops::Range<usize>> {
    let step = (64 / size.max(1)).max(1);
    let ranges = parallel::split(n, MIN_PER_THREAD);
    let mut out = Vec::with_capacity(ranges.len());
    let mut start = 0;
    for (i, r) in ranges.iter().enumerate() {
        let end = if i + 1 == ranges.len() {
            n
        } else {
            (r.end / step * step).max(start)
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// Runs `op` on host buffers: `inputs` (with their buffers) into `out`.
fn execute(
    op: &EltwiseOp,
    level: Level,
    dense: bool,
    inputs: &[Buffer],
    out: &Buffer,
    post: Option<HostPostOps>,
) -> Result<()> {
    let layouts = op.layouts();
    let out_layout = &layouts.out;
    if out_layout.padded_nelems() == 0 {
        return Ok(());
    }
    let in_layouts: Vec<&Layout> = std::iter::once(&layouts.data)
        .chain(layouts.diff_dst.as_ref())
        .collect();
    let (out_begin, out_end) = out_layout.byte_range();
    out.check_holds(out_end, "output")?;
    let out_addr = out.host_addr();
    // Inputs that overlap the output: read in place, or copied first.
    let mut copies: Vec<Option<Vec<u8>>> = Vec::new();
    let mut aliased = Vec::new();
    for (buffer, layout) in inputs.iter().zip(&in_layouts) {
        let (begin, end) = layout.byte_range();
        buffer.check_holds(end, "input")?;
        let addr = buffer.host_addr();
        let overlaps = addr + begin < out_addr + out_end && out_addr + out_begin < addr + end;
        let same = addr == out_addr
            && layout.offset0 == out_layout.offset0
            && layout.elem == out_layout.elem
            && layout.same_layout(out_layout);
        aliased.push(overlaps && same);
        copies.push((overlaps && !same).then(|| {
            // SAFETY: the C contract: the handle points to a buffer of at least
            // the descriptor's size; no mutable view exists yet.
            unsafe { host_bytes(addr + begin, end - begin) }.to_vec()
        }));
    }
    // SAFETY: the C contract on the output's handle; the inputs that overlap
    // it were copied above or are read through this very slice.
    let out_bytes = unsafe { host_bytes_mut(out_addr + out_begin, out_end - out_begin) };
    let mut views = [(Input::Output, in_layouts[0]); 2];
    for (k, layout) in in_layouts.iter().enumerate() {
        let (begin, end) = layout.byte_range();
        views[k] = if aliased[k] {
            (Input::Output, layout)
        } else if let Some(copy) = &copies[k] {
            (Input::Bytes(copy), layout)
        } else {
            // SAFETY: the C contract on the input's handle; it does not
            // overlap the output (checked above), and it is only read.
            (
                Input::Bytes(unsafe { host_bytes(inputs[k].host_addr() + begin, end - begin) }),
                layout,
            )
        };
    }
    let work = Work {
        level,
        alg: op.alg(),
        alpha: op.alpha(),
        beta: op.beta(),
        backward: op.direction() == Direction::Backward,
        inputs: views,
        out: out_layout,
        post: post.map(|p| (p, op.post_ops().sum_elem(out_layout.elem))),
    };
    let size = out_layout.elem.size();
    if dense {
        let n = out_layout.nelems() as usize;
        let mut rest = out_bytes;
        let mut parts = Vec::new();
        for range in cache_line_ranges(n, size) {
            let (mine, tail) = rest.split_at_mut(range.len() * size);
            rest = tail;
            parts.push((range, mine));
        }
        parallel::run_all(parts, |(range, out)| work.dense(range, out));
        return Ok(());
    }
    let walker = Walker::new(out_layout);
    let total = walker.total() as usize;
    let mut p = [0i64; MAX_NDIMS];
    let ranges = if out_layout.is_non_overlapping() {
        parallel::split(total, MIN_PER_THREAD)
    } else {
        std::iter::once(0..total).collect()
    };
    // Each range's elements lie in increasing order from the offset of its first.
    let mut parts = Vec::new();
    let mut rest = out_bytes;
    let mut consumed = 0i64;
    for (i, range) in ranges.iter().enumerate() {
        let first = if i == 0 {
            0
        } else {
            walker.at(range.start as i64, &mut p)
        };
        let next = match ranges.get(i + 1) {
            Some(r) => walker.at(r.start as i64, &mut p),
            None => out_layout.extent(),
        };
        let skip = ((first - consumed) as usize) * size;
        let (mine, tail) =
            std::mem::take(&mut rest)[skip..].split_at_mut(((next - first) as usize) * size);
        rest = tail;
        consumed = next;
        parts.push((range.clone(), mine, first));
    }
    parallel::run_all(parts, |(range, out, base)| {
        work.strided(&walker, range, out, base)
    });
    Ok(())
}

/// The CPU implementation: flat arrays (`dense`) or a walk of any layouts.
pub(super) fn create(op: &Arc<EltwiseOp>, dense: bool) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuEltwise {
        op: op.clone(),
        level: vmath::level(),
        dense,
    }))
}

struct CpuEltwise {
    op: Arc<EltwiseOp>,
    /// The `vmath` path, fixed when the primitive is created.
    level: Level,
    dense: bool,
}

impl Implementation for CpuEltwise {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let mut inputs = vec![Buffer::of(ctx.arg(op.data_arg())?)?];
        if op.direction() == Direction::Backward {
            inputs.push(Buffer::of(ctx.arg(crate::abi::DNNL_ARG_DIFF_DST)?)?);
        }
        let out = Buffer::of(ctx.arg(op.out_arg())?)?;
        let post = if op.post_ops().is_empty() {
            None
        } else {
            Some(op.post_ops().bind(ctx)?)
        };
        execute(op, self.level, self.dense, &inputs, &out, post)?;
        Ok(None)
    }
}

#[cfg(test)]
mod cpu_tests {
    use super::*;

    #[test]
    fn thread_ranges_meet_at_cache_lines() {
        for (n, size) in [
            (1usize << 20, 4usize),
            ((1 << 20) + 5, 2),
            (100_003, 4),
            (7, 4),
            (0, 4),
        ] {
            let ranges = cache_line_ranges(n, size);
            assert_eq!(ranges.first().map_or(0, |r| r.start), 0);
            assert_eq!(ranges.last().map_or(0, |r| r.end), n);
            for w in ranges.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_eq!(w[0].end * size % 64, 0, "{n} x {size}: {ranges:?}");
            }
        }
    }
}
