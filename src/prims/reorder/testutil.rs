//! Helpers the reorder, sum and concat tests share: engines, memory objects
//! over descriptors, execution, values and tolerances.

#![allow(dead_code)]

use std::sync::Arc;

use crate::abi::*;
use crate::core::engine::{Engine, EngineKind};
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::{MAX_NDIMS, MemoryDesc};
use crate::core::primitive::{ExecArgs, ImplCandidate, OpDesc, PrimitiveDesc};
use crate::core::stream::{Stream, StreamFlags};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::layout::{Layout, Walker};

pub const ALL_DT: [dnnl_data_type_t; 6] =
    [dnnl_f32, dnnl_f16, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8];

pub fn engines() -> Vec<Arc<Engine>> {
    let mut all = vec![Engine::create(EngineKind::Cpu, 0).unwrap()];
    for i in 0..Engine::count(EngineKind::Gpu) {
        all.push(Engine::create(EngineKind::Gpu, i).unwrap());
    }
    all
}

pub fn ocl_engines() -> Vec<Arc<Engine>> {
    engines().into_iter().skip(1).collect()
}

pub fn cpu_engine() -> Arc<Engine> {
    Engine::create(EngineKind::Cpu, 0).unwrap()
}

pub fn engine_name(engine: &Engine) -> String {
    match engine.ocl("name") {
        Ok(ocl) => format!("ocl:{}", ocl.info().name),
        Err(_) => "cpu".to_string(),
    }
}

pub fn md(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dt, tag).unwrap()
}

/// Every logical index of `dims`, row-major.
pub fn indices(dims: &[i64]) -> Vec<[i64; MAX_NDIMS]> {
    let n: i64 = dims.iter().product();
    (0..n)
        .map(|mut i| {
            let mut idx = [0; MAX_NDIMS];
            for d in (0..dims.len()).rev() {
                idx[d] = i % dims[d];
                i /= dims[d];
            }
            idx
        })
        .collect()
}

/// A memory object over a byte buffer that holds the descriptor's whole span.
pub struct TestMem {
    pub real: Arc<Memory>,
    pub backing: Arc<Memory>,
}

fn bytes_len(md: &MemoryDesc) -> usize {
    let l = Layout::new(md).unwrap();
    l.byte_range().1.max(md.size(0))
}

/// Memory of `md` on `engine`: every byte 0xA5 (garbage), then `values`
/// (logical order).
pub fn memory(engine: &Arc<Engine>, md: &MemoryDesc, values: &[f32]) -> TestMem {
    let len = bytes_len(md);
    let byte_md = MemoryDesc::with_tag(&[len as i64], dnnl_u8, dnnl_a).unwrap();
    let backing = Memory::create(engine.clone(), byte_md, None, &[DataHandle::Allocate]).unwrap();
    let handle = match backing.data_handle(0).unwrap() {
        0 => DataHandle::Allocate,
        h => DataHandle::User(h),
    };
    let real = Memory::create(engine.clone(), md.clone(), None, &[handle]).unwrap();
    let mem = TestMem { real, backing };
    if len > 0 {
        let addr = mem.backing.map(0).unwrap();
        // SAFETY: a mapping of the whole buffer.
        unsafe { std::ptr::write_bytes(addr as *mut u8, 0xA5, len) };
        mem.backing.unmap(0, addr).unwrap();
    }
    write(&mem, values);
    mem
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

pub fn write(mem: &TestMem, values: &[f32]) {
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

/// The logical values of `mem`; asserts that its padding holds zeros.
pub fn read(mem: &TestMem) -> Vec<f32> {
    let md = mem.real.md().clone();
    let len = mem.backing.md().size(0);
    if len == 0 {
        return Vec::new();
    }
    let elem = Elem::from_c(md.data_type()).unwrap();
    let addr = mem.backing.map(0).unwrap();
    // SAFETY: a mapping of the whole buffer.
    let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, len) }.to_vec();
    mem.backing.unmap(0, addr).unwrap();
    let l = Layout::new(&md).unwrap();
    let w = Walker::new(&l);
    let mut p = [0; MAX_NDIMS];
    for t in 0..w.total() {
        let off = w.at(t, &mut p) + l.offset0;
        let inside = (0..l.ndims)
            .all(|d| p[d] >= l.padded_offsets[d] && p[d] < l.padded_offsets[d] + l.dims[d]);
        if !inside {
            assert_eq!(
                dt::load(elem, &bytes, off as usize),
                0.0,
                "padding at {p:?}"
            );
        }
    }
    indices(md.dims())
        .iter()
        .map(|idx| {
            dt::load(
                elem,
                &bytes,
                md.element_offset(&idx[..md.ndims()]).unwrap() as usize,
            )
        })
        .collect()
}

/// Creates `op` on `engine` and executes it; returns the implementation's name.
pub fn exec(
    engine: &Arc<Engine>,
    op: Arc<dyn OpDesc>,
    candidates: Vec<Arc<dyn ImplCandidate>>,
    args: &[(i32, &TestMem)],
) -> String {
    let pd = PrimitiveDesc::create(engine.clone(), op, candidates).unwrap();
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

/// The value an element of type `elem` holds for `v`.
pub fn rounded(elem: Elem, v: f32) -> f32 {
    let mut b = [0u8; 4];
    dt::store(elem, &mut b, 0, v);
    dt::load(elem, &b, 0)
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
