//! Normalization against an f64 reference on every engine (the CPU engine,
//! every OpenCL device, every Level Zero device): forward with computed and
//! global statistics, the fused ReLU and its workspace, backward and
//! backward data, plain, channels-last and blocked layouts, statistics over
//! many elements (the GPU's two-level reduction) and the descriptor rules.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::Engine;
use crate::prims::common::testutil::{TestMem, engine_name, engines, exec, md, memory, read};

/// Deterministic values in about [-2, 2], shifted per channel-ish index.
fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (((i * 37 + seed * 101) % 97) as f32 - 48.0) / 24.0 + (i % 7) as f32 * 0.1)
        .collect()
}

/// The canonical `(n, c, sp)` of the logical (row-major) element `i`.
fn canon(g: &Geometry, i: i64) -> (i64, i64, i64) {
    (i / (g.c * g.sp), i / g.sp % g.c, i % g.sp)
}

struct Reference {
    mean: Vec<f64>,
    var: Vec<f64>,
    y: Vec<f64>,
}

fn forward_ref(
    op: &NormOp,
    x: &[f32],
    gamma: &[f32],
    beta: &[f32],
    stats: Option<(&[f32], &[f32])>,
) -> Reference {
    let g = op.geometry();
    let s_count = g.stats() as usize;
    let (mut mean, mut var) = (vec![0f64; s_count], vec![0f64; s_count]);
    match stats {
        Some((m, v)) => {
            mean = m.iter().map(|&a| f64::from(a)).collect();
            var = v.iter().map(|&a| f64::from(a)).collect();
        }
        None => {
            let m = g.per_stat() as f64;
            for (i, &xv) in x.iter().enumerate() {
                let (n, c, _) = canon(g, i as i64);
                mean[g.stat(n, c) as usize] += f64::from(xv) / m;
            }
            for (i, &xv) in x.iter().enumerate() {
                let (n, c, _) = canon(g, i as i64);
                let s = g.stat(n, c) as usize;
                var[s] += (f64::from(xv) - mean[s]).powi(2) / m;
            }
        }
    }
    let y = x
        .iter()
        .enumerate()
        .map(|(i, &xv)| {
            let (n, c, _) = canon(g, i as i64);
            let s = g.stat(n, c) as usize;
            let v = (f64::from(xv) - mean[s]) / (var[s] + f64::from(op.epsilon())).sqrt()
                * f64::from(gamma[c as usize])
                + f64::from(beta[c as usize]);
            match op.relu() {
                Some(a) if v <= 0.0 => v * f64::from(a),
                _ => v,
            }
        })
        .collect();
    Reference { mean, var, y }
}

fn close(got: &[f32], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(g) - w).abs() <= tol * (1.0 + w.abs()),
            "{what}[{i}]: {g} vs {w}"
        );
    }
}

/// Memory for vector argument `arg` (a plain vector where the op has none:
/// the primitive ignores it).
fn vec_mem(engine: &Arc<Engine>, op: &NormOp, arg: i32, v: &[f32]) -> TestMem {
    let plain = md(&[v.len() as i64], dnnl_f32, dnnl_a);
    memory(engine, op.arg(arg).map_or(&plain, |m| &**m), v)
}

