//! Normalization on GPU engines: builds `normalization.cl` specialised for
//! one op and enqueues its kernels (OpenCL and Level Zero, through
//! `core::gpu`).
//!
//! Layer: prims. Shapes, offsets (as expressions of the canonical `n`, `c`,
//! `sp`) and flags are baked in with `-D`. Statistics: a work-group per stat
//! (`nrm_fused_fwd`, which also normalizes) when a stat has few elements or
//! there are many stats; otherwise a two-level reduction: work-groups over
//! (outputs x chunks of the reduced elements) write partial sums to the
//! scratchpad, one work-item per output adds them up (`nrm_reduce`,
//! `nrm_finish`), then the element-wise kernel (`nrm_fwd`, `nrm_bwd`)
//! runs one work-item per element in the output's memory order. Where the
//! channel is the unit-stride dimension and the reduction runs over other
//! dimensions, a work-group spreads 32 lanes over neighbouring outputs so
//! that its loads coalesce.

use std::sync::Arc;

use super::{NormOp, Role};
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, GpuEngine, Kernel};
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation, Kind};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::Layout;

/// Work-group size (lowered to what the device allows).
const WG: usize = 256;
/// A stat of at most this many elements is reduced by one work-group.
const FUSED_MAX: i64 = 2048;
/// ... and so is one of at most this many when there are enough stats to
/// fill the device.
const FUSED_MAX_MANY: i64 = 65536;
const MANY_STATS: i64 = 256;

/// One reduction of the plan.
#[derive(Clone, Copy, Debug)]
struct Reduction {
    mode: u32,
    /// Outputs are channels (reduced over n and sp), else stats.
    chan: bool,
    /// Outputs and elements per output.
    outputs: i64,
    red: i64,
    /// Lanes over neighbouring outputs.
    lanes: i64,
    chunk: i64,
    nchunk: i64,
}

/// What runs, in order, and where the scratchpad keeps what.
struct Plan {
    fused: bool,
    reductions: Vec<Reduction>,
    /// Element-wise pass (nrm_fwd or nrm_bwd).
    elementwise: bool,
    stats_in_scratch: bool,
    part_base: i64,
    mean_base: i64,
    var_base: i64,
    chan_base: i64,
    sum_base: i64,
    floats: i64,
}

/// The element stride of channel `c` and of the innermost spatial (or `n`)
/// dimension in `l`.
fn strides(op: &NormOp, l: &Layout) -> (i64, i64) {
    let axes = op.axes();
    let p0 = l.padded_offsets;
    let base = l.offset(&p0);
    let step = |d: usize| {
        if l.dims[d] < 2 {
            return i64::MAX;
        }
        let mut p = p0;
        p[d] += 1;
        l.offset(&p) - base
    };
    let inner = axes
        .sp
        .last()
        .or(axes.n.last())
        .map_or(i64::MAX, |&d| step(d));
    (step(axes.c), inner)
}

fn plan(op: &NormOp) -> Plan {
    let g = *op.geometry();
    let src = op.layout(DNNL_ARG_SRC);
    let (c_stride, inner_stride) = src.as_ref().map_or((i64::MAX, 1), |l| strides(op, l));
    let clast_lanes = c_stride == 1 && inner_stride != 1 && g.c > 1;
    let reduction = |mode: u32, chan: bool| {
        let (outputs, red) = if chan {
            (g.c, g.n * g.sp)
        } else {
            (g.stats(), g.per_stat())
        };
        // Lanes over outputs where the outputs are channels, neighbours in memory.
        let lanes = if (chan || !g.per_n) && clast_lanes {
            32
        } else {
            1
        };
        let chunk = if lanes == 1 { 4096 } else { 256 };
        Reduction {
            mode,
            chan,
            outputs,
            red,
            lanes,
            chunk,
            nchunk: (red.max(1) + chunk - 1) / chunk,
        }
    };
    let mut reductions = Vec::new();
    let mut fused = false;
    let mut stats_in_scratch = false;
    if !op.is_backward() {
        if !op.global_stats() {
            let m = g.per_stat();
            stats_in_scratch = !op.writes_stats();
            if m <= FUSED_MAX || (m <= FUSED_MAX_MANY && g.stats() >= MANY_STATS) {
                fused = true;
            } else {
                if !op.rms() {
                    reductions.push(reduction(0, false));
                }
                reductions.push(reduction(1, false));
            }
        }
    } else {
        let global = op.global_stats();
        if op.writes_diff_scale() || op.writes_diff_shift() || (!g.per_n && !global) {
            reductions.push(reduction(2, true));
        }
        if !global && g.per_n {
            reductions.push(reduction(3, false));
        }
    }
    let part = reductions
        .iter()
        .map(|r| 2 * r.outputs * r.nchunk)
        .max()
        .unwrap_or(0);
    let s = g.stats();
    let part_base = 0;
    let mean_base = part;
    let var_base = mean_base + s;
    let chan_base = var_base + s;
    let sum_base = chan_base + 2 * g.c;
    Plan {
        fused,
        elementwise: !fused,
        reductions,
        stats_in_scratch,
        part_base,
        mean_base,
        var_base,
        chan_base,
        sum_base,
        floats: sum_base + 2 * s,
    }
}

