//! The transfer plan reorder, sum and concat share: a [`Plan`] of passes,
//! each of which walks a region of the destination and writes, per element,
//! a (converted, scaled, shifted) source element, zeros in the padding, and
//! optionally the destination's previous value times `beta`.
//!
//! Layer: prims. [`run_host`] executes a plan over host addresses (the CPU
//! engine, and reorders between a CPU and an OpenCL engine, whose OpenCL
//! side is mapped); `ocl.rs` executes it with one generic OpenCL kernel.
//!
//! Per element at destination padded position `p` (logical `x = p - poff`):
//! - outside the logical tensor (padding): 0;
//! - else `v = alpha * src_scale[x] * (src[p + shift] - src_zp[x])`, then
//!   `v += beta * dst_old` (the sum post-op), then
//!   `v = v / dst_scale[x] + dst_zp[x]` (destination scales apply after the
//!   post-op, as in every kind and in upstream's reorder); the store rounds to
//!   nearest even and saturates.
//!
//! Scale and zero-point arrays are indexed row-major over the dimensions
//! their mask selects (oneDNN's convention).

// Dimension loops index several parallel arrays by the same `d`.
#![allow(clippy::needless_range_loop)]

use super::transpose;
use crate::abi::*;
use crate::base::isa;
use crate::core::error::{Error, Result};
use crate::core::key::{KeyWriter, StableKey};
use crate::core::memory_desc::MAX_NDIMS;
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::layout::{Layout, PhysLoop};
use crate::prims::common::parallel;
use crate::prims::common::vmath;

/// A per-element quantization parameter: its argument (without the
/// `DNNL_ARG_ATTR_*` bits) and mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantArg {
    /// The full execution argument (`DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC` ...).
    pub arg: i32,
    /// Bit `d`: one value per index along destination dimension `d`.
    pub mask: i32,
}

/// Tag `"quant_arg"`, the argument, the mask.
impl StableKey for QuantArg {
    fn write_key(&self, w: &mut KeyWriter) {
        w.tag("quant_arg").i32(self.arg).i32(self.mask);
    }
}

/// The quantization of one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quant {
    pub src_scale: Option<QuantArg>,
    pub dst_scale: Option<QuantArg>,
    pub src_zp: Option<QuantArg>,
    pub dst_zp: Option<QuantArg>,
}

/// Tag `"quant"`, then the four parameters in declaration order.
impl StableKey for Quant {
    fn write_key(&self, w: &mut KeyWriter) {
        w.tag("quant")
            .put(&self.src_scale)
            .put(&self.dst_scale)
            .put(&self.src_zp)
            .put(&self.dst_zp);
    }
}

/// One walk over a region of the destination.
#[derive(Clone, Debug)]
pub struct Pass {
    /// The source argument and layout (`None`: the pass only writes padding).
    pub src: Option<(i32, Layout)>,
    /// Source padded position = destination padded position + `shift`.
    pub shift: [i64; MAX_NDIMS],
    /// The walk's loops, outermost first; position = `base` + Σ i·unit.
    pub loops: Vec<PhysLoop>,
    pub base: [i64; MAX_NDIMS],
    /// Elements walked.
    pub total: i64,
    pub alpha: f32,
    pub beta: f32,
    /// Leave positions inside the logical tensor alone (padding fill only).
    pub skip_inside: bool,
    pub quant: Quant,
    /// Write the plan's f32 scratch tensor instead of the destination.
    pub to_scratch: bool,
}

/// The argument number passes read the scratch tensor by (no `DNNL_ARG_*`).
pub const SCRATCH_ARG: i32 = -1;

/// Everything an implementation executes: the destination and the passes,
/// run in order.
#[derive(Clone, Debug)]
pub struct Plan {
    pub dst_arg: i32,
    pub dst: Layout,
    pub passes: Vec<Pass>,
    /// An f32 tensor with the destination's dimensions that passes with
    /// `to_scratch` accumulate in (the primitive's scratchpad), read back as
    /// [`SCRATCH_ARG`].
    pub scratch: Option<Layout>,
}

