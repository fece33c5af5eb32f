//! Shape and data-type inference: the output tensors of each op from its
//! inputs, at compilation (where outputs may be given with unknown shapes).
//!
//! Layer: graph. Numpy rules for broadcasting (right-aligned, a dimension of
//! 1 stretches) and for MatMul (1-D operands are promoted and the promoted
//! dimension removed from the result; batch dimensions broadcast).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::op::Op;

fn shape_err(op: &Op, why: String) -> Error {
    Error::InvalidShape(format!("op {} ({}): {why}", op.id, op.kind_name()).into())
}

/// Numpy broadcasting of `a` and `b`.
pub fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let y = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = match (x, y) {
            _ if x == y => x,
            (1, _) => y,
            (_, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// The axis `axis` of `ndims` dimensions, negative counting from the end.
pub fn axis(op: &Op, axis: i64, ndims: usize) -> Result<usize> {
    let n = ndims as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n.max(1) {
        return Err(shape_err(
            op,
            format!("axis {axis} is out of range for {ndims} dimensions"),
        ));
    }
    Ok(a as usize)
}

/// MatMul's operand shapes as the primitive sees them: `(src, wei, dst)`,
/// all of one rank, plus the output's shape (1-D operands' promoted
/// dimension removed).
pub struct MatmulShapes {
    pub src: Vec<i64>,
    pub wei: Vec<i64>,
    pub dst: Vec<i64>,
    pub out: Vec<i64>,
}

/// Numpy matmul with `transpose_a` / `transpose_b`.
pub fn matmul(op: &Op, a: &[i64], b: &[i64]) -> Result<MatmulShapes> {
    if a.is_empty() || b.is_empty() {
        return Err(shape_err(
            op,
            "MatMul operands need at least 1 dimension".into(),
        ));
    }
    let ta = op.bool_or(dnnl_graph_op_attr_transpose_a, false);
    let tb = op.bool_or(dnnl_graph_op_attr_transpose_b, false);
    let mut sa = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.to_vec()
    };
    let mut sb = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.to_vec()
    };
    if ta && a.len() > 1 {
        let n = sa.len();
        sa.swap(n - 1, n - 2);
    }
    if tb && b.len() > 1 {
        let n = sb.len();
        sb.swap(n - 1, n - 2);
    }
    let n = sa.len().max(sb.len());
    while sa.len() < n {
        sa.insert(0, 1);
    }
    while sb.len() < n {
        sb.insert(0, 1);
    }
    let (m, k1) = (sa[n - 2], sa[n - 1]);
    let (k2, nn) = (sb[n - 2], sb[n - 1]);
    if k1 != k2 {
        return Err(shape_err(op, format!("MatMul: K differs ({k1} and {k2})")));
    }
    let batch = broadcast(&sa[..n - 2], &sb[..n - 2])
        .ok_or_else(|| shape_err(op, "MatMul: batch dimensions do not broadcast".into()))?;
    let mut dst = batch.clone();
    dst.push(m);
    dst.push(nn);
    let mut out = batch;
    if a.len() > 1 {
        out.push(m);
    }
    if b.len() > 1 {
        out.push(nn);
    }
    Ok(MatmulShapes {
        src: sa,
        wei: sb,
        dst,
        out,
    })
}

/// StaticReshape's output shape: `shape` with 0 (copy, with
/// `special_zero`) and one -1 (inferred).
pub fn reshape(op: &Op, src: &[i64]) -> Result<Vec<i64>> {
    let shape = op
        .s64s(dnnl_graph_op_attr_shape)
        .ok_or_else(|| shape_err(op, "StaticReshape needs 'shape'".into()))?;
    let special_zero = op.bool_or(dnnl_graph_op_attr_special_zero, false);
    let volume = |dims: &[i64]| {
        dims.iter()
            .try_fold(1i64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| shape_err(op, format!("the number of elements of {dims:?} overflows")))
    };
    let total = volume(src)?;
    let mut out = Vec::with_capacity(shape.len());
    let mut infer = None;
    for (i, &d) in shape.iter().enumerate() {
        match d {
            0 if special_zero => out.push(*src.get(i).ok_or_else(|| {
                shape_err(
                    op,
                    format!("shape[{i}] copies a dimension the source lacks"),
                )
            })?),
            -1 if infer.is_none() => {
                infer = Some(i);
                out.push(1);
            }
            d if d >= 0 => out.push(d),
            _ => return Err(shape_err(op, format!("bad shape value {d}"))),
        }
    }
    let known = volume(&out)?;
    if let Some(i) = infer {
        if known == 0 || total % known != 0 {
            return Err(shape_err(op, "the shape's -1 cannot be inferred".into()));
        }
        out[i] = total / known;
    }
    if volume(&out)? != total {
        return Err(shape_err(op, format!("cannot reshape {src:?} to {out:?}")));
    }
    Ok(out)
}

