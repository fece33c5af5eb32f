//! Primitive throughput through the C API, per engine and size, each figure
//! with the ratio to a reference measured in the same run on the same device:
//! - memory-bound kinds (eltwise, binary, reorder, softmax, pooling, resampling): GB/s moved (each
//!   tensor read or written once), against a plain copy of the same bytes
//!   (OpenCL: `clEnqueueCopyBuffer`; CPU: `copy_from_slice` on every thread);
//! - matmul: GFLOP/s (2·M·N·K), against a reference GEMM (OpenCL: the
//!   textbook 16x16 local-memory tiled SGEMM kernel below; CPU: the `gemm`
//!   crate called directly, one thread);
//! - convolution forward (ResNet-50 layers): GFLOP/s, against our own
//!   matmul on the equivalent GEMM shape (the cuDNN figure comes from
//!   `torch_anchors.py`, run beside this bench on the GPU machine).
//!
//! Run: `cargo bench --bench primitives [-- quick] [-- cpu|gpu]` (`quick`: small
//! sizes, for a 2-core machine; `conv`: the convolution layers only; `matmul`: matmul f32, f16, bf16 and int8 (`u8 x s8 -> s32`, GOP/s) only, GPUs at 4096^3 and the CPU at 1024^3; `kinds`: pooling, resampling, reduction, PReLU, shuffle, LRN and the normalizations only; `resampling`: resampling only; `gemm`: matmul f32 (weights transposed; and under fpmath mode tf32), f16 and bf16 at 1024, 4096 and 8192; `reorder`: blocked <-> plain reorders only; `blas`: `dnnl_sgemm` (1024, 1536, 2048, A plain and transposed) and `dnnl_gemm_u8s8s32` beside matmul of the same shape, CPU engine; `rnn`: LSTM inference, batch 64, 1024 channels, 50 steps, time per step beside the GEMM bound of its GEMMs timed alone through our matmul). `-- check` instead times the execute-time
//! argument check alone beside a whole execute of small primitives (the
//! check's share of the call, which must stay in the noise). The OpenCL devices are the library's
//! (`dnnl_engine_create(dnnl_gpu, i)`; `OCL_ICD_VENDORS` / `ONEDNN_OCL_DEVICES`
//! choose them).

#![allow(non_upper_case_globals)]

use std::ffi::{CStr, c_void};
use std::ptr::null_mut;
use std::time::Instant;

use dnnl::abi::*;
use dnnl::capi::common::*;
use dnnl::capi::dnnl::*;
use dnnl::capi::ocl::*;
use dnnl::runtime::ocl::{Context, Device, KernelArg, Mem, Program, Queue, QueueProperties};

mod vendor;
use vendor::{Cublas, GemmType};

const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

fn ok(status: dnnl_status_t, what: &str) {
    assert_eq!(status, dnnl_success, "{what}");
}