impl Pass {
    /// A walk over all of `dst`'s padded elements in memory order, reading
    /// `src` at the same logical position.
    pub fn full(dst: &Layout, src: Option<(i32, &Layout)>) -> Pass {
        let mut shift = [0; MAX_NDIMS];
        if let Some((_, s)) = src {
            for d in 0..dst.ndims {
                shift[d] = s.padded_offsets[d] - dst.padded_offsets[d];
            }
        }
        Pass {
            src: src.map(|(a, l)| (a, l.clone())),
            shift,
            loops: dst.loops(),
            base: [0; MAX_NDIMS],
            total: dst.padded_nelems(),
            alpha: 1.0,
            beta: 0.0,
            skip_inside: false,
            quant: Quant::default(),
            to_scratch: false,
        }
    }

    /// Only the padding of `dst`, written with zeros.
    pub fn padding(dst: &Layout) -> Pass {
        let mut pass = Pass::full(dst, None);
        pass.skip_inside = true;
        pass
    }

    /// The region of `dst` that starts at logical position `origin` and has
    /// `src`'s dimensions, read from `src` (concat). The walk goes through
    /// dimensions in `dst`'s order of outer strides.
    pub fn region(dst: &Layout, src_arg: i32, src: &Layout, origin: &[i64]) -> Pass {
        let n = dst.ndims;
        let mut order: Vec<usize> = (0..n).collect();
        let outer = dst.outer_strides();
        order.sort_by_key(|&d| std::cmp::Reverse(outer[d]));
        let loops = order
            .iter()
            .filter(|&&d| src.dims[d] > 1)
            .map(|&d| PhysLoop {
                size: src.dims[d],
                stride: 0,
                dim: d,
                unit: 1,
            })
            .collect();
        let mut base = [0; MAX_NDIMS];
        let mut shift = [0; MAX_NDIMS];
        for d in 0..n {
            base[d] = dst.padded_offsets[d] + origin[d];
            shift[d] = src.padded_offsets[d] - base[d];
        }
        Pass {
            src: Some((src_arg, src.clone())),
            shift,
            loops,
            base,
            total: src.nelems(),
            alpha: 1.0,
            beta: 0.0,
            skip_inside: false,
            quant: Quant::default(),
            to_scratch: false,
        }
    }
}

/// Where a layout's offset is linear in a walk's loop indices: the offset
/// at the walk's start and the stride of each loop. A dimension without
/// blocks always is; a blocked one when the walk goes through exactly the
/// layout's own loops of it, from padded position 0.
pub fn linear(l: &Layout, loops: &[PhysLoop], start: &[i64]) -> Option<(i64, Vec<i64>)> {
    let phys = l.loops();
    let (blk, outer) = (l.block_sizes(), l.outer_strides());
    let mut off0 = l.offset0;
    for d in 0..l.ndims {
        if blk[d] == 1 {
            off0 += start[d] * outer[d];
            continue;
        }
        if start[d] != 0 {
            return None;
        }
        let pick = |ls: &[PhysLoop]| {
            let mut v: Vec<(i64, i64)> = ls
                .iter()
                .filter(|x| x.dim == d)
                .map(|x| (x.size, x.unit))
                .collect();
            v.sort_unstable();
            v
        };
        if pick(loops) != pick(&phys) {
            return None;
        }
    }
    let strides = loops
        .iter()
        .map(|lp| {
            if blk[lp.dim] == 1 {
                lp.unit * outer[lp.dim]
            } else {
                phys.iter()
                    .find(|x| x.dim == lp.dim && x.size == lp.size && x.unit == lp.unit)
                    .map_or(0, |x| x.stride)
            }
        })
        .collect();
    Some((off0, strides))
}

/// A layout's offset split by dimension: `term(d, q)` is what padded
/// position `q` along `d` adds.
struct DimOffsets {
    blk: Vec<i64>,
    outer: Vec<i64>,
    inner: Vec<Vec<(i64, i64, i64)>>,
}

impl DimOffsets {
    fn new(l: &Layout) -> DimOffsets {
        let mut inner = vec![Vec::new(); l.ndims];
        for (dim, div, size, stride) in l.inner_blocks() {
            inner[dim].push((div, size, stride));
        }
        DimOffsets {
            blk: l.block_sizes().to_vec(),
            outer: l.outer_strides().to_vec(),
            inner,
        }
    }

    #[inline(always)]
    fn term(&self, d: usize, q: i64) -> i64 {
        let b = self.blk[d];
        let mut o = if b == 1 { q } else { q / b } * self.outer[d];
        for &(div, size, stride) in &self.inner[d] {
            o += q / div % size * stride;
        }
        o
    }
}

