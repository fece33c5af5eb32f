//! The pooling ops (MaxPool, AvgPool and their backward ops) onto the
//! pooling primitive.
//!
//! Layer: graph. Data in `NXC` is seen as `N, C, spatial…` through permuted
//! strides (nothing is copied). Geometry: dilations count from 1 in the
//! graph and from 0 in the primitive; `auto_pad` replaces the given pads
//! (`valid`: none; `same_upper` / `same_lower`: as many as make the output
//! `ceil(I / stride)`, the odd one at the end or the beginning);
//! `rounding_type` `ceil` rounds the output size up, the primitive seeing
//! the extra rows as right padding (an AvgPool that counts the padding is
//! then not supported, as upstream). Forward runs as inference with the
//! chain's unary and binary ops as post-ops; int8 (Dequantize, pooling,
//! Quantize) dequantizes into an f32 temporary, pools, and quantizes the
//! result. MaxPoolBackward recomputes the forward pass (training, into
//! temporaries) for the workspace of the maxima, then runs the backward
//! pass; AvgPoolBackward takes the source shape from `src_shape` (given as
//! an input tensor it is not supported).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use super::conv_geom::ncx_view;
use super::post::{self, Conversions};
use super::{Arg, Builder};
use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::op::Op;
use crate::graph::partitioner::PostChain;
use crate::prims::pooling::{PoolingOp, Window};

fn shape_err(op: &Op, why: String) -> Error {
    Error::InvalidShape(format!("op {} ({}): {why}", op.id, op.kind_name()).into())
}

/// A pooling op's geometry, as the primitive takes it.
#[derive(Clone, Debug)]
pub(crate) struct Geom {
    /// `data_format` is `NCX` (else `NXC`).
    pub ncx: bool,
    pub strides: Vec<i64>,
    pub kernel: Vec<i64>,
    /// Dilations as the primitive counts them (0: dense).
    pub dilation: Vec<i64>,
    pub pl: Vec<i64>,
    pub pr: Vec<i64>,
    /// The destination's dimensions in the graph's order.
    pub dst: Vec<i64>,
}

impl Geom {
    fn window(&self) -> Window<'_> {
        Window {
            strides: &self.strides,
            kernel: &self.kernel,
            dilation: Some(&self.dilation),
            padding_l: &self.pl,
            padding_r: Some(&self.pr),
        }
    }
}

fn is_max(op: &Op) -> bool {
    matches!(
        op.kind,
        dnnl_graph_op_max_pool | dnnl_graph_op_max_pool_backward
    )
}

/// Whether `op` (AvgPool) rounds up and counts the padding: the extra
/// rows of ceil rounding would count, which upstream does not support.
pub(crate) fn unsupported_avg(op: &Op) -> bool {
    matches!(
        op.kind,
        dnnl_graph_op_avg_pool | dnnl_graph_op_avg_pool_backward
    ) && op.str_or(dnnl_graph_op_attr_rounding_type, "floor") == "ceil"
        && !op.bool_or(dnnl_graph_op_attr_exclude_pad, false)
}

