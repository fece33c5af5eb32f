//! Convolutions on the CPU engine (`cpu:gemm_conv`): the implicit GEMM of
//! `geometry.rs` on the GEMM engine's own microkernels (`blocked.rs`).
//!
//! Layer: prims. Every direction is one blocked product per group (the
//! groups are its batches), whose tiles are spread over all threads:
//! - `Y` and `X`: rows are the computed tensor's positions, columns its
//!   channels, depth `(tap, channel)` of the other data tensor. A is never
//!   materialised: [`RowPacker`] writes each `mc x kc` block the
//!   microkernel reads straight from the data tensor (runs of channels per
//!   tap; taps outside it are zeros; the source zero point subtracted,
//!   every type converted to f32). B is the weights in place when they are
//!   a plain matrix per group (the `any` layout), else packed once.
//! - `W` is computed transposed, `Wᵀ[(ic, tap), oc] = Σ X-taps · Y`: A (the
//!   taps of `X`, gathered by [`GatherPacker`]) is again packed block by
//!   block, B is `Y` in place, and the deep sum over the minibatch and the
//!   positions is cut into parts (their own tiles, so small layers fill
//!   every thread), added up at the end.
//!
//! The epilogue (scales, bias, post-ops, destination scale and zero point,
//! conversion) runs on each finished tile, on the thread that computed it.

use std::sync::Arc;

use super::geometry::{Dir, Problem};
use super::{ConvOp, RoleArgs, ZeroPoint};
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::gemm::blocked::{self, Mat, PackA, Path, Tile};
use crate::prims::common::gemm::cpu::{Scales, run_pooled};
use crate::prims::common::parallel;

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<ConvOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuConv { op: op.clone() }))
}

struct CpuConv {
    op: Arc<ConvOp>,
}

impl Implementation for CpuConv {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        run(ctx, &self.op)?;
        Ok(None)
    }
}

/// A host buffer of argument `arg`, checked to hold `bytes`.
fn host(ctx: &ExecContext, arg: i32, bytes: usize, what: &str) -> Result<usize> {
    let buffer = Buffer::of(ctx.arg(arg)?)?;
    if bytes == 0 {
        return Ok(buffer.host_addr());
    }
    buffer.check_holds(bytes, what)?;
    match buffer {
        Buffer::Host { addr, .. } => Ok(addr),
        _ => Err(Error::invalid(format!(
            "the {what} memory is not host memory"
        ))),
    }
}

/// The s32 zero points of argument `arg` (`count` values), as f32.
fn zero_points(ctx: &ExecContext, arg: i32, count: usize) -> Result<Vec<f32>> {
    let buffer = Buffer::values(
        ctx.arg(DNNL_ARG_ATTR_ZERO_POINTS | arg)?,
        count * 4,
        "zero points",
    )?;
    if !matches!(buffer, Buffer::Host { .. }) {
        return Err(Error::invalid("the zero points memory is not host memory"));
    }
    // SAFETY: the memory holds `count` s32 values (checked where the library
    // allocated it; a user pointer is trusted, as upstream).
    let bytes = unsafe { host_bytes(buffer.host_addr(), count * 4) };
    let mut out = vec![0f32; count];
    dt::load_run(Elem::S32, bytes, 0, &mut out);
    Ok(out)
}

/// One tensor of the problem as bytes and element type.
#[derive(Clone, Copy)]
struct View<'a> {
    bytes: &'a [u8],
    elem: Elem,
}

impl View<'_> {
    #[inline]
    fn get(&self, index: i64) -> f32 {
        dt::load(self.elem, self.bytes, index as usize)
    }
}

/// A of `Dir::Y` and `Dir::X`: row-major blocks of the implicit im2col,
/// written tap by tap from the data tensor.
struct RowPacker<'a> {
    p: &'a Problem,
    a: View<'a>,
    /// The channel stride of A's data tensor.
    stride: i64,
    /// The source zero points (one, or one per channel of every group).
    zp: Option<&'a [f32]>,
}

