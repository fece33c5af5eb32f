//! PReLU on the CPU engine. The walk's dimensions (output memory order) are
//! merged where every tensor is contiguous across them; when the innermost
//! merged dimension is a run of stride 1 in every tensor (the weights may
//! broadcast it, stride 0), the work is split over the threads in pieces of
//! rows, each loaded, computed and stored a run at a time in f32 buffers.
//! Otherwise each thread walks its range of elements with an odometer of
//! offsets. Backward writes the weights gradient's products to a host
//! buffer and sums them with `common::reduce::cpu`.
//!
//! Layer: prims.

use std::sync::Arc;

use super::{PreluOp, walk};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::host::Raw;
use crate::prims::common::parallel;
use crate::prims::common::post_ops::PostOpsPlan;
use crate::prims::common::reduce::cpu as reduce_cpu;

/// Builds the implementation for `op`.
pub(super) fn create(op: &Arc<PreluOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuPrelu { op: op.clone() }))
}

struct CpuPrelu {
    op: Arc<PreluOp>,
}

/// Calls `f(offsets)` for elements `range` of `dims` (walk order), with
/// each tensor's offset (`base[k]` plus the strides).
fn for_range(
    dims: &[(i64, Vec<i64>)],
    base: &[i64],
    range: std::ops::Range<usize>,
    mut f: impl FnMut(&[i64]),
) {
    let k = base.len();
    let mut pos = vec![0i64; dims.len()];
    let mut off = base.to_vec();
    let mut q = range.start as i64;
    for (d, (size, strides)) in dims.iter().enumerate().rev() {
        pos[d] = q % size;
        q /= size;
        for t in 0..k {
            off[t] += pos[d] * strides[t];
        }
    }
    for _ in range {
        f(&off);
        for (d, (size, strides)) in dims.iter().enumerate().rev() {
            pos[d] += 1;
            for t in 0..k {
                off[t] += strides[t];
            }
            if pos[d] < *size {
                break;
            }
            for t in 0..k {
                off[t] -= size * strides[t];
            }
            pos[d] = 0;
        }
    }
}

/// `dims` (outermost first) with neighbours merged where every tensor
/// steps across the inner one into the outer one (`outer stride == inner
/// size * inner stride`).
fn merged(dims: &[(i64, Vec<i64>)]) -> Vec<(i64, Vec<i64>)> {
    let mut out: Vec<(i64, Vec<i64>)> = Vec::new();
    for (size, strides) in dims {
        match out.last_mut() {
            Some((n, outer)) if outer.iter().zip(strides).all(|(&o, &s)| o == size * s) => {
                *n *= size;
                *outer = strides.clone();
            }
            _ => out.push((*size, strides.clone())),
        }
    }
    out
}

/// Elements per piece of a row (the f32 buffers' length).
const RUN: usize = 2048;

/// The row walk: the outer dimensions, and the innermost one (a run in
/// every tensor whose stride in `runs` is 1; tensors in `bcast` may have
/// stride 0 there, a value repeated along the run).
struct Rows {
    outer: Vec<(i64, Vec<i64>)>,
    len: i64,
    inner: Vec<i64>,
    pieces: i64,
}

impl Rows {
    /// `None` unless the innermost merged dimension has stride 1 in the
    /// tensors `runs` and 0 or 1 in the tensors `bcast`.
    fn new(dims: &[(i64, Vec<i64>)], runs: &[usize], bcast: &[usize]) -> Option<Rows> {
        let mut outer = merged(dims);
        let (len, inner) = outer.pop()?;
        let ok = runs.iter().all(|&t| inner[t] == 1) && bcast.iter().all(|&t| inner[t] <= 1);
        (ok && inner.iter().all(|&s| s >= 0)).then(|| Rows {
            outer,
            len,
            inner,
            pieces: (len + RUN as i64 - 1) / RUN as i64,
        })
    }

    /// The number of pieces (rows times pieces per row).
    fn items(&self) -> usize {
        let rows: i64 = self.outer.iter().map(|d| d.0).product();
        (rows * self.pieces) as usize
    }

    /// Calls `f(offsets, len)` for each piece of `range` (offsets of the
    /// piece's first element in every tensor, then `base`'s).
    fn each(&self, base: &[i64], range: std::ops::Range<usize>, mut f: impl FnMut(&[i64], usize)) {
        let mut off = base.to_vec();
        for item in range {
            let item = item as i64;
            let (mut row, piece) = (item / self.pieces, item % self.pieces);
            off.copy_from_slice(base);
            for (size, strides) in self.outer.iter().rev() {
                let p = row % size;
                row /= size;
                for (o, s) in off.iter_mut().zip(strides) {
                    *o += p * s;
                }
            }
            let first = piece * RUN as i64;
            for (o, s) in off.iter_mut().zip(&self.inner) {
                *o += first * s;
            }
            f(&off, (self.len - first).min(RUN as i64) as usize);
        }
    }
}