/// The scratchpad bytes of `op` on GPU engines.
pub(super) fn scratchpad_bytes<K: AsRef<NormOp>>(op: &K) -> usize {
    let op = op.as_ref();
    if op.geometry().nelems() == 0 {
        return 0;
    }
    plan(op).floats as usize * 4
}

/// An index's terms: `(idx/div%size)` for each dimension of `dims`
/// (row-major), by dimension.
fn index_terms(l: &Layout, dims: &[usize], var: &str, out: &mut [String; MAX_NDIMS]) {
    let mut div = 1i64;
    for (k, &d) in dims.iter().enumerate().rev() {
        let q = if div == 1 {
            var.to_string()
        } else {
            format!("({var}/{div})")
        };
        out[d] = if k == 0 {
            q
        } else {
            format!("({q}%{})", l.dims[d])
        };
        div *= l.dims[d];
    }
}

/// The offset expression of `l` at canonical `(n, c, sp)`.
fn data_offset(op: &NormOp, l: &Layout) -> String {
    let axes = op.axes();
    let mut pos: [String; MAX_NDIMS] = Default::default();
    index_terms(l, &axes.n, "n", &mut pos);
    index_terms(l, &axes.sp, "sp", &mut pos);
    pos[axes.c] = "c".into();
    l.cl_offset_expr(&|d| with_pad(l, d, &pos[d]))
}

fn with_pad(l: &Layout, d: usize, e: &str) -> String {
    if l.padded_offsets[d] == 0 {
        e.to_string()
    } else {
        format!("({e}+{})", l.padded_offsets[d])
    }
}

/// The offset expression of element `var` of a vector argument (row-major
/// over its dimensions).
fn vector_offset(l: &Layout, var: &str) -> String {
    let dims: Vec<usize> = (0..l.ndims).collect();
    let mut pos: [String; MAX_NDIMS] = Default::default();
    index_terms(l, &dims, var, &mut pos);
    l.cl_offset_expr(&|d| with_pad(l, d, &pos[d]))
}

fn float_lit(v: f32) -> String {
    format!("as_float(0x{:x}u)", v.to_bits())
}

/// The options every kernel of `op` shares.
/// Whether `l` holds f32 and steps by one element along `axes` (innermost
/// last) taken as one row-major block.
fn contiguous_f32(l: &Layout, axes: &[usize]) -> bool {
    let p0 = l.padded_offsets;
    let base = l.offset(&p0);
    let mut expect = 1;
    l.elem == Elem::F32
        && axes.iter().rev().all(|&d| {
            let mut p = p0;
            p[d] += 1;
            let dense = l.dims[d] < 2 || l.offset(&p) - base == expect;
            expect *= l.dims[d];
            dense
        })
}

/// Whether src and the output hold f32 contiguous along `axes`.
fn data_contiguous_f32(op: &NormOp, axes: &[usize]) -> bool {
    [DNNL_ARG_SRC, op.role_arg(Role::Out)]
        .into_iter()
        .all(|arg| op.layout(arg).is_some_and(|l| contiguous_f32(&l, axes)))
}

/// Whether the forward element-wise kernel takes 4 elements of a row per
/// work-item (`VEC4` in normalization.cl): f32 src and dst whose rows (sp,
/// channels outermost) are contiguous and a multiple of 4 long.
fn vec4(op: &NormOp) -> Result<bool> {
    if op.is_backward() || channels_last(op)? || op.geometry().sp % 4 != 0 {
        return Ok(false);
    }
    Ok(data_contiguous_f32(op, &op.axes().sp))
}

