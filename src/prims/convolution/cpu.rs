//! Convolutions on the CPU engine (`cpu:gemm_conv`): the implicit GEMM of
//! `geometry.rs`, packed panel by panel into the `gemm` crate.
//!
//! Layer: prims. Work is split into jobs over the host's threads (the GEMM
//! engine's persistent workers): for `Y` and `X`, a job is a group and a
//! range of rows, which it owns in the output; for `W` (few rows, a deep
//! sum over the minibatch and the output positions), a job is a group and
//! a range of depth, summed into its own accumulator and added up at the
//! end. A job walks depth in chunks: A's chunk is gathered from the data
//! tensor (taps outside it are zeros, the source zero point subtracted from
//! the others, every type converted to f32), B's is the weights (once per
//! group, or used in place when they are f32 and already a plain matrix)
//! or, for `W`, gathered like A. The epilogue (scales, bias, post-ops,
//! destination scale and zero point, conversion) runs on the job's rows.

use std::cell::RefCell;
use std::sync::Arc;
use std::thread::LocalKey;

use super::geometry::{Dir, Problem};
use super::{ConvOp, RoleArgs, ZeroPoint};
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt::{self, Elem};
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

/// The depth of one packed chunk.
const KC: usize = 512;

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

/// Everything a job reads.
struct Job<'a> {
    p: &'a Problem,
    a: View<'a>,
    b: View<'a>,
    /// f32 B of every group, packed `k x n` row-major (Y and X, unless B is
    /// used in place).
    b_packed: Option<&'a [Vec<f32>]>,
    /// B in place: (element offset of group 0, group stride, row stride,
    /// column stride) of f32 weights.
    b_direct: Option<(i64, i64, i64, i64)>,
    /// The source zero points (one, or one per channel of every group).
    zp_a: Option<&'a [f32]>,
    /// A in place (f32, a plain matrix, no zero point): as `b_direct`.
    a_direct: Option<(i64, i64, i64, i64)>,
}

