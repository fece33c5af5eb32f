//! PReLU on GPU engines: builds `prelu.cl` specialised for one op (a
//! work-item per element, in the output's memory order) and enqueues it;
//! backward with broadcast weights then sums the products with
//! `common::reduce`'s kernels. OpenCL and Level Zero engines, through
//! `core::gpu`.
//!
//! Layer: prims. The scratchpad holds the products (f32, dense), then the
//! reduction's partial results when it takes two passes.

use std::sync::Arc;

use super::{PreluOp, walk};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::{Event, Kernel};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;
use crate::prims::common::reduce::ocl::{self as reduce_ocl, Kernels};

/// Work-group size.
const LOCAL: usize = 256;

/// The scratchpad bytes: backward with broadcast weights, the products and
/// the reduction's partial results.
pub(super) fn scratchpad(op: &PreluOp) -> usize {
    match op.reduce() {
        Some(r) => (op.nelems() as usize * 4).max(reduce_ocl::scratchpad(r)),
        None => 0,
    }
}

/// Elements per work-item: forward, 4 where the walk's innermost dimension
/// splits so and f32 src and dst are contiguous along it (the position
/// arithmetic is paid once for them, and they move as float4); else 1.
fn vec(op: &PreluOp) -> usize {
    let f32 = |i: usize| op.layout(i).elem == Elem::F32;
    match walk(op).last() {
        Some((size, strides))
            if !op.is_backward()
                && size % 4 == 0
                && strides[0] == 1
                && strides[2] == 1
                && f32(0)
                && f32(2) =>
        {
            4
        }
        _ => 1,
    }
}

fn options(op: &PreluOp) -> String {
    let dims = walk(op);
    let layouts: Vec<_> = op.layouts().map(|(_, l)| l).collect();
    let wide = op.nelems() >= i32::MAX as i64
        || layouts
            .iter()
            .any(|l| l.offset0 + l.extent() >= i32::MAX as i64);
    let mut o = format!(
        "-DN={} -DIDX_T={}",
        op.nelems(),
        if wide { "long" } else { "int" }
    );
    for (k, l) in layouts.iter().enumerate() {
        o += &format!(" -DT{k}_DT={}", l.elem.cl_name());
    }
    for k in 0..=layouts.len() {
        let base = layouts.get(k).map_or(0, |l| l.offset0);
        let mut terms = vec![base.to_string()];
        let mut div = 1i64;
        for (i, (size, strides)) in dims.iter().enumerate().rev() {
            let q = if div == 1 {
                "t".to_string()
            } else {
                format!("(t/{div})")
            };
            let q = if i > 0 { format!("({q}%{size})") } else { q };
            if strides[k] != 0 {
                terms.push(format!("{q}*{}", strides[k]));
            }
            div *= size;
        }
        o += &format!(" -DOFF{k}=({})", terms.join("+"));
    }
    let vec = vec(op);
    if vec > 1 {
        let inner = &dims[dims.len() - 1].1;
        o += &format!(" -DVEC={vec}");
        for (k, stride) in inner.iter().take(3).enumerate() {
            o += &format!(" -DINC{k}={stride}");
        }
    }
    if op.is_backward() {
        o += &format!(" -DBWD -DPRODUCTS={}", u8::from(op.reduce().is_some()));
    }
    o
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<PreluOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("prelu")?;
    let source = format!(
        "{}{}",
        include_str!("../common/types.cl"),
        include_str!("prelu.cl")
    );
    let name = if op.is_backward() {
        "prelu_bwd"
    } else {
        "prelu_fwd"
    };
    let kernel = ocl.kernel(&source, &options(op), name)?;
    let local = ocl.work_group_size(&kernel)?.clamp(1, LOCAL);
    let reduce = match op.reduce() {
        Some(r) => Some(Kernels::new(r, ocl)?),
        None => None,
    };
    Ok(Arc::new(OclPrelu {
        op: op.clone(),
        kernel,
        local,
        vec: vec(op),
        reduce,
    }))
}

/// The implementation; it holds no engine.
struct OclPrelu {
    op: Arc<PreluOp>,
    kernel: Kernel,
    local: usize,
    /// Elements per work-item.
    vec: usize,
    /// Backward with broadcast weights: the products' sum.
    reduce: Option<Kernels>,
}

impl Implementation for OclPrelu {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let queue = ctx.queue()?;
        let mut bufs = Vec::new();
        for (arg, layout) in op.layouts() {
            let b = Buffer::of(ctx.arg(arg)?)?;
            if layout.nelems() > 0 {
                b.check_holds(layout.byte_range().1, "tensor")?;
            }
            bufs.push(b);
        }
        let scratch = if scratchpad(op) > 0 {
            let b = Buffer::of(ctx.scratchpad()?)?;
            b.check_holds(scratchpad(op), "scratchpad")?;
            Some(b)
        } else {
            None
        };
        let n = op.nelems() as usize;
        let mut deps = ctx.deps.to_vec();
        if n > 0 {
            let mut args = Vec::new();
            for b in &bufs {
                args.push(b.kernel_arg()?);
            }
            if op.is_backward() {
                args.push(match &scratch {
                    Some(s) => s.kernel_arg()?,
                    None => Buffer::None.kernel_arg()?,
                });
            }
            let global = (n / self.vec).div_ceil(self.local) * self.local;
            let event =
                queue.enqueue_kernel(&self.kernel, &args, &[global], Some(&[self.local]), &deps)?;
            deps = vec![event];
        }
        if let (Some(kernels), Some(r), Some(s)) = (&self.reduce, op.reduce(), &scratch) {
            let products = if n > 0 { s } else { &Buffer::None };
            let event = kernels.enqueue(r, &queue, products, &bufs[4], &[], Some(s), &deps)?;
            return Ok(Some(event));
        }
        Ok(Some(match deps.pop() {
            Some(e) => e,
            None => queue.marker(ctx.deps)?,
        }))
    }
}