/// Whether the fused forward kernel may hold rows as float4 (`FUSED4`):
/// one stat per n over contiguous f32 channels (layer normalization), a
/// multiple of 4 of them.
fn rows4(op: &NormOp) -> bool {
    let g = op.geometry();
    g.per_n && g.g == 1 && g.sp == 1 && g.c % 4 == 0 && data_contiguous_f32(op, &[op.axes().c])
}

/// Whether the element-wise kernels walk the output channels innermost.
fn channels_last(op: &NormOp) -> Result<bool> {
    let out = op
        .layout(op.role_arg(Role::Out))
        .ok_or_else(|| Error::runtime("a normalization argument without layout"))?;
    let (c_stride, inner_stride) = strides(op, &out);
    Ok(op.geometry().sp > 1 && c_stride < inner_stride)
}

fn common_options(op: &NormOp, plan: &Plan, wg: usize) -> Result<String> {
    let g = *op.geometry();
    let missing = || Error::runtime("a normalization argument without layout");
    let src = op.layout(DNNL_ARG_SRC).ok_or_else(missing)?;
    let out = op.layout(op.role_arg(Role::Out)).ok_or_else(missing)?;
    let mut o = format!(
        "-DWG={wg} -DN={} -DC={} -DSP={} -DG={} -DCG={} -DPER_N={} -DS={} -DM={} -DEPS={}",
        g.n,
        g.c,
        g.sp,
        g.g,
        g.cg,
        u8::from(g.per_n),
        g.stats(),
        g.per_stat(),
        float_lit(op.epsilon())
    );
    o += &format!(
        " -DSRC_DT={} -DOUT_DT={} -DSRC_OFF={} -DOUT_OFF={}",
        src.elem.cl_name(),
        out.elem.cl_name(),
        data_offset(op, &src),
        data_offset(op, &out)
    );
    // Element positions in 32 bits where every data tensor's offsets fit
    // (64-bit division and multiplication are slow on GPUs).
    let fits = |l: &Layout| l.offset0 + l.extent() < i32::MAX as i64;
    let narrow = g.n * g.c * g.sp < i32::MAX as i64
        && fits(&src)
        && fits(&out)
        && op.layout(DNNL_ARG_DIFF_DST).is_none_or(|l| fits(&l))
        && op.layout(op.role_arg(Role::Add)).is_none_or(|l| fits(&l));
    o += if narrow {
        " -DNIDX=int"
    } else {
        " -DNIDX=long"
    };
    match op.layout(DNNL_ARG_DIFF_DST) {
        Some(l) => {
            o += &format!(
                " -DDD_DT={} -DDD_OFF={}",
                l.elem.cl_name(),
                data_offset(op, &l)
            )
        }
        None => o += " -DDD_DT=F32 -DDD_OFF=0",
    }
    match op.layout(op.role_arg(Role::Add)) {
        Some(l) if op.add_relu() => {
            o += &format!(
                " -DADD=1 -DADD_DT={} -DADD_OFF={}",
                l.elem.cl_name(),
                data_offset(op, &l)
            )
        }
        _ => o += " -DADD=0 -DADD_DT=F32 -DADD_OFF=0",
    }
    match op.layout(DNNL_ARG_MEAN) {
        Some(l) => o += &format!(" -DMV_OFF={}", vector_offset(&l, "s")),
        None => o += " -DMV_OFF=s",
    }
    let ss = op
        .layout(DNNL_ARG_SCALE)
        .or_else(|| op.layout(DNNL_ARG_SHIFT));
    match ss {
        Some(l) => {
            o += &format!(
                " -DSS_DT={} -DSS_OFF={}",
                l.elem.cl_name(),
                vector_offset(&l, "c")
            )
        }
        None => o += " -DSS_DT=F32 -DSS_OFF=c",
    }
    let dss = op
        .layout(DNNL_ARG_DIFF_SCALE)
        .or_else(|| op.layout(DNNL_ARG_DIFF_SHIFT));
    match dss {
        Some(l) => {
            o += &format!(
                " -DDSS_DT={} -DDSS_OFF={}",
                l.elem.cl_name(),
                vector_offset(&l, "c")
            )
        }
        None => o += " -DDSS_DT=F32 -DDSS_OFF=c",
    }
    // The logical position of (n, c, sp), for post-ops.
    let axes = op.axes();
    let mut lpos: [String; MAX_NDIMS] = Default::default();
    index_terms(&src, &axes.n, "n", &mut lpos);
    index_terms(&src, &axes.sp, "sp", &mut lpos);
    lpos[axes.c] = "c".into();
    o += &format!(
        " -DNDIMS={} -DLPOS={} -DRMS={}",
        src.ndims,
        lpos[..src.ndims].join(","),
        u8::from(op.rms())
    );
    let [s_src, s_dst] = op.scales();
    o += &format!(
        " -DCLAST={} -DUSE_SCALE={} -DUSE_SHIFT={} -DGLOBAL={} -DWRITE_STATS={} -DWS={} \
         -DRELU={} -DRELU_ALPHA={} -DSCALE_SRC={} -DSCALE_DST={} -DSTATS_IN_SCRATCH={} \
         -DWRITE_DSCALE={} -DWRITE_DSHIFT={} -DPART_BASE={} -DMEAN_BASE={} -DVAR_BASE={} \
         -DCHAN_BASE={} -DSUM_BASE={}",
        u8::from(channels_last(op)?),
        u8::from(op.has(super::USE_SCALE)),
        u8::from(op.has(super::USE_SHIFT)),
        u8::from(op.global_stats()),
        u8::from(op.writes_stats() || plan.stats_in_scratch),
        u8::from(op.uses_workspace()),
        u8::from(op.relu().is_some()),
        float_lit(op.relu().unwrap_or(0.0)),
        u8::from(s_src),
        u8::from(s_dst),
        u8::from(plan.stats_in_scratch),
        u8::from(op.writes_diff_scale()),
        u8::from(op.writes_diff_shift()),
        plan.part_base,
        plan.mean_base,
        plan.var_base,
        plan.chan_base,
        plan.sum_base,
    );
    Ok(o)
}

