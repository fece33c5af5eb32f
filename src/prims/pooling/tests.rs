//! Pooling against an f64 reference: every algorithm, forward (with the
//! workspace) and backward through the workspace, 1D/2D/3D, strides,
//! dilations, asymmetric padding, blocked layouts with padding, mixed
//! types, post-ops, and the descriptor rules, on the CPU engine and on
//! every OpenCL and Level Zero device present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::attr::PostOps;
use crate::prims::common::testutil::{
    TestMem, engine_name, engines, exec, indices, md, memory, read, rounded,
};

/// A case: shapes, window and layouts.
struct Case {
    src: Vec<i64>,
    k: Vec<i64>,
    s: Vec<i64>,
    dil: Vec<i64>,
    pl: Vec<i64>,
    pr: Vec<i64>,
    tag_src: dnnl_format_tag_t,
    tag_dst: dnnl_format_tag_t,
}

impl Case {
    fn dst(&self) -> Vec<i64> {
        let mut d = self.src.clone();
        for x in 0..self.k.len() {
            let range = (self.k[x] - 1) * (self.dil[x] + 1) + 1;
            d[2 + x] = (self.src[2 + x] - range + self.pl[x] + self.pr[x]) / self.s[x] + 1;
        }
        d
    }

    fn window(&self) -> Window<'_> {
        Window {
            strides: &self.s,
            kernel: &self.k,
            dilation: Some(&self.dil),
            padding_l: &self.pl,
            padding_r: Some(&self.pr),
        }
    }
}

/// Distinct values (no ties inside a window, so the max is unique).
fn distinct(n: usize, seed: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..n)
        .map(|i| ((i * 7919 + seed * 31) % 1009) as f32 / 8.0 - 60.0)
        .collect();
    // Make them distinct: the map above repeats only past 1009 elements.
    for (i, x) in v.iter_mut().enumerate() {
        *x += (i / 1009) as f32 * 0.0625;
    }
    v
}

fn flat(dims: &[i64], idx: &[i64]) -> usize {
    let mut f = 0;
    for d in 0..dims.len() {
        f = f * dims[d] + idx[d];
    }
    f as usize
}

/// The taps of output position `o` along spatial dimension `x`: (k, input
/// position) inside the source.
fn taps(c: &Case, x: usize, o: i64) -> Vec<(i64, i64)> {
    (0..c.k[x])
        .map(|k| (k, o * c.s[x] + k * (c.dil[x] + 1) - c.pl[x]))
        .filter(|&(_, i)| (0..c.src[2 + x]).contains(&i))
        .collect()
}

/// Forward reference: dst values and, for max, the window index of the max.
fn fwd_ref(c: &Case, alg: Alg, src: &[f32]) -> (Vec<f64>, Vec<i64>) {
    let dst = c.dst();
    let nsp = c.k.len();
    let mut out = Vec::new();
    let mut ws = Vec::new();
    for idx in indices(&dst) {
        let idx = &idx[..dst.len()];
        // Every combination of taps.
        let mut combos: Vec<(i64, Vec<i64>)> = vec![(0, idx[..2].to_vec())];
        let mut inside_all = true;
        for x in 0..nsp {
            let t = taps(c, x, idx[2 + x]);
            inside_all &= !t.is_empty();
            let mut next = Vec::new();
            for (kk, pos) in &combos {
                for &(k, i) in &t {
                    let mut p = pos.clone();
                    p.push(i);
                    next.push((kk * c.k[x] + k, p));
                }
            }
            combos = next;
        }
        let window: i64 = c.k.iter().product();
        match alg {
            Alg::Max => {
                let mut best = (f64::from(f32::MIN), 0);
                for (k, p) in &combos {
                    let v = f64::from(src[flat(&c.src, p)]);
                    if v > best.0 {
                        best = (v, *k);
                    }
                }
                out.push(best.0);
                ws.push(best.1);
            }
            _ => {
                let sum: f64 = combos
                    .iter()
                    .map(|(_, p)| f64::from(src[flat(&c.src, p)]))
                    .sum();
                let div = if alg == Alg::AvgExcludePadding {
                    assert!(inside_all);
                    combos.len() as f64
                } else {
                    window as f64
                };
                out.push(sum / div);
            }
        }
    }
    (out, ws)
}

