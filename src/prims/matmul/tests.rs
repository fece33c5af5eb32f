//! Matmul against an f64 reference, on the CPU engine and on every OpenCL
//! device present: odd and empty shapes, batch broadcast, transposed
//! operands, bias broadcast, f16/bf16, run-time dimensions, scales; and the
//! descriptor checks. The helpers are `prims::common::testutil::gemm`'s,
//! shared with inner product's tests.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::attr::{QuantKind, QuantSpec};
use crate::core::engine::Engine;
use crate::core::primitive::{ExecArgs, PrimitiveDesc};
use crate::core::stream::{Stream, StreamFlags};
use crate::prims::common::gemm::mma::{self, MmaType};
use crate::prims::common::testutil::gemm::{check, exec, md, mds, memory, read, values};
use crate::prims::common::testutil::{attr_checked, engine_name, engines, indices};

// ---------------------------------------------------------------------------
// The matmul reference.

struct Case {
    src: MemoryDesc,
    wei: MemoryDesc,
    bias: Option<MemoryDesc>,
    dst: MemoryDesc,
}

/// The f64 reference of `dst = src_scale · wei_scale · (src · wei) + bias`
/// (dst scale not applied), with the sum of absolute terms per element.
fn reference(
    c: &Case,
    s: &[f32],
    w: &[f32],
    b: Option<&[f32]>,
    scales: (f32, &[f32]),
) -> (Vec<f64>, Vec<f64>) {
    let (sd, wd, dd) = (c.src.dims(), c.wei.dims(), c.dst.dims());
    let n = dd.len();
    let k = sd[n - 1];
    let flat = |dims: &[i64], idx: &[i64]| -> usize {
        let mut f = 0i64;
        for d in 0..dims.len() {
            f = f * dims[d] + if dims[d] == 1 { 0 } else { idx[d] };
        }
        f as usize
    };
    let mut out = Vec::new();
    let mut mag = Vec::new();
    for idx in indices(dd) {
        let idx = &idx[..n];
        let (mut acc, mut abs) = (0f64, 0f64);
        for kk in 0..k {
            let mut si = idx.to_vec();
            si[n - 1] = kk;
            let mut wi = idx.to_vec();
            wi[n - 2] = kk;
            let p = f64::from(s[flat(sd, &si)]) * f64::from(w[flat(wd, &wi)]);
            acc += p;
            abs += p.abs();
        }
        let sc = f64::from(scales.0) * f64::from(scales.1[idx[n - 1] as usize]);
        let mut v = acc * sc;
        abs *= sc.abs();
        if let (Some(bias), Some(bmd)) = (b, &c.bias) {
            let bv = f64::from(bias[flat(bmd.dims(), idx)]);
            v += bv;
            abs += bv.abs();
        }
        out.push(v);
        mag.push(abs);
    }
    (out, mag)
}

/// Runs `c` on `engine` and compares with the reference.
fn run_case(engine: &Arc<Engine>, c: &Case, what: &str) {
    run_case_with(engine, c, None, what);
}

/// [`run_case`] with attributes.
fn run_case_with(engine: &Arc<Engine>, c: &Case, attr: Option<&PrimitiveAttr>, what: &str) {
    let nel = |md: &MemoryDesc| md.dims().iter().product::<i64>() as usize;
    let s = values(nel(&c.src), 1);
    let w = values(nel(&c.wei), 2);
    let b = c.bias.as_ref().map(|b| values(nel(b), 3));
    let op = Arc::new(MatmulOp::new(&c.src, &c.wei, c.bias.as_ref(), &c.dst, attr).unwrap());
    let sm = memory(engine, &op.src, &s);
    let wm = memory(engine, &op.weights, &w);
    let dm = memory(engine, &op.dst, &vec![7.0; nel(&c.dst)]);
    let mut args = vec![
        (DNNL_ARG_SRC, &sm),
        (DNNL_ARG_WEIGHTS, &wm),
        (DNNL_ARG_DST, &dm),
    ];
    let bm = c
        .bias
        .as_ref()
        .map(|md| memory(engine, md, b.as_ref().unwrap()));
    if let Some(bm) = &bm {
        args.push((DNNL_ARG_BIAS, bm));
    }
    let name = exec(engine, op.clone(), &args).unwrap();
    let n = c.dst.dims()[c.dst.ndims() - 1] as usize;
    let (want, mag) = reference(c, &s, &w, b.as_deref(), (1.0, &vec![1.0; n]));
    let elem = Elem::from_c(c.dst.data_type()).unwrap();
    check(
        &read(&dm),
        &want,
        &mag,
        elem,
        &format!("{what} on {} ({name})", engine_name(engine)),
    );
}

fn case2(m: i64, n: i64, k: i64, dt: dnnl_data_type_t) -> Case {
    Case {
        src: md(&[m, k], dt),
        wei: md(&[k, n], dt),
        bias: None,
        dst: md(&[m, n], dt),
    }
}

