//! Softmax against an f64 reference: both algorithms forward and backward,
//! axes first / middle / last, short and long rows, blocked layouts with
//! padding (also along the axis), mixed types, int8 destinations with
//! scales, in-place, -inf entries, empty tensors and the descriptor rules,
//! on the CPU engine and on every OpenCL device present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::attr::{QuantKind, QuantSpec};
use crate::core::engine::{Engine, EngineKind};
use crate::core::memory_desc::MAX_NDIMS;
use crate::prims::common::testutil::{
    TestMem, attr_checked, engine_name, engines, exec, indices, md, memory, read, rounded,
};

/// Input values: a spread that makes rows differ (and large enough that a
/// missing max subtraction would overflow).
fn inputs(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            (((i * 37 + seed * 11) % 101) as f32 - 50.0) * 0.37
                + if i % 13 == 0 { 60.0 } else { 0.0 }
        })
        .collect()
}

/// Flat row-major index of `idx` with the axis position replaced by `j`.
fn flat(dims: &[i64], idx: &[i64; MAX_NDIMS], axis: usize, j: i64) -> usize {
    let mut f = 0i64;
    for d in 0..dims.len() {
        f = f * dims[d] + if d == axis { j } else { idx[d] };
    }
    f as usize
}

fn fwd_ref(alg: Alg, x: &[f64]) -> Vec<f64> {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    x.iter()
        .map(|v| match alg {
            Alg::Accurate => (v - m).exp() / s,
            Alg::Log => v - m - s.ln(),
        })
        .collect()
}

fn bwd_ref(alg: Alg, y: &[f64], dd: &[f64]) -> Vec<f64> {
    match alg {
        Alg::Accurate => {
            let s: f64 = y.iter().zip(dd).map(|(a, b)| a * b).sum();
            y.iter().zip(dd).map(|(a, b)| a * (b - s)).collect()
        }
        Alg::Log => {
            let s: f64 = dd.iter().sum();
            y.iter().zip(dd).map(|(a, b)| b - a.exp() * s).collect()
        }
    }
}

fn tol(elem: Elem) -> f64 {
    match elem {
        Elem::F32 => 2e-5,
        Elem::F16 => 2e-3,
        Elem::Bf16 => 1.6e-2,
        _ => 1.0,
    }
}

fn scale_attr(src: Option<f32>, dst: Option<f32>) -> PrimitiveAttr {
    let mut attr = PrimitiveAttr::default();
    for (arg, s) in [(DNNL_ARG_SRC, src), (DNNL_ARG_DST, dst)] {
        if s.is_some() {
            attr.scales
                .insert(arg, QuantSpec::with_mask(QuantKind::Scales, 0).unwrap());
        }
    }
    attr
}

/// Forward on `engine`: checks against the reference; returns the
/// implementation's name.
#[allow(clippy::too_many_arguments)]
fn check_fwd(
    engine: &Arc<Engine>,
    alg: Alg,
    src: &MemoryDesc,
    dst: &MemoryDesc,
    axis: usize,
    in_place: bool,
    scales: (Option<f32>, Option<f32>),
    x: Option<Vec<f32>>,
) -> String {
    let attr = scale_attr(scales.0, scales.1);
    let op = Arc::new(
        SoftmaxOp::forward(
            dnnl_forward_inference,
            alg.to_c(),
            src,
            dst,
            axis as i32,
            &attr,
        )
        .unwrap(),
    );
    let dims = src.dims().to_vec();
    let n = dims.iter().product::<i64>() as usize;
    let src_elem = Elem::from_c(src.data_type()).unwrap();
    let x: Vec<f32> = x
        .unwrap_or_else(|| inputs(n, 0))
        .iter()
        .map(|&v| rounded(src_elem, v))
        .collect();
    let ms = memory(engine, src, &x);
    let dst_md = op.arg_md(DNNL_ARG_DST).unwrap().as_ref().clone();
    let md_ = if in_place {
        ms.same()
    } else {
        memory(engine, &dst_md, &[])
    };
    let sm: Vec<(i32, TestMem)> = [(DNNL_ARG_SRC, scales.0), (DNNL_ARG_DST, scales.1)]
        .into_iter()
        .filter_map(|(a, s)| {
            s.map(|s| {
                (
                    DNNL_ARG_ATTR_SCALES | a,
                    memory(engine, &md(&[1], dnnl_f32, dnnl_a), &[s]),
                )
            })
        })
        .collect();
    let mut args = vec![(DNNL_ARG_SRC, &ms), (DNNL_ARG_DST, &md_)];
    for (a, m) in &sm {
        args.push((*a, m));
    }
    let name = exec(engine, op.clone(), &args);
    let got = read(&md_);
    let out_elem = Elem::from_c(dst_md.data_type()).unwrap();
    let (s0, s1) = (
        scales.0.unwrap_or(1.0) as f64,
        scales.1.unwrap_or(1.0) as f64,
    );
    for idx in indices(&dims) {
        if idx[axis] != 0 {
            continue;
        }
        let row: Vec<f64> = (0..dims[axis])
            .map(|j| f64::from(x[flat(&dims, &idx, axis, j)]))
            .collect();
        let want = fwd_ref(alg, &row);
        for j in 0..dims[axis] {
            let w = want[j as usize] * s0 / s1;
            let g = f64::from(got[flat(&dims, &idx, axis, j)]);
            let ok = if w.is_nan() {
                g.is_nan()
            } else if out_elem.is_int() {
                (g - f64::from(rounded(out_elem, w as f32))).abs() <= 1.0
            } else {
                (g - w).abs() <= tol(out_elem) * (1.0 + w.abs())
            };
            assert!(
                ok,
                "{} {alg:?} axis {axis} {name}: at {idx:?}/{j}: got {g}, want {w}",
                engine_name(engine)
            );
        }
    }
    name
}

