//! Each function of `vmath` against f64 on every path this host has: every
//! 1021st f32 bit pattern (about 4.2 million values, both signs, subnormals
//! included) and the edge values, in arrays whose length is not a multiple
//! of any vector width (so the tails run too).

use super::*;

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
    if y.is_nan() {
        y
    } else if y >= 3.0 {
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
    if x < 0.0 {
        let e = x.exp();
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + (-x).exp())
    }
}

/// `x * g` where `g` -> 0: the limit 0 (with x's sign) for infinite `x`.
fn times(x: f64, g: f64) -> f64 {
    if x.is_infinite() && g == 0.0 {
        0.0 * x.signum()
    } else {
        x * g
    }
}

fn gelu_tanh_arg(x: f64) -> f64 {
    2.0 * (2.0 / std::f64::consts::PI).sqrt() * x * (1.0 + 0.044715 * x * x)
}

fn reference(f: Func, x: f32) -> f64 {
    let x = x as f64;
    match f {
        Func::Exp => x.exp(),
        Func::Log => x.ln(),
        Func::Tanh => x.tanh(),
        Func::Logistic => logistic_ref(x),
        Func::Erfc => erfc_ref(x),
        Func::Swish(a) => {
            if x.is_infinite() {
                if x * a as f64 > 0.0 {
                    x
                } else {
                    0.0 * x.signum()
                }
            } else {
                times(x, logistic_ref(a as f64 * x))
            }
        }
        Func::GeluTanh => {
            if x.is_infinite() {
                if x > 0.0 { x } else { -0.0 }
            } else {
                times(x, logistic_ref(gelu_tanh_arg(x)))
            }
        }
        Func::GeluErf => {
            if x.is_infinite() {
                if x > 0.0 { x } else { -0.0 }
            } else {
                0.5 * x * erfc_ref(-x / 2f64.sqrt())
            }
        }
        Func::Elu(a) => {
            if x > 0.0 {
                x
            } else {
                a as f64 * x.exp_m1()
            }
        }
        Func::ExpMinus(c) => ((x as f32 - c) as f64).exp(),
        Func::Add(c) => (x as f32 + c) as f64,
        Func::Scale(c) => (x as f32 * c) as f64,
        Func::Relu(a) => {
            let x = x as f32;
            (if x > 0.0 { x } else { x * a }) as f64
        }
    }
}

/// The spacing of f32 at `v` (2^-149 in the subnormal range).
fn ulp(v: f64) -> f64 {
    let a = v.abs();
    if a < f32::MIN_POSITIVE as f64 {
        return f64::from(f32::from_bits(1));
    }
    2f64.powi(a.log2().floor() as i32 - 23)
}

/// The error of `y` against `r`, in the unit of the function's bound:
/// ulps for the ulp-bounded functions, else the relative error over the
/// stated bound (with an absolute floor for results near underflow).
fn error(f: Func, level: Level, x: f32, y: f32, r: f64) -> f64 {
    if r.is_nan() {
        return if y.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let r32 = r as f32;
    if r32.is_infinite() || y.is_infinite() {
        return if y == r32 { 0.0 } else { f64::INFINITY };
    }
    let d = (y as f64 - r).abs();
    let portable = level == Level::Portable;
    let x = x as f64;
    let tiny = f64::from(f32::from_bits(1));
    match f {
        Func::Add(_) | Func::Scale(_) | Func::Relu(_) => d / ulp(r) / 0.5,
        Func::Exp | Func::ExpMinus(_) | Func::Log | Func::Tanh | Func::Logistic => {
            let bound = match (f, portable) {
                (Func::Exp | Func::ExpMinus(_), false) | (Func::Log, _) => 1.0,
                (Func::Exp | Func::ExpMinus(_), true) | (Func::Tanh, false) => 2.0,
                (Func::Tanh, true) | (Func::Logistic, true) => 4.0,
                _ => 3.0,
            };
            d / ulp(r) / bound
        }
        Func::Elu(_) => d / ulp(r) / if portable { 5.0 } else { 3.0 },
        Func::Erfc | Func::GeluErf => d / (1e-6 * r.abs()).max(2.0 * tiny * (1.0 + x.abs())),
        Func::Swish(a) => {
            let arg = a as f64 * x;
            d / (4e-7 * (3.0 + arg.abs()) * r.abs()).max(2.0 * tiny * (1.0 + x.abs()))
        }
        Func::GeluTanh => {
            let arg = gelu_tanh_arg(x);
            d / (4e-7 * (3.0 + arg.abs()) * r.abs()).max(2.0 * tiny * (1.0 + x.abs()))
        }
    }
}

fn inputs() -> Vec<f32> {
    let mut v: Vec<f32> = (0..=u32::MAX / 1021)
        .map(|i| f32::from_bits(i * 1021))
        .collect();
    let edges = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(1),
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
        0.625,
        -0.625,
        0.624_999_94,
        9.02,
        -9.02,
        88.722_83,
        88.722_84,
        88.722_85,
        89.0,
        -87.336_55,
        -87.5,
        -103.97,
        -103.972_08,
        -104.0,
        -150.0,
        10.05,
        -10.05,
        14.1,
        -14.1,
        20.0,
        -20.0,
        1e30,
        -1e30,
    ];
    v.extend_from_slice(&edges);
    // Dense near the interesting region.
    v.extend((0..200_000).map(|i| -110.0 + i as f32 * 0.001_1));
    v.push(0.5);
    v
}