impl PackA for RowPacker<'_> {
    fn pack(&self, batch: usize, m0: usize, rows: usize, k0: usize, kc: usize, out: &mut [f32]) {
        let (g, nch, stride) = (batch as i64, self.p.a_channels(), self.stride);
        let (k0, k1) = (k0 as i64, (k0 + kc) as i64);
        let a = self.a;
        // Only the taps the depth range touches.
        let taps = k0 / nch..(k1 + nch - 1) / nch;
        for (r, dst) in out.chunks_exact_mut(kc).take(rows).enumerate() {
            self.p
                .a_row_taps(g, (m0 + r) as i64, taps.clone(), |tap, at| {
                    let depth = tap * nch;
                    let (lo, hi) = (depth.max(k0), (depth + nch).min(k1));
                    let run = &mut dst[(lo - k0) as usize..(hi - k0) as usize];
                    let Some(at) = at else {
                        run.fill(0.0);
                        return;
                    };
                    let first = at + (lo - depth) * stride;
                    if stride == 1 {
                        dt::load_run(a.elem, a.bytes, first as usize, run);
                    } else {
                        for (c, v) in run.iter_mut().enumerate() {
                            *v = a.get(first + c as i64 * stride);
                        }
                    }
                    match self.zp {
                        None => {}
                        Some([z]) => run.iter_mut().for_each(|v| *v -= z),
                        Some(z) => {
                            let c0 = (g * nch + lo - depth) as usize;
                            let z = &z[c0..c0 + run.len()];
                            run.iter_mut().zip(z).for_each(|(v, z)| *v -= z);
                        }
                    }
                });
        }
    }
}

/// A of the transposed `Dir::W`: rows `(ic, tap)`, depth the positions,
/// gathered from `X`.
struct GatherPacker<'a> {
    p: &'a Problem,
    x: View<'a>,
}

impl PackA for GatherPacker<'_> {
    fn pack(&self, batch: usize, m0: usize, rows: usize, k0: usize, kc: usize, out: &mut [f32]) {
        let x = self.x;
        for (r, dst) in out.chunks_exact_mut(kc).take(rows).enumerate() {
            dst.fill(0.0);
            self.p.x_gather(
                batch as i64,
                (m0 + r) as i64,
                k0 as i64,
                kc as i64,
                |j, at| dst[j] = x.get(at),
            );
        }
    }
}

/// An f32 buffer that tiles write at disjoint elements from several
/// threads.
struct Shared(*mut f32);

// SAFETY: the pointer is only written at elements no other thread touches
// (each (part, group, row, column) belongs to one tile), and read after
// the writers have joined.
unsafe impl Sync for Shared {}

impl Shared {
    /// Writes `values` from element `at`.
    ///
    /// # Safety
    /// The elements are inside the buffer and written by this thread only.
    unsafe fn write(&self, at: usize, values: &[f32]) {
        // SAFETY: the caller's contract.
        let out = unsafe { std::slice::from_raw_parts_mut(self.0.add(at), values.len()) };
        out.copy_from_slice(values);
    }
}

