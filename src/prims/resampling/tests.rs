//! Resampling against an f64 reference from the documentation's formulas:
//! both algorithms, forward and backward, 1D/2D/3D, up- and downsampling
//! with non-integer factors, permuted layouts, mixed types, post-ops
//! (sum, eltwise) and the descriptor rules, on the CPU engine and on every
//! OpenCL and Level Zero device present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::attr::PostOps;
use crate::prims::common::testutil::{
    engine_name, engines, exec, indices, md, memory, read, rounded,
};

/// Source coordinate in f64 and its taps (index, weight), from the doc.
fn taps_ref(alg: Alg, o: i64, i: i64, big_o: i64) -> Vec<(i64, f64)> {
    let x = (o as f64 + 0.5) * i as f64 / big_o as f64 - 0.5;
    let cl = |v: f64| (v as i64).clamp(0, i - 1);
    match alg {
        Alg::Nearest => vec![(cl(x.round()), 1.0)],
        Alg::Linear => {
            let w = x - x.floor();
            vec![(cl(x.floor()), 1.0 - w), (cl(x.ceil()), w)]
        }
    }
}

#[test]
fn mapping_matches_the_documentation() {
    for i in 1..30 {
        for o in 1..45 {
            for y in 0..o {
                let want = taps_ref(Alg::Nearest, y, i, o)[0].0;
                assert_eq!(nearest_index(y, i, o), want, "nearest {i} -> {o} at {y}");
                let r = taps_ref(Alg::Linear, y, i, o);
                let (a, b, w) = linear_taps(y, i, o);
                assert_eq!((a, b), (r[0].0, r[1].0), "linear {i} -> {o} at {y}");
                assert!(
                    (w as f64 - r[1].1).abs() < 1e-6,
                    "linear weight {i} -> {o} at {y}"
                );
            }
            // Every output that reads source index s lies in touching(s).
            for alg in [Alg::Nearest, Alg::Linear] {
                for s in 0..i {
                    let (lo, hi) = touching(alg, s, i, o);
                    for y in 0..o {
                        if weight(alg, y, s, i, o) != 0.0 {
                            assert!((lo..=hi).contains(&y), "{alg:?} {i} -> {o}: {y} reads {s}");
                        }
                    }
                }
            }
        }
    }
    // A tie: 6 -> 5 at output 2 has x = 2.5, which rounds up.
    assert_eq!(nearest_index(2, 6, 5), 3);
}

fn flat(dims: &[i64], idx: &[i64]) -> usize {
    let mut f = 0;
    for d in 0..dims.len() {
        f = f * dims[d] + idx[d];
    }
    f as usize
}

/// Per output element: the source elements it reads with their weights.
fn reads(alg: Alg, src: &[i64], dst: &[i64]) -> Vec<Vec<(usize, f64)>> {
    indices(dst)
        .iter()
        .map(|p| {
            let nd = dst.len();
            let mut acc: Vec<(Vec<i64>, f64)> = vec![(vec![p[0], p[1]], 1.0)];
            for d in 2..nd {
                acc = acc
                    .into_iter()
                    .flat_map(|(pos, w)| {
                        taps_ref(alg, p[d], src[d], dst[d])
                            .into_iter()
                            .map(move |(i, tw)| {
                                let mut q = pos.clone();
                                q.push(i);
                                (q, w * tw)
                            })
                            .collect::<Vec<_>>()
                    })
                    .collect();
            }
            acc.into_iter().map(|(q, w)| (flat(src, &q), w)).collect()
        })
        .collect()
}

fn check(got: &[f32], want: &[f64], elem: Elem, what: &str) {
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let r = rounded(elem, w as f32);
        let tol = match elem {
            Elem::F32 => 1e-4 * (1.0 + r.abs()),
            Elem::F16 | Elem::Bf16 => 1e-2 * (1.0 + r.abs()),
            _ => 1.0,
        };
        assert!(
            (g - r).abs() <= tol,
            "{what}: element {i}: got {g}, want {w}"
        );
    }
}

