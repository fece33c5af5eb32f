//! Helpers of the primitives' Rust tests (the one test-helper module): the
//! engines to run on (the CPU engine, every OpenCL device, and every Level
//! Zero device), descriptors, logical indices, memory objects over byte
//! buffers that span a descriptor's whole data (padding included) and
//! executing a primitive on one engine; then, in their own sections, what
//! the tests of the transfer kinds share ([`xfer`]: reorder, sum, concat)
//! and what the tests of the GEMM kinds share ([`gemm`]: matmul, inner
//! product).
//!
//! Layer: prims (tests only).

use std::sync::Arc;

use crate::abi::*;
use crate::core::engine::{Backend, Engine, EngineKind};
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::{MAX_NDIMS, MemoryDesc};
use crate::core::primitive::{ExecArgs, Kind, PrimitiveDesc};
use crate::core::stream::{Stream, StreamFlags};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::layout::{Layout, Walker};

pub(crate) fn engines() -> Vec<Arc<Engine>> {
    let mut all = vec![Engine::create(EngineKind::Cpu, 0).unwrap()];
    for i in 0..Engine::count(EngineKind::Gpu) {
        all.push(Engine::create(EngineKind::Gpu, i).unwrap());
    }
    all.extend(ze_engines());
    all
}

/// A Level Zero engine per device the loader reports (none without a
/// loader or driver: the tests run with the in-repository driver through
/// `ZE_ENABLE_ALT_DRIVERS`), unless `ONEDNN_GPU_RUNTIME=ze` already made
/// them the GPU engines.
pub(crate) fn ze_engines() -> Vec<Arc<Engine>> {
    use crate::core::ze_engine::{ZeEngine, is_gpu_runtime};
    if is_gpu_runtime() {
        return Vec::new();
    }
    // One engine per device for the whole test process: its program cache
    // is shared by every sweep, so each program is compiled to SPIR-V once
    // (clang and the driver's SPIR-V build are the slow part).
    static ENGINES: std::sync::OnceLock<Vec<Arc<Engine>>> = std::sync::OnceLock::new();
    ENGINES
        .get_or_init(|| {
            (0..crate::core::ze_engine::device_count())
                .map(|i| Engine::from_ze(ZeEngine::create(i).unwrap()))
                .collect()
        })
        .clone()
}

pub(crate) fn engine_name(engine: &Engine) -> String {
    match engine.backend() {
        Backend::Cpu => "cpu".to_string(),
        Backend::Ocl(ocl) => format!("ocl:{}", ocl.info().name),
        Backend::Ze(ze) => format!("ze:{}", ze.info().name),
    }
}

pub(crate) fn md(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dt, tag).unwrap()
}

/// Every logical index of `dims`, row-major.
pub(crate) fn indices(dims: &[i64]) -> Vec<[i64; MAX_NDIMS]> {
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

/// A memory object over a byte buffer that spans the whole descriptor.
pub(crate) struct TestMem {
    pub(crate) real: Arc<Memory>,
    backing: Arc<Memory>,
}

impl TestMem {
    pub(crate) fn same(&self) -> TestMem {
        TestMem {
            real: self.real.clone(),
            backing: self.backing.clone(),
        }
    }
}

/// Memory of `md` on `engine`, holding `values` (logical order); the
/// padding is filled with garbage (so a kernel must write its zeros).
pub(crate) fn memory(engine: &Arc<Engine>, md: &MemoryDesc, values: &[f32]) -> TestMem {
    let l = Layout::new(md).unwrap();
    let len = l.byte_range().1.max(md.size(0)).max(1);
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

fn with_bytes<R>(mem: &TestMem, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let len = mem.backing.md().size(0);
    let addr = mem.backing.map(0).unwrap();
    // SAFETY: a mapping of the whole buffer.
    let bytes = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) };
    let r = f(bytes);
    mem.backing.unmap(0, addr).unwrap();
    r
}