/// Runs a batch normalization forward and its backward on every engine and
/// compares them with the reference.
fn batch_case(dims: &[i64], tag: dnnl_format_tag_t, flags: u32) {
    let src_md = md(dims, dnnl_f32, tag);
    let total: i64 = dims.iter().product();
    let x = values(total as usize, 1);
    let dd = values(total as usize, 2);
    let c = dims[1] as usize;
    let gamma: Vec<f32> = (0..c).map(|i| 0.5 + i as f32 * 0.25).collect();
    let beta: Vec<f32> = (0..c).map(|i| i as f32 * 0.1 - 0.2).collect();
    let global_mean: Vec<f32> = (0..c).map(|i| i as f32 * 0.05).collect();
    let global_var: Vec<f32> = (0..c).map(|i| 0.5 + i as f32 * 0.1).collect();
    let attr = PrimitiveAttr::default();
    for engine in engines() {
        let name = engine_name(&engine);
        let fwd = Arc::new(
            BatchNormOp::forward(dnnl_forward_training, &src_md, &src_md, 1e-3, flags, &attr)
                .unwrap(),
        );
        let global = flags & USE_GLOBAL_STATS != 0;
        let src = memory(&engine, &src_md, &x);
        let dst = memory(&engine, &src_md, &vec![0.0; total as usize]);
        let (mean0, var0) = if global {
            (global_mean.clone(), global_var.clone())
        } else {
            (vec![0.0; c], vec![0.0; c])
        };
        let mean = vec_mem(&engine, &fwd, DNNL_ARG_MEAN, &mean0);
        let var = vec_mem(&engine, &fwd, DNNL_ARG_VARIANCE, &var0);
        let scale = vec_mem(&engine, &fwd, DNNL_ARG_SCALE, &gamma);
        let shift = vec_mem(&engine, &fwd, DNNL_ARG_SHIFT, &beta);
        let ws = fwd
            .arg(DNNL_ARG_WORKSPACE)
            .map(|m| memory(&engine, m, &vec![0.0; total as usize]));
        let mut args = vec![
            (DNNL_ARG_SRC, &src),
            (DNNL_ARG_DST, &dst),
            (DNNL_ARG_MEAN, &mean),
            (DNNL_ARG_VARIANCE, &var),
            (DNNL_ARG_SCALE, &scale),
            (DNNL_ARG_SHIFT, &shift),
        ];
        if let Some(w) = &ws {
            args.push((DNNL_ARG_WORKSPACE, w));
        }
        exec(&engine, fwd.clone(), &args);
        let ones = vec![1.0; c];
        let zeros = vec![0.0; c];
        let (gm, bt) = (
            if flags & USE_SCALE != 0 {
                &gamma
            } else {
                &ones
            },
            if flags & USE_SHIFT != 0 {
                &beta
            } else {
                &zeros
            },
        );
        let stats = global.then_some((&global_mean[..], &global_var[..]));
        let r = forward_ref(&fwd, &x, gm, bt, stats);
        let what = format!("{name} {dims:?} {tag:?} flags {flags:#x}");
        close(&read(&dst), &r.y, 3e-5, &format!("{what}: dst"));
        if !global {
            close(&read(&mean), &r.mean, 1e-5, &format!("{what}: mean"));
            close(&read(&var), &r.var, 1e-5, &format!("{what}: variance"));
        }
        // Backward with those statistics.
        let bwd = Arc::new(
            BatchNormOp::backward(
                dnnl_backward,
                &src_md,
                &src_md,
                &src_md,
                1e-3,
                flags,
                Some(&fwd),
                &attr,
            )
            .unwrap(),
        );
        let ddm = memory(&engine, &src_md, &dd);
        let ds = memory(&engine, &src_md, &vec![0.0; total as usize]);
        let dscale = vec_mem(&engine, &bwd, DNNL_ARG_DIFF_SCALE, &zeros);
        let dshift = vec_mem(&engine, &bwd, DNNL_ARG_DIFF_SHIFT, &zeros);
        let mut args = vec![
            (DNNL_ARG_SRC, &src),
            (DNNL_ARG_DIFF_DST, &ddm),
            (DNNL_ARG_DIFF_SRC, &ds),
            (DNNL_ARG_MEAN, &mean),
            (DNNL_ARG_VARIANCE, &var),
            (DNNL_ARG_SCALE, &scale),
            (DNNL_ARG_DIFF_SCALE, &dscale),
            (DNNL_ARG_DIFF_SHIFT, &dshift),
        ];
        if let Some(w) = &ws {
            args.push((DNNL_ARG_WORKSPACE, w));
        }
        exec(&engine, bwd.clone(), &args);
        let g = *bwd.geometry();
        let mean_v: Vec<f64> = read(&mean).iter().map(|&v| f64::from(v)).collect();
        let var_v: Vec<f64> = read(&var).iter().map(|&v| f64::from(v)).collect();
        let y = read(&dst);
        let (mut db, mut dg) = (vec![0f64; c], vec![0f64; c]);
        let masked: Vec<f64> = dd
            .iter()
            .zip(&y)
            .map(|(&d, &yv)| {
                if flags & FUSE_NORM_RELU != 0 && yv <= 0.0 {
                    0.0
                } else {
                    f64::from(d)
                }
            })
            .collect();
        let xhat = |i: usize| {
            let (_, ch, _) = canon(&g, i as i64);
            let ch = ch as usize;
            (f64::from(x[i]) - mean_v[ch]) / (var_v[ch] + 1e-3f32 as f64).sqrt()
        };
        for i in 0..total as usize {
            let (_, ch, _) = canon(&g, i as i64);
            db[ch as usize] += masked[i];
            dg[ch as usize] += masked[i] * xhat(i);
        }
        let m = g.per_stat() as f64;
        let want: Vec<f64> = (0..total as usize)
            .map(|i| {
                let (_, ch, _) = canon(&g, i as i64);
                let ch = ch as usize;
                let inv = 1.0 / (var_v[ch] + 1e-3f32 as f64).sqrt();
                let gmv = f64::from(gm[ch]);
                if global {
                    gmv * masked[i] * inv
                } else {
                    gmv * inv * (masked[i] - db[ch] / m - xhat(i) * dg[ch] / m)
                }
            })
            .collect();
        close(&read(&ds), &want, 1e-4, &format!("{what}: diff_src"));
        if flags & USE_SCALE != 0 {
            close(&read(&dscale), &dg, 1e-4, &format!("{what}: diff_scale"));
        }
        if flags & USE_SHIFT != 0 {
            close(&read(&dshift), &db, 1e-4, &format!("{what}: diff_shift"));
        }
    }
}