// ---------------------------------------------------------------------------
// Tests.

#[test]
fn odd_and_empty_shapes() {
    let shapes = [
        (1, 1, 1),
        (7, 33, 65),
        (65, 7, 33),
        (33, 129, 7),
        (129, 65, 3),
        (12, 20, 36),
        (5, 3, 0),
        (0, 4, 3),
        (4, 0, 3),
    ];
    for engine in engines() {
        for &(m, n, k) in &shapes {
            run_case(&engine, &case2(m, n, k, dnnl_f32), &format!("{m}x{n}x{k}"));
        }
    }
}

#[test]
fn batch_broadcast_and_bias_patterns() {
    for engine in engines() {
        let f = dnnl_f32;
        let cases = [
            Case {
                src: md(&[2, 1, 5, 7], f),
                wei: md(&[1, 3, 7, 4], f),
                bias: Some(md(&[1, 3, 1, 4], f)),
                dst: md(&[2, 3, 5, 4], f),
            },
            // Alternating broadcast: no merging, launches looped on the host.
            Case {
                src: md(&[2, 1, 3, 1, 6, 5], f),
                wei: md(&[1, 2, 1, 2, 5, 9], f),
                bias: Some(md(&[2, 2, 1, 1, 6, 1], f)),
                dst: md(&[2, 2, 3, 2, 6, 9], f),
            },
            Case {
                src: md(&[3, 17, 9], f),
                wei: md(&[3, 9, 10], f),
                bias: Some(md(&[1, 1, 1], f)),
                dst: md(&[3, 17, 10], f),
            },
            Case {
                src: md(&[17, 9], f),
                wei: md(&[9, 10], f),
                bias: Some(md(&[17, 10], f)),
                dst: md(&[17, 10], f),
            },
            Case {
                src: md(&[17, 9], f),
                wei: md(&[9, 10], f),
                bias: Some(md(&[17, 1], f)),
                dst: md(&[17, 10], f),
            },
        ];
        for (i, c) in cases.iter().enumerate() {
            run_case(&engine, c, &format!("batch/bias case {i}"));
        }
    }
}

#[test]
fn transposed_operands_through_strides() {
    let f = dnnl_f32;
    let (m, n, k) = (19i64, 13i64, 21i64);
    for engine in engines() {
        let cases = [
            // weights `ba`, src `ab`.
            Case {
                src: md(&[m, k], f),
                wei: mds(&[k, n], f, &[1, k]),
                bias: Some(md(&[1, n], f)),
                dst: md(&[m, n], f),
            },
            // src `ba`, dst `ba`.
            Case {
                src: mds(&[m, k], f, &[1, m]),
                wei: md(&[k, n], f),
                bias: None,
                dst: mds(&[m, n], f, &[1, m]),
            },
            // Padded row strides, batched `acb`.
            Case {
                src: mds(&[2, m, k], f, &[k + 3, 2 * (k + 3), 1]),
                wei: mds(&[2, k, n], f, &[1, 2 * n, 2]),
                bias: None,
                dst: mds(&[2, m, n], f, &[m * n, n, 1]),
            },
        ];
        for (i, c) in cases.iter().enumerate() {
            run_case(&engine, c, &format!("strided case {i}"));
        }
    }
}

#[test]
fn half_types() {
    for engine in engines() {
        for (s, d, b) in [
            (dnnl_f16, dnnl_f16, dnnl_f32),
            (dnnl_f16, dnnl_f32, dnnl_f16),
            (dnnl_bf16, dnnl_bf16, dnnl_bf16),
            (dnnl_bf16, dnnl_f32, dnnl_f32),
        ] {
            let c = Case {
                src: md(&[2, 23, 37], s),
                wei: mds(&[2, 37, 18], s, &[37 * 18, 1, 37]),
                bias: Some(md(&[1, 1, 18], b)),
                dst: md(&[2, 23, 18], d),
            };
            run_case(&engine, &c, &format!("types {} {} {}", s.0, d.0, b.0));
        }
    }
}

