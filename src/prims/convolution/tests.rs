//! The six primitives against an f64 reference written from the
//! definition (one loop nest over the convolution roles), on the CPU
//! engine and every OpenCL device present: 1D/2D/3D, groups, strides,
//! dilations, asymmetric padding, nchw-style and `any` layouts, bias.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::engine::Engine;
use crate::core::memory::Memory;
use crate::prims::common::testutil::gemm::{check, exec, md, memory, read, values};
use crate::prims::common::testutil::{engine_name, engines};

/// One problem in user terms (conv roles: X = N x G·IC x I, Y = N x G·OC x O).
#[derive(Clone, Debug)]
struct Case {
    mb: i64,
    g: i64,
    ic: i64,
    oc: i64,
    i: Vec<i64>,
    k: Vec<i64>,
    s: Vec<i64>,
    dil: Vec<i64>,
    pl: Vec<i64>,
    pr: Vec<i64>,
    groups_dim: bool,
}

impl Case {
    fn o(&self) -> Vec<i64> {
        (0..self.i.len())
            .map(|d| {
                let range = (self.k[d] - 1) * (self.dil[d] + 1) + 1;
                (self.i[d] - range + self.pl[d] + self.pr[d]) / self.s[d] + 1
            })
            .collect()
    }
    fn x_dims(&self) -> Vec<i64> {
        [vec![self.mb, self.g * self.ic], self.i.clone()].concat()
    }
    fn y_dims(&self) -> Vec<i64> {
        [vec![self.mb, self.g * self.oc], self.o()].concat()
    }
    /// Conv weights (deconv: OC and IC exchanged).
    fn w_dims(&self, deconv: bool) -> Vec<i64> {
        let (o, i) = if deconv {
            (self.ic, self.oc)
        } else {
            (self.oc, self.ic)
        };
        if self.groups_dim {
            [vec![self.g, o, i], self.k.clone()].concat()
        } else {
            [vec![o, i], self.k.clone()].concat()
        }
    }
    fn geometry(&self) -> Geometry<'_> {
        Geometry {
            strides: &self.s,
            dilates: Some(&self.dil),
            padding_l: &self.pl,
            padding_r: Some(&self.pr),
        }
    }
    fn nsp(&self) -> usize {
        self.i.len()
    }
}

/// Row-major index of `idx` in `dims`.
fn lin(dims: &[i64], idx: &[i64]) -> usize {
    idx.iter().zip(dims).fold(0i64, |acc, (&i, &d)| acc * d + i) as usize
}

/// Every (index of Y, index of X, index of W) triple of the convolution:
/// calls `f(y, x, w)` with row-major positions (W in conv order
/// `G x OC x IC x K`, deconv's exchange done by the caller).
fn for_each_tap(c: &Case, mut f: impl FnMut(usize, usize, usize)) {
    let o = c.o();
    let nsp = c.nsp();
    let (xd, yd) = (c.x_dims(), c.y_dims());
    let wd = [vec![c.g, c.oc, c.ic], c.k.clone()].concat();
    let osz: i64 = o.iter().product();
    let ksz: i64 = c.k.iter().product();
    let unflat = |mut v: i64, dims: &[i64]| -> Vec<i64> {
        let mut out = vec![0; dims.len()];
        for d in (0..dims.len()).rev() {
            out[d] = v % dims[d];
            v /= dims[d];
        }
        out
    };
    for n in 0..c.mb {
        for g in 0..c.g {
            for oc in 0..c.oc {
                for op in 0..osz {
                    let ov = unflat(op, &o);
                    for ic in 0..c.ic {
                        for kp in 0..ksz {
                            let kv = unflat(kp, &c.k);
                            let mut iv = vec![0; nsp];
                            let mut inside = true;
                            for d in 0..nsp {
                                iv[d] = ov[d] * c.s[d] - c.pl[d] + kv[d] * (c.dil[d] + 1);
                                inside &= iv[d] >= 0 && iv[d] < c.i[d];
                            }
                            if !inside {
                                continue;
                            }
                            let y = lin(&yd, &[vec![n, g * c.oc + oc], ov.clone()].concat());
                            let x = lin(&xd, &[vec![n, g * c.ic + ic], iv].concat());
                            let w = lin(&wd, &[vec![g, oc, ic], kv].concat());
                            f(y, x, w);
                        }
                    }
                }
            }
        }
    }
}

