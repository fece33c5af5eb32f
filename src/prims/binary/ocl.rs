//! Binary on GPU engines: builds `binary.cl` specialised for one op and
//! enqueues it. The launch code serves OpenCL and Level Zero engines through
//! `core::gpu`.
//!
//! Layer: prims, over `core` (engine, memory, `core::gpu`). Two kernels:
//! - `binary_dense` (`ocl:binary_dense_vec4`): one dense layout, no
//!   broadcasting; a work-item computes one float4 (unaligned vector
//!   accesses, so sub-memory offsets need no second build). Algorithm,
//!   types and scales are baked in; sizes and offsets are arguments, so one
//!   program serves every shape.
//! - `binary_generic` (`ocl:binary_generic`): any layouts and broadcasting;
//!   one work-item per padded dst element in memory order; shapes, strides
//!   and offsets are baked in with `-D` (constants, so divisions fold).

use std::sync::Arc;

use super::BinaryOp;
use crate::abi::{DNNL_ARG_ATTR_SCALES, DNNL_ARG_DST, DNNL_ARG_SRC_0, DNNL_ARG_SRC_1};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::{Event, Kernel, KernelArg};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::binary_alg;
use crate::prims::common::buffers::Buffer;
use crate::prims::common::cl_walk;
use crate::prims::common::layout::{Layout, Walker};

/// Work-group size (lowered to what the kernel allows).
const LOCAL: usize = 256;

/// The kernels' source: element types, positions, the formulas, the post-ops prelude,
/// then `binary.cl`.
fn source(op: &BinaryOp) -> String {
    format!(
        "{}{}{}{}{}",
        include_str!("../common/types.cl"),
        cl_walk::CL_POSITIONS,
        binary_alg::CL_SOURCE,
        op.post_ops().cl_source(),
        include_str!("binary.cl")
    )
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(
    op: &Arc<BinaryOp>,
    engine: &Engine,
    dense: bool,
) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("binary")?;
    let op = op.clone();
    let (options, name) = if dense {
        (common_options(&op), "binary_dense")
    } else {
        (generic_options(&op), "binary_generic")
    };
    let kernel = ocl.kernel(&source(&op), &options, name)?;
    let local = ocl.work_group_size(&kernel)?.clamp(1, LOCAL);
    Ok(Arc::new(OclBinary {
        op,
        dense,
        kernel,
        local,
    }))
}

fn common_options(op: &BinaryOp) -> String {
    let l = op.inputs_layouts();
    let [s0, s1] = op.scales();
    let mut o = format!(
        "-DALG={} -DA_DT={} -DB_DT={} -DD_DT={} -DSCALE0={} -DSCALE1={}",
        op.alg().cl_id(),
        l[0].elem.cl_name(),
        l[1].elem.cl_name(),
        op.out().elem.cl_name(),
        u8::from(s0),
        u8::from(s1)
    );
    if let Some(c) = l.get(2) {
        o += &format!(" -DHAS_C=1 -DC_DT={}", c.elem.cl_name());
    }
    o
}

/// The generic kernel's options: dst's walk and every offset as expressions
/// of the work-item index `t`.
fn generic_options(op: &BinaryOp) -> String {
    let out = op.out();
    let walker = Walker::new(out);
    let mut opts = common_options(op);
    opts += &format!(" -DTOTAL={} -DNDIMS={}", walker.total(), out.ndims.max(1));
    opts += &cl_walk::walk_options(out, &walker, "D_OFF");
    // Inputs: the same logical position in their own padding, broadcast
    // dimensions at 0.
    let input_off = |layout: &Layout| {
        layout.cl_offset_expr(&|d: usize| {
            if layout.dims[d] == 1 {
                layout.padded_offsets[d].to_string()
            } else {
                cl_walk::shifted_position(layout, out, d)
            }
        })
    };
    for (layout, name) in op.inputs_layouts().iter().zip(["A_OFF", "B_OFF", "C_OFF"]) {
        opts += &format!(" -D{name}={}", input_off(layout));
    }
    let lpos: Vec<String> = (0..out.ndims)
        .map(|d| cl_walk::logical_position(out, d))
        .collect();
    opts += &format!(
        " -DLPOS={}",
        if lpos.is_empty() {
            "0".to_string()
        } else {
            lpos.join(",")
        }
    );
    opts += &cl_walk::bounds_option(out);
    opts
}

/// The implementation; it holds no engine (see eltwise's).
struct OclBinary {
    op: Arc<BinaryOp>,
    dense: bool,
    kernel: Kernel,
    local: usize,
}

/// Rounds `n` up to a multiple of `m`.
fn round_up(n: usize, m: usize) -> usize {
    n.div_ceil(m) * m
}

impl Implementation for OclBinary {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let queue = ctx.queue()?;
        let layouts = op.inputs_layouts();
        let mut ins = Vec::new();
        for &arg in op.input_args() {
            ins.push(Buffer::of(ctx.arg(arg)?)?);
        }
        let out = Buffer::of(ctx.arg(DNNL_ARG_DST)?)?;
        let [s0, s1] = op.scales();
        let scale = |arg: i32, on: bool| -> Result<Buffer> {
            if !on {
                return Ok(Buffer::None);
            }
            Buffer::values(ctx.arg(DNNL_ARG_ATTR_SCALES | arg)?, 4, "scale")
        };
        let scales = [scale(DNNL_ARG_SRC_0, s0)?, scale(DNNL_ARG_SRC_1, s1)?];
        let lo = op.out();
        if lo.padded_nelems() == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        for (b, l) in ins.iter().zip(layouts) {
            b.check_holds(l.byte_range().1, "input")?;
        }
        out.check_holds(lo.byte_range().1, "dst")?;
        let none = Buffer::None;
        let c = ins.get(2).unwrap_or(&none);
        let mut args = Vec::new();
        let event = if self.dense {
            let n = lo.nelems() as usize;
            for (b, l) in [(&ins[0], &layouts[0]), (&ins[1], &layouts[1])] {
                args.push(b.kernel_arg()?);
                args.push(KernelArg::I64(l.offset0));
            }
            args.push(c.kernel_arg()?);
            args.push(KernelArg::I64(layouts.get(2).map_or(0, |l| l.offset0)));
            args.push(out.kernel_arg()?);
            args.push(KernelArg::I64(lo.offset0));
            args.push(KernelArg::U64(n as u64));
            args.push(scales[0].kernel_arg()?);
            args.push(scales[1].kernel_arg()?);
            let global = round_up((n / 4).max(n % 4).max(1), self.local);
            queue.enqueue_kernel(
                &self.kernel,
                &args,
                &[global],
                Some(&[self.local]),
                ctx.deps,
            )?
        } else {
            let post = op.post_ops().cl_buffers(ctx)?;
            args.push(ins[0].kernel_arg()?);
            args.push(ins[1].kernel_arg()?);
            args.push(c.kernel_arg()?);
            args.push(out.kernel_arg()?);
            args.push(scales[0].kernel_arg()?);
            args.push(scales[1].kernel_arg()?);
            for b in &post {
                args.push(b.kernel_arg()?);
            }
            let global = round_up(lo.padded_nelems() as usize, self.local);
            queue.enqueue_kernel(
                &self.kernel,
                &args,
                &[global],
                Some(&[self.local]),
                ctx.deps,
            )?
        };
        Ok(Some(event))
    }
}