struct Case {
    src: Vec<i64>,
    dst: Vec<i64>,
    tag: dnnl_format_tag_t,
    sdt: dnnl_data_type_t,
    ddt: dnnl_data_type_t,
}

#[test]
fn forward_and_backward_on_every_engine() {
    let cases = [
        Case {
            src: vec![2, 3, 5],
            dst: vec![2, 3, 11],
            tag: dnnl_acb,
            sdt: dnnl_f32,
            ddt: dnnl_f32,
        },
        Case {
            src: vec![1, 2, 6, 7],
            dst: vec![1, 2, 5, 16],
            tag: dnnl_abcd,
            sdt: dnnl_f32,
            ddt: dnnl_f32,
        },
        // GPU forward, 4 outputs per work-item along the width, from a
        // source narrower than 4 (first) and downsampling (second).
        Case {
            src: vec![1, 2, 3, 3],
            dst: vec![1, 2, 4, 8],
            tag: dnnl_abcd,
            sdt: dnnl_f32,
            ddt: dnnl_f32,
        },
        Case {
            src: vec![1, 2, 2, 16],
            dst: vec![1, 2, 3, 8],
            tag: dnnl_abcd,
            sdt: dnnl_f32,
            ddt: dnnl_f32,
        },
        // GPU linear forward sharing each row's taps over a work-item's 4
        // outputs (resample_row): up 2x with both edges clamped, up 4x in
        // 3D, and a 1D up 2x.
        Case {
            src: vec![1, 2, 5, 6],
            dst: vec![1, 2, 10, 12],
            tag: dnnl_abcd,
            sdt: dnnl_f32,
            ddt: dnnl_f32,
        },
        Case {
            src: vec![1, 2, 2, 3, 3],
            dst: vec![1, 2, 3, 2, 12],
            tag: dnnl_abcde,
            sdt: dnnl_f32,
            ddt: dnnl_f32,
        },
        Case {
            src: vec![2, 3, 8],
            dst: vec![2, 3, 16],
            tag: dnnl_abc,
            sdt: dnnl_f32,
            ddt: dnnl_f32,
        },
        Case {
            src: vec![2, 3, 4, 3],
            dst: vec![2, 3, 9, 2],
            tag: dnnl_acdb,
            sdt: dnnl_bf16,
            ddt: dnnl_f32,
        },
        Case {
            src: vec![1, 2, 3, 4, 5],
            dst: vec![1, 2, 5, 2, 7],
            tag: dnnl_abcde,
            sdt: dnnl_f32,
            ddt: dnnl_s8,
        },
        Case {
            src: vec![1, 3, 2, 3, 4],
            dst: vec![1, 3, 4, 6, 3],
            tag: dnnl_acdeb,
            sdt: dnnl_u8,
            ddt: dnnl_f16,
        },
    ];
    for engine in engines() {
        let name = engine_name(&engine);
        for (ci, c) in cases.iter().enumerate() {
            for alg in [Alg::Nearest, Alg::Linear] {
                let what = format!("{name}: case {ci} {alg:?}");
                let (selem, delem) = (Elem::from_c(c.sdt).unwrap(), Elem::from_c(c.ddt).unwrap());
                let ns: i64 = c.src.iter().product();
                let nd: i64 = c.dst.iter().product();
                let x: Vec<f32> = (0..ns)
                    .map(|i| {
                        rounded(
                            selem,
                            ((i * 37 % 23) as f32) * 0.5
                                - if selem == Elem::U8 { 0.0 } else { 4.0 },
                        )
                    })
                    .collect();
                let old: Vec<f32> = (0..nd)
                    .map(|i| rounded(delem, (i % 5) as f32 - 2.0))
                    .collect();
                let src_md = md(&c.src, c.sdt, c.tag);
                let dst_md = md(&c.dst, c.ddt, c.tag);
                // Forward with a sum and an eltwise (linear 0.5x + 1).
                let mut po = PostOps::default();
                po.append(|| PostOp::sum(0.5, 0, dnnl_data_type_undef))
                    .unwrap();
                po.append(|| PostOp::eltwise(dnnl_eltwise_linear, 0.5, 1.0))
                    .unwrap();
                let attr = PrimitiveAttr {
                    post_ops: po,
                    ..Default::default()
                };
                let op = ResamplingOp::forward(
                    dnnl_forward_inference,
                    alg.to_c(),
                    None,
                    &src_md,
                    Some(&dst_md),
                    &attr,
                )
                .unwrap();
                let src = memory(&engine, &src_md, &x);
                let dst = memory(&engine, &dst_md, &old);
                exec(
                    &engine,
                    Arc::new(op),
                    &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
                );
                let map = reads(alg, &c.src, &c.dst);
                let want: Vec<f64> = map
                    .iter()
                    .zip(&old)
                    .map(|(r, &o)| {
                        let v: f64 = r.iter().map(|&(s, w)| w * x[s] as f64).sum();
                        0.5 * (v + 0.5 * o as f64) + 1.0
                    })
                    .collect();
                check(&read(&dst), &want, delem, &format!("{what} forward"));

                // Backward (f32 both sides).
                let g: Vec<f32> = (0..nd)
                    .map(|i| ((i * 13 % 17) as f32 - 8.0) * 0.25)
                    .collect();
                let op = ResamplingOp::backward(
                    alg.to_c(),
                    None,
                    &md(&c.src, dnnl_f32, c.tag),
                    Some(&md(&c.dst, dnnl_f32, c.tag)),
                    &PrimitiveAttr::default(),
                )
                .unwrap();
                let dd = memory(&engine, &md(&c.dst, dnnl_f32, c.tag), &g);
                let ds = memory(
                    &engine,
                    &md(&c.src, dnnl_f32, c.tag),
                    &vec![7.0; ns as usize],
                );
                exec(
                    &engine,
                    Arc::new(op),
                    &[(DNNL_ARG_DIFF_DST, &dd), (DNNL_ARG_DIFF_SRC, &ds)],
                );
                let mut want = vec![0.0f64; ns as usize];
                for (o, r) in map.iter().enumerate() {
                    for &(s, w) in r {
                        want[s] += w * g[o] as f64;
                    }
                }
                check(&read(&ds), &want, Elem::F32, &format!("{what} backward"));
            }
        }
    }
}

