//! Eltwise against an f64 reference: every algorithm forward and backward,
//! every data type, dense, strided, blocked and padded layouts, sub-memories,
//! in-place and empty tensors, on the CPU engine and on every OpenCL device
//! present (PoCL, Intel's CPU runtime).

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::{Engine, EngineKind};
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecArgs, PrimitiveDesc};
use crate::core::stream::{Stream, StreamFlags};
use crate::prims::common::dt;
use crate::prims::common::testutil::{engine_name, engines, indices, md};

// ---------------------------------------------------------------------------
// The reference, in f64.

fn erf_series(x: f64) -> f64 {
    // erf(x) = 2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (2n+1)!!: no cancellation.
    let x2 = x * x;
    let (mut term, mut sum, mut n) = (x, x, 0.0);
    while term.abs() > 1e-18 * sum.abs() {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
    }
    2.0 / std::f64::consts::PI.sqrt() * (-x2).exp() * sum
}

fn erfc_ref(y: f64) -> f64 {
    if y >= 3.0 {
        // Continued fraction: exp(-y^2)/sqrt(pi) / (y + (1/2)/(y + 1/(y + (3/2)/(y + ...)))).
        let mut f = y;
        for k in (1..=80).rev() {
            f = y + (k as f64 / 2.0) / f;
        }
        (-y * y).exp() / std::f64::consts::PI.sqrt() / f
    } else if y <= -3.0 {
        2.0 - erfc_ref(-y)
    } else {
        1.0 - erf_series(y)
    }
}