/// f16 and bf16 over several 128 x 128 blocks and 32-deep K steps of the
/// tensor-core kernel (`ocl:gemm_mma` on NVIDIA GPUs): 8-wide loads (rows
/// of a multiple of 8 elements; on compute capability 9.0, wgmma with B
/// MN-major and K-major), element loads (odd rows), transposed operands, a
/// broadcast batch, edges in every dimension.
#[test]
fn half_types_over_several_blocks() {
    for engine in engines() {
        for dt in [dnnl_f16, dnnl_bf16] {
            let (m, n, k) = (260i64, 264i64, 136i64);
            let cases = [
                case2(m, n, k, dt),
                case2(257, 300, 129, dt),
                Case {
                    src: mds(&[m, k], dt, &[1, m]),
                    wei: mds(&[k, n], dt, &[1, k]),
                    bias: Some(md(&[1, n], dnnl_f32)),
                    dst: md(&[m, n], dnnl_f32),
                },
                Case {
                    src: md(&[m, k], dt),
                    wei: mds(&[k, n], dt, &[1, k]),
                    bias: None,
                    dst: md(&[m, n], dt),
                },
                Case {
                    src: md(&[2, 1, 130, 72], dt),
                    wei: md(&[1, 2, 72, 136], dt),
                    bias: Some(md(&[2, 2, 1, 136], dt)),
                    dst: md(&[2, 2, 130, 136], dt),
                },
            ];
            for (i, c) in cases.iter().enumerate() {
                run_case(&engine, c, &format!("type {} block case {i}", dt.0));
            }
        }
    }
}

/// u8 x s8 -> s32 over several blocks of the tensor-core kernel (16-byte
/// loads where K is a multiple of 16: wgmma on compute capability 9.0;
/// odd K and plain weights elsewhere), every value summed exactly: the
/// s32 results against the exact f64 reference, full-range operands.
#[test]
fn int8_over_several_blocks() {
    for engine in engines() {
        for (m, n, k, wei_k_fastest) in [
            (260i64, 264i64, 192i64, true),
            (130, 136, 257, true),
            (131, 136, 64, false),
        ] {
            let c = Case {
                src: md(&[m, k], dnnl_u8),
                wei: if wei_k_fastest {
                    mds(&[k, n], dnnl_s8, &[1, k])
                } else {
                    md(&[k, n], dnnl_s8)
                },
                bias: None,
                dst: md(&[m, n], dnnl_s32),
            };
            let s: Vec<f32> = (0..m * k).map(|i| ((i * 37 + 11) % 256) as f32).collect();
            let w: Vec<f32> = (0..k * n)
                .map(|i| ((i * 53 + 5) % 256) as f32 - 128.0)
                .collect();
            let op = Arc::new(MatmulOp::new(&c.src, &c.wei, None, &c.dst, None).unwrap());
            let sm = memory(&engine, &op.src, &s);
            let wm = memory(&engine, &op.weights, &w);
            let dm = memory(&engine, &op.dst, &vec![7.0; (m * n) as usize]);
            let args = [
                (DNNL_ARG_SRC, &sm),
                (DNNL_ARG_WEIGHTS, &wm),
                (DNNL_ARG_DST, &dm),
            ];
            let name = exec(&engine, op.clone(), &args).unwrap();
            // The f64 reference is exact here (sums below 2^53).
            let (want, _) = reference(&c, &s, &w, None, (1.0, &vec![1.0; n as usize]));
            for (i, (&got, &want)) in read(&dm).iter().zip(&want).enumerate() {
                assert_eq!(
                    got as i64,
                    want as i64,
                    "{m}x{n}x{k} element {i} on {} ({name})",
                    engine_name(&engine)
                );
            }
        }
    }
}

/// f32 under every floating-point math mode that allows tf32 (the
/// tensor-core kernel's tf32 path on NVIDIA GPUs, wgmma on compute
/// capability 9.0 where the weights are K-major; f32 elsewhere) over
/// several blocks. The test values are exact in bf16, so tf32 rounding keeps
/// them and the f32 tolerance holds.
#[test]
fn f32_under_fpmath_modes_over_several_blocks() {
    let f = dnnl_f32;
    for engine in engines() {
        for mode in [
            dnnl_fpmath_mode_tf32,
            dnnl_fpmath_mode_bf16,
            dnnl_fpmath_mode_any,
        ] {
            let mut attr = PrimitiveAttr::default();
            attr.set_fpmath(mode, false).unwrap();
            let cases = [
                case2(260, 264, 136, f),
                Case {
                    src: md(&[260, 136], f),
                    wei: mds(&[136, 264], f, &[1, 136]),
                    bias: None,
                    dst: md(&[260, 264], f),
                },
                Case {
                    src: mds(&[130, 70], f, &[1, 130]),
                    wei: md(&[70, 300], f),
                    bias: Some(md(&[1, 300], f)),
                    dst: md(&[130, 300], f),
                },
            ];
            for (i, c) in cases.iter().enumerate() {
                let what = format!("fpmath {} case {i}", mode.0);
                run_case_with(&engine, c, Some(&attr), &what);
            }
        }
    }
}

