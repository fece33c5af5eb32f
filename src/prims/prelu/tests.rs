//! PReLU against an f64 reference: forward and backward with scalar, per
//! channel, whole-tensor and shared-axes weights, a permuted layout, and a
//! long tensor with scalar weights (two reduction passes on a GPU); on the
//! CPU engine and on every OpenCL (and Level Zero) device present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::Engine;
use crate::prims::common::testutil::{engine_name, engines, exec, md, memory, read, rounded};

/// Row-major index of the weights element broadcast to src element `i`.
fn wei_index(src: &[i64], wei: &[i64], mut i: i64) -> usize {
    let (mut w, mut mul) = (0, 1);
    for d in (0..src.len()).rev() {
        let pos = i % src[d];
        i /= src[d];
        if wei[d] != 1 {
            w += pos * mul;
        }
        mul *= wei[d];
    }
    w as usize
}

fn check(engine: &Arc<Engine>, src: &[i64], wei: &[i64], tag: dnnl_format_tag_t) {
    check_dt(engine, src, wei, tag, dnnl_f32);
}

/// `check` with every tensor of type `dt` (the results rounded to it).
fn check_dt(
    engine: &Arc<Engine>,
    src: &[i64],
    wei: &[i64],
    tag: dnnl_format_tag_t,
    dt: dnnl_data_type_t,
) {
    let elem = Elem::from_c(dt).unwrap();
    let smd = md(src, dt, tag);
    let wmd = md(wei, dt, dnnl_format_tag_any);
    let n = src.iter().product::<i64>() as usize;
    let nw = wei.iter().product::<i64>() as usize;
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.125)
        .collect();
    let g: Vec<f32> = (0..n).map(|i| ((i * 13 % 7) as f32 - 3.0) * 0.5).collect();
    let w: Vec<f32> = (0..nw).map(|i| 0.25 + (i % 5) as f32 * 0.125).collect();
    let attr = PrimitiveAttr::default();
    let fwd = Arc::new(PreluOp::forward(dnnl_forward_training, &smd, &wmd, &smd, &attr).unwrap());
    let real_w = fwd.arg_md(DNNL_ARG_WEIGHTS).unwrap().as_ref().clone();
    let (ms, mw, mo) = (
        memory(engine, &smd, &x),
        memory(engine, &real_w, &w),
        memory(engine, &smd, &[]),
    );
    exec(
        engine,
        fwd,
        &[
            (DNNL_ARG_SRC, &ms),
            (DNNL_ARG_WEIGHTS, &mw),
            (DNNL_ARG_DST, &mo),
        ],
    );
    let y = read(&mo);
    for i in 0..n {
        let k = wei_index(src, wei, i as i64);
        let want = rounded(elem, if x[i] > 0.0 { x[i] } else { x[i] * w[k] });
        assert_eq!(
            y[i],
            want,
            "{} forward {src:?} {wei:?} at {i}",
            engine_name(engine)
        );
    }
    let bwd = Arc::new(PreluOp::backward(&smd, &real_w, &smd, &real_w, &smd, &attr).unwrap());
    let (md_, mdw) = (memory(engine, &smd, &g), memory(engine, &real_w, &[]));
    exec(
        engine,
        bwd,
        &[
            (DNNL_ARG_SRC, &ms),
            (DNNL_ARG_WEIGHTS, &mw),
            (DNNL_ARG_DIFF_DST, &md_),
            (DNNL_ARG_DIFF_SRC, &mo),
            (DNNL_ARG_DIFF_WEIGHTS, &mdw),
        ],
    );
    let (ds, dw) = (read(&mo), read(&mdw));
    let mut want_w = vec![0f64; nw];
    for i in 0..n {
        let k = wei_index(src, wei, i as i64);
        let want = rounded(elem, if x[i] > 0.0 { g[i] } else { g[i] * w[k] });
        assert_eq!(
            ds[i],
            want,
            "{} diff_src {src:?} {wei:?} at {i}",
            engine_name(engine)
        );
        want_w[k] += f64::from(x[i].min(0.0) * g[i]);
    }
    for k in 0..nw {
        let rel = match elem {
            Elem::F32 => 1e-6 * (n / nw) as f64,
            _ => 8e-3,
        };
        let tol = rel * (want_w[k].abs() + 1.0);
        assert!(
            (f64::from(dw[k]) - want_w[k]).abs() <= tol,
            "{} diff_weights {src:?} {wei:?} at {k}: got {}, want {}",
            engine_name(engine),
            dw[k],
            want_w[k]
        );
    }
}

#[test]
fn every_broadcast_forward_and_backward() {
    for engine in engines() {
        check(&engine, &[2, 5, 3, 4], &[1, 1, 1, 1], dnnl_abcd);
        check(&engine, &[2, 5, 3, 4], &[1, 5, 1, 1], dnnl_abcd);
        check(&engine, &[2, 5, 3, 4], &[2, 5, 3, 4], dnnl_abcd);
        check(&engine, &[2, 5, 3, 4], &[2, 1, 3, 1], dnnl_abcd);
        check(&engine, &[2, 5, 3, 4], &[1, 5, 1, 1], dnnl_acdb);
        check(&engine, &[3, 70_001], &[1, 1], dnnl_ab);
    }
}

/// The CPU row path: rows longer than a piece (2048) and not a multiple of
/// it, odd lengths, a row of one element, merged broadcast dimensions,
/// weights varying along the run, a layout whose run is not src's
/// innermost dimension, and f16 / bf16.
#[test]
fn cpu_rows_and_pieces() {
    let engine = crate::prims::common::testutil::xfer::cpu_engine();
    check(&engine, &[3, 2, 4099], &[1, 2, 1], dnnl_abc);
    check(&engine, &[2, 3, 2049], &[1, 1, 2049], dnnl_abc);
    check(&engine, &[5, 7, 1], &[1, 7, 1], dnnl_abc);
    check(&engine, &[1, 9000], &[1, 1], dnnl_ab);
    check(&engine, &[3, 5, 7, 9], &[3, 1, 7, 1], dnnl_abcd);
    check(&engine, &[3, 5, 7, 9], &[1, 5, 1, 1], dnnl_acdb);
    check(&engine, &[2, 5, 3, 4], &[1, 5, 1, 1], dnnl_cdba);
    for dt in [dnnl_f16, dnnl_bf16] {
        check_dt(&engine, &[2, 3, 2500], &[1, 3, 1], dnnl_abc, dt);
        check_dt(&engine, &[2, 5, 3, 4], &[2, 5, 3, 4], dnnl_abcd, dt);
    }
}

#[test]
fn descriptor_rules() {
    let attr = PrimitiveAttr::default();
    let src = md(&[2, 3, 4], dnnl_f32, dnnl_abc);
    let status = |r: Result<PreluOp>| r.map(|_| ()).map_err(|e| e.status());
    let w = |d: &[i64]| md(d, dnnl_f32, dnnl_format_tag_any);
    let fwd = |wd: &MemoryDesc| PreluOp::forward(dnnl_forward_inference, &src, wd, &src, &attr);
    assert_eq!(status(fwd(&w(&[1, 3, 1]))), Ok(()));
    assert_eq!(status(fwd(&w(&[1, 2, 1]))), Err(dnnl_invalid_arguments));
    assert_eq!(status(fwd(&w(&[3, 1]))), Err(dnnl_invalid_arguments));
    assert_eq!(
        status(PreluOp::forward(
            dnnl_backward,
            &src,
            &w(&[1, 1, 1]),
            &src,
            &attr
        )),
        Err(dnnl_invalid_arguments)
    );
}