fn md(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> dnnl_memory_desc_t {
    let mut md = null_mut();
    // SAFETY: a valid out-pointer and dims array.
    ok(
        unsafe {
            dnnl_memory_desc_create_with_tag(&mut md, dims.len() as i32, dims.as_ptr(), dt, tag)
        },
        "memory desc",
    );
    md
}

/// Memory of `md` on `engine`, filled with small values.
fn memory(engine: dnnl_engine_t, md: dnnl_memory_desc_t) -> dnnl_memory_t {
    let mut m = null_mut();
    // SAFETY: valid handles and out-pointers; the mapping covers the whole buffer.
    unsafe {
        ok(dnnl_memory_create(&mut m, md, engine, ALLOCATE), "memory");
        let bytes = dnnl_memory_desc_get_size(md);
        let mut p: *mut c_void = null_mut();
        ok(dnnl_memory_map_data(m, &mut p), "map");
        let floats = std::slice::from_raw_parts_mut(p.cast::<u32>(), bytes / 4);
        for (i, f) in floats.iter_mut().enumerate() {
            *f = ((i % 97) as f32 / 97.0 - 0.5).to_bits();
        }
        ok(dnnl_memory_unmap_data(m, p), "unmap");
    }
    m
}

/// Seconds per run of `run` (after a warm-up), repeated for about 0.3 s.
fn seconds(mut run: impl FnMut(usize)) -> f64 {
    run(1);
    let start = Instant::now();
    run(1);
    let once = start.elapsed().as_secs_f64().max(1e-6);
    let iters = ((0.3 / once) as usize).clamp(2, 200);
    let start = Instant::now();
    run(iters);
    start.elapsed().as_secs_f64() / iters as f64
}

struct Bench {
    engine: dnnl_engine_t,
    stream: dnnl_stream_t,
    name: String,
    /// The OpenCL device and context of the engine (None: CPU).
    ocl: Option<(Device, Context)>,
    /// cuBLAS, where it loads (GPU engines only): the GEMM rows' reference.
    vendor: Option<Cublas>,
}

impl Bench {
    /// Times `pd`'s primitive with `args`; None (with the status) if the
    /// descriptor was refused.
    fn time(
        &self,
        pd: Result<dnnl_primitive_desc_t, dnnl_status_t>,
        args: &[(i32, dnnl_memory_t)],
    ) -> Result<(f64, String), String> {
        let pd = pd.map_err(|s| format!("n/a ({})", status_name(s)))?;
        let mut prim = null_mut();
        let mut impl_str: *const std::ffi::c_char = std::ptr::null();
        // SAFETY: live handles and valid out-pointers.
        unsafe {
            ok(
                dnnl_primitive_desc_query(
                    pd,
                    dnnl_query_impl_info_str,
                    0,
                    (&mut impl_str as *mut *const std::ffi::c_char).cast(),
                ),
                "impl",
            );
            let name = CStr::from_ptr(impl_str).to_string_lossy().into_owned();
            ok(dnnl_primitive_create(&mut prim, pd), "primitive");
            let args: Vec<dnnl_exec_arg_t> = args
                .iter()
                .map(|&(arg, memory)| dnnl_exec_arg_t { arg, memory })
                .collect();
            let t = seconds(|n| {
                for _ in 0..n {
                    ok(
                        dnnl_primitive_execute(prim, self.stream, args.len() as i32, args.as_ptr()),
                        "execute",
                    );
                }
                ok(dnnl_stream_wait(self.stream), "wait");
            });
            dnnl_primitive_destroy(prim);
            dnnl_primitive_desc_destroy(pd);
            Ok((t, name))
        }
    }

    /// cuBLAS's seconds for the `m^3` GEMM of type `t` (B stored
    /// transposed with `b_t`) where cuBLAS is loaded, else `fallback`.
    fn vendor_seconds(
        &self,
        t: GemmType,
        m: i64,
        b_t: bool,
        fallback: (f64, &'static str),
    ) -> (f64, &'static str) {
        let Some(cublas) = &self.vendor else {
            return fallback;
        };
        let m = m as usize;
        match cublas.gemm_seconds(t, m, m, m, b_t) {
            Ok(s) => (s, t.cublas_name(b_t)),
            Err(why) => {
                println!("# cuBLAS {t:?} {m}^3: {why}");
                fallback
            }
        }
    }

    /// Seconds to copy `bytes` bytes once: the memory-bound reference.
    fn copy_seconds(&self, bytes: usize) -> f64 {
        match &self.ocl {
            Some((device, context)) => {
                let queue = Queue::create(context, device, QueueProperties::default()).unwrap();
                let a = Mem::create(context, bytes).unwrap();
                let b = Mem::create(context, bytes).unwrap();
                seconds(|n| {
                    for _ in 0..n {
                        queue.copy_buffer(&a, 0, &b, 0, bytes, &[]).unwrap();
                    }
                    queue.finish().unwrap();
                })
            }
            None => {
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
                let a = vec![1u8; bytes];
                let mut b = vec![0u8; bytes];
                let chunk = bytes.div_ceil(threads);
                seconds(|n| {
                    for _ in 0..n {
                        std::thread::scope(|s| {
                            for (src, dst) in a.chunks(chunk).zip(b.chunks_mut(chunk)) {
                                s.spawn(move || dst.copy_from_slice(src));
                            }
                        });
                    }
                })
            }
        }
    }

    /// Seconds of the reference GEMM for `m x n x k` f32.
    fn gemm_reference_seconds(&self, m: usize, n: usize, k: usize) -> (f64, &'static str) {
        match &self.ocl {
            Some((device, context)) => {
                let queue = Queue::create(context, device, QueueProperties::default()).unwrap();
                let program = Program::build_source(context, device, TILED_SGEMM, "").unwrap();
                let kernel = program.kernel("sgemm16").unwrap();
                let a = Mem::create(context, 4 * m * k).unwrap();
                let b = Mem::create(context, 4 * k * n).unwrap();
                let c = Mem::create(context, 4 * m * n).unwrap();
                let args = [
                    KernelArg::I32(m as i32),
                    KernelArg::I32(n as i32),
                    KernelArg::I32(k as i32),
                    KernelArg::Mem(&a),
                    KernelArg::Mem(&b),
                    KernelArg::Mem(&c),
                ];
                let global = [n.div_ceil(16) * 16, m.div_ceil(16) * 16];
                let t = seconds(|iters| {
                    for _ in 0..iters {
                        queue
                            .enqueue_kernel(&kernel, &args, &global, Some(&[16, 16]), &[])
                            .unwrap();
                    }
                    queue.finish().unwrap();
                });
                (t, "16x16 tiled OpenCL SGEMM")
            }
            None => {
                let a = vec![0.5f32; m * k];
                let b = vec![0.25f32; k * n];
                let mut c = vec![0f32; m * n];
                let t = seconds(|iters| {
                    for _ in 0..iters {
                        // SAFETY: row-major buffers of the stated sizes.
                        unsafe {
                            gemm::gemm(
                                m,
                                n,
                                k,
                                c.as_mut_ptr(),
                                1,
                                n as isize,
                                false,
                                a.as_ptr(),
                                1,
                                k as isize,
                                b.as_ptr(),
                                1,
                                n as isize,
                                0.0,
                                1.0,
                                false,
                                false,
                                false,
                                gemm::Parallelism::None,
                            );
                        }
                    }
                });
                (t, "gemm crate, 1 thread")
            }
        }
    }
}

/// The textbook local-memory tiled SGEMM (row-major C = A B), the OpenCL reference.
const TILED_SGEMM: &str = r"
__kernel void sgemm16(int M, int N, int K, __global const float *A, __global const float *B,
        __global float *C) {
    __local float As[16][16], Bs[16][16];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < K; t += 16) {
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (col < N && t + ty < K) ? B[(t + ty) * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; k++) acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
";

fn status_name(s: dnnl_status_t) -> String {
    // SAFETY: returns a static string or NULL.
    let p = unsafe { dnnl::capi::debug::dnnl_status2str(s) };
    if p.is_null() {
        format!("{}", s.0)
    } else {
        // SAFETY: a non-NULL static C string of the library.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// Times a matmul `src · weights -> dst` (no bias) under `attr` (NULL: the
/// default) on `b`'s engine, on memories it creates for the descriptors.
fn time_matmul(
    b: &Bench,
    src: dnnl_memory_desc_t,
    weights: dnnl_memory_desc_t,
    dst: dnnl_memory_desc_t,
    attr: dnnl_primitive_attr_t,
) -> Result<(f64, String), String> {
    let e = b.engine;
    let (ma, mb, mc) = (memory(e, src), memory(e, weights), memory(e, dst));
    // SAFETY: a valid out-pointer, a live engine, descriptors and attribute
    // (or NULL).
    let pd = pd_of(|pd| unsafe {
        dnnl_matmul_primitive_desc_create(pd, e, src, weights, null_mut(), dst, attr)
    });
    b.time(
        pd,
        &[
            (DNNL_ARG_SRC, ma),
            (DNNL_ARG_WEIGHTS, mb),
            (DNNL_ARG_DST, mc),
        ],
    )
}

fn pd_of(
    f: impl FnOnce(*mut dnnl_primitive_desc_t) -> dnnl_status_t,
) -> Result<dnnl_primitive_desc_t, dnnl_status_t> {
    let mut pd = null_mut();
    match f(&mut pd) {
        s if s == dnnl_success => Ok(pd),
        s => Err(s),
    }
}

fn row(
    b: &Bench,
    op: &str,
    size: &str,
    r: Result<(f64, String), String>,
    amount: f64,
    unit: &str,
    reference: (f64, &str),
) {
    let (ref_t, ref_name) = reference;
    let ref_fig = amount / ref_t / 1e9;
    match r {
        Ok((t, name)) => {
            let fig = amount / t / 1e9;
            println!(
                "{:<26} {:<22} {:<16} {:>9.3} {:>9.1} {unit:<7} {:>9.1} {:<22} {:>6.2} {name}",
                b.name,
                op,
                size,
                t * 1e3,
                fig,
                ref_fig,
                ref_name,
                fig / ref_fig
            );
        }
        Err(why) => println!("{:<26} {:<22} {:<16} {why}", b.name, op, size),
    }
}

/// Reorders between blocked and plain layouts (the `reorder` mode): f32
/// activations (GPU: 32x256x56x56) and weights of as many elements
/// (256x256x28x14), in GB/s of source read and destination written
/// once, against a copy of the same bytes; the implementation last (the
/// fast path is `ocl:reorder_blocked`).
fn reorders(b: &Bench, big: bool, quick: bool) {
    let e = b.engine;
    // Activations, and OIhw weights of about as many elements.
    let (act, wei): ([i64; 4], [i64; 4]) = if big {
        ([32, 256, 56, 56], [256, 256, 28, 14])
    } else if quick {
        ([4, 64, 28, 28], [64, 64, 7, 7])
    } else {
        ([8, 256, 28, 28], [256, 256, 5, 5])
    };
    let elems: i64 = act.iter().product();
    let rcopy = (b.copy_seconds(4 * elems as usize), "copy");
    let wcopy = (
        b.copy_seconds(4 * wei.iter().product::<i64>() as usize),
        "copy",
    );
    let cases = [
        (
            "nChw16c>nchw",
            act,
            dnnl_nChw16c,
            dnnl_nchw,
            dnnl_f32,
            rcopy,
        ),
        (
            "nchw>nChw16c",
            act,
            dnnl_nchw,
            dnnl_nChw16c,
            dnnl_f32,
            rcopy,
        ),
        (
            "nChw16c>nhwc",
            act,
            dnnl_nChw16c,
            dnnl_nhwc,
            dnnl_f32,
            rcopy,
        ),
        (
            "nhwc>nChw16c",
            act,
            dnnl_nhwc,
            dnnl_nChw16c,
            dnnl_f32,
            rcopy,
        ),
        ("nChw8c>nchw", act, dnnl_nChw8c, dnnl_nchw, dnnl_f32, rcopy),
        (
            "nChw16c>nChw8c",
            act,
            dnnl_nChw16c,
            dnnl_nChw8c,
            dnnl_f32,
            rcopy,
        ),
        (
            "OIhw16i16o>oihw",
            wei,
            dnnl_OIhw16i16o,
            dnnl_oihw,
            dnnl_f32,
            wcopy,
        ),
        (
            "oihw>OIhw16i16o",
            wei,
            dnnl_oihw,
            dnnl_OIhw16i16o,
            dnnl_f32,
            wcopy,
        ),
        ("nchw>nhwc", act, dnnl_nchw, dnnl_nhwc, dnnl_f32, rcopy),
        // Same layout, f32 to bf16 (6 bytes per element against 8 copied).
        (
            "nChw16c f32>bf16",
            act,
            dnnl_nChw16c,
            dnnl_nChw16c,
            dnnl_bf16,
            rcopy,
        ),
    ];
    for (name, dims, from, to, to_dt, copy) in cases {
        let n: i64 = dims.iter().product();
        let (a, bb) = (md(&dims, dnnl_f32, from), md(&dims, to_dt, to));
        let (ra, rb) = (memory(e, a), memory(e, bb));
        // SAFETY: a valid out-pointer, a live engine and descriptors.
        let pd =
            pd_of(|pd| unsafe { dnnl_reorder_primitive_desc_create(pd, a, e, bb, e, null_mut()) });
        let moved = if to_dt == dnnl_bf16 { 6.0 } else { 8.0 } * n as f64;
        row(
            b,
            &format!("reorder {name}"),
            &format!("{dims:?}"),
            b.time(pd, &[(DNNL_ARG_FROM, ra), (DNNL_ARG_TO, rb)]),
            moved,
            "GB/s",
            copy,
        );
    }
}

/// Batch normalization inference (global statistics, scale and shift) and
/// training (statistics computed), and layer normalization over rows
/// (statistics computed, scale and shift):
/// GB/s of src read and dst written once, against a copy of the same bytes.
fn normalizations(b: &Bench, quick: bool) {
    let e = b.engine;
    let big = b.ocl.is_some() && !quick;
    let dims: [i64; 4] = if big {
        [64, 256, 56, 56]
    } else if quick {
        [8, 64, 56, 56]
    } else {
        [32, 128, 56, 56]
    };
    let elems: i64 = dims.iter().product();
    let t = md(&dims, dnnl_f32, dnnl_nchw);
    let c = md(&[dims[1]], dnnl_f32, dnnl_a);
    let (src, dst) = (memory(e, t), memory(e, t));
    let (mean, var, scale, shift) = (memory(e, c), memory(e, c), memory(e, c), memory(e, c));
    let copy = (b.copy_seconds(4 * elems as usize), "copy");
    let flags = [
        ("bnorm inference f32", dnnl_forward_inference, 0x7u32),
        ("bnorm training f32", dnnl_forward_training, 0x6u32),
    ];
    for (name, prop, flags) in flags {
        // SAFETY: a valid out-pointer, a live engine and descriptors.
        let pd = pd_of(|pd| unsafe {
            dnnl_batch_normalization_forward_primitive_desc_create(
                pd,
                e,
                prop,
                t,
                t,
                1e-5,
                flags,
                null_mut(),
            )
        });
        row(
            b,
            name,
            &format!("{dims:?}"),
            b.time(
                pd,
                &[
                    (DNNL_ARG_SRC, src),
                    (DNNL_ARG_DST, dst),
                    (DNNL_ARG_MEAN, mean),
                    (DNNL_ARG_VARIANCE, var),
                    (DNNL_ARG_SCALE, scale),
                    (DNNL_ARG_SHIFT, shift),
                ],
            ),
            8.0 * elems as f64,
            "GB/s",
            copy,
        );
    }
    // Layer normalization over rows, statistics computed (inference).
    let shapes: &[[i64; 2]] = if big {
        &[[32768, 1024], [4096, 4096]]
    } else if quick {
        &[[2048, 1024]]
    } else {
        &[[16384, 1024], [2048, 4096]]
    };
    for dims in shapes {
        let t = md(dims, dnnl_f32, dnnl_ab);
        let c = md(&[dims[1]], dnnl_f32, dnnl_a);
        let (src, dst, scale, shift) = (memory(e, t), memory(e, t), memory(e, c), memory(e, c));
        let elems = dims[0] * dims[1];
        // SAFETY: a valid out-pointer, a live engine and descriptors.
        let pd = pd_of(|pd| unsafe {
            dnnl_layer_normalization_forward_primitive_desc_create(
                pd,
                e,
                dnnl_forward_inference,
                t,
                t,
                null_mut(),
                1e-5,
                0x6,
                null_mut(),
            )
        });
        row(
            b,
            "lnorm inference f32",
            &format!("{}x{}", dims[0], dims[1]),
            b.time(
                pd,
                &[
                    (DNNL_ARG_SRC, src),
                    (DNNL_ARG_DST, dst),
                    (DNNL_ARG_SCALE, scale),
                    (DNNL_ARG_SHIFT, shift),
                ],
            ),
            8.0 * elems as f64,
            "GB/s",
            (b.copy_seconds(4 * elems as usize), "copy"),
        );
    }
}

fn run(b: &Bench, quick: bool) {
    let e = b.engine;
    let big = b.ocl.is_some() && !quick;
    // Eltwise ReLU: read + write.
    let n: i64 = if big {
        1 << 26
    } else if quick {
        1 << 22
    } else {
        1 << 24
    };
    let v = md(&[n], dnnl_f32, dnnl_a);
    let (src, dst) = (memory(e, v), memory(e, v));
    let bytes = 8.0 * n as f64;
    let copy = b.copy_seconds(4 * n as usize);
    let copy_ref = (copy, "copy");
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe {
        dnnl_eltwise_forward_primitive_desc_create(
            pd,
            e,
            dnnl_forward_inference,
            dnnl_eltwise_relu,
            v,
            v,
            0.0,
            0.0,
            null_mut(),
        )
    });
    row(
        b,
        "eltwise relu f32",
        &format!("{n}"),
        b.time(pd, &[(DNNL_ARG_SRC, src), (DNNL_ARG_DST, dst)]),
        bytes,
        "GB/s",
        copy_ref,
    );
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe {
        dnnl_eltwise_forward_primitive_desc_create(
            pd,
            e,
            dnnl_forward_inference,
            dnnl_eltwise_gelu_erf,
            v,
            v,
            0.0,
            0.0,
            null_mut(),
        )
    });
    row(
        b,
        "eltwise gelu_erf f32",
        &format!("{n}"),
        b.time(pd, &[(DNNL_ARG_SRC, src), (DNNL_ARG_DST, dst)]),
        bytes,
        "GB/s",
        copy_ref,
    );
    // Binary add: two reads, one write (the copy moves 2/3 of that: scaled).
    let src1 = memory(e, v);
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe {
        dnnl_binary_primitive_desc_create(pd, e, dnnl_binary_add, v, v, v, null_mut())
    });
    row(
        b,
        "binary add f32",
        &format!("{n}"),
        b.time(
            pd,
            &[
                (DNNL_ARG_SRC_0, src),
                (DNNL_ARG_SRC_1, src1),
                (DNNL_ARG_DST, dst),
            ],
        ),
        12.0 * n as f64,
        "GB/s",
        (copy * 1.5, "copy"),
    );
    // Reorder nchw -> nhwc.
    let dims: [i64; 4] = if big {
        [64, 128, 56, 56]
    } else if quick {
        [8, 64, 56, 56]
    } else {
        [32, 64, 56, 56]
    };
    let elems: i64 = dims.iter().product();
    let (a, bb) = (
        md(&dims, dnnl_f32, dnnl_nchw),
        md(&dims, dnnl_f32, dnnl_nhwc),
    );
    let (ra, rb) = (memory(e, a), memory(e, bb));
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe { dnnl_reorder_primitive_desc_create(pd, a, e, bb, e, null_mut()) });
    let rcopy = (b.copy_seconds(4 * elems as usize), "copy");
    row(
        b,
        "reorder nchw>nhwc f32",
        &format!("{dims:?}"),
        b.time(pd, &[(DNNL_ARG_FROM, ra), (DNNL_ARG_TO, rb)]),
        8.0 * elems as f64,
        "GB/s",
        rcopy,
    );
    // Blocked to plain and back.
    let c16 = md(&dims, dnnl_f32, dnnl_nChw16c);
    let rc = memory(e, c16);
    for (name, from, to, rf, rt) in [
        ("reorder nChw16c>nhwc f32", c16, bb, rc, rb),
        ("reorder nhwc>nChw16c f32", bb, c16, rb, rc),
        ("reorder nChw16c>nchw f32", c16, a, rc, ra),
    ] {
        // SAFETY: a valid out-pointer, a live engine and descriptors.
        let pd = pd_of(|pd| unsafe {
            dnnl_reorder_primitive_desc_create(pd, from, e, to, e, null_mut())
        });
        row(
            b,
            name,
            &format!("{dims:?}"),
            b.time(pd, &[(DNNL_ARG_FROM, rf), (DNNL_ARG_TO, rt)]),
            8.0 * elems as f64,
            "GB/s",
            rcopy,
        );
    }
    // Softmax over rows of 1024.
    let rows: i64 = if big {
        65536
    } else if quick {
        2048
    } else {
        16384
    };
    let s = md(&[rows, 1024], dnnl_f32, dnnl_ab);
    let (sa, sb) = (memory(e, s), memory(e, s));
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe {
        dnnl_softmax_forward_primitive_desc_create(
            pd,
            e,
            dnnl_forward_inference,
            dnnl_softmax_accurate,
            s,
            s,
            1,
            null_mut(),
        )
    });
    let scopy = (b.copy_seconds(4 * 1024 * rows as usize), "copy");
    row(
        b,
        "softmax f32 axis 1",
        &format!("{rows}x1024"),
        b.time(pd, &[(DNNL_ARG_SRC, sa), (DNNL_ARG_DST, sb)]),
        8.0 * 1024.0 * rows as f64,
        "GB/s",
        scopy,
    );
    // Matmul, square.
    let sizes: &[i64] = if big {
        &[1024, 2048, 4096]
    } else if quick {
        &[256, 512]
    } else {
        &[512, 1024, 2048]
    };
    for &m in sizes {
        let sq = md(&[m, m], dnnl_f32, dnnl_ab);
        let reference = b.gemm_reference_seconds(m as usize, m as usize, m as usize);
        row(
            b,
            "matmul f32",
            &format!("{m}^3"),
            time_matmul(b, sq, sq, sq, null_mut()),
            2.0 * (m * m * m) as f64,
            "GFLOP/s",
            reference,
        );
    }
    matmul_variants(b, *sizes.last().unwrap_or(&256));
    pooling(b, big, quick);
    resampling(b, big, quick);
    misc_kinds(b, big, quick);
    conv_layers(b, big, quick);
}