/// tf32 with n-fastest weights: on `wgmma` (Hopper) B goes through a K-major
/// copy in the scratchpad (`gemm::b_copy`), which these shapes take: at
/// least 512 rows per matrix of B, a depth padded to 16 bytes, B's own batch
/// dimensions (merged, broadcast, and three that do not merge). Elsewhere
/// they run as any tf32 GEMM. The scratchpad is reported, and a user
/// scratchpad serves it.
#[test]
fn tf32_n_major_weights_over_a_k_major_copy() {
    let f = dnnl_f32;
    let mut attr = PrimitiveAttr::default();
    attr.set_fpmath(dnnl_fpmath_mode_tf32, false).unwrap();
    let cases = [
        case2(520, 264, 136, f),
        Case {
            src: mds(&[520, 133], f, &[136, 1]),
            wei: md(&[133, 200], f),
            bias: Some(md(&[1, 200], f)),
            dst: md(&[520, 200], f),
        },
        Case {
            src: md(&[2, 520, 72], f),
            wei: md(&[2, 72, 200], f),
            bias: None,
            dst: md(&[2, 520, 200], f),
        },
        Case {
            src: md(&[3, 200, 64], f),
            wei: md(&[1, 64, 136], f),
            bias: None,
            dst: md(&[3, 200, 136], f),
        },
        Case {
            src: md(&[2, 2, 2, 512, 8], f),
            wei: mds(&[2, 2, 2, 8, 16], f, &[4096, 1024, 256, 16, 1]),
            bias: None,
            dst: md(&[2, 2, 2, 512, 16], f),
        },
    ];
    for engine in engines() {
        for (i, c) in cases.iter().enumerate() {
            run_case_with(&engine, c, Some(&attr), &format!("tf32 case {i}"));
        }
        // The copy's scratchpad, reported where wgmma runs, and passed by
        // the user.
        let c = &cases[0];
        let mut user = attr.clone();
        user.set_scratchpad_mode(dnnl_scratchpad_mode_user).unwrap();
        let op = Arc::new(MatmulOp::new(&c.src, &c.wei, None, &c.dst, Some(&user)).unwrap());
        let pd = PrimitiveDesc::new(engine.clone(), op.clone(), user).unwrap();
        let wgmma = engine
            .gpu("matmul")
            .is_ok_and(|ocl| pd.impl_name() == c"ocl:gemm_mma" && mma::wgmma(ocl, MmaType::Tf32));
        let bytes = if wgmma { 136 * 264 * 4 } else { 0 };
        assert_eq!(pd.scratchpad_size(), bytes, "on {}", engine_name(&engine));
        if bytes == 0 {
            continue;
        }
        let s = values(520 * 136, 1);
        let w = values(136 * 264, 2);
        let sm = memory(&engine, &op.src, &s);
        let wm = memory(&engine, &op.weights, &w);
        let dm = memory(&engine, &op.dst, &vec![7.0; 520 * 264]);
        let pad = memory(&engine, pd.scratchpad_md(), &[]);
        let args: ExecArgs = [
            (DNNL_ARG_SRC, sm),
            (DNNL_ARG_WEIGHTS, wm),
            (DNNL_ARG_DST, dm.clone()),
            (DNNL_ARG_SCRATCHPAD, pad),
        ]
        .into_iter()
        .collect();
        let flags = StreamFlags {
            out_of_order: false,
            profiling: false,
        };
        let stream = Stream::create(engine.clone(), flags).unwrap();
        pd.create_primitive()
            .unwrap()
            .execute(&stream, &args, &[])
            .unwrap();
        stream.wait().unwrap();
        let (want, mag) = reference(c, &s, &w, None, (1.0, &vec![1.0; 264]));
        check(
            &read(&dm),
            &want,
            &mag,
            Elem::F32,
            "tf32 with a user scratchpad",
        );
    }
}

#[test]
fn format_any_resolves_to_row_major() {
    let any = |dims: &[i64]| MemoryDesc::with_tag(dims, dnnl_f32, dnnl_format_tag_any).unwrap();
    let op = MatmulOp::new(
        &any(&[2, 3, 4]),
        &any(&[2, 4, 5]),
        None,
        &any(&[2, 3, 5]),
        None,
    )
    .unwrap();
    assert_eq!(*op.src, md(&[2, 3, 4], dnnl_f32));
    assert_eq!(*op.weights, md(&[2, 4, 5], dnnl_f32));
    assert_eq!(*op.dst, md(&[2, 3, 5], dnnl_f32));
    assert_eq!(op.verbose_problem(), "2x3x4:2x4x5:2x3x5");
    assert_eq!(op.inputs(), vec![DNNL_ARG_SRC, DNNL_ARG_WEIGHTS]);
    let op = MatmulOp::new(
        &any(&[3, 4]),
        &any(&[4, 5]),
        Some(&any(&[1, 5])),
        &any(&[3, 5]),
        None,
    )
    .unwrap();
    assert_eq!(**op.arg_md(DNNL_ARG_BIAS).unwrap(), md(&[1, 5], dnnl_f32));
    assert_eq!(
        op.inputs(),
        vec![DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS]
    );
}

