//! Binary on the CPU engine: two kernels over `common::host::Raw` element
//! access.
//!
//! Layer: prims. The destination's walk (memory order) is split over the
//! host's threads; each thread owns disjoint destination elements. The dense
//! kernel indexes every tensor by the flat element number; the generic one
//! maps each destination position to each input's (broadcast dimensions at
//! 0). An input that overlaps the destination other than element for
//! element (in-place with the same layout) is copied first.

use std::sync::Arc;

use super::BinaryOp;
use crate::abi::{DNNL_ARG_DST, DNNL_ARG_SRC_0, DNNL_ARG_SRC_1};
use crate::base::isa::Level;
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::binary_alg::BinaryAlg;
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt;
use crate::prims::common::dt::Elem;
use crate::prims::common::host::{self, Raw};
use crate::prims::common::layout::Layout;
use crate::prims::common::layout::Walker;
use crate::prims::common::parallel;
use crate::prims::common::vmath;

/// Elements per block of the dense kernel's conversion loops.
const BLOCK: usize = 1024;
/// The fewest elements worth a thread of their own.
const MIN_PER_THREAD: usize = 1 << 14;

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(
    op: &Arc<BinaryOp>,
    _: &Engine,
    dense: bool,
) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuBinary {
        op: op.clone(),
        dense,
    }))
}

struct CpuBinary {
    op: Arc<BinaryOp>,
    dense: bool,
}