/// Backward reference: diff_src from diff_dst (max through the forward's
/// arg max).
fn bwd_ref(c: &Case, alg: Alg, src: &[f32], dd: &[f32]) -> Vec<f64> {
    let dst = c.dst();
    let nsp = c.k.len();
    let (_, ws) = fwd_ref(c, alg, src);
    let mut ds = vec![0f64; src.len()];
    let window: i64 = c.k.iter().product();
    for (o, idx) in indices(&dst).iter().enumerate() {
        let idx = &idx[..dst.len()];
        let mut combos: Vec<(i64, Vec<i64>)> = vec![(0, idx[..2].to_vec())];
        for x in 0..nsp {
            let t = taps(c, x, idx[2 + x]);
            let mut next = Vec::new();
            for (kk, pos) in &combos {
                for &(k, i) in &t {
                    let mut p = pos.clone();
                    p.push(i);
                    next.push((kk * c.k[x] + k, p));
                }
            }
            combos = next;
        }
        let g = f64::from(dd[o]);
        match alg {
            Alg::Max => {
                if let Some((_, p)) = combos.iter().find(|(k, _)| *k == ws[o]) {
                    ds[flat(&c.src, p)] += g;
                }
            }
            Alg::AvgIncludePadding => {
                for (_, p) in &combos {
                    ds[flat(&c.src, p)] += g / window as f64;
                }
            }
            Alg::AvgExcludePadding => {
                let n = combos.len() as f64;
                for (_, p) in &combos {
                    ds[flat(&c.src, p)] += g / n;
                }
            }
        }
    }
    ds
}

fn check(got: &[f32], want: &[f64], elem: Elem, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let r = f64::from(rounded(elem, w as f32));
        let tol = match elem {
            Elem::F32 => 1e-5 * w.abs().max(1.0),
            Elem::F16 | Elem::Bf16 => 1e-2 * w.abs().max(1.0),
            _ => 0.0,
        };
        assert!(
            (f64::from(g) - r).abs() <= tol,
            "{what}: element {i}: got {g}, want {w} ({r} rounded)"
        );
    }
}

fn cases() -> Vec<Case> {
    let c = |src: &[i64], k: &[i64], s: &[i64], dil: &[i64], pl: &[i64], pr: &[i64], ts, td| Case {
        src: src.to_vec(),
        k: k.to_vec(),
        s: s.to_vec(),
        dil: dil.to_vec(),
        pl: pl.to_vec(),
        pr: pr.to_vec(),
        tag_src: ts,
        tag_dst: td,
    };
    vec![
        c(&[2, 3, 9], &[3], &[2], &[0], &[1], &[1], dnnl_abc, dnnl_abc),
        c(
            &[1, 5, 7, 6],
            &[2, 3],
            &[2, 1],
            &[0, 1],
            &[1, 0],
            &[0, 2],
            dnnl_abcd,
            dnnl_abcd,
        ),
        c(
            &[2, 4, 6, 5],
            &[3, 3],
            &[1, 2],
            &[0, 0],
            &[1, 1],
            &[1, 0],
            dnnl_acdb,
            dnnl_acdb,
        ),
        c(
            &[1, 19, 5, 5],
            &[2, 2],
            &[2, 2],
            &[0, 0],
            &[0, 0],
            &[1, 1],
            dnnl_aBcd16b,
            dnnl_aBcd16b,
        ),
        c(
            &[1, 3, 5, 4, 6],
            &[2, 2, 3],
            &[2, 1, 2],
            &[0, 1, 0],
            &[1, 0, 1],
            &[0, 0, 1],
            dnnl_abcde,
            dnnl_acdeb,
        ),
    ]
}

