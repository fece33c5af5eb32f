//! Reduction against an f64 reference: every algorithm, inner / outer /
//! several / all axes, permuted layouts, the GPU's one- and two-pass
//! geometries, types, and the descriptor rules; on the CPU engine and on
//! every OpenCL (and Level Zero) device present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::Engine;
use crate::prims::common::reduce::ocl::Geometry;
use crate::prims::common::testutil::{engine_name, engines, exec, md, memory, read, rounded};

const ALGS: [Alg; 9] = [
    Alg::Max,
    Alg::Min,
    Alg::Sum,
    Alg::Mul,
    Alg::Mean,
    Alg::NormLpMax,
    Alg::NormLpSum,
    Alg::NormLpPowerPMax,
    Alg::NormLpPowerPSum,
];

/// The reference: output values of reducing `x` (row-major `src` dims)
/// into `dst` dims.
fn reference(alg: Alg, x: &[f32], src: &[i64], dst: &[i64], p: f64, eps: f64) -> Vec<f64> {
    let outputs: i64 = dst.iter().product();
    let r = x.len() as f64 / outputs as f64;
    let mut acc = vec![f64::from(alg.init()); outputs as usize];
    for (i, &v) in x.iter().enumerate() {
        let (mut q, mut o, mut mul) = (i as i64, 0i64, 1i64);
        for d in (0..src.len()).rev() {
            let pos = q % src[d];
            q /= src[d];
            if dst[d] != 1 {
                o += pos * mul;
            }
            mul *= dst[d];
        }
        let (a, v) = (&mut acc[o as usize], f64::from(v));
        *a = match alg {
            Alg::Max => a.max(v),
            Alg::Min => a.min(v),
            Alg::Mul => *a * v,
            Alg::Sum | Alg::Mean => *a + v,
            _ => *a + v.abs().powf(p),
        };
    }
    acc.iter()
        .map(|&a| match alg {
            Alg::Mean => a / r,
            Alg::NormLpMax => a.max(eps).powf(1.0 / p),
            Alg::NormLpSum => (a + eps).powf(1.0 / p),
            Alg::NormLpPowerPMax => a.max(eps),
            Alg::NormLpPowerPSum => a + eps,
            _ => a,
        })
        .collect()
}

/// Reduces on `engine` and checks every output; returns the implementation.
#[allow(clippy::too_many_arguments)]
fn check(
    engine: &Arc<Engine>,
    alg: Alg,
    src: &MemoryDesc,
    dst: &MemoryDesc,
    p: f32,
    eps: f32,
) -> String {
    let op = Arc::new(
        ReductionOp::new(alg.to_c(), src, dst, p, eps, &PrimitiveAttr::default()).unwrap(),
    );
    let n = src.dims().iter().product::<i64>() as usize;
    let src_elem = Elem::from_c(src.data_type()).unwrap();
    let x: Vec<f32> = (0..n)
        .map(|i| {
            let u = ((i * 37 + 11) % 101) as f32 / 101.0 - 0.5;
            match (alg, src_elem.is_int()) {
                (Alg::Mul, false) => rounded(src_elem, 1.0 + 0.2 * u),
                (Alg::Mul, true) => rounded(src_elem, [1.0, 1.0, -1.0, 2.0][i % 4]),
                (_, true) => rounded(src_elem, (u * 16.0).round()),
                _ => rounded(src_elem, u * 2.0),
            }
        })
        .collect();
    let ms = memory(engine, src, &x);
    let dst_md = op.arg_md(DNNL_ARG_DST).unwrap().as_ref().clone();
    let md_ = memory(engine, &dst_md, &[]);
    let name = exec(
        engine,
        op.clone(),
        &[(DNNL_ARG_SRC, &ms), (DNNL_ARG_DST, &md_)],
    );
    let got = read(&md_);
    let want = reference(alg, &x, src.dims(), dst.dims(), p.into(), eps.into());
    let out_elem = Elem::from_c(dst.data_type()).unwrap();
    let r = n as f64 / want.len() as f64;
    for (o, (&g, &w)) in got.iter().zip(&want).enumerate() {
        // Integers saturate (and round: within one of the rounded value).
        let w = if out_elem.is_int() {
            f64::from(rounded(out_elem, w as f32))
        } else {
            w
        };
        let tol = match out_elem {
            Elem::F32 => 1e-6 * (r + 8.0) * (w.abs() + 1.0),
            Elem::F16 => 2e-3 * (w.abs() + 1.0),
            Elem::Bf16 => 1.6e-2 * (w.abs() + 1.0),
            _ => 1.0,
        };
        assert!(
            (f64::from(g) - w).abs() <= tol,
            "{} {alg:?} {:?} -> {:?} ({name}): output {o}: got {g}, want {w}",
            engine_name(engine),
            src.dims(),
            dst.dims(),
        );
    }
    name
}