fn logistic_ref(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn soft_relu_ref(x: f64, alpha: f64) -> f64 {
    (alpha * x).exp().ln_1p() / alpha
}

/// `alpha * x + beta` as the kernels round it, for the branches of the hard
/// functions (so that boundaries agree).
fn lin32(x: f32, alpha: f32, beta: f32) -> f32 {
    alpha * x + beta
}

fn fwd_ref(alg: Alg, alpha: f32, beta: f32, x: f32) -> f64 {
    let (a, b, s) = (f64::from(alpha), f64::from(beta), f64::from(x));
    let c = (2.0 / std::f64::consts::PI).sqrt();
    match alg.forward_base() {
        Alg::Relu => {
            if s > 0.0 {
                s
            } else {
                a * s
            }
        }
        Alg::Tanh => s.tanh(),
        Alg::Elu => {
            if s > 0.0 {
                s
            } else {
                a * s.exp_m1()
            }
        }
        Alg::Square => s * s,
        Alg::Abs => s.abs(),
        Alg::Sqrt => s.sqrt(),
        Alg::Linear => a * s + b,
        Alg::SoftRelu => {
            if alpha * x < 88.72283 {
                soft_relu_ref(s, a)
            } else {
                s
            }
        }
        Alg::HardSigmoid => f64::from(lin32(x, alpha, beta)).clamp(0.0, 1.0),
        Alg::Logistic => logistic_ref(s),
        Alg::Exp => s.exp(),
        Alg::GeluTanh => 0.5 * s * (1.0 + (c * s * (1.0 + 0.044715 * s * s)).tanh()),
        Alg::Swish => s * logistic_ref(a * s),
        Alg::Log => s.ln(),
        Alg::Clip | Alg::ClipV2 => s.max(a).min(b),
        Alg::Pow => a * s.powf(b),
        Alg::GeluErf => 0.5 * s * erfc_ref(-s / 2f64.sqrt()),
        Alg::Round => s.round_ties_even(),
        Alg::Mish => s * soft_relu_ref(s, 1.0).tanh(),
        Alg::HardSwish => s * f64::from(lin32(x, alpha, beta)).clamp(0.0, 1.0),
        _ => unreachable!(),
    }
}

fn bwd_ref(alg: Alg, alpha: f32, beta: f32, dd: f32, x: f32) -> f64 {
    let (a, b, d, s) = (
        f64::from(alpha),
        f64::from(beta),
        f64::from(dd),
        f64::from(x),
    );
    let c = (2.0 / std::f64::consts::PI).sqrt();
    let g = match alg {
        Alg::Relu | Alg::ReluDst => {
            if s > 0.0 {
                1.0
            } else {
                a
            }
        }
        Alg::Tanh => 1.0 - s.tanh().powi(2),
        Alg::TanhDst => 1.0 - s * s,
        Alg::Elu => {
            if s > 0.0 {
                1.0
            } else {
                a * s.exp()
            }
        }
        Alg::EluDst => {
            if s > 0.0 {
                1.0
            } else {
                s + a
            }
        }
        Alg::Square => 2.0 * s,
        Alg::Abs => s.signum() * f64::from(u8::from(s != 0.0)),
        Alg::Sqrt => 0.5 / s.sqrt(),
        Alg::SqrtDst => 0.5 / s,
        Alg::Linear => a,
        Alg::SoftRelu => logistic_ref(a * s),
        Alg::HardSigmoid => {
            let v = lin32(x, alpha, beta);
            if v > 0.0 && v < 1.0 { a } else { 0.0 }
        }
        Alg::Logistic => logistic_ref(s) * (1.0 - logistic_ref(s)),
        Alg::LogisticDst => s * (1.0 - s),
        Alg::Exp => s.exp(),
        Alg::ExpDst => s,
        Alg::GeluTanh => {
            let t = (c * s * (1.0 + 0.044715 * s * s)).tanh();
            let dg = c * (1.0 + 3.0 * 0.044715 * s * s);
            0.5 * (1.0 + t) * (1.0 + s * (1.0 - t) * dg)
        }
        Alg::Swish => {
            let v = logistic_ref(a * s);
            v + a * s * v * (1.0 - v)
        }
        Alg::Log => 1.0 / s,
        Alg::Clip => f64::from(u8::from(alpha < x && x <= beta)),
        Alg::ClipV2 | Alg::ClipV2Dst => f64::from(u8::from(alpha < x && x < beta)),
        Alg::Pow => {
            if beta == 0.0 {
                0.0
            } else {
                a * b * s.powf(b - 1.0)
            }
        }
        Alg::GeluErf => {
            0.5 * erfc_ref(-s / 2f64.sqrt())
                + s * (-0.5 * s * s).exp() / (2.0 * std::f64::consts::PI).sqrt()
        }
        Alg::Mish => {
            let t = soft_relu_ref(s, 1.0).tanh();
            t + s * (1.0 - t * t) * logistic_ref(s)
        }
        Alg::HardSwish => {
            let v = lin32(x, alpha, beta);
            if v <= 0.0 {
                0.0
            } else if v >= 1.0 {
                1.0
            } else {
                2.0 * a * s + b
            }
        }
        Alg::Round => unreachable!(),
    };
    // The kernels give exact zeros where the derivative is zero, even for
    // an infinite gradient; elsewhere dd * g.
    if g == 0.0 { 0.0 } else { d * g }
}

/// Whether `got` matches `want` (rounded to f32 first): both NaN, equal
/// infinities, or within `atol + rtol * |want|`.
fn close(got: f32, want: f64, atol: f64, rtol: f64) -> bool {
    let w = want as f32;
    if w.is_nan() || got.is_nan() {
        return w.is_nan() && got.is_nan();
    }
    if w.is_infinite() || got.is_infinite() {
        return w == got;
    }
    (f64::from(got) - f64::from(w)).abs() <= atol + rtol * f64::from(w).abs()
}

/// Each algorithm with the parameters tested (some twice).
fn alg_params() -> Vec<(Alg, f32, f32)> {
    let mut cases = Vec::new();
    for alg in Alg::all() {
        let (alpha, beta) = match alg {
            Alg::Relu | Alg::ReluDst => (0.2, 0.0),
            Alg::Elu | Alg::EluDst => (0.7, 0.0),
            Alg::Linear => (1.5, -0.5),
            Alg::SoftRelu => (2.5, 0.0),
            Alg::HardSigmoid => (0.2, 0.5),
            Alg::Swish => (0.5, 0.0),
            Alg::Clip | Alg::ClipV2 | Alg::ClipV2Dst => (-1.0, 2.0),
            Alg::Pow => (1.5, 2.0),
            Alg::HardSwish => (1.0 / 6.0, 0.5),
            _ => (0.0, 0.0),
        };
        cases.push((alg, alpha, beta));
    }
    cases.extend([
        (Alg::Relu, 0.0, 0.0),
        (Alg::SoftRelu, 1.0, 0.0),
        (Alg::SoftRelu, -1.0, 0.0),
        (Alg::Pow, 2.0, 0.5),
        (Alg::Pow, 1.0, -1.0),
        (Alg::Pow, 1.0, 3.0),
        (Alg::Pow, 1.0, 0.0),
        (Alg::HardSwish, 0.3, 0.2),
    ]);
    cases
}

/// Inputs: edge values, then pseudo-random ones in [-6, 6).
fn inputs(n: usize) -> Vec<f32> {
    let edges = [
        -100.0, -20.0, -5.5, -3.0, -2.5, -1.5, -1.0, -0.75, -0.5, -0.1, -1e-4, 0.0, 1e-4, 0.1,
        0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.5, 20.0, 88.0, 100.0,
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut v: Vec<f32> = edges
        .iter()
        .copied()
        .cycle()
        .take(n.min(edges.len()))
        .collect();
    while v.len() < n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        v.push(((state >> 40) as f32 / (1u64 << 24) as f32) * 12.0 - 6.0);
    }
    v
}

/// Gradients: pseudo-random in [-2, 2), never 0.
fn grads(n: usize) -> Vec<f32> {
    inputs(n + 27)[27..]
        .iter()
        .map(|v| v / 3.0 + 0.01)
        .collect()
}

// ---------------------------------------------------------------------------
// Running through the object model.

/// A memory object of some descriptor, over a byte buffer (`backing`) that
/// holds the whole span of the descriptor: a sub-memory's data lies past
/// its own descriptor's size.
struct TestMem {
    real: Arc<Memory>,
    backing: Arc<Memory>,
}

fn bytes_len(md: &MemoryDesc) -> usize {
    let l = Layout::new(md).unwrap();
    l.byte_range().1.max(md.size(0))
}

/// Memory of `md` on `engine`, holding `values` (logical order).
fn memory(engine: &Arc<Engine>, md: &MemoryDesc, values: &[f32]) -> TestMem {
    let len = bytes_len(md);
    let byte_md = MemoryDesc::with_tag(&[len as i64], dnnl_u8, dnnl_a).unwrap();
    let backing = Memory::create(engine.clone(), byte_md, None, &[DataHandle::Allocate]).unwrap();
    let handle = match backing.data_handle(0).unwrap() {
        0 => DataHandle::Allocate,
        h => DataHandle::User(h),
    };
    let real = Memory::create(engine.clone(), md.clone(), None, &[handle]).unwrap();
    let mem = TestMem { real, backing };
    write(&mem, values);
    mem
}

impl TestMem {
    fn same(&self) -> TestMem {
        TestMem {
            real: self.real.clone(),
            backing: self.backing.clone(),
        }
    }
}

fn write(mem: &TestMem, values: &[f32]) {
    let md = mem.real.md().clone();
    let len = mem.backing.md().size(0);
    if len == 0 {
        return;
    }
    let elem = Elem::from_c(md.data_type()).unwrap();
    let addr = mem.backing.map(0).unwrap();
    // SAFETY: a mapping of the whole buffer.
    let bytes = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) };
    for (idx, v) in indices(md.dims()).iter().zip(values) {
        let off = md.element_offset(&idx[..md.ndims()]).unwrap() as usize;
        dt::store(elem, bytes, off, *v);
    }
    mem.backing.unmap(0, addr).unwrap();
}