/// Reduction, PReLU, shuffle and LRN on a large f32 activation
/// (GPU: 64x256x56x56), in GB/s against a copy of as many bytes as they move
/// (read once plus written once: half of that copied).
fn misc_kinds(b: &Bench, big: bool, quick: bool) {
    let e = b.engine;
    let (n, c, hw) = if big {
        (64i64, 256i64, 56i64)
    } else if quick {
        (4, 64, 28)
    } else {
        (16, 256, 56)
    };
    let elems = n * c * hw * hw;
    let src = md(&[n, c, hw, hw], dnnl_f32, dnnl_abcd);
    let sm = memory(e, src);
    // Reductions: the spatial axes (innermost), the batch (outermost), all.
    for (what, dims) in [
        ("reduction sum hw", [n, c, 1, 1]),
        ("reduction sum batch", [1, c, hw, hw]),
        ("reduction max all", [1, 1, 1, 1]),
    ] {
        let alg = if what.contains("max") {
            dnnl_reduction_max
        } else {
            dnnl_reduction_sum
        };
        let dst = md(&dims, dnnl_f32, dnnl_abcd);
        let dm = memory(e, dst);
        // SAFETY: a valid out-pointer, a live engine and descriptors.
        let pd = pd_of(|pd| unsafe {
            dnnl_reduction_primitive_desc_create(pd, e, alg, src, dst, 0.0, 0.0, null_mut())
        });
        let moved = 4 * (elems + dims.iter().product::<i64>()) as usize;
        row(
            b,
            what,
            &format!("{n}x{c}x{hw}x{hw}"),
            b.time(pd, &[(DNNL_ARG_SRC, sm), (DNNL_ARG_DST, dm)]),
            moved as f64,
            "GB/s",
            (b.copy_seconds(moved / 2), "copy"),
        );
    }
    // PReLU forward with one slope per channel: src read, dst written.
    let w = md(&[1, c, 1, 1], dnnl_f32, dnnl_abcd);
    let (wm, dm) = (memory(e, w), memory(e, src));
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe {
        dnnl_prelu_forward_primitive_desc_create(
            pd,
            e,
            dnnl_forward_inference,
            src,
            w,
            src,
            null_mut(),
        )
    });
    let moved = 8 * elems as usize;
    row(
        b,
        "prelu per channel",
        &format!("{n}x{c}x{hw}x{hw}"),
        b.time(
            pd,
            &[
                (DNNL_ARG_SRC, sm),
                (DNNL_ARG_WEIGHTS, wm),
                (DNNL_ARG_DST, dm),
            ],
        ),
        moved as f64,
        "GB/s",
        (b.copy_seconds(moved / 2), "copy"),
    );
    // Shuffle forward along the channels in groups of 4: src read, dst
    // written.
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe {
        dnnl_shuffle_forward_primitive_desc_create(
            pd,
            e,
            dnnl_forward_inference,
            src,
            src,
            1,
            4,
            null_mut(),
        )
    });
    row(
        b,
        "shuffle axis 1 group 4",
        &format!("{n}x{c}x{hw}x{hw}"),
        b.time(pd, &[(DNNL_ARG_SRC, sm), (DNNL_ARG_DST, dm)]),
        moved as f64,
        "GB/s",
        (b.copy_seconds(moved / 2), "copy"),
    );
    // LRN forward inference across 5 channels: src read, dst written.
    // SAFETY: a valid out-pointer, a live engine and descriptors.
    let pd = pd_of(|pd| unsafe {
        dnnl_lrn_forward_primitive_desc_create(
            pd,
            e,
            dnnl_forward_inference,
            dnnl_lrn_across_channels,
            src,
            src,
            5,
            1e-4,
            0.75,
            1.0,
            null_mut(),
        )
    });
    row(
        b,
        "lrn across 5",
        &format!("{n}x{c}x{hw}x{hw}"),
        b.time(pd, &[(DNNL_ARG_SRC, sm), (DNNL_ARG_DST, dm)]),
        moved as f64,
        "GB/s",
        (b.copy_seconds(moved / 2), "copy"),
    );
}

