//! PReLU and PReLUBackward onto the PReLU primitive.
//!
//! Layer: graph. The slope is seen with the data's rank: a 1-D slope along
//! the channel axis of `data_format` with `per_channel_broadcast` (the
//! default), else along the last axis; a slope of more dimensions
//! right-aligned (numpy broadcasting). PReLUBackward writes diff_src and
//! diff_slope (of the slope's shape, summed over the broadcast elements).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::single::{bias_md, expand};
use super::{Arg, Buf, Builder};
use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::error::Result;
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::prims::prelu::PreluOp;

fn arg(arg: i32, (md, buf): &(MemoryDesc, Buf)) -> Arg {
    Arg {
        arg,
        buf: *buf,
        md: md.clone(),
    }
}

fn io(b: &mut Builder, id: usize) -> Result<(MemoryDesc, Buf)> {
    Ok((b.md(id)?, b.buf(id)?))
}

/// The slope (or its gradient) `md` seen with `nd` dimensions.
fn slope_view(op: &Op, md: &MemoryDesc, nd: usize) -> Result<MemoryDesc> {
    if md.ndims() == 1 && op.bool_or(dnnl_graph_op_attr_per_channel_broadcast, true) {
        bias_md(op, md, nd)
    } else {
        expand(md, nd)
    }
}

/// PReLU.
pub(super) fn forward(b: &mut Builder, op: &Op) -> Result<()> {
    let src = io(b, op.inputs[0].id)?;
    let slope = io(b, op.inputs[1].id)?;
    let dst = io(b, op.outputs[0].id)?;
    let nd = src.0.ndims();
    let slope = (slope_view(op, &slope.0, nd)?, slope.1);
    let desc = PreluOp::forward(
        dnnl_forward_inference,
        &src.0,
        &slope.0,
        &dst.0,
        &PrimitiveAttr::default(),
    )?;
    let prim = b.primitive(desc)?;
    b.step(
        prim,
        vec![
            arg(DNNL_ARG_SRC, &src),
            arg(DNNL_ARG_WEIGHTS, &slope),
            arg(DNNL_ARG_DST, &dst),
        ],
    );
    Ok(())
}

/// PReLUBackward: src, slope, diff_dst -> diff_src, diff_slope.
pub(super) fn backward(b: &mut Builder, op: &Op) -> Result<()> {
    let src = io(b, op.inputs[0].id)?;
    let slope = io(b, op.inputs[1].id)?;
    let diff_dst = io(b, op.inputs[2].id)?;
    let diff_src = io(b, op.outputs[0].id)?;
    let nd = src.0.ndims();
    let slope = (slope_view(op, &slope.0, nd)?, slope.1);
    let diff_slope = match op.outputs.get(1) {
        Some(l) => {
            let d = io(b, l.id)?;
            (slope_view(op, &d.0, nd)?, d.1)
        }
        None => {
            let md = MemoryDesc::with_strides(slope.0.dims(), dnnl_f32, None)?;
            let buf = b.temp(md.size(0));
            (md, buf)
        }
    };
    let desc = PreluOp::backward(
        &src.0,
        &slope.0,
        &diff_src.0,
        &diff_slope.0,
        &diff_dst.0,
        &PrimitiveAttr::default(),
    )?;
    let prim = b.primitive(desc)?;
    b.step(
        prim,
        vec![
            arg(DNNL_ARG_SRC, &src),
            arg(DNNL_ARG_WEIGHTS, &slope),
            arg(DNNL_ARG_DIFF_DST, &diff_dst),
            arg(DNNL_ARG_DIFF_SRC, &diff_src),
            arg(DNNL_ARG_DIFF_WEIGHTS, &diff_slope),
        ],
    );
    Ok(())
}