/// The logical values of `mem`, and the raw bytes of its buffer.
fn read(mem: &TestMem) -> (Vec<f32>, Vec<u8>) {
    let md = mem.real.md().clone();
    let len = mem.backing.md().size(0);
    if len == 0 {
        return (Vec::new(), Vec::new());
    }
    let elem = Elem::from_c(md.data_type()).unwrap();
    let addr = mem.backing.map(0).unwrap();
    // SAFETY: a mapping of the whole buffer.
    let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, len) }.to_vec();
    mem.backing.unmap(0, addr).unwrap();
    let values = indices(md.dims())
        .iter()
        .map(|idx| {
            dt::load(
                elem,
                &bytes,
                md.element_offset(&idx[..md.ndims()]).unwrap() as usize,
            )
        })
        .collect();
    (values, bytes)
}

/// Creates and executes `op` on `engine`; returns the implementation's name.
fn exec(engine: &Arc<Engine>, op: EltwiseOp, args: &[(i32, &TestMem)]) -> String {
    let op = Arc::new(op);
    let pd = PrimitiveDesc::create(engine.clone(), op.clone()).unwrap();
    let name = pd.impl_name().to_string_lossy().into_owned();
    let prim = pd.create_primitive().unwrap();
    let stream = Stream::create(
        engine.clone(),
        StreamFlags {
            out_of_order: false,
            profiling: false,
        },
    )
    .unwrap();
    let args: ExecArgs = args.iter().map(|(a, m)| (*a, m.real.clone())).collect();
    prim.execute(&stream, &args, &[]).unwrap();
    stream.wait().unwrap();
    name
}

fn fwd_op(alg: Alg, alpha: f32, beta: f32, src: &MemoryDesc, dst: &MemoryDesc) -> EltwiseOp {
    EltwiseOp::forward(dnnl_forward_training, alg.to_c(), src, dst, alpha, beta).unwrap()
}

/// The value an element of type `elem` holds for `v`.
fn rounded(elem: Elem, v: f32) -> f32 {
    let mut b = [0u8; 4];
    dt::store(elem, &mut b, 0, v);
    dt::load(elem, &b, 0)
}

/// (atol, rtol) for results stored as `elem`.
fn tolerance(elem: Elem) -> (f64, f64) {
    match elem {
        Elem::F32 => (2e-6, 2e-5),
        Elem::F16 => (1e-3, 2e-3),
        Elem::Bf16 => (1e-2, 1.6e-2),
        _ => (0.0, 0.0),
    }
}

// ---------------------------------------------------------------------------
// Tests.

#[test]
fn reference_erfc_is_accurate() {
    // Values of erfc from tables.
    for (y, want) in [
        (0.0, 1.0),
        (0.5, 0.479_500_122_186_953_5),
        (1.0, 0.157_299_207_050_285_13),
        (2.0, 0.004_677_734_981_047_266),
        (3.0, 2.209_049_699_858_544e-5),
        (4.0, 1.541_725_790_028_002e-8),
        (-1.0, 1.842_700_792_949_715),
    ] {
        assert!(
            (erfc_ref(y) - want).abs() <= 1e-11 * want,
            "erfc({y}) = {}",
            erfc_ref(y)
        );
    }
    for y in [-5.0f32, -1.0, -0.1, 0.0, 0.3, 1.7, 3.0, 4.5, 7.0] {
        let got = f64::from(crate::prims::common::eltwise_alg::erfc(y));
        let want = erfc_ref(f64::from(y));
        assert!(
            (got - want).abs() <= 2e-7 * want,
            "erfc({y}): {got} vs {want}"
        );
    }
    // The f32 formula over the whole range where erfc is a normal f32.
    let mut worst = 0f64;
    for i in -900..=920 {
        let y = i as f32 * 0.01;
        let got = f64::from(crate::prims::common::eltwise_alg::erfc(y));
        let want = erfc_ref(f64::from(y));
        worst = worst.max((got - want).abs() / want);
    }
    assert!(worst <= 1e-6, "erfc: relative error {worst}");
    let mut worst = 0f64;
    for i in -8700..=8800 {
        let x = i as f32 * 0.01;
        let got = f64::from(crate::prims::common::eltwise_alg::exp_f32(x));
        let want = f64::from(x).exp();
        worst = worst.max((got - want).abs() / want);
    }
    assert!(worst <= 3e-7, "exp: relative error {worst}");
    assert_eq!(crate::prims::common::eltwise_alg::exp_f32(-100.0), 0.0);
    assert_eq!(
        crate::prims::common::eltwise_alg::exp_f32(f32::NEG_INFINITY),
        0.0
    );
    assert!(crate::prims::common::eltwise_alg::exp_f32(f32::NAN).is_nan());
}

/// Every algorithm, forward then backward, f32, dense, on every engine.
#[test]
fn every_algorithm_matches_the_reference() {
    let n = 1027; // not a multiple of 4: the OpenCL tail too
    let x = inputs(n);
    let dd = grads(n);
    let f32md = md(&[n as i64], dnnl_f32, dnnl_a);
    for engine in engines() {
        let ename = engine_name(&engine);
        for (alg, alpha, beta) in alg_params() {
            let src = memory(&engine, &f32md, &x);
            let dst = memory(&engine, &f32md, &[]);
            let name = exec(
                &engine,
                fwd_op(alg, alpha, beta, &f32md, &f32md),
                &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
            );
            assert!(name.ends_with("dense") || name.ends_with("vec4"), "{name}");
            let y = read(&dst).0;
            for i in 0..n {
                let want = fwd_ref(alg, alpha, beta, x[i]);
                assert!(
                    close(y[i], want, 2e-6, 2e-5),
                    "{ename} {alg:?}({alpha}, {beta}) fwd x={}: {} vs {want}",
                    x[i],
                    y[i]
                );
            }
            if alg == Alg::Round {
                continue;
            }
            let data = if alg.use_dst() { &dst } else { &src };
            let data_values = if alg.use_dst() { &y } else { &x };
            let ddm = memory(&engine, &f32md, &dd);
            let ds = memory(&engine, &f32md, &[]);
            let op = EltwiseOp::backward(alg.to_c(), &f32md, &f32md, &f32md, alpha, beta).unwrap();
            let data_arg = if alg.use_dst() {
                DNNL_ARG_DST
            } else {
                DNNL_ARG_SRC
            };
            exec(
                &engine,
                op,
                &[
                    (data_arg, data),
                    (DNNL_ARG_DIFF_DST, &ddm),
                    (DNNL_ARG_DIFF_SRC, &ds),
                ],
            );
            let g = read(&ds).0;
            for i in 0..n {
                let want = bwd_ref(alg, alpha, beta, dd[i], data_values[i]);
                assert!(
                    close(g[i], want, 2e-6, 2e-5),
                    "{ename} {alg:?}({alpha}, {beta}) bwd x={} dd={}: {} vs {want}",
                    data_values[i],
                    dd[i],
                    g[i]
                );
            }
        }
    }
}

