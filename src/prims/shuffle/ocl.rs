//! Shuffle on GPU engines: builds `shuffle.cl` specialised for one op (a
//! work-item per vector of output elements, in the output's memory order,
//! so that writes are coalesced, and reads too unless the axis is the
//! innermost dimension) and enqueues it. OpenCL and Level Zero engines,
//! through `core::gpu`.
//!
//! Layer: prims. The input and the output must be different buffers (a
//! permutation cannot run in place on a device without a copy).

use std::sync::Arc;

use super::{ShuffleOp, walk};
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, Kernel};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;

/// Work-group size.
const LOCAL: usize = 256;
/// Bytes a work-item moves at most.
const VEC_BYTES: i64 = 16;

/// Elements per work-item: a power of two dividing the innermost run when
/// that run is contiguous and not the axis, and the offset is aligned to it.
fn vector(op: &ShuffleOp) -> i64 {
    let dims = walk(op);
    let esize = op.layout().elem.size() as i64;
    let Some(&(run, stride, axis)) = dims.last() else {
        return 1;
    };
    if axis || stride != 1 {
        return 1;
    }
    let mut vec = VEC_BYTES / esize;
    while vec > 1 {
        let aligned = run % vec == 0
            && op.layout().offset0 % vec == 0
            && dims.iter().all(|&(_, s, _)| s % vec == 0 || s == 1);
        if aligned {
            return vec;
        }
        vec /= 2;
    }
    1
}

fn options(op: &ShuffleOp, vec: i64) -> String {
    let layout = op.layout();
    let dims = walk(op);
    let n = layout.nelems();
    let wide = layout.byte_range().1 / layout.elem.size() >= i32::MAX as usize;
    let idx = if wide { "long" } else { "int" };
    let ty = match layout.elem.size() {
        1 => "uchar",
        2 => "ushort",
        _ => "uint",
    };
    let g = op.groups();
    let rows = layout.dims[op.axis()] / g;
    let mut out = vec![layout.offset0.to_string()];
    let mut inp = vec![layout.offset0.to_string()];
    let mut div = 1i64;
    for (i, &(size, stride, axis)) in dims.iter().enumerate().rev() {
        let q = if div == 1 {
            "e".to_string()
        } else {
            format!("(e/{div})")
        };
        let p = if i > 0 { format!("({q}%{size})") } else { q };
        out.push(format!("{p}*{stride}"));
        if axis {
            inp.push(format!("(({p}%{rows})*{g}+{p}/{rows})*{stride}"));
        } else {
            inp.push(format!("{p}*{stride}"));
        }
        div *= size;
    }
    format!(
        "-DT={ty} -DVEC={vec} -DIDX_T={idx} -DN={} -DOFF_OUT=({}) -DOFF_IN=({})",
        n / vec,
        out.join("+"),
        inp.join("+")
    )
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<ShuffleOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("shuffle")?;
    let vec = vector(op);
    let kernel = ocl.kernel(
        include_str!("shuffle.cl"),
        &options(op, vec),
        "shuffle_permute",
    )?;
    let local = ocl.work_group_size(&kernel)?.clamp(1, LOCAL);
    Ok(Arc::new(OclShuffle {
        op: op.clone(),
        kernel,
        local,
        items: (op.layout().nelems() / vec) as usize,
    }))
}

/// The implementation; it holds no engine.
struct OclShuffle {
    op: Arc<ShuffleOp>,
    kernel: Kernel,
    local: usize,
    /// Work-items.
    items: usize,
}

impl Implementation for OclShuffle {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let queue = ctx.queue()?;
        let (in_arg, out_arg) = op.args();
        let input = Buffer::of(ctx.arg(in_arg)?)?;
        let output = Buffer::of(ctx.arg(out_arg)?)?;
        if self.items == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        let end = op.layout().byte_range().1;
        input.check_holds(end, "input")?;
        output.check_holds(end, "output")?;
        if input.same_as(&output) {
            return Err(Error::invalid(
                "shuffle in place (the input's buffer as the output) is not supported on GPU engines",
            ));
        }
        let args = [input.kernel_arg()?, output.kernel_arg()?];
        let global = self.items.div_ceil(self.local) * self.local;
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
