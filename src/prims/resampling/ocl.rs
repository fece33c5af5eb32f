//! Resampling on GPU engines: builds `resampling.cl` specialised for one op
//! and enqueues it. The launch code serves OpenCL and Level Zero engines
//! through `core::gpu`.
//!
//! Layer: prims, over `core` (engine, memory, `core::gpu`). Shapes and
//! strides are baked in with `-D` (constants, so the index divisions fold).
//! Work-item `t` is the `t`-th element of the output in memory order, so
//! writes coalesce and neighbouring work-items read neighbouring inputs.

use std::sync::Arc;

use super::{Alg, Geometry, ResamplingOp};
use crate::abi::{DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_DST, DNNL_ARG_SRC};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::{Event, Kernel};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::cl_walk;
use crate::prims::common::cl_walk::OutputWalk;
use crate::prims::common::dt;
use crate::prims::common::layout::Layout;

/// Work-group size (lowered to what the kernel allows).
const LOCAL: usize = 256;

/// The kernel's walk: over diff_src backward, dst forward; forward, 4
/// outputs per work-item where `cl_walk::vec4_dim` allows it. On an H100
/// (same-run copy): nearest up 2x 0.50 -> 0.97, linear up 2x 0.37 -> 0.61,
/// and 0.61 -> 0.93 with the row's taps shared ([`shared_taps`]).
fn walk(op: &ResamplingOp) -> OutputWalk<'_> {
    if op.is_backward() {
        OutputWalk::new(op.src_layout(), false)
    } else {
        OutputWalk::new(op.dst_layout(), true)
    }
}

/// The OpenCL source of the kernels (with the post-ops prelude of `op`).
pub(super) fn source(op: &ResamplingOp) -> String {
    format!(
        "{}{}{}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        op.post_ops().cl_source(),
        include_str!("resampling.cl")
    )
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<ResamplingOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("resampling")?;
    let name = if op.is_backward() {
        "resampling_bwd"
    } else {
        "resampling_fwd"
    };
    let walk = walk(op);
    let kernel = ocl.kernel(&source(op), &options(op, &walk), name)?;
    let local = ocl.work_group_size(&kernel)?.clamp(1, LOCAL);
    let vec = walk.per_item();
    Ok(Arc::new(OclResampling {
        op: op.clone(),
        kernel,
        local,
        vec,
    }))
}

/// The offset in `l` of logical `(n, c, z0, z1, z2)` (kernel variables).
fn offset_of(l: &Layout, geo: &Geometry) -> String {
    let mut names = vec![String::new(); l.ndims];
    names[0] = "n".to_string();
    names[1] = "c".to_string();
    for j in 0..3 {
        if let Some(d) = geo.dim_of_slot(j) {
            names[d] = format!("z{j}");
        }
    }
    l.cl_offset_expr(&|d| names[d].clone())
}

/// The build options of `op`'s kernel.
fn options(op: &ResamplingOp, walk: &OutputWalk) -> String {
    let geo = op.geometry();
    let (sl, dl) = (op.src_layout(), op.dst_layout());
    // The output the work-items walk, and the input they read.
    let (out, walker) = (walk.out, &walk.walker);
    let inp = if op.is_backward() { dl } else { sl };
    let wide = [sl, dl]
        .iter()
        .any(|l| l.offset0 + l.extent() >= i32::MAX as i64)
        || walker.total() >= i32::MAX as i64;
    // The largest product of the tap arithmetic: (2i + 3) o (touching()).
    let taps_wide = (0..3).any(|j| (2 * geo.i[j] + 3).saturating_mul(geo.o[j]) >= i32::MAX as i64);
    let mut o = format!(
        "-DS_DT={} -DD_DT={} -DIDX_T={} -DTAP_T={} -DTOTAL={} -DEMPTY_IN={}",
        sl.elem.cl_name(),
        dl.elem.cl_name(),
        if wide { "long" } else { "int" },
        if wide || taps_wide { "long" } else { "int" },
        walker.total(),
        u8::from(inp.nelems() == 0),
    );
    if op.is_backward() {
        o += " -DBWD";
    }
    o += &cl_walk::walk_options(out, walker, "OUT_OFF");
    if let Some(d) = walk.vec4 {
        o += &cl_walk::vec4_options(d);
        if op.alg() == Alg::Linear && geo.dim_of_slot(2) == Some(d) {
            o += &shared_taps(geo.i[2], geo.o[2]).unwrap_or_default();
        }
    }
    o += " -DN_POS=(p0) -DC_POS=(p1)";
    for j in 0..3 {
        let (y, lin) = match geo.dim_of_slot(j) {
            Some(d) => (format!("(p{d})"), op.alg() == Alg::Linear),
            None => ("0".to_string(), false),
        };
        o += &format!(
            " -DY{j}={y} -DI{j}={} -DO{j}={} -DLIN{j}={}",
            geo.i[j],
            geo.o[j],
            u8::from(lin)
        );
    }
    o += &format!(" -DIN_OFF=({})", offset_of(inp, geo));
    if !op.post_ops().is_empty() {
        let lpos: Vec<String> = (0..out.ndims).map(|d| format!("p{d}")).collect();
        o += &format!(
            " -DWITH_POST_OPS -DNDIMS={} -DLPOS={}",
            out.ndims,
            lpos.join(",")
        );
    }
    o
}