/// f16 and bf16 (forward and backward) and the integer types (forward).
#[test]
fn data_types() {
    let n = 203;
    let x: Vec<f32> = inputs(n + 27)[27..].iter().map(|v| v * 0.6).collect();
    let dd = grads(n);
    let algs = [(Alg::GeluErf, 0.0, 0.0), (Alg::EluDst, 0.5, 0.0)];
    for engine in engines() {
        let ename = engine_name(&engine);
        for dt in [dnnl_f16, dnnl_bf16] {
            let elem = Elem::from_c(dt).unwrap();
            let (atol, rtol) = tolerance(elem);
            let m = md(&[7, n as i64 / 7], dt, dnnl_ab);
            let xr: Vec<f32> = x.iter().map(|&v| rounded(elem, v)).collect();
            let ddr: Vec<f32> = dd.iter().map(|&v| rounded(elem, v)).collect();
            for (alg, alpha, beta) in algs {
                let src = memory(&engine, &m, &xr);
                let dst = memory(&engine, &m, &[]);
                exec(
                    &engine,
                    fwd_op(alg, alpha, beta, &m, &m),
                    &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
                );
                let y = read(&dst).0;
                for i in 0..y.len() {
                    let want = fwd_ref(alg, alpha, beta, xr[i]);
                    assert!(
                        close(y[i], want, atol, rtol),
                        "{ename} {dt:?} {alg:?} fwd {}: {} vs {want}",
                        xr[i],
                        y[i]
                    );
                }
                let ddm = memory(&engine, &m, &ddr);
                let ds = memory(&engine, &m, &[]);
                let op = EltwiseOp::backward(alg.to_c(), &m, &m, &m, alpha, beta).unwrap();
                let (data_arg, data, data_values) = if alg.use_dst() {
                    (DNNL_ARG_DST, &dst, &y)
                } else {
                    (DNNL_ARG_SRC, &src, &xr)
                };
                exec(
                    &engine,
                    op,
                    &[
                        (data_arg, data),
                        (DNNL_ARG_DIFF_DST, &ddm),
                        (DNNL_ARG_DIFF_SRC, &ds),
                    ],
                );
                let g = read(&ds).0;
                for i in 0..g.len() {
                    let want = bwd_ref(alg, alpha, beta, ddr[i], data_values[i]);
                    assert!(
                        close(g[i], want, atol * 2.0, rtol),
                        "{ename} {dt:?} {alg:?} bwd: {} vs {want}",
                        g[i]
                    );
                }
            }
        }
        // Integers: relu and linear (and a _use_dst_ variant), rounding half
        // to even and saturating.
        for dt in [dnnl_s8, dnnl_u8, dnnl_s32] {
            let elem = Elem::from_c(dt).unwrap();
            let values: Vec<f32> = (0..64)
                .map(|i| rounded(elem, (i as f32 - 30.0) * 5.0 + 0.0))
                .collect();
            let m = md(&[4, 16], dt, dnnl_ab);
            for (alg, alpha, beta) in [
                (Alg::Relu, 0.5, 0.0),
                (Alg::Linear, 2.5, -3.0),
                (Alg::ExpDst, 0.0, 0.0),
            ] {
                let src = memory(&engine, &m, &values);
                let dst = memory(&engine, &m, &[]);
                exec(
                    &engine,
                    fwd_op(alg, alpha, beta, &m, &m),
                    &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
                );
                let y = read(&dst).0;
                for i in 0..y.len() {
                    // Exact but for a last-bit difference in exp before rounding.
                    let want = rounded(
                        elem,
                        crate::prims::common::eltwise_alg::fwd(alg, alpha, beta, values[i]),
                    );
                    let slack = if elem == Elem::S32 {
                        1.0 + want.abs() * 1e-6
                    } else {
                        0.0
                    };
                    assert!(
                        (y[i] - want).abs() <= slack,
                        "{ename} {dt:?} {alg:?} {}: {} vs {want}",
                        values[i],
                        y[i]
                    );
                }
            }
        }
        // Mixed types (ours): f32 source, bf16 destination; s8 source, f32 destination.
        let a = md(&[5, 9], dnnl_f32, dnnl_ab);
        let b = md(&[5, 9], dnnl_bf16, dnnl_ba);
        let src = memory(&engine, &a, &x[..45]);
        let dst = memory(&engine, &b, &[]);
        exec(
            &engine,
            fwd_op(Alg::Tanh, 0.0, 0.0, &a, &b),
            &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
        );
        for (got, v) in read(&dst).0.iter().zip(&x) {
            assert_eq!(*got, rounded(Elem::Bf16, v.tanh()), "{ename}");
        }
    }
}