/// Pooling forward inference, nchw f32: max 2x2 stride 2 and average 3x3
/// stride 1 padding 1 (GB/s: src read and dst written once, against a copy
/// of half those bytes, which moves them all).
fn pooling(b: &Bench, big: bool, quick: bool) {
    let e = b.engine;
    let dims: [i64; 4] = if big {
        [64, 256, 56, 56]
    } else if quick {
        [8, 64, 56, 56]
    } else {
        [32, 64, 56, 56]
    };
    let src = md(&dims, dnnl_f32, dnnl_nchw);
    let sm = memory(e, src);
    let elems: i64 = dims.iter().product();
    for (name, alg, k, s, p) in [
        ("pooling max 2x2/2 f32", dnnl_pooling_max, 2, 2, 0),
        (
            "pooling avg 3x3/1 pad 1 f32",
            dnnl_pooling_avg_include_padding,
            3,
            1,
            1,
        ),
    ] {
        let o = (dims[2] - k + 2 * p) / s + 1;
        let out = [dims[0], dims[1], o, o];
        let dst = md(&out, dnnl_f32, dnnl_nchw);
        let dm = memory(e, dst);
        let (kernel, strides, dil, pad) = ([k, k], [s, s], [0i64, 0], [p, p]);
        // SAFETY: a valid out-pointer, a live engine, descriptors and arrays
        // of two values each.
        let pd = pd_of(|pd| unsafe {
            dnnl_pooling_forward_primitive_desc_create(
                pd,
                e,
                dnnl_forward_inference,
                alg,
                src,
                dst,
                strides.as_ptr(),
                kernel.as_ptr(),
                dil.as_ptr(),
                pad.as_ptr(),
                pad.as_ptr(),
                null_mut(),
            )
        });
        let moved = 4 * (elems + out.iter().product::<i64>()) as usize;
        row(
            b,
            name,
            &format!("{dims:?}"),
            b.time(pd, &[(DNNL_ARG_SRC, sm), (DNNL_ARG_DST, dm)]),
            moved as f64,
            "GB/s",
            (b.copy_seconds(moved / 2), "copy"),
        );
    }
}

