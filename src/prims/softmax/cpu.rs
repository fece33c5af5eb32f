//! Softmax on the CPU engine: rows split over the host's threads, each row's
//! max, exponentials, sum and scaling through `prims::common::vmath` on the
//! ISA level fixed at primitive creation.
//!
//! Layer: prims. Each row (a position of every dimension but the axis) is
//! gathered into `f32`, computed, and stored through `common::host::Raw`
//! one element at a time, so rows on different threads never share a view.
//! An input that overlaps the output other than element for element is
//! copied first (in-place with the same layout reads each row before it
//! writes it).

use std::sync::Arc;

use super::{Alg, Rows, SoftmaxOp};
use crate::abi::{DNNL_ARG_DST, DNNL_ARG_SRC};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;
use crate::prims::common::host::{self, Raw};
use crate::prims::common::layout::Layout;
use crate::prims::common::parallel;
use crate::prims::common::vmath::{self, Func, Level, Reduction};

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<SoftmaxOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuSoftmax {
        op: op.clone(),
        level: vmath::level(),
    }))
}

struct CpuSoftmax {
    op: Arc<SoftmaxOp>,
    /// The `vmath` path, fixed when the primitive is created.
    level: Level,
}

/// Forward over one row, in place in `v`, on the `vmath` path `level`;
/// `scratch` holds at least `v.len()` elements (log softmax's exponentials).
pub fn forward_row(level: Level, alg: Alg, v: &mut [f32], scratch: &mut [f32]) {
    let max = vmath::reduce(level, Reduction::Max, v);
    match alg {
        Alg::Accurate => {
            let e = &mut scratch[..v.len()];
            let inv = 1.0 / vmath::map_into_sum(level, Func::ExpMinus(max), v, e);
            vmath::map_into(level, Func::Scale(inv), e, v);
        }
        Alg::Log => {
            vmath::map(level, Func::Add(-max), v);
            let e = &mut scratch[..v.len()];
            let l = vmath::map_into_sum(level, Func::Exp, v, e).ln();
            vmath::map(level, Func::Add(-l), v);
        }
    }
}

/// The reading half of the forward pass over one contiguous row: the max,
/// then the exponentials and their sum in one pass into `a`; returns the
/// function that maps `a` onto the results (the last pass, which the caller
/// runs into the output once it no longer reads `src`: the two may be the
/// same memory). `a` and `scratch` hold at least the row.
pub fn forward_prepare(
    level: Level,
    alg: Alg,
    src: &[f32],
    a: &mut [f32],
    scratch: &mut [f32],
) -> Func {
    let n = src.len();
    let a = &mut a[..n];
    let max = vmath::reduce(level, Reduction::Max, src);
    match alg {
        Alg::Accurate => Func::Scale(1.0 / vmath::map_into_sum(level, Func::ExpMinus(max), src, a)),
        Alg::Log => {
            vmath::map_into(level, Func::Add(-max), src, a);
            Func::Add(-vmath::map_into_sum(level, Func::Exp, a, &mut scratch[..n]).ln())
        }
    }
}

/// Backward over one row: `dd` (diff_dst) becomes diff_src; `y` is dst;
/// `scratch` as in [`forward_row`].
pub fn backward_row(level: Level, alg: Alg, y: &[f32], dd: &mut [f32], scratch: &mut [f32]) {
    match alg {
        Alg::Accurate => {
            let s: f32 = y.iter().zip(dd.iter()).map(|(a, b)| a * b).sum();
            for (d, &yy) in dd.iter_mut().zip(y) {
                *d = yy * (*d - s);
            }
        }
        Alg::Log => {
            let s = vmath::reduce(level, Reduction::Sum, dd);
            let e = &mut scratch[..y.len()];
            e.copy_from_slice(y);
            vmath::map(level, Func::Exp, e);
            for (d, &ee) in dd.iter_mut().zip(e.iter()) {
                *d -= ee * s;
            }
        }
    }
}

/// Asks the CPU to start loading `bytes` bytes from `addr` into its caches:
/// a hint, which neither faults nor changes memory, at any address.
#[inline]
fn prefetch(addr: usize, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    for line in (addr..addr.saturating_add(bytes)).step_by(64) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch reads nothing architecturally and never faults,
        // whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (addr, bytes);
}