fn check_bwd(
    engine: &Arc<Engine>,
    alg: Alg,
    dst: &MemoryDesc,
    diff: &MemoryDesc,
    axis: usize,
    in_place: bool,
) {
    let attr = PrimitiveAttr::default();
    let op =
        Arc::new(SoftmaxOp::backward(alg.to_c(), diff, diff, dst, axis as i32, &attr).unwrap());
    let dims = dst.dims().to_vec();
    let n = dims.iter().product::<i64>() as usize;
    let delem = Elem::from_c(dst.data_type()).unwrap();
    let gelem = Elem::from_c(diff.data_type()).unwrap();
    // dst: a forward result per row.
    let x = inputs(n, 1);
    let mut y = vec![0f32; n];
    for idx in indices(&dims) {
        if idx[axis] != 0 {
            continue;
        }
        let row: Vec<f64> = (0..dims[axis])
            .map(|j| f64::from(x[flat(&dims, &idx, axis, j)]) * 0.1)
            .collect();
        for (j, v) in fwd_ref(alg, &row).iter().enumerate() {
            y[flat(&dims, &idx, axis, j as i64)] = rounded(delem, *v as f32);
        }
    }
    let dd: Vec<f32> = inputs(n, 2)
        .iter()
        .map(|v| rounded(gelem, v * 0.05))
        .collect();
    let my = memory(engine, dst, &y);
    let mdd = memory(engine, diff, &dd);
    let mds = if in_place {
        mdd.same()
    } else {
        memory(engine, diff, &[])
    };
    let name = exec(
        engine,
        op.clone(),
        &[
            (DNNL_ARG_DST, &my),
            (DNNL_ARG_DIFF_DST, &mdd),
            (DNNL_ARG_DIFF_SRC, &mds),
        ],
    );
    let got = read(&mds);
    for idx in indices(&dims) {
        if idx[axis] != 0 {
            continue;
        }
        let at = |j: i64| flat(&dims, &idx, axis, j);
        let yr: Vec<f64> = (0..dims[axis]).map(|j| f64::from(y[at(j)])).collect();
        let dr: Vec<f64> = (0..dims[axis]).map(|j| f64::from(dd[at(j)])).collect();
        let want = bwd_ref(alg, &yr, &dr);
        let scale = dr.iter().map(|v| v.abs()).sum::<f64>() + 1.0;
        for j in 0..dims[axis] {
            let g = f64::from(got[at(j)]);
            let w = want[j as usize];
            assert!(
                (g - w).abs() <= tol(gelem) * scale,
                "{} bwd {alg:?} axis {axis} {name}: at {idx:?}/{j}: got {g}, want {w}",
                engine_name(engine)
            );
        }
    }
}

/// Both algorithms, every axis of a 3-d tensor, forward and backward, f32.
#[test]
fn algorithms_and_axes() {
    let t = md(&[3, 7, 13], dnnl_f32, dnnl_abc);
    for engine in engines() {
        for alg in [Alg::Accurate, Alg::Log] {
            for axis in 0..3 {
                check_fwd(&engine, alg, &t, &t, axis, false, (None, None), None);
                check_bwd(&engine, alg, &t, &t, axis, false);
            }
        }
    }
}