#[test]
fn every_algorithm_and_axis_set() {
    let shapes: [(&[i64], &[i64], dnnl_format_tag_t); 6] = [
        (&[5, 37], &[5, 1], dnnl_ab),
        (&[37, 5], &[1, 5], dnnl_ab),
        (&[3, 4, 5, 6], &[3, 4, 1, 1], dnnl_abcd),
        (&[3, 4, 5, 6], &[3, 1, 5, 6], dnnl_acdb),
        (&[3, 4, 5], &[1, 1, 1], dnnl_abc),
        (&[2, 3, 4, 5], &[1, 3, 1, 5], dnnl_abcd),
    ];
    for engine in engines() {
        for &(s, d, tag) in &shapes {
            for alg in ALGS {
                let src = md(s, dnnl_f32, tag);
                let dst = md(d, dnnl_f32, dnnl_format_tag_any);
                check(&engine, alg, &src, &dst, 2.0, 1e-3);
            }
        }
    }
}

#[test]
fn lp_eps_through_max_or_sum() {
    // eps larger than every sum: lp_max gives eps^(1/p), lp_sum (S + eps)^(1/p).
    for engine in engines() {
        for alg in [
            Alg::NormLpMax,
            Alg::NormLpSum,
            Alg::NormLpPowerPMax,
            Alg::NormLpPowerPSum,
        ] {
            for p in [1.0, 1.5, 3.0] {
                let src = md(&[4, 9], dnnl_f32, dnnl_ab);
                let dst = md(&[4, 1], dnnl_f32, dnnl_ab);
                check(&engine, alg, &src, &dst, p, 100.0);
            }
        }
    }
}

#[test]
fn long_reductions_into_few_outputs_take_two_passes() {
    // The geometries these shapes get on a GPU: chunks, hence two passes.
    let plan = |s: &[i64], d: &[i64]| {
        let op = ReductionOp::new(
            dnnl_reduction_sum,
            &md(s, dnnl_f32, dnnl_ab),
            &md(d, dnnl_f32, dnnl_ab),
            0.0,
            0.0,
            &PrimitiveAttr::default(),
        )
        .unwrap();
        Geometry::of(op.reduce().plan())
    };
    assert!(plan(&[3, 100_000], &[3, 1]).chunks > 1);
    assert!(plan(&[20_000, 3], &[1, 3]).chunks > 1);
    assert_eq!(plan(&[4096, 64], &[4096, 1]).chunks, 1);
    for engine in engines() {
        for alg in [Alg::Max, Alg::Mean, Alg::NormLpSum] {
            for (s, d) in [
                (&[3i64, 100_000][..], &[3i64, 1][..]),
                (&[20_000, 3], &[1, 3]),
            ] {
                let src = md(s, dnnl_f32, dnnl_ab);
                let dst = md(d, dnnl_f32, dnnl_ab);
                check(&engine, alg, &src, &dst, 2.0, 0.0);
            }
        }
    }
}

#[test]
fn types() {
    let pairs = [
        (dnnl_bf16, dnnl_bf16),
        (dnnl_f16, dnnl_f32),
        (dnnl_s8, dnnl_s8),
        (dnnl_u8, dnnl_s32),
        (dnnl_s32, dnnl_f32),
        (dnnl_f32, dnnl_u8),
    ];
    for engine in engines() {
        for (s, d) in pairs {
            for alg in [Alg::Max, Alg::Sum, Alg::Mul, Alg::Mean] {
                let src = md(&[3, 7, 5], s, dnnl_abc);
                let dst = md(&[3, 1, 5], d, dnnl_abc);
                check(&engine, alg, &src, &dst, 0.0, 0.0);
            }
        }
    }
}

