//! The GEMM engine's CPU run: [`run`] computes a [`Gemm`](super::Gemm) with
//! its epilogue on the CPU engine. Matmul and inner product run their
//! `cpu:gemm` implementations on it.
//!
//! Layer: prims. The products run in the `gemm` crate, in f32: f32 operands
//! are handed over in place with their strides (transposes cost nothing),
//! f16 and bf16 ones are converted to f32 panels first. Work is split over
//! the host's threads by rows of the output (all batches' rows in one
//! range), each thread calling the crate single-threaded on its rows; the
//! threads are persistent workers (the crate keeps per-thread packing
//! buffers). An f32 dst without a sum post-op is written in place. The
//! epilogue (scales, bias, post-ops, conversion and store) runs in Rust on
//! each thread's rows, which no other thread writes. Int8 operands go to
//! `int8.rs` (exact s32 accumulation).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::mpsc::{self, Sender};
use std::sync::{Mutex, OnceLock};

use super::blocked::{self, Mat, Path, Problem, Tile};
use super::{Epilogue, Gemm, GemmArgs, Operand, WeiScale};
use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::primitive::ExecContext;
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::parallel;
use crate::prims::common::post_ops::HostPostOps;

/// Reads the f32 scales of argument `arg` (`count` values).
fn scales(ctx: &ExecContext, arg: i32, count: usize) -> Result<Vec<f32>> {
    let buffer = Buffer::values(ctx.arg(DNNL_ARG_ATTR_SCALES | arg)?, count * 4, "scales")?;
    if !matches!(buffer, Buffer::Host { .. }) {
        return Err(Error::invalid("the scales memory is not host memory"));
    }
    // SAFETY: the scales memory holds `count` f32 values (checked where
    // the library allocated it; a user pointer is trusted, as upstream).
    let bytes = unsafe { host_bytes(buffer.host_addr(), count * 4) };
    let mut out = vec![0f32; count];
    dt::load_run(Elem::F32, bytes, 0, &mut out);
    Ok(out)
}

/// The scale values of one execution.
pub(crate) struct Scales {
    pub src: f32,
    /// Per N (one value repeated when common).
    pub wei: Vec<f32>,
    /// 1 / dst scale.
    pub dst_inv: f32,
}

impl Scales {
    pub(crate) fn read(ctx: &ExecContext, epi: &Epilogue, n: usize) -> Result<Scales> {
        let src = if epi.src_scale {
            scales(ctx, DNNL_ARG_SRC, 1)?[0]
        } else {
            1.0
        };
        let wei = match epi.wei_scale {
            None => vec![1.0; n],
            Some(WeiScale::Common) => vec![scales(ctx, DNNL_ARG_WEIGHTS, 1)?[0]; n],
            Some(WeiScale::PerN) => scales(ctx, DNNL_ARG_WEIGHTS, n)?,
        };
        let dst_inv = if epi.dst_scale {
            1.0 / scales(ctx, DNNL_ARG_DST, 1)?[0]
        } else {
            1.0
        };
        Ok(Scales { src, wei, dst_inv })
    }
}

/// The part of the epilogue the float and int8 GEMMs share, row by row:
/// each value times the src and weights scales, plus the bias, through the
/// post-ops (a sum reading dst's previous value), times the dst scale's
/// inverse.
pub(crate) struct RowEpilogue<'a> {
    pub g: &'a Gemm,
    pub scales: &'a Scales,
    /// The bias bytes and operand.
    pub bias: Option<(&'a [u8], Operand)>,
    pub post: &'a HostPostOps<'a>,
    /// The type of a sum post-op's previous dst value.
    pub sum_elem: Option<Elem>,
    pub with_post: bool,
    /// dst's host address.
    pub c: usize,
}