/// Weights between conv order (`G x OC x IC x K`, row-major) and the
/// user's (deconv: `G x IC x OC x K`, its own OC first); `to_user` says
/// which way. Convolution weights are the same in both.
fn exchange<T: Copy + Default>(c: &Case, deconv: bool, v: &[T], to_user: bool) -> Vec<T> {
    if !deconv {
        return v.to_vec();
    }
    let ksz: i64 = c.k.iter().product();
    let mut out = vec![T::default(); v.len()];
    for g in 0..c.g {
        for oc in 0..c.oc {
            for ic in 0..c.ic {
                for k in 0..ksz {
                    let conv = (((g * c.oc + oc) * c.ic + ic) * ksz + k) as usize;
                    let user = (((g * c.ic + ic) * c.oc + oc) * ksz + k) as usize;
                    if to_user {
                        out[user] = v[conv];
                    } else {
                        out[conv] = v[user];
                    }
                }
            }
        }
    }
    out
}

fn nel(d: &[i64]) -> usize {
    d.iter().product::<i64>() as usize
}

fn any(dims: &[i64], dt: dnnl_data_type_t) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dt, dnnl_format_tag_any).unwrap()
}

/// The three directions of `c` with data and weights of type `dt` (bias
/// f32), against the definition.
fn run_case(engine: &Arc<Engine>, c: &Case, deconv: bool, use_any: bool) {
    run_typed(engine, c, deconv, use_any, dnnl_f32);
}

fn run_typed(engine: &Arc<Engine>, c: &Case, deconv: bool, use_any: bool, dt: dnnl_data_type_t) {
    run_typed_with(engine, c, deconv, use_any, dt, None);
}