/// Number of values a parameter with `mask` holds for `dims`.
pub fn mask_count(mask: i32, dims: &[i64]) -> i64 {
    (0..dims.len())
        .filter(|d| mask >> d & 1 != 0)
        .map(|d| dims[d])
        .product()
}

/// The index of logical position `x` into an array selected by `mask`.
fn mask_index(mask: i32, x: &[i64], dims: &[i64]) -> usize {
    let mut idx = 0;
    for d in 0..dims.len() {
        if mask >> d & 1 != 0 {
            idx = idx * dims[d] + x[d];
        }
    }
    idx as usize
}

/// Host addresses are moved into worker threads as integers.
#[derive(Clone, Copy)]
struct Addr(usize);

#[inline(always)]
fn load_at(elem: Elem, addr: usize, off: i64) -> f32 {
    let p = (addr + off as usize * elem.size()) as *const u8;
    // SAFETY: the caller checked that the element lies inside the buffer.
    unsafe {
        match elem {
            Elem::F32 => std::ptr::read_unaligned(p as *const f32),
            Elem::F16 => dt::f16_to_f32(std::ptr::read_unaligned(p as *const u16)),
            Elem::Bf16 => dt::bf16_to_f32(std::ptr::read_unaligned(p as *const u16)),
            Elem::S32 => std::ptr::read_unaligned(p as *const i32) as f32,
            Elem::S8 => f32::from(*(p as *const i8)),
            Elem::U8 => f32::from(*p),
        }
    }
}

#[inline(always)]
fn store_at(elem: Elem, addr: usize, off: i64, v: f32) {
    let p = (addr + off as usize * elem.size()) as *mut u8;
    // SAFETY: the element lies inside the buffer (checked by the caller), and
    // no two workers write the same element (the layout does not overlap).
    unsafe {
        match elem {
            Elem::F32 => std::ptr::write_unaligned(p as *mut f32, v),
            Elem::F16 => std::ptr::write_unaligned(p as *mut u16, dt::f32_to_f16(v)),
            Elem::Bf16 => std::ptr::write_unaligned(p as *mut u16, dt::f32_to_bf16(v)),
            _ => {
                let mut tmp = [0u8; 4];
                dt::store(elem, &mut tmp, 0, v);
                if elem == Elem::S32 {
                    std::ptr::write_unaligned(p as *mut [u8; 4], tmp);
                } else {
                    *p = tmp[0];
                }
            }
        }
    }
}

/// The fast path of [`run_host`]: both offsets linear in the walk, no
/// padding, no quantization. Runs of the innermost loop go through a small
/// f32 buffer, offsets stepping by that loop's strides.
#[allow(clippy::too_many_arguments)]
fn run_linear(
    pass: &Pass,
    sizes: &[i64],
    range: std::ops::Range<usize>,
    src: (Elem, usize, &(i64, Vec<i64>)),
    dst: (Elem, usize, &(i64, Vec<i64>)),
) {
    let nl = sizes.len();
    let mut idx = [0i64; 2 * MAX_NDIMS];
    let mut r = range.start as i64;
    for k in (0..nl).rev() {
        idx[k] = r % sizes[k];
        r /= sizes[k];
    }
    let (se, sa, (so, ss)) = src;
    let (de, da, (dz, ds)) = dst;
    let dot = |st: &[i64], idx: &[i64]| st.iter().zip(idx).map(|(s, i)| s * i).sum::<i64>();
    let mut buf = [0f32; 256];
    let (mut t, end) = (range.start as i64, range.end as i64);
    while t < end {
        let soff = so + dot(ss, &idx);
        let doff = dz + dot(ds, &idx);
        let (run, sst, dst_) = if nl == 0 {
            (1, 0, 0)
        } else {
            let last = nl - 1;
            let run = (sizes[last] - idx[last]).min(end - t).min(256);
            (run, ss[last], ds[last])
        };
        let n = run as usize;
        for (j, b) in buf[..n].iter_mut().enumerate() {
            *b = load_at(se, sa, soff + j as i64 * sst);
        }
        for (j, b) in buf[..n].iter().enumerate() {
            let o = doff + j as i64 * dst_;
            let mut v = b * pass.alpha;
            if pass.beta != 0.0 {
                v += pass.beta * load_at(de, da, o);
            }
            store_at(de, da, o, v);
        }
        t += run;
        if nl > 0 {
            let mut k = nl - 1;
            idx[k] += run;
            while idx[k] >= sizes[k] && k > 0 {
                idx[k] = 0;
                k -= 1;
                idx[k] += 1;
            }
        }
    }
}

