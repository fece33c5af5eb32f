//! Normalization against an f64 reference on every engine (the CPU engine,
//! every OpenCL device, every Level Zero device): forward with computed and
//! global statistics, the fused ReLU and its workspace, backward and
//! backward data, plain, channels-last and blocked layouts, statistics over
//! many elements (the GPU's two-level reduction) and the descriptor rules.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::Engine;
use crate::prims::common::parallel;
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
        for (i, &d) in masked.iter().enumerate() {
            let (_, ch, _) = canon(&g, i as i64);
            db[ch as usize] += d;
            dg[ch as usize] += d * xhat(i);
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

/// The CPU's two forward paths without global statistics: more stats
/// than threads (each stat's statistics and results together) and fewer
/// (statistics first, then the results), for batch and group norms.
#[test]
fn cpu_stats_per_thread_or_split() {
    let many = parallel::max_threads() as i64 + 17;
    batch_case(
        &[2, many, 3, 5],
        dnnl_nchw,
        USE_SCALE | USE_SHIFT | FUSE_NORM_RELU,
    );
    batch_case(&[3, many, 7], dnnl_nwc, USE_SHIFT);
    batch_case(&[4, 1, 9, 9], dnnl_nchw, USE_SCALE);
    group_case(&[2, 2 * many, 3, 2], dnnl_nchw, many, USE_SCALE | USE_SHIFT);
    group_case(&[1, 3, 40], dnnl_ncw, 1, USE_SCALE);
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

/// A layer normalization forward (training) and backward on every engine,
/// with statistics of `stat_tag`, against the reference; `rms` keeps both
/// sums in backward (as Intel's library).
fn layer_case(dims: &[i64], tag: dnnl_format_tag_t, stat_tag: dnnl_format_tag_t, flags: u32) {
    let nd = dims.len();
    let src_md = md(dims, dnnl_f32, tag);
    let stat_md = md(&dims[..nd - 1], dnnl_f32, stat_tag);
    let total: i64 = dims.iter().product();
    let (rows, c) = ((total / dims[nd - 1]) as usize, dims[nd - 1] as usize);
    let x = values(total as usize, 3);
    let dd = values(total as usize, 4);
    let gamma: Vec<f32> = (0..c).map(|i| 0.75 + (i % 5) as f32 * 0.125).collect();
    let beta: Vec<f32> = (0..c).map(|i| (i % 3) as f32 * 0.1).collect();
    let attr = PrimitiveAttr::default();
    let rms = flags & RMS_NORM != 0;
    for engine in engines() {
        let name = engine_name(&engine);
        let what = format!("{name} {dims:?} {tag:?} stats {stat_tag:?} flags {flags:#x}");
        let fwd = Arc::new(
            LayerNormOp::forward(
                dnnl_forward_training,
                &src_md,
                &src_md,
                Some(&stat_md),
                dnnl_f32,
                1e-3,
                flags,
                &attr,
            )
            .unwrap(),
        );
        let src = memory(&engine, &src_md, &x);
        let dst = memory(&engine, &src_md, &vec![0.0; total as usize]);
        let mean = memory(&engine, &stat_md, &vec![0.0; rows]);
        let var = memory(&engine, &stat_md, &vec![0.0; rows]);
        let scale = vec_mem(&engine, &fwd, DNNL_ARG_SCALE, &gamma);
        let shift = vec_mem(&engine, &fwd, DNNL_ARG_SHIFT, &beta);
        let args = [
            (DNNL_ARG_SRC, &src),
            (DNNL_ARG_DST, &dst),
            (DNNL_ARG_MEAN, &mean),
            (DNNL_ARG_VARIANCE, &var),
            (DNNL_ARG_SCALE, &scale),
            (DNNL_ARG_SHIFT, &shift),
        ];
        exec(&engine, fwd.clone(), &args);
        // The reference, a row at a time.
        let (mut rm, mut rv) = (vec![0f64; rows], vec![0f64; rows]);
        let mut ry = vec![0f64; total as usize];
        for r in 0..rows {
            let row = &x[r * c..(r + 1) * c];
            if !rms {
                rm[r] = row.iter().map(|&v| f64::from(v)).sum::<f64>() / c as f64;
            }
            rv[r] = row
                .iter()
                .map(|&v| (f64::from(v) - rm[r]).powi(2))
                .sum::<f64>()
                / c as f64;
            let inv = 1.0 / (rv[r] + 1e-3f32 as f64).sqrt();
            for k in 0..c {
                let g = if flags & USE_SCALE != 0 {
                    f64::from(gamma[k])
                } else {
                    1.0
                };
                let b = if flags & USE_SHIFT != 0 {
                    f64::from(beta[k])
                } else {
                    0.0
                };
                ry[r * c + k] = (f64::from(row[k]) - rm[r]) * inv * g + b;
            }
        }
        close(&read(&dst), &ry, 3e-5, &format!("{what}: dst"));
        close(&read(&var), &rv, 1e-5, &format!("{what}: variance"));
        if !rms {
            close(&read(&mean), &rm, 1e-5, &format!("{what}: mean"));
        }
        let bwd = Arc::new(
            LayerNormOp::backward(
                dnnl_backward,
                &src_md,
                &src_md,
                &src_md,
                Some(&stat_md),
                dnnl_f32,
                dnnl_f32,
                1e-3,
                flags,
                Some(&fwd),
                &attr,
            )
            .unwrap(),
        );
        let ddm = memory(&engine, &src_md, &dd);
        let ds = memory(&engine, &src_md, &vec![0.0; total as usize]);
        let dscale = vec_mem(&engine, &bwd, DNNL_ARG_DIFF_SCALE, &vec![0.0; c]);
        let dshift = vec_mem(&engine, &bwd, DNNL_ARG_DIFF_SHIFT, &vec![0.0; c]);
        let args = [
            (DNNL_ARG_SRC, &src),
            (DNNL_ARG_DIFF_DST, &ddm),
            (DNNL_ARG_DIFF_SRC, &ds),
            (DNNL_ARG_MEAN, &mean),
            (DNNL_ARG_VARIANCE, &var),
            (DNNL_ARG_SCALE, &scale),
            (DNNL_ARG_DIFF_SCALE, &dscale),
            (DNNL_ARG_DIFF_SHIFT, &dshift),
        ];
        exec(&engine, bwd.clone(), &args);
        let mean_v: Vec<f64> = read(&mean).iter().map(|&v| f64::from(v)).collect();
        let var_v: Vec<f64> = read(&var).iter().map(|&v| f64::from(v)).collect();
        let (mut dg, mut db) = (vec![0f64; c], vec![0f64; c]);
        let mut want = vec![0f64; total as usize];
        for r in 0..rows {
            let m = if rms { 0.0 } else { mean_v[r] };
            let inv = 1.0 / (var_v[r] + 1e-3f32 as f64).sqrt();
            let g = |k: usize| {
                if flags & USE_SCALE != 0 {
                    f64::from(gamma[k])
                } else {
                    1.0
                }
            };
            let (mut a, mut b) = (0f64, 0f64);
            for k in 0..c {
                let i = r * c + k;
                let xh = (f64::from(x[i]) - m) * inv;
                db[k] += f64::from(dd[i]);
                dg[k] += f64::from(dd[i]) * xh;
                a += g(k) * f64::from(dd[i]);
                b += g(k) * f64::from(dd[i]) * xh;
            }
            for k in 0..c {
                let i = r * c + k;
                let xh = (f64::from(x[i]) - m) * inv;
                want[i] = (g(k) * f64::from(dd[i]) - a / c as f64 - xh * b / c as f64) * inv;
            }
        }
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
fn layer_norm_rows() {
    layer_case(&[2, 3, 17], dnnl_tnc, dnnl_ab, USE_SCALE | USE_SHIFT);
    layer_case(&[4, 3, 8], dnnl_ntc, dnnl_ba, USE_SHIFT);
    layer_case(&[2, 2, 3, 10], dnnl_abcd, dnnl_acb, RMS_NORM | USE_SCALE);
    // Long rows, and more elements per row than a work-group's stat limit.
    layer_case(&[7, 3000], dnnl_ab, dnnl_a, USE_SCALE);
}

#[test]
fn layer_norm_descriptor_rules() {
    let attr = PrimitiveAttr::default();
    let s = md(&[2, 3, 8], dnnl_f32, dnnl_tnc);
    let bad_stat = md(&[3, 2], dnnl_f32, dnnl_ab);
    let status = |r: Result<LayerNormOp>| r.err().map(|e| e.status());
    let fwd = |stat: Option<&MemoryDesc>, flags: u32| {
        LayerNormOp::forward(
            dnnl_forward_training,
            &s,
            &s,
            stat,
            dnnl_f32,
            1e-3,
            flags,
            &attr,
        )
    };
    assert_eq!(
        status(fwd(None, FUSE_NORM_RELU)),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(fwd(Some(&bad_stat), 0)),
        Some(dnnl_invalid_arguments)
    );
    let op = fwd(None, RMS_NORM).unwrap();
    // RMS: the variance only, the mean's descriptor still reported.
    assert_eq!(op.outputs(), vec![DNNL_ARG_DST, DNNL_ARG_VARIANCE]);
    assert!(op.arg_md(DNNL_ARG_MEAN).is_some());
    assert_eq!(op.arg_md(DNNL_ARG_MEAN).unwrap().dims(), &[2, 3]);
}

/// A group normalization forward (training) and backward on every engine
/// against the reference.
fn group_case(dims: &[i64], tag: dnnl_format_tag_t, groups: i64, flags: u32) {
    let src_md = md(dims, dnnl_f32, tag);
    let total: i64 = dims.iter().product();
    let (n, c) = (dims[0], dims[1]);
    let sp = total / (n * c);
    let cg = c / groups;
    let x = values(total as usize, 5);
    let dd = values(total as usize, 6);
    let gamma: Vec<f32> = (0..c).map(|i| 0.5 + (i % 4) as f32 * 0.25).collect();
    let beta: Vec<f32> = (0..c).map(|i| (i % 3) as f32 * 0.2 - 0.1).collect();
    let attr = PrimitiveAttr::default();
    let stat = |e: i64| e / (c * sp) * groups + e / sp % c / cg;
    let m = (cg * sp) as f64;
    let s_count = (n * groups) as usize;
    let g_of = |k: i64| {
        if flags & USE_SCALE != 0 {
            f64::from(gamma[k as usize])
        } else {
            1.0
        }
    };
    for engine in engines() {
        let name = engine_name(&engine);
        let what = format!("{name} {dims:?} {tag:?} groups {groups} flags {flags:#x}");
        let fwd = Arc::new(
            GroupNormOp::forward(
                dnnl_forward_training,
                &src_md,
                &src_md,
                groups,
                1e-3,
                flags,
                &attr,
            )
            .unwrap(),
        );
        let src = memory(&engine, &src_md, &x);
        let dst = memory(&engine, &src_md, &vec![0.0; total as usize]);
        let mean = vec_mem(&engine, &fwd, DNNL_ARG_MEAN, &vec![0.0; s_count]);
        let var = vec_mem(&engine, &fwd, DNNL_ARG_VARIANCE, &vec![0.0; s_count]);
        let scale = vec_mem(&engine, &fwd, DNNL_ARG_SCALE, &gamma);
        let shift = vec_mem(&engine, &fwd, DNNL_ARG_SHIFT, &beta);
        let args = [
            (DNNL_ARG_SRC, &src),
            (DNNL_ARG_DST, &dst),
            (DNNL_ARG_MEAN, &mean),
            (DNNL_ARG_VARIANCE, &var),
            (DNNL_ARG_SCALE, &scale),
            (DNNL_ARG_SHIFT, &shift),
        ];
        exec(&engine, fwd.clone(), &args);
        let (mut rm, mut rv) = (vec![0f64; s_count], vec![0f64; s_count]);
        for (e, &v) in x.iter().enumerate() {
            rm[stat(e as i64) as usize] += f64::from(v) / m;
        }
        for (e, &v) in x.iter().enumerate() {
            let s = stat(e as i64) as usize;
            rv[s] += (f64::from(v) - rm[s]).powi(2) / m;
        }
        let ry: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(e, &v)| {
                let (s, k) = (stat(e as i64) as usize, e as i64 / sp % c);
                let b = if flags & USE_SHIFT != 0 {
                    f64::from(beta[k as usize])
                } else {
                    0.0
                };
                (f64::from(v) - rm[s]) / (rv[s] + 1e-3f32 as f64).sqrt() * g_of(k) + b
            })
            .collect();
        close(&read(&dst), &ry, 3e-5, &format!("{what}: dst"));
        close(&read(&mean), &rm, 1e-5, &format!("{what}: mean"));
        close(&read(&var), &rv, 1e-5, &format!("{what}: variance"));
        let bwd = Arc::new(
            GroupNormOp::backward(
                dnnl_backward,
                &src_md,
                &src_md,
                &src_md,
                groups,
                1e-3,
                flags,
                Some(&fwd),
                &attr,
            )
            .unwrap(),
        );
        let ddm = memory(&engine, &src_md, &dd);
        let ds = memory(&engine, &src_md, &vec![0.0; total as usize]);
        let dscale = vec_mem(&engine, &bwd, DNNL_ARG_DIFF_SCALE, &vec![0.0; c as usize]);
        let dshift = vec_mem(&engine, &bwd, DNNL_ARG_DIFF_SHIFT, &vec![0.0; c as usize]);
        let args = [
            (DNNL_ARG_SRC, &src),
            (DNNL_ARG_DIFF_DST, &ddm),
            (DNNL_ARG_DIFF_SRC, &ds),
            (DNNL_ARG_MEAN, &mean),
            (DNNL_ARG_VARIANCE, &var),
            (DNNL_ARG_SCALE, &scale),
            (DNNL_ARG_DIFF_SCALE, &dscale),
            (DNNL_ARG_DIFF_SHIFT, &dshift),
        ];
        exec(&engine, bwd.clone(), &args);
        let mv: Vec<f64> = read(&mean).iter().map(|&v| f64::from(v)).collect();
        let vv: Vec<f64> = read(&var).iter().map(|&v| f64::from(v)).collect();
        let inv = |s: usize| 1.0 / (vv[s] + 1e-3f32 as f64).sqrt();
        let xh = |e: usize| {
            let s = stat(e as i64) as usize;
            (f64::from(x[e]) - mv[s]) * inv(s)
        };
        let (mut dg, mut db) = (vec![0f64; c as usize], vec![0f64; c as usize]);
        let (mut a, mut b) = (vec![0f64; s_count], vec![0f64; s_count]);
        for (e, &d) in dd.iter().enumerate() {
            let (s, k) = (stat(e as i64) as usize, e as i64 / sp % c);
            let d = f64::from(d);
            db[k as usize] += d;
            dg[k as usize] += d * xh(e);
            a[s] += g_of(k) * d;
            b[s] += g_of(k) * d * xh(e);
        }
        let want: Vec<f64> = dd
            .iter()
            .enumerate()
            .map(|(e, &d)| {
                let (s, k) = (stat(e as i64) as usize, e as i64 / sp % c);
                (g_of(k) * f64::from(d) - a[s] / m - xh(e) * b[s] / m) * inv(s)
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
fn group_norm_groups() {
    group_case(&[2, 6, 3, 4], dnnl_nchw, 3, USE_SCALE | USE_SHIFT);
    group_case(&[2, 8, 3, 5], dnnl_nhwc, 4, USE_SCALE);
    group_case(&[3, 4, 9], dnnl_ncw, 1, USE_SHIFT);
    group_case(&[2, 5, 7], dnnl_nwc, 5, 0);
    // 2-D (no spatial dimensions), and long groups (the GPU's two-level reduction).
    group_case(&[4, 6], dnnl_nc, 2, USE_SCALE);
    group_case(&[2, 4, 40, 40], dnnl_nchw, 2, USE_SCALE | USE_SHIFT);
    group_case(&[2, 64, 12, 12], dnnl_nhwc, 4, USE_SHIFT);
}
