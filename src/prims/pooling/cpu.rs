//! Pooling on the CPU engine.
//!
//! Layer: prims. Forward over plain layouts goes a dst row at a time
//! (`forward_rows`: source rows read as runs into a padded line, each
//! kernel column's taps one pass over it). Otherwise the output's padded
//! positions (dst forward, diff_src backward) are split over the host's
//! threads in row-major order; each element is computed from the window
//! (forward) or gathered from the windows covering it (backward) and stored
//! through `common::host::Raw` one element at a time, so threads never
//! share a view. Positions in the padding of a blocked output get zeros.
//! An input that overlaps the output is copied first.

use std::sync::Arc;

use super::{Alg, Geometry, PoolingOp};
use crate::abi::{
    DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_DST, DNNL_ARG_SRC, DNNL_ARG_WORKSPACE,
};
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
use crate::prims::common::post_ops::HostPostOps;

/// Builds the implementation for `op`.
pub(super) fn create(op: &Arc<PoolingOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuPooling { op: op.clone() }))
}

struct CpuPooling {
    op: Arc<PoolingOp>,
}

/// The lowest value of `elem`: where a max starts (upstream's reference
/// starts there too, so a window entirely in the padding gives it).
pub(crate) fn lowest(elem: Elem) -> f32 {
    match elem {
        Elem::F32 => f32::MIN,
        Elem::F16 => -65504.0,
        Elem::Bf16 => f32::from_bits(0xff7f_0000),
        Elem::S32 => -2_147_483_648.0,
        Elem::S8 => -128.0,
        Elem::U8 => 0.0,
    }
}

/// An input buffer, copied when it overlaps the output.
fn input(buf: &Buffer, l: &Layout, out: &Raw, lo: &Layout) -> Result<(Raw, Option<Vec<u8>>)> {
    let raw = Raw::of(buf, l, "input")?;
    if host::must_copy(&raw, l, out, lo) {
        let copy = host::copy(&raw, l);
        return Ok((Raw::over(&copy, l.elem), Some(copy)));
    }
    Ok((raw, None))
}

/// The padded position of the `t`-th padded element (row-major) of `l`,
/// and whether it lies inside the logical tensor; `logical` gets the
/// logical position.
fn position(l: &Layout, t: i64, p: &mut [i64; MAX_NDIMS], logical: &mut [i64; MAX_NDIMS]) -> bool {
    let mut rest = t;
    let mut inside = true;
    for d in (0..l.ndims).rev() {
        p[d] = rest % l.padded_dims[d];
        rest /= l.padded_dims[d];
        logical[d] = p[d] - l.padded_offsets[d];
        inside &= (0..l.dims[d]).contains(&logical[d]);
    }
    inside
}

/// Normalised spatial coordinates of a logical position.
fn spatial(geo: &Geometry, logical: &[i64; MAX_NDIMS]) -> [i64; 3] {
    let mut o = [0i64; 3];
    for (j, v) in o.iter_mut().enumerate() {
        if let Some(d) = geo.dim_of_slot(j) {
            *v = logical[d];
        }
    }
    o
}

/// Sets the padded position in `l` of logical `(n, c, x)`.
fn place(geo: &Geometry, l: &Layout, n: i64, c: i64, x: [i64; 3], q: &mut [i64; MAX_NDIMS]) {
    q[0] = n + l.padded_offsets[0];
    q[1] = c + l.padded_offsets[1];
    for (j, &v) in x.iter().enumerate() {
        if let Some(d) = geo.dim_of_slot(j) {
            q[d] = v + l.padded_offsets[d];
        }
    }
}

/// Where logical `(n, c, x)` lives in a layout: by strides where the
/// layout has no inner blocks (one multiply-add per dimension), else
/// through [`Layout::offset`].
struct Locator<'a> {
    geo: Geometry,
    layout: &'a Layout,
    /// Offset of the origin (padded offsets included) and the strides of
    /// n, c and the three slots, for a layout without inner blocks.
    plain: Option<(i64, [i64; 5])>,
}