fn check(f: Func) {
    let xs = inputs();
    assert!(!xs.len().is_multiple_of(16), "the tail must run");
    for level in Level::supported() {
        let mut ys = xs.clone();
        map(level, f, &mut ys);
        // The one-pass form gives the same values.
        let mut zs = vec![0f32; xs.len()];
        map_into(level, f, &xs, &mut zs);
        assert!(
            ys.iter().zip(&zs).all(|(y, z)| y.to_bits() == z.to_bits()),
            "{f:?} {level:?}: map_into differs from map"
        );
        let mut worst = (0.0f64, 0.0f32, 0.0f32, 0.0f64);
        for (&x, &y) in xs.iter().zip(&ys) {
            let r = reference(f, x);
            let e = error(f, level, x, y, r);
            // A NaN error (never expected) counts as the worst.
            if e.is_nan() || e > worst.0 {
                worst = (e, x, y, r);
            }
        }
        println!(
            "{f:?} {level:?}: worst {:.3} of the bound at x = {:e} ({:#x}): {:e}, f64 {:e}",
            worst.0,
            worst.1,
            worst.1.to_bits(),
            worst.2,
            worst.3
        );
        assert!(
            worst.0 <= 1.0,
            "{f:?} on {level:?}: x = {:e}: {:e}, expected {:e} ({} of the bound)",
            worst.1,
            worst.2,
            worst.3,
            worst.0
        );
    }
}

#[test]
fn exp_within_bound_on_every_path() {
    check(Func::Exp);
}

#[test]
fn log_within_bound_on_every_path() {
    check(Func::Log);
}

#[test]
fn tanh_within_bound_on_every_path() {
    check(Func::Tanh);
}

#[test]
fn logistic_within_bound_on_every_path() {
    check(Func::Logistic);
}

#[test]
fn erfc_within_bound_on_every_path() {
    check(Func::Erfc);
}

#[test]
fn swish_within_bound_on_every_path() {
    check(Func::Swish(1.0));
    check(Func::Swish(0.37));
}

#[test]
fn gelu_tanh_within_bound_on_every_path() {
    check(Func::GeluTanh);
}

#[test]
fn gelu_erf_within_bound_on_every_path() {
    check(Func::GeluErf);
}

#[test]
fn elu_within_bound_on_every_path() {
    check(Func::Elu(1.0));
    check(Func::Elu(0.37));
    check(Func::Elu(0.0));
}

#[test]
fn relu_exact_on_every_path() {
    check(Func::Relu(0.0));
    check(Func::Relu(0.25));
}

#[test]
fn every_path_of_this_host_is_tested() {
    // The paths the tests above force: all that this host can run.
    let levels = Level::supported();
    assert_eq!(levels[0], Level::Portable);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        assert!(levels.contains(&Level::Avx512), "{levels:?}");
    }
}