/// A forward run of `alg` from `src` to `dst` layouts, compared with the
/// reference; the destination's padding must be zero.
fn check_layouts(
    engine: &Arc<Engine>,
    alg: Alg,
    src_md: &MemoryDesc,
    dst_md: &MemoryDesc,
    in_place: bool,
) -> String {
    let ename = engine_name(engine);
    let n = src_md.nelems() as usize;
    let x = inputs(n + 27)[27..].to_vec();
    let src = memory(engine, src_md, &x);
    let dst = if in_place {
        src.same()
    } else {
        memory(engine, dst_md, &[])
    };
    let name = exec(
        engine,
        fwd_op(alg, 0.3, 0.0, src_md, dst_md),
        &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
    );
    let (y, raw) = read(&dst);
    let elem = Elem::from_c(dst_md.data_type()).unwrap();
    let (atol, rtol) = tolerance(elem);
    for i in 0..n {
        let want = fwd_ref(alg, 0.3, 0.0, x[i]);
        assert!(
            close(y[i], want, atol, rtol),
            "{ename} {name} {i}: {} vs {want}",
            y[i]
        );
    }
    // Bytes that hold no logical element: padding must be zero (exp(0) = 1
    // would show), anything else untouched (still zero from allocation).
    let mut logical = vec![false; raw.len() / elem.size()];
    for idx in indices(dst_md.dims()) {
        logical[dst_md.element_offset(&idx[..dst_md.ndims()]).unwrap() as usize] = true;
    }
    for (i, is_logical) in logical.iter().enumerate() {
        if !is_logical {
            assert_eq!(
                dt::load(elem, &raw, i),
                0.0,
                "{ename} {name}: element {i} outside the tensor"
            );
        }
    }
    name
}

#[test]
fn layouts_strides_padding_and_in_place() {
    let dims = [3i64, 19, 5, 7];
    let nchw = md(&dims, dnnl_f32, dnnl_nchw);
    let nhwc = md(&dims, dnnl_f32, dnnl_nhwc);
    let blocked = md(&dims, dnnl_f32, dnnl_nChw16c);
    let strided = MemoryDesc::with_strides(&[13, 11], dnnl_f32, Some(&[1, 20])).unwrap();
    let plain2 = md(&[13, 11], dnnl_f32, dnnl_ab);
    let parent = md(&[9, 13], dnnl_f32, dnnl_ab);
    let sub = parent.submemory(&[5, 11], &[3, 1]).unwrap();
    let sub_dense = parent.submemory(&[5, 13], &[3, 0]).unwrap();
    let bf_blocked = md(&dims, dnnl_bf16, dnnl_nChw16c);
    for engine in engines() {
        let strided_impl = |n: &str| n.ends_with("strided");
        assert!(strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &nchw,
            &nhwc,
            false
        )));
        assert!(strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &nhwc,
            &blocked,
            false
        )));
        assert!(strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &blocked,
            &blocked,
            false
        )));
        assert!(strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &blocked,
            &blocked,
            true
        )));
        assert!(strided_impl(&check_layouts(
            &engine,
            Alg::Relu,
            &blocked,
            &bf_blocked,
            false
        )));
        assert!(strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &strided,
            &plain2,
            false
        )));
        assert!(strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &sub,
            &sub,
            false
        )));
        assert!(!strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &nhwc,
            &nhwc,
            false
        )));
        assert!(!strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &nhwc,
            &nhwc,
            true
        )));
        // Offset 39: not a multiple of 4 (the unaligned OpenCL build).
        assert!(!strided_impl(&check_layouts(
            &engine,
            Alg::Exp,
            &sub_dense,
            &sub_dense,
            true
        )));
        // dst `any` follows src.
        let any = md(&dims, dnnl_f32, dnnl_format_tag_any);
        for src in [&nchw, &nhwc, &blocked] {
            let op = fwd_op(Alg::Relu, 0.0, 0.0, src, &any);
            assert!(op.arg_md(DNNL_ARG_DST).unwrap().as_ref() == src);
        }
        let op = fwd_op(
            Alg::Relu,
            0.0,
            0.0,
            &blocked,
            &md(&dims, dnnl_bf16, dnnl_format_tag_any),
        );
        assert!(op.arg_md(DNNL_ARG_DST).unwrap().as_ref() == &bf_blocked);
        let op = fwd_op(
            Alg::Relu,
            0.0,
            0.0,
            &sub,
            &md(&[5, 11], dnnl_f32, dnnl_format_tag_any),
        );
        assert!(op.arg_md(DNNL_ARG_DST).unwrap().as_ref() == &md(&[5, 11], dnnl_f32, dnnl_ab));
    }
}

/// Backward with three different layouts, and in place (diff_src over diff_dst).
#[test]
fn backward_layouts_and_in_place() {
    let dims = [2i64, 21, 3, 5];
    let data_md = md(&dims, dnnl_f32, dnnl_nhwc);
    let dd_md = md(&dims, dnnl_f32, dnnl_nChw16c);
    let ds_md = md(&dims, dnnl_f32, dnnl_nchw);
    let n = data_md.nelems() as usize;
    let x = inputs(n + 27)[27..].to_vec();
    let dd = grads(n);
    for engine in engines() {
        let ename = engine_name(&engine);
        for (dmd, ddmd, dsmd, in_place) in [
            (&data_md, &dd_md, &ds_md, false),
            (&ds_md, &ds_md, &ds_md, true),
            (&dd_md, &dd_md, &dd_md, true),
        ] {
            let data = memory(&engine, dmd, &x);
            let ddm = memory(&engine, ddmd, &dd);
            let ds = if in_place {
                ddm.same()
            } else {
                memory(&engine, dsmd, &[])
            };
            let op = EltwiseOp::backward(dnnl_eltwise_swish, dsmd, ddmd, dmd, 0.7, 0.0).unwrap();
            exec(
                &engine,
                op,
                &[
                    (DNNL_ARG_SRC, &data),
                    (DNNL_ARG_DIFF_DST, &ddm),
                    (DNNL_ARG_DIFF_SRC, &ds),
                ],
            );
            let g = read(&ds).0;
            for i in 0..n {
                let want = bwd_ref(Alg::Swish, 0.7, 0.0, dd[i], x[i]);
                assert!(
                    close(g[i], want, 2e-6, 2e-5),
                    "{ename} {i}: {} vs {want}",
                    g[i]
                );
            }
        }
    }
}

/// Large enough for several CPU threads, dense and strided.
#[test]
fn threads_split_dense_and_strided_work() {
    let engine = Engine::create(EngineKind::Cpu, 0).unwrap();
    let dims = [4i64, 37, 29, 31];
    for (src, dst) in [
        (dnnl_nchw, dnnl_nchw),
        (dnnl_nchw, dnnl_nhwc),
        (dnnl_nChw8c, dnnl_nChw8c),
    ] {
        check_layouts(
            &engine,
            Alg::Tanh,
            &md(&dims, dnnl_f32, src),
            &md(&dims, dnnl_f32, dst),
            false,
        );
    }
}

