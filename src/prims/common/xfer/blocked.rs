//! The blocked fast path of a reorder on GPU engines (`ocl:reorder_blocked`):
//! blocked <-> plain and blocked <-> blocked layouts (nChw16c <-> nchw / nhwc,
//! OIhw16i16o <-> oihw, nChw16c <-> nChw8c, double blocks such as
//! OIhw4i16o4i ...) at copy speed, where the generic kernel divides per
//! element.
//!
//! Layer: prims, beside `ocl.rs` (whose buffer and limit helpers it uses).
//!
//! A position along a dimension that either layout blocks is written in
//! *digits*: one per block boundary of either layout (for nChw16c against
//! nChw8c, c = 16·q + 8·r + s). When each layout's block sizes divide one
//! another, every digit lies inside one term of each layout's offset, so
//! both offsets are linear in the digits: the problem becomes a few nested
//! loops with a source and a destination stride each. The logical tensor
//! (and, for a padded destination, its padding, written with zeros) is cut
//! into rectangles of digits (a dimension of 19 in blocks of 16 is the full
//! block and the first 3 of the next): one launch each. A launch's loops go
//! in the destination's memory order, neighbours that are one loop on both
//! sides merged; then it runs (`blocked.cl`):
//! - as a transposition (`blk_tiles`) when the destination's innermost loop
//!   (after a vector of up to 64 elements contiguous on both sides) is not
//!   the source's: tiles through local memory, read and written along
//!   contiguous rows, with power-of-two extents (no division per element);
//! - otherwise as runs along the innermost loop (`blk_runs`), 4-vectors when
//!   both sides are contiguous and aligned.
//!
//! Taken: one pass reading one source, no padded offsets, a destination that
//! does not overlap itself, at most 16 launches of at most 8 loops each; the
//! sum post-op, and scales and zero points with mask 0 (one value). Other
//! quantization falls to the generic kernel.

// Dimension loops index several parallel arrays by the same `d`.
#![allow(clippy::needless_range_loop)]

use std::sync::Arc;

use super::ocl::{PlanOp, buffers, find, fits_int, plan_limits, same_engine, transpose_loops};
use super::plan::{Plan, Quant, QuantArg};
use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, Kernel, KernelArg};
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::layout::Layout;

/// The kernels' source: the shared element types, then `blocked.cl`.
pub const SOURCE: &str = concat!(include_str!("../types.cl"), include_str!("blocked.cl"));

const MAXL: usize = 8;
const MAX_LAUNCHES: usize = 16;
/// Work-items of a tile's work-group (`GROUP` in `blocked.cl`), and the
/// elements of a tile (`TILE_N`): 8 per work-item. Measured on an H200
/// (f32, 32x256x56x56, same run; GROUP, TILE_N -> share of copy
/// bandwidth, nChw16c -> nchw and OIhw16i16o -> oihw): 256, 4096 -> 0.59,
/// 0.51; 256, 2048 -> 0.70, 0.54; 128, 1024 -> 0.73, 0.60; 64, 512 ->
/// 0.73, 0.63; 64, 256 -> 0.35, 0.28; 128, 512 -> 0.61, 0.47.
const GROUP: usize = 64;
/// The runs kernel's work-group (the tiles' smaller one measured slower
/// there: f32 -> bf16 nChw16c 3330 -> 2350 GB/s on an H200).
const RUNS_GROUP: usize = 256;
const TILE_N: i64 = 512;
/// The most elements a tile's local buffer holds, row padding included.
const TILE_CAP: i64 = TILE_N * 3 / 2;
/// The longest vector (contiguous on both sides) a tile carries.
const MAX_VEC: i64 = 64;

const F_ZERO: i32 = 1;
const F_VEC: i32 = 2;
const F_SSC: i32 = 4;
const F_DSC: i32 = 8;
const F_SZP: i32 = 16;
const F_DZP: i32 = 32;

/// One loop of a launch: trip count, source and destination strides
/// (elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loop {
    pub size: i64,
    pub ss: i64,
    pub ds: i64,
}

