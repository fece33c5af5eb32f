//! Resampling on the CPU engine.
//!
//! Layer: prims. Both layouts are plain (no inner blocks, no padding: the
//! descriptor refuses the others), so an element's offset is a sum of
//! position times stride. The coordinate mapping is tabulated once per
//! execution and spatial slot; the output's rows (all positions but the
//! innermost spatial one) are split over the host's threads. Forward
//! resamples each source row along the width once (kept in a small
//! per-thread cache) and makes an output row the weighted sum of its one
//! (nearest) or two to four (linear) source rows, stored as a run
//! (`forward_rows`); backward gathers, per diff_src element, the outputs
//! whose taps land on it, stored one element at a time. Threads never
//! share a view; an input that overlaps the output is copied first.

use std::sync::Arc;

use super::{Alg, Geometry, ResamplingOp, linear_taps, nearest_index, touching, weight};
use crate::abi::{DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_DST, DNNL_ARG_SRC};
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
pub(super) fn create(op: &Arc<ResamplingOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuResampling { op: op.clone() }))
}

struct CpuResampling {
    op: Arc<ResamplingOp>,
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

/// Origin and the strides of n, c and the three spatial slots of a plain
/// layout (0 for the slots the op leaves out).
fn strides(geo: &Geometry, l: &Layout) -> (i64, [i64; 5]) {
    let st = l.outer_strides();
    let mut s = [st[0], st[1], 0, 0, 0];
    for j in 0..3 {
        if let Some(d) = geo.dim_of_slot(j) {
            s[2 + j] = st[d];
        }
    }
    (l.offset0, s)
}

/// Per output position along one slot: the taps (source index, weight).
type Taps = Vec<[(i64, f32); 2]>;

/// The forward taps of slot `j`: one (nearest, or a slot the op leaves
/// out) or two (linear) per output position.
fn forward_taps(alg: Alg, geo: &Geometry, j: usize) -> (Taps, usize) {
    let (i, o) = (geo.i[j], geo.o[j]);
    let linear = alg == Alg::Linear && geo.dim_of_slot(j).is_some();
    let taps = (0..o)
        .map(|x| {
            if linear {
                let (a, b, w) = linear_taps(x, i, o);
                [(a, 1.0 - w), (b, w)]
            } else {
                [(nearest_index(x, i, o), 1.0), (0, 0.0)]
            }
        })
        .collect();
    (taps, if linear { 2 } else { 1 })
}

/// The backward gather of slot `j`: per source index, the output positions
/// that read it and with what weight.
fn backward_taps(alg: Alg, geo: &Geometry, j: usize) -> Vec<Vec<(i64, f32)>> {
    let (big_i, big_o) = (geo.i[j], geo.o[j]);
    (0..big_i)
        .map(|i| {
            let (lo, hi) = touching(alg, i, big_i, big_o);
            (lo..=hi)
                .filter_map(|o| {
                    let w = weight(alg, o, i, big_i, big_o);
                    (w != 0.0).then_some((o, w))
                })
                .collect()
        })
        .collect()
}

/// Source rows resampled along the width, the last few a thread made:
/// output rows that read the same source rows (upsampling, both taps of
/// linear) reuse them.
struct RowCache {
    rows: Vec<f32>,
    keys: Vec<Option<(i64, i64, i64, i64)>>,
    width: usize,
    next: usize,
}

/// Rows a [`RowCache`] keeps (an output row reads at most 4).
const CACHED: usize = 8;

impl RowCache {
    fn new(width: usize) -> RowCache {
        RowCache {
            rows: vec![0f32; CACHED * width],
            keys: vec![None; CACHED],
            width,
            next: 0,
        }
    }