/// [`run_typed`] with attributes `attr` on every direction.
fn run_typed_with(
    engine: &Arc<Engine>,
    c: &Case,
    deconv: bool,
    use_any: bool,
    dt: dnnl_data_type_t,
    attr: Option<&PrimitiveAttr>,
) {
    let elem = Elem::from_c(dt).unwrap();
    let what = format!(
        "{} {elem:?} {c:?} any {use_any} on {}",
        if deconv { "deconv" } else { "conv" },
        engine_name(engine)
    );
    let (xd, yd, wd) = (c.x_dims(), c.y_dims(), c.w_dims(deconv));
    // User-side names: conv src = X, dst = Y; deconv src = Y, dst = X.
    let (src_d, dst_d) = if deconv {
        (yd.clone(), xd.clone())
    } else {
        (xd.clone(), yd.clone())
    };
    let mkmd = |d: &[i64]| if use_any { any(d, dt) } else { md(d, dt) };
    let oc_total = dst_d[1];
    let sv = values(nel(&src_d), 1);
    let wv = values(nel(&wd), 2);
    let bv = values(oc_total as usize, 3);
    let dv = values(nel(&dst_d), 4);
    let wc = exchange(c, deconv, &wv, false);

    // Forward: dst = conv(src) (+ bias).
    let bmd = md(&[oc_total], dnnl_f32);
    let t = Tensors {
        src: &mkmd(&src_d),
        weights: &mkmd(&wd),
        bias: Some(&bmd),
        dst: &mkmd(&dst_d),
    };
    let op = Arc::new(
        ConvOp::new(
            deconv,
            Pass::Forward,
            dnnl_forward_training,
            if deconv {
                dnnl_deconvolution_direct
            } else {
                dnnl_convolution_auto
            },
            t,
            c.geometry(),
            attr,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}")),
    );
    let mem = |arg: i32, v: &[f32]| -> Arc<Memory> { memory(engine, op.arg_md(arg).unwrap(), v) };
    let sm = mem(DNNL_ARG_SRC, &sv);
    let wm = mem(DNNL_ARG_WEIGHTS, &wv);
    let bm = mem(DNNL_ARG_BIAS, &bv);
    let dm = mem(DNNL_ARG_DST, &vec![0.0; nel(&dst_d)]);
    exec(
        engine,
        op.clone(),
        &[
            (DNNL_ARG_SRC, &sm),
            (DNNL_ARG_WEIGHTS, &wm),
            (DNNL_ARG_BIAS, &bm),
            (DNNL_ARG_DST, &dm),
        ],
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut want: Vec<f64> = (0..nel(&dst_d))
        .map(|i| f64::from(bv[(i / nel(&dst_d[2..])) % oc_total as usize]))
        .collect();
    let mut mag: Vec<f64> = want.iter().map(|v| v.abs()).collect();
    for_each_tap(c, |y, x, w| {
        let (out, inp) = if deconv { (x, y) } else { (y, x) };
        let p = f64::from(sv[inp]) * f64::from(wc[w]);
        want[out] += p;
        mag[out] += p.abs();
    });
    check(&read(&dm), &want, &mag, elem, &format!("forward {what}"));

    // Backward data: diff_src from diff_dst.
    let t = Tensors {
        src: &mkmd(&src_d),
        weights: &mkmd(&wd),
        bias: None,
        dst: &mkmd(&dst_d),
    };
    let alg = if deconv {
        dnnl_deconvolution_direct
    } else {
        dnnl_convolution_direct
    };
    let op = Arc::new(
        ConvOp::new(
            deconv,
            Pass::BackwardData,
            dnnl_backward_data,
            alg,
            t,
            c.geometry(),
            attr,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}")),
    );
    let mem = |arg: i32, v: &[f32]| -> Arc<Memory> { memory(engine, op.arg_md(arg).unwrap(), v) };
    let dsm = mem(DNNL_ARG_DIFF_SRC, &vec![0.0; nel(&src_d)]);
    let wm = mem(DNNL_ARG_WEIGHTS, &wv);
    let ddm = mem(DNNL_ARG_DIFF_DST, &dv);
    exec(
        engine,
        op.clone(),
        &[
            (DNNL_ARG_DIFF_SRC, &dsm),
            (DNNL_ARG_WEIGHTS, &wm),
            (DNNL_ARG_DIFF_DST, &ddm),
        ],
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut want = vec![0f64; nel(&src_d)];
    let mut mag = vec![0f64; nel(&src_d)];
    for_each_tap(c, |y, x, w| {
        let (out, inp) = if deconv { (y, x) } else { (x, y) };
        let p = f64::from(dv[inp]) * f64::from(wc[w]);
        want[out] += p;
        mag[out] += p.abs();
    });
    check(
        &read(&dsm),
        &want,
        &mag,
        elem,
        &format!("backward data {what}"),
    );

    // Backward weights (+ bias).
    let t = Tensors {
        src: &mkmd(&src_d),
        weights: &mkmd(&wd),
        bias: Some(&bmd),
        dst: &mkmd(&dst_d),
    };
    let op = Arc::new(
        ConvOp::new(
            deconv,
            Pass::BackwardWeights,
            dnnl_backward_weights,
            alg,
            t,
            c.geometry(),
            attr,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}")),
    );
    let mem = |arg: i32, v: &[f32]| -> Arc<Memory> { memory(engine, op.arg_md(arg).unwrap(), v) };
    let sm = mem(DNNL_ARG_SRC, &sv);
    let dwm = mem(DNNL_ARG_DIFF_WEIGHTS, &vec![0.0; nel(&wd)]);
    let dbm = mem(DNNL_ARG_DIFF_BIAS, &vec![0.0; oc_total as usize]);
    let ddm = mem(DNNL_ARG_DIFF_DST, &dv);
    exec(
        engine,
        op.clone(),
        &[
            (DNNL_ARG_SRC, &sm),
            (DNNL_ARG_DIFF_WEIGHTS, &dwm),
            (DNNL_ARG_DIFF_BIAS, &dbm),
            (DNNL_ARG_DIFF_DST, &ddm),
        ],
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut want_c = vec![0f64; nel(&wd)];
    let mut mag_c = vec![0f64; nel(&wd)];
    for_each_tap(c, |y, x, w| {
        let (sx, dy) = if deconv {
            (dv[x], sv[y])
        } else {
            (sv[x], dv[y])
        };
        let p = f64::from(sx) * f64::from(dy);
        want_c[w] += p;
        mag_c[w] += p.abs();
    });
    check(
        &read(&dwm),
        &exchange(c, deconv, &want_c, true),
        &exchange(c, deconv, &mag_c, true),
        elem,
        &format!("backward weights {what}"),
    );
    let per = nel(&dst_d[2..]);
    let mut want_b = vec![0f64; oc_total as usize];
    let mut mag_b = vec![0f64; oc_total as usize];
    for (i, v) in dv.iter().enumerate() {
        let ch = (i / per) % oc_total as usize;
        want_b[ch] += f64::from(*v);
        mag_b[ch] += f64::from(*v).abs();
    }
    check(
        &read(&dbm),
        &want_b,
        &mag_b,
        elem,
        &format!("diff bias {what}"),
    );
}

/// A case: `[mb, g, ic, oc]`, whether the weights have the group
/// dimension, then per spatial dimension the input size, kernel, stride,
/// dilation and the two paddings.
#[allow(clippy::too_many_arguments)]
fn case(
    [mb, g, ic, oc]: [i64; 4],
    groups_dim: bool,
    i: &[i64],
    k: &[i64],
    s: &[i64],
    dil: &[i64],
    pl: &[i64],
    pr: &[i64],
) -> Case {
    Case {
        mb,
        g,
        ic,
        oc,
        i: i.to_vec(),
        k: k.to_vec(),
        s: s.to_vec(),
        dil: dil.to_vec(),
        pl: pl.to_vec(),
        pr: pr.to_vec(),
        groups_dim,
    }
}

/// 2D 3x3 with 16 input channels (runs of whole 16 bytes in f16 and f32).
fn channels_16() -> Case {
    case(
        [2, 1, 16, 24],
        false,
        &[7, 6],
        &[3, 3],
        &[1, 1],
        &[0, 0],
        &[1, 1],
        &[1, 1],
    )
}

/// A forward inference convolution of `c` over `t` with `attr`.
fn forward_inference(c: &Case, t: Tensors, attr: &PrimitiveAttr) -> Arc<ConvOp> {
    let op = ConvOp::new(
        false,
        Pass::Forward,
        dnnl_forward_inference,
        dnnl_convolution_direct,
        t,
        c.geometry(),
        Some(attr),
    );
    Arc::new(op.unwrap())
}

/// 2D 1x1.
fn pointwise() -> Case {
    case(
        [2, 1, 8, 12],
        false,
        &[5, 6],
        &[1, 1],
        &[1, 1],
        &[0, 0],
        &[0, 0],
        &[0, 0],
    )
}

fn cases() -> Vec<Case> {
    vec![
        // 2D, groups, stride 2, dilation 1, asymmetric padding.
        case(
            [2, 2, 3, 5],
            true,
            &[7, 9],
            &[3, 2],
            &[2, 1],
            &[1, 0],
            &[1, 2],
            &[2, 0],
        ),
        // 1D, no groups, stride 3, right padding negative.
        case([3, 1, 4, 6], false, &[13], &[3], &[3], &[0], &[1], &[-1]),
        // 3D depthwise.
        case(
            [1, 4, 1, 1],
            true,
            &[3, 4, 5],
            &[2, 3, 3],
            &[1, 2, 1],
            &[0, 0, 1],
            &[0, 1, 2],
            &[1, 1, 2],
        ),
        // 2D 3x3, channels in sixteens (the 4-wide gathers, one tap per
        // K step), groups.
        case(
            [2, 2, 16, 16],
            true,
            &[6, 5],
            &[3, 3],
            &[1, 1],
            &[0, 0],
            &[1, 1],
            &[1, 1],
        ),
        // 3 K steps per tap (48 channels): the window element found at a
        // tap's first step serves its next two.
        case(
            [1, 1, 48, 8],
            false,
            &[5, 4],
            &[3, 3],
            &[1, 1],
            &[0, 0],
            &[1, 1],
            &[1, 1],
        ),
        // Deep backward weights (minibatch x positions = 8192: GPUs split
        // the depth over the scratchpad).
        case(
            [2, 1, 2, 3],
            false,
            &[64, 64],
            &[3, 3],
            &[1, 1],
            &[0, 0],
            &[1, 1],
            &[1, 1],
        ),
        pointwise(),
    ]
}

#[test]
fn six_primitives_against_the_definition() {
    // Each primitive builds its own kernels on OpenCL engines: there the
    // layouts alternate between cases instead of running both.
    for engine in engines() {
        let gpu = engine.kind() != crate::core::engine::EngineKind::Cpu;
        for (i, c) in cases().iter().enumerate() {
            for deconv in [false, true] {
                for use_any in [false, true] {
                    if gpu && use_any != ((i + usize::from(deconv)) % 2 == 0) {
                        continue;
                    }
                    run_case(&engine, c, deconv, use_any);
                }
            }
        }
    }
}

/// The CPU path in bf16 and f16 (packed A converted while gathered,
/// weights converted while packed) for every direction of odd shapes:
/// odd channels, stride 2, dilation, padding, groups, depthwise, 3D.
#[test]
fn cpu_low_precision_every_direction() {
    let engine = crate::prims::common::testutil::xfer::cpu_engine();
    let odd = [
        case(
            [2, 3, 5, 7],
            true,
            &[9, 8],
            &[3, 3],
            &[2, 2],
            &[1, 0],
            &[2, 1],
            &[1, 1],
        ),
        case(
            [1, 6, 1, 1],
            true,
            &[2, 5, 6],
            &[2, 3, 3],
            &[1, 1, 2],
            &[0, 1, 0],
            &[1, 1, 1],
            &[0, 1, 1],
        ),
        case([3, 1, 13, 3], false, &[11], &[5], &[1], &[0], &[2], &[2]),
    ];
    for dt in [dnnl_bf16, dnnl_f16] {
        for (i, c) in odd.iter().enumerate() {
            for deconv in [false, true] {
                run_typed(&engine, c, deconv, (i + usize::from(deconv)) % 2 == 0, dt);
            }
        }
    }
}

/// f16, bf16 and f32 under fpmath mode tf32 on the OpenCL engines, every
/// direction (all three run on the tensor cores of NVIDIA GPUs,
/// `ocl:gemm_conv_mma`: gathered and plain operands, padding taps, groups,
/// strides, dilation, 1x1 and 3x3 with channels in sixteens, backward
/// weights split over depth).
#[test]
fn gpu_low_precision_and_tf32_every_direction() {
    let mut tf32 = PrimitiveAttr::default();
    tf32.set_fpmath(dnnl_fpmath_mode_tf32, false).unwrap();
    let shapes = [
        case(
            [2, 3, 5, 7],
            true,
            &[9, 8],
            &[3, 3],
            &[2, 2],
            &[1, 0],
            &[2, 1],
            &[1, 1],
        ),
        channels_16(),
        pointwise(),
    ];
    // Backward weights of depth 5 x 21 x 21 = 2205 splits it in two parts
    // (the last 1101 deep, off every tile's K step): f16, channels last
    // (on NVIDIA both operands 16 bytes at a time, A M-major on wgmma).
    let split = case(
        [5, 1, 16, 24],
        false,
        &[21, 21],
        &[3, 3],
        &[1, 1],
        &[0, 0],
        &[1, 1],
        &[1, 1],
    );
    for engine in engines() {
        if engine.kind() == crate::core::engine::EngineKind::Cpu {
            continue;
        }
        run_typed_with(&engine, &split, false, true, dnnl_f16, None);
        for (i, c) in shapes.iter().enumerate() {
            for (j, (dt, attr)) in [(dnnl_f16, None), (dnnl_bf16, None), (dnnl_f32, Some(&tf32))]
                .into_iter()
                .enumerate()
            {
                let any = (i + j) % 2 == 0;
                run_typed_with(&engine, c, j == 1, any, dt, attr);
            }
        }
    }
}

/// Forward with post-ops on the OpenCL engines, f16 and f32 under fpmath
/// tf32 (on NVIDIA GPUs the tensor-core kernel, whose epilogue takes
/// `conv.cl`'s dst addressing and positions): a sum, relu, a per-channel
/// binary add and a binary multiply by a full tensor, over a bias.
#[test]
fn gpu_forward_post_ops() {
    use crate::core::attr::PostOp;
    use crate::prims::common::post_ops::post_op_arg;
    let c = channels_16();
    let (xd, yd, wd) = (c.x_dims(), c.y_dims(), c.w_dims(false));
    let oc = yd[1] as usize;
    let per_c = [1, yd[1], 1, 1];
    let f = dnnl_f32;
    let xv = values(nel(&xd), 1);
    let wv = values(nel(&wd), 2);
    let bv = values(oc, 3);
    let old = values(nel(&yd), 4);
    let b1 = values(oc, 5);
    let b2 = values(nel(&yd), 6);
    // The definition: conv + bias, + old, relu, + b1[c], * b2.
    let spatial = nel(&yd[2..]);
    let mut conv: Vec<f64> = (0..nel(&yd))
        .map(|i| f64::from(bv[(i / spatial) % oc]))
        .collect();
    let mut mag: Vec<f64> = conv.iter().map(|v| v.abs()).collect();
    let wc = exchange(&c, false, &wv, false);
    for_each_tap(&c, |y, x, w| {
        let p = f64::from(xv[x]) * f64::from(wc[w]);
        conv[y] += p;
        mag[y] += p.abs();
    });
    let mut want = Vec::with_capacity(conv.len());
    for (i, v) in conv.iter().enumerate() {
        let ch = (i / spatial) % oc;
        let v = (v + f64::from(old[i])).max(0.0) + f64::from(b1[ch]);
        want.push(v * f64::from(b2[i]));
        mag[i] =
            (mag[i] + f64::from(old[i]).abs() + f64::from(b1[ch]).abs()) * f64::from(b2[i]).abs();
    }
    for engine in engines() {
        if engine.kind() == crate::core::engine::EngineKind::Cpu {
            continue;
        }
        for (dt, mode) in [
            (dnnl_f16, dnnl_fpmath_mode_strict),
            (f, dnnl_fpmath_mode_tf32),
        ] {
            let mut attr = PrimitiveAttr::default();
            attr.set_fpmath(mode, false).unwrap();
            attr.post_ops
                .append(|| PostOp::sum(1.0, 0, dnnl_data_type_undef))
                .unwrap();
            attr.post_ops
                .append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))
                .unwrap();
            attr.post_ops
                .append(|| PostOp::binary(dnnl_binary_add, &md(&per_c, f), None))
                .unwrap();
            attr.post_ops
                .append(|| PostOp::binary(dnnl_binary_mul, &md(&yd, f), None))
                .unwrap();
            let bmd = md(&[yd[1]], f);
            let t = Tensors {
                src: &any(&xd, dt),
                weights: &any(&wd, dt),
                bias: Some(&bmd),
                dst: &any(&yd, dt),
            };
            let op = forward_inference(&c, t, &attr);
            let mem = |arg: i32, v: &[f32]| memory(&engine, op.arg_md(arg).unwrap(), v);
            let (sm, wm, bm, dm) = (
                mem(DNNL_ARG_SRC, &xv),
                mem(DNNL_ARG_WEIGHTS, &wv),
                mem(DNNL_ARG_BIAS, &bv),
                mem(DNNL_ARG_DST, &old),
            );
            let m1 = memory(&engine, &md(&per_c, f), &b1);
            let m2 = memory(&engine, &md(&yd, f), &b2);
            let args = [
                (DNNL_ARG_SRC, &sm),
                (DNNL_ARG_WEIGHTS, &wm),
                (DNNL_ARG_BIAS, &bm),
                (DNNL_ARG_DST, &dm),
                (post_op_arg(2, DNNL_ARG_SRC_1), &m1),
                (post_op_arg(3, DNNL_ARG_SRC_1), &m2),
            ];
            let name = exec(&engine, op.clone(), &args).unwrap();
            let what = format!("post-ops {:#x} on {} ({name})", dt.0, engine_name(&engine));
            check(&read(&dm), &want, &mag, Elem::from_c(dt).unwrap(), &what);
        }
    }
}

/// int8 forward on the CPU: u8 src with a zero point per input channel
/// (padding taps contribute nothing), s8 weights with a scale per output
/// channel, a src scale, f32 bias and dst; groups, stride 2, padding.
#[test]
fn cpu_int8_zero_points_and_scales() {
    use crate::core::attr::{QuantKind, QuantSpec};
    let engine = crate::prims::common::testutil::xfer::cpu_engine();
    let c = case(
        [2, 2, 5, 3],
        true,
        &[7, 6],
        &[3, 2],
        &[2, 1],
        &[0, 1],
        &[1, 1],
        &[1, 0],
    );
    let (xd, yd, wd) = (c.x_dims(), c.y_dims(), c.w_dims(false));
    let xv: Vec<f32> = (0..nel(&xd)).map(|i| ((i * 37) % 251) as f32).collect();
    let wv: Vec<f32> = (0..nel(&wd))
        .map(|i| ((i * 13) % 255) as f32 - 127.0)
        .collect();
    let bv = values(yd[1] as usize, 3);
    let zp: Vec<i32> = (0..xd[1] as i32).map(|i| 3 * i - 4).collect();
    let wsc: Vec<f32> = (0..yd[1]).map(|i| 0.25 + i as f32 * 0.125).collect();
    let ssc = 0.5f32;
    let mut attr = PrimitiveAttr::default();
    attr.zero_points.insert(
        DNNL_ARG_SRC,
        QuantSpec::with_mask(QuantKind::ZeroPoints, 2).unwrap(),
    );
    attr.scales.insert(
        DNNL_ARG_SRC,
        QuantSpec::with_mask(QuantKind::Scales, 0).unwrap(),
    );
    attr.scales.insert(
        DNNL_ARG_WEIGHTS,
        QuantSpec::with_mask(QuantKind::Scales, 3).unwrap(),
    );
    for use_any in [false, true] {
        let mk = |d: &[i64], dt| if use_any { any(d, dt) } else { md(d, dt) };
        let bmd = md(&[yd[1]], dnnl_f32);
        let t = Tensors {
            src: &mk(&xd, dnnl_u8),
            weights: &mk(&wd, dnnl_s8),
            bias: Some(&bmd),
            dst: &mk(&yd, dnnl_f32),
        };
        let op = forward_inference(&c, t, &attr);
        let mem = |arg: i32, v: &[f32]| memory(&engine, op.arg_md(arg).unwrap(), v);
        let (sm, wm, bm) = (
            mem(DNNL_ARG_SRC, &xv),
            mem(DNNL_ARG_WEIGHTS, &wv),
            mem(DNNL_ARG_BIAS, &bv),
        );
        let dm = mem(DNNL_ARG_DST, &vec![0.0; nel(&yd)]);
        let array = |dt, v: &[f32]| memory(&engine, &md(&[v.len() as i64], dt), v);
        let zpm = array(dnnl_s32, &zp.iter().map(|&z| z as f32).collect::<Vec<_>>());
        let (ssm, wsm) = (array(dnnl_f32, &[ssc]), array(dnnl_f32, &wsc));
        exec(
            &engine,
            op.clone(),
            &[
                (DNNL_ARG_SRC, &sm),
                (DNNL_ARG_WEIGHTS, &wm),
                (DNNL_ARG_BIAS, &bm),
                (DNNL_ARG_DST, &dm),
                (DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, &zpm),
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &ssm),
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, &wsm),
            ],
        )
        .unwrap();
        let per = nel(&yd[2..]);
        let mut acc = vec![0f64; nel(&yd)];
        let mut mag = vec![0f64; nel(&yd)];
        for_each_tap(&c, |y, x, w| {
            let ch = (x / nel(&xd[2..])) % xd[1] as usize;
            let p = (f64::from(xv[x]) - f64::from(zp[ch])) * f64::from(wv[w]);
            acc[y] += p;
            mag[y] += p.abs();
        });
        let want: Vec<f64> = acc
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let oc = (i / per) % yd[1] as usize;
                v * f64::from(ssc) * f64::from(wsc[oc]) + f64::from(bv[oc])
            })
            .collect();
        let mag: Vec<f64> = mag
            .iter()
            .enumerate()
            .map(|(i, v)| v * f64::from(wsc[(i / per) % yd[1] as usize]))
            .collect();
        check(
            &read(&dm),
            &want,
            &mag,
            Elem::F32,
            &format!("int8 any {use_any}"),
        );
    }
}