/// The element stride along `axis` when offsets are linear in it (the axis
/// is not blocked), `None` otherwise.
fn axis_stride(l: &Layout, axis: usize) -> Option<i64> {
    let mut p = [0i64; MAX_NDIMS];
    let first = l.offset(&p);
    p[axis] = 1;
    let stride = l.offset(&p) - first;
    (0..l.padded_dims[axis])
        .all(|i| {
            p[axis] = i;
            l.offset(&p) - first == i * stride
        })
        .then_some(stride)
}

impl Implementation for CpuSoftmax {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let lo = op.out_layout();
        let out_buf = Buffer::of(ctx.arg(op.out_arg())?)?;
        let mut bufs = Vec::new();
        for arg in op.input_args() {
            bufs.push(Buffer::of(ctx.arg(arg)?)?);
        }
        let [s_src, s_dst] = op.scales();
        let src_scale = host::scale(ctx, DNNL_ARG_SRC, s_src)?;
        let dst_scale = host::scale(ctx, DNNL_ARG_DST, s_dst)?;
        if lo.padded_nelems() == 0 {
            return Ok(None);
        }
        let out = Raw::of(&out_buf, lo, "output")?;
        let layouts = op.in_layouts();
        let mut copies = Vec::new();
        for (k, l) in layouts.iter().enumerate() {
            let raw = Raw::of(&bufs[k], l, "input")?;
            copies.push(host::must_copy(&raw, l, &out, lo).then(|| host::copy(&raw, l)));
        }
        let raws: Vec<Raw> = layouts
            .iter()
            .enumerate()
            .map(|(k, l)| match &copies[k] {
                Some(c) => Ok(Raw::over(c, l.elem)),
                None => Raw::of(&bufs[k], l, "input"),
            })
            .collect::<Result<_>>()?;
        let post = op.post_ops().bind(ctx)?;
        let sum = op.post_ops().sum_elem(lo.elem).map(|e| out.with_elem(e));
        let axis = op.axis();
        let rows = Rows::of(lo, axis);
        let len = lo.dims[axis] as usize;
        let (lo_ax, padded_ax) = (lo.padded_offsets[axis], lo.padded_dims[axis]);
        let ndims = lo.ndims;
        let per_thread = (1usize << 14).div_ceil(padded_ax.max(1) as usize);
        let ranges = if lo.is_non_overlapping() {
            parallel::split(rows.count as usize, per_thread)
        } else {
            std::iter::once(0..rows.count as usize).collect()
        };
        let alg = op.alg();
        let backward = op.is_backward();
        let in_strides: Vec<Option<i64>> = layouts.iter().map(|l| axis_stride(l, axis)).collect();
        let out_stride = axis_stride(lo, axis);
        // Without post-ops a contiguous row is stored in one run.
        let fast_store = op.post_ops().is_empty();
        // Forward softmax over contiguous f32 rows, unscaled: each
        // row goes from the source straight into the output, through
        // `vmath` (no copies through `a` by the C library's memcpy).
        let direct = !backward
            && layouts[0].elem == Elem::F32
            && lo.elem == Elem::F32
            && raws[0].addr().is_multiple_of(4)
            && out.addr() % 4 == 0
            && in_strides[0] == Some(1)
            && out_stride == Some(1)
            && lo_ax == 0
            && padded_ax == len as i64
            && fast_store
            && src_scale == 1.0
            && dst_scale == 1.0;
        // Outputs far beyond the caches go to memory with streaming stores
        // (no read of the lines they replace).
        let stream = direct && vmath::streams(self.level, lo.padded_nelems() as usize * 4);
        parallel::run_all(ranges, |range| {
            let fence = stream.then(vmath::StreamFence::new);
            let mut p = [0i64; MAX_NDIMS];
            let mut q = [0i64; MAX_NDIMS];
            let mut logical = [0i64; MAX_NDIMS];
            let mut a = vec![0f32; len];
            let mut b = vec![0f32; len];
            let mut scratch = vec![0f32; len];
            for r in range {
                let r = r as i64;
                let mut inside = true;
                for &(d, size, div) in &rows.dims {
                    p[d] = r / div % size;
                    logical[d] = p[d] - lo.padded_offsets[d];
                    inside &= (0..lo.dims[d]).contains(&logical[d]);
                }
                if !inside {
                    for i in 0..padded_ax {
                        p[axis] = i;
                        out.store(lo.offset(&p), 0.0);
                    }
                    continue;
                }
                if direct {
                    let l = &layouts[0];
                    for d in 0..ndims {
                        q[d] = logical[d] + l.padded_offsets[d];
                    }
                    q[axis] = l.padded_offsets[axis];
                    let src = raws[0].addr() + l.offset(&q) as usize * 4;
                    p[axis] = 0;
                    let dst = out.addr() + lo.offset(&p) as usize * 4;
                    // The next row (where rows follow one another): a row
                    // is often one page, which the hardware prefetchers do
                    // not run ahead into.
                    prefetch(src + len * 4, len * 4);
                    let last = {
                        // SAFETY: as `Raw::load_run`: the C contract on the
                        // handle, the row lies inside the layout's byte range
                        // (checked by `Raw::of`), it is f32-aligned (checked
                        // above), and the view ends in this block, before the
                        // output (maybe the same memory) is written.
                        let row = unsafe { std::slice::from_raw_parts(src as *const f32, len) };
                        forward_prepare(self.level, alg, row, &mut a, &mut scratch)
                    };
                    // SAFETY: as `Raw::store_run`: this thread owns the row
                    // and holds no other view of it; f32-aligned.
                    let row = unsafe { std::slice::from_raw_parts_mut(dst as *mut f32, len) };
                    match &fence {
                        Some(fence) => vmath::map_into_streaming(self.level, last, &a, row, fence),
                        None => vmath::map_into(self.level, last, &a, row),
                    }
                    continue;
                }
                for (k, l) in layouts.iter().enumerate() {
                    let buf = if k == 0 { &mut a } else { &mut b };
                    for d in 0..ndims {
                        q[d] = logical[d] + l.padded_offsets[d];
                    }
                    q[axis] = l.padded_offsets[axis];
                    match in_strides[k] {
                        Some(1) => raws[k].load_run(l.offset(&q), buf),
                        Some(stride) => {
                            let base = l.offset(&q);
                            for (i, x) in buf.iter_mut().enumerate() {
                                *x = raws[k].load(base + i as i64 * stride);
                            }
                        }
                        None => {
                            for (i, x) in buf.iter_mut().enumerate() {
                                q[axis] = i as i64 + l.padded_offsets[axis];
                                *x = raws[k].load(l.offset(&q));
                            }
                        }
                    }
                }
                if backward {
                    backward_row(self.level, alg, &a, &mut b, &mut scratch);
                    a.copy_from_slice(&b);
                } else {
                    forward_row(self.level, alg, &mut a, &mut scratch);
                }
                p[axis] = 0;
                let base = lo.offset(&p);
                if out_stride == Some(1) && lo_ax == 0 && padded_ax == len as i64 && fast_store {
                    if !backward && (src_scale != 1.0 || dst_scale != 1.0) {
                        for x in a.iter_mut() {
                            *x = *x * src_scale / dst_scale;
                        }
                    }
                    out.store_run(base, &a);
                    continue;
                }
                for i in 0..padded_ax {
                    let off = match out_stride {
                        Some(stride) => base + i * stride,
                        None => {
                            p[axis] = i;
                            lo.offset(&p)
                        }
                    };
                    let j = i - lo_ax;
                    if !(0..len as i64).contains(&j) {
                        out.store(off, 0.0);
                        continue;
                    }
                    let mut v = a[j as usize];
                    if !backward {
                        logical[axis] = j;
                        let old = sum.map_or(0.0, |s| s.load(off));
                        v = post.apply(v * src_scale, old, &logical[..ndims]) / dst_scale;
                    }
                    out.store(off, v);
                }
            }
        });
        Ok(None)
    }
}