/// Resampling forward inference, nchw f32: nearest and linear upsampling by
/// 2 and linear downsampling by 2 (GB/s: src read and dst written once,
/// against a copy of half those bytes).
fn resampling(b: &Bench, big: bool, quick: bool) {
    let e = b.engine;
    let dims: [i64; 4] = if big {
        [64, 256, 56, 56]
    } else if quick {
        [8, 64, 56, 56]
    } else {
        [32, 64, 56, 56]
    };
    let src = md(&dims, dnnl_f32, dnnl_nchw);
    let sm = memory(e, src);
    let elems: i64 = dims.iter().product();
    for (name, alg, o) in [
        (
            "resampling nearest up 2x f32",
            dnnl_resampling_nearest,
            dims[2] * 2,
        ),
        (
            "resampling linear up 2x f32",
            dnnl_resampling_linear,
            dims[2] * 2,
        ),
        (
            "resampling linear down 2x f32",
            dnnl_resampling_linear,
            dims[2] / 2,
        ),
    ] {
        let out = [dims[0], dims[1], o, o];
        let dst = md(&out, dnnl_f32, dnnl_nchw);
        let dm = memory(e, dst);
        // SAFETY: a valid out-pointer, a live engine and descriptors (the
        // factors may be NULL when dst is given).
        let pd = pd_of(|pd| unsafe {
            dnnl_resampling_forward_primitive_desc_create(
                pd,
                e,
                dnnl_forward_inference,
                alg,
                std::ptr::null(),
                src,
                dst,
                null_mut(),
            )
        });
        let moved = 4 * (elems + out.iter().product::<i64>()) as usize;
        row(
            b,
            name,
            &format!("{dims:?}"),
            b.time(pd, &[(DNNL_ARG_SRC, sm), (DNNL_ARG_DST, dm)]),
            moved as f64,
            "GB/s",
            (b.copy_seconds(moved / 2), "copy"),
        );
    }
}

/// Convolution forward, f32, on ResNet-50 layers (GPU: batch 32; CPU:
/// batch 2, or 1 with smaller images when `quick`), `any` layouts, against
/// our own matmul on the equivalent GEMM (`N·OH·OW x OC x IC·KH·KW`),
/// timed in the same run.
fn conv_layers(b: &Bench, big: bool, quick: bool) {
    let e = b.engine;
    let (mb, hw) = if big {
        (32, 56)
    } else if quick {
        (1, 28)
    } else {
        (2, 56)
    };
    // f16 on GPUs too (the tensor cores on NVIDIA), its reference our f16
    // matmul of the same GEMM.
    let types: &[(dnnl_data_type_t, &str)] = if big {
        &[(dnnl_f32, "f32"), (dnnl_f16, "f16")]
    } else {
        &[(dnnl_f32, "f32")]
    };
    for &(dt, name) in types {
        for (ic, oc, k) in [(256i64, 256i64, 3i64), (64, 256, 1)] {
            let pad = k / 2;
            let src = md(&[mb, ic, hw, hw], dt, dnnl_format_tag_any);
            let wei = md(&[oc, ic, k, k], dt, dnnl_format_tag_any);
            let dst = md(&[mb, oc, hw, hw], dt, dnnl_format_tag_any);
            let strides = [1i64, 1];
            let padding = [pad, pad];
            // SAFETY: a valid out-pointer, a live engine, descriptors and arrays
            // of two values.
            let pd = pd_of(|pd| unsafe {
                dnnl_convolution_forward_primitive_desc_create(
                    pd,
                    e,
                    dnnl_forward_inference,
                    dnnl_convolution_direct,
                    src,
                    wei,
                    null_mut(),
                    dst,
                    strides.as_ptr(),
                    null_mut(),
                    padding.as_ptr(),
                    padding.as_ptr(),
                    null_mut(),
                )
            });
            let query = |what: dnnl_query_t| -> dnnl_memory_desc_t {
                match pd {
                    // SAFETY: a live descriptor; the result is cloned.
                    Ok(pd) => unsafe {
                        let mut out = null_mut();
                        ok(
                            dnnl_memory_desc_clone(
                                &mut out,
                                dnnl_primitive_desc_query_md(pd, what, 0),
                            ),
                            "clone md",
                        );
                        out
                    },
                    Err(_) => md(&[1], dnnl_f32, dnnl_a),
                }
            };
            // The layouts the forward chose (the backward ones take them too).
            let (ssm, wwm, ddm) = (
                query(dnnl_query_src_md),
                query(dnnl_query_weights_md),
                query(dnnl_query_dst_md),
            );
            let (sm, wm, dm) = (memory(e, ssm), memory(e, wwm), memory(e, ddm));
            let (m, n, kk) = (mb * hw * hw, oc, ic * k * k);
            let (am, bm, cm) = (
                md(&[m, kk], dt, dnnl_ab),
                md(&[kk, n], dt, dnnl_ab),
                md(&[m, n], dt, dnnl_ab),
            );
            let reference =
                time_matmul(b, am, bm, cm, null_mut()).map_or(f64::INFINITY, |(t, _)| t);
            row(
                b,
                &format!("conv {name} {k}x{k}"),
                &format!("{mb}x{ic}x{hw}x{hw} k{oc}"),
                b.time(
                    pd,
                    &[
                        (DNNL_ARG_SRC, sm),
                        (DNNL_ARG_WEIGHTS, wm),
                        (DNNL_ARG_DST, dm),
                    ],
                ),
                2.0 * (m * n * kk) as f64,
                "GFLOP/s",
                (reference, "our matmul, same GEMM"),
            );
            // Backward data and weights of the same layer (GPUs only: the CPU
            // figures above are enough for a 2-core machine).
            if !big {
                continue;
            }
            let flops = 2.0 * (m * n * kk) as f64;
            let size = format!("{mb}x{ic}x{hw}x{hw} k{oc}");
            // SAFETY: as for the forward descriptor.
            let bwd_d = pd_of(|pd| unsafe {
                dnnl_convolution_backward_data_primitive_desc_create(
                    pd,
                    e,
                    dnnl_convolution_direct,
                    ssm,
                    wwm,
                    ddm,
                    strides.as_ptr(),
                    null_mut(),
                    padding.as_ptr(),
                    padding.as_ptr(),
                    null_mut(),
                    null_mut(),
                )
            });
            let args = [
                (DNNL_ARG_DIFF_SRC, sm),
                (DNNL_ARG_WEIGHTS, wm),
                (DNNL_ARG_DIFF_DST, dm),
            ];
            let what = format!("conv {name} bwd_d {k}x{k}");
            let same = (reference, "our matmul, same GEMM");
            row(
                b,
                &what,
                &size,
                b.time(bwd_d, &args),
                flops,
                "GFLOP/s",
                same,
            );
            // SAFETY: as for the forward descriptor.
            let bwd_w = pd_of(|pd| unsafe {
                dnnl_convolution_backward_weights_primitive_desc_create(
                    pd,
                    e,
                    dnnl_convolution_direct,
                    ssm,
                    wwm,
                    null_mut(),
                    ddm,
                    strides.as_ptr(),
                    null_mut(),
                    padding.as_ptr(),
                    padding.as_ptr(),
                    null_mut(),
                    null_mut(),
                )
            });
            let args = [
                (DNNL_ARG_SRC, sm),
                (DNNL_ARG_DIFF_WEIGHTS, wm),
                (DNNL_ARG_DIFF_DST, dm),
            ];
            let what = format!("conv {name} bwd_w {k}x{k}");
            row(
                b,
                &what,
                &size,
                b.time(bwd_w, &args),
                flops,
                "GFLOP/s",
                same,
            );
        }
    }
}