#[test]
fn forward_and_backward_match_the_reference() {
    for engine in engines() {
        let name = engine_name(&engine);
        for (ci, case) in cases().iter().enumerate() {
            let dst_dims = case.dst();
            for alg in [Alg::Max, Alg::AvgIncludePadding, Alg::AvgExcludePadding] {
                let what = format!("{name}: case {ci} {alg:?}");
                let src_md = md(&case.src, dnnl_f32, case.tag_src);
                let dst_md = md(&dst_dims, dnnl_f32, case.tag_dst);
                let nsrc = case.src.iter().product::<i64>() as usize;
                let ndst = dst_dims.iter().product::<i64>() as usize;
                let x = distinct(nsrc, ci);
                let attr = PrimitiveAttr::default();
                let op = PoolingOp::forward(
                    dnnl_forward_training,
                    alg.to_c(),
                    &src_md,
                    &dst_md,
                    case.window(),
                    &attr,
                )
                .unwrap();
                let fwd = Arc::new(op);
                let src = memory(&engine, &src_md, &x);
                let dst = memory(&engine, &dst_md, &vec![0.0; ndst]);
                let ws = fwd
                    .workspace()
                    .map(|w| memory(&engine, w, &vec![0.0; ndst]));
                let mut args: Vec<(i32, &TestMem)> =
                    vec![(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)];
                if let Some(w) = &ws {
                    args.push((DNNL_ARG_WORKSPACE, w));
                }
                exec(&engine, fwd.clone(), &args);
                let (want, _) = fwd_ref(case, alg, &x);
                check(&read(&dst), &want, Elem::F32, &format!("{what} forward"));

                // Backward.
                let dd = distinct(ndst, ci + 7);
                let op = PoolingOp::backward(
                    alg.to_c(),
                    &md(&case.src, dnnl_f32, case.tag_src),
                    &md(&dst_dims, dnnl_f32, case.tag_dst),
                    case.window(),
                    Some(&fwd),
                    &attr,
                )
                .unwrap();
                let diff_dst = memory(&engine, &dst_md, &dd);
                let diff_src = memory(&engine, &src_md, &vec![0.0; nsrc]);
                let mut args: Vec<(i32, &TestMem)> = vec![
                    (DNNL_ARG_DIFF_DST, &diff_dst),
                    (DNNL_ARG_DIFF_SRC, &diff_src),
                ];
                if let Some(w) = &ws {
                    args.push((DNNL_ARG_WORKSPACE, w));
                }
                exec(&engine, Arc::new(op), &args);
                let want = bwd_ref(case, alg, &x, &dd);
                check(
                    &read(&diff_src),
                    &want,
                    Elem::F32,
                    &format!("{what} backward"),
                );
            }
        }
    }
}

/// Forward inference (max without a workspace: the CPU row path's plain
/// select) over every case: strides, dilations, asymmetric padding, 1D to
/// 3D, channels-last; f32 and bf16.
#[test]
fn inference_forward_without_workspace() {
    for engine in engines() {
        let name = engine_name(&engine);
        for (ci, case) in cases().iter().enumerate() {
            let dst_dims = case.dst();
            for (dt, elem) in [(dnnl_f32, Elem::F32), (dnnl_bf16, Elem::Bf16)] {
                for alg in [Alg::Max, Alg::AvgIncludePadding, Alg::AvgExcludePadding] {
                    let what = format!("{name}: case {ci} {alg:?} {dt:?} inference");
                    let src_md = md(&case.src, dt, case.tag_src);
                    let dst_md = md(&dst_dims, dt, case.tag_dst);
                    let nsrc = case.src.iter().product::<i64>() as usize;
                    let x: Vec<f32> = distinct(nsrc, ci)
                        .iter()
                        .map(|&v| rounded(elem, v))
                        .collect();
                    let op = PoolingOp::forward(
                        dnnl_forward_inference,
                        alg.to_c(),
                        &src_md,
                        &dst_md,
                        case.window(),
                        &PrimitiveAttr::default(),
                    )
                    .unwrap();
                    assert!(op.workspace().is_none(), "{what}: a workspace");
                    let src = memory(&engine, &src_md, &x);
                    let dst = memory(&engine, &dst_md, &[]);
                    exec(
                        &engine,
                        Arc::new(op),
                        &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
                    );
                    let (want, _) = fwd_ref(case, alg, &x);
                    check(&read(&dst), &want, elem, &what);
                }
            }
        }
    }
}

#[test]
fn types_and_post_ops() {
    let case = &cases()[1];
    let dst_dims = case.dst();
    let nsrc = case.src.iter().product::<i64>() as usize;
    let x: Vec<f32> = distinct(nsrc, 3)
        .iter()
        .map(|v| (v * 2.0).round())
        .collect();
    let mut attr = PrimitiveAttr::default();
    let mut post = PostOps::default();
    post.append(|| {
        Ok(PostOp::Eltwise {
            alg: dnnl_eltwise_linear,
            alpha: 0.5,
            beta: 1.0,
        })
    })
    .unwrap();
    attr.post_ops = post;
    for engine in engines() {
        let name = engine_name(&engine);
        for (sdt, ddt, se, de) in [
            (dnnl_s8, dnnl_u8, Elem::S8, Elem::U8),
            (dnnl_bf16, dnnl_f16, Elem::Bf16, Elem::F16),
            (dnnl_s32, dnnl_f32, Elem::S32, Elem::F32),
        ] {
            for alg in [Alg::Max, Alg::AvgExcludePadding] {
                let src_md = md(&case.src, sdt, dnnl_acdb);
                let dst_md = md(&dst_dims, ddt, dnnl_format_tag_any);
                let xs: Vec<f32> = x.iter().map(|&v| rounded(se, v)).collect();
                let op = PoolingOp::forward(
                    dnnl_forward_inference,
                    alg.to_c(),
                    &src_md,
                    &dst_md,
                    case.window(),
                    &attr,
                )
                .unwrap();
                assert!(op.workspace().is_none());
                let resolved = op.arg_md(DNNL_ARG_DST).unwrap().clone();
                assert_eq!(
                    *resolved,
                    md(&dst_dims, ddt, dnnl_acdb),
                    "any takes src's layout"
                );
                let src = memory(&engine, &src_md, &xs);
                let dst = memory(&engine, &resolved, &vec![0.0; resolved.nelems() as usize]);
                exec(
                    &engine,
                    Arc::new(op),
                    &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
                );
                let (want, _) = fwd_ref(case, alg, &xs);
                let want: Vec<f64> = want.iter().map(|v| v * 0.5 + 1.0).collect();
                check(
                    &read(&dst),
                    &want,
                    de,
                    &format!("{name}: {sdt:?}->{ddt:?} {alg:?}"),
                );
            }
        }
    }
}