#[test]
fn short_slices_and_exact_values() {
    for level in Level::supported() {
        for n in 0..40 {
            let mut v: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 2.0).collect();
            let want: Vec<f32> = v.iter().map(|&x| (x as f64).exp() as f32).collect();
            map(level, Func::Exp, &mut v);
            for (y, w) in v.iter().zip(&want) {
                assert!(
                    (y - w).abs() <= 2.0 * f32::EPSILON * w,
                    "{level:?} {n}: {y} vs {w}"
                );
            }
        }
        let mut v = [0.0f32, 1.0, f32::INFINITY, f32::NEG_INFINITY];
        map(level, Func::Exp, &mut v);
        assert_eq!(
            v,
            [1.0, std::f32::consts::E, f32::INFINITY, 0.0],
            "{level:?}"
        );
        let mut v = [1.0f32, 0.0, -0.0, -1.0];
        map(level, Func::Log, &mut v);
        assert_eq!(
            v[..3],
            [0.0, f32::NEG_INFINITY, f32::NEG_INFINITY],
            "{level:?}"
        );
        assert!(v[3].is_nan());
    }
}

#[test]
fn reductions_and_affine_maps_on_every_path() {
    for level in Level::supported() {
        for n in [0usize, 1, 7, 16, 63, 64, 65, 1000, 1027] {
            let v: Vec<f32> = (0..n)
                .map(|i| ((i * 37) % 101) as f32 * 0.5 - 20.0)
                .collect();
            let sum: f64 = v.iter().map(|&x| x as f64).sum();
            let got = reduce(level, Reduction::Sum, &v) as f64;
            assert!(
                (got - sum).abs() <= 1e-5 * (1.0 + sum.abs()),
                "{level:?} {n}: {got} vs {sum}"
            );
            let max = v.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
            assert_eq!(reduce(level, Reduction::Max, &v), max, "{level:?} {n}");
            let mut w = v.clone();
            map(level, Func::ExpMinus(3.0), &mut w);
            for (x, y) in v.iter().zip(&w) {
                let r = ((*x - 3.0) as f64).exp();
                assert!(
                    (*y as f64 - r).abs() <= 2.0 * ulp(r),
                    "{level:?}: e^({x} - 3) = {y}"
                );
            }
            let mut w = v.clone();
            map(level, Func::Add(-1.5), &mut w);
            map(level, Func::Scale(0.25), &mut w);
            for (x, y) in v.iter().zip(&w) {
                assert_eq!(*y, (*x - 1.5) * 0.25, "{level:?}");
            }
        }
        // NaN elements are skipped by max.
        let mut v = vec![1.0f32; 100];
        v[40] = f32::NAN;
        v[77] = 5.0;
        assert_eq!(reduce(level, Reduction::Max, &v), 5.0, "{level:?}");
    }
}

/// The one-pass map and sum writes what `map_into` writes and returns
/// their sum, tails included, on every path.
#[test]
fn map_into_sum_matches_map_then_sum_on_every_path() {
    for level in Level::supported() {
        for n in [0usize, 1, 7, 8, 15, 16, 17, 33, 1000, 1037] {
            let x: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                .collect();
            for f in [Func::Exp, Func::ExpMinus(3.0), Func::Tanh] {
                let mut want = vec![0f32; n];
                map_into(level, f, &x, &mut want);
                let mut got = vec![f32::NAN; n];
                let sum = map_into_sum(level, f, &x, &mut got);
                assert!(
                    got.iter()
                        .zip(&want)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{level:?} {f:?} {n}"
                );
                let exact: f64 = want.iter().map(|&v| f64::from(v)).sum();
                let scale: f64 = want.iter().map(|&v| f64::from(v).abs()).sum();
                assert!(
                    (f64::from(sum) - exact).abs() <= 1e-6 * scale.max(1e-30),
                    "{level:?} {f:?} {n}: {sum} vs {exact}"
                );
            }
        }
    }
}

