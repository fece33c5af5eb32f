//! Reductions on GPU engines: builds `reduce.cl` specialised for one
//! reduction and enqueues it (OpenCL and Level Zero engines, through
//! `core::gpu`).
//!
//! Layer: prims. The shape of the work (see [`Geometry`]) depends on the op
//! only, so the scratchpad it needs is known when the descriptor is made:
//! - the reduction runs along the work-group's second dimension (LY
//!   work-items), its outputs along the first (LX): a contiguous reduced
//!   axis gets a long LY (its loads coalesce along the reduction), an outer
//!   one a long LX (neighbouring outputs are neighbours in memory);
//! - when there are too few work-groups to fill a GPU (few outputs, long
//!   reductions), the reduction is cut into chunks, one work-group row each,
//!   whose accumulators go to the scratchpad; a second pass combines them,
//!   finishes and applies the post-ops.

use super::{Plan, Reduce};
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, GpuEngine, Kernel, Queue};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::cl_walk;
use crate::prims::common::post_ops::PostOpsPlan;

/// Work-items per work-group.
const WG: i64 = 256;
/// Work-groups wanted in flight (a large GPU holds about this many).
const TARGET_GROUPS: i64 = 1024;
/// Elements a work-item should reduce at least, per chunk.
const MIN_PER_ITEM: i64 = 32;

/// One pass's work shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub lx: i64,
    pub ly: i64,
    /// Chunks of the reduction (work-group rows); more than 1: partial results.
    pub chunks: i64,
    /// Elements per chunk.
    pub chunk: i64,
}

/// `a / b` rounded up (`b > 0`, `a >= 0`).
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

fn pow2_at_least(n: i64) -> i64 {
    (n.max(1) as u64).next_power_of_two() as i64
}

impl Geometry {
    /// The shape for `outputs` outputs of `r` elements each, the reduction
    /// contiguous in memory or not; `split` allows chunks.
    pub fn new(outputs: i64, r: i64, contiguous: bool, split: bool) -> Geometry {
        let (lx, ly) = if contiguous || outputs == 1 {
            let ly = pow2_at_least(r).min(WG);
            (pow2_at_least(outputs).min(WG / ly), ly)
        } else {
            let lx = pow2_at_least(outputs).min(64);
            (lx, (WG / lx).min(pow2_at_least(r)))
        };
        let groups = ceil_div(outputs, lx).max(1);
        let chunks = if split {
            ceil_div(TARGET_GROUPS, groups)
                .min(ceil_div(r, ly * MIN_PER_ITEM))
                .max(1)
        } else {
            1
        };
        Geometry {
            lx,
            ly,
            chunks,
            chunk: ceil_div(r, chunks).max(1),
        }
    }

    /// The first pass of `plan`.
    pub fn of(plan: &Plan) -> Geometry {
        let contiguous = plan.red.last().is_some_and(|r| r.1 == 1);
        Geometry::new(plan.outputs, plan.r, contiguous, true)
    }

    /// The pass that combines `self.chunks` partial results per output.
    fn second(&self, outputs: i64) -> Geometry {
        Geometry::new(outputs, self.chunks, false, false)
    }
}

/// The scratchpad bytes: the partial accumulators, when the reduction is
/// cut into chunks.
pub fn scratchpad(op: &Reduce) -> usize {
    let g = Geometry::of(op.plan());
    if g.chunks > 1 {
        (op.partial_offset() + g.chunks * op.plan().outputs) as usize * 4
    } else {
        0
    }
}

/// `(q / div) % size` terms of index `q` over `dims` (outermost first):
/// their sum weighted by the strides `stride(k)`.
fn index_expr(q: &str, sizes: &[i64], strides: &[i64]) -> String {
    let mut terms = Vec::new();
    let mut div = 1i64;
    for k in (0..sizes.len()).rev() {
        let mut t = if div == 1 {
            q.to_string()
        } else {
            format!("({q}/{div})")
        };
        if k > 0 {
            t = format!("({t}%{})", sizes[k]);
        }
        terms.push(format!("{t}*{}", strides[k]));
        div *= sizes[k];
    }
    if terms.is_empty() {
        "0".to_string()
    } else {
        format!("({})", terms.join("+"))
    }
}

/// A float as an exact OpenCL expression.
fn cl_float(v: f32) -> String {
    format!("as_float(0x{:08x}u)", v.to_bits())
}