pub(crate) fn write(mem: &TestMem, values: &[f32]) {
    let md = mem.real.md().clone();
    let elem = Elem::from_c(md.data_type()).unwrap();
    with_bytes(mem, |bytes| {
        bytes.fill(0x5a);
        for (idx, v) in indices(md.dims()).iter().zip(values) {
            let off = md.element_offset(&idx[..md.ndims()]).unwrap() as usize;
            dt::store(elem, bytes, off, *v);
        }
    });
}

/// The logical values of `mem`; panics when its padding is not zero.
pub(crate) fn read(mem: &TestMem) -> Vec<f32> {
    let md = mem.real.md().clone();
    let l = Layout::new(&md).unwrap();
    with_bytes(mem, |bytes| {
        let w = Walker::new(&l);
        let mut p = [0i64; MAX_NDIMS];
        for t in 0..w.total() {
            let off = w.at(t, &mut p) + l.offset0;
            let inside = (0..l.ndims)
                .all(|d| (l.padded_offsets[d]..l.padded_offsets[d] + l.dims[d]).contains(&p[d]));
            if !inside {
                assert_eq!(
                    dt::load(l.elem, bytes, off as usize),
                    0.0,
                    "padding at {p:?}"
                );
            }
        }
        indices(md.dims())
            .iter()
            .map(|idx| {
                let off = md.element_offset(&idx[..md.ndims()]).unwrap() as usize;
                dt::load(l.elem, bytes, off)
            })
            .collect()
    })
}

/// Creates and executes an op on `engine`; returns the implementation's name.
pub(crate) fn exec<K: Kind>(engine: &Arc<Engine>, op: Arc<K>, args: &[(i32, &TestMem)]) -> String {
    let pd = PrimitiveDesc::create(engine.clone(), op).unwrap();
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

/// The value an element of type `elem` holds for `v`.
pub(crate) fn rounded(elem: Elem, v: f32) -> f32 {
    let mut b = [0u8; 4];
    dt::store(elem, &mut b, 0, v);
    dt::load(elem, &b, 0)
}

/// Deterministic test values for `n` elements of type `elem`: small
/// halves (exact in every float type; equal values recur), integers for
/// integer types.
pub(crate) fn values(n: usize, elem: Elem, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let k = ((i * 7 + seed * 13 + 3) % 17) as f32 - 8.0;
            match elem {
                Elem::U8 => k.abs(),
                Elem::S8 | Elem::S32 => k,
                _ => k * 0.5,
            }
        })
        .collect()
}

/// `op` as `dnnl_*_primitive_desc_create` sees it with `attr`: the kind's
/// own checks, then the framework's attribute check (what
/// `PrimitiveDesc::new` does before choosing an implementation).
pub(crate) fn attr_checked<K: Kind>(
    op: crate::core::error::Result<K>,
    attr: &crate::core::attr::PrimitiveAttr,
) -> crate::core::error::Result<K> {
    let op = op?;
    op.attr_support().check(attr, K::NAME)?;
    Ok(op)
}

/// The helpers the reorder, sum and concat tests share beyond the ones
/// above (re-exported here): the data types, the engines by kind, small
/// scale and zero-point arrays, values in a range and the tolerance check.
#[allow(dead_code)]
pub(crate) mod xfer {
    use std::sync::Arc;

    use crate::abi::*;
    use crate::core::engine::{Engine, EngineKind};
    use crate::prims::common::dt::Elem;

    pub(crate) use super::{
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
}

/// The helpers the matmul and inner product tests share: plain descriptors,
/// values exact in every float type, `Memory` objects read and written in
/// logical order, execution, and the tolerance check against an f64
/// reference.
#[allow(dead_code)]
pub(crate) mod gemm {
    use std::sync::Arc;

    use super::indices;
    use crate::abi::*;
    use crate::core::engine::Engine;
    use crate::core::error::Result;
    use crate::core::memory::{DataHandle, Memory};
    use crate::core::memory_desc::MemoryDesc;
    use crate::core::primitive::{ExecArgs, Kind, PrimitiveDesc};
    use crate::core::stream::{Stream, StreamFlags};
    use crate::prims::common::dt::{self, Elem};
    use crate::prims::common::layout::Layout;

    /// Plain row-major.
    pub(crate) fn md(dims: &[i64], dt: dnnl_data_type_t) -> MemoryDesc {
        MemoryDesc::with_strides(dims, dt, None).unwrap()
    }