impl Implementation for CpuBinary {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let lo = op.out();
        let out_buf = Buffer::of(ctx.arg(DNNL_ARG_DST)?)?;
        let mut bufs = Vec::new();
        for &arg in op.input_args() {
            bufs.push(Buffer::of(ctx.arg(arg)?)?);
        }
        let [s0, s1] = op.scales();
        let scales = [
            host::scale(ctx, DNNL_ARG_SRC_0, s0)?,
            host::scale(ctx, DNNL_ARG_SRC_1, s1)?,
        ];
        if lo.padded_nelems() == 0 {
            return Ok(None);
        }
        let out = Raw::of(&out_buf, lo, "dst")?;
        let mut copies = Vec::new();
        let mut ins = Vec::new();
        for (k, l) in op.inputs_layouts().iter().enumerate() {
            let raw = Raw::of(&bufs[k], l, "input")?;
            if host::must_copy(&raw, l, &out, lo) {
                copies.push(host::copy(&raw, l));
                ins.push((k, None));
            } else {
                ins.push((k, Some(raw)));
            }
        }
        let mut copied = copies.iter();
        let raws: Vec<Raw> = ins
            .iter()
            .map(|&(k, r)| {
                r.unwrap_or_else(|| {
                    let bytes = copied.next().map_or(&[][..], |c| c.as_slice());
                    Raw::over(bytes, op.inputs_layouts()[k].elem)
                })
            })
            .collect();
        let post = op.post_ops().bind(ctx)?;
        let sum = op.post_ops().sum_elem(lo.elem).map(|e| out.with_elem(e));
        let alg = op.alg();
        let layouts = op.inputs_layouts();
        let third = raws.len() > 2;
        if self.dense {
            let n = lo.nelems() as usize;
            // An input at the output's very address is the output itself
            // (`must_copy` copied any other overlap): read from its chunk.
            let aliased: Vec<bool> = raws
                .iter()
                .zip(layouts)
                .map(|(r, l)| r.addr() == out.addr() && l.offset0 == lo.offset0)
                .collect();
            let level = crate::base::isa::level();
            // Two f32 inputs apart from an f32 output, all 4-byte aligned:
            // read and written in place, no conversion blocks; outputs far
            // beyond the caches computed block by block and written with
            // streaming stores (`vmath::STREAM_BYTES`).
            let stream = vmath::streams(level, n * 4);
            let f32_at = |addr: usize, l: &Layout| addr + l.offset0 as usize * 4;
            let direct =
                !third
                    && lo.elem == Elem::F32
                    && f32_at(out.addr(), lo) % 4 == 0
                    && raws.iter().zip(layouts).zip(&aliased).all(|((r, l), &a)| {
                        l.elem == Elem::F32 && !a && f32_at(r.addr(), l) % 4 == 0
                    });
            parallel::run_all(parallel::split(n, MIN_PER_THREAD), |range| {
                let fence = (direct && stream).then(vmath::StreamFence::new);
                let mut v = [[0f32; BLOCK]; 4];
                let mut start = range.start;
                while start < range.end {
                    let len = BLOCK.min(range.end - start);
                    let osize = lo.elem.size();
                    // SAFETY: the C contract on the handle (checked against
                    // our allocations); each thread owns the disjoint output
                    // elements of its range, and no other view of them exists
                    // (aliased inputs are read through this one).
                    let chunk = unsafe {
                        host_bytes_mut(
                            out.addr() + (lo.offset0 as usize + start) * osize,
                            len * osize,
                        )
                    };
                    if direct {
                        // SAFETY: the C contract; f32 inputs (4-byte aligned,
                        // checked above) not overlapping the output, only read.
                        let [x, y] = [0, 1].map(|k| unsafe {
                            std::slice::from_raw_parts(
                                (f32_at(raws[k].addr(), &layouts[k]) as *const f32).add(start),
                                len,
                            )
                        });
                        // SAFETY: the chunk is this thread's f32 output
                        // elements, 4-byte aligned (checked above).
                        let out = unsafe {
                            std::slice::from_raw_parts_mut(chunk.as_mut_ptr().cast::<f32>(), len)
                        };
                        match &fence {
                            Some(fence) => {
                                let block = &mut v[0][..len];
                                apply_from(level, alg, scales, x, y, block);
                                vmath::copy_streaming(level, block, out, fence);
                            }
                            None => apply_from(level, alg, scales, x, y, out),
                        }
                        start += len;
                        continue;
                    }
                    for (k, l) in layouts.iter().enumerate() {
                        let size = l.elem.size();
                        if aliased[k] {
                            dt::load_run(l.elem, chunk, 0, &mut v[k][..len]);
                        } else {
                            // SAFETY: the C contract; the input does not
                            // overlap the output, and it is only read.
                            let bytes = unsafe {
                                host_bytes(
                                    raws[k].addr() + (l.offset0 as usize + start) * size,
                                    len * size,
                                )
                            };
                            dt::load_run(l.elem, bytes, 0, &mut v[k][..len]);
                        }
                    }
                    let [a, b, c, d] = &mut v;
                    let (a, b, c, d) = (&a[..len], &b[..len], &c[..len], &mut d[..len]);
                    if third {
                        select(scales, a, b, c, d);
                    } else {
                        apply_from(level, alg, scales, a, b, d);
                    }
                    dt::store_run(lo.elem, chunk, 0, d);
                    start += len;
                }
            });
            return Ok(None);
        }
        let walker = Walker::new(lo);
        let total = walker.total() as usize;
        let ranges = if lo.is_non_overlapping() {
            parallel::split(total, MIN_PER_THREAD)
        } else {
            std::iter::once(0..total).collect()
        };
        let ndims = lo.ndims;
        parallel::run_all(ranges, |range| {
            let mut p = [0i64; MAX_NDIMS];
            let mut logical = [0i64; MAX_NDIMS];
            let mut q = [0i64; MAX_NDIMS];
            for t in range {
                let off = walker.at(t as i64, &mut p) + lo.offset0;
                let mut inside = true;
                for d in 0..ndims {
                    logical[d] = p[d] - lo.padded_offsets[d];
                    inside &= (0..lo.dims[d]).contains(&logical[d]);
                }
                if !inside {
                    out.store(off, 0.0);
                    continue;
                }
                let mut v = [0f32; 3];
                for (k, l) in layouts.iter().enumerate() {
                    for d in 0..ndims {
                        let x = if l.dims[d] == 1 { 0 } else { logical[d] };
                        q[d] = x + l.padded_offsets[d];
                    }
                    v[k] = raws[k].load(l.offset(&q));
                }
                let r = alg.apply(v[0] * scales[0], v[1] * scales[1], v[2]);
                let old = sum.map_or(0.0, |s| s.load(off));
                out.store(off, post.apply(r, old, &logical[..ndims]));
            }
        });
        Ok(None)
    }
}