#[test]
fn empty_tensors_do_nothing() {
    for engine in engines() {
        let m = md(&[3, 0, 5], dnnl_f32, dnnl_abc);
        let src = memory(&engine, &m, &[]);
        let dst = memory(&engine, &m, &[]);
        exec(
            &engine,
            fwd_op(Alg::Exp, 0.0, 0.0, &m, &m),
            &[(DNNL_ARG_SRC, &src), (DNNL_ARG_DST, &dst)],
        );
        let op = EltwiseOp::backward(dnnl_eltwise_exp, &m, &m, &m, 0.0, 0.0).unwrap();
        exec(
            &engine,
            op,
            &[
                (DNNL_ARG_SRC, &src),
                (DNNL_ARG_DIFF_DST, &src),
                (DNNL_ARG_DIFF_SRC, &dst),
            ],
        );
        assert_eq!(bytes_len(&m), 0);
    }
}

#[test]
fn descriptor_checks() {
    let f = md(&[2, 3], dnnl_f32, dnnl_ab);
    let g = md(&[2, 4], dnnl_f32, dnnl_ab);
    let any = md(&[2, 3], dnnl_f32, dnnl_format_tag_any);
    let s8 = md(&[2, 3], dnnl_s8, dnnl_ab);
    let f16 = md(&[2, 3], dnnl_f16, dnnl_ab);
    let f64md = md(&[2, 3], dnnl_f64, dnnl_ab);
    let status = |r: Result<EltwiseOp>| r.err().map(|e| e.status());
    let fwd = |pk, alg, s: &MemoryDesc, d: &MemoryDesc, a, b| {
        status(EltwiseOp::forward(pk, alg, s, d, a, b))
    };
    let bwd = |alg, ds: &MemoryDesc, dd: &MemoryDesc, data: &MemoryDesc, a, b| {
        status(EltwiseOp::backward(alg, ds, dd, data, a, b))
    };
    let invalid = Some(dnnl_invalid_arguments);
    let unimpl = Some(dnnl_unimplemented);
    let train = dnnl_forward_training;
    assert_eq!(fwd(train, dnnl_eltwise_relu, &f, &f, 0.0, 0.0), None);
    assert_eq!(
        fwd(dnnl_forward_inference, dnnl_eltwise_relu, &f, &f, 0.0, 0.0),
        None
    );
    assert_eq!(
        fwd(dnnl_backward_data, dnnl_eltwise_relu, &f, &f, 0.0, 0.0),
        invalid
    );
    assert_eq!(fwd(train, dnnl_pooling_max, &f, &f, 0.0, 0.0), invalid);
    assert_eq!(fwd(train, dnnl_eltwise_relu, &f, &g, 0.0, 0.0), invalid);
    assert_eq!(fwd(train, dnnl_eltwise_relu, &any, &f, 0.0, 0.0), invalid);
    assert_eq!(
        fwd(train, dnnl_eltwise_relu, &MemoryDesc::zero(), &f, 0.0, 0.0),
        invalid
    );
    assert_eq!(fwd(train, dnnl_eltwise_clip, &f, &f, 1.0, 0.0), invalid);
    assert_eq!(fwd(train, dnnl_eltwise_clip, &f, &f, 1.0, 1.0), None);
    assert_eq!(
        fwd(train, dnnl_eltwise_relu_use_dst_for_bwd, &f, &f, -1.0, 0.0),
        invalid
    );
    assert_eq!(fwd(train, dnnl_eltwise_relu, &f, &f, -1.0, 0.0), None);
    assert_eq!(fwd(train, dnnl_eltwise_tanh, &s8, &s8, 0.0, 0.0), invalid);
    assert_eq!(fwd(train, dnnl_eltwise_linear, &s8, &s8, 0.0, 0.0), None);
    assert_eq!(
        fwd(train, dnnl_eltwise_tanh_use_dst_for_bwd, &s8, &s8, 0.0, 0.0),
        None
    );
    assert_eq!(
        fwd(train, dnnl_eltwise_round, &f16, &f16, 0.0, 0.0),
        invalid
    );
    assert_eq!(
        fwd(train, dnnl_eltwise_relu, &f64md, &f64md, 0.0, 0.0),
        unimpl
    );
    assert_eq!(fwd(train, dnnl_eltwise_relu, &f, &any, 0.0, 0.0), None);
    assert_eq!(bwd(dnnl_eltwise_relu, &f, &f, &f, 0.0, 0.0), None);
    assert_eq!(bwd(dnnl_eltwise_relu, &any, &any, &any, 0.0, 0.0), None);
    assert_eq!(bwd(dnnl_eltwise_round, &f, &f, &f, 0.0, 0.0), invalid);
    assert_eq!(bwd(dnnl_eltwise_relu, &f, &g, &f, 0.0, 0.0), invalid);
    assert_eq!(bwd(dnnl_eltwise_relu, &f, &f, &g, 0.0, 0.0), invalid);
    assert_eq!(bwd(dnnl_eltwise_relu, &s8, &s8, &s8, 0.0, 0.0), unimpl);
    assert_eq!(bwd(dnnl_eltwise_tanh, &s8, &s8, &s8, 0.0, 0.0), invalid);
    assert_eq!(bwd(dnnl_eltwise_relu, &f16, &f, &f, 0.0, 0.0), None);
    // Queries.
    let op = EltwiseOp::backward(dnnl_eltwise_exp_use_dst_for_bwd, &f, &f, &f, 0.5, 0.25).unwrap();
    assert_eq!(op.inputs(), vec![DNNL_ARG_DST, DNNL_ARG_DIFF_DST]);
    assert_eq!(op.outputs(), vec![DNNL_ARG_DIFF_SRC]);
    assert!(op.arg_md(DNNL_ARG_SRC).is_none() && op.arg_md(DNNL_ARG_DST).is_some());
    assert_eq!(op.query_f32(dnnl_query_alpha_f32), Some(0.5));
    assert_eq!(op.query_f32(dnnl_query_beta_f32), Some(0.25));
    assert_eq!(op.prop_kind(), dnnl_backward_data);
    assert_eq!(
        op.verbose_aux(),
        "alg:eltwise_exp_use_dst_for_bwd alpha:0.5 beta:0.25"
    );
}