/// Offsets linear in a walk: per loop (outermost first) its trip count and
/// the source's and destination's strides.
struct Strided {
    sizes: Vec<i64>,
    ss: Vec<i64>,
    ds: Vec<i64>,
}

impl Strided {
    /// Drops trip counts of 1 and merges neighbouring loops that are one
    /// loop for both offsets.
    fn new(sizes: &[i64], ss: &[i64], ds: &[i64]) -> Strided {
        let mut out = Strided {
            sizes: Vec::new(),
            ss: Vec::new(),
            ds: Vec::new(),
        };
        for k in 0..sizes.len() {
            if sizes[k] == 1 {
                continue;
            }
            if let Some(last) = out.sizes.len().checked_sub(1)
                && out.ss[last] == sizes[k] * ss[k]
                && out.ds[last] == sizes[k] * ds[k]
            {
                out.sizes[last] *= sizes[k];
                out.ss[last] = ss[k];
                out.ds[last] = ds[k];
                continue;
            }
            out.sizes.push(sizes[k]);
            out.ss.push(ss[k]);
            out.ds.push(ds[k]);
        }
        out
    }

    /// A transposing walk: `(a, b, v, t)` with `v` elements contiguous in
    /// both (the innermost loop, or 1), loop `a` the destination's next
    /// (stride `v`), loop `b` the source's next (stride `v`), and the tile
    /// edge `t`; `None` when the innermost loops agree.
    fn transpose(&self) -> Option<(usize, usize, i64, i64)> {
        let nl = self.sizes.len();
        if nl < 2 {
            return None;
        }
        let last = nl - 1;
        let (v, rest) = if self.ss[last] == 1 && self.ds[last] == 1 {
            (self.sizes[last], last)
        } else {
            (1, nl)
        };
        if v > 256 {
            return None;
        }
        let a = (0..rest).rev().find(|&k| self.ds[k] == v)?;
        let b = (0..rest).rev().find(|&k| self.ss[k] == v)?;
        if a == b {
            return None;
        }
        let t = (((1024 / v) as f64).sqrt() as i64).clamp(2, 32);
        Some((a, b, v, t))
    }
}

/// The transposing fast path of [`run_host`]: cache-sized tiles of
/// `t x t x v` elements, read along the source's contiguous loops into an
/// f32 buffer and written along the destination's; tiles are split over
/// threads.
fn run_tiled(
    pass: &Pass,
    w: &Strided,
    (a, b, v, t): (usize, usize, i64, i64),
    src: (Elem, usize, i64),
    dst: (Elem, usize, i64),
) {
    let nl = w.sizes.len();
    let vl = usize::from(v > 1);
    let outer: Vec<usize> = (0..nl - vl).filter(|&k| k != a && k != b).collect();
    let (se, sa, so) = src;
    let (de, da, dz) = dst;
    // Equal types, unscaled: the values move as bits, tile by tile, straight
    // from the source into the destination (`transpose::copy_tile`); the
    // tiles are then sized for the cache (about 4 KiB, edges of whole
    // 8-element register blocks) rather than for the f32 buffer.
    let fast = se == de && pass.alpha == 1.0 && pass.beta == 0.0;
    let t = if fast {
        let edge = ((4096 / (v as usize * se.size())) as f64).sqrt() as i64;
        if edge >= 8 {
            (edge / 8 * 8).min(64)
        } else {
            edge.max(2)
        }
    } else {
        t
    };
    let (na, nb) = ((w.sizes[a] + t - 1) / t, (w.sizes[b] + t - 1) / t);
    let count: i64 = outer.iter().map(|&k| w.sizes[k]).product::<i64>() * na * nb;
    let per_tile = (t * t * v) as usize;
    let chunks = parallel::split(count as usize, (1 << 14) / per_tile + 1);
    let level = isa::level();
    // Outputs far beyond the caches: the direct tiles write with streaming
    // stores (no read of the lines they replace).
    let total: i64 = w.sizes.iter().product();
    let stream = fast && vmath::streams(level, total as usize * de.size());
    parallel::run_all(chunks, |range| {
        let _fence = stream.then(vmath::StreamFence::new);
        let mut buf = [0f32; 1024];
        for item in range {
            let mut r = item as i64;
            let ta = r % na;
            r /= na;
            let tb = r % nb;
            r /= nb;
            let (mut soff, mut doff) = (so, dz);
            for &k in outer.iter().rev() {
                let i = r % w.sizes[k];
                r /= w.sizes[k];
                soff += i * w.ss[k];
                doff += i * w.ds[k];
            }
            let (a0, b0) = (ta * t, tb * t);
            let la = t.min(w.sizes[a] - a0) as usize;
            let lb = t.min(w.sizes[b] - b0) as usize;
            soff += a0 * w.ss[a] + b0 * w.ss[b];
            doff += a0 * w.ds[a] + b0 * w.ds[b];
            let (vu, ssa, dsb) = (v as usize, w.ss[a], w.ds[b]);
            let row = lb * vu;
            if fast {
                let size = se.size();
                let tile = transpose::Tile {
                    la,
                    lb,
                    ssa: ssa as isize,
                    dsb: dsb as isize,
                    v: vu,
                };
                // SAFETY: every offset of the tile is one of the walk's,
                // inside both buffers (checked by the caller); workers
                // write disjoint destination elements, and the source does
                // not overlap the destination (the plan's precondition).
                unsafe {
                    let sp = (sa as *const u8).offset(soff as isize * size as isize);
                    let dp = (da as *mut u8).offset(doff as isize * size as isize);
                    transpose::copy_tile(level, size, sp, dp, tile, stream);
                }
                continue;
            }
            for ia in 0..la {
                let s = soff + ia as i64 * ssa;
                for (j, x) in buf[ia * row..(ia + 1) * row].iter_mut().enumerate() {
                    *x = load_at(se, sa, s + j as i64);
                }
            }
            for ib in 0..lb {
                let d = doff + ib as i64 * dsb;
                for ia in 0..la {
                    for j in 0..vu {
                        let o = d + (ia * vu + j) as i64;
                        let mut x = buf[ia * row + ib * vu + j] * pass.alpha;
                        if pass.beta != 0.0 {
                            x += pass.beta * load_at(de, da, o);
                        }
                        store_at(de, da, o, x);
                    }
                }
            }
        }
    });
}