/// StaticTranspose's `order`, normalised (negative entries count from the
/// end) and checked to be a permutation.
pub fn transpose_order(op: &Op, ndims: usize) -> Result<Vec<usize>> {
    let order = op
        .s64s(dnnl_graph_op_attr_order)
        .ok_or_else(|| shape_err(op, "StaticTranspose needs 'order'".into()))?;
    if order.len() != ndims {
        return Err(shape_err(
            op,
            format!("order {order:?} is not a permutation of {ndims} axes"),
        ));
    }
    let norm: Vec<usize> = order
        .iter()
        .map(|&o| axis(op, o, ndims))
        .collect::<Result<_>>()?;
    let mut seen = vec![false; ndims];
    for &o in &norm {
        if std::mem::replace(&mut seen[o], true) {
            return Err(shape_err(op, format!("order {order:?} repeats an axis")));
        }
    }
    Ok(norm)
}

/// The dimensions of output 0 of `op` given its inputs' tensors and the
/// output tensor the caller gave (which the convolution backward ops read
/// when no shape attribute says their output's shape).
pub fn infer(op: &Op, ins: &[Lt], out: Option<&Lt>) -> Result<Vec<i64>> {
    if super::conv_geom::kind_of(op.kind).is_some() {
        let dims: Vec<&[i64]> = ins.iter().map(logical_tensor::dims).collect();
        return super::conv_geom::infer(op, &dims, out);
    }
    let d = |i: usize| -> Result<&[i64]> {
        ins.get(i)
            .map(logical_tensor::dims)
            .ok_or_else(|| shape_err(op, format!("input {i} is missing")))
    };
    match op.kind {
        dnnl_graph_op_matmul => Ok(matmul(op, d(0)?, d(1)?)?.out),
        dnnl_graph_op_max_pool
        | dnnl_graph_op_avg_pool
        | dnnl_graph_op_max_pool_backward
        | dnnl_graph_op_avg_pool_backward => {
            let dims: Vec<&[i64]> = ins.iter().map(logical_tensor::dims).collect();
            super::pool::infer(op, &dims)
        }
        kind if super::kinds::is_reduction(kind) => super::reduce::infer(op, d(0)?),
        dnnl_graph_op_interpolate => super::interp::dst_dims(op, d(0)?),
        dnnl_graph_op_select => {
            let ab = broadcast(d(1)?, d(2)?)
                .ok_or_else(|| shape_err(op, "inputs do not broadcast".into()))?;
            broadcast(d(0)?, &ab).ok_or_else(|| shape_err(op, "inputs do not broadcast".into()))
        }
        dnnl_graph_op_concat => {
            let first = d(0)?.to_vec();
            let a = axis(op, op.s64_or(dnnl_graph_op_attr_axis, 0), first.len())?;
            let mut out = first.clone();
            out[a] = 0;
            for i in 0..ins.len() {
                let s = d(i)?;
                if s.len() != first.len() || (0..s.len()).any(|k| k != a && s[k] != first[k]) {
                    return Err(shape_err(
                        op,
                        format!("input {i} {s:?} does not concatenate with {first:?}"),
                    ));
                }
                out[a] = out[a].checked_add(s[a]).ok_or_else(|| {
                    shape_err(op, format!("the concatenated dimension {a} overflows"))
                })?;
            }
            Ok(out)
        }
        dnnl_graph_op_static_reshape => reshape(op, d(0)?),
        dnnl_graph_op_static_transpose => {
            let s = d(0)?;
            Ok(transpose_order(op, s.len())?
                .iter()
                .map(|&o| s[o])
                .collect())
        }
        dnnl_graph_op_softmax_backward | dnnl_graph_op_log_softmax_backward => Ok(d(1)?.to_vec()),
        kind if super::kinds::binary(kind).is_some() => {
            if op.str_or(dnnl_graph_op_attr_auto_broadcast, "numpy") == "none" && d(0)? != d(1)? {
                return Err(shape_err(
                    op,
                    "auto_broadcast is none and the shapes differ".into(),
                ));
            }
            broadcast(d(0)?, d(1)?).ok_or_else(|| shape_err(op, "inputs do not broadcast".into()))
        }
        _ => Ok(d(0)?.to_vec()),
    }
}

