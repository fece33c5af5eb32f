//! LRN against an f64 reference of the definition: both algorithms, odd,
//! even and empty windows, 2D to 5D tensors, plain and channels-last
//! layouts (backward src in another layout), f32 and bf16; forward and
//! backward, on the CPU engine and on every OpenCL (and Level Zero) device
//! present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::Engine;
use crate::prims::common::dt::Elem;
use crate::prims::common::testutil::{engine_name, engines, exec, md, memory, read};

struct Case<'a> {
    dims: &'a [i64],
    across: bool,
    ls: i64,
    alpha: f64,
    beta: f64,
    k: f64,
}

impl Case<'_> {
    fn n(&self) -> usize {
        self.dims.iter().product::<i64>() as usize
    }

    fn pos(&self, mut i: usize) -> Vec<i64> {
        let mut p = vec![0; self.dims.len()];
        for d in (0..self.dims.len()).rev() {
            p[d] = i as i64 % self.dims[d];
            i /= self.dims[d] as usize;
        }
        p
    }

    fn index(&self, p: &[i64]) -> usize {
        p.iter().zip(self.dims).fold(0, |f, (q, d)| f * d + q) as usize
    }

    /// Row-major indices of the window of element `i`.
    fn window(&self, i: usize) -> Vec<usize> {
        if self.ls == 0 {
            return vec![];
        }
        let h = (self.ls - 1) / 2;
        let p = self.pos(i);
        let mut out = vec![];
        let nd = self.dims.len();
        let axes: Vec<usize> = if self.across {
            vec![1]
        } else {
            (2..nd).collect()
        };
        let span = (2 * h + 1) as usize;
        for w in 0..span.pow(axes.len() as u32) {
            let (mut q, mut r, mut inside) = (p.clone(), w, true);
            for &a in &axes {
                q[a] += (r % span) as i64 - h;
                r /= span;
                inside &= (0..self.dims[a]).contains(&q[a]);
            }
            if inside {
                out.push(self.index(&q));
            }
        }
        out
    }

    fn div(&self) -> f64 {
        let power = if self.across {
            1
        } else {
            self.dims.len() as i32 - 2
        };
        (self.ls as f64).powi(power)
    }

    /// `2 * alpha * beta / D` (0 for an empty window).
    fn gain(&self) -> f64 {
        if self.ls == 0 {
            0.0
        } else {
            2.0 * self.alpha * self.beta / self.div()
        }
    }

    fn omega(&self, x: &[f32], i: usize) -> f64 {
        let sum: f64 = self
            .window(i)
            .iter()
            .map(|&j| f64::from(x[j]) * f64::from(x[j]))
            .sum();
        if self.ls == 0 {
            self.k
        } else {
            self.k + self.alpha / self.div() * sum
        }
    }

    fn forward(&self, x: &[f32]) -> Vec<f64> {
        (0..self.n())
            .map(|i| f64::from(x[i]) * self.omega(x, i).powf(-self.beta))
            .collect()
    }

    fn backward(&self, x: &[f32], g: &[f32]) -> Vec<f64> {
        let t: Vec<f64> = (0..self.n())
            .map(|i| {
                let om = self.omega(x, i);
                f64::from(g[i]) * f64::from(x[i]) * om.powf(-self.beta - 1.0)
            })
            .collect();
        (0..self.n())
            .map(|i| {
                let sum: f64 = self.window(i).iter().map(|&j| t[j]).sum();
                f64::from(g[i]) * self.omega(x, i).powf(-self.beta)
                    - self.gain() * f64::from(x[i]) * sum
            })
            .collect()
    }
}