/// The geometry of pooling op `op` over a source of dimensions `src` (in
/// the graph's order).
pub(crate) fn geom(op: &Op, src: &[i64]) -> Result<Geom> {
    let nd = src.len();
    if !(3..=5).contains(&nd) {
        return Err(shape_err(
            op,
            format!("{src:?}: the data needs 3 to 5 dimensions"),
        ));
    }
    let nsp = nd - 2;
    let vector = |attr, name: &str, default: Option<i64>| -> Result<Vec<i64>> {
        let v = match (op.s64s(attr), default) {
            (Some(v), _) => v,
            (None, Some(d)) => vec![d; nsp],
            (None, None) => return Err(shape_err(op, format!("'{name}' is missing"))),
        };
        if v.len() != nsp {
            return Err(shape_err(
                op,
                format!(
                    "'{name}' has {} values for {nsp} spatial dimensions",
                    v.len()
                ),
            ));
        }
        Ok(v)
    };
    let strides = vector(dnnl_graph_op_attr_strides, "strides", None)?;
    let kernel = vector(dnnl_graph_op_attr_kernel, "kernel", None)?;
    let dilations = if is_max(op) {
        vector(dnnl_graph_op_attr_dilations, "dilations", Some(1))?
    } else {
        vec![1; nsp]
    };
    let pads_begin = vector(dnnl_graph_op_attr_pads_begin, "pads_begin", Some(0))?;
    let pads_end = vector(dnnl_graph_op_attr_pads_end, "pads_end", Some(0))?;
    for (name, v, min) in [
        ("stride", &strides, 1),
        ("kernel", &kernel, 1),
        ("dilation", &dilations, 1),
        ("padding", &pads_begin, 0),
        ("padding", &pads_end, 0),
    ] {
        if let Some(x) = v.iter().find(|&&x| x < min) {
            return Err(shape_err(op, format!("{name} {x} is below {min}")));
        }
    }
    let auto_pad = op.str_or(dnnl_graph_op_attr_auto_pad, "none");
    let ceil = op.str_or(dnnl_graph_op_attr_rounding_type, "floor") == "ceil";
    let ncx = op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX";
    let sp: Vec<i64> = if ncx {
        src[2..].to_vec()
    } else {
        src[1..nd - 1].to_vec()
    };
    let overflow = || shape_err(op, "the pooling geometry overflows".into());
    let mut g = Geom {
        ncx,
        strides: strides.clone(),
        kernel: kernel.clone(),
        dilation: dilations.iter().map(|d| d - 1).collect(),
        pl: Vec::with_capacity(nsp),
        pr: Vec::with_capacity(nsp),
        dst: Vec::new(),
    };
    let mut out_sp = Vec::with_capacity(nsp);
    for i in 0..nsp {
        let (x, s) = (sp[i], strides[i]);
        let ext = (kernel[i] - 1)
            .checked_mul(dilations[i])
            .and_then(|v| v.checked_add(1))
            .ok_or_else(overflow)?;
        let (pl, pe) = match auto_pad.as_str() {
            "none" | "None" | "NONE" => (pads_begin[i], pads_end[i]),
            "valid" | "VALID" => (0, 0),
            "same_upper" | "SAME_UPPER" | "same_lower" | "SAME_LOWER" => {
                let y = x.checked_add(s - 1).ok_or_else(overflow)? / s;
                let total = (y - 1)
                    .checked_mul(s)
                    .and_then(|v| v.checked_add(ext))
                    .and_then(|v| v.checked_sub(x))
                    .ok_or_else(overflow)?
                    .max(0);
                let small = total / 2;
                if auto_pad.starts_with("same_u") || auto_pad.starts_with("SAME_U") {
                    (small, total - small)
                } else {
                    (total - small, small)
                }
            }
            other => {
                return Err(Error::InvalidGraphOp(
                    format!("op {}: auto_pad '{other}' is unknown", op.id).into(),
                ));
            }
        };
        let span = x
            .checked_add(pl)
            .and_then(|v| v.checked_add(pe))
            .and_then(|v| v.checked_sub(ext))
            .ok_or_else(overflow)?;
        if x < 1 || span < 0 {
            return Err(shape_err(
                op,
                format!(
                    "spatial dimension {i}: the window ({ext}) does not fit in the padded \
                     source ({x} + {pl} + {pe})"
                ),
            ));
        }
        let y = if ceil { span + s - 1 } else { span } / s + 1;
        // The primitive sees ceil rounding's extra rows as right padding.
        let pr = if ceil { (y - 1) * s + ext - x - pl } else { pe };
        g.pl.push(pl);
        g.pr.push(pr);
        out_sp.push(y);
    }
    let (n, c) = if ncx {
        (src[0], src[1])
    } else {
        (src[0], src[nd - 1])
    };
    g.dst = vec![n];
    if ncx {
        g.dst.push(c);
        g.dst.extend_from_slice(&out_sp);
    } else {
        g.dst.extend_from_slice(&out_sp);
        g.dst.push(c);
    }
    Ok(g)
}

/// The source dimensions of a backward op: MaxPoolBackward's src input,
/// AvgPoolBackward's `src_shape`.
fn backward_src_dims(op: &Op, ins: &[&[i64]]) -> Result<Vec<i64>> {
    if is_max(op) {
        return ins
            .first()
            .map(|d| d.to_vec())
            .ok_or_else(|| shape_err(op, "the source is missing".into()));
    }
    if ins.len() > 1 {
        return Err(Error::unimplemented(format!(
            "op {} (AvgPoolBackward): a source shape given as an input tensor is not supported",
            op.id
        )));
    }
    op.s64s(dnnl_graph_op_attr_src_shape)
        .ok_or_else(|| shape_err(op, "'src_shape' is missing".into()))
}