    /// The slot of `key`, made by `fill` if absent (evicting, round robin,
    /// a slot not in `keep`).
    fn slot(
        &mut self,
        key: (i64, i64, i64, i64),
        keep: &[usize],
        fill: impl FnOnce(&mut [f32]),
    ) -> usize {
        if let Some(k) = self.keys.iter().position(|k| *k == Some(key)) {
            return k;
        }
        let mut k = self.next;
        while keep.contains(&k) {
            k = (k + 1) % CACHED;
        }
        self.next = (k + 1) % CACHED;
        self.keys[k] = Some(key);
        fill(&mut self.rows[k * self.width..(k + 1) * self.width]);
        k
    }

    fn row(&self, k: usize) -> &[f32] {
        &self.rows[k * self.width..(k + 1) * self.width]
    }
}

/// Forward a row of dst at a time (rows `(n, c, o0, o1)` split over the
/// threads): each source row the row's taps read is loaded (a run where
/// src's width is dense) and resampled along the width through the
/// tabulated taps, kept in a [`RowCache`] for the next output rows; the
/// row is the weighted sum of those (a copy for nearest), stored as a run
/// where dst's width is dense.
fn forward_rows(
    op: &ResamplingOp,
    tables: &[(Taps, usize)],
    src: Raw,
    out: Raw,
    sum: Option<Raw>,
    post: &crate::prims::common::post_ops::HostPostOps,
) {
    let (sl, dl) = (op.src_layout(), op.dst_layout());
    let geo = *op.geometry();
    let with_post = !op.post_ops().is_empty();
    let (s0, ss) = strides(&geo, sl);
    let (d0, ds) = strides(&geo, dl);
    let (iw, ow) = (geo.i[2] as usize, geo.o[2] as usize);
    let rows = (geo.mb * geo.c * geo.o[0] * geo.o[1]) as usize;
    let nd = dl.ndims;
    // Width taps: source indices and weights.
    let (tab2, n2) = (&tables[2].0, tables[2].1);
    let first: Vec<usize> = tab2.iter().map(|t| t[0].0 as usize).collect();
    let second: Vec<usize> = tab2.iter().map(|t| t[1].0 as usize).collect();
    let w_first: Vec<f32> = tab2.iter().map(|t| t[0].1).collect();
    let w_second: Vec<f32> = tab2.iter().map(|t| t[1].1).collect();
    let ranges = parallel::split(rows, CHUNK.div_ceil(ow.max(1)));
    parallel::run_all(ranges, |range| {
        let mut line = vec![0f32; iw];
        let mut cache = RowCache::new(ow);
        let mut acc = vec![0f32; ow];
        let mut res = vec![0f32; ow];
        let mut pos = [0i64; MAX_NDIMS];
        // (cache slot, weight) of the row's source rows.
        let mut taps: Vec<(usize, f32)> = Vec::with_capacity(4);
        let mut keep: Vec<usize> = Vec::with_capacity(4);
        for r in range {
            let r = r as i64;
            let y1 = r % geo.o[1];
            let y0 = r / geo.o[1] % geo.o[0];
            let c = r / (geo.o[1] * geo.o[0]) % geo.c;
            let n = r / (geo.o[1] * geo.o[0] * geo.c);
            let (t0, n0) = (&tables[0].0[y0 as usize], tables[0].1);
            let (t1, n1) = (&tables[1].0[y1 as usize], tables[1].1);
            let src_nc = s0 + n * ss[0] + c * ss[1];
            taps.clear();
            keep.clear();
            for &(a, wa) in &t0[..n0] {
                for &(b, wb) in &t1[..n1] {
                    let k = cache.slot((n, c, a, b), &keep, |h| {
                        let base = src_nc + a * ss[2] + b * ss[3];
                        if ss[4] == 1 {
                            src.load_run(base, &mut line);
                        } else {
                            for (x, v) in line.iter_mut().enumerate() {
                                *v = src.load(base + x as i64 * ss[4]);
                            }
                        }
                        if n2 == 1 {
                            for (h, &i) in h.iter_mut().zip(&first) {
                                *h = line[i];
                            }
                        } else {
                            let it = h.iter_mut().zip(first.iter().zip(&second));
                            for ((h, (&i, &j)), (&u, &v)) in it.zip(w_first.iter().zip(&w_second)) {
                                *h = u * line[i] + v * line[j];
                            }
                        }
                    });
                    keep.push(k);
                    taps.push((k, wa * wb));
                }
            }
            let values: &[f32] = if taps.len() == 1 && taps[0].1 == 1.0 {
                cache.row(taps[0].0)
            } else {
                let (k, w) = taps[0];
                for (a, &h) in acc.iter_mut().zip(cache.row(k)) {
                    *a = w * h;
                }
                for &(k, w) in &taps[1..] {
                    for (a, &h) in acc.iter_mut().zip(cache.row(k)) {
                        *a += w * h;
                    }
                }
                &acc
            };
            let dst_row = d0 + n * ds[0] + c * ds[1] + y0 * ds[2] + y1 * ds[3];
            let values: &[f32] = if with_post {
                pos[0] = n;
                pos[1] = c;
                for (j, &v) in [y0, y1].iter().enumerate() {
                    if let Some(d) = geo.dim_of_slot(j) {
                        pos[d] = v;
                    }
                }
                for (y2, (o, &a)) in res.iter_mut().zip(values.iter()).enumerate() {
                    if let Some(d) = geo.dim_of_slot(2) {
                        pos[d] = y2 as i64;
                    }
                    let off = dst_row + y2 as i64 * ds[4];
                    let old = sum.map_or(0.0, |s| s.load(off));
                    *o = post.apply(a, old, &pos[..nd]);
                }
                &res
            } else {
                values
            };
            if ds[4] == 1 {
                out.store_run(dst_row, values);
            } else {
                for (y2, &v) in values.iter().enumerate() {
                    out.store(dst_row + y2 as i64 * ds[4], v);
                }
            }
        }
    });
}

/// Output elements per thread at least.
const CHUNK: usize = 1 << 13;

impl Implementation for CpuResampling {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        if self.op.is_backward() {
            self.backward(ctx)
        } else {
            self.forward(ctx)
        }
    }
}

