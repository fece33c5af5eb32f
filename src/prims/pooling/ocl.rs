//! Pooling on GPU engines: builds `pooling.cl` specialised for one op and
//! enqueues it. The launch code serves OpenCL and Level Zero engines through
//! `core::gpu`.
//!
//! Layer: prims, over `core` (engine, memory, `core::gpu`). Shapes, window
//! and every offset are baked in with `-D` (constants, so divisions fold
//! and the window loops unroll). Work-item `t` is the `t`-th element of the
//! output in memory order, so writes coalesce, and neighbouring work-items
//! read neighbouring windows (along W in nchw, along C in nhwc).

use std::sync::Arc;

use super::{Alg, Geometry, PoolingOp};
use crate::abi::{
    DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_DST, DNNL_ARG_SRC, DNNL_ARG_WORKSPACE,
};
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
/// (same-run copy): max 2x2/2 0.88 -> 0.94; with the shared source rows of
/// `ROW4`, avg 3x3/1 0.57 -> 0.83.
fn walk(op: &PoolingOp) -> OutputWalk<'_> {
    if op.is_backward() {
        OutputWalk::new(op.src_layout(), false)
    } else {
        OutputWalk::new(op.dst_layout(), true)
    }
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<PoolingOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("pooling")?;
    let source = format!(
        "{}{}{}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        op.post_ops().cl_source(),
        include_str!("pooling.cl")
    );
    let name = if op.is_backward() {
        "pooling_bwd"
    } else {
        "pooling_fwd"
    };
    let walk = walk(op);
    let kernel = ocl.kernel(&source, &options(op, &walk), name)?;
    let local = ocl.work_group_size(&kernel)?.clamp(1, LOCAL);
    let vec = walk.per_item();
    Ok(Arc::new(OclPooling {
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
    l.cl_offset_expr(&|d| {
        let shift = l.padded_offsets[d];
        if shift == 0 {
            names[d].clone()
        } else {
            format!("({}+{shift})", names[d])
        }
    })
}

/// An f32 as an OpenCL literal that reads back to the same value.
fn cl_float(v: f32) -> String {
    format!("as_float(0x{:08x}u)", v.to_bits())
}

fn options(op: &PoolingOp, walk: &OutputWalk) -> String {
    let geo = op.geometry();
    let (sl, dl) = (op.src_layout(), op.dst_layout());
    // The output the work-items walk, and the input they read.
    let (out, walker) = (walk.out, &walk.walker);
    let inp = if op.is_backward() { dl } else { sl };
    let alg = match op.alg() {
        Alg::Max => "ALG_MAX",
        Alg::AvgIncludePadding => "ALG_AVG_INCL",
        Alg::AvgExcludePadding => "ALG_AVG_EXCL",
    };
    let wide = [sl, dl]
        .iter()
        .chain(op.ws_layout().iter())
        .any(|l| l.offset0 + l.extent() >= i32::MAX as i64)
        || walker.total() >= i32::MAX as i64;
    let mut o = format!(
        "-D{alg} -DS_DT={} -DD_DT={} -DW_DT={} -DWS={} -DIDX_T={} -DTOTAL={} -DLOWEST={}",
        sl.elem.cl_name(),
        dl.elem.cl_name(),
        op.ws_layout().map_or("U8", |l| l.elem.cl_name()),
        u8::from(op.ws_layout().is_some()),
        if wide { "long" } else { "int" },
        walker.total(),
        cl_float(super::cpu::lowest(sl.elem)),
    );
    if op.is_backward() {
        o += " -DBWD";
    }
    o += &cl_walk::walk_options(out, walker, "OUT_OFF");
    if let Some(d) = walk.vec4 {
        o += &cl_walk::vec4_options(d);
        // Four windows along the last spatial dimension at stride 1 share
        // their source rows.
        let row4 = geo.dim_of_slot(2) == Some(d) && geo.s[2] == 1;
        o += &format!(" -DROW4={}", u8::from(row4));
    }
    o += &cl_walk::bounds_option(out);
    o += &format!(
        " -DN_POS=({}) -DC_POS=({})",
        cl_walk::logical_position(out, 0),
        cl_walk::logical_position(out, 1)
    );
    for j in 0..3 {
        let y = match geo.dim_of_slot(j) {
            Some(d) => format!("({})", cl_walk::logical_position(out, d)),
            None => "0".to_string(),
        };
        o += &format!(
            " -DY{j}={y} -DK{j}={} -DS{j}={} -DDL{j}={} -DPL{j}={} -DI{j}={} -DO{j}={}",
            geo.k[j], geo.s[j], geo.d[j], geo.p[j], geo.i[j], geo.o[j]
        );
    }
    o += &format!(" -DIN_OFF={}", offset_of(inp, geo));
    if let Some(wl) = op.ws_layout() {
        let w = if op.is_backward() {
            offset_of(wl, geo)
        } else {
            wl.cl_offset_expr(&|d| cl_walk::shifted_position(wl, out, d))
        };
        o += &format!(" -DW_OFF={w}");
    }
    if !op.post_ops().is_empty() {
        let lpos: Vec<String> = (0..out.ndims)
            .map(|d| cl_walk::logical_position(out, d))
            .collect();
        o += &format!(
            " -DWITH_POST_OPS -DNDIMS={} -DLPOS={}",
            out.ndims,
            lpos.join(",")
        );
    }
    o
}

/// The implementation; it holds no engine (see eltwise's).
struct OclPooling {
    op: Arc<PoolingOp>,
    kernel: Kernel,
    local: usize,
    /// Outputs per work-item.
    vec: usize,
}

impl Implementation for OclPooling {
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
        let ws = match op.ws_layout() {
            Some(_) => Buffer::of(ctx.arg(DNNL_ARG_WORKSPACE)?)?,
            None => Buffer::None,
        };
        if out_l.padded_nelems() == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        output.check_holds(out_l.byte_range().1, "output")?;
        if in_l.padded_nelems() > 0 {
            input.check_holds(in_l.byte_range().1, "input")?;
        }
        if let Some(wl) = op.ws_layout() {
            ws.check_holds(wl.byte_range().1, "workspace")?;
        }
        let mut args = Vec::new();
        if op.is_backward() {
            args.push(input.kernel_arg()?);
            args.push(ws.kernel_arg()?);
            args.push(output.kernel_arg()?);
        } else {
            args.push(input.kernel_arg()?);
            args.push(output.kernel_arg()?);
            args.push(ws.kernel_arg()?);
        }
        let post = op.post_ops().cl_buffers(ctx)?;
        for b in &post {
            args.push(b.kernel_arg()?);
        }
        let total = out_l.padded_nelems() as usize / self.vec;
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