/// A USM pointer that is not 16-byte aligned, given to a dense primitive built
/// for aligned vectors: the unaligned build takes over (Intel's runtime; PoCL
/// has no USM).
#[test]
fn misaligned_usm_pointers() {
    use crate::core::ocl_storage::OclKind;
    use crate::runtime::ocl::{UsmKind, supports_usm, usm_alloc};
    let n = 1001usize;
    let m = md(&[n as i64], dnnl_f32, dnnl_a);
    let x = inputs(n);
    for engine in engines().into_iter().skip(1) {
        // OpenCL engines only (Level Zero engines are swept elsewhere).
        let Ok(ocl) = engine.ocl("test") else {
            continue;
        };
        if !supports_usm(ocl.device()) {
            continue;
        }
        let alloc =
            |len: usize| usm_alloc(ocl.context(), ocl.device(), UsmKind::Shared, len, 64).unwrap();
        let (a, b) = (alloc(4 * n + 64), alloc(4 * n + 64));
        let (pa, pb) = (a.ptr() as usize + 4, b.ptr() as usize + 4);
        // SAFETY: shared USM of 4 n + 64 bytes, host-accessible, not in use by the device yet.
        let src = unsafe { std::slice::from_raw_parts_mut(pa as *mut f32, n) };
        src.copy_from_slice(&x);
        let mem = |addr| {
            Memory::create(
                engine.clone(),
                m.clone(),
                Some(OclKind::Usm),
                &[DataHandle::User(addr)],
            )
            .unwrap()
        };
        let (ms, md_) = (mem(pa), mem(pb));
        let op = Arc::new(fwd_op(Alg::Exp, 0.0, 0.0, &m, &m));
        let pd = PrimitiveDesc::create(engine.clone(), op.clone()).unwrap();
        assert_eq!(pd.impl_name().to_str().unwrap(), "ocl:eltwise_dense_vec4");
        let prim = pd.create_primitive().unwrap();
        let stream = Stream::create(
            engine.clone(),
            StreamFlags {
                out_of_order: false,
                profiling: false,
            },
        )
        .unwrap();
        let args: ExecArgs = [(DNNL_ARG_SRC, ms), (DNNL_ARG_DST, md_)]
            .into_iter()
            .collect();
        prim.execute(&stream, &args, &[]).unwrap();
        stream.wait().unwrap();
        // SAFETY: as above; the device is done with it.
        let dst = unsafe { std::slice::from_raw_parts(pb as *const f32, n) };
        for i in 0..n {
            let want = fwd_ref(Alg::Exp, 0.0, 0.0, x[i]);
            assert!(
                close(dst[i], want, 2e-6, 2e-5),
                "{}: {i}: {} vs {want}",
                engine_name(&engine),
                dst[i]
            );
        }
        println!("{}: misaligned USM pointers: ok", engine_name(&engine));
    }
}

/// `eltwise_alg.cl` numbers the forward functions as `Alg::cl_id` does.
#[test]
fn opencl_forward_ids_match_the_table() {
    let source = crate::prims::common::eltwise_alg::CL_SOURCE;
    for alg in Alg::all().filter(|a| a.forward_base() == *a) {
        let define = format!("#define ELT_{} {}\n", alg.cl_name(), alg.cl_id());
        assert!(source.contains(&define), "missing {define:?}");
    }
}