/// How a launch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Runs of 4 along the innermost loop; `vec`: as one aligned 4-vector.
    Runs { vec: bool },
    /// Tiles of `2^lta x 2^ltb x 2^lv` through local memory: loop `ka`
    /// contiguous in the destination, `kb` in the source (both strides
    /// `2^lv`), `kv` the vector loop contiguous in both (if any); tile rows
    /// of `row` elements.
    Tiles {
        ka: usize,
        kb: usize,
        kv: Option<usize>,
        lv: u32,
        lta: u32,
        ltb: u32,
        row: i64,
    },
}

/// One kernel launch: a rectangle of the destination, its loops outermost
/// first, the offsets of its first element, and whether it writes zeros
/// (padding) instead of reading the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub loops: Vec<Loop>,
    pub soff0: i64,
    pub doff0: i64,
    pub zero: bool,
    pub shape: Shape,
}

impl Launch {
    /// Elements written.
    pub fn elems(&self) -> i64 {
        self.loops.iter().map(|l| l.size).product()
    }
}

/// The digit units of dimension `d` for both layouts, ascending from 1
/// (every block boundary of either); `None` when they do not divide one
/// another (the offsets would not be linear in the digits).
fn units(d: usize, layouts: &[&Layout]) -> Option<Vec<i64>> {
    let mut u = vec![1];
    for l in layouts {
        u.push(l.block_sizes()[d]);
        for (dim, div, size, _) in l.inner_blocks() {
            if dim == d {
                u.push(div);
                u.push(div * size);
            }
        }
    }
    u.sort_unstable();
    u.dedup();
    u.windows(2).all(|w| w[1] % w[0] == 0).then_some(u)
}

/// The stride of the digit of unit `u` along `d` in `l` (`u` one of
/// [`units`]).
fn digit_stride(l: &Layout, d: usize, u: i64) -> i64 {
    let b = l.block_sizes()[d];
    if u >= b {
        return u / b * l.outer_strides()[d];
    }
    l.inner_blocks()
        .into_iter()
        .find(|&(dim, div, size, _)| dim == d && div <= u && u < div * size)
        .map_or(0, |(_, div, _, stride)| u / div * stride)
}

/// One digit of a rectangle: its unit, first value and count.
type Digit = (i64, i64, i64);

/// The positions `[lo, hi)` along a dimension with digit `units` (1 first)
/// as rectangles of digits, each listing every digit from the top; at most
/// two per level. `hi` stays below the next unit up, except at the top.
fn split(lo: i64, hi: i64, units: &[i64]) -> Vec<Vec<Digit>> {
    if lo >= hi {
        return Vec::new();
    }
    let level = units.len() - 1;
    let u = units[level];
    if level == 0 {
        return vec![vec![(1, lo, hi - lo)]];
    }
    let lower = &units[..level];
    let full = |q0: i64, count: i64| {
        let mut r = vec![(u, q0, count)];
        for j in (0..level).rev() {
            r.push((units[j], 0, units[j + 1] / units[j]));
        }
        r
    };
    let prefixed = |q: i64, rects: Vec<Vec<Digit>>| {
        rects.into_iter().map(move |mut r| {
            r.insert(0, (u, q, 1));
            r
        })
    };
    let (mut qlo, rlo, qhi, rhi) = (lo / u, lo % u, hi / u, hi % u);
    if qlo == qhi {
        return prefixed(qlo, split(rlo, rhi, lower)).collect();
    }
    let mut out = Vec::new();
    if rlo > 0 {
        out.extend(prefixed(qlo, split(rlo, u, lower)));
        qlo += 1;
    }
    if qhi > qlo {
        out.push(full(qlo, qhi - qlo));
    }
    if rhi > 0 {
        out.extend(prefixed(qhi, split(0, rhi, lower)));
    }
    out
}

/// Every combination of one rectangle per dimension.
fn product(per_dim: &[Vec<Vec<Digit>>]) -> Vec<Vec<&Vec<Digit>>> {
    let mut out: Vec<Vec<&Vec<Digit>>> = vec![Vec::new()];
    for rects in per_dim {
        out = out
            .iter()
            .flat_map(|pre| {
                rects.iter().map(move |r| {
                    let mut v = pre.clone();
                    v.push(r);
                    v
                })
            })
            .collect();
    }
    out
}