    /// Plain with strides.
    pub(crate) fn mds(dims: &[i64], dt: dnnl_data_type_t, strides: &[i64]) -> MemoryDesc {
        MemoryDesc::with_strides(dims, dt, Some(strides)).unwrap()
    }

    /// Deterministic values, exact in bf16 and f16: multiples of 1/8 in [-1.125, 1.125].
    pub(crate) fn values(n: usize, seed: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 37 + seed * 11) % 19) as f32 / 8.0 - 1.125)
            .collect()
    }

    /// Memory of `md` on `engine`, holding `values` (logical order).
    pub(crate) fn memory(engine: &Arc<Engine>, md: &MemoryDesc, values: &[f32]) -> Arc<Memory> {
        let mem =
            Memory::create(engine.clone(), md.clone(), None, &[DataHandle::Allocate]).unwrap();
        write(&mem, values);
        mem
    }

    fn byte_len(md: &MemoryDesc) -> usize {
        Layout::new(md).map_or(0, |l| l.byte_range().1)
    }

    pub(crate) fn write(mem: &Memory, values: &[f32]) {
        let md = mem.md().clone();
        let len = byte_len(&md);
        if len == 0 {
            return;
        }
        let elem = Elem::from_c(md.data_type()).unwrap();
        let addr = mem.map(0).unwrap();
        // SAFETY: a mapping of the whole buffer.
        let bytes = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) };
        for (idx, v) in indices(md.dims()).iter().zip(values) {
            let off = md.element_offset(&idx[..md.ndims()]).unwrap() as usize;
            dt::store(elem, bytes, off, *v);
        }
        mem.unmap(0, addr).unwrap();
    }

    /// The logical values of `mem`.
    pub(crate) fn read(mem: &Memory) -> Vec<f32> {
        let md = mem.md().clone();
        let len = byte_len(&md);
        if len == 0 {
            return Vec::new();
        }
        let elem = Elem::from_c(md.data_type()).unwrap();
        let addr = mem.map(0).unwrap();
        // SAFETY: a mapping of the whole buffer.
        let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, len) }.to_vec();
        mem.unmap(0, addr).unwrap();
        indices(md.dims())
            .iter()
            .map(|idx| {
                let off = md.element_offset(&idx[..md.ndims()]).unwrap() as usize;
                dt::load(elem, &bytes, off)
            })
            .collect()
    }

    /// Creates and executes a primitive; returns the implementation's name.
    pub(crate) fn exec<K: Kind>(
        engine: &Arc<Engine>,
        op: Arc<K>,
        args: &[(i32, &Arc<Memory>)],
    ) -> Result<String> {
        let pd = PrimitiveDesc::create(engine.clone(), op)?;
        let name = pd.impl_name().to_string_lossy().into_owned();
        let prim = pd.create_primitive()?;
        let stream = Stream::create(
            engine.clone(),
            StreamFlags {
                out_of_order: false,
                profiling: false,
            },
        )?;
        let args: ExecArgs = args.iter().map(|(a, m)| (*a, (*m).clone())).collect();
        prim.execute(&stream, &args, &[])?;
        stream.wait()?;
        Ok(name)
    }

    /// Relative tolerance of a result stored as `elem`.
    pub(crate) fn tolerance(elem: Elem) -> f64 {
        match elem {
            Elem::F32 => 1e-5,
            Elem::F16 => 1e-3,
            _ => 8e-3,
        }
    }

    /// Compares `got` with `want`, where `scale` bounds each value's magnitude
    /// (the sum of the absolute terms).
    pub(crate) fn check(got: &[f32], want: &[f64], scale: &[f64], elem: Elem, what: &str) {
        assert_eq!(got.len(), want.len(), "{what}: size");
        let tol = tolerance(elem);
        for (i, ((&g, &w), &s)) in got.iter().zip(want).zip(scale).enumerate() {
            let err = (f64::from(g) - w).abs();
            assert!(
                err <= tol * (s + w.abs()) + 1e-6,
                "{what}: element {i}: got {g}, want {w}"
            );
        }
    }
}
