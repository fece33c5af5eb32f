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
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::binary_alg::BinaryAlg;
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt;
use crate::prims::common::host::{self, Raw};
use crate::prims::common::layout::Walker;
use crate::prims::common::dt::Elem;
use crate::prims::common::parallel;
use crate::prims::common::stream_store;

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
            // A large f32 output not read by this call goes around the caches.
            let level = crate::base::isa::level();
            let stream = lo.elem == Elem::F32
                && n * 4 >= stream_store::MIN_BYTES
                && !aliased.iter().any(|&a| a);
            parallel::run_all(parallel::split(n, MIN_PER_THREAD), |range| {
                let mut v = [[0f32; BLOCK]; 3];
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
                    let [a, b, c] = &mut v;
                    apply_block(alg, scales, &mut a[..len], &b[..len], &c[..len], third);
                    if stream {
                        stream_store::store_f32(level, chunk, &a[..len]);
                    } else {
                        dt::store_run(lo.elem, chunk, 0, &a[..len]);
                    }
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

/// `a[i] = alg(a[i] * s0, b[i] * s1, c[i])` over a block, with the
/// algorithm matched once outside a tight (vectorisable) loop.
#[inline(never)]
fn apply_block(alg: BinaryAlg, scales: [f32; 2], a: &mut [f32], b: &[f32], c: &[f32], third: bool) {
    let [s0, s1] = scales;
    let b = &b[..a.len()];
    macro_rules! each {
        (|$x:ident, $y:ident| $e:expr) => {
            if s0 == 1.0 && s1 == 1.0 {
                for (xa, &$y) in a.iter_mut().zip(b) {
                    let $x = *xa;
                    *xa = $e;
                }
            } else {
                for (xa, &yb) in a.iter_mut().zip(b) {
                    let $x = *xa * s0;
                    let $y = yb * s1;
                    *xa = $e;
                }
            }
        };
    }
    let flag = |t: bool| if t { 1.0f32 } else { 0.0 };
    match alg {
        BinaryAlg::Add => each!(|x, y| x + y),
        BinaryAlg::Mul => each!(|x, y| x * y),
        BinaryAlg::Max => each!(|x, y| x.max(y)),
        BinaryAlg::Min => each!(|x, y| x.min(y)),
        BinaryAlg::Div => each!(|x, y| x / y),
        BinaryAlg::Sub => each!(|x, y| x - y),
        BinaryAlg::Ge => each!(|x, y| flag(x >= y)),
        BinaryAlg::Gt => each!(|x, y| flag(x > y)),
        BinaryAlg::Le => each!(|x, y| flag(x <= y)),
        BinaryAlg::Lt => each!(|x, y| flag(x < y)),
        BinaryAlg::Eq => each!(|x, y| flag(x == y)),
        BinaryAlg::Ne => each!(|x, y| flag(x != y)),
        BinaryAlg::Select => {
            let c = &c[..a.len()];
            for ((xa, &yb), &cc) in a.iter_mut().zip(b).zip(c) {
                let cc = if third { cc } else { 0.0 };
                *xa = if cc != 0.0 { *xa * s0 } else { yb * s1 };
            }
        }
    }
}