impl<'a> Locator<'a> {
    fn new(geo: &Geometry, layout: &'a Layout) -> Locator<'a> {
        let plain = layout.inner_blocks().is_empty().then(|| {
            let st = layout.outer_strides();
            let mut origin = layout.offset0;
            for d in 0..layout.ndims {
                origin += layout.padded_offsets[d] * st[d];
            }
            let mut s = [st[0], st[1], 0, 0, 0];
            for j in 0..3 {
                if let Some(d) = geo.dim_of_slot(j) {
                    s[2 + j] = st[d];
                }
            }
            (origin, s)
        });
        Locator {
            geo: *geo,
            layout,
            plain,
        }
    }

    fn at(&self, n: i64, c: i64, x: [i64; 3]) -> i64 {
        match &self.plain {
            Some((origin, s)) => {
                origin + n * s[0] + c * s[1] + x[0] * s[2] + x[1] * s[3] + x[2] * s[4]
            }
            None => {
                let mut q = [0i64; MAX_NDIMS];
                place(&self.geo, self.layout, n, c, x, &mut q);
                self.layout.offset(&q)
            }
        }
    }
}

/// Forward's bound arguments (see `CpuPooling::forward_args`).
struct ForwardArgs<'a> {
    src: Raw,
    out: Raw,
    /// The workspace and its layout, where the primitive has one.
    ws: Option<(Raw, &'a Layout)>,
    post: HostPostOps<'a>,
    /// The copy of src that `src` reads, when src overlapped dst (a move
    /// leaves its heap bytes where they are).
    _copy: Option<Vec<u8>>,
}

/// Elements per thread at least.
const CHUNK: usize = 1 << 12;

impl Implementation for CpuPooling {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        if self.op.is_backward() {
            self.backward(ctx)
        } else {
            self.forward(ctx)
        }
    }
}

impl CpuPooling {
    /// The forward arguments both paths start from, checked to hold their
    /// layouts, src copied where it overlaps dst, the post-ops bound; `None`
    /// when dst has no elements (nothing to do).
    fn forward_args<'a>(&'a self, ctx: &ExecContext<'a>) -> Result<Option<ForwardArgs<'a>>> {
        let op = &self.op;
        let (sl, dl) = (op.src_layout(), op.dst_layout());
        let src_buf = Buffer::of(ctx.arg(DNNL_ARG_SRC)?)?;
        let dst_buf = Buffer::of(ctx.arg(DNNL_ARG_DST)?)?;
        let ws_buf = match op.ws_layout() {
            Some(_) => Some(Buffer::of(ctx.arg(DNNL_ARG_WORKSPACE)?)?),
            None => None,
        };
        if dl.padded_nelems() == 0 {
            return Ok(None);
        }
        let out = Raw::of(&dst_buf, dl, "dst")?;
        let ws = match (&ws_buf, op.ws_layout()) {
            (Some(b), Some(l)) => Some((Raw::of(b, l, "workspace")?, l)),
            _ => None,
        };
        let (src, _copy) = input(&src_buf, sl, &out, dl)?;
        let post = op.post_ops().bind(ctx)?;
        Ok(Some(ForwardArgs {
            src,
            out,
            ws,
            post,
            _copy,
        }))
    }

    fn forward(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let (sl, dl) = (op.src_layout(), op.dst_layout());
        let plain = |l: &Layout| l.inner_blocks().is_empty() && !l.has_padding();
        if plain(sl) && plain(dl) && op.ws_layout().is_none_or(plain) {
            return self.forward_rows(ctx);
        }
        let Some(ForwardArgs {
            src,
            out,
            ws,
            post,
            _copy,
        }) = self.forward_args(ctx)?
        else {
            return Ok(None);
        };
        let geo = *op.geometry();
        let alg = op.alg();
        let start = lowest(sl.elem);
        let at_src = Locator::new(&geo, sl);
        let ranges = parallel::split(dl.padded_nelems() as usize, CHUNK);
        parallel::run_all(ranges, |range| {
            let mut p = [0i64; MAX_NDIMS];
            let mut logical = [0i64; MAX_NDIMS];
            for t in range {
                let inside = position(dl, t as i64, &mut p, &mut logical);
                let off = dl.offset(&p);
                if !inside {
                    out.store(off, 0.0);
                    if let Some((w, wl)) = &ws {
                        w.store(wl.offset(&p), 0.0);
                    }
                    continue;
                }
                let (n, c) = (logical[0], logical[1]);
                let o = spatial(&geo, &logical);
                let mut acc = if alg == Alg::Max { start } else { 0.0 };
                let mut best = 0i64;
                for k0 in 0..geo.k[0] {
                    let x0 = o[0] * geo.s[0] + k0 * geo.d[0] - geo.p[0];
                    if !(0..geo.i[0]).contains(&x0) {
                        continue;
                    }
                    for k1 in 0..geo.k[1] {
                        let x1 = o[1] * geo.s[1] + k1 * geo.d[1] - geo.p[1];
                        if !(0..geo.i[1]).contains(&x1) {
                            continue;
                        }
                        for k2 in 0..geo.k[2] {
                            let x2 = o[2] * geo.s[2] + k2 * geo.d[2] - geo.p[2];
                            if !(0..geo.i[2]).contains(&x2) {
                                continue;
                            }
                            let v = src.load(at_src.at(n, c, [x0, x1, x2]));
                            if alg == Alg::Max {
                                if v > acc {
                                    acc = v;
                                    best = (k0 * geo.k[1] + k1) * geo.k[2] + k2;
                                }
                            } else {
                                acc += v;
                            }
                        }
                    }
                }
                if alg != Alg::Max {
                    acc /= geo.divisor(alg, o);
                }
                let v = post.apply(acc, 0.0, &logical[..dl.ndims]);
                out.store(off, v);
                if let Some((w, wl)) = &ws {
                    w.store(wl.offset(&p), best as f32);
                }
            }
        });
        Ok(None)
    }