/// Forward post-ops: sum (scale, zero point), an eltwise, binary with
/// per-channel and full broadcast (an s8 operand), prelu per channel, and
/// binary select; on a padded blocked destination (nChw16c, 19 channels) and
/// a plain one, in place (the sum reads what the source was).
#[test]
fn post_ops_follow_the_reference() {
    use crate::core::attr::{PostOp, PostOps};
    use crate::prims::common::post_ops::post_op_arg;
    let dims = [2i64, 19, 3, 5];
    let n: usize = dims.iter().product::<i64>() as usize;
    let per_c = [1i64, 19, 1, 1];
    let src = inputs(n);
    let old: Vec<f32> = (0..n).map(|i| ((i * 7) % 11) as f32 * 0.25 - 1.0).collect();
    let b1: Vec<f32> = (0..19).map(|c| c as f32 * 0.1 - 0.9).collect();
    let b2: Vec<f32> = (0..n).map(|i| ((i * 5) % 9) as f32 - 4.0).collect();
    let w: Vec<f32> = (0..19).map(|c| 0.05 * c as f32).collect();
    let cond: Vec<f32> = (0..n).map(|i| (i % 3 == 0) as u8 as f32).collect();
    let f32_any = |d: &[i64]| md(d, dnnl_f32, dnnl_abcd);
    let mut chain = PostOps::default();
    chain
        .append(|| PostOp::sum(0.5, 1, dnnl_data_type_undef))
        .unwrap();
    chain
        .append(|| PostOp::eltwise(dnnl_eltwise_tanh, 0.0, 0.0))
        .unwrap();
    chain
        .append(|| PostOp::binary(dnnl_binary_add, &f32_any(&per_c), None))
        .unwrap();
    chain
        .append(|| PostOp::binary(dnnl_binary_mul, &md(&dims, dnnl_s8, dnnl_abcd), None))
        .unwrap();
    chain.append(|| Ok(PostOp::Prelu { mask: 2 })).unwrap();
    chain
        .append(|| {
            PostOp::binary(
                dnnl_binary_select,
                &f32_any(&[1, 1, 1, 1]),
                Some(&md(&dims, dnnl_u8, dnnl_abcd)),
            )
        })
        .unwrap();
    let reference = |i: usize, idx: &[i64; MAX_NDIMS]| -> f64 {
        let c = idx[1] as usize;
        let mut v = fwd_ref(Alg::Relu, 0.1, 0.0, src[i]) as f32 as f64;
        v += 0.5 * (f64::from(old[i]) - 1.0);
        v = v.tanh();
        v += f64::from(b1[c]);
        v *= f64::from(b2[i]);
        if v <= 0.0 {
            v *= f64::from(w[c]);
        }
        if cond[i] != 0.0 { v } else { -3.0 }
    };
    for engine in engines() {
        for tag in [dnnl_abcd, dnnl_aBcd16b] {
            let dst_md = md(&dims, dnnl_f32, tag);
            let op = fwd_op(Alg::Relu, 0.1, 0.0, &dst_md, &dst_md)
                .with_post_ops(&chain)
                .unwrap();
            let data = memory(&engine, &dst_md, &src);
            let dst = memory(&engine, &dst_md, &old);
            let operands = [
                (
                    post_op_arg(2, DNNL_ARG_SRC_1),
                    memory(&engine, &f32_any(&per_c), &b1),
                ),
                (
                    post_op_arg(3, DNNL_ARG_SRC_1),
                    memory(&engine, &md(&dims, dnnl_s8, dnnl_abcd), &b2),
                ),
                (
                    post_op_arg(4, DNNL_ARG_WEIGHTS),
                    memory(&engine, &f32_any(&per_c), &w),
                ),
                (
                    post_op_arg(5, DNNL_ARG_SRC_1),
                    memory(&engine, &f32_any(&[1, 1, 1, 1]), &[-3.0]),
                ),
                (
                    post_op_arg(5, DNNL_ARG_SRC_2),
                    memory(&engine, &md(&dims, dnnl_u8, dnnl_abcd), &cond),
                ),
            ];
            assert_eq!(op.inputs().len(), 6);
            for (arg, _) in &operands {
                assert!(op.arg_md(*arg).is_some(), "arg {arg:#x}");
            }
            let mut args = vec![(DNNL_ARG_SRC, &data), (DNNL_ARG_DST, &dst)];
            args.extend(operands.iter().map(|(a, m)| (*a, m)));
            let name = exec(&engine, op, &args);
            assert!(name.contains("strided"), "{name}");
            let (got, bytes) = read(&dst);
            for (i, idx) in indices(&dims).iter().enumerate() {
                let want = reference(i, idx);
                assert!(
                    close(got[i], want, 1e-5, 1e-4),
                    "{} {tag:?} {name} at {idx:?}: {} vs {want}",
                    engine_name(&engine),
                    got[i]
                );
            }
            // Padding of the blocked layout stays zero.
            let l = Layout::new(&dst_md).unwrap();
            let inside: usize = n;
            let nonzero = bytes.chunks(4).filter(|b| *b != [0u8; 4]).count();
            assert!(
                nonzero <= inside,
                "padding written: {nonzero} > {inside} ({:?})",
                l.dims()
            );
        }
    }
}

/// What post-ops cannot do is refused at descriptor creation.
#[test]
fn post_ops_refusals() {
    use crate::core::attr::{PostOp, PostOps};
    let d = md(&[2, 3], dnnl_f32, dnnl_ab);
    let refused = |chain: &PostOps| {
        fwd_op(Alg::Relu, 0.0, 0.0, &d, &d)
            .with_post_ops(chain)
            .err()
            .map(|e| e.status())
    };
    let mut bad_bcast = PostOps::default();
    bad_bcast
        .append(|| PostOp::binary(dnnl_binary_add, &md(&[2, 2], dnnl_f32, dnnl_ab), None))
        .unwrap();
    assert_eq!(refused(&bad_bcast), Some(dnnl_unimplemented));
    let mut dw = PostOps::default();
    dw.append(|| PostOp::depthwise(dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 1))
        .unwrap();
    assert_eq!(refused(&dw), Some(dnnl_unimplemented));
    let mut two_sums = PostOps::default();
    two_sums
        .append(|| PostOp::sum(1.0, 0, dnnl_data_type_undef))
        .unwrap();
    two_sums
        .append(|| PostOp::sum(1.0, 0, dnnl_data_type_undef))
        .unwrap();
    assert_eq!(refused(&two_sums), Some(dnnl_unimplemented));
    let mut ok = PostOps::default();
    ok.append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))
        .unwrap();
    let bwd = EltwiseOp::backward(dnnl_eltwise_relu, &d, &d, &d, 0.0, 0.0).unwrap();
    assert_eq!(
        bwd.with_post_ops(&ok).err().map(|e| e.status()),
        Some(dnnl_unimplemented)
    );
}

/// The cache key is the same for two constructions of the same op, and
/// differs when a parameter, a layout or a post-op does.
#[test]
fn cache_key_is_stable_across_constructions() {
    use crate::core::attr::{PostOp, PostOps};
    use crate::core::key;
    let chain = |scale: f32| {
        let mut chain = PostOps::default();
        chain
            .append(|| PostOp::sum(scale, 0, dnnl_data_type_undef))
            .unwrap();
        chain
            .append(|| PostOp::binary(dnnl_binary_add, &md(&[1, 3], dnnl_f32, dnnl_ab), None))
            .unwrap();
        chain
    };
    let op = |alpha: f32, tag: dnnl_format_tag_t, scale: f32| {
        let d = md(&[2, 3], dnnl_f32, tag);
        let op = fwd_op(Alg::Relu, alpha, 0.0, &d, &d)
            .with_post_ops(&chain(scale))
            .unwrap();
        key::of_op(&op).unwrap()
    };
    let first = op(0.5, dnnl_ab, 1.0);
    assert_eq!(first, op(0.5, dnnl_ab, 1.0));
    assert!(first.starts_with(&[&7u64.to_le_bytes()[..], b"eltwise"].concat()));
    assert_ne!(first, op(0.25, dnnl_ab, 1.0), "alpha");
    assert_ne!(first, op(0.5, dnnl_ba, 1.0), "layout");
    assert_ne!(first, op(0.5, dnnl_ab, 2.0), "post-op");
}