fn reduction_options(r: &Reduction, wg: usize) -> String {
    let lanes = (r.lanes as usize).min(wg);
    format!(
        " -DNRM_REDUCE -DMODE={} -DCHAN_DOMAIN={} -DO={} -DRED={} -DNCHUNK={} -DCHUNK={} \
         -DSL={lanes} -DRL={}",
        r.mode,
        u8::from(r.chan),
        r.outputs,
        r.red,
        r.nchunk,
        r.chunk,
        wg / lanes
    )
}

/// A kernel built with the largest work-group size up to [`WG`] the device
/// allows it (a power of two), and that size.
fn build(
    gpu: &GpuEngine,
    source: &str,
    options: &dyn Fn(usize) -> Result<String>,
    name: &str,
    start: usize,
) -> Result<(Kernel, usize)> {
    let mut wg = start;
    loop {
        let kernel = gpu.kernel(source, &options(wg)?, name)?;
        let max = gpu.work_group_size(&kernel)?;
        if wg <= max || wg == 1 {
            return Ok((kernel, wg));
        }
        wg = 1 << max.max(1).ilog2();
    }
}

/// One launch: the kernel, work-items and work-group size.
struct Launch {
    kernel: Kernel,
    global: usize,
    local: Option<usize>,
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create<K: Kind + AsRef<NormOp>>(
    op: &Arc<K>,
    engine: &Engine,
) -> Result<Arc<dyn Implementation>> {
    let norm: &NormOp = (**op).as_ref();
    let gpu = engine.gpu(norm.family().name())?;
    let plan = plan(norm);
    let source = format!(
        "{}{}{}",
        include_str!("../common/types.cl"),
        norm.post_ops().cl_source(),
        include_str!("normalization.cl")
    );
    let g = *norm.geometry();
    let mut launches = Vec::new();
    if g.nelems() > 0 {
        if plan.fused {
            let row4 = rows4(norm);
            // Rows held as float4: work-groups small enough to give each
            // work-item 4 of them (fewer reduction steps, more groups in
            // flight: on an H100, 1024-wide rows 0.78 -> 0.97 x copy with 64 than
            // with 256).
            let fused_wg = if row4 {
                (g.per_stat() as usize / 16)
                    .next_power_of_two()
                    .clamp(32, WG)
            } else {
                WG
            };
            let opts = |wg| {
                // float4 per work-item, held in registers: at most 4.
                let k = (g.per_stat() as usize / 4).div_ceil(wg);
                let fused4 = if row4 && k <= 4 { k } else { 0 };
                Ok(common_options(norm, &plan, wg)?
                    + &format!(" -DNRM_FUSED_FWD -DFUSED4={fused4}"))
            };
            let (kernel, wg) = build(&gpu, &source, &opts, "nrm_fused_fwd", fused_wg)?;
            launches.push(Launch {
                kernel,
                global: g.stats() as usize * wg,
                local: Some(wg),
            });
        }
        for r in &plan.reductions {
            let opts = |wg| Ok(common_options(norm, &plan, wg)? + &reduction_options(r, wg));
            let (kernel, wg) = build(&gpu, &source, &opts, "nrm_reduce", WG)?;
            let lanes = (r.lanes as usize).min(wg);
            let groups = (r.outputs as usize).div_ceil(lanes) * r.nchunk as usize;
            launches.push(Launch {
                kernel,
                global: groups * wg,
                local: Some(wg),
            });
            let (kernel, _) = build(&gpu, &source, &opts, "nrm_finish", WG)?;
            launches.push(Launch {
                kernel,
                global: r.outputs as usize,
                local: None,
            });
        }
        if plan.elementwise {
            let (define, name) = if norm.is_backward() {
                (" -DNRM_BWD", "nrm_bwd")
            } else {
                (" -DNRM_FWD", "nrm_fwd")
            };
            let vec = if vec4(norm)? { 4 } else { 1 };
            let opts = |wg| {
                Ok(common_options(norm, &plan, wg)? + define + &format!(" -DVEC4={}", vec / 4))
            };
            let (kernel, _) = build(&gpu, &source, &opts, name, WG)?;
            launches.push(Launch {
                kernel,
                global: g.nelems() as usize / vec,
                local: None,
            });
        }
    }
    Ok(Arc::new(OclNorm {
        op: op.clone(),
        launches,
    }))
}

/// The implementation; it holds no engine (see eltwise's).
struct OclNorm<K> {
    op: Arc<K>,
    launches: Vec<Launch>,
}

impl<K: Kind + AsRef<NormOp>> Implementation for OclNorm<K> {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op: &NormOp = (*self.op).as_ref();
        let queue = ctx.queue()?;
        let buffer = |arg: i32| -> Result<Buffer> {
            if !op.uses_arg(arg) {
                return Ok(Buffer::None);
            }
            let b = Buffer::of(ctx.arg(arg)?)?;
            if let Some(l) = op.layout(arg) {
                b.check_holds(l.byte_range().1, "argument")?;
            }
            Ok(b)
        };
        let scale = |arg: i32, on: bool| -> Result<Buffer> {
            if !on {
                return Ok(Buffer::None);
            }
            Buffer::values(ctx.arg(DNNL_ARG_ATTR_SCALES | arg)?, 4, "scale")
        };
        let [s_src, s_dst] = op.scales();
        let bufs = [
            buffer(DNNL_ARG_SRC)?,
            buffer(op.role_arg(Role::Out))?,
            buffer(DNNL_ARG_DIFF_DST)?,
            buffer(op.role_arg(Role::Add))?,
            buffer(DNNL_ARG_WORKSPACE)?,
            buffer(DNNL_ARG_MEAN)?,
            buffer(DNNL_ARG_VARIANCE)?,
            buffer(DNNL_ARG_SCALE)?,
            buffer(DNNL_ARG_SHIFT)?,
            buffer(DNNL_ARG_DIFF_SCALE)?,
            buffer(DNNL_ARG_DIFF_SHIFT)?,
            scale(DNNL_ARG_SRC, s_src)?,
            scale(DNNL_ARG_DST, s_dst)?,
            match ctx.scratchpad {
                Some(m) if !self.launches.is_empty() => Buffer::of(m)?,
                _ => Buffer::None,
            },
        ];
        if self.launches.is_empty() {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        let post = if op.is_backward() {
            Vec::new()
        } else {
            op.post_ops().cl_buffers(ctx)?
        };
        let args = bufs
            .iter()
            .chain(&post)
            .map(Buffer::kernel_arg)
            .collect::<Result<Vec<_>>>()?;
        let mut last: Option<Event> = None;
        for l in &self.launches {
            let local = l.local.map(|w| [w]);
            let wait = match &last {
                Some(e) => std::slice::from_ref(e),
                None => ctx.deps,
            };
            let e = queue.enqueue_kernel(
                &l.kernel,
                &args,
                &[l.global],
                local.as_ref().map(|w| &w[..]),
                wait,
            )?;
            last = Some(e);
        }
        Ok(last)
    }
}