/// Matmul at the largest size with other types and transposed weights
/// (same reference as f32).
fn matmul_variants(b: &Bench, m: i64) {
    let reference = b.gemm_reference_seconds(m as usize, m as usize, m as usize);
    let strict = dnnl_fpmath_mode_strict;
    let cases = [
        ("matmul f32", dnnl_f32, dnnl_ab, strict, GemmType::F32),
        ("matmul f32 wei^T", dnnl_f32, dnnl_ba, strict, GemmType::F32),
        (
            "matmul f32 fpmath tf32",
            dnnl_f32,
            dnnl_ab,
            dnnl_fpmath_mode_tf32,
            GemmType::Tf32,
        ),
        (
            "matmul f32 fpmath tf32 wei^T",
            dnnl_f32,
            dnnl_ba,
            dnnl_fpmath_mode_tf32,
            GemmType::Tf32,
        ),
        ("matmul f16", dnnl_f16, dnnl_ab, strict, GemmType::F16),
        ("matmul f16 wei^T", dnnl_f16, dnnl_ba, strict, GemmType::F16),
        ("matmul bf16", dnnl_bf16, dnnl_ab, strict, GemmType::Bf16),
        ("matmul u8*s8->s32", dnnl_s8, dnnl_ab, strict, GemmType::S8),
    ];
    for (op, dt, wtag, mode, vendor_type) in cases {
        if dt == dnnl_s8 {
            matmul_int8(b, m, reference);
            continue;
        }
        let reference = b.vendor_seconds(vendor_type, m, wtag == dnnl_ba, reference);
        let (sm, wm) = (md(&[m, m], dt, dnnl_ab), md(&[m, m], dt, wtag));
        let mut attr = null_mut();
        // SAFETY: valid out-pointers, a live attribute, a valid mode.
        unsafe {
            ok(dnnl_primitive_attr_create(&mut attr), "attr");
            ok(dnnl_primitive_attr_set_fpmath_mode(attr, mode), "fpmath");
        }
        let timed = time_matmul(b, sm, wm, sm, attr);
        // SAFETY: the attribute is not used after.
        unsafe { dnnl_primitive_attr_destroy(attr) };
        row(
            b,
            op,
            &format!("{m}^3"),
            timed,
            2.0 * (m * m * m) as f64,
            "GFLOP/s",
            reference,
        );
    }
}