/// `Select` with its condition: `out[i] = c[i] != 0 ? a[i] * s0 : b[i] * s1`.
fn select(scales: [f32; 2], a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    let [s0, s1] = scales;
    for (((o, &x), &y), &cond) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = if cond != 0.0 { x * s0 } else { y * s1 };
    }
}

/// `out[i] = alg(x[i] * s0, y[i] * s1)` (`Select` without a condition: `y[i] * s1`),
/// vectorised for `level`.
fn apply_from(
    level: Level,
    alg: BinaryAlg,
    scales: [f32; 2],
    x: &[f32],
    y: &[f32],
    out: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    match level {
        // SAFETY: the level says the host has AVX-512F.
        Level::Avx512 => return unsafe { apply_from_512(alg, scales, x, y, out) },
        // SAFETY: the level says the host has AVX2 and FMA.
        Level::Avx2 => return unsafe { apply_from_256(alg, scales, x, y, out) },
        Level::Portable => {}
    }
    let _ = level;
    apply_from_body(alg, scales, x, y, out);
}

/// # Safety
/// The host has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn apply_from_512(alg: BinaryAlg, scales: [f32; 2], x: &[f32], y: &[f32], out: &mut [f32]) {
    apply_from_body(alg, scales, x, y, out);
}

/// # Safety
/// The host has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn apply_from_256(alg: BinaryAlg, scales: [f32; 2], x: &[f32], y: &[f32], out: &mut [f32]) {
    apply_from_body(alg, scales, x, y, out);
}

/// [`apply_from`]'s loops (inlined into each instantiation).
#[inline(always)]
fn apply_from_body(alg: BinaryAlg, scales: [f32; 2], x: &[f32], y: &[f32], out: &mut [f32]) {
    let [s0, s1] = scales;
    let (x, y) = (&x[..out.len()], &y[..out.len()]);
    macro_rules! each {
        (|$a:ident, $b:ident| $e:expr) => {
            if s0 == 1.0 && s1 == 1.0 {
                for ((o, &$a), &$b) in out.iter_mut().zip(x).zip(y) {
                    *o = $e;
                }
            } else {
                for ((o, &xa), &yb) in out.iter_mut().zip(x).zip(y) {
                    let $a = xa * s0;
                    let $b = yb * s1;
                    *o = $e;
                }
            }
        };
    }
    let flag = |t: bool| if t { 1.0f32 } else { 0.0 };
    match alg {
        BinaryAlg::Add => each!(|a, b| a + b),
        BinaryAlg::Mul => each!(|a, b| a * b),
        BinaryAlg::Max => each!(|a, b| a.max(b)),
        BinaryAlg::Min => each!(|a, b| a.min(b)),
        BinaryAlg::Div => each!(|a, b| a / b),
        BinaryAlg::Sub => each!(|a, b| a - b),
        BinaryAlg::Ge => each!(|a, b| flag(a >= b)),
        BinaryAlg::Gt => each!(|a, b| flag(a > b)),
        BinaryAlg::Le => each!(|a, b| flag(a <= b)),
        BinaryAlg::Lt => each!(|a, b| flag(a < b)),
        BinaryAlg::Eq => each!(|a, b| flag(a == b)),
        BinaryAlg::Ne => each!(|a, b| flag(a != b)),
        // Two inputs: no condition, every one 0 (`select` takes the third).
        BinaryAlg::Select => each!(|_a, b| b),
    }
}