#[test]
fn batch_norm_plain_layouts() {
    batch_case(&[2, 3, 4, 5], dnnl_nchw, 0);
    batch_case(&[2, 3, 4, 5], dnnl_nhwc, USE_SCALE | USE_SHIFT);
    batch_case(&[5, 4], dnnl_nc, FUSE_NORM_RELU | USE_SCALE);
    batch_case(
        &[2, 3, 2, 3, 2],
        dnnl_ndhwc,
        USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT,
    );
}

#[test]
fn batch_norm_blocked_layout() {
    batch_case(&[2, 16, 3, 3], dnnl_nChw16c, USE_SCALE | USE_SHIFT);
}

#[test]
fn batch_norm_long_statistics() {
    // More than a work-group's elements per channel, channels-first and last.
    batch_case(&[2, 3, 50, 50], dnnl_nchw, USE_SCALE);
    batch_case(&[2, 40, 30, 5], dnnl_nhwc, USE_SHIFT | FUSE_NORM_RELU);
}

#[test]
fn batch_norm_descriptor_rules() {
    let attr = PrimitiveAttr::default();
    let s = md(&[2, 3, 4, 5], dnnl_f32, dnnl_nchw);
    let padded = md(&[2, 3, 4, 5], dnnl_f32, dnnl_nChw16c);
    let one = md(&[6], dnnl_f32, dnnl_a);
    let status = |r: Result<BatchNormOp>| r.err().map(|e| e.status());
    assert_eq!(
        status(BatchNormOp::forward(dnnl_backward, &s, &s, 1e-3, 0, &attr)),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(BatchNormOp::forward(
            dnnl_forward_training,
            &one,
            &one,
            1e-3,
            0,
            &attr
        )),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(BatchNormOp::forward(
            dnnl_forward_training,
            &s,
            &s,
            1e-3,
            0x40,
            &attr
        )),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(BatchNormOp::forward(
            dnnl_forward_training,
            &padded,
            &padded,
            1e-3,
            0,
            &attr
        )),
        Some(dnnl_unimplemented)
    );
    assert_eq!(
        status(BatchNormOp::backward(
            dnnl_backward,
            &s,
            &s,
            &s,
            1e-3,
            FUSE_NORM_RELU,
            None,
            &attr
        )),
        Some(dnnl_unimplemented)
    );
    let op =
        BatchNormOp::forward(dnnl_forward_training, &s, &s, 1e-3, FUSE_NORM_RELU, &attr).unwrap();
    let ws = op.arg(DNNL_ARG_WORKSPACE).unwrap();
    assert_eq!((ws.data_type(), ws.dims()), (dnnl_u8, &[120i64][..]));
    assert_eq!(
        op.outputs(),
        vec![
            DNNL_ARG_DST,
            DNNL_ARG_MEAN,
            DNNL_ARG_VARIANCE,
            DNNL_ARG_WORKSPACE
        ]
    );
}