/// The streaming map writes what `map_into` writes, bit for bit, at every
/// offset of dst against a 64-byte line and at lengths around a vector, on
/// every path, and nothing outside dst.
#[test]
fn streaming_map_matches_map_into_on_every_path() {
    let x: Vec<f32> = (0..300).map(|i| (i as f32 * 0.37).sin() * 5.0).collect();
    // Whatever the store's own alignment (4 bytes), offsets 0..16 put dst's
    // start at every float of a 64-byte line.
    let mut lines = vec![[0f32; 16]; 22];
    for level in Level::supported() {
        for f in [
            Func::Scale(0.123),
            Func::Add(-1.75),
            Func::GeluErf,
            Func::Relu(0.5),
        ] {
            for off in 0..16 {
                for n in [0usize, 1, 7, 15, 16, 17, 33, 64, 255, 300] {
                    let mut want = vec![0f32; n];
                    map_into(level, f, &x[..n], &mut want);
                    let store = lines.as_flattened_mut();
                    store.fill(f32::NAN);
                    let fence = StreamFence::new();
                    map_into_streaming(level, f, &x[..n], &mut store[off..off + n], &fence);
                    drop(fence);
                    let got: Vec<u32> = store[off..off + n].iter().map(|v| v.to_bits()).collect();
                    let want: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
                    assert_eq!(got, want, "{level:?} {f:?} offset {off}, length {n}");
                    assert!(
                        store[..off]
                            .iter()
                            .chain(&store[off + n..])
                            .all(|v| v.is_nan())
                    );
                }
            }
        }
        // The copy moves bits: NaN payloads and signalling NaNs unchanged.
        let bits: Vec<f32> = (0..300u32)
            .map(|i| f32::from_bits(0x7f80_0001 + i * 977))
            .collect();
        for off in 0..16 {
            for n in [0usize, 1, 15, 16, 17, 33, 300] {
                let store = lines.as_flattened_mut();
                store.fill(0.0);
                let fence = StreamFence::new();
                copy_streaming(level, &bits[..n], &mut store[off..off + n], &fence);
                drop(fence);
                let got: Vec<u32> = store[off..off + n].iter().map(|v| v.to_bits()).collect();
                let want: Vec<u32> = bits[..n].iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "{level:?} copy offset {off}, length {n}");
                assert!(
                    store[..off]
                        .iter()
                        .chain(&store[off + n..])
                        .all(|&v| v == 0.0)
                );
            }
        }
    }
}

#[test]
#[ignore = "timing, run by hand"]
fn timing() {
    let narrow: Vec<f32> = (0..1 << 20).map(|i| (i % 97) as f32 / 97.0 - 0.5).collect();
    // Activations over several units: most vectors hold a lane beyond
    // gelu_erf's polynomial range.
    let wide: Vec<f32> = (0..1 << 20).map(|i| (i % 89) as f32 / 11.0 - 4.0).collect();
    let mut out = vec![0f32; 1 << 20];
    let per = |t: std::time::Instant, reps: usize| {
        t.elapsed().as_nanos() as f64 / reps as f64 / (1 << 20) as f64
    };
    for level in Level::supported() {
        for f in [
            Func::Exp,
            Func::GeluErf,
            Func::Tanh,
            Func::Elu(1.0),
            Func::Add(1.0),
        ] {
            for (name, v) in [("narrow", &narrow), ("wide", &wide)] {
                let t = std::time::Instant::now();
                for _ in 0..10 {
                    map_into(level, f, v, &mut out);
                }
                println!("{level:?} {f:?} {name}: {:.3} ns/elem", per(t, 10));
            }
        }
        // Softmax's row work on rows of 1024 in cache: separate passes and
        // the fused exponential-and-sum.
        let mut acc = 0.0;
        let t = std::time::Instant::now();
        for row in narrow.chunks(1024) {
            map_into(level, Func::ExpMinus(0.5), row, &mut out[..1024]);
            acc += reduce(level, Reduction::Sum, &out[..1024]);
        }
        println!("{level:?} exp then sum: {:.3} ns/elem ({acc})", per(t, 1));
        let t = std::time::Instant::now();
        for row in narrow.chunks(1024) {
            acc += map_into_sum(level, Func::ExpMinus(0.5), row, &mut out[..1024]);
        }
        println!("{level:?} exp and sum: {:.3} ns/elem ({acc})", per(t, 1));
    }
}