/// f32 values as the bytes a [`Mat`] reads.
fn f32_bytes(v: &[f32]) -> &[u8] {
    // SAFETY: any f32 is 4 initialised bytes; u8 has no alignment.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// Runs `work` on every item over the GEMM engine's persistent workers: the
/// items in contiguous bins, one per thread (`run_pooled` gives each worker
/// one item and runs the rest on the calling thread).
fn run_binned<T: Send + Copy + Sync>(items: Vec<T>, work: impl Fn(T) + Sync) {
    let bins = parallel::split(items.len(), 1);
    let items = &items;
    run_pooled(bins, |range| {
        for &item in &items[range] {
            work(item);
        }
    });
}

/// How many depth parts `Dir::W` cuts its sum into: enough tiles for two
/// per thread, parts of at least 256 deep, partial sums within 64 MiB.
fn w_parts(groups: usize, m: usize, n: usize, k: usize) -> usize {
    let tiles = groups * m.div_ceil(96) * n.div_ceil(512);
    let wanted = (2 * parallel::max_threads()).div_ceil(tiles.max(1));
    let cap = (16 << 20) / (groups * m * n).max(1);
    wanted.min(k.div_ceil(256)).min(cap).max(1)
}

/// Runs `op` on the CPU.
pub(super) fn run(ctx: &ExecContext, op: &ConvOp) -> Result<()> {
    let p = op.problem();
    let args: RoleArgs = op.role_args();
    let xa = host(ctx, args.x, p.x.bytes, "X")?;
    let wa = host(ctx, args.w, p.w.bytes, "weights")?;
    let ya = host(ctx, args.y, p.y.bytes, "Y")?;
    // SAFETY: each buffer holds what its tensor spans (checked above, or a
    // trusted user pointer); the computed one is written only at the
    // elements the problem maps, each by one job.
    let (xb, wb, yb) = unsafe {
        (
            host_bytes(xa, p.x.bytes),
            host_bytes(wa, p.w.bytes),
            host_bytes(ya, p.y.bytes),
        )
    };
    let xv = View {
        bytes: xb,
        elem: p.x.elem,
    };
    let wv = View {
        bytes: wb,
        elem: p.w.elem,
    };
    let yv = View {
        bytes: yb,
        elem: p.y.elem,
    };
    let (a, b, c_addr, c_elem) = match p.dir {
        Dir::Y => (xv, wv, ya, p.y.elem),
        Dir::X => (yv, wv, xa, p.x.elem),
        Dir::W => (yv, xv, wa, p.w.elem),
    };
    let map = p.mapping();
    let s = &p.shape;
    let (m, n, k) = (map.m, map.n as usize, map.k);
    let groups = s.g;

    let epi = op.epilogue();
    let cch = p.c_channels();
    let total_ch = (groups * cch.max(1)) as usize;
    let scales = Scales::read(ctx, epi, total_ch)?;
    let (zp_src, zp_dst) = op.zero_points();
    let zp_a = match zp_src {
        None => None,
        Some(ZeroPoint::Common) => Some(zero_points(ctx, DNNL_ARG_SRC, 1)?),
        Some(ZeroPoint::PerChannel) => Some(zero_points(
            ctx,
            DNNL_ARG_SRC,
            (groups * p.a_channels()) as usize,
        )?),
    };
    let zp_c = match zp_dst {
        None => None,
        Some(ZeroPoint::Common) => Some(vec![zero_points(ctx, DNNL_ARG_DST, 1)?[0]; total_ch]),
        Some(ZeroPoint::PerChannel) => Some(zero_points(ctx, DNNL_ARG_DST, total_ch)?),
    };
    let post = epi.post_ops.bind(ctx)?;
    let sum_elem = epi.post_ops.sum_elem(c_elem);
    let bias = match (p.dir, args.bias) {
        (Dir::Y | Dir::X, Some(arg)) => {
            let md = op
                .bias_md()
                .ok_or_else(|| Error::invalid("no bias descriptor"))?;
            let bytes = crate::prims::common::gemm::span_bytes(md)?;
            let addr = host(ctx, arg, bytes, "bias")?;
            let stride = crate::prims::common::gemm::plain_strides(md, "bias")?[0];
            let elem = op.bias_elem().unwrap_or(Elem::F32);
            // SAFETY: checked to hold the bias's span.
            Some((
                unsafe { host_bytes(addr, bytes) },
                elem,
                md.offset0(),
                stride,
            ))
        }
        _ => None,
    };

    if m > 0 && n > 0 && groups > 0 {
        let store = |g: i64, row: i64, col: i64, at: i64, v: f32, pos: &mut [i64]| {
            let esize = c_elem.size();
            let mut x = v;
            if p.dir != Dir::W {
                let ch = (g * cch + col) as usize;
                x *= scales.src * scales.wei[ch];
                if let Some((bytes, e, off, stride)) = &bias {
                    x += dt::load(*e, bytes, (off + ch as i64 * stride) as usize);
                }
                if !epi.post_ops.is_empty() {
                    p.c_pos(g, row, col, pos);
                    let old = match sum_elem {
                        Some(e) => {
                            // SAFETY: one element of C, owned by this tile.
                            let cell =
                                unsafe { host_bytes(c_addr + at as usize * esize, e.size()) };
                            dt::load(e, cell, 0)
                        }
                        None => 0.0,
                    };
                    x = post.apply(x, old, pos);
                }
                x *= scales.dst_inv;
                if let Some(z) = &zp_c {
                    x += z[ch];
                }
            }
            // SAFETY: one element of C, written by this tile only.
            let out = unsafe { host_bytes_mut(c_addr + at as usize * esize, esize) };
            dt::store(c_elem, out, 0, x);
        };
        let ndims = op.dst_ndims();
        let (m, k) = (m as usize, k as usize);
        let g_count = groups as usize;
        let path = Path::current(a.elem, b.elem);
        let no_a = Mat {
            bytes: &[],
            elem: Elem::F32,
            rs: 0,
            cs: 0,
        };
        if p.dir == Dir::W {
            // Wᵀ: rows (ic, tap) = n, columns oc = m, depth k; B is Y (A's
            // data tensor of the mapping), in place where its positions
            // are evenly spaced.
            let (rows, cols) = (n, m);
            let y_copy: Vec<f32>;
            let (b_mat, b_off, b_gs) = match p.a_plain() {
                Some([off, oc_s, depth_s, gs]) => (
                    Mat {
                        bytes: a.bytes,
                        elem: a.elem,
                        rs: depth_s,
                        cs: oc_s,
                    },
                    off,
                    gs,
                ),
                None => {
                    let mut v = vec![0f32; g_count * k * cols];
                    for (i, out) in v.iter_mut().enumerate() {
                        let (g, d, oc) = (i / (k * cols), i / cols % k, i % cols);
                        if let Some(at) = p.a_at(g as i64, oc as i64, d as i64) {
                            *out = a.get(at);
                        }
                    }
                    y_copy = v;
                    (
                        Mat {
                            bytes: f32_bytes(&y_copy),
                            elem: Elem::F32,
                            rs: cols as i64,
                            cs: 1,
                        },
                        0,
                        (k * cols) as i64,
                    )
                }
            };
            let first = |g: usize| (0, b_off + g as i64 * b_gs);
            let prob = blocked::Problem {
                m: rows,
                n: cols,
                k,
                batches: g_count,
                a: no_a,
                b: b_mat,
                first: &first,
            };
            let packer = GatherPacker { p, x: b };
            let parts = w_parts(g_count, rows, cols, k);
            let mut partial = vec![
                0f32;
                if parts > 1 {
                    parts * g_count * rows * cols
                } else {
                    0
                }
            ];
            let shared = Shared(partial.as_mut_ptr());
            let store_w = |g: usize, row: usize, col: usize, v: f32, pos: &mut [i64]| {
                let (g, oc, col) = (g as i64, col as i64, row as i64);
                store(g, oc, col, p.c_at(g, oc, col), v, pos);
            };
            let tile = |t: &Tile, values: &mut [f32]| {
                let mut pos = [0i64; 0];
                for r in 0..t.rows {
                    let vals = &values[r * t.ld..][..t.cols];
                    if parts == 1 {
                        for (c, &v) in vals.iter().enumerate() {
                            store_w(t.batch, t.m0 + r, t.n0 + c, v, &mut pos);
                        }
                        continue;
                    }
                    let at = ((t.part * g_count + t.batch) * rows + t.m0 + r) * cols + t.n0;
                    // SAFETY: these (part, group, row, columns) belong to
                    // this tile alone, inside `partial`.
                    unsafe { shared.write(at, vals) };
                }
            };
            blocked::run_packed(path, &prob, Some(&packer), parts, &tile);
            if parts > 1 {
                let partial = &partial;
                run_binned((0..g_count * rows).collect(), |i| {
                    let (g, row) = (i / rows, i % rows);
                    let mut pos = [0i64; 0];
                    for col in 0..cols {
                        let at = (g * rows + row) * cols + col;
                        let sum: f32 = (0..parts)
                            .map(|part| partial[part * g_count * rows * cols + at])
                            .sum();
                        store_w(g, row, col, sum, &mut pos);
                    }
                });
            }
        } else {
            // B: the weights in place (a plain matrix per group), else
            // packed once as f32.
            let w_copy: Vec<f32>;
            let (b_mat, b_off, b_gs) = match p.b_plain() {
                Some([off, rs, cs, gs]) => (
                    Mat {
                        bytes: b.bytes,
                        elem: b.elem,
                        rs,
                        cs,
                    },
                    off,
                    gs,
                ),
                None => {
                    let mut v = vec![0f32; g_count * k * n];
                    for (i, out) in v.iter_mut().enumerate() {
                        let (g, d, c) = (i / (k * n), i / n % k, i % n);
                        if let Some(at) = p.b_at(g as i64, d as i64, c as i64) {
                            *out = b.get(at);
                        }
                    }
                    w_copy = v;
                    (
                        Mat {
                            bytes: f32_bytes(&w_copy),
                            elem: Elem::F32,
                            rs: n as i64,
                            cs: 1,
                        },
                        0,
                        (k * n) as i64,
                    )
                }
            };
            let first = |g: usize| (0, b_off + g as i64 * b_gs);
            let prob = blocked::Problem {
                m,
                n,
                k,
                batches: g_count,
                a: no_a,
                b: b_mat,
                first: &first,
            };
            let packer = RowPacker {
                p,
                a,
                stride: if p.dir == Dir::Y { p.x.c } else { p.y.c },
                zp: zp_a.as_deref(),
            };
            // Nothing between the products and the store but the conversion.
            let bare = !epi.src_scale
                && epi.wei_scale.is_none()
                && !epi.dst_scale
                && bias.is_none()
                && epi.post_ops.is_empty()
                && zp_c.is_none();
            let cs = p.c_col_stride().unwrap_or(0);
            let esize = c_elem.size();
            let tile = |t: &Tile, values: &mut [f32]| {
                let g = t.batch as i64;
                let mut pos = vec![0i64; ndims];
                for r in 0..t.rows {
                    let row = (t.m0 + r) as i64;
                    let vals = &values[r * t.ld..][..t.cols];
                    let base = p.c_at(g, row, t.n0 as i64);
                    if bare && cs == 1 {
                        // SAFETY: these columns of this row of C, written by
                        // this tile only.
                        let out = unsafe {
                            host_bytes_mut(c_addr + base as usize * esize, t.cols * esize)
                        };
                        dt::store_run(c_elem, out, 0, vals);
                        continue;
                    }
                    for (c, &v) in vals.iter().enumerate() {
                        let col = (t.n0 + c) as i64;
                        store(g, row, col, base + c as i64 * cs, v, &mut pos);
                    }
                }
            };
            blocked::run_packed(path, &prob, Some(&packer), 1, &tile);
        }
    }

    // The bias gradient: per output channel, the sum of the gradient.
    if let (Dir::W, Some(arg)) = (p.dir, args.bias) {
        let md = op
            .bias_md()
            .ok_or_else(|| Error::invalid("no bias descriptor"))?;
        let bytes = crate::prims::common::gemm::span_bytes(md)?;
        let addr = host(ctx, arg, bytes, "diff_bias")?;
        let stride = crate::prims::common::gemm::plain_strides(md, "diff_bias")?[0];
        let elem = op.bias_elem().unwrap_or(Elem::F32);
        let (t, tv, per) = if args.bias_from == args.y {
            (&p.y, yv, s.o)
        } else {
            (&p.x, xv, s.i)
        };
        let channels = md.dims()[0];
        let off = md.offset0();
        run_binned((0..channels).collect(), |c| {
            let mut sum = 0f64;
            for nn in 0..s.mb {
                for d in 0..per[0] {
                    for h in 0..per[1] {
                        for w in 0..per[2] {
                            let at = t.off
                                + nn * t.n
                                + c * t.c
                                + d * t.sp[0]
                                + h * t.sp[1]
                                + w * t.sp[2];
                            sum += f64::from(tv.get(at));
                        }
                    }
                }
            }
            let esize = elem.size();
            let at = (off + c * stride) as usize;
            // SAFETY: one element of diff_bias, written by this job only.
            let out = unsafe { host_bytes_mut(addr + at * esize, esize) };
            dt::store(elem, out, 0, sum as f32);
        });
    }
    Ok(())
}
