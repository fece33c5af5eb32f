//! Helpers the reorder, sum and concat tests share beyond
//! `prims::common::testutil` (re-exported here): the data types, the
//! engines by kind, small scale and zero-point arrays, values in a range and
//! the tolerance check.

#![allow(dead_code)]

use std::sync::Arc;

use crate::abi::*;
use crate::core::engine::{Engine, EngineKind};
use crate::prims::common::dt::Elem;

pub(crate) use crate::prims::common::testutil::{
    TestMem, engine_name, engines, exec, indices, md, memory, read, rounded,
};

pub const ALL_DT: [dnnl_data_type_t; 6] =
    [dnnl_f32, dnnl_f16, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8];

pub fn ocl_engines() -> Vec<Arc<Engine>> {
    engines().into_iter().skip(1).collect()
}

pub fn cpu_engine() -> Arc<Engine> {
    Engine::create(EngineKind::Cpu, 0).unwrap()
}

/// A plain memory of f32 or s32 values (scales, zero points).
pub fn array_f32(engine: &Arc<Engine>, values: &[f32]) -> TestMem {
    memory(
        engine,
        &md(&[values.len() as i64], dnnl_f32, dnnl_a),
        values,
    )
}

pub fn array_s32(engine: &Arc<Engine>, values: &[i32]) -> TestMem {
    let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
    memory(engine, &md(&[values.len() as i64], dnnl_s32, dnnl_a), &v)
}

/// Pseudo-random values in [lo, hi), in quarters (exact in every float type
/// for small ranges), rounded to `dt`.
pub fn values(n: usize, lo: f32, hi: f32, dt: dnnl_data_type_t, seed: u64) -> Vec<f32> {
    let elem = Elem::from_c(dt).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64 ^ seed.wrapping_mul(0x9e37_79b9);
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 40) as f32 / (1u64 << 24) as f32;
            let v = ((lo + u * (hi - lo)) * 4.0).floor() / 4.0;
            rounded(elem, v)
        })
        .collect()
}

/// Checks `got` against the f64 reference `want` stored as `dt`: equal after
/// rounding, or one step of the type apart (f32 arithmetic on the way).
pub fn check(got: &[f32], want: &[f64], dt: dnnl_data_type_t, what: &str) {
    let elem = Elem::from_c(dt).unwrap();
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let r = rounded(elem, w as f32);
        let tol = match elem {
            Elem::F32 => 1e-5 * r.abs().max(1e-30),
            Elem::F16 => 1e-3 * r.abs().max(1e-4),
            Elem::Bf16 => 8e-3 * r.abs().max(1e-4),
            _ => 1.0,
        };
        assert!(
            (g - r).abs() <= tol,
            "{what}: element {i}: got {g}, want {r} (exact {w})"
        );
    }
}