impl RowEpilogue<'_> {
    /// Columns `n0..n0 + values.len()` of row `mm` of the batch at offsets
    /// `offs` (`Gemm::batch_offsets`), whose dst row starts at element
    /// `c_row`; `pos` holds the batch's position (its last two entries are
    /// set here).
    pub fn apply_at(
        &self,
        values: &mut [f32],
        mm: usize,
        n0: usize,
        offs: &[i64; 4],
        c_row: i64,
        pos: &mut [i64],
    ) {
        let (g, scales) = (self.g, self.scales);
        for (nn, v) in values.iter_mut().enumerate() {
            let nn = n0 + nn;
            let mut x = *v * scales.src * scales.wei[nn];
            if let Some((bytes, op)) = &self.bias {
                let idx = op.off + offs[3] + mm as i64 * op.rs + nn as i64 * op.cs;
                x += dt::load(op.elem, bytes, idx as usize);
            }
            *v = x;
        }
        if self.with_post {
            let ndims = pos.len();
            pos[ndims - 2] = mm as i64;
            for (nn, v) in values.iter_mut().enumerate() {
                let nn = n0 + nn;
                pos[ndims - 1] = nn as i64;
                let old = match self.sum_elem {
                    Some(e) => {
                        let at = (c_row + nn as i64 * g.c.cs) as usize;
                        // SAFETY: one element of dst, which only this
                        // thread touches (dst does not overlap itself).
                        let cell = unsafe { host_bytes(self.c + at * g.c.elem.size(), e.size()) };
                        dt::load(e, cell, 0)
                    }
                    None => 0.0,
                };
                *v = self.post.apply(*v, old, pos);
            }
        }
        for v in values.iter_mut() {
            *v *= scales.dst_inv;
        }
    }
}

/// A host buffer checked to hold what the operand spans.
fn host(ctx: &ExecContext, arg: i32, op: &Operand, what: &str) -> Result<usize> {
    let buffer = Buffer::of(ctx.arg(arg)?)?;
    if op.bytes == 0 {
        return Ok(buffer.host_addr());
    }
    buffer.check_holds(op.bytes, what)?;
    match buffer {
        Buffer::Host { addr, .. } => Ok(addr),
        _ => Err(Error::invalid(format!(
            "the {what} memory is not host memory"
        ))),
    }
}

/// Runs `g` with epilogue `epi` on the CPU, reading and writing the
/// execution arguments `args`.
pub(crate) fn run(ctx: &ExecContext, g: &Gemm, epi: &Epilogue, args: GemmArgs) -> Result<()> {
    if matches!(g.a.elem, Elem::U8 | Elem::S8) {
        return super::int8::run(ctx, g, epi, args);
    }
    let a = host(ctx, args.a, &g.a, "A")?;
    let b = host(ctx, args.b, &g.b, "B")?;
    let c = host(ctx, args.c, &g.c, "C")?;
    let bias = match (args.bias, &g.bias) {
        (Some(arg), Some(op)) => Some((host(ctx, arg, op, "bias")?, *op)),
        _ => None,
    };
    let (m, n, k) = (g.m as usize, g.n as usize, g.k as usize);
    let batches = g.batches() as usize;
    if m == 0 || n == 0 || batches == 0 {
        return Ok(());
    }
    let scales = Scales::read(ctx, epi, n)?;
    let post = epi.post_ops.bind(ctx)?;
    let sum_elem = epi.post_ops.sum_elem(g.c.elem);
    let with_post = !epi.post_ops.is_empty();
    // SAFETY: the buffers hold what the operands span (checked above, or
    // trusted user pointers); inputs are only read.
    let a_bytes = unsafe { host_bytes(a, g.a.bytes) };
    // SAFETY: as above.
    let b_bytes = unsafe { host_bytes(b, g.b.bytes) };
    let bias_bytes = bias.map(|(addr, op)| {
        // SAFETY: as above.
        (unsafe { host_bytes(addr, op.bytes) }, op)
    });
    let ndims = g.batch.len() + 2;
    let plain = !with_post
        && bias_bytes.is_none()
        && !epi.src_scale
        && epi.wei_scale.is_none()
        && !epi.dst_scale;
    let row_epi = RowEpilogue {
        g,
        scales: &scales,
        bias: bias_bytes,
        post: &post,
        sum_elem,
        with_post,
        c,
    };
    let first = |i: usize| {
        let offs = g.batch_offsets(i as i64);
        (g.a.off + offs[0], g.b.off + offs[1])
    };
    let problem = Problem {
        m,
        n,
        k,
        batches,
        a: Mat {
            bytes: a_bytes,
            elem: g.a.elem,
            rs: g.a.rs,
            cs: g.a.cs,
        },
        b: Mat {
            bytes: b_bytes,
            elem: g.b.elem,
            rs: g.b.rs,
            cs: g.b.cs,
        },
        first: &first,
    };
    let esize = g.c.elem.size();
    let store_tile = |t: &Tile, values: &mut [f32]| {
        let offs = g.batch_offsets(t.batch as i64);
        let mut pos = vec![0i64; ndims];
        if with_post {
            let mut rest = t.batch;
            for d in (0..ndims - 2).rev() {
                let size = g.batch[d].size as usize;
                pos[d] = (rest % size) as i64;
                rest /= size;
            }
        }
        for r in 0..t.rows {
            let mm = t.m0 + r;
            let c_row = g.c.off + offs[2] + mm as i64 * g.c.rs;
            let row = &mut values[r * t.ld..][..t.cols];
            if !plain {
                row_epi.apply_at(row, mm, t.n0, &offs, c_row, &mut pos);
            }
            let c_first = c_row + t.n0 as i64 * g.c.cs;
            if g.c.cs == 1 || t.cols == 1 {
                // SAFETY: these columns of this row of dst are written by
                // this thread only (each element is in one tile).
                let out = unsafe { host_bytes_mut(c + c_first as usize * esize, t.cols * esize) };
                dt::store_run(g.c.elem, out, 0, row);
            } else {
                for (nn, v) in row.iter().enumerate() {
                    let at = (c_first + nn as i64 * g.c.cs) as usize;
                    // SAFETY: one element of dst, written by this thread only.
                    let out = unsafe { host_bytes_mut(c + at * esize, esize) };
                    dt::store(g.c.elem, out, 0, *v);
                }
            }
        }
    };
    blocked::run(Path::current(g.a.elem, g.b.elem), &problem, &store_tile);
    Ok(())
}

