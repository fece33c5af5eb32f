//! One primitive executed from several threads at once, each with its own
//! stream and memory, on the CPU engine and every OpenCL device: every
//! result must be right (kernel arguments are per execution, although
//! `clSetKernelArg` is not thread-safe). The matmul is M x K by K x N with
//! odd, different sizes and general matrices of small integers, different in
//! each thread: every element is exact in f32, so swapped or transposed
//! operands, or another thread's data, cannot pass.

#![allow(non_upper_case_globals)]

use std::ffi::c_void;
use std::ptr::null_mut;

use dnnl::abi::*;
use dnnl::capi::common::*;
use dnnl::capi::dnnl::*;

const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;
const M: i64 = 37;
const K: i64 = 48;
const N: i64 = 29;

/// A handle that may cross threads (the library's handles are thread-safe).
#[derive(Clone, Copy)]
struct Shared<T>(T);
// SAFETY: oneDNN handles may be used from any thread; the library's are
// tokens resolved under locks.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}

fn md(rows: i64, cols: i64) -> dnnl_memory_desc_t {
    let mut md = null_mut();
    // SAFETY: a valid out-pointer and dims.
    unsafe {
        dnnl_memory_desc_create_with_tag(&mut md, 2, [rows, cols].as_ptr(), dnnl_f32, dnnl_ab)
    };
    md
}

/// Thread `t`'s A (M x K) and B (K x N): small integers of both signs.
fn a_of(t: usize, i: usize) -> f32 {
    let (r, k) = (i / K as usize, i % K as usize);
    ((r * 7 + k * 3 + t * 5) % 13) as f32 - 6.0
}

fn b_of(t: usize, i: usize) -> f32 {
    let (k, c) = (i / N as usize, i % N as usize);
    ((k * 5 + c * 11 + t) % 17) as f32 - 8.0
}

fn write(m: dnnl_memory_t, len: i64, f: impl Fn(usize) -> f32) {
    let mut p: *mut c_void = null_mut();
    // SAFETY: a mapping of len floats.
    unsafe {
        assert_eq!(dnnl_memory_map_data(m, &mut p), dnnl_success);
        let v = std::slice::from_raw_parts_mut(p.cast::<f32>(), len as usize);
        for (i, x) in v.iter_mut().enumerate() {
            *x = f(i);
        }
        dnnl_memory_unmap_data(m, p);
    }
}

/// Thread `t` multiplies its A by its B and checks every element of C
/// against the exact product, `rounds` times.
fn worker(engine: dnnl_engine_t, primitive: dnnl_primitive_t, t: usize, rounds: usize) {
    let (amd, bmd, cmd) = (md(M, K), md(K, N), md(M, N));
    let (mut a, mut b, mut c, mut stream) = (null_mut(), null_mut(), null_mut(), null_mut());
    let want: Vec<f32> = (0..(M * N) as usize)
        .map(|i| {
            let (r, col) = (i / N as usize, i % N as usize);
            (0..K as usize)
                .map(|k| a_of(t, r * K as usize + k) * b_of(t, k * N as usize + col))
                .sum()
        })
        .collect();
    // SAFETY: live handles, valid out-pointers, mappings of the memories' floats.
    unsafe {
        assert_eq!(
            dnnl_memory_create(&mut a, amd, engine, ALLOCATE),
            dnnl_success
        );
        assert_eq!(
            dnnl_memory_create(&mut b, bmd, engine, ALLOCATE),
            dnnl_success
        );
        assert_eq!(
            dnnl_memory_create(&mut c, cmd, engine, ALLOCATE),
            dnnl_success
        );
        assert_eq!(
            dnnl_stream_create(&mut stream, engine, dnnl_stream_default_flags.0),
            dnnl_success
        );
        write(a, M * K, |i| a_of(t, i));
        write(b, K * N, |i| b_of(t, i));
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC,
                memory: a,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_WEIGHTS,
                memory: b,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_DST,
                memory: c,
            },
        ];
        for round in 0..rounds {
            write(c, M * N, |_| -1.0);
            assert_eq!(
                dnnl_primitive_execute(primitive, stream, 3, args.as_ptr()),
                dnnl_success
            );
            assert_eq!(dnnl_stream_wait(stream), dnnl_success);
            let mut p: *mut c_void = null_mut();
            dnnl_memory_map_data(c, &mut p);
            let got = std::slice::from_raw_parts(p.cast::<f32>(), (M * N) as usize);
            for (i, (&v, &w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(v, w, "thread {t} round {round} element {i}");
            }
            dnnl_memory_unmap_data(c, p);
        }
        dnnl_stream_destroy(stream);
        for m in [a, b, c] {
            dnnl_memory_destroy(m);
        }
        for m in [amd, bmd, cmd] {
            dnnl_memory_desc_destroy(m);
        }
    }
}

fn check_engine(kind: dnnl_engine_kind_t, index: usize) {
    let (amd, bmd, cmd) = (md(M, K), md(K, N), md(M, N));
    let (mut engine, mut pd, mut primitive) = (null_mut(), null_mut(), null_mut());
    // SAFETY: valid out-pointers and live handles.
    unsafe {
        assert_eq!(dnnl_engine_create(&mut engine, kind, index), dnnl_success);
        assert_eq!(
            dnnl_matmul_primitive_desc_create(
                &mut pd,
                engine,
                amd,
                bmd,
                null_mut(),
                cmd,
                null_mut()
            ),
            dnnl_success
        );
        assert_eq!(dnnl_primitive_create(&mut primitive, pd), dnnl_success);
    }
    let (e, p) = (Shared(engine), Shared(primitive));
    std::thread::scope(|s| {
        for t in 0..4 {
            s.spawn(move || {
                let (e, p) = (e, p);
                worker(e.0, p.0, t, 8)
            });
        }
    });
    // SAFETY: live handles, destroyed once.
    unsafe {
        dnnl_primitive_destroy(primitive);
        dnnl_primitive_desc_destroy(pd);
        dnnl_engine_destroy(engine);
        for m in [amd, bmd, cmd] {
            dnnl_memory_desc_destroy(m);
        }
    }
}

#[test]
fn one_primitive_from_four_threads() {
    check_engine(dnnl_cpu, 0);
    // SAFETY: a plain query.
    for i in 0..unsafe { dnnl_engine_get_count(dnnl_gpu) } {
        check_engine(dnnl_gpu, i);
    }
}
