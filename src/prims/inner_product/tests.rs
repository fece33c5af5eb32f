//! Inner product against an f64 reference, forward, backward data and
//! backward weights, 2-D and 4-D sources in two layouts, with and without
//! bias, f32 and bf16, on the CPU engine and every OpenCL device present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::prims::common::testutil::gemm::{check, exec, md, mds, memory, read, values};
use crate::prims::common::testutil::{engine_name, engines};

fn nel(dims: &[i64]) -> usize {
    dims.iter().product::<i64>() as usize
}

/// `nhwc`-like strides for `dims` (channels innermost).
fn channels_last(dims: &[i64], dt: dnnl_data_type_t) -> MemoryDesc {
    let n = dims.len();
    let mut strides = vec![0i64; n];
    let mut s = 1;
    strides[1] = s;
    s *= dims[1];
    for d in (2..n).rev() {
        strides[d] = s;
        s *= dims[d];
    }
    strides[0] = s;
    mds(dims, dt, &strides)
}

struct Shapes {
    src: MemoryDesc,
    wei: MemoryDesc,
}

fn shapes(dims: &[i64], oc: i64, dt: dnnl_data_type_t, last: bool) -> Shapes {
    let mut wd = dims.to_vec();
    wd[0] = oc;
    if last {
        Shapes {
            src: channels_last(dims, dt),
            wei: channels_last(&wd, dt),
        }
    } else {
        Shapes {
            src: md(dims, dt),
            wei: md(&wd, dt),
        }
    }
}

#[test]
fn forward_backward_data_and_weights() {
    let cases: [(&[i64], i64, dnnl_data_type_t, bool); 3] = [
        (&[7, 33], 65, dnnl_f32, false),
        (&[3, 5, 4, 3], 9, dnnl_f32, false),
        (&[3, 5, 4, 3], 1, dnnl_bf16, true),
    ];
    for engine in engines() {
        let ename = engine_name(&engine);
        for &(dims, oc, dt, last) in &cases {
            let sh = shapes(dims, oc, dt, last);
            let (n, k) = (dims[0], nel(&dims[1..]) as i64);
            let elem = Elem::from_c(dt).unwrap();
            let what = format!("{dims:?} oc {oc} dt {} last {last} on {ename}", dt.0);
            let x = values(nel(dims), 1);
            let w = values(nel(sh.wei.dims()), 2);
            let bias = values(oc as usize, 3);
            let dd = values((n * oc) as usize, 4);
            // Flattened logical views.
            let xf = |i: i64, kk: i64| f64::from(x[(i * k + kk) as usize]);
            let wf = |o: i64, kk: i64| f64::from(w[(o * k + kk) as usize]);
            let ddf = |i: i64, o: i64| f64::from(dd[(i * oc + o) as usize]);

            for with_bias in [false, true] {
                let dst = md(&[n, oc], dt);
                let bmd = md(&[oc], dnnl_f32);
                let b = with_bias.then_some(&bmd);
                let op = Arc::new(
                    InnerProductOp::forward(
                        dnnl_forward_training,
                        &sh.src,
                        &sh.wei,
                        b,
                        &dst,
                        &PrimitiveAttr::default(),
                    )
                    .unwrap(),
                );
                let sm = memory(&engine, &sh.src, &x);
                let wm = memory(&engine, &sh.wei, &w);
                let dm = memory(&engine, &dst, &vec![0.0; (n * oc) as usize]);
                let bm = memory(&engine, &bmd, &bias);
                let mut args = vec![
                    (DNNL_ARG_SRC, &sm),
                    (DNNL_ARG_WEIGHTS, &wm),
                    (DNNL_ARG_DST, &dm),
                ];
                if with_bias {
                    args.push((DNNL_ARG_BIAS, &bm));
                }
                exec(&engine, op.clone(), &args).unwrap();
                let (mut want, mut mag) = (Vec::new(), Vec::new());
                for i in 0..n {
                    for o in 0..oc {
                        let b = if with_bias {
                            f64::from(bias[o as usize])
                        } else {
                            0.0
                        };
                        want.push((0..k).map(|kk| xf(i, kk) * wf(o, kk)).sum::<f64>() + b);
                        mag.push(
                            (0..k).map(|kk| (xf(i, kk) * wf(o, kk)).abs()).sum::<f64>() + b.abs(),
                        );
                    }
                }
                check(
                    &read(&dm),
                    &want,
                    &mag,
                    elem,
                    &format!("forward {what} bias {with_bias}"),
                );
            }

            // Backward data.
            let dst = md(&[n, oc], dt);
            let op = Arc::new(InnerProductOp::backward_data(&sh.src, &sh.wei, &dst).unwrap());
            let dsm = memory(&engine, &sh.src, &vec![0.0; nel(dims)]);
            let wm = memory(&engine, &sh.wei, &w);
            let ddm = memory(&engine, &dst, &dd);
            let args = [
                (DNNL_ARG_DIFF_SRC, &dsm),
                (DNNL_ARG_WEIGHTS, &wm),
                (DNNL_ARG_DIFF_DST, &ddm),
            ];
            exec(&engine, op.clone(), &args).unwrap();
            let (mut want, mut mag) = (Vec::new(), Vec::new());
            for i in 0..n {
                for kk in 0..k {
                    want.push((0..oc).map(|o| ddf(i, o) * wf(o, kk)).sum::<f64>());
                    mag.push((0..oc).map(|o| (ddf(i, o) * wf(o, kk)).abs()).sum::<f64>());
                }
            }
            check(
                &read(&dsm),
                &want,
                &mag,
                elem,
                &format!("backward data {what}"),
            );

            // Backward weights, with and without the bias gradient.
            for with_bias in [false, true] {
                let bmd = md(&[oc], dt);
                let b = with_bias.then_some(&bmd);
                let op =
                    Arc::new(InnerProductOp::backward_weights(&sh.src, &sh.wei, b, &dst).unwrap());
                let sm = memory(&engine, &sh.src, &x);
                let dwm = memory(&engine, &sh.wei, &vec![0.0; nel(sh.wei.dims())]);
                let dbm = memory(&engine, &bmd, &vec![0.0; oc as usize]);
                let mut args = vec![
                    (DNNL_ARG_SRC, &sm),
                    (DNNL_ARG_DIFF_WEIGHTS, &dwm),
                    (DNNL_ARG_DIFF_DST, &ddm),
                ];
                if with_bias {
                    args.push((DNNL_ARG_DIFF_BIAS, &dbm));
                }
                exec(&engine, op.clone(), &args).unwrap();
                let (mut want, mut mag) = (Vec::new(), Vec::new());
                for o in 0..oc {
                    for kk in 0..k {
                        want.push((0..n).map(|i| ddf(i, o) * xf(i, kk)).sum::<f64>());
                        mag.push((0..n).map(|i| (ddf(i, o) * xf(i, kk)).abs()).sum::<f64>());
                    }
                }
                check(
                    &read(&dwm),
                    &want,
                    &mag,
                    elem,
                    &format!("backward weights {what}"),
                );
                if with_bias {
                    let want: Vec<f64> = (0..oc).map(|o| (0..n).map(|i| ddf(i, o)).sum()).collect();
                    let mag: Vec<f64> = (0..oc)
                        .map(|o| (0..n).map(|i| ddf(i, o).abs()).sum())
                        .collect();
                    check(&read(&dbm), &want, &mag, elem, &format!("diff bias {what}"));
                }
            }
        }
    }
}

