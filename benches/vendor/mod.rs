//! The vendor GEMM beside ours, in the same run: cuBLAS, opened at run time
//! where it can be loaded (never a build or run dependency of the library
//! or of this bench). `DNNL_BENCH_CUBLAS` and `DNNL_BENCH_CUDART` may name
//! `libcublas.so.*` and `libcudart.so.*` (PyTorch's wheels ship both under
//! `site-packages/nvidia/{cublas,cuda_runtime}/lib`); otherwise the
//! dynamic loader's search path is tried. The device is CUDA device 0: the
//! bench's GPU engine should be the same card (one-GPU machines).

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use libloading::{Library, Symbol};

/// The element types of a timed GEMM, as the bench names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmType {
    /// f32, exact (SIMT).
    F32,
    /// f32 data on TF32 tensor cores.
    Tf32,
    F16,
    Bf16,
    /// s8 x s8 -> s32.
    S8,
}

// cudaDataType_t, cublasComputeType_t and cublasOperation_t values.
const CUDA_R_32F: c_int = 0;
const CUDA_R_16F: c_int = 2;
const CUDA_R_8I: c_int = 3;
const CUDA_R_32I: c_int = 10;
const CUDA_R_16BF: c_int = 14;
const COMPUTE_32F: c_int = 68;
const COMPUTE_32F_FAST_TF32: c_int = 77;
const COMPUTE_32I: c_int = 72;
const OP_N: c_int = 0;
const OP_T: c_int = 1;
const GEMM_DEFAULT: c_int = -1;

type Malloc = unsafe extern "C" fn(*mut *mut c_void, usize) -> c_int;
type Free = unsafe extern "C" fn(*mut c_void) -> c_int;
type Memcpy = unsafe extern "C" fn(*mut c_void, *const c_void, usize, c_int) -> c_int;
type EventCreate = unsafe extern "C" fn(*mut *mut c_void) -> c_int;
type EventRecord = unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int;
type EventSync = unsafe extern "C" fn(*mut c_void) -> c_int;
type EventElapsed = unsafe extern "C" fn(*mut f32, *mut c_void, *mut c_void) -> c_int;
type EventDestroy = unsafe extern "C" fn(*mut c_void) -> c_int;
type Create = unsafe extern "C" fn(*mut *mut c_void) -> c_int;
type Destroy = unsafe extern "C" fn(*mut c_void) -> c_int;
type GemmEx = unsafe extern "C" fn(
    *mut c_void,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const c_void,
    *const c_void,
    c_int,
    c_int,
    *const c_void,
    c_int,
    c_int,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    c_int,
) -> c_int;

/// `bytes` bytes (whole words) of the fill `primitives.rs`'s `memory()`
/// gives our operands: word i holds the f32 bits of (i mod 97) / 97 - 0.5.
fn pattern(bytes: usize) -> Vec<u32> {
    (0..bytes.div_ceil(4))
        .map(|i| ((i % 97) as f32 / 97.0 - 0.5).to_bits())
        .collect()
}

/// cuBLAS and the CUDA runtime, loaded, with a cuBLAS handle.
pub struct Cublas {
    rt: Library,
    blas: Library,
    handle: *mut c_void,
}

fn open(var: &str, names: &[&str]) -> Result<Library, String> {
    // An empty value would open the program itself.
    let named = std::env::var(var).ok().filter(|v| !v.is_empty());
    let tries: Vec<&str> = named
        .iter()
        .map(|s| s.as_str())
        .chain(names.iter().copied())
        .collect();
    let mut last = String::new();
    for name in &tries {
        // SAFETY: loading a vendor library runs its initialisers, which is
        // what linking against it would do.
        match unsafe { Library::new(name) } {
            Ok(lib) => return Ok(lib),
            Err(e) => last = format!("{name}: {e}"),
        }
    }
    Err(last)
}

impl Cublas {
    /// Loads cuBLAS and the CUDA runtime, or says why not.
    pub fn load() -> Result<Cublas, String> {
        let rt = open(
            "DNNL_BENCH_CUDART",
            &["libcudart.so.13", "libcudart.so.12", "libcudart.so"],
        )?;
        let blas = open(
            "DNNL_BENCH_CUBLAS",
            &["libcublas.so.13", "libcublas.so.12", "libcublas.so"],
        )?;
        let mut handle = null_mut();
        // SAFETY: the symbol has cublasCreate_v2's prototype; a valid
        // out-pointer.
        let s = unsafe {
            let create: Symbol<Create> = blas.get(b"cublasCreate_v2").map_err(|e| e.to_string())?;
            create(&mut handle)
        };
        if s != 0 {
            return Err(format!("cublasCreate_v2 returned {s}"));
        }
        Ok(Cublas { rt, blas, handle })
    }