/// Elements `off..off + out.len()` of `raw`, or its element `off` repeated
/// when the tensor broadcasts the run (`stride` 0).
fn load(raw: &Raw, off: i64, stride: i64, out: &mut [f32]) {
    if stride == 0 {
        out.fill(raw.load(off));
    } else {
        raw.load_run(off, out);
    }
}

impl Implementation for CpuPrelu {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let mut raws = Vec::new();
        let mut base = Vec::new();
        for (arg, layout) in op.layouts() {
            let buffer = Buffer::of(ctx.arg(arg)?)?;
            raws.push(if layout.nelems() == 0 {
                None
            } else {
                Some(Raw::of(&buffer, layout, "tensor")?)
            });
            base.push(layout.offset0);
        }
        let n = op.nelems() as usize;
        if n == 0 {
            // Backward: a weights gradient of no products is zero.
            if let (Some(reduce), Some(Some(dw))) = (op.reduce(), raws.get(4)) {
                let none = PostOpsPlan::none();
                reduce_cpu::run(reduce, None, *dw, &none.bind(ctx)?)?;
            }
            return Ok(None);
        }
        let r: Vec<Raw> = raws.into_iter().flatten().collect();
        base.push(0);
        let dims = walk(op);
        let ranges = parallel::split(n, 1 << 14);
        if !op.is_backward() {
            let (src, wei, dst) = (r[0], r[1], r[2]);
            if let Some(rows) = Rows::new(&dims, &[0, 2], &[1]) {
                let ws = rows.inner[1];
                let ranges = parallel::split(rows.items(), (1 << 14) / RUN.min(rows.len as usize));
                parallel::run_all(ranges, |range| {
                    let (mut x, mut w) = (vec![0f32; RUN], vec![0f32; RUN]);
                    rows.each(&base, range, |o, len| {
                        let (x, w) = (&mut x[..len], &mut w[..len]);
                        src.load_run(o[0], x);
                        load(&wei, o[1], ws, w);
                        for (x, &w) in x.iter_mut().zip(w.iter()) {
                            *x = if *x > 0.0 { *x } else { *x * w };
                        }
                        dst.store_run(o[2], x);
                    });
                });
                return Ok(None);
            }
            parallel::run_all(ranges, |range| {
                for_range(&dims, &base, range, |o| {
                    let x = src.load(o[0]);
                    let v = if x > 0.0 { x } else { x * wei.load(o[1]) };
                    dst.store(o[2], v);
                });
            });
            return Ok(None);
        }
        let (src, wei, dd, ds, dw) = (r[0], r[1], r[2], r[3], r[4]);
        let mut products = op.reduce().map(|_| vec![0u8; n * 4]);
        let pr = match (op.reduce(), products.as_mut()) {
            (Some(reduce), Some(p)) => {
                let buffer = Buffer::Host {
                    addr: p.as_mut_ptr() as usize,
                    capacity: Some(p.len()),
                };
                Some(Raw::of(&buffer, reduce.src_layout(), "products")?)
            }
            _ => None,
        };
        // The products' tensor: the dense buffer, else diff_weights.
        let pt = if pr.is_some() { 5 } else { 4 };
        if let Some(rows) = Rows::new(&dims, &[0, 2, 3, pt], &[1]) {
            let ws = rows.inner[1];
            let ranges = parallel::split(rows.items(), (1 << 14) / RUN.min(rows.len as usize));
            parallel::run_all(ranges, |range| {
                let mut bufs = vec![0f32; 3 * RUN];
                let (x, rest) = bufs.split_at_mut(RUN);
                let (g, w) = rest.split_at_mut(RUN);
                rows.each(&base, range, |o, len| {
                    let (x, g, w) = (&mut x[..len], &mut g[..len], &mut w[..len]);
                    src.load_run(o[0], x);
                    dd.load_run(o[2], g);
                    load(&wei, o[1], ws, w);
                    for ((x, g), w) in x.iter_mut().zip(g.iter_mut()).zip(w.iter_mut()) {
                        let (xv, gv) = (*x, *g);
                        *w = if xv > 0.0 { gv } else { gv * *w };
                        *x = xv.min(0.0) * gv;
                    }
                    ds.store_run(o[3], w);
                    match pr {
                        Some(pr) => pr.store_run(o[5], x),
                        None => dw.store_run(o[4], x),
                    }
                });
            });
        } else {
            parallel::run_all(ranges, |range| {
                for_range(&dims, &base, range, |o| {
                    let x = src.load(o[0]);
                    let g = dd.load(o[2]);
                    let v = if x > 0.0 { g } else { g * wei.load(o[1]) };
                    ds.store(o[3], v);
                    let p = x.min(0.0) * g;
                    match pr {
                        Some(pr) => pr.store(o[5], p),
                        None => dw.store(o[4], p),
                    }
                });
            });
        }
        if let (Some(reduce), Some(pr)) = (op.reduce(), pr) {
            let none = PostOpsPlan::none();
            let post = none.bind(ctx)?;
            reduce_cpu::run(reduce, Some(pr), dw, &post)?;
        }
        drop(products);
        Ok(None)
    }
}