/// Outputs per work-item where the walk goes 4 at a time.
const VEC: i64 = 4;

/// The most source columns a work-item's outputs may share.
const MAX_SHARED: i64 = 8;

/// `resampling.cl`'s `resample_row` options (`VTAPS`) for a linear slot 2 of
/// `i` inputs and `o` outputs walked [`VEC`] at a time, where the taps of
/// output `VEC k + j` are those of output `j` moved by `k VEC i / o` whole
/// columns: `VEC i` divisible by `o`, and at most [`MAX_SHARED`] columns.
/// The kernel's floor division, without the clamp (the kernel clamps).
fn shared_taps(i: i64, o: i64) -> Option<String> {
    if i <= 0 || o <= 0 || (VEC * i) % o != 0 {
        return None;
    }
    let den = 2 * o;
    let taps: Vec<(i64, i64)> = (0..VEC)
        .map(|j| {
            let num = (2 * j + 1) * i - o;
            let f = num.div_euclid(den);
            (f, num - f * den)
        })
        .collect();
    let lo = taps.iter().map(|t| t.0).min()?;
    let hi = taps.iter().map(|&(f, rem)| f + i64::from(rem != 0)).max()?;
    if hi - lo + 1 > MAX_SHARED {
        return None;
    }
    let mut s = format!(
        " -DVTAPS -DVQ={} -DVRMIN={lo} -DVR={} -DVDEN={den}",
        VEC * i / o,
        hi - lo + 1
    );
    for (j, &(f, rem)) in taps.iter().enumerate() {
        let g = f + i64::from(rem != 0);
        s += &format!(" -DVF{j}={} -DVG{j}={} -DVREM{j}={rem}", f - lo, g - lo);
    }
    Some(s)
}

/// The implementation; it holds no engine (see eltwise's).
struct OclResampling {
    op: Arc<ResamplingOp>,
    kernel: Kernel,
    local: usize,
    /// Outputs per work-item.
    vec: usize,
}

impl Implementation for OclResampling {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let queue = ctx.queue()?;
        let (in_arg, out_arg) = if op.is_backward() {
            (DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC)
        } else {
            (DNNL_ARG_SRC, DNNL_ARG_DST)
        };
        let (sl, dl) = (op.src_layout(), op.dst_layout());
        let (out_l, in_l) = if op.is_backward() { (sl, dl) } else { (dl, sl) };
        let input = Buffer::of(ctx.arg(in_arg)?)?;
        let output = Buffer::of(ctx.arg(out_arg)?)?;
        if out_l.nelems() == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        output.check_holds(out_l.byte_range().1, "output")?;
        if in_l.nelems() > 0 {
            input.check_holds(in_l.byte_range().1, "input")?;
        }
        let mut args = vec![input.kernel_arg()?, output.kernel_arg()?];
        let post = op.post_ops().cl_buffers(ctx)?;
        for b in &post {
            args.push(b.kernel_arg()?);
        }
        let total = out_l.nelems() as usize / self.vec;
        let global = total.div_ceil(self.local) * self.local;
        let event = queue.enqueue_kernel(
            &self.kernel,
            &args,
            &[global],
            Some(&[self.local]),
            ctx.deps,
        )?;
        Ok(Some(event))
    }
}