fn options(op: &Reduce, g: Geometry, pass: Pass) -> String {
    let plan = op.plan();
    let (ls, ld) = (op.src_layout(), op.dst_layout());
    let idle_sizes: Vec<i64> = plan.idle.iter().map(|i| i.size).collect();
    let mut o = format!(
        "-DALG={} -DP={} -DEPS={} -DP_ONE={} -DP_TWO={} -DOUTPUTS={} -DR_TOTAL={} -DLX={} -DLY={} -DCH={} -DNDIMS={} -DPART_OFF={}",
        op.alg().cl_code(),
        cl_float(op.p()),
        cl_float(op.eps()),
        u8::from(op.p() == 1.0),
        u8::from(op.p() == 2.0),
        plan.outputs,
        plan.r,
        g.lx,
        g.ly,
        g.chunk,
        ld.ndims,
        op.partial_offset(),
    );
    let dst_dt = ld.elem.cl_name();
    match pass {
        Pass::First { partial } => {
            let red_sizes: Vec<i64> = plan.red.iter().map(|r| r.0).collect();
            let red_strides: Vec<i64> = plan.red.iter().map(|r| r.1).collect();
            let src_strides: Vec<i64> = plan.idle.iter().map(|i| i.src_stride).collect();
            o += &format!(
                " -DFIRST=1 -DS_DT={} -DD_DT={} -DPARTIAL={} -DR={} -DS_BASE=({}+{}) -DR_OFF={}",
                ls.elem.cl_name(),
                if partial { "F32" } else { dst_dt },
                u8::from(partial),
                plan.r,
                ls.offset0,
                index_expr("o", &idle_sizes, &src_strides),
                index_expr("r", &red_sizes, &red_strides),
            );
        }
        Pass::Second { chunks } => {
            o += &format!(
                " -DFIRST=0 -DS_DT=F32 -DD_DT={dst_dt} -DPARTIAL=0 -DR={chunks} -DS_BASE=(PART_OFF+o) -DR_OFF=(r*{})",
                plan.outputs
            );
        }
    }
    let dst_strides: Vec<i64> = plan.idle.iter().map(|i| i.dst_stride).collect();
    o += &format!(
        " -DD_OFF=({}+{})",
        ld.offset0,
        index_expr("o", &idle_sizes, &dst_strides)
    );
    let mut div = 1i64;
    for idle in plan.idle.iter().rev() {
        let q = if div == 1 {
            "o".to_string()
        } else {
            format!("(o/{div})")
        };
        o += &format!(" -DP{}=({q}%{})", idle.dim, idle.size);
        div *= idle.size;
    }
    let lpos: Vec<String> = (0..ld.ndims).map(|d| format!("p{d}")).collect();
    o += &format!(" -DLPOS={}", lpos.join(","));
    o
}

#[derive(Clone, Copy)]
enum Pass {
    /// Over the source; `partial`: writing chunk accumulators.
    First { partial: bool },
    /// Over `chunks` accumulators per output.
    Second { chunks: i64 },
}

fn build(
    ocl: GpuEngine,
    op: &Reduce,
    g: Geometry,
    pass: Pass,
    post_ops: &PostOpsPlan,
) -> Result<Kernel> {
    let source = format!(
        "{}{}{}{}",
        include_str!("../types.cl"),
        cl_walk::CL_POSITIONS,
        post_ops.cl_source(),
        include_str!("reduce.cl")
    );
    let kernel = ocl.kernel(&source, &options(op, g, pass), "reduction")?;
    let max = ocl.work_group_size(&kernel)?;
    if ((g.lx * g.ly) as usize) > max {
        return Err(Error::unimplemented(format!(
            "reduction: the device runs at most {max} work-items per work-group, the kernel needs {}",
            g.lx * g.ly
        )));
    }
    Ok(kernel)
}

/// The kernels of one reduction, built for an engine.
pub struct Kernels {
    geometry: Geometry,
    first: Kernel,
    /// The combining pass, when the first writes partial results.
    second: Option<(Kernel, Geometry)>,
}

fn global(outputs: i64, g: Geometry) -> [usize; 2] {
    [
        (ceil_div(outputs, g.lx) * g.lx) as usize,
        (g.chunks * g.ly) as usize,
    ]
}

impl Kernels {
    /// Builds the kernels of `op` on `ocl`.
    pub fn new(op: &Reduce, ocl: GpuEngine) -> Result<Kernels> {
        let g = Geometry::of(op.plan());
        let (first, second) = if g.chunks > 1 {
            let g2 = g.second(op.plan().outputs);
            let first = build(
                ocl,
                op,
                g,
                Pass::First { partial: true },
                &PostOpsPlan::none(),
            )?;
            let second = build(
                ocl,
                op,
                g2,
                Pass::Second { chunks: g.chunks },
                op.post_ops(),
            )?;
            (first, Some((second, g2)))
        } else {
            let first = build(ocl, op, g, Pass::First { partial: false }, op.post_ops())?;
            (first, None)
        };
        Ok(Kernels {
            geometry: g,
            first,
            second,
        })
    }

    /// Enqueues `op` from `src` into `dst` after `deps`, with the post-ops'
    /// buffers `post` and, when [`scratchpad`] is not 0, a scratchpad of
    /// that many bytes. The buffers must hold their layouts.
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue(
        &self,
        op: &Reduce,
        queue: &Queue,
        src: &Buffer,
        dst: &Buffer,
        post: &[Buffer],
        scratch: Option<&Buffer>,
        deps: &[Event],
    ) -> Result<Event> {
        let outputs = op.plan().outputs;
        if outputs == 0 {
            return queue.marker(deps);
        }
        let g = self.geometry;
        let local = [g.lx as usize, g.ly as usize];
        let Some((second, g2)) = &self.second else {
            let mut args = vec![src.kernel_arg()?, dst.kernel_arg()?];
            for b in post {
                args.push(b.kernel_arg()?);
            }
            return queue.enqueue_kernel(
                &self.first,
                &args,
                &global(outputs, g),
                Some(&local),
                deps,
            );
        };
        let partial =
            scratch.ok_or_else(|| Error::runtime("the reduction needs its scratchpad"))?;
        partial.check_holds(scratchpad(op), "scratchpad")?;
        let args = [src.kernel_arg()?, partial.kernel_arg()?];
        let first =
            queue.enqueue_kernel(&self.first, &args, &global(outputs, g), Some(&local), deps)?;
        let mut args = vec![partial.kernel_arg()?, dst.kernel_arg()?];
        for b in post {
            args.push(b.kernel_arg()?);
        }
        queue.enqueue_kernel(
            second,
            &args,
            &global(outputs, *g2),
            Some(&[g2.lx as usize, g2.ly as usize]),
            &[first],
        )
    }
}