fn check(
    engine: &Arc<Engine>,
    c: &Case,
    dt: dnnl_data_type_t,
    tag: dnnl_format_tag_t,
    stag: dnnl_format_tag_t,
) {
    let n = c.n();
    let elem = Elem::from_c(dt).unwrap();
    let round = |v: f32| crate::prims::common::testutil::rounded(elem, v);
    let x: Vec<f32> = (0..n)
        .map(|i| round(((i * 37 % 23) as f32 - 11.0) * 0.25))
        .collect();
    let g: Vec<f32> = (0..n)
        .map(|i| round(((i * 13 % 7) as f32 - 3.0) * 0.5))
        .collect();
    let data = md(c.dims, dt, tag);
    let smd = md(c.dims, dt, stag);
    let any = md(c.dims, dt, dnnl_format_tag_any);
    let alg = if c.across {
        dnnl_lrn_across_channels
    } else {
        dnnl_lrn_within_channel
    };
    let (a, b, k) = (c.alpha as f32, c.beta as f32, c.k as f32);
    let attr = PrimitiveAttr::default();
    let what = format!(
        "{} {:?} {} ls {} {dt:?}",
        engine_name(engine),
        c.dims,
        if c.across { "across" } else { "within" },
        c.ls
    );
    let tol = if elem == Elem::F32 { 1e-5 } else { 1e-2 };
    let fwd = Arc::new(
        LrnOp::forward(
            dnnl_forward_training,
            alg,
            &data,
            &any,
            c.ls,
            a,
            b,
            k,
            &attr,
        )
        .unwrap(),
    );
    let (ms, mo) = (memory(engine, &data, &x), memory(engine, &data, &[]));
    exec(engine, fwd, &[(DNNL_ARG_SRC, &ms), (DNNL_ARG_DST, &mo)]);
    let y = read(&mo);
    for (i, want) in c.forward(&x).iter().enumerate() {
        let got = f64::from(y[i]);
        assert!(
            (got - want).abs() <= tol * (want.abs() + 1e-3),
            "{what}: forward at {i}: got {got}, want {want}"
        );
    }
    // `any` gradients take src's layout.
    let bwd = Arc::new(LrnOp::backward(alg, &any, &any, &smd, c.ls, a, b, k, &attr).unwrap());
    assert_eq!(bwd.arg_md(DNNL_ARG_DIFF_SRC).unwrap().as_ref(), &smd);
    assert_eq!(bwd.arg_md(DNNL_ARG_DIFF_DST).unwrap().as_ref(), &smd);
    let bwd = Arc::new(LrnOp::backward(alg, &data, &data, &smd, c.ls, a, b, k, &attr).unwrap());
    let (mx, mg, md_) = (
        memory(engine, &smd, &x),
        memory(engine, &data, &g),
        memory(engine, &data, &[]),
    );
    exec(
        engine,
        bwd,
        &[
            (DNNL_ARG_SRC, &mx),
            (DNNL_ARG_DIFF_DST, &mg),
            (DNNL_ARG_DIFF_SRC, &md_),
        ],
    );
    let dx = read(&md_);
    for (i, want) in c.backward(&x, &g).iter().enumerate() {
        let got = f64::from(dx[i]);
        assert!(
            (got - want).abs() <= tol * (want.abs() + 1e-2),
            "{what}: backward at {i}: got {got}, want {want}"
        );
    }
}

#[test]
fn both_algorithms_forward_and_backward() {
    let case = |dims, across, ls| Case {
        dims,
        across,
        ls,
        alpha: 0.7,
        beta: 0.75,
        k: 1.5,
    };
    for engine in engines() {
        let e = &engine;
        for across in [true, false] {
            for ls in [0, 1, 3, 4, 5] {
                check(
                    e,
                    &case(&[2, 7, 4, 5], across, ls),
                    dnnl_f32,
                    dnnl_abcd,
                    dnnl_abcd,
                );
            }
            check(
                e,
                &case(&[2, 7, 4, 5], across, 3),
                dnnl_f32,
                dnnl_acdb,
                dnnl_abcd,
            );
            check(e, &case(&[3, 6], across, 3), dnnl_f32, dnnl_ab, dnnl_ab);
            check(
                e,
                &case(&[2, 5, 7], across, 5),
                dnnl_f32,
                dnnl_abc,
                dnnl_acb,
            );
            check(
                e,
                &case(&[2, 4, 3, 4, 3], across, 3),
                dnnl_f32,
                dnnl_abcde,
                dnnl_abcde,
            );
            check(
                e,
                &case(&[2, 7, 4, 5], across, 5),
                dnnl_bf16,
                dnnl_abcd,
                dnnl_abcd,
            );
        }
    }
}