#[test]
fn descriptor_rules() {
    let attr = PrimitiveAttr::default();
    let src = md(&[2, 3, 5, 7], dnnl_f32, dnnl_acdb);
    let nn = dnnl_resampling_nearest;
    // dst from the factors: (dim_t)(I * F), src's type and layout.
    let op = ResamplingOp::forward(
        dnnl_forward_training,
        nn,
        Some(&[1.5, 0.3]),
        &src,
        None,
        &attr,
    )
    .unwrap();
    assert_eq!(op.dst_md().dims(), &[2, 3, 7, 2]);
    assert_eq!(**op.dst_md(), md(&[2, 3, 7, 2], dnnl_f32, dnnl_acdb));
    assert_eq!(op.factors(), &[7.0 / 5.0, 2.0 / 7.0]);
    // Neither dst nor factors; negative factors; mismatched channels; src any.
    let invalid =
        |r: Result<ResamplingOp>| assert_eq!(r.err().unwrap().status(), dnnl_invalid_arguments);
    invalid(ResamplingOp::forward(
        dnnl_forward_training,
        nn,
        None,
        &src,
        None,
        &attr,
    ));
    invalid(ResamplingOp::forward(
        dnnl_forward_training,
        nn,
        Some(&[-1.0, 2.0]),
        &src,
        None,
        &attr,
    ));
    invalid(ResamplingOp::forward(
        dnnl_forward_training,
        nn,
        None,
        &src,
        Some(&md(&[2, 4, 5, 7], dnnl_f32, dnnl_acdb)),
        &attr,
    ));
    invalid(ResamplingOp::forward(
        dnnl_forward_training,
        nn,
        None,
        &md(&[2, 3, 5, 7], dnnl_f32, dnnl_format_tag_any),
        Some(&src),
        &attr,
    ));
    invalid(ResamplingOp::forward(
        dnnl_backward_data,
        nn,
        None,
        &src,
        Some(&src),
        &attr,
    ));
    // Inference answers forward_training.
    let op =
        ResamplingOp::forward(dnnl_forward_inference, nn, None, &src, Some(&src), &attr).unwrap();
    assert_eq!(op.prop_kind(), dnnl_forward_training);
    // Backward: diff_src any takes diff_dst's layout; both any is unimplemented.
    let any = md(&[2, 3, 5, 7], dnnl_f32, dnnl_format_tag_any);
    let dst = md(&[2, 3, 9, 4], dnnl_f32, dnnl_acdb);
    let op = ResamplingOp::backward(nn, None, &any, Some(&dst), &attr).unwrap();
    assert_eq!(**op.src_md(), src);
    let r = ResamplingOp::backward(
        nn,
        None,
        &any,
        Some(&md(&[2, 3, 9, 4], dnnl_f32, dnnl_format_tag_any)),
        &attr,
    );
    assert_eq!(r.err().unwrap().status(), dnnl_unimplemented);
    // Blocked layouts are unimplemented.
    let blocked = md(&[2, 16, 5, 7], dnnl_f32, dnnl_aBcd16b);
    let r = ResamplingOp::forward(
        dnnl_forward_training,
        nn,
        Some(&[2.0, 2.0]),
        &blocked,
        None,
        &attr,
    );
    assert_eq!(r.err().unwrap().status(), dnnl_unimplemented);
}