#[test]
fn descriptor_rules() {
    let attr = PrimitiveAttr::default();
    let src = md(&[2, 3, 8, 8], dnnl_f32, dnnl_abcd);
    let dst = md(&[2, 3, 4, 4], dnnl_f32, dnnl_abcd);
    let w = |pr: &'static [i64]| Window {
        strides: &[2, 2],
        kernel: &[2, 2],
        dilation: None,
        padding_l: &[0, 0],
        padding_r: Some(pr),
    };
    let fwd =
        |prop, alg, dst: &MemoryDesc, win| PoolingOp::forward(prop, alg, &src, dst, win, &attr);
    let status = |r: Result<PoolingOp>| r.err().map(|e| e.status());
    let ws = fwd(dnnl_forward_training, dnnl_pooling_max, &dst, w(&[0, 0])).unwrap();
    assert_eq!(ws.workspace().unwrap().data_type(), dnnl_u8);
    assert!(
        fwd(dnnl_forward_inference, dnnl_pooling_max, &dst, w(&[0, 0]))
            .unwrap()
            .workspace()
            .is_none()
    );
    // Output size, padding_r down to minus the stride.
    let d3 = md(&[2, 3, 3, 3], dnnl_f32, dnnl_abcd);
    assert!(fwd(dnnl_forward_training, dnnl_pooling_max, &d3, w(&[-2, -2])).is_ok());
    assert_eq!(
        status(fwd(
            dnnl_forward_training,
            dnnl_pooling_max,
            &dst,
            w(&[2, 2])
        )),
        Some(dnnl_invalid_arguments)
    );
    let d2 = md(&[2, 3, 2, 2], dnnl_f32, dnnl_abcd);
    assert_eq!(
        status(fwd(
            dnnl_forward_training,
            dnnl_pooling_max,
            &d2,
            w(&[-3, -3])
        )),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(fwd(dnnl_backward_data, dnnl_pooling_max, &dst, w(&[0, 0]))),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(fwd(
            dnnl_forward_training,
            dnnl_eltwise_relu,
            &dst,
            w(&[0, 0])
        )),
        Some(dnnl_invalid_arguments)
    );
    // Max backward needs the training hint's workspace.
    let bwd = |hint: Option<&PoolingOp>| {
        PoolingOp::backward(dnnl_pooling_max, &src, &dst, w(&[0, 0]), hint, &attr)
    };
    assert!(bwd(Some(&ws)).is_ok());
    assert_eq!(status(bwd(None)), Some(dnnl_unimplemented));
    let inference = fwd(dnnl_forward_inference, dnnl_pooling_max, &dst, w(&[0, 0])).unwrap();
    assert_eq!(status(bwd(Some(&inference))), Some(dnnl_unimplemented));
    // A window of more than 255 positions: an s32 workspace.
    let big = PoolingOp::forward(
        dnnl_forward_training,
        dnnl_pooling_max,
        &md(&[1, 1, 16, 17], dnnl_f32, dnnl_abcd),
        &md(&[1, 1, 1, 1], dnnl_f32, dnnl_abcd),
        Window {
            strides: &[1, 1],
            kernel: &[16, 17],
            dilation: None,
            padding_l: &[0, 0],
            padding_r: None,
        },
        &attr,
    )
    .unwrap();
    assert_eq!(big.workspace().unwrap().data_type(), dnnl_s32);
}