impl Job<'_> {
    /// A's rows `rows` x depth `k0..k0 + kc` of group `g`, row-major.
    fn pack_a(&self, g: i64, rows: std::ops::Range<i64>, k0: i64, kc: usize, out: &mut [f32]) {
        let nch = self.p.a_channels();
        if self.p.dir != Dir::W && k0 == 0 && kc as i64 == self.p.mapping().k {
            // Whole rows: tap by tap, each a run of channels.
            for (r, row) in rows.enumerate() {
                let dst = &mut out[r * kc..(r + 1) * kc];
                dst.fill(0.0);
                let zp = self.zp_a;
                let (a, g_ch) = (self.a, g * nch);
                let mut runs = Vec::new();
                let (count, stride) = self
                    .p
                    .a_row_runs(g, row, |depth, at| runs.push((depth, at)));
                let count = count as usize;
                for (depth, at) in runs {
                    let run = &mut dst[depth as usize..depth as usize + count];
                    if stride == 1 {
                        dt::load_run(a.elem, a.bytes, at as usize, run);
                    } else {
                        for (c, v) in run.iter_mut().enumerate() {
                            *v = a.get(at + c as i64 * stride);
                        }
                    }
                    match zp {
                        None => {}
                        Some([z]) => run.iter_mut().for_each(|v| *v -= z),
                        Some(z) => {
                            let z = &z[g_ch as usize..g_ch as usize + count];
                            run.iter_mut().zip(z).for_each(|(v, z)| *v -= z);
                        }
                    }
                }
            }
            return;
        }
        for (r, row) in rows.enumerate() {
            let dst = &mut out[r * kc..(r + 1) * kc];
            for (j, v) in dst.iter_mut().enumerate() {
                let depth = k0 + j as i64;
                *v = match self.p.a_at(g, row, depth) {
                    Some(at) => {
                        let x = self.a.get(at);
                        match self.zp_a {
                            None => x,
                            Some([z]) => x - z,
                            Some(z) => x - z[(g * nch + self.p.a_channel(depth)) as usize],
                        }
                    }
                    None => 0.0,
                };
            }
        }
    }

    /// B's depth `k0..k0 + kc` x all `n` columns of group `g`, row-major
    /// (W: gathered from the data tensor).
    fn pack_b(&self, g: i64, k0: i64, kc: usize, n: usize, out: &mut [f32]) {
        for j in 0..kc {
            let depth = k0 + j as i64;
            for (c, v) in out[j * n..(j + 1) * n].iter_mut().enumerate() {
                *v = match self.p.b_at(g, depth, c as i64) {
                    Some(at) => self.b.get(at),
                    None => 0.0,
                };
            }
        }
    }

    /// `acc (rows x n) += A(rows, depth range) · B(depth range, n)` for group
    /// `g`, chunk by chunk.
    fn accumulate(
        &self,
        g: i64,
        rows: std::ops::Range<i64>,
        depth: std::ops::Range<i64>,
        n: usize,
        acc: &mut [f32],
    ) {
        let m = (rows.end - rows.start) as usize;
        let mut first = true;
        // Y and X take whole rows (the fast gather) unless the depth is huge.
        let step = if self.p.dir != Dir::W && depth.end - depth.start <= 16 * KC as i64 {
            (depth.end - depth.start) as usize
        } else {
            KC
        };
        let a_len = if self.a_direct.is_some() { 0 } else { m * step };
        let b_len = if self.b_packed.is_none() && self.b_direct.is_none() {
            step * n
        } else {
            0
        };
        with_panel(&A_PANEL, a_len, |a_panel| {
            with_panel(&B_PANEL, b_len, |b_panel| {
                first = self.chunks(
                    g,
                    rows.clone(),
                    depth.clone(),
                    step,
                    n,
                    acc,
                    a_panel,
                    b_panel,
                );
            })
        });
        if first {
            acc.fill(0.0);
        }
    }

    /// [`Job::accumulate`]'s loop over depth chunks of `step`, with its
    /// panels; returns whether no chunk ran (an empty depth).
    #[allow(clippy::too_many_arguments)]
    fn chunks(
        &self,
        g: i64,
        rows: std::ops::Range<i64>,
        depth: std::ops::Range<i64>,
        step: usize,
        n: usize,
        acc: &mut [f32],
        a_panel: &mut [f32],
        b_panel: &mut [f32],
    ) -> bool {
        let m = (rows.end - rows.start) as usize;
        let mut first = true;
        let mut k0 = depth.start;
        while k0 < depth.end {
            let kc = ((depth.end - k0) as usize).min(step);
            let (a_ptr, a_rs, a_cs) = if let Some((off, gs, rs, cs)) = self.a_direct {
                let at = off + g * gs + rows.start * rs + k0 * cs;
                let base = self.a.bytes.as_ptr().cast::<f32>();
                (base.wrapping_add(at as usize), rs as isize, cs as isize)
            } else {
                self.pack_a(g, rows.clone(), k0, kc, a_panel);
                (a_panel.as_ptr(), kc as isize, 1)
            };
            let (b_ptr, b_rs, b_cs) = if let Some(packed) = self.b_packed {
                let all = &packed[g as usize];
                (all[k0 as usize * n..].as_ptr(), n as isize, 1)
            } else if let Some((off, gs, rs, cs)) = self.b_direct {
                let at = off + g * gs + k0 * rs;
                // The f32 weights in place.
                let base = self.b.bytes.as_ptr().cast::<f32>();
                (base.wrapping_add(at as usize), rs as isize, cs as isize)
            } else {
                self.pack_b(g, k0, kc, n, &mut b_panel[..kc * n]);
                (b_panel.as_ptr(), n as isize, 1)
            };
            // SAFETY: A is the m x kc panel, B spans kc x n elements from
            // b_ptr with (b_rs, b_cs) inside the packed panels or the
            // weights' buffer (the problem's extents were checked against
            // it), and acc holds m x n values.
            unsafe {
                gemm::gemm(
                    m,
                    n,
                    kc,
                    acc.as_mut_ptr(),
                    1,
                    n as isize,
                    !first,
                    a_ptr,
                    a_cs,
                    a_rs,
                    b_ptr,
                    b_cs,
                    b_rs,
                    1.0f32,
                    1.0f32,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
            first = false;
            k0 += kc as i64;
        }
        first
    }
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

thread_local! {
    /// Each thread's packing panels and accumulator, kept between jobs and
    /// executions (a fresh large allocation per job is a fresh mapping,
    /// paid again in page faults every time).
    static A_PANEL: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    static B_PANEL: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    static ACC: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the first `len` values of this thread's buffer `key`
/// (grown as needed; its values are whatever was left there).
fn with_panel<R>(
    key: &'static LocalKey<RefCell<Vec<f32>>>,
    len: usize,
    f: impl FnOnce(&mut [f32]) -> R,
) -> R {
    key.with(|cell| {
        let mut v = cell.borrow_mut();
        if v.len() < len {
            v.resize(len, 0.0);
        }
        f(&mut v[..len])
    })
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
        // B: used in place, packed once per group, or gathered per chunk.
        let b_direct = match (p.dir, p.b_plain()) {
            (Dir::Y | Dir::X, Some([off, rs, cs, gs])) if p.w.elem == Elem::F32 => {
                Some((off, gs, rs, cs))
            }
            _ => None,
        };
        let b_packed: Option<Vec<Vec<f32>>> = if p.dir != Dir::W && b_direct.is_none() {
            let one = Job {
                p,
                a,
                b,
                b_packed: None,
                b_direct: None,
                zp_a: None,
                a_direct: None,
            };
            Some(
                (0..groups)
                    .map(|g| {
                        let mut v = vec![0f32; k as usize * n];
                        one.pack_b(g, 0, k as usize, n, &mut v);
                        v
                    })
                    .collect(),
            )
        } else {
            None
        };
        let job = Job {
            p,
            a,
            b,
            b_packed: b_packed.as_deref(),
            b_direct,
            zp_a: zp_a.as_deref(),
            a_direct: match (p.dir, p.a_plain()) {
                (Dir::Y, Some([off, rs, cs, gs])) if p.x.elem == Elem::F32 && zp_a.is_none() => {
                    Some((off, gs, rs, cs))
                }
                _ => None,
            },
        };
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
                            // SAFETY: one element of C, owned by this job.
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
            // SAFETY: one element of C, written by this job only.
            let out = unsafe { host_bytes_mut(c_addr + at as usize * esize, esize) };
            dt::store(c_elem, out, 0, x);
        };
        let ndims = op.dst_ndims();
        // Nothing between the products and the store but the conversion.
        let bare = !epi.src_scale
            && epi.wei_scale.is_none()
            && !epi.dst_scale
            && bias.is_none()
            && epi.post_ops.is_empty()
            && zp_c.is_none();
        if p.dir == Dir::W {
            // Jobs over (group, depth range); partial sums added up per group.
            let parts = parallel::max_threads()
                .min((k as usize).div_ceil(64))
                .max(1);
            let ranges: Vec<(i64, i64, i64)> = (0..groups)
                .flat_map(|g| {
                    let per = ((k + parts as i64 - 1) / parts as i64).max(1);
                    (0..parts as i64).map(move |i| (g, (i * per).min(k), ((i + 1) * per).min(k)))
                })
                .collect();
            let results: Vec<std::sync::Mutex<Vec<f32>>> = ranges
                .iter()
                .map(|_| std::sync::Mutex::new(Vec::new()))
                .collect();
            run_binned((0..ranges.len()).collect(), |i| {
                let (g, k0, k1) = ranges[i];
                let mut acc = vec![0f32; m as usize * n];
                if k1 > k0 {
                    job.accumulate(g, 0..m, k0..k1, n, &mut acc);
                }
                if let Ok(mut slot) = results[i].lock() {
                    *slot = acc;
                }
            });
            let mut pos = vec![0i64; ndims];
            for g in 0..groups {
                let mut total = vec![0f32; m as usize * n];
                for (i, r) in ranges.iter().enumerate() {
                    if r.0 != g {
                        continue;
                    }
                    let part = results[i].lock()?;
                    for (t, v) in total.iter_mut().zip(part.iter()) {
                        *t += v;
                    }
                }
                for row in 0..m {
                    for col in 0..n {
                        let at = p.c_at(g, row, col as i64);
                        store(
                            g,
                            row,
                            col as i64,
                            at,
                            total[row as usize * n + col],
                            &mut pos,
                        );
                    }
                }
            }
        } else {
            // Jobs over (group, row range): ranges of about 512 rows (an A
            // panel that stays in cache; the gemm crate packs B once per call,
            // so much smaller calls pay that more often), as many per group as
            // a multiple of the threads each group gets, for balance.
            let threads = parallel::max_threads();
            let per_thread = threads.div_ceil(groups as usize).max(1);
            let ranges = (m as usize).div_ceil(512).div_ceil(per_thread) * per_thread;
            let chunk = (m as usize).div_ceil(ranges).max(16);
            let jobs: Vec<(i64, i64, i64)> = (0..groups)
                .flat_map(|g| {
                    (0..m)
                        .step_by(chunk)
                        .map(move |r0| (g, r0, (r0 + chunk as i64).min(m)))
                })
                .collect();
            run_binned(jobs, |(g, r0, r1)| {
                let rows = (r1 - r0) as usize;
                with_panel(&ACC, rows * n, |acc| {
                    job.accumulate(g, r0..r1, 0..k, n, acc);
                    let mut pos = vec![0i64; ndims];
                    let cs = p.c_col_stride().unwrap_or(0);
                    for r in 0..rows {
                        let row = r0 + r as i64;
                        let base = p.c_at(g, row, 0);
                        if bare && cs == 1 {
                            let esize = c_elem.size();
                            // SAFETY: this row of C, written by this job only.
                            let out = unsafe {
                                host_bytes_mut(c_addr + base as usize * esize, n * esize)
                            };
                            dt::store_run(c_elem, out, 0, &acc[r * n..(r + 1) * n]);
                            continue;
                        }
                        for col in 0..n {
                            let at = base + col as i64 * cs;
                            store(g, row, col as i64, at, acc[r * n + col], &mut pos);
                        }
                    }
                });
            });
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