/// The CPU's row path without post-ops: repeated rows (nearest and linear
/// upsampling by 2), downsampling, non-integer factors, 1D / 3D, a width of
/// one, a channels-last layout (width not dense), f32 and bf16.
#[test]
fn cpu_forward_rows() {
    let engine = crate::prims::common::testutil::xfer::cpu_engine();
    let cases: [(&[i64], &[i64], dnnl_format_tag_t); 7] = [
        (&[2, 3, 7, 9], &[2, 3, 14, 18], dnnl_abcd),
        (&[2, 3, 14, 19], &[2, 3, 7, 9], dnnl_abcd),
        (&[1, 2, 5, 7], &[1, 2, 12, 3], dnnl_abcd),
        (&[2, 3, 17], &[2, 3, 34], dnnl_abc),
        (&[1, 2, 3, 4, 5], &[1, 2, 6, 8, 10], dnnl_abcde),
        (&[2, 2, 4, 3], &[2, 2, 9, 1], dnnl_abcd),
        (&[2, 3, 4, 5], &[2, 3, 8, 11], dnnl_acdb),
    ];
    for (src_dims, dst_dims, tag) in cases {
        for dt in [dnnl_f32, dnnl_bf16] {
            for alg in [Alg::Nearest, Alg::Linear] {
                let elem = Elem::from_c(dt).unwrap();
                let ns: i64 = src_dims.iter().product();
                let x: Vec<f32> = (0..ns)
                    .map(|i| rounded(elem, ((i * 37 % 23) as f32) * 0.5 - 4.0))
                    .collect();
                let (src_md, dst_md) = (md(src_dims, dt, tag), md(dst_dims, dt, tag));
                let op = ResamplingOp::forward(
                    dnnl_forward_inference,
                    alg.to_c(),
                    None,
                    &src_md,
                    Some(&dst_md),
                    &PrimitiveAttr::default(),
                )
                .unwrap();
                let src = memory(&engine, &src_md, &x);
                let dst = memory(&engine, &dst_md, &[]);
                exec(
                    &engine,
                    Arc::new(op),
                    &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
                );
                let want: Vec<f64> = reads(alg, src_dims, dst_dims)
                    .iter()
                    .map(|r| r.iter().map(|&(s, w)| w * x[s] as f64).sum())
                    .collect();
                let what = format!("{src_dims:?} -> {dst_dims:?} {dt:?} {alg:?}");
                check(&read(&dst), &want, elem, &what);
            }
        }
    }
}