/// The launches of `plan`, or why the fast path does not take it.
pub fn launches(plan: &Plan) -> std::result::Result<Vec<Launch>, &'static str> {
    let [pass] = &plan.passes[..] else {
        return Err("more than one pass");
    };
    let Some((_, src)) = &pass.src else {
        return Err("no source");
    };
    let dst = &plan.dst;
    let n = dst.ndims;
    if plan.scratch.is_some() || pass.to_scratch || pass.skip_inside {
        return Err("a scratch tensor or a padding-only pass");
    }
    if pass.shift.iter().chain(&pass.base).any(|&x| x != 0)
        || (0..n).any(|d| src.padded_offsets[d] != 0 || dst.padded_offsets[d] != 0)
    {
        return Err("padded offsets or a region of the destination");
    }
    let common = |q: Option<QuantArg>| q.is_none_or(|q| q.mask == 0);
    let q = pass.quant;
    if ![q.src_scale, q.dst_scale, q.src_zp, q.dst_zp]
        .into_iter()
        .all(common)
    {
        return Err("scales or zero points with a mask");
    }
    let (sb, db) = (src.block_sizes(), dst.block_sizes());
    if (0..n).any(|d| src.padded_dims[d] % sb[d] != 0 || dst.padded_dims[d] % db[d] != 0) {
        return Err("a dimension that is not whole blocks");
    }
    let mut digits = Vec::with_capacity(n);
    for d in 0..n {
        digits.push(units(d, &[src, dst]).ok_or("block sizes that do not divide one another")?);
    }
    let rects = |d: usize, lo: i64, hi: i64| split(lo, hi, &digits[d]);
    let inside: Vec<_> = (0..n).map(|d| rects(d, 0, dst.dims[d])).collect();
    let mut out = Vec::new();
    for combo in product(&inside) {
        out.push(launch(&combo, Some(src), dst));
    }
    for d in 0..n {
        if dst.padded_dims[d] == dst.dims[d] {
            continue;
        }
        let per_dim: Vec<_> = (0..n)
            .map(|e| match e.cmp(&d) {
                std::cmp::Ordering::Less => inside[e].clone(),
                std::cmp::Ordering::Equal => rects(e, dst.dims[e], dst.padded_dims[e]),
                std::cmp::Ordering::Greater => rects(e, 0, dst.padded_dims[e]),
            })
            .collect();
        for combo in product(&per_dim) {
            out.push(launch(&combo, None, dst));
        }
        if out.len() > MAX_LAUNCHES {
            break;
        }
    }
    if out.len() > MAX_LAUNCHES {
        return Err("too many rectangles");
    }
    if out.iter().any(|l| l.loops.len() > MAXL) {
        return Err("too many loops");
    }
    Ok(out)
}

/// The launch of one rectangle (one entry of digits per dimension), reading
/// `src` (`None`: zeros).
fn launch(rect: &[&Vec<Digit>], src: Option<&Layout>, dst: &Layout) -> Launch {
    let mut pos = [0i64; MAX_NDIMS];
    let mut loops = Vec::new();
    for (d, digits) in rect.iter().enumerate() {
        for &(u, start, count) in digits.iter() {
            pos[d] += start * u;
            if count > 1 {
                loops.push(Loop {
                    size: count,
                    ss: src.map_or(0, |s| digit_stride(s, d, u)),
                    ds: digit_stride(dst, d, u),
                });
            }
        }
    }
    let soff0 = src.map_or(0, |s| s.offset(&pos));
    let doff0 = dst.offset(&pos);
    // The destination's memory order (stable: equal strides keep their order).
    loops.sort_by_key(|l| std::cmp::Reverse(l.ds));
    let mut merged: Vec<Loop> = Vec::new();
    for l in loops {
        match merged.last_mut() {
            Some(m) if m.ss == l.size * l.ss && m.ds == l.size * l.ds => {
                m.size *= l.size;
                m.ss = l.ss;
                m.ds = l.ds;
            }
            _ => merged.push(l),
        }
    }
    if merged.is_empty() {
        merged.push(Loop {
            size: 1,
            ss: 0,
            ds: 0,
        });
    }
    let zero = src.is_none();
    let shape = shape(&merged, zero, soff0, doff0);
    Launch {
        loops: merged,
        soff0,
        doff0,
        zero,
        shape,
    }
}