#[test]
fn format_any_gives_int8_weights_k_innermost() {
    let any = |dims: &[i64], dt| MemoryDesc::with_tag(dims, dt, dnnl_format_tag_any).unwrap();
    let strided = |dims: &[i64], dt, strides: &[i64]| {
        MemoryDesc::with_strides(dims, dt, Some(strides)).unwrap()
    };
    let op = MatmulOp::new(
        &any(&[3, 4], dnnl_u8),
        &any(&[4, 5], dnnl_s8),
        None,
        &any(&[3, 5], dnnl_s32),
        None,
    )
    .unwrap();
    assert_eq!(*op.src, md(&[3, 4], dnnl_u8));
    assert_eq!(*op.weights, strided(&[4, 5], dnnl_s8, &[1, 4]));
    let op = MatmulOp::new(
        &any(&[2, 3, 4], dnnl_s8),
        &any(&[2, 4, 5], dnnl_s8),
        None,
        &any(&[2, 3, 5], dnnl_f32),
        None,
    )
    .unwrap();
    assert_eq!(*op.weights, strided(&[2, 4, 5], dnnl_s8, &[20, 1, 4]));
    assert_eq!(*op.dst, md(&[2, 3, 5], dnnl_f32));
}

#[test]
fn runtime_dimensions() {
    let r = RUNTIME_DIM;
    let f = dnnl_f32;
    for engine in engines() {
        let src = mds(&[r, r], f, &[r, 1]);
        let wei = mds(&[r, r], f, &[r, r]);
        let dst = mds(&[r, r], f, &[r, 1]);
        let bias = mds(&[1, r], f, &[r, 1]);
        let op = Arc::new(MatmulOp::new(&src, &wei, Some(&bias), &dst, None).unwrap());
        for &(m, n, k, wt) in &[(9i64, 14i64, 11i64, false), (3, 5, 40, true)] {
            let c = Case {
                src: md(&[m, k], f),
                wei: if wt {
                    mds(&[k, n], f, &[1, k])
                } else {
                    md(&[k, n], f)
                },
                bias: Some(md(&[1, n], f)),
                dst: md(&[m, n], f),
            };
            let s = values((m * k) as usize, 1);
            let w = values((k * n) as usize, 2);
            let b = values(n as usize, 3);
            let sm = memory(&engine, &c.src, &s);
            let wm = memory(&engine, &c.wei, &w);
            let bm = memory(&engine, c.bias.as_ref().unwrap(), &b);
            let dm = memory(&engine, &c.dst, &vec![0.0; (m * n) as usize]);
            let args = [
                (DNNL_ARG_SRC, &sm),
                (DNNL_ARG_WEIGHTS, &wm),
                (DNNL_ARG_BIAS, &bm),
                (DNNL_ARG_DST, &dm),
            ];
            exec(&engine, op.clone(), &args).unwrap();
            let (want, mag) = reference(&c, &s, &w, Some(&b), (1.0, &vec![1.0; n as usize]));
            check(&read(&dm), &want, &mag, Elem::F32, "run-time dims");
        }
        // A K that disagrees at execution.
        let sm = memory(&engine, &md(&[4, 5], f), &values(20, 1));
        let wm = memory(&engine, &md(&[6, 3], f), &values(18, 2));
        let bm = memory(&engine, &md(&[1, 3], f), &values(3, 3));
        let dm = memory(&engine, &md(&[4, 3], f), &values(12, 3));
        let args = [
            (DNNL_ARG_SRC, &sm),
            (DNNL_ARG_WEIGHTS, &wm),
            (DNNL_ARG_BIAS, &bm),
            (DNNL_ARG_DST, &dm),
        ];
        let err = exec(&engine, op.clone(), &args).unwrap_err();
        assert_eq!(err.status(), dnnl_invalid_arguments);
    }
}