/// Long rows and shorter contiguous ones (work-group reductions on
/// OpenCL), odd lengths.
#[test]
fn long_rows() {
    let last = md(&[5, 1037], dnnl_f32, dnnl_ab);
    let first = md(&[300, 3], dnnl_f32, dnnl_ab);
    let mid = md(&[6, 45], dnnl_f32, dnnl_ab);
    for engine in engines() {
        for alg in [Alg::Accurate, Alg::Log] {
            check_fwd(&engine, alg, &last, &last, 1, false, (None, None), None);
            // In place over contiguous f32 rows (the CPU's direct path).
            check_fwd(&engine, alg, &last, &last, 1, true, (None, None), None);
            check_bwd(&engine, alg, &last, &last, 1, false);
            check_fwd(&engine, alg, &first, &first, 0, false, (None, None), None);
            check_fwd(&engine, alg, &mid, &mid, 1, false, (None, None), None);
            check_bwd(&engine, alg, &mid, &mid, 1, false);
        }
    }
}

/// Blocked layouts with padding (the axis blocked too), mixed layouts and
/// types, dst `any`, in-place.
#[test]
fn layouts_types_and_in_place() {
    let dims = [2i64, 19, 3, 5];
    let nchw = md(&dims, dnnl_f32, dnnl_nchw);
    let nhwc = md(&dims, dnnl_f32, dnnl_nhwc);
    let blocked = md(&dims, dnnl_f32, dnnl_nChw16c);
    let blocked_bf = md(&dims, dnnl_bf16, dnnl_nChw8c);
    let f16 = md(&dims, dnnl_f16, dnnl_nhwc);
    let any = md(&dims, dnnl_f16, dnnl_format_tag_any);
    for engine in engines() {
        check_fwd(
            &engine,
            Alg::Accurate,
            &nchw,
            &blocked,
            1,
            false,
            (None, None),
            None,
        );
        check_fwd(
            &engine,
            Alg::Log,
            &blocked,
            &nhwc,
            3,
            false,
            (None, None),
            None,
        );
        check_fwd(
            &engine,
            Alg::Accurate,
            &f16,
            &blocked_bf,
            2,
            false,
            (None, None),
            None,
        );
        check_fwd(
            &engine,
            Alg::Accurate,
            &blocked,
            &any,
            1,
            false,
            (None, None),
            None,
        );
        check_fwd(
            &engine,
            Alg::Accurate,
            &blocked,
            &blocked,
            1,
            true,
            (None, None),
            None,
        );
        check_fwd(&engine, Alg::Log, &nhwc, &nhwc, 0, true, (None, None), None);
        check_bwd(&engine, Alg::Accurate, &blocked, &nhwc, 1, false);
        check_bwd(&engine, Alg::Log, &nhwc, &blocked_bf, 1, false);
        check_bwd(&engine, Alg::Accurate, &nchw, &nchw, 3, true);
    }
}

/// int8 destinations with src / dst scales; -inf entries (a whole row of
/// -inf gives NaN, as upstream's accurate softmax does).
#[test]
fn int8_scales_and_infinities() {
    let f = md(&[4, 9], dnnl_f32, dnnl_ab);
    let u8md = md(&[4, 9], dnnl_u8, dnnl_ab);
    let s8md = md(&[4, 9], dnnl_s8, dnnl_ab);
    let mut x = inputs(36, 3);
    for v in x.iter_mut().take(9) {
        *v = f32::NEG_INFINITY;
    }
    x[10] = f32::NEG_INFINITY;
    for engine in engines() {
        check_fwd(
            &engine,
            Alg::Accurate,
            &f,
            &u8md,
            1,
            false,
            (None, Some(1.0 / 255.0)),
            None,
        );
        check_fwd(
            &engine,
            Alg::Log,
            &f,
            &s8md,
            1,
            false,
            (Some(2.0), Some(0.5)),
            None,
        );
        check_fwd(
            &engine,
            Alg::Accurate,
            &f,
            &f,
            1,
            false,
            (Some(3.0), None),
            None,
        );
        check_fwd(
            &engine,
            Alg::Accurate,
            &f,
            &f,
            1,
            false,
            (None, None),
            Some(x.clone()),
        );
    }
}

#[test]
fn empty_tensors() {
    let e = md(&[3, 0, 5], dnnl_f32, dnnl_abc);
    for engine in engines() {
        check_fwd(&engine, Alg::Accurate, &e, &e, 2, false, (None, None), None);
        check_fwd(&engine, Alg::Accurate, &e, &e, 1, false, (None, None), None);
    }
}