    fn sym<'l, T>(lib: &'l Library, name: &[u8]) -> Result<Symbol<'l, T>, String> {
        // SAFETY: every caller names a symbol of the prototype `T`.
        unsafe { lib.get(name) }.map_err(|e| e.to_string())
    }

    /// Seconds per row-major `m x k` by `k x n` GEMM of type `t` (B
    /// transposed in memory with `b_t`), timed with CUDA events over about
    /// 0.3 s after a warm-up; the operands hold the bench's fill
    /// ([`pattern`]: the same bytes as our operands; zeros would let the
    /// tensor cores clock higher than on data).
    pub fn gemm_seconds(
        &self,
        t: GemmType,
        m: usize,
        n: usize,
        k: usize,
        b_t: bool,
    ) -> Result<f64, String> {
        let (in_type, out_type, compute, in_size, out_size) = match t {
            GemmType::F32 => (CUDA_R_32F, CUDA_R_32F, COMPUTE_32F, 4, 4),
            GemmType::Tf32 => (CUDA_R_32F, CUDA_R_32F, COMPUTE_32F_FAST_TF32, 4, 4),
            GemmType::F16 => (CUDA_R_16F, CUDA_R_16F, COMPUTE_32F, 2, 2),
            GemmType::Bf16 => (CUDA_R_16BF, CUDA_R_16BF, COMPUTE_32F, 2, 2),
            GemmType::S8 => (CUDA_R_8I, CUDA_R_32I, COMPUTE_32I, 1, 4),
        };
        let malloc: Symbol<Malloc> = Self::sym(&self.rt, b"cudaMalloc")?;
        let free: Symbol<Free> = Self::sym(&self.rt, b"cudaFree")?;
        let memcpy: Symbol<Memcpy> = Self::sym(&self.rt, b"cudaMemcpy")?;
        let ev_create: Symbol<EventCreate> = Self::sym(&self.rt, b"cudaEventCreate")?;
        let ev_record: Symbol<EventRecord> = Self::sym(&self.rt, b"cudaEventRecord")?;
        let ev_sync: Symbol<EventSync> = Self::sym(&self.rt, b"cudaEventSynchronize")?;
        let ev_elapsed: Symbol<EventElapsed> = Self::sym(&self.rt, b"cudaEventElapsedTime")?;
        let ev_destroy: Symbol<EventDestroy> = Self::sym(&self.rt, b"cudaEventDestroy")?;
        let gemm_ex: Symbol<GemmEx> = Self::sym(&self.blas, b"cublasGemmEx")?;
        let check = |what: &str, s: c_int| {
            if s == 0 {
                Ok(())
            } else {
                Err(format!("{what} returned {s}"))
            }
        };
        let mut bufs = [null_mut(); 3];
        let sizes = [m * k * in_size, k * n * in_size, m * n * out_size];
        let (one_f, zero_f, one_i, zero_i) = (1f32, 0f32, 1i32, 0i32);
        let (alpha, beta): (*const c_void, *const c_void) = if t == GemmType::S8 {
            (
                (&one_i as *const i32).cast(),
                (&zero_i as *const i32).cast(),
            )
        } else {
            (
                (&one_f as *const f32).cast(),
                (&zero_f as *const f32).cast(),
            )
        };
        let mut events = [null_mut(); 2];
        // SAFETY: CUDA runtime and cuBLAS calls with their documented
        // prototypes, device buffers of the sizes the GEMM reads and writes,
        // valid out-pointers; everything allocated is freed below.
        let result = unsafe {
            (|| -> Result<f64, String> {
                for (p, &size) in bufs.iter_mut().zip(&sizes) {
                    check("cudaMalloc", malloc(p, size))?;
                    let fill = pattern(size);
                    // cudaMemcpyHostToDevice.
                    check("cudaMemcpy", memcpy(*p, fill.as_ptr().cast(), size, 1))?;
                }
                for e in events.iter_mut() {
                    check("cudaEventCreate", ev_create(e))?;
                }
                // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: cuBLAS's A is
                // our B (n x k, or k x n stored transposed), its B our A.
                let (op_b, ldb) = if b_t { (OP_T, k) } else { (OP_N, n) };
                let run = |iters: usize| -> Result<(), String> {
                    for _ in 0..iters {
                        check(
                            "cublasGemmEx",
                            gemm_ex(
                                self.handle,
                                op_b,
                                OP_N,
                                n as c_int,
                                m as c_int,
                                k as c_int,
                                alpha,
                                bufs[1],
                                in_type,
                                ldb as c_int,
                                bufs[0],
                                in_type,
                                k as c_int,
                                beta,
                                bufs[2],
                                out_type,
                                n as c_int,
                                compute,
                                GEMM_DEFAULT,
                            ),
                        )?;
                    }
                    Ok(())
                };
                let timed = |iters: usize| -> Result<f64, String> {
                    check("cudaEventRecord", ev_record(events[0], null_mut()))?;
                    run(iters)?;
                    check("cudaEventRecord", ev_record(events[1], null_mut()))?;
                    check("cudaEventSynchronize", ev_sync(events[1]))?;
                    let mut ms = 0f32;
                    check(
                        "cudaEventElapsedTime",
                        ev_elapsed(&mut ms, events[0], events[1]),
                    )?;
                    Ok(f64::from(ms) * 1e-3)
                };
                timed(2)?;
                let once = (timed(1)?).max(1e-6);
                let iters = ((0.3 / once) as usize).clamp(2, 200);
                Ok(timed(iters)? / iters as f64)
            })()
        };
        // SAFETY: what was allocated above, released once.
        unsafe {
            for e in events {
                if !e.is_null() {
                    ev_destroy(e);
                }
            }
            for p in bufs {
                if !p.is_null() {
                    free(p);
                }
            }
        }
        result
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: the handle from cublasCreate_v2, destroyed once.
        unsafe {
            if let Ok(destroy) = Self::sym::<Destroy>(&self.blas, b"cublasDestroy_v2") {
                destroy(self.handle);
            }
        }
    }
}

impl GemmType {
    /// The reference column's name for this type (B transposed with `b_t`).
    pub fn cublas_name(self, b_t: bool) -> &'static str {
        match (self, b_t) {
            (GemmType::F32, false) => "cuBLAS SGEMM",
            (GemmType::F32, true) => "cuBLAS SGEMM B^T",
            (GemmType::Tf32, _) => "cuBLAS TF32",
            (GemmType::F16, false) => "cuBLAS f16",
            (GemmType::F16, true) => "cuBLAS f16 B^T",
            (GemmType::Bf16, _) => "cuBLAS bf16",
            (GemmType::S8, false) => "cuBLAS s8*s8->s32",
            (GemmType::S8, true) => "cuBLAS s8*s8^T->s32",
        }
    }
}