#[test]
fn scales() {
    let f = dnnl_f32;
    let (m, n, k) = (11i64, 10i64, 9i64);
    for engine in engines() {
        for per_n in [false, true] {
            let mut attr = PrimitiveAttr::default();
            let spec = |mask| QuantSpec::with_mask(QuantKind::Scales, mask).unwrap();
            attr.set_quant(QuantKind::Scales, DNNL_ARG_SRC, spec(0))
                .unwrap();
            let wmask = if per_n { 2 } else { 0 };
            attr.set_quant(QuantKind::Scales, DNNL_ARG_WEIGHTS, spec(wmask))
                .unwrap();
            attr.set_quant(QuantKind::Scales, DNNL_ARG_DST, spec(0))
                .unwrap();
            let c = Case {
                src: md(&[m, k], f),
                wei: md(&[k, n], f),
                bias: Some(md(&[1, n], f)),
                dst: md(&[m, n], f),
            };
            let op = Arc::new(
                MatmulOp::new(&c.src, &c.wei, c.bias.as_ref(), &c.dst, Some(&attr)).unwrap(),
            );
            let s = values((m * k) as usize, 1);
            let w = values((k * n) as usize, 2);
            let b = values(n as usize, 3);
            let wsc: Vec<f32> = if per_n {
                (0..n).map(|i| 0.25 * (i + 1) as f32).collect()
            } else {
                vec![1.5]
            };
            let sm = memory(&engine, &c.src, &s);
            let wm = memory(&engine, &c.wei, &w);
            let bm = memory(&engine, c.bias.as_ref().unwrap(), &b);
            let dm = memory(&engine, &c.dst, &vec![0.0; (m * n) as usize]);
            let ssm = memory(&engine, &md(&[1], f), &[0.5]);
            let wsm = memory(&engine, &md(&[wsc.len() as i64], f), &wsc);
            let dsm = memory(&engine, &md(&[1], f), &[4.0]);
            let args = [
                (DNNL_ARG_SRC, &sm),
                (DNNL_ARG_WEIGHTS, &wm),
                (DNNL_ARG_BIAS, &bm),
                (DNNL_ARG_DST, &dm),
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &ssm),
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, &wsm),
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, &dsm),
            ];
            exec(&engine, op.clone(), &args).unwrap();
            let per: Vec<f32> = (0..n as usize)
                .map(|i| if per_n { wsc[i] } else { wsc[0] })
                .collect();
            let (want, mag) = reference(&c, &s, &w, Some(&b), (0.5, &per));
            let want: Vec<f64> = want.iter().map(|v| v / 4.0).collect();
            check(&read(&dm), &want, &mag, Elem::F32, "scales");
        }
    }
}

#[test]
fn post_ops_relu_and_sum() {
    use crate::core::attr::PostOp;
    let f = dnnl_f32;
    let (m, n, k) = (9i64, 7i64, 5i64);
    for engine in engines() {
        let mut attr = PrimitiveAttr::default();
        attr.post_ops
            .append(|| PostOp::sum(1.0, 0, dnnl_data_type_undef))
            .unwrap();
        attr.post_ops
            .append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))
            .unwrap();
        let c = case2(m, n, k, f);
        let op = Arc::new(MatmulOp::new(&c.src, &c.wei, None, &c.dst, Some(&attr)).unwrap());
        let s = values((m * k) as usize, 1);
        let w = values((k * n) as usize, 2);
        let old = values((m * n) as usize, 4);
        let sm = memory(&engine, &c.src, &s);
        let wm = memory(&engine, &c.wei, &w);
        let dm = memory(&engine, &c.dst, &old);
        let args = [
            (DNNL_ARG_SRC, &sm),
            (DNNL_ARG_WEIGHTS, &wm),
            (DNNL_ARG_DST, &dm),
        ];
        exec(&engine, op.clone(), &args).unwrap();
        let (want, mag) = reference(&c, &s, &w, None, (1.0, &vec![1.0; n as usize]));
        let want: Vec<f64> = want
            .iter()
            .zip(&old)
            .map(|(v, o)| (v + f64::from(*o)).max(0.0))
            .collect();
        check(&read(&dm), &want, &mag, Elem::F32, "post-ops");
    }
}