/// The output dimensions of a pooling op from its inputs' dimensions.
pub(crate) fn infer(op: &Op, ins: &[&[i64]]) -> Result<Vec<i64>> {
    match op.kind {
        dnnl_graph_op_max_pool | dnnl_graph_op_avg_pool => {
            let src = ins
                .first()
                .ok_or_else(|| shape_err(op, "the source is missing".into()))?;
            Ok(geom(op, src)?.dst)
        }
        _ => backward_src_dims(op, ins),
    }
}

fn alg(op: &Op) -> dnnl_alg_kind_t {
    if is_max(op) {
        dnnl_pooling_max
    } else if op.bool_or(dnnl_graph_op_attr_exclude_pad, false) {
        dnnl_pooling_avg_exclude_padding
    } else {
        dnnl_pooling_avg_include_padding
    }
}

/// `md`'s dimensions and strides with data type `dt`.
fn retype(md: &MemoryDesc, dt: dnnl_data_type_t) -> Result<MemoryDesc> {
    match md.blocking() {
        Some(bl) if bl.inner_nblks == 0 => {
            MemoryDesc::with_strides(md.dims(), dt, Some(&bl.strides[..md.ndims()]))
        }
        _ => MemoryDesc::with_strides(md.dims(), dt, None),
    }
}

fn arg(arg: i32, md: &MemoryDesc, buf: super::Buf) -> Arg {
    Arg {
        arg,
        buf,
        md: md.clone(),
    }
}

/// MaxPool or AvgPool with its chain (`ops[chain.anchor]`).
pub(super) fn forward(b: &mut Builder, ops: &[Op], chain: &PostChain) -> Result<()> {
    let op = &ops[chain.anchor];
    if unsupported_avg(op) {
        return Err(Error::unimplemented(format!(
            "op {} (AvgPool): ceil rounding with the padding counted is not supported",
            op.id
        )));
    }
    let conv = Conversions::begin(b, ops, chain)?;
    let src_id = op.inputs[0].id;
    let src_md = b.md(src_id)?;
    let g = geom(op, src_md.dims())?;
    let nd = src_md.ndims();
    let view = |md: &MemoryDesc| ncx_view(g.ncx, nd, md);
    let src = view(&src_md)?;
    let mut attr = PrimitiveAttr::default();
    let mut args = vec![arg(DNNL_ARG_SRC, &src, b.buf(src_id)?)];
    let tail = post::post_ops(b, ops, chain, &view, &mut attr, &mut args)?;
    let dst_id = tail;
    let dst = view(&b.md(dst_id)?)?;
    args.push(arg(DNNL_ARG_DST, &dst, b.buf(dst_id)?));
    let desc = PoolingOp::forward(
        dnnl_forward_inference,
        alg(op),
        &src,
        &dst,
        g.window(),
        &attr,
    )?;
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    conv.end(b)
}