/// The CPU's block path across channels: pieces of spatial positions
/// (many channels make short pieces; a spatial extent that is not a
/// multiple of the piece), channels-last one position at a time, a 2D
/// tensor, a window wider than the channels, a beta other than 0.75, and
/// bf16 / f16.
#[test]
fn cpu_across_blocks() {
    let e = &crate::prims::common::testutil::xfer::cpu_engine();
    let case = |dims, ls, beta| Case {
        dims,
        across: true,
        ls,
        alpha: 0.7,
        beta,
        k: 1.5,
    };
    check(
        e,
        &case(&[2, 600, 5, 7], 5, 0.75),
        dnnl_f32,
        dnnl_abcd,
        dnnl_abcd,
    );
    check(
        e,
        &case(&[3, 3, 97, 101], 5, 0.6),
        dnnl_f32,
        dnnl_abcd,
        dnnl_abcd,
    );
    check(
        e,
        &case(&[2, 9, 3, 5], 7, 0.75),
        dnnl_f32,
        dnnl_acdb,
        dnnl_acdb,
    );
    check(
        e,
        &case(&[2, 1, 3, 5], 3, 0.75),
        dnnl_f32,
        dnnl_acdb,
        dnnl_abcd,
    );
    check(e, &case(&[5, 11], 3, 1.25), dnnl_f32, dnnl_ab, dnnl_ab);
    check(e, &case(&[5, 11], 13, 0.75), dnnl_f32, dnnl_ba, dnnl_ab);
    check(
        e,
        &case(&[2, 7, 1, 9], 2, 0.75),
        dnnl_f32,
        dnnl_abcd,
        dnnl_abcd,
    );
    for dt in [dnnl_bf16, dnnl_f16] {
        check(
            e,
            &case(&[2, 17, 40, 41], 5, 0.75),
            dt,
            dnnl_abcd,
            dnnl_abcd,
        );
        check(e, &case(&[2, 17, 4, 5], 5, 0.75), dt, dnnl_acdb, dnnl_acdb);
    }
}

#[test]
fn descriptor_rules() {
    let attr = PrimitiveAttr::default();
    let src = md(&[2, 7, 4, 5], dnnl_f32, dnnl_abcd);
    let nhwc = md(&[2, 7, 4, 5], dnnl_f32, dnnl_acdb);
    let any = md(&[2, 7, 4, 5], dnnl_f32, dnnl_format_tag_any);
    let status = |r: Result<LrnOp>| r.map(|_| ()).map_err(|e| e.status());
    let across = dnnl_lrn_across_channels;
    let fwd = |pk, alg, s: &MemoryDesc, d: &MemoryDesc, ls| {
        status(LrnOp::forward(pk, alg, s, d, ls, 1e-4, 0.75, 1.0, &attr))
    };
    let train = dnnl_forward_training;
    assert_eq!(fwd(train, across, &src, &src, 5), Ok(()));
    assert_eq!(fwd(train, across, &src, &src, 0), Ok(()));
    assert_eq!(
        fwd(train, across, &src, &src, -1),
        Err(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(dnnl_backward, across, &src, &src, 5),
        Err(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(train, dnnl_eltwise_relu, &src, &src, 5),
        Err(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(train, across, &any, &src, 5),
        Err(dnnl_invalid_arguments)
    );
    assert_eq!(fwd(train, across, &nhwc, &src, 5), Err(dnnl_unimplemented));
    let s8 = md(&[2, 7, 4, 5], dnnl_s8, dnnl_abcd);
    assert_eq!(fwd(train, across, &s8, &s8, 5), Err(dnnl_unimplemented));
    let one = md(&[7], dnnl_f32, dnnl_a);
    assert_eq!(
        fwd(train, across, &one, &one, 5),
        Err(dnnl_invalid_arguments)
    );
    let op = LrnOp::forward(train, across, &nhwc, &any, 5, 0.5, 0.25, 2.0, &attr).unwrap();
    assert_eq!(op.arg_md(DNNL_ARG_DST).unwrap().as_ref(), &nhwc);
    assert_eq!(op.query_f32(dnnl_query_alpha_f32), Some(0.5));
    assert_eq!(op.query_f32(dnnl_query_beta_f32), Some(0.25));
    assert_eq!(op.query_f32(dnnl_query_k_f32), Some(2.0));
    assert_eq!(op.query_s64(dnnl_query_local_size_s64), Some(5));
    assert!(op.arg_md(DNNL_ARG_WORKSPACE).is_none());
    let bwd = |ds: &MemoryDesc, dd: &MemoryDesc, s: &MemoryDesc| {
        status(LrnOp::backward(
            across, ds, dd, s, 5, 1e-4, 0.75, 1.0, &attr,
        ))
    };
    assert_eq!(bwd(&src, &src, &nhwc), Ok(()));
    assert_eq!(bwd(&any, &nhwc, &src), Err(dnnl_unimplemented));
    assert_eq!(bwd(&nhwc, &src, &src), Err(dnnl_unimplemented));
    assert_eq!(bwd(&any, &any, &any), Ok(()));
}