/// The dimensions of output `k` (not 0) of `op`, where the op defines them
/// (`None`: as the caller gave them).
pub fn infer_extra(op: &Op, k: usize, ins: &[Lt]) -> Result<Option<Vec<i64>>> {
    let channels = || -> Result<i64> {
        let src = ins
            .first()
            .map(logical_tensor::dims)
            .ok_or_else(|| shape_err(op, "the source is missing".into()))?;
        if src.len() < 2 {
            return Err(shape_err(
                op,
                format!("the data {src:?} needs 2 or more dimensions"),
            ));
        }
        let ncx = op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX";
        Ok(if ncx { src[1] } else { src[src.len() - 1] })
    };
    match op.kind {
        // Mean and variance.
        dnnl_graph_op_group_norm if k > 0 => {
            let src = ins
                .first()
                .map(logical_tensor::dims)
                .ok_or_else(|| shape_err(op, "the source is missing".into()))?;
            Ok(Some(super::gnorm::stat_dims(op, src)))
        }
        dnnl_graph_op_layer_norm if k > 0 => {
            let src = ins
                .first()
                .map(logical_tensor::dims)
                .ok_or_else(|| shape_err(op, "the source is missing".into()))?;
            Ok(Some(super::lnorm::stat_dims(src)))
        }
        // diff_gamma and diff_beta.
        dnnl_graph_op_layer_norm_backward if k > 0 => {
            let src = ins
                .first()
                .map(logical_tensor::dims)
                .ok_or_else(|| shape_err(op, "the source is missing".into()))?;
            Ok(Some(src.last().map(|&c| vec![c]).unwrap_or_default()))
        }
        // diff_slope: the slope's shape.
        dnnl_graph_op_prelu_backward if k == 1 => {
            Ok(ins.get(1).map(|l| logical_tensor::dims(l).to_vec()))
        }
        // Running and batch statistics; diff_gamma and diff_beta.
        dnnl_graph_op_batch_norm_forward_training | dnnl_graph_op_batch_norm_backward if k > 0 => {
            Ok(Some(vec![channels()?]))
        }
        _ => Ok(None),
    }
}

/// The data type of output `lt` of `op` when the caller left it undefined.
pub fn infer_dt(op: &Op, ins: &[Lt], given: dnnl_data_type_t) -> dnnl_data_type_t {
    if given != dnnl_data_type_undef {
        return given;
    }
    match op.kind {
        dnnl_graph_op_dequantize | dnnl_graph_op_dynamic_dequantize => dnnl_f32,
        dnnl_graph_op_select => ins.get(1).map_or(dnnl_f32, |l| l.data_type),
        dnnl_graph_op_greater_equal => dnnl_boolean,
        _ => ins.first().map_or(dnnl_f32, |l| l.data_type),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_broadcast() {
        assert_eq!(broadcast(&[2, 3, 4], &[4]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast(&[2, 1, 4], &[3, 1]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast(&[2, 3], &[4]), None);
    }

    #[test]
    fn matmul_promotes_1d() {
        let op = Op::new(1, dnnl_graph_op_matmul, "mm");
        let s = matmul(&op, &[5], &[5, 3]).unwrap();
        assert_eq!((s.src, s.dst, s.out), (vec![1, 5], vec![1, 3], vec![3]));
        let s = matmul(&op, &[2, 4, 5], &[5, 3]).unwrap();
        assert_eq!((s.wei, s.out), (vec![1, 5, 3], vec![2, 4, 3]));
        let mut t = Op::new(1, dnnl_graph_op_matmul, "mm");
        t.set_bool(dnnl_graph_op_attr_transpose_b, true);
        assert_eq!(matmul(&t, &[4, 5], &[3, 5]).unwrap().out, vec![4, 3]);
        assert!(matmul(&op, &[4, 5], &[4, 5]).is_err());
    }

    #[test]
    fn reshape_special_values() {
        let mut op = Op::new(1, dnnl_graph_op_static_reshape, "r");
        op.set_s64(dnnl_graph_op_attr_shape, &[0, -1]);
        op.set_bool(dnnl_graph_op_attr_special_zero, true);
        assert_eq!(reshape(&op, &[2, 3, 4]).unwrap(), vec![2, 12]);
    }
}