#[test]
fn descriptor_checks() {
    let f = dnnl_f32;
    let status = |r: Result<MatmulOp>| r.err().map(|e| e.status());
    let new = |s: &MemoryDesc, w: &MemoryDesc, b: Option<&MemoryDesc>, d: &MemoryDesc| {
        MatmulOp::new(s, w, b, d, None)
    };
    let inv = Some(dnnl_invalid_arguments);
    let unimp = Some(dnnl_unimplemented);
    // K mismatch, M / N mismatch, ndims, batch.
    assert_eq!(
        status(new(&md(&[2, 3], f), &md(&[4, 5], f), None, &md(&[2, 5], f))),
        inv
    );
    assert_eq!(
        status(new(&md(&[2, 3], f), &md(&[3, 5], f), None, &md(&[3, 5], f))),
        inv
    );
    assert_eq!(
        status(new(
            &md(&[2, 3], f),
            &md(&[1, 3, 5], f),
            None,
            &md(&[2, 5], f)
        )),
        inv
    );
    assert_eq!(
        status(new(&md(&[3], f), &md(&[3], f), None, &md(&[3], f))),
        inv
    );
    assert_eq!(
        status(new(
            &md(&[2, 2, 3], f),
            &md(&[3, 3, 5], f),
            None,
            &md(&[3, 2, 5], f)
        )),
        inv
    );
    // Bias that does not broadcast.
    let bad_bias = md(&[2, 4], f);
    assert_eq!(
        status(new(
            &md(&[2, 3], f),
            &md(&[3, 5], f),
            Some(&bad_bias),
            &md(&[2, 5], f)
        )),
        inv
    );
    // The zero descriptor as bias means none.
    let op = new(
        &md(&[2, 3], f),
        &md(&[3, 5], f),
        Some(&MemoryDesc::zero()),
        &md(&[2, 5], f),
    )
    .unwrap();
    assert!(op.arg_md(DNNL_ARG_BIAS).is_none());
    // Int8 src with float weights: invalid (as upstream); float src with
    // int8 weights, mixed float types, blocked layouts: unimplemented.
    assert_eq!(
        status(new(
            &md(&[2, 3], dnnl_s8),
            &md(&[3, 5], f),
            None,
            &md(&[2, 5], f)
        )),
        inv
    );
    assert_eq!(
        status(new(
            &md(&[2, 3], f),
            &md(&[3, 5], dnnl_s8),
            None,
            &md(&[2, 5], f)
        )),
        unimp
    );
    assert!(
        new(
            &md(&[2, 3], dnnl_s8),
            &md(&[3, 5], dnnl_u8),
            Some(&md(&[1, 5], dnnl_s32)),
            &md(&[2, 5], dnnl_f16)
        )
        .is_ok()
    );
    assert_eq!(
        status(new(
            &md(&[2, 3], f),
            &md(&[3, 5], dnnl_bf16),
            None,
            &md(&[2, 5], f)
        )),
        unimp
    );
    let blocked = MemoryDesc::with_tag(&[16, 16], f, dnnl_AB16b16a).unwrap();
    assert_eq!(
        status(new(&md(&[16, 16], f), &blocked, None, &md(&[16, 16], f))),
        unimp
    );
    // Zero points and a bad weights scale mask: unimplemented.
    let mut attr = PrimitiveAttr::default();
    attr.set_quant(
        QuantKind::ZeroPoints,
        DNNL_ARG_SRC,
        QuantSpec::with_mask(QuantKind::ZeroPoints, 0).unwrap(),
    )
    .unwrap();
    let with = |attr: &PrimitiveAttr| {
        attr_checked(
            MatmulOp::new(
                &md(&[2, 3], f),
                &md(&[3, 5], f),
                None,
                &md(&[2, 5], f),
                Some(attr),
            ),
            attr,
        )
    };
    assert_eq!(status(with(&attr)), unimp);
    let mut attr = PrimitiveAttr::default();
    attr.set_quant(
        QuantKind::Scales,
        DNNL_ARG_WEIGHTS,
        QuantSpec::with_mask(QuantKind::Scales, 1).unwrap(),
    )
    .unwrap();
    assert_eq!(status(with(&attr)), unimp);
    let attr = PrimitiveAttr {
        accumulation: dnnl_accumulation_mode_s32,
        ..Default::default()
    };
    assert_eq!(status(with(&attr)), unimp);
    let attr = PrimitiveAttr {
        accumulation: dnnl_accumulation_mode_relaxed,
        ..Default::default()
    };
    assert!(with(&attr).is_ok());

    // Int8 (3-D): zero points of src per tensor or per K (mask 4), weights
    // and dst per tensor or per N (mask 4); src per M x K (6), weights per
    // K (2) and dst per M (2) unimplemented; s32 accumulation allowed.
    let int8 = |arg: i32, mask: i32| {
        let mut attr = PrimitiveAttr {
            accumulation: dnnl_accumulation_mode_s32,
            ..Default::default()
        };
        attr.set_quant(
            QuantKind::ZeroPoints,
            arg,
            QuantSpec::with_mask(QuantKind::ZeroPoints, mask).unwrap(),
        )
        .unwrap();
        let op = attr_checked(
            MatmulOp::new(
                &md(&[2, 4, 3], dnnl_u8),
                &md(&[1, 3, 5], dnnl_s8),
                None,
                &md(&[2, 4, 5], dnnl_s32),
                Some(&attr),
            ),
            &attr,
        );
        op.map(|op| {
            let e = op.epilogue();
            (e.zp_src, e.zp_wei, e.zp_dst)
        })
    };
    use crate::prims::common::gemm::Zp;
    assert_eq!(
        int8(DNNL_ARG_SRC, 0).ok(),
        Some((Some(Zp::Common), None, None))
    );
    assert_eq!(
        int8(DNNL_ARG_SRC, 4).ok(),
        Some((Some(Zp::PerK), None, None))
    );
    assert_eq!(
        int8(DNNL_ARG_WEIGHTS, 4).ok(),
        Some((None, Some(Zp::PerN), None))
    );
    assert_eq!(
        int8(DNNL_ARG_DST, 4).ok(),
        Some((None, None, Some(Zp::PerN)))
    );
    for (arg, mask) in [(DNNL_ARG_SRC, 6), (DNNL_ARG_WEIGHTS, 2), (DNNL_ARG_DST, 2)] {
        assert_eq!(
            int8(arg, mask).err().map(|e| e.status()),
            unimp,
            "{arg} {mask}"
        );
    }
}