/// The kernel for a launch's loops (see the module's description).
fn shape(loops: &[Loop], zero: bool, soff0: i64, doff0: i64) -> Shape {
    let last = loops.len() - 1;
    let inner = loops[last];
    let runs = || {
        let contiguous = inner.ds == 1 && (zero || inner.ss == 1);
        let aligned = soff0 % 4 == 0
            && doff0 % 4 == 0
            && loops[..last].iter().all(|l| l.ss % 4 == 0 && l.ds % 4 == 0);
        Shape::Runs {
            vec: contiguous && inner.size % 4 == 0 && aligned,
        }
    };
    if zero || inner.ds != 1 {
        return runs();
    }
    let (v, kv, rest) = if inner.ss == 1 {
        (inner.size, Some(last), last)
    } else {
        (1, None, loops.len())
    };
    if v > MAX_VEC || !(v as u64).is_power_of_two() {
        return runs();
    }
    let ka = (0..rest).rev().find(|&k| loops[k].ds == v);
    let kb = (0..rest).rev().find(|&k| loops[k].ss == v);
    let (Some(ka), Some(kb)) = (ka, kb) else {
        return runs();
    };
    if ka == kb {
        return runs();
    }
    let cap = |size: i64| (size as u64).next_power_of_two().trailing_zeros();
    let (cap_a, cap_b) = (cap(loops[ka].size), cap(loops[kb].size));
    let lv = v.trailing_zeros();
    let (mut lta, mut ltb) = (0u32, 0u32);
    while (1i64 << (lta + ltb + lv)) < TILE_N {
        if (ltb <= lta || lta == cap_a) && ltb < cap_b {
            ltb += 1;
        } else if lta < cap_a {
            lta += 1;
        } else {
            break;
        }
    }
    // Rows padded so that the write phase, which walks columns, hits 32
    // distinct banks per 32 work-items: with `TA x V` under 32 elements a
    // warp spans `m` columns, and rows of `m x V` (mod 32) spread them;
    // else rows of an odd number of vectors do (vectors under 32 elements).
    let row = |lta: u32| {
        let (tb, ta) = (1i64 << ltb, 1i64 << lta);
        if ta * v < 32 {
            let want = 32 / (ta * v) * v;
            tb * v + (want - tb * v).rem_euclid(32)
        } else {
            (tb + i64::from(v < 32 && tb % 2 == 0)) * v
        }
    };
    while lta > 0 && (row(lta) << lta) > TILE_CAP {
        lta -= 1;
    }
    let row = row(lta);
    Shape::Tiles {
        ka,
        kb,
        kv,
        lv,
        lta,
        ltb,
        row,
    }
}

/// `blk_t`'s bytes for `launch`, with `flags`.
fn blk_bytes(launch: &Launch, total: i64, flags: i32) -> Vec<u8> {
    let mut size = [1i64; MAXL];
    let mut ss = [0i64; MAXL];
    let mut ds = [0i64; MAXL];
    for (k, l) in launch.loops.iter().enumerate() {
        size[k] = l.size;
        ss[k] = l.ss;
        ds[k] = l.ds;
    }
    let mut v: Vec<i64> = Vec::new();
    v.extend(size);
    v.extend(ss);
    v.extend(ds);
    v.extend([launch.soff0, launch.doff0, total]);
    let mut ints = [launch.loops.len() as i32, -1, -1, -1, 0, 0, 0, 0, flags, 0];
    if let Shape::Tiles {
        ka,
        kb,
        kv,
        lv,
        lta,
        ltb,
        row,
    } = launch.shape
    {
        ints[1..8].copy_from_slice(&[
            ka as i32,
            kb as i32,
            kv.map_or(-1, |k| k as i32),
            lv as i32,
            lta as i32,
            ltb as i32,
            row as i32,
        ]);
    }
    let mut bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
    bytes.extend(ints.iter().flat_map(|x| x.to_ne_bytes()));
    bytes
}