#[test]
fn format_any_follows_the_source() {
    let f = dnnl_f32;
    let any = |dims: &[i64]| MemoryDesc::with_tag(dims, f, dnnl_format_tag_any).unwrap();
    let src = channels_last(&[2, 3, 4, 5], f);
    let op = InnerProductOp::forward(
        dnnl_forward_inference,
        &src,
        &any(&[6, 3, 4, 5]),
        None,
        &any(&[2, 6]),
        &PrimitiveAttr::default(),
    )
    .unwrap();
    assert_eq!(
        **op.arg_md(DNNL_ARG_WEIGHTS).unwrap(),
        channels_last(&[6, 3, 4, 5], f)
    );
    assert_eq!(**op.arg_md(DNNL_ARG_DST).unwrap(), md(&[2, 6], f));
    assert!(op.arg_md(DNNL_ARG_BIAS).is_none());
    assert_eq!(op.prop_kind(), dnnl_forward_inference);
    assert_eq!(op.verbose_problem(), "mb2ic3ih4iw5oc6");
    let op = InnerProductOp::backward_data(&any(&[2, 3, 4, 5]), &any(&[6, 3, 4, 5]), &any(&[2, 6]))
        .unwrap();
    assert_eq!(
        **op.arg_md(DNNL_ARG_DIFF_SRC).unwrap(),
        md(&[2, 3, 4, 5], f)
    );
    assert_eq!(op.inputs(), vec![DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS]);
    assert_eq!(op.outputs(), vec![DNNL_ARG_DIFF_SRC]);
}