/// The CPU's row path (kept innermost run of stride 1, at least 16 long):
/// outer and middle axes, two reduced axes around a kept one, a run longer
/// than a piece (1024) and not a multiple of it, a run merged from two
/// kept dimensions, and other types.
#[test]
fn cpu_rows_of_kept_runs() {
    let engine = crate::prims::common::testutil::xfer::cpu_engine();
    let shapes: [(&[i64], &[i64]); 4] = [
        (&[5, 1500], &[1, 1500]),
        (&[3, 4, 5, 37], &[3, 1, 1, 37]),
        (&[4, 6, 40], &[1, 6, 40]),
        (&[2, 3, 4, 17], &[1, 3, 1, 17]),
    ];
    for (s, d) in shapes {
        let tag = [dnnl_ab, dnnl_abc, dnnl_abcd][s.len() - 2];
        for alg in ALGS {
            let src = md(s, dnnl_f32, tag);
            let dst = md(d, dnnl_f32, dnnl_format_tag_any);
            check(&engine, alg, &src, &dst, 2.0, 1e-3);
        }
        for p in [1.0, 3.0] {
            let src = md(s, dnnl_f32, tag);
            let dst = md(d, dnnl_f32, dnnl_format_tag_any);
            check(&engine, Alg::NormLpSum, &src, &dst, p, 0.0);
        }
    }
    for (sdt, ddt) in [
        (dnnl_bf16, dnnl_bf16),
        (dnnl_f16, dnnl_f32),
        (dnnl_s8, dnnl_s8),
    ] {
        for alg in [Alg::Max, Alg::Sum, Alg::Mean] {
            let src = md(&[6, 33], sdt, dnnl_ab);
            let dst = md(&[1, 33], ddt, dnnl_ab);
            check(&engine, alg, &src, &dst, 0.0, 0.0);
        }
    }
}

#[test]
fn descriptor_rules() {
    let new = |alg, s: &[i64], d: &[i64], dt, p: f32| {
        ReductionOp::new(
            alg,
            &md(s, dt, dnnl_format_tag_any_or_plain(s.len())),
            &md(d, dnnl_f32, dnnl_format_tag_any_or_plain(d.len())),
            p,
            0.0,
            &PrimitiveAttr::default(),
        )
        .map(|_| ())
        .map_err(|e| e.status())
    };
    let invalid = Err(dnnl_invalid_arguments);
    assert_eq!(
        new(dnnl_reduction_sum, &[2, 3], &[2, 1], dnnl_f32, 0.0),
        Ok(())
    );
    assert_eq!(
        new(dnnl_reduction_sum, &[2, 3], &[2, 3], dnnl_f32, 0.0),
        invalid
    );
    assert_eq!(
        new(dnnl_reduction_sum, &[1, 1], &[1, 1], dnnl_f32, 0.0),
        invalid
    );
    assert_eq!(
        new(dnnl_reduction_sum, &[2, 3], &[2, 2], dnnl_f32, 0.0),
        invalid
    );
    assert_eq!(
        new(dnnl_reduction_sum, &[2, 3], &[2], dnnl_f32, 0.0),
        invalid
    );
    assert_eq!(
        new(dnnl_eltwise_relu, &[2, 3], &[2, 1], dnnl_f32, 0.0),
        invalid
    );
    assert_eq!(
        new(dnnl_reduction_norm_lp_max, &[2, 3], &[2, 1], dnnl_f32, 0.5),
        invalid
    );
    assert_eq!(
        new(
            dnnl_reduction_norm_lp_sum,
            &[2, 3],
            &[2, 1],
            dnnl_f32,
            f32::INFINITY
        ),
        invalid
    );
    assert_eq!(
        new(dnnl_reduction_norm_lp_sum, &[2, 3], &[2, 1], dnnl_s8, 2.0),
        invalid
    );
    assert_eq!(
        new(dnnl_reduction_sum, &[2, 3], &[2, 1], dnnl_s8, 0.5),
        Ok(())
    );
}

/// The plain tag of `n` dimensions.
fn dnnl_format_tag_any_or_plain(n: usize) -> dnnl_format_tag_t {
    [dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd][n - 1]
}