/// Whether the plan copies elements as stored (same type, no arithmetic).
fn raw(plan: &Plan) -> bool {
    let pass = &plan.passes[0];
    pass.src
        .as_ref()
        .is_some_and(|(_, s)| s.elem == plan.dst.elem)
        && pass.quant == Quant::default()
        && pass.alpha == 1.0
        && pass.beta == 0.0
}

/// The build options of `plan`'s kernels.
fn options(plan: &Plan) -> String {
    let src = plan.passes[0]
        .src
        .as_ref()
        .map_or(plan.dst.elem, |(_, s)| s.elem);
    format!(
        "-DSDT={} -DDDT={} -DALIGNED=1 -DIDX_T={}{} -DGROUP={GROUP} -DTILE_N={TILE_N}",
        src.cl_name(),
        plan.dst.elem.cl_name(),
        if fits_int(plan) { "int" } else { "long" },
        if raw(plan) { " -DRAW" } else { "" }
    )
}

/// The largest work-group of the engine's device (0 on the CPU engine).
fn max_group(engine: &Engine) -> usize {
    match engine.backend() {
        Backend::Ocl(ocl) => ocl.info().max_work_group_size,
        Backend::Ze(ze) => ze.info().max_group_size,
        Backend::Cpu => 0,
    }
}

pub(super) fn accepts<O: PlanOp>(op: &O, engine: &Engine) -> Result<()> {
    same_engine(op)?;
    let plan = op.plan();
    plan_limits(plan)?;
    let blocked = |l: &Layout| !l.inner_blocks().is_empty();
    let src_blocked = plan
        .passes
        .iter()
        .any(|p| p.src.as_ref().is_some_and(|(_, l)| blocked(l)));
    if !src_blocked && !blocked(&plan.dst) && transpose_loops(plan).is_some() {
        return Err(Error::unimplemented(
            "a transposition of plain layouts (the transposing kernel's)",
        ));
    }
    let launches = launches(plan)
        .map_err(|why| Error::unimplemented(format!("not a blocked reorder: {why}")))?;
    // Checked here, not when the kernel is built: a refusal now lets the
    // next implementation take the reorder.
    let tiled = launches
        .iter()
        .any(|l| matches!(l.shape, Shape::Tiles { .. }));
    if tiled && max_group(engine) < GROUP {
        return Err(Error::unimplemented(format!(
            "the tile kernel needs work-groups of {GROUP}"
        )));
    }
    Ok(())
}

pub(super) fn create<O: PlanOp>(op: &Arc<O>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let plan = op.plan().clone();
    let launches = launches(&plan).map_err(|why| Error::Runtime(why.into()))?;
    let gpu = engine.gpu("reorder")?;
    let opts = options(&plan);
    let mut runs = None;
    let mut tiles = None;
    if launches
        .iter()
        .any(|l| matches!(l.shape, Shape::Runs { .. }))
    {
        let k = gpu.kernel(SOURCE, &opts, "blk_runs")?;
        let local = gpu.work_group_size(&k)?.clamp(1, RUNS_GROUP);
        runs = Some((k, local));
    }
    if launches
        .iter()
        .any(|l| matches!(l.shape, Shape::Tiles { .. }))
    {
        let k = gpu.kernel(SOURCE, &opts, "blk_tiles")?;
        if gpu.work_group_size(&k)? < GROUP {
            return Err(Error::unimplemented(format!(
                "the tile kernel needs work-groups of {GROUP}"
            )));
        }
        tiles = Some(k);
    }
    Ok(Arc::new(BlockedImpl {
        plan,
        launches,
        runs,
        tiles,
    }))
}

struct BlockedImpl {
    plan: Arc<Plan>,
    launches: Vec<Launch>,
    runs: Option<(Kernel, usize)>,
    tiles: Option<Kernel>,
}