/// Many rows split over threads (CPU).
#[test]
fn many_rows() {
    let t = md(&[64, 33, 40], dnnl_f32, dnnl_abc);
    let cpu = Engine::create(EngineKind::Cpu, 0).unwrap();
    check_fwd(&cpu, Alg::Accurate, &t, &t, 1, false, (None, None), None);
    check_bwd(&cpu, Alg::Log, &t, &t, 2, false);
}

#[test]
fn descriptor_checks() {
    let attr = PrimitiveAttr::default();
    let a = md(&[2, 3, 4], dnnl_f32, dnnl_abc);
    let other = md(&[2, 3, 5], dnnl_f32, dnnl_abc);
    let any = md(&[2, 3, 4], dnnl_f32, dnnl_format_tag_any);
    let s8 = md(&[2, 3, 4], dnnl_s8, dnnl_abc);
    let st = |r: Result<SoftmaxOp>| r.err().map(|e| e.status());
    let fwd = |p, alg, s: &MemoryDesc, d: &MemoryDesc, axis| {
        st(SoftmaxOp::forward(p, alg, s, d, axis, &attr))
    };
    let fi = dnnl_forward_inference;
    assert_eq!(fwd(fi, dnnl_softmax_accurate, &a, &a, 2), None);
    assert_eq!(fwd(fi, dnnl_softmax_accurate, &a, &any, 0), None);
    assert_eq!(
        fwd(fi, dnnl_softmax_accurate, &a, &a, 3),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(fi, dnnl_softmax_accurate, &a, &a, -1),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(fi, dnnl_softmax_accurate, &a, &other, 1),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(fi, dnnl_softmax_accurate, &any, &a, 1),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(dnnl_backward_data, dnnl_softmax_accurate, &a, &a, 1),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(fi, dnnl_eltwise_relu, &a, &a, 1),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(fwd(fi, dnnl_softmax_log, &a, &s8, 1), None);
    assert_eq!(
        fwd(fi, dnnl_softmax_log, &s8, &a, 1),
        Some(dnnl_unimplemented)
    );
    let bwd = |ds: &MemoryDesc, dd: &MemoryDesc, d: &MemoryDesc, axis| {
        st(SoftmaxOp::backward(
            dnnl_softmax_accurate,
            ds,
            dd,
            d,
            axis,
            &attr,
        ))
    };
    assert_eq!(bwd(&any, &any, &a, 1), None);
    assert_eq!(bwd(&a, &other, &a, 1), Some(dnnl_invalid_arguments));
    assert_eq!(bwd(&a, &a, &a, 7), Some(dnnl_invalid_arguments));
    assert_eq!(bwd(&s8, &a, &a, 1), Some(dnnl_unimplemented));
    let op = SoftmaxOp::forward(fi, dnnl_softmax_log, &a, &a, 2, &attr).unwrap();
    assert_eq!(op.query_s32(dnnl_query_axis_s32), Some(2));
    let mut zp = PrimitiveAttr::default();
    zp.zero_points.insert(
        DNNL_ARG_SRC,
        QuantSpec::with_mask(QuantKind::ZeroPoints, 0).unwrap(),
    );
    assert_eq!(
        st(attr_checked(
            SoftmaxOp::forward(fi, dnnl_softmax_log, &a, &a, 2, &zp),
            &zp
        )),
        Some(dnnl_unimplemented)
    );
}

/// Post-ops on softmax forward (needs the lead's PostOpsPlan).
#[test]
fn post_ops_linear() {
    let a = md(&[3, 21], dnnl_f32, dnnl_ab);
    let mut attr = PrimitiveAttr::default();
    attr.post_ops
        .append(|| crate::core::attr::PostOp::eltwise(dnnl_eltwise_linear, 2.0, 1.0))
        .unwrap();
    for engine in engines() {
        let op = Arc::new(
            SoftmaxOp::forward(
                dnnl_forward_inference,
                dnnl_softmax_accurate,
                &a,
                &a,
                1,
                &attr,
            )
            .unwrap(),
        );
        let x = inputs(63, 0);
        let (ms, md_) = (memory(&engine, &a, &x), memory(&engine, &a, &[]));
        exec(
            &engine,
            op.clone(),
            &[(DNNL_ARG_SRC, &ms), (DNNL_ARG_DST, &md_)],
        );
        let got = read(&md_);
        for r in 0..3 {
            let row: Vec<f64> = x[r * 21..r * 21 + 21]
                .iter()
                .map(|&v| f64::from(v))
                .collect();
            for (j, w) in fwd_ref(Alg::Accurate, &row).iter().enumerate() {
                assert!((f64::from(got[r * 21 + j]) - (2.0 * w + 1.0)).abs() < 1e-5);
            }
        }
    }
}