/// The walk's loops with each single loop over a dimension the source
/// blocks (and the destination does not) split into the source's own
/// loops of it, so that the source's offset becomes linear (blocked to
/// plain); `None` when nothing splits.
fn split_for_src(pass: &Pass, src: &Layout, dst: &Layout) -> Option<Vec<PhysLoop>> {
    let (sblk, dblk) = (src.block_sizes(), dst.block_sizes());
    let phys = src.loops();
    let mut out = Vec::new();
    let mut changed = false;
    for lp in &pass.loops {
        let d = lp.dim;
        let single = pass.loops.iter().filter(|x| x.dim == d).count() == 1;
        if sblk[d] == 1
            || dblk[d] != 1
            || !single
            || lp.unit != 1
            || lp.size != src.padded_dims[d]
            || pass.base[d] != 0
            || pass.shift[d] != 0
        {
            out.push(*lp);
            continue;
        }
        let mut mine: Vec<PhysLoop> = phys.iter().filter(|x| x.dim == d).copied().collect();
        mine.sort_by_key(|x| std::cmp::Reverse(x.unit));
        out.extend(mine.iter().map(|x| PhysLoop { stride: 0, ..*x }));
        changed = true;
    }
    changed.then_some(out)
}

/// Reads a quantization array (f32 scales or s32 zero points) of `count`
/// values at `addr`.
fn read_array(addr: usize, count: i64, int: bool, what: &str) -> Result<Vec<f32>> {
    if addr == 0 {
        return Err(Error::invalid(format!("the {what} memory has no buffer")));
    }
    Ok((0..count)
        .map(|i| {
            if int {
                load_at(Elem::S32, addr, i)
            } else {
                load_at(Elem::F32, addr, i)
            }
        })
        .collect())
}