/// A job for a pool worker.
type Job = Box<dyn FnOnce() + Send + 'static>;

thread_local! {
    /// Set on the pool's workers (a nested call runs inline).
    static IN_POOL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The persistent GEMM workers (one fewer than the host's threads). They
/// outlive the calls so that the `gemm` crate's per-thread packing buffers
/// (thread-locals) are allocated once, not on every execution.
fn workers() -> &'static [Mutex<Sender<Job>>] {
    static POOL: OnceLock<Vec<Mutex<Sender<Job>>>> = OnceLock::new();
    POOL.get_or_init(|| {
        (1..parallel::max_threads())
            .filter_map(|i| {
                let (tx, rx) = mpsc::channel::<Job>();
                std::thread::Builder::new()
                    .name(format!("dnnl-gemm-{i}"))
                    .spawn(move || {
                        IN_POOL.with(|f| f.set(true));
                        for job in rx {
                            job();
                        }
                    })
                    .ok()?;
                Some(Mutex::new(tx))
            })
            .collect()
    })
}

/// Runs `work` on each item, the first on the calling thread and the others
/// on the persistent workers; returns once all have finished and re-raises
/// a panic of any of them.
pub(crate) fn run_pooled<T: Send>(items: Vec<T>, work: impl Fn(T) + Sync) {
    let pool = if IN_POOL.with(|f| f.get()) {
        &[][..]
    } else {
        workers()
    };
    let mut items = items.into_iter();
    let Some(first) = items.next() else { return };
    let work = &work;
    let (done_tx, done_rx) = mpsc::channel::<std::thread::Result<()>>();
    let mut sent = 0usize;
    let mut inline = vec![first];
    for (i, item) in items.enumerate() {
        let Some(worker) = pool.get(i) else {
            inline.push(item);
            continue;
        };
        let done = done_tx.clone();
        let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
            let _ = done.send(catch_unwind(AssertUnwindSafe(|| work(item))));
        });
        // SAFETY: the job borrows `work` and what it captures; this function
        // waits below for every sent job's report (a job always reports:
        // it catches panics) before returning or unwinding, so the borrows
        // outlive the job.
        let job: Job = unsafe { std::mem::transmute(job) };
        sent += 1;
        let sender = worker.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(mpsc::SendError(job)) = sender.send(job) {
            drop(sender);
            job();
        }
    }
    let mine = catch_unwind(AssertUnwindSafe(|| {
        for item in inline {
            work(item);
        }
    }));
    drop(done_tx);
    let mut panic = mine.err();
    for _ in 0..sent {
        if let Ok(Err(p)) = done_rx.recv() {
            panic.get_or_insert(p);
        }
    }
    if let Some(p) = panic {
        resume_unwind(p);
    }
}