/// Int8 matmul, `u8 x s8 -> s32` at `m^3`: GOP/s (2·M·N·K integer
/// operations), against the f32 reference GEMM's seconds (`reference`).
fn matmul_int8(b: &Bench, m: i64, reference: (f64, &'static str)) {
    matmul_int8_weights(b, m, dnnl_ab, "matmul u8*s8->s32", reference);
    matmul_int8_weights(b, m, dnnl_ba, "matmul u8*s8^T->s32", reference);
}

/// [`matmul_int8`] with weights of layout `wtag`, in rows named `op`.
fn matmul_int8_weights(
    b: &Bench,
    m: i64,
    wtag: dnnl_format_tag_t,
    op: &str,
    reference: (f64, &'static str),
) {
    let (sm, wm, dm) = (
        md(&[m, m], dnnl_u8, dnnl_ab),
        md(&[m, m], dnnl_s8, wtag),
        md(&[m, m], dnnl_s32, dnnl_ab),
    );
    let reference = b.vendor_seconds(GemmType::S8, m, wtag == dnnl_ba, reference);
    row(
        b,
        op,
        &format!("{m}^3"),
        time_matmul(b, sm, wm, dm, null_mut()),
        2.0 * (m * m * m) as f64,
        "GOP/s",
        reference,
    );
}

/// The `matmul` mode: f32 at the bench's sizes' largest (GPUs 4096, CPU
/// 1024; `quick` 512), the other types and int8 beside it.
fn matmul_only(b: &Bench, quick: bool) {
    let m: i64 = if quick {
        512
    } else if b.ocl.is_some() {
        4096
    } else {
        1024
    };
    let sq = md(&[m, m], dnnl_f32, dnnl_ab);
    let reference = b.gemm_reference_seconds(m as usize, m as usize, m as usize);
    row(
        b,
        "matmul f32",
        &format!("{m}^3"),
        time_matmul(b, sq, sq, sq, null_mut()),
        2.0 * (m * m * m) as f64,
        "GFLOP/s",
        reference,
    );
    matmul_variants(b, m);
}

/// The `rnn` mode: LSTM forward inference, one layer left to right, f32,
/// batch 64, 1024 channels everywhere, 50 steps (`quick`: batch 8, 64
/// channels, 10 steps): time per step, GFLOP/s of its GEMMs, against the
/// GEMM bound measured in the same run through our matmul: the layer
/// GEMM over all steps (`T·N x C` by `C x 4C`) spread over the steps plus
/// one iteration GEMM (`N x C` by `C x 4C`) per step, each timed alone.
fn rnn_lstm(b: &Bench, quick: bool) {
    let (n, c, t): (i64, i64, i64) = if quick { (8, 64, 10) } else { (64, 1024, 50) };
    let g = 4 * c;
    let f32m = |dims: &[i64], tag| md(dims, dnnl_f32, tag);
    let (layer, state) = (f32m(&[t, n, c], dnnl_tnc), f32m(&[1, 1, n, c], dnnl_ldnc));
    let weights = f32m(&[1, 1, c, 4, c], dnnl_ldigo);
    let bias = f32m(&[1, 1, 4, c], dnnl_ldgo);
    let e = b.engine;
    // SAFETY: a valid out-pointer, a live engine and descriptors; NULL for
    // the absent peephole and projection and the default attribute.
    let pd = pd_of(|pd| unsafe {
        dnnl_lstm_forward_primitive_desc_create(
            pd,
            e,
            dnnl_forward_inference,
            dnnl_unidirectional_left2right,
            layer,
            state,
            state,
            weights,
            weights,
            null_mut(),
            null_mut(),
            bias,
            layer,
            state,
            state,
            0,
            null_mut(),
        )
    });
    let args = [
        (DNNL_ARG_SRC_LAYER, memory(e, layer)),
        (DNNL_ARG_SRC_ITER, memory(e, state)),
        (DNNL_ARG_SRC_ITER_C, memory(e, state)),
        (DNNL_ARG_WEIGHTS_LAYER, memory(e, weights)),
        (DNNL_ARG_WEIGHTS_ITER, memory(e, weights)),
        (DNNL_ARG_BIAS, memory(e, bias)),
        (DNNL_ARG_DST_LAYER, memory(e, layer)),
        (DNNL_ARG_DST_ITER, memory(e, state)),
        (DNNL_ARG_DST_ITER_C, memory(e, state)),
    ];
    let lstm = b.time(pd, &args);
    let gemm = |m: i64| {
        time_matmul(
            b,
            f32m(&[m, c], dnnl_ab),
            f32m(&[c, g], dnnl_ab),
            f32m(&[m, g], dnnl_ab),
            null_mut(),
        )
    };
    let size = format!("N{n} C{c} T{t}");
    let (t_layer, t_iter) = match (gemm(t * n), gemm(n)) {
        (Ok((a, _)), Ok((i, _))) => (a, i),
        (Err(why), _) | (_, Err(why)) => {
            println!(
                "{:<26} {:<22} {size:<16} matmul: {why}",
                b.name, "lstm inference"
            );
            return;
        }
    };
    let bound = t_layer + t as f64 * t_iter;
    let flops = 2.0 * (2 * t * n * c * g) as f64;
    row(
        b,
        "lstm inference",
        &size,
        lstm.clone(),
        flops,
        "GFLOP/s",
        (bound, "per-step GEMMs (matmul)"),
    );
    if let Ok((total, _)) = lstm {
        println!(
            "{:<26} {:<22} {size:<16} per step: {:.3} ms, GEMM bound {:.3} ms \
             (layer GEMM {:.3} ms / {t} steps + iteration GEMM {:.3} ms, each measured \
             alone through our matmul)",
            b.name,
            "lstm inference",
            total / t as f64 * 1e3,
            bound / t as f64 * 1e3,
            t_layer * 1e3,
            t_iter * 1e3
        );
    }
}

/// The `blas` mode (CPU engine only): `dnnl_sgemm` at 1024, 1536 and 2048
/// (`quick`: 256, 512) square, A plain (NN) and transposed (TN), beside our
/// f32 matmul of the same shape (src `ab`, or `ba` for Aᵀ) timed in the same
/// run; then `dnnl_gemm_u8s8s32` beside the `u8 x s8 -> s32` matmul.
fn blas(b: &Bench, quick: bool) {
    if b.ocl.is_some() {
        return;
    }
    let sizes: &[i64] = if quick {
        &[256, 512]
    } else {
        &[1024, 1536, 2048]
    };
    for &m in sizes {
        let len = (m * m) as usize;
        let a: Vec<f32> = (0..len).map(|i| (i % 97) as f32 / 97.0 - 0.5).collect();
        let bm: Vec<f32> = (0..len).map(|i| (i % 89) as f32 / 89.0 - 0.5).collect();
        let mut c = vec![0f32; len];
        for (op, ta, src_tag) in [("NN", b'N', dnnl_ab), ("TN", b'T', dnnl_ba)] {
            let (sm, wm) = (
                md(&[m, m], dnnl_f32, src_tag),
                md(&[m, m], dnnl_f32, dnnl_ab),
            );
            let matmul = time_matmul(b, sm, wm, wm, null_mut());
            let t = seconds(|n| {
                for _ in 0..n {
                    // SAFETY: A, B and C hold m x m floats.
                    let st = unsafe {
                        dnnl_sgemm(
                            ta as std::ffi::c_char,
                            b'N' as std::ffi::c_char,
                            m,
                            m,
                            m,
                            1.0,
                            a.as_ptr(),
                            m,
                            bm.as_ptr(),
                            m,
                            0.0,
                            c.as_mut_ptr(),
                            m,
                        )
                    };
                    ok(st, "dnnl_sgemm");
                }
            });
            let flops = 2.0 * (m * m * m) as f64;
            match matmul {
                Ok((t_ref, _)) => row(
                    b,
                    &format!("sgemm {op}"),
                    &format!("{m}^3"),
                    Ok((t, "dnnl_sgemm".into())),
                    flops,
                    "GFLOP/s",
                    (t_ref, "matmul f32, same shape"),
                ),
                Err(why) => println!("{:<26} matmul f32 {op} {m}^3: {why}", b.name),
            }
        }
        // Int8: dnnl_gemm_u8s8s32 beside the u8 x s8 -> s32 matmul.
        let (sm, wm, dm) = (
            md(&[m, m], dnnl_u8, dnnl_ab),
            md(&[m, m], dnnl_s8, dnnl_ab),
            md(&[m, m], dnnl_s32, dnnl_ab),
        );
        let matmul = time_matmul(b, sm, wm, dm, null_mut());
        let ua: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let sb: Vec<i8> = (0..len).map(|i| (i % 255) as i8).collect();
        let mut ic = vec![0i32; len];
        let co = [0i32];
        let t = seconds(|n| {
            for _ in 0..n {
                // SAFETY: A, B and C hold m x m elements, co one.
                let st = unsafe {
                    dnnl_gemm_u8s8s32(
                        b'N' as std::ffi::c_char,
                        b'N' as std::ffi::c_char,
                        b'F' as std::ffi::c_char,
                        m,
                        m,
                        m,
                        1.0,
                        ua.as_ptr(),
                        m,
                        0,
                        sb.as_ptr(),
                        m,
                        0,
                        0.0,
                        ic.as_mut_ptr(),
                        m,
                        co.as_ptr(),
                    )
                };
                ok(st, "dnnl_gemm_u8s8s32");
            }
        });
        if let Ok((t_ref, _)) = matmul {
            row(
                b,
                "gemm_u8s8s32 NN",
                &format!("{m}^3"),
                Ok((t, "dnnl_gemm_u8s8s32".into())),
                2.0 * (m * m * m) as f64,
                "GOP/s",
                (t_ref, "matmul u8*s8->s32"),
            );
        }
    }
}

/// The execute-time argument check alone ([`Primitive::check_args`]) beside
/// `dnnl_primitive_execute` of the same small primitive (enqueue only, the
/// wait amortised over the loop): the check's cost and share of the call.
fn check_overhead(b: &Bench) {
    use dnnl::capi::handles::resolve;
    use dnnl::core::primitive::ExecArgs;
    let e = b.engine;
    let (one, sq) = (
        md(&[1, 16], dnnl_f32, dnnl_ab),
        md(&[8, 8], dnnl_f32, dnnl_ab),
    );
    let (m1, m2, m3) = (memory(e, one), memory(e, one), memory(e, one));
    let (q1, q2, q3) = (memory(e, sq), memory(e, sq), memory(e, sq));
    // SAFETY: valid out-pointers, a live engine and descriptors.
    let cases = unsafe {
        [
            (
                "eltwise relu 1x16",
                pd_of(|pd| {
                    dnnl_eltwise_forward_primitive_desc_create(
                        pd,
                        e,
                        dnnl_forward_inference,
                        dnnl_eltwise_relu,
                        one,
                        one,
                        0.0,
                        0.0,
                        null_mut(),
                    )
                }),
                vec![(DNNL_ARG_SRC, m1), (DNNL_ARG_DST, m2)],
            ),
            (
                "binary add 1x16",
                pd_of(|pd| {
                    dnnl_binary_primitive_desc_create(
                        pd,
                        e,
                        dnnl_binary_add,
                        one,
                        one,
                        one,
                        null_mut(),
                    )
                }),
                vec![
                    (DNNL_ARG_SRC_0, m1),
                    (DNNL_ARG_SRC_1, m2),
                    (DNNL_ARG_DST, m3),
                ],
            ),
            (
                "matmul 8x8x8",
                pd_of(|pd| {
                    dnnl_matmul_primitive_desc_create(pd, e, sq, sq, null_mut(), sq, null_mut())
                }),
                vec![
                    (DNNL_ARG_SRC, q1),
                    (DNNL_ARG_WEIGHTS, q2),
                    (DNNL_ARG_DST, q3),
                ],
            ),
        ]
    };
    for (op, pd, args) in cases {
        let Ok(pd) = pd else {
            println!("{:<26} {op:<22} refused", b.name);
            continue;
        };
        let mut prim = null_mut();
        // SAFETY: a live descriptor and a valid out-pointer.
        ok(unsafe { dnnl_primitive_create(&mut prim, pd) }, "primitive");
        let c_args: Vec<dnnl_exec_arg_t> = args
            .iter()
            .map(|&(arg, memory)| dnnl_exec_arg_t { arg, memory })
            .collect();
        let execute = seconds_many(|n| {
            for _ in 0..n {
                // SAFETY: live handles; the argument array outlives the call.
                ok(
                    unsafe {
                        dnnl_primitive_execute(prim, b.stream, c_args.len() as i32, c_args.as_ptr())
                    },
                    "execute",
                );
            }
            // SAFETY: a live stream.
            ok(unsafe { dnnl_stream_wait(b.stream) }, "wait");
        });
        let primitive = resolve(prim.cast_const()).unwrap();
        let rust_args: ExecArgs = args
            .iter()
            .map(|&(arg, m)| (arg, resolve(m.cast_const()).unwrap()))
            .collect();
        let check = seconds_many(|n| {
            for _ in 0..n {
                primitive
                    .check_args(std::hint::black_box(&rust_args))
                    .unwrap();
            }
        });
        println!(
            "{:<26} {op:<22} execute {:>9.2} us   check {:>7.1} ns   share {:>6.3} %",
            b.name,
            execute * 1e6,
            check * 1e9,
            100.0 * check / execute
        );
        // SAFETY: live handles, destroyed once.
        unsafe {
            dnnl_primitive_destroy(prim);
            dnnl_primitive_desc_destroy(pd);
        }
    }
}

/// Seconds per iteration of `run`, repeated for about 0.3 s (for calls of a
/// few microseconds, which [`seconds`]'s 200-iteration cap would not time).
fn seconds_many(mut run: impl FnMut(usize)) -> f64 {
    run(100);
    let start = Instant::now();
    run(100);
    let once = start.elapsed().as_secs_f64().max(1e-7) / 100.0;
    let iters = ((0.3 / once) as usize).clamp(100, 10_000_000);
    let start = Instant::now();
    run(iters);
    start.elapsed().as_secs_f64() / iters as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let check = args.iter().any(|a| a == "check");
    let quick = args.iter().any(|a| a == "quick");
    let conv_only = args.iter().any(|a| a == "conv");
    // `kinds`: only the memory-bound kinds of pooling .. normalization.
    let kinds_only = args.iter().any(|a| a == "kinds");
    let resampling_only = args.iter().any(|a| a == "resampling");
    let gemm_only = args.iter().any(|a| a == "gemm");
    // `reorder`: only the blocked <-> plain reorders.
    let reorder_only = args.iter().any(|a| a == "reorder");
    // `matmul`: f32 and int8 matmul only (GPUs 4096^3, CPU 1024^3).
    let matmul_mode = args.iter().any(|a| a == "matmul");
    // `blas`: dnnl_sgemm and dnnl_gemm_u8s8s32 beside matmul (CPU engine).
    let blas_mode = args.iter().any(|a| a == "blas");
    // `rnn`: LSTM inference beside its per-step GEMMs.
    let rnn_mode = args.iter().any(|a| a == "rnn");
    let cpu = !args.iter().any(|a| a == "gpu");
    let gpu = !args.iter().any(|a| a == "cpu");
    if !check {
        println!(
            "{:<26} {:<22} {:<16} {:>9} {:>17} {:>9} {:<22} {:>6} implementation",
            "engine", "op", "size", "time ms", "figure", "ref", "reference", "ratio"
        );
    }
    let mut benches = Vec::new();
    // SAFETY: engine calls with valid out-pointers and live handles.
    unsafe {
        if cpu {
            let mut engine = null_mut();
            ok(dnnl_engine_create(&mut engine, dnnl_cpu, 0), "cpu engine");
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            benches.push((engine, format!("cpu ({threads} threads)"), None));
        }
        if gpu {
            for i in 0..dnnl_engine_get_count(dnnl_gpu) {
                let mut engine = null_mut();
                ok(dnnl_engine_create(&mut engine, dnnl_gpu, i), "gpu engine");
                let (mut device, mut context) = (null_mut(), null_mut());
                ok(dnnl_ocl_interop_get_device(engine, &mut device), "device");
                ok(
                    dnnl_ocl_interop_engine_get_context(engine, &mut context),
                    "context",
                );
                let device = Device::retain_borrowed(device.cast()).unwrap();
                let context = Context::retain_borrowed(context.cast()).unwrap();
                let name = device.name().unwrap();
                benches.push((
                    engine,
                    format!("ocl:{}", name.chars().take(24).collect::<String>()),
                    Some((device, context)),
                ));
            }
        }
    }
    for (engine, name, ocl) in benches {
        let mut stream = null_mut();
        // SAFETY: a live engine, a valid out-pointer.
        ok(
            unsafe { dnnl_stream_create(&mut stream, engine, dnnl_stream_default_flags.0) },
            "stream",
        );
        let vendor = match ocl {
            Some(_) if gemm_only => Cublas::load()
                .inspect_err(|why| {
                    println!("# cuBLAS not loaded ({why}): GEMM rows against the tiled SGEMM")
                })
                .ok(),
            _ => None,
        };
        let b = Bench {
            engine,
            stream,
            name,
            ocl,
            vendor,
        };
        if check {
            check_overhead(&b);
        } else {
            if conv_only {
                conv_layers(&b, b.ocl.is_some() && !quick, quick);
            } else if gemm_only {
                // Sizes named on the command line, or the defaults.
                let named: Vec<i64> = args.iter().filter_map(|a| a.parse().ok()).collect();
                let sizes: &[i64] = if !named.is_empty() {
                    &named
                } else if b.ocl.is_some() && !quick {
                    &[1024, 4096, 8192]
                } else {
                    &[256, 512]
                };
                for &m in sizes {
                    matmul_variants(&b, m);
                }
            } else if resampling_only {
                resampling(&b, b.ocl.is_some() && !quick, quick);
            } else if reorder_only {
                reorders(&b, b.ocl.is_some() && !quick, quick);
            } else if matmul_mode {
                matmul_only(&b, quick);
            } else if blas_mode {
                blas(&b, quick);
            } else if rnn_mode {
                rnn_lstm(&b, quick);
            } else if kinds_only {
                let big = b.ocl.is_some() && !quick;
                pooling(&b, big, quick);
                resampling(&b, big, quick);
                misc_kinds(&b, big, quick);
                normalizations(&b, quick);
            } else {
                run(&b, quick);
                normalizations(&b, quick);
            }
        }
    }
}