/// Runs `plan` over host memory; `addr(arg)` gives an argument's host
/// address (0 when it has none).
pub fn run_host(plan: &Plan, addr: &dyn Fn(i32) -> Result<usize>) -> Result<()> {
    let dst = &plan.dst;
    if dst.padded_nelems() == 0 {
        return Ok(());
    }
    let dst_addr = addr(plan.dst_arg)?;
    if dst_addr == 0 {
        return Err(Error::invalid(
            "the destination memory has a NULL data handle",
        ));
    }
    let dims = dst.dims();
    let scratch_addr = match &plan.scratch {
        Some(l) if l.padded_nelems() > 0 => addr(SCRATCH_ARG)?,
        _ => 0,
    };
    for pass in &plan.passes {
        if pass.total == 0 {
            continue;
        }
        let (dst, dst_addr) = match (&plan.scratch, pass.to_scratch) {
            (Some(l), true) => (l, scratch_addr),
            _ => (&plan.dst, dst_addr),
        };
        let src = match &pass.src {
            Some((arg, layout)) => {
                let a = addr(*arg)?;
                if a == 0 && layout.padded_nelems() > 0 {
                    return Err(Error::invalid(format!(
                        "the memory of argument {arg} has a NULL data handle"
                    )));
                }
                Some((Addr(a), layout))
            }
            None => None,
        };
        let q = &pass.quant;
        let array =
            |p: Option<QuantArg>, int: bool, what: &str| -> Result<Option<(i32, Vec<f32>)>> {
                p.map(|p| {
                    let values = read_array(addr(p.arg)?, mask_count(p.mask, dims), int, what)?;
                    Ok((p.mask, values))
                })
                .transpose()
            };
        let ssc = array(q.src_scale, false, "source scales")?;
        let dsc = array(q.dst_scale, false, "destination scales")?;
        let szp = array(q.src_zp, true, "source zero points")?;
        let dzp = array(q.dst_zp, true, "destination zero points")?;
        let n = dst.ndims;
        let dst_addr = Addr(dst_addr);
        // Offsets linear in the walk (the common case) are dot products of
        // the loop indices, stepped like an odometer: no divisions.
        let dlin = linear(dst, &pass.loops, &pass.base[..n]);
        let slin = pass.src.as_ref().and_then(|(_, sl)| {
            let start: Vec<i64> = (0..n).map(|d| pass.base[d] + pass.shift[d]).collect();
            linear(sl, &pass.loops, &start)
        });
        let nl = pass.loops.len();
        let chunks = parallel::split(pass.total as usize, 1 << 14);
        let plain = !dst.has_padding() && !pass.skip_inside && *q == Quant::default();
        if let (true, Some((src_addr, sl))) = (plain, &src) {
            // Linear offsets, if need be after splitting loops over
            // dimensions the source blocks.
            let lin = match (&slin, &dlin) {
                (Some(s), Some(d)) => Some((s.clone(), d.clone(), pass.loops.clone())),
                _ => split_for_src(pass, sl, dst).and_then(|loops| {
                    let start: Vec<i64> = (0..n).map(|d| pass.base[d] + pass.shift[d]).collect();
                    let s = linear(sl, &loops, &start)?;
                    let d = linear(dst, &loops, &pass.base[..n])?;
                    Some((s, d, loops))
                }),
            };
            if let Some(((so, ss), (dz, ds), loops)) = lin {
                let sizes: Vec<i64> = loops.iter().map(|l| l.size).collect();
                let w = Strided::new(&sizes, &ss, &ds);
                let (se, de) = ((sl.elem, src_addr.0), (dst.elem, dst_addr.0));
                if let Some(tile) = w.transpose() {
                    run_tiled(pass, &w, tile, (se.0, se.1, so), (de.0, de.1, dz));
                } else {
                    let (sli, dli) = ((so, w.ss.clone()), (dz, w.ds.clone()));
                    parallel::run_all(chunks, |range| {
                        run_linear(
                            pass,
                            &w.sizes,
                            range,
                            (se.0, se.1, &sli),
                            (de.0, de.1, &dli),
                        )
                    });
                }
                continue;
            }
        }
        let scontrib = src.as_ref().map(|(_, sl)| DimOffsets::new(sl));
        let dcontrib = DimOffsets::new(dst);
        // The dimension the innermost loop walks: between two elements of
        // one run only its term of a non-linear offset changes.
        let inner_dim = pass.loops.last().map(|l| l.dim);
        parallel::run_all(chunks, |range| {
            let mut p = [0i64; MAX_NDIMS];
            let mut x = [0i64; MAX_NDIMS];
            let mut idx = [0i64; MAX_NDIMS + MAX_NDIMS];
            // The previous element's offsets, valid when only the innermost
            // index moved since.
            let mut prev: Option<(i64, i64, i64)> = None; // (position along inner_dim, dst off, src off)
            let mut r = range.start as i64;
            for k in (0..nl).rev() {
                idx[k] = r % pass.loops[k].size;
                r /= pass.loops[k].size;
            }
            for _ in range {
                p[..n].copy_from_slice(&pass.base[..n]);
                for (k, l) in pass.loops.iter().enumerate() {
                    p[l.dim] += idx[k] * l.unit;
                }
                let dot = |lin: &Option<(i64, Vec<i64>)>| {
                    lin.as_ref()
                        .map(|(o, st)| o + st.iter().zip(&idx).map(|(s, i)| s * i).sum::<i64>())
                };
                let src_lin_off = dot(&slin);
                let dst_lin_off = dot(&dlin);
                let last = prev.take();
                // The next element's indices.
                let mut carried = false;
                for k in (0..nl).rev() {
                    idx[k] += 1;
                    if idx[k] < pass.loops[k].size {
                        break;
                    }
                    idx[k] = 0;
                    carried = true;
                }
                let mut inside = true;
                for d in 0..n {
                    x[d] = p[d] - dst.padded_offsets[d];
                    inside &= x[d] >= 0 && x[d] < dims[d];
                }
                let id = inner_dim.unwrap_or(0);
                let doff = dst_lin_off.unwrap_or_else(|| match last {
                    Some((q, o, _)) => o - dcontrib.term(id, q) + dcontrib.term(id, p[id]),
                    None => dst.offset(&p),
                });
                let mut soff_cached = None;
                if let (Some((q, _, so)), Some(sc)) = (last, &scontrib) {
                    let sh = pass.shift[id];
                    soff_cached = Some(so - sc.term(id, q + sh) + sc.term(id, p[id] + sh));
                }
                let src_off = || -> i64 {
                    if let Some(o) = src_lin_off.or(soff_cached) {
                        return o;
                    }
                    let mut sp = [0i64; MAX_NDIMS];
                    for d in 0..n {
                        sp[d] = p[d] + pass.shift[d];
                    }
                    src.as_ref().map_or(0, |(_, sl)| sl.offset(&sp))
                };
                let soff = if src.is_some() && !pass.skip_inside {
                    src_off()
                } else {
                    0
                };
                if !carried && nl > 0 {
                    prev = Some((p[id], doff, soff));
                }
                if !inside {
                    store_at(dst.elem, dst_addr.0, doff, 0.0);
                    continue;
                }
                let Some((src_addr, sl)) = &src else { continue };
                if pass.skip_inside {
                    continue;
                }
                let mut v = load_at(sl.elem, src_addr.0, soff);
                let at = |a: &Option<(i32, Vec<f32>)>| {
                    a.as_ref()
                        .map(|(m, vals)| vals[mask_index(*m, &x[..n], dims)])
                };
                if let Some(z) = at(&szp) {
                    v -= z;
                }
                v *= pass.alpha;
                if let Some(s) = at(&ssc) {
                    v *= s;
                }
                if pass.beta != 0.0 {
                    v += pass.beta * load_at(dst.elem, dst_addr.0, doff);
                }
                if let Some(s) = at(&dsc) {
                    v /= s;
                }
                if let Some(z) = at(&dzp) {
                    v += z;
                }
                store_at(dst.elem, dst_addr.0, doff, v);
            }
        });
    }
    Ok(())
}

/// The bytes a quantization array of `q` needs for `dims`.
pub fn quant_bytes(q: QuantArg, dims: &[i64]) -> usize {
    mask_count(q.mask, dims) as usize * 4
}

/// The arguments a plan reads, with the bytes each needs (sources and
/// quantization arrays), for buffer checks.
pub fn plan_inputs(plan: &Plan) -> Vec<(i32, usize)> {
    let dims = plan.dst.dims();
    let mut out = Vec::new();
    for pass in &plan.passes {
        if let Some((arg, l)) = &pass.src
            && pass.total > 0
            && *arg != SCRATCH_ARG
        {
            out.push((*arg, l.byte_range().1));
        }
        let q = pass.quant;
        for p in [q.src_scale, q.dst_scale, q.src_zp, q.dst_zp]
            .into_iter()
            .flatten()
        {
            out.push((p.arg, quant_bytes(p, dims)));
        }
    }
    out
}

/// The C data type value of an element type, for messages.
pub fn elem_of(md_dt: dnnl_data_type_t, what: &str) -> Result<Elem> {
    Elem::from_c(md_dt).ok_or_else(|| {
        Error::unimplemented(format!("{what}: data type {} is not supported", md_dt.0))
    })
}