/// MaxPoolBackward (the forward pass recomputed for its workspace) or
/// AvgPoolBackward.
pub(super) fn backward(b: &mut Builder, op: &Op) -> Result<()> {
    let max = is_max(op);
    let dd_id = op.inputs[if max { 1 } else { 0 }].id;
    let ds_id = op.outputs[0].id;
    let ds_md = b.md(ds_id)?;
    let g = geom(op, ds_md.dims())?;
    let nd = ds_md.ndims();
    let view = |md: &MemoryDesc| ncx_view(g.ncx, nd, md);
    let dd_md = b.md(dd_id)?;
    if dd_md.dims() != g.dst.as_slice() {
        return Err(shape_err(
            op,
            format!(
                "diff_dst is {:?}, the pooling of {:?} gives {:?}",
                dd_md.dims(),
                ds_md.dims(),
                g.dst
            ),
        ));
    }
    let diff_dst = view(&dd_md)?;
    let diff_src = view(&ds_md)?;
    let none = PrimitiveAttr::default();
    let mut args = vec![
        arg(DNNL_ARG_DIFF_DST, &diff_dst, b.buf(dd_id)?),
        arg(DNNL_ARG_DIFF_SRC, &diff_src, b.buf(ds_id)?),
    ];
    let desc = if max {
        let src_id = op.inputs[0].id;
        let src = view(&b.md(src_id)?)?;
        // The forward result goes to a temporary laid out as diff_dst, so
        // that its workspace is the one the backward pass reads.
        let dst = retype(&diff_dst, src.data_type())?;
        let fwd = PoolingOp::forward(
            dnnl_forward_training,
            dnnl_pooling_max,
            &src,
            &dst,
            g.window(),
            &none,
        )?;
        let ws = fwd
            .workspace()
            .map(|w| (**w).clone())
            .ok_or_else(|| Error::runtime("max pooling training has no workspace"))?;
        let bwd = PoolingOp::backward(
            dnnl_pooling_max,
            &diff_src,
            &diff_dst,
            g.window(),
            Some(&fwd),
            &none,
        )?;
        let dst_buf = b.temp(dst.size(0));
        let ws_buf = b.temp(ws.size(0));
        let fwd_args = vec![
            arg(DNNL_ARG_SRC, &src, b.buf(src_id)?),
            arg(DNNL_ARG_DST, &dst, dst_buf),
            arg(DNNL_ARG_WORKSPACE, &ws, ws_buf),
        ];
        let prim = b.primitive(fwd)?;
        b.step(prim, fwd_args);
        args.push(arg(DNNL_ARG_WORKSPACE, &ws, ws_buf));
        bwd
    } else {
        PoolingOp::backward(alg(op), &diff_src, &diff_dst, g.window(), None, &none)?
    };
    let prim = b.primitive(desc)?;
    b.step(prim, args);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(kind: dnnl_graph_op_kind_t, attrs: &[(dnnl_graph_op_attr_t, &[i64])]) -> Op {
        let mut op = Op::new(1, kind, "pool");
        for &(a, v) in attrs {
            op.set_s64(a, v);
        }
        op
    }

    #[test]
    fn output_shapes_and_primitive_padding() {
        let k3s2 = [
            (dnnl_graph_op_attr_kernel, &[3i64, 3][..]),
            (dnnl_graph_op_attr_strides, &[2, 2][..]),
            (dnnl_graph_op_attr_pads_begin, &[0, 0][..]),
            (dnnl_graph_op_attr_pads_end, &[0, 0][..]),
        ];
        let mut op = pool(dnnl_graph_op_max_pool, &k3s2);
        op.set_str(dnnl_graph_op_attr_data_format, "NCX");
        let g = geom(&op, &[1, 3, 8, 8]).unwrap();
        assert_eq!((g.dst, g.pr), (vec![1, 3, 3, 3], vec![0, 0]));
        // ceil: one more row, seen as right padding by the primitive.
        op.set_str(dnnl_graph_op_attr_rounding_type, "ceil");
        let g = geom(&op, &[1, 3, 8, 8]).unwrap();
        assert_eq!((g.dst, g.pr), (vec![1, 3, 4, 4], vec![1, 1]));
        // NXC with SAME_UPPER: ceil(I / stride), the odd padding at the end.
        let mut same = pool(dnnl_graph_op_avg_pool, &k3s2);
        same.set_str(dnnl_graph_op_attr_auto_pad, "SAME_UPPER");
        let g = geom(&same, &[2, 7, 6, 5]).unwrap();
        assert_eq!(g.dst, vec![2, 4, 3, 5]);
        assert_eq!((g.pl, g.pr), (vec![1, 0], vec![1, 1]));
        // Dilated: the primitive counts dilations from 0.
        let mut dil = pool(dnnl_graph_op_max_pool, &k3s2);
        dil.set_s64(dnnl_graph_op_attr_dilations, &[2, 1]);
        assert_eq!(geom(&dil, &[1, 9, 9, 2]).unwrap().dilation, vec![1, 0]);
        // A window that does not fit is a shape error.
        assert!(geom(&op, &[1, 3, 2, 2]).is_err());
    }

    #[test]
    fn avg_ceil_counting_padding_is_unsupported() {
        let mut op = pool(dnnl_graph_op_avg_pool, &[]);
        op.set_bool(dnnl_graph_op_attr_exclude_pad, false);
        assert!(!unsupported_avg(&op));
        op.set_str(dnnl_graph_op_attr_rounding_type, "ceil");
        assert!(unsupported_avg(&op));
        op.set_bool(dnnl_graph_op_attr_exclude_pad, true);
        assert!(!unsupported_avg(&op));
    }
}