/// Whether a buffer's start suits 4-vectors of `elem_size`-byte elements
/// (a USM pointer may be anywhere; OpenCL buffers are aligned far beyond).
fn vec_aligned(b: &Buffer, elem_size: usize) -> bool {
    b.usm_addr().is_none_or(|a| a % (4 * elem_size) == 0)
}

impl Implementation for BlockedImpl {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let plan = &self.plan;
        let queue = ctx.queue()?;
        let bufs = buffers(plan, ctx)?;
        if self.launches.iter().all(|l| l.elems() == 0) {
            // An empty tensor: no source buffer was asked for.
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        let pass = &plan.passes[0];
        let Some((src_arg, sl)) = &pass.src else {
            return Err(Error::Runtime("a blocked reorder without a source".into()));
        };
        let (src, dst) = (find(&bufs, *src_arg)?, find(&bufs, plan.dst_arg)?);
        let aligned = vec_aligned(src, sl.elem.size()) && vec_aligned(dst, plan.dst.elem.size());
        let q = pass.quant;
        let mut qflags = 0;
        let mut qargs = Vec::new();
        for (bit, p) in [
            (F_SSC, q.src_scale),
            (F_DSC, q.dst_scale),
            (F_SZP, q.src_zp),
            (F_DZP, q.dst_zp),
        ] {
            match p {
                Some(p) => {
                    qflags |= bit;
                    qargs.push(find(&bufs, p.arg)?.kernel_arg()?);
                }
                None => qargs.push(KernelArg::NullMem),
            }
        }
        let mut last: Option<Event> = None;
        for launch in self.launches.iter().filter(|l| l.elems() > 0) {
            let mut flags = qflags;
            if launch.zero {
                flags |= F_ZERO;
            }
            let (kernel, global, local, tile_bytes) = match launch.shape {
                Shape::Runs { vec } => {
                    let Some((k, local)) = &self.runs else {
                        return Err(Error::Runtime("the runs kernel was not built".into()));
                    };
                    if vec && aligned {
                        flags |= F_VEC;
                    }
                    let n0 = launch.loops[launch.loops.len() - 1].size;
                    let total = launch.elems() / n0 * ((n0 + 3) / 4);
                    (k, total, *local, None)
                }
                Shape::Tiles {
                    ka,
                    kb,
                    kv,
                    lta,
                    ltb,
                    row,
                    ..
                } => {
                    let Some(k) = &self.tiles else {
                        return Err(Error::Runtime("the tile kernel was not built".into()));
                    };
                    let (sa, sb) = (launch.loops[ka].size, launch.loops[kb].size);
                    let tiles = ((sa + (1 << lta) - 1) >> lta) * ((sb + (1 << ltb) - 1) >> ltb);
                    let others: i64 = launch
                        .loops
                        .iter()
                        .enumerate()
                        .filter(|&(k, _)| k != ka && k != kb && Some(k) != kv)
                        .map(|(_, l)| l.size)
                        .product();
                    let val = if raw(plan) { plan.dst.elem.size() } else { 4 };
                    (k, tiles * others, GROUP, Some((row << lta) as usize * val))
                }
            };
            let blk = blk_bytes(launch, global, flags);
            let mut args = vec![
                src.kernel_arg()?,
                dst.kernel_arg()?,
                KernelArg::Bytes(&blk),
                KernelArg::F32(pass.alpha),
                KernelArg::F32(pass.beta),
            ];
            args.extend(qargs.iter().cloned());
            if let Some(bytes) = tile_bytes {
                args.push(KernelArg::Local(bytes));
            }
            let items = match tile_bytes {
                Some(_) => global as usize * GROUP,
                None => (global as usize).div_ceil(local) * local,
            };
            let wait: Vec<Event> = match &last {
                Some(e) => vec![e.clone()],
                None => ctx.deps.to_vec(),
            };
            last = Some(queue.enqueue_kernel(kernel, &args, &[items], Some(&[local]), &wait)?);
        }
        Ok(Some(match last {
            Some(e) => e,
            None => queue.marker(ctx.deps)?,
        }))
    }
}

#[cfg(test)]
mod tests;
