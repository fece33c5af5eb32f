//! Helpers of the primitives' Rust tests: the engines to run on (the CPU
//! engine, every OpenCL device, and every Level Zero device), descriptors, logical indices, memory
//! objects over byte buffers that span a descriptor's whole data (padding
//! included) and executing a primitive on one engine.
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