/// The GPU tile configurations (128 x 128 block tiles with and without
/// 16-byte local reads or a second local buffer, and `Tiles::for_gemm`'s
/// NVIDIA choices), run on
/// whatever OpenCL devices are present (CPU runtimes otherwise get the small one).
#[test]
fn gpu_tiles_on_every_device() {
    use crate::core::primitive::ExecContext;
    let f = dnnl_f32;
    for engine in engines().into_iter().skip(1) {
        // OpenCL engines only (Level Zero engines are swept elsewhere).
        let Ok(ocl) = engine.ocl("test") else {
            continue;
        };
        let cases = [
            case2(129, 131, 33, f),
            Case {
                src: mds(&[2, 37, 20], f, &[1, 2, 74]),
                wei: md(&[1, 20, 150], f),
                bias: Some(md(&[1, 1, 150], f)),
                dst: md(&[2, 37, 150], f),
            },
        ];
        // With and without the 16-byte local reads.
        let tiles = crate::prims::common::gemm::ocl::Tiles::GPU;
        let no_vlds = crate::prims::common::gemm::ocl::Tiles {
            vlds: false,
            ..tiles
        };
        // Two local buffers (DBUF): small enough for any device, and the
        // NVIDIA choice.
        let double_small = crate::prims::common::gemm::ocl::Tiles {
            tk: 8,
            dbuf: true,
            ..tiles
        };
        let double_wide = crate::prims::common::gemm::ocl::Tiles::GPU_WIDE_DB;
        for (i, (c, tiles)) in cases
            .iter()
            .flat_map(|c| {
                [
                    (c, tiles),
                    (c, no_vlds),
                    (c, crate::prims::common::gemm::ocl::Tiles::GPU_LARGE),
                    (c, crate::prims::common::gemm::ocl::Tiles::GPU_WIDE),
                    (c, crate::prims::common::gemm::ocl::Tiles::GPU_NARROW),
                    (c, crate::prims::common::gemm::ocl::Tiles::GPU_SLIM),
                    (c, double_small),
                    (c, double_wide),
                ]
            })
            .filter(|(_, t)| {
                // The 49 KiB of GPU_WIDE_DB only where the device has them.
                let fits = t.local_bytes() <= ocl.info().local_mem_size;
                if !fits {
                    eprintln!(
                        "skip: tiles {t:?} on {}: {} bytes of local memory, the device has {}",
                        ocl.info().name,
                        t.local_bytes(),
                        ocl.info().local_mem_size
                    );
                }
                fits
            })
            .enumerate()
        {
            let nel = |md: &MemoryDesc| md.dims().iter().product::<i64>() as usize;
            let s = values(nel(&c.src), 1);
            let w = values(nel(&c.wei), 2);
            let b = c.bias.as_ref().map(|b| values(nel(b), 3));
            let g = build_gemm(&c.src, &c.wei, c.bias.as_ref(), &c.dst).unwrap();
            let kernels = crate::prims::common::gemm::ocl::GemmKernels::new(
                g.a.elem,
                g.b.elem,
                g.c.elem,
                g.bias.map(|b| b.elem),
                &Epilogue::default(),
                tiles,
            );
            let sm = memory(&engine, &c.src, &s);
            let wm = memory(&engine, &c.wei, &w);
            let dm = memory(&engine, &c.dst, &vec![0.0; nel(&c.dst)]);
            let mut args: ExecArgs = [(DNNL_ARG_SRC, sm), (DNNL_ARG_WEIGHTS, wm)]
                .into_iter()
                .collect();
            args.insert(DNNL_ARG_DST, dm.clone());
            if let (Some(bmd), Some(bv)) = (&c.bias, &b) {
                args.insert(DNNL_ARG_BIAS, memory(&engine, bmd, bv));
            }
            let stream = Stream::create(
                engine.clone(),
                StreamFlags {
                    out_of_order: false,
                    profiling: false,
                },
            )
            .unwrap();
            let ctx = ExecContext {
                stream: &stream,
                args: &args,
                deps: &[],
                scratchpad: None,
            };
            let gargs = GemmArgs {
                a: DNNL_ARG_SRC,
                b: DNNL_ARG_WEIGHTS,
                c: DNNL_ARG_DST,
                bias: c.bias.as_ref().map(|_| DNNL_ARG_BIAS),
            };
            kernels
                .enqueue(&ctx, &g, &Epilogue::default(), gargs)
                .unwrap();
            stream.wait().unwrap();
            let n = c.dst.dims()[c.dst.ndims() - 1] as usize;
            let (want, mag) = reference(c, &s, &w, b.as_deref(), (1.0, &vec![1.0; n]));
            check(
                &read(&dm),
                &want,
                &mag,
                Elem::F32,
                &format!("GPU tiles case {i} on {}", ocl.info().name),
            );
        }
    }
}