    /// Forward over plain layouts (no inner blocks, no padding), a row of
    /// the output at a time: the work is split over the threads by rows
    /// `(n, c, od, oh)`; each source row a window touches is read once into
    /// an f32 buffer (one contiguous run where W is dense), the row's
    /// results gathered in f32 and stored as one run where dst's W is dense.
    /// The same taps in the same order as the general path (so the same
    /// maximum on ties and the same sums).
    fn forward_rows(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let (sl, dl) = (op.src_layout(), op.dst_layout());
        let Some(ForwardArgs {
            src,
            out,
            ws,
            post,
            _copy,
        }) = self.forward_args(ctx)?
        else {
            return Ok(None);
        };
        let with_post = !op.post_ops().is_empty();
        let geo = *op.geometry();
        let alg = op.alg();
        let start = lowest(sl.elem);
        let at_src = Locator::new(&geo, sl);
        let at_dst = Locator::new(&geo, dl);
        let at_ws = op.ws_layout().map(|l| Locator::new(&geo, l));
        let src_w = at_src.plain.map_or(0, |(_, s)| s[4]);
        let dst_w = at_dst.plain.map_or(0, |(_, s)| s[4]);
        // Per output column: the first and last tap inside the source and
        // the divisor's factor of the width slot.
        let (o0, o1, o2) = (geo.o[0], geo.o[1], geo.o[2]);
        let (i2, k2n) = (geo.i[2], geo.k[2]);
        let taps_w: Vec<i64> = (0..o2).map(|x| geo.taps_inside(2, x)).collect();
        // The source row sits in a line padded on both sides with the
        // algorithm's neutral value (0 for sums; the lowest value for max,
        // which never wins), so that every tap of every output column is
        // inside: source x at `x + lead`, tap k of column y at
        // `y * stride + k * dilation` (`lead - padding` added).
        let lead = geo.p[2].max(0);
        let shift = lead - geo.p[2];
        let last_tap = ((o2 - 1) * geo.s[2] + (k2n - 1) * geo.d[2] + shift).max(0);
        let padded = (lead + i2).max(last_tap + 1) as usize;
        let fill = if alg == Alg::Max { start } else { 0.0 };
        let rows = (geo.mb * geo.c * o0 * o1) as usize;
        let ranges = parallel::split(rows, CHUNK.div_ceil(o2.max(1) as usize));
        let nd = dl.ndims;
        parallel::run_all(ranges, |range| {
            let mut padded_line = vec![fill; padded];
            let mut acc = vec![0f32; o2 as usize];
            let mut best = vec![0i64; o2 as usize];
            let mut pos = [0i64; MAX_NDIMS];
            for r in range {
                let r = r as i64;
                let y1 = r % o1;
                let y0 = r / o1 % o0;
                let c = r / (o1 * o0) % geo.c;
                let n = r / (o1 * o0 * geo.c);
                acc.fill(if alg == Alg::Max { start } else { 0.0 });
                best.fill(0);
                for k0 in 0..geo.k[0] {
                    let x0 = y0 * geo.s[0] + k0 * geo.d[0] - geo.p[0];
                    if !(0..geo.i[0]).contains(&x0) {
                        continue;
                    }
                    for k1 in 0..geo.k[1] {
                        let x1 = y1 * geo.s[1] + k1 * geo.d[1] - geo.p[1];
                        if !(0..geo.i[1]).contains(&x1) {
                            continue;
                        }
                        let base = at_src.at(n, c, [x0, x1, 0]);
                        let line = &mut padded_line[lead as usize..(lead + i2) as usize];
                        if src_w == 1 {
                            src.load_run(base, line);
                        } else {
                            for (x2, v) in line.iter_mut().enumerate() {
                                *v = src.load(base + x2 as i64 * src_w);
                            }
                        }
                        let kbase = (k0 * geo.k[1] + k1) * k2n;
                        let step = geo.s[2] as usize;
                        for k2 in 0..k2n {
                            let from = (k2 * geo.d[2] + shift) as usize;
                            let taps = padded_line[from..].iter().step_by(step);
                            if alg == Alg::Max && ws.is_some() {
                                let at = kbase + k2;
                                for ((a, b), &v) in acc.iter_mut().zip(best.iter_mut()).zip(taps) {
                                    if v > *a {
                                        *a = v;
                                        *b = at;
                                    }
                                }
                            } else if alg == Alg::Max {
                                // No workspace: the maximum alone (a select).
                                for (a, &v) in acc.iter_mut().zip(taps) {
                                    *a = if v > *a { v } else { *a };
                                }
                            } else if step == 1 {
                                let taps = &padded_line[from..from + o2 as usize];
                                for (a, &v) in acc.iter_mut().zip(taps) {
                                    *a += v;
                                }
                            } else {
                                for (a, &v) in acc.iter_mut().zip(taps) {
                                    *a += v;
                                }
                            }
                        }
                    }
                }
                if alg != Alg::Max {
                    let outer = match alg {
                        Alg::AvgExcludePadding => {
                            (geo.taps_inside(0, y0) * geo.taps_inside(1, y1)) as f32
                        }
                        _ => geo.window() as f32,
                    };
                    for (y2, a) in acc.iter_mut().enumerate() {
                        let div = if alg == Alg::AvgExcludePadding {
                            outer * taps_w[y2] as f32
                        } else {
                            outer
                        };
                        *a /= div;
                    }
                }
                if with_post {
                    pos[0] = n;
                    pos[1] = c;
                    for (j, v) in [y0, y1].into_iter().enumerate() {
                        if let Some(d) = geo.dim_of_slot(j) {
                            pos[d] = v;
                        }
                    }
                    let dw = geo.dim_of_slot(2).unwrap_or(2);
                    for (y2, a) in acc.iter_mut().enumerate() {
                        pos[dw] = y2 as i64;
                        *a = post.apply(*a, 0.0, &pos[..nd]);
                    }
                }
                let row = at_dst.at(n, c, [y0, y1, 0]);
                if dst_w == 1 {
                    out.store_run(row, &acc);
                } else {
                    for (y2, &a) in acc.iter().enumerate() {
                        out.store(row + y2 as i64 * dst_w, a);
                    }
                }
                if let (Some((w, _)), Some(at)) = (&ws, &at_ws) {
                    for (y2, &b) in best.iter().enumerate() {
                        w.store(at.at(n, c, [y0, y1, y2 as i64]), b as f32);
                    }
                }
            }
        });
        Ok(None)
    }