impl CpuResampling {
    fn forward(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let (sl, dl) = (op.src_layout(), op.dst_layout());
        let src_buf = Buffer::of(ctx.arg(DNNL_ARG_SRC)?)?;
        let dst_buf = Buffer::of(ctx.arg(DNNL_ARG_DST)?)?;
        if dl.nelems() == 0 {
            return Ok(None);
        }
        let out = Raw::of(&dst_buf, dl, "dst")?;
        let empty_src = sl.nelems() == 0;
        let (src, _copy) = if empty_src {
            (out, None)
        } else {
            input(&src_buf, sl, &out, dl)?
        };
        let post = op.post_ops().bind(ctx)?;
        let sum = op.post_ops().sum_elem(dl.elem).map(|e| out.with_elem(e));
        let with_post = !op.post_ops().is_empty();
        let geo = *op.geometry();
        let alg = op.alg();
        let tables: Vec<(Taps, usize)> = (0..3).map(|j| forward_taps(alg, &geo, j)).collect();
        if !empty_src {
            forward_rows(op, &tables, src, out, sum, &post);
            return Ok(None);
        }
        let (s0, ss) = strides(&geo, sl);
        let (d0, ds) = strides(&geo, dl);
        let row_len = geo.o[2] as usize;
        let rows = (geo.mb * geo.c * geo.o[0] * geo.o[1]) as usize;
        let nd = dl.ndims;
        let ranges = parallel::split(rows, CHUNK.div_ceil(row_len.max(1)));
        parallel::run_all(ranges, |range| {
            let mut pos = [0i64; MAX_NDIMS];
            for r in range {
                let r = r as i64;
                let y1 = r % geo.o[1];
                let y0 = r / geo.o[1] % geo.o[0];
                let c = r / (geo.o[1] * geo.o[0]) % geo.c;
                let n = r / (geo.o[1] * geo.o[0] * geo.c);
                pos[0] = n;
                pos[1] = c;
                let y = [y0, y1];
                for (j, &v) in y.iter().enumerate() {
                    if let Some(d) = geo.dim_of_slot(j) {
                        pos[d] = v;
                    }
                }
                let src_nc = s0 + n * ss[0] + c * ss[1];
                let dst_row = d0 + n * ds[0] + c * ds[1] + y0 * ds[2] + y1 * ds[3];
                let (t0, n0) = (&tables[0].0[y0 as usize], tables[0].1);
                let (t1, n1) = (&tables[1].0[y1 as usize], tables[1].1);
                let (tab2, n2) = (&tables[2].0, tables[2].1);
                for y2 in 0..geo.o[2] {
                    let t2 = &tab2[y2 as usize];
                    let mut acc = 0.0f32;
                    if !empty_src {
                        for &(a, wa) in &t0[..n0] {
                            let oa = src_nc + a * ss[2];
                            for &(b, wb) in &t1[..n1] {
                                let ob = oa + b * ss[3];
                                let wab = wa * wb;
                                for &(e, we) in &t2[..n2] {
                                    acc += wab * we * src.load(ob + e * ss[4]);
                                }
                            }
                        }
                    }
                    let off = dst_row + y2 * ds[4];
                    if with_post {
                        if let Some(d) = geo.dim_of_slot(2) {
                            pos[d] = y2;
                        }
                        let old = sum.map_or(0.0, |s| s.load(off));
                        acc = post.apply(acc, old, &pos[..nd]);
                    }
                    out.store(off, acc);
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
        if sl.nelems() == 0 {
            return Ok(None);
        }
        let out = Raw::of(&ds_buf, sl, "diff_src")?;
        let empty_dd = dl.nelems() == 0;
        let (dd, _copy) = if empty_dd {
            (out, None)
        } else {
            input(&dd_buf, dl, &out, sl)?
        };
        let geo = *op.geometry();
        let alg = op.alg();
        let tables: Vec<Vec<Vec<(i64, f32)>>> =
            (0..3).map(|j| backward_taps(alg, &geo, j)).collect();
        let (s0, ss) = strides(&geo, sl);
        let (d0, ds) = strides(&geo, dl);
        let row_len = geo.i[2] as usize;
        let rows = (geo.mb * geo.c * geo.i[0] * geo.i[1]) as usize;
        let ranges = parallel::split(rows, CHUNK.div_ceil(row_len.max(1)));
        parallel::run_all(ranges, |range| {
            for r in range {
                let r = r as i64;
                let x1 = r % geo.i[1];
                let x0 = r / geo.i[1] % geo.i[0];
                let c = r / (geo.i[1] * geo.i[0]) % geo.c;
                let n = r / (geo.i[1] * geo.i[0] * geo.c);
                let dd_nc = d0 + n * ds[0] + c * ds[1];
                let src_row = s0 + n * ss[0] + c * ss[1] + x0 * ss[2] + x1 * ss[3];
                let t0 = &tables[0][x0 as usize];
                let t1 = &tables[1][x1 as usize];
                for x2 in 0..geo.i[2] {
                    let t2 = &tables[2][x2 as usize];
                    let mut acc = 0.0f32;
                    if !empty_dd {
                        for &(a, wa) in t0 {
                            let oa = dd_nc + a * ds[2];
                            for &(b, wb) in t1 {
                                let ob = oa + b * ds[3];
                                let wab = wa * wb;
                                for &(e, we) in t2 {
                                    acc += wab * we * dd.load(ob + e * ds[4]);
                                }
                            }
                        }
                    }
                    out.store(src_row + x2 * ss[4], acc);
                }
            }
        });
        Ok(None)
    }
}