#[test]
fn descriptor_checks() {
    let f = dnnl_f32;
    let status = |r: Result<InnerProductOp>| r.err().map(|e| e.status());
    let fwd = |s: &MemoryDesc, w: &MemoryDesc, b: Option<&MemoryDesc>, d: &MemoryDesc| {
        InnerProductOp::forward(dnnl_forward_training, s, w, b, d, &PrimitiveAttr::default())
    };
    let inv = Some(dnnl_invalid_arguments);
    let unimp = Some(dnnl_unimplemented);
    // Shapes.
    assert_eq!(
        status(fwd(&md(&[2, 3], f), &md(&[4, 5], f), None, &md(&[2, 4], f))),
        inv
    );
    assert_eq!(
        status(fwd(&md(&[2, 3], f), &md(&[4, 3], f), None, &md(&[2, 5], f))),
        inv
    );
    assert_eq!(
        status(fwd(
            &md(&[2, 3], f),
            &md(&[4, 3], f),
            Some(&md(&[5], f)),
            &md(&[2, 4], f)
        )),
        inv
    );
    assert_eq!(
        status(fwd(&md(&[2], f), &md(&[4], f), None, &md(&[2, 4], f))),
        inv
    );
    // Prop kind.
    assert_eq!(
        status(InnerProductOp::forward(
            dnnl_backward_data,
            &md(&[2, 3], f),
            &md(&[4, 3], f),
            None,
            &md(&[2, 4], f),
            &PrimitiveAttr::default()
        )),
        inv
    );
    // Weights in another order than the source: unimplemented.
    assert_eq!(
        status(fwd(
            &md(&[2, 3, 4, 5], f),
            &channels_last(&[6, 3, 4, 5], f),
            None,
            &md(&[2, 6], f)
        )),
        unimp
    );
    // Int8: u8/s8 x s8 to f32 (and the rest); u8 weights and an f16 dst
    // unimplemented, s32 weights invalid (all as upstream).
    assert!(
        fwd(
            &md(&[2, 3], dnnl_u8),
            &md(&[4, 3], dnnl_s8),
            Some(&md(&[4], dnnl_s32)),
            &md(&[2, 4], f)
        )
        .is_ok()
    );
    assert_eq!(
        status(fwd(
            &md(&[2, 3], dnnl_u8),
            &md(&[4, 3], dnnl_u8),
            None,
            &md(&[2, 4], f)
        )),
        unimp
    );
    assert_eq!(
        status(fwd(
            &md(&[2, 3], dnnl_u8),
            &md(&[4, 3], dnnl_s8),
            None,
            &md(&[2, 4], dnnl_f16)
        )),
        unimp
    );
    assert_eq!(
        status(fwd(
            &md(&[2, 3], dnnl_s8),
            &md(&[4, 3], dnnl_s32),
            None,
            &md(&[2, 4], f)
        )),
        inv
    );
}

#[test]
fn forward_post_ops() {
    use crate::core::attr::PostOp;
    let f = dnnl_f32;
    let (n, k, oc) = (5i64, 7i64, 6i64);
    for engine in engines() {
        let mut attr = PrimitiveAttr::default();
        attr.post_ops
            .append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))
            .unwrap();
        let (src, wei, dst) = (md(&[n, k], f), md(&[oc, k], f), md(&[n, oc], f));
        let op = Arc::new(
            InnerProductOp::forward(dnnl_forward_inference, &src, &wei, None, &dst, &attr).unwrap(),
        );
        let x = values((n * k) as usize, 1);
        let w = values((oc * k) as usize, 2);
        let sm = memory(&engine, &src, &x);
        let wm = memory(&engine, &wei, &w);
        let dm = memory(&engine, &dst, &vec![0.0; (n * oc) as usize]);
        let args = [
            (DNNL_ARG_SRC, &sm),
            (DNNL_ARG_WEIGHTS, &wm),
            (DNNL_ARG_DST, &dm),
        ];
        exec(&engine, op.clone(), &args).unwrap();
        let (mut want, mut mag) = (Vec::new(), Vec::new());
        for i in 0..n {
            for o in 0..oc {
                let terms = (0..k).map(|kk| {
                    f64::from(x[(i * k + kk) as usize]) * f64::from(w[(o * k + kk) as usize])
                });
                want.push(terms.clone().sum::<f64>().max(0.0));
                mag.push(terms.map(f64::abs).sum::<f64>());
            }
        }
        check(&read(&dm), &want, &mag, Elem::F32, "forward post-ops");
    }
}
