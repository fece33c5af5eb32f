//! Softmax on GPU engines: builds `softmax.cl` specialised for one op and
//! enqueues it. The launch code serves OpenCL and Level Zero engines through
//! `core::gpu`.
//!
//! Layer: prims, over `core` (engine, memory, `core::gpu`). Shapes, strides and
//! offsets are baked in with `-D` (constants, so divisions fold). A row of
//! 128 elements or more gets a work-group of 128 work-items that reduce
//! through local memory, a contiguous row of 16 or more one of 32; other
//! rows get one work-item each.

use std::sync::Arc;

use super::{Rows, SoftmaxOp};
use crate::abi::{DNNL_ARG_ATTR_SCALES, DNNL_ARG_DST, DNNL_ARG_SRC};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::{Event, Kernel};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::cl_walk;
use crate::prims::common::layout::Layout;

/// Work-items per row for long rows.
const WG: usize = 128;
/// Work-items per row for shorter contiguous rows.
const SHORT_WG: usize = 32;
/// Work-group size of the one-row-per-work-item kernel (lowered to what the
/// kernel allows).
const LOCAL: usize = 64;

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<SoftmaxOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("softmax")?;
    let op = op.clone();
    let mut wg = work_group(&op);
    let source = format!(
        "{}{}{}{}",
        include_str!("../common/types.cl"),
        cl_walk::CL_POSITIONS,
        op.post_ops().cl_source(),
        include_str!("softmax.cl")
    );
    let name = if op.is_backward() {
        "softmax_bwd"
    } else {
        "softmax_fwd"
    };
    let mut kernel = ocl.kernel(&source, &options(&op, wg), name)?;
    let max = ocl.work_group_size(&kernel)?;
    if wg > max {
        // A device that cannot run WG work-items of this kernel.
        wg = 0;
        kernel = ocl.kernel(&source, &options(&op, 0), name)?;
    }
    let local = if wg == 0 {
        ocl.work_group_size(&kernel)?.clamp(1, LOCAL)
    } else {
        wg
    };
    Ok(Arc::new(OclSoftmax {
        op,
        kernel,
        wg,
        local,
    }))
}

/// Work-items per row: `WG` for long rows; `SHORT_WG` for rows of 16 or
/// more contiguous elements (so that a row's loads coalesce); else 0 (one
/// row per work-item: neighbouring rows are then neighbours in memory
/// when the axis is not the innermost dimension).
fn work_group(op: &SoftmaxOp) -> usize {
    let out = op.out_layout();
    let axis = op.axis();
    let len = out.dims[axis];
    let mut p = [0i64; crate::core::memory_desc::MAX_NDIMS];
    let first = out.offset(&p);
    p[axis] = 1;
    let contiguous = out.offset(&p) - first == 1;
    if len >= WG as i64 {
        WG
    } else if contiguous && len >= 16 {
        SHORT_WG
    } else {
        0
    }
}

fn options(op: &SoftmaxOp, wg: usize) -> String {
    let out = op.out_layout();
    let axis = op.axis();
    let ins = op.in_layouts();
    let rows = Rows::of(out, axis);
    let [s_src, s_dst] = op.scales();
    let mut o = format!(
        "-DWG={wg} -DROWS={} -DA_DT={} -DD_DT={} -DAX_LO={} -DAX_LEN={} -DAX_PADDED={} -DNDIMS={} -DSCALE_SRC={} -DSCALE_DST={}",
        rows.count,
        ins[0].elem.cl_name(),
        out.elem.cl_name(),
        out.padded_offsets[axis],
        out.dims[axis],
        out.padded_dims[axis],
        out.ndims,
        u8::from(s_src),
        u8::from(s_dst)
    );
    if op.is_backward() {
        o += &format!(" -DBWD -DB_DT={}", ins[1].elem.cl_name());
    }
    if op.alg() == super::Alg::Log {
        o += " -DALG_LOG";
    }
    for &(d, size, div) in &rows.dims {
        if size > 1 {
            let q = if div == 1 {
                "r".to_string()
            } else {
                format!("(r/{div})")
            };
            o += &format!(" -DP{d}=({q}%{size})");
        }
    }
    // Offsets: the output at padded positions, inputs at the same logical
    // position in their own padding; the axis position is i.
    let off = |l: &Layout| {
        l.cl_offset_expr(&|d: usize| {
            let shift = l.padded_offsets[d] - out.padded_offsets[d];
            let name = if d == axis {
                "i".to_string()
            } else {
                format!("p{d}")
            };
            if shift == 0 {
                name
            } else {
                format!("({name}+({shift}))")
            }
        })
    };
    o += &format!(" -DD_OFF={}", off(out));
    o += &format!(" -DA_OFF={}", off(&ins[0]));
    if let Some(b) = ins.get(1) {
        o += &format!(" -DB_OFF={}", off(b));
    }
    let lpos: Vec<String> = (0..out.ndims)
        .map(|d| {
            if d == axis {
                "j".to_string()
            } else {
                cl_walk::logical_position(out, d)
            }
        })
        .collect();
    o += &format!(" -DLPOS={}", lpos.join(","));
    let bounds = cl_walk::bounds(out, rows.dims.iter().map(|&(d, _, _)| d));
    o += &format!(
        " -DINROW={}",
        if bounds.is_empty() {
            "1".to_string()
        } else {
            format!("({})", bounds.join("&&"))
        }
    );
    o
}

/// The implementation; it holds no engine (see eltwise's).
struct OclSoftmax {
    op: Arc<SoftmaxOp>,
    kernel: Kernel,
    /// Work-items per row (0: one row per work-item).
    wg: usize,
    /// The work-group size.
    local: usize,
}

impl Implementation for OclSoftmax {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let queue = ctx.queue()?;
        let mut ins = Vec::new();
        for arg in op.input_args() {
            ins.push(Buffer::of(ctx.arg(arg)?)?);
        }
        let out = Buffer::of(ctx.arg(op.out_arg())?)?;
        let [s_src, s_dst] = op.scales();
        let scale = |arg: i32, on: bool| -> Result<Buffer> {
            if !on {
                return Ok(Buffer::None);
            }
            Buffer::values(ctx.arg(DNNL_ARG_ATTR_SCALES | arg)?, 4, "scale")
        };
        let scales = [scale(DNNL_ARG_SRC, s_src)?, scale(DNNL_ARG_DST, s_dst)?];
        let lo = op.out_layout();
        if lo.padded_nelems() == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        for (b, l) in ins.iter().zip(op.in_layouts()) {
            b.check_holds(l.byte_range().1, "input")?;
        }
        out.check_holds(lo.byte_range().1, "output")?;
        let mut args = Vec::new();
        for b in &ins {
            args.push(b.kernel_arg()?);
        }
        args.push(out.kernel_arg()?);
        let post;
        if !op.is_backward() {
            args.push(scales[0].kernel_arg()?);
            args.push(scales[1].kernel_arg()?);
            post = op.post_ops().cl_buffers(ctx)?;
            for b in &post {
                args.push(b.kernel_arg()?);
            }
        }
        let rows = Rows::of(lo, op.axis()).count as usize;
        let global = if self.wg == 0 {
            rows.div_ceil(self.local) * self.local
        } else {
            rows * self.wg
        };
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