    fn backward(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let (sl, dl) = (op.src_layout(), op.dst_layout());
        let dd_buf = Buffer::of(ctx.arg(DNNL_ARG_DIFF_DST)?)?;
        let ds_buf = Buffer::of(ctx.arg(DNNL_ARG_DIFF_SRC)?)?;
        let ws_buf = match op.ws_layout() {
            Some(_) => Some(Buffer::of(ctx.arg(DNNL_ARG_WORKSPACE)?)?),
            None => None,
        };
        if sl.padded_nelems() == 0 {
            return Ok(None);
        }
        let out = Raw::of(&ds_buf, sl, "diff_src")?;
        let (dd, _copy) = input(&dd_buf, dl, &out, sl)?;
        let ws = match (&ws_buf, op.ws_layout()) {
            (Some(b), Some(l)) => {
                let (raw, copy) = input(b, l, &out, sl)?;
                Some((raw, Locator::new(op.geometry(), l), copy))
            }
            _ => None,
        };
        let geo = *op.geometry();
        let alg = op.alg();
        let at_dd = Locator::new(&geo, dl);
        let ranges = parallel::split(sl.padded_nelems() as usize, CHUNK);
        parallel::run_all(ranges, |range| {
            let mut p = [0i64; MAX_NDIMS];
            let mut logical = [0i64; MAX_NDIMS];
            for t in range {
                let inside = position(sl, t as i64, &mut p, &mut logical);
                let off = sl.offset(&p);
                if !inside {
                    out.store(off, 0.0);
                    continue;
                }
                let (n, c) = (logical[0], logical[1]);
                let x = spatial(&geo, &logical);
                // The output positions whose window covers x, per slot.
                let taps = |j: usize| {
                    (0..geo.k[j]).filter_map(move |k| {
                        let at = x[j] + geo.p[j] - k * geo.d[j];
                        (at >= 0 && at % geo.s[j] == 0 && at / geo.s[j] < geo.o[j])
                            .then_some((k, at / geo.s[j]))
                    })
                };
                let mut acc = 0.0f32;
                for (k0, o0) in taps(0) {
                    for (k1, o1) in taps(1) {
                        for (k2, o2) in taps(2) {
                            let g = dd.load(at_dd.at(n, c, [o0, o1, o2]));
                            match &ws {
                                Some((w, at_ws, _)) => {
                                    let at = (k0 * geo.k[1] + k1) * geo.k[2] + k2;
                                    if w.load(at_ws.at(n, c, [o0, o1, o2])) as i64 == at {
                                        acc += g;
                                    }
                                }
                                None => acc += g / geo.divisor(alg, [o0, o1, o2]),
                            }
                        }
                    }
                }
                out.store(off, acc);
            }
        });
        Ok(None)
    }
}
