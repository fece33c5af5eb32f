//! The data movement reorder, sum and concat share: a [`Plan`] of passes,
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
//!   `v = v / dst_scale[x] + dst_zp[x]`, then `v += beta * dst_old`
//!   (the sum post-op, `dst = beta * dst_old + result`); the store rounds to
//!   nearest even and saturates.
//!
//! Scale and zero-point arrays are indexed row-major over the dimensions
//! their mask selects (oneDNN's convention).

// Dimension loops index several parallel arrays by the same `d`.
#![allow(clippy::needless_range_loop)]

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MAX_NDIMS;
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::layout::{Layout, PhysLoop};
use crate::prims::common::parallel;

/// A per-element quantization parameter: its argument (without the
/// `DNNL_ARG_ATTR_*` bits) and mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantArg {
    /// The full execution argument (`DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC` ...).
    pub arg: i32,
    /// Bit `d`: one value per index along destination dimension `d`.
    pub mask: i32,
}

/// The quantization of one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quant {
    pub src_scale: Option<QuantArg>,
    pub dst_scale: Option<QuantArg>,
    pub src_zp: Option<QuantArg>,
    pub dst_zp: Option<QuantArg>,
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
    /// `to_scratch` accumulate in (allocated per execution), read back as
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

fn load_at(elem: Elem, addr: usize, off: i64) -> f32 {
    let size = elem.size();
    // SAFETY: the caller checked that the element lies inside the buffer.
    let bytes =
        unsafe { std::slice::from_raw_parts((addr + off as usize * size) as *const u8, size) };
    dt::load(elem, bytes, 0)
}

fn store_at(elem: Elem, addr: usize, off: i64, v: f32) {
    let size = elem.size();
    let mut tmp = [0u8; 4];
    dt::store(elem, &mut tmp, 0, v);
    // SAFETY: the element lies inside the buffer (checked by the caller), and
    // no two workers write the same element (the layout does not overlap).
    unsafe {
        std::ptr::copy_nonoverlapping(tmp.as_ptr(), (addr + off as usize * size) as *mut u8, size)
    };
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
    let mut scratch_buf = Vec::<u64>::new();
    let scratch_addr = match &plan.scratch {
        Some(l) => {
            scratch_buf.resize(l.byte_range().1.div_ceil(8), 0);
            scratch_buf.as_mut_ptr() as usize
        }
        None => 0,
    };
    let addr = |arg: i32| {
        if arg == SCRATCH_ARG {
            Ok(scratch_addr)
        } else {
            addr(arg)
        }
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
        let chunks = parallel::split(pass.total as usize, 1 << 14);
        parallel::run_all(chunks, |range| {
            let mut p = [0i64; MAX_NDIMS];
            let mut x = [0i64; MAX_NDIMS];
            let mut sp = [0i64; MAX_NDIMS];
            for t in range {
                p[..n].copy_from_slice(&pass.base[..n]);
                let mut r = t as i64;
                for l in pass.loops.iter().rev() {
                    p[l.dim] += r % l.size * l.unit;
                    r /= l.size;
                }
                let mut inside = true;
                for d in 0..n {
                    x[d] = p[d] - dst.padded_offsets[d];
                    inside &= x[d] >= 0 && x[d] < dims[d];
                }
                let doff = dst.offset(&p);
                if !inside {
                    store_at(dst.elem, dst_addr.0, doff, 0.0);
                    continue;
                }
                let Some((src_addr, sl)) = &src else { continue };
                if pass.skip_inside {
                    continue;
                }
                for d in 0..n {
                    sp[d] = p[d] + pass.shift[d];
                }
                let mut v = load_at(sl.elem, src_addr.0, sl.offset(&sp));
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
                if let Some(s) = at(&dsc) {
                    v /= s;
                }
                if let Some(z) = at(&dzp) {
                    v += z;
                }
                if pass.beta != 0.0 {
                    v += pass.beta * load_at(dst.elem, dst_addr.0, doff);
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
        if let Some((arg, l)) = &pass.src {
            if pass.total > 0 && *arg != SCRATCH_ARG {
                out.push((*arg, l.byte_range().1));
            }
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
