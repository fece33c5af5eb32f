//! One primitive executed from several threads at once, each with its own
//! stream and memory, on the CPU engine and every OpenCL device: every
//! result must be right (kernel arguments are per execution, although
//! `clSetKernelArg` is not thread-safe).

#![allow(non_upper_case_globals)]

use std::ffi::c_void;
use std::ptr::null_mut;

use dnnl::abi::*;
use dnnl::capi::common::*;
use dnnl::capi::dnnl::*;

const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;
const N: i64 = 48;

/// A handle that may cross threads (the library's handles are thread-safe).
#[derive(Clone, Copy)]
struct Shared<T>(T);
// SAFETY: oneDNN handles may be used from any thread; the library's are
// tokens resolved under locks.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}

fn md() -> dnnl_memory_desc_t {
    let mut md = null_mut();
    // SAFETY: a valid out-pointer and dims.
    unsafe { dnnl_memory_desc_create_with_tag(&mut md, 2, [N, N].as_ptr(), dnnl_f32, dnnl_ab) };
    md
}

fn write(m: dnnl_memory_t, f: impl Fn(usize) -> f32) {
    let mut p: *mut c_void = null_mut();
    // SAFETY: a mapping of N*N floats.
    unsafe {
        assert_eq!(dnnl_memory_map_data(m, &mut p), dnnl_success);
        let v = std::slice::from_raw_parts_mut(p.cast::<f32>(), (N * N) as usize);
        for (i, x) in v.iter_mut().enumerate() {
            *x = f(i);
        }
        dnnl_memory_unmap_data(m, p);
    }
}

/// Thread `t` multiplies (t+1)·I by B and checks (t+1)·B, `rounds` times.
fn worker(engine: dnnl_engine_t, primitive: dnnl_primitive_t, t: usize, rounds: usize) {
    let md = md();
    let (mut a, mut b, mut c, mut stream) = (null_mut(), null_mut(), null_mut(), null_mut());
    // SAFETY: live handles, valid out-pointers, mappings of N*N floats.
    unsafe {
        assert_eq!(
            dnnl_memory_create(&mut a, md, engine, ALLOCATE),
            dnnl_success
        );
        assert_eq!(
            dnnl_memory_create(&mut b, md, engine, ALLOCATE),
            dnnl_success
        );
        assert_eq!(
            dnnl_memory_create(&mut c, md, engine, ALLOCATE),
            dnnl_success
        );
        assert_eq!(
            dnnl_stream_create(&mut stream, engine, dnnl_stream_default_flags.0),
            dnnl_success
        );
        let scale = (t + 1) as f32;
        write(a, |i| {
            if i / N as usize == i % N as usize {
                scale
            } else {
                0.0
            }
        });
        write(b, |i| (i % 17) as f32 - 8.0);
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
            write(c, |_| -1.0);
            assert_eq!(
                dnnl_primitive_execute(primitive, stream, 3, args.as_ptr()),
                dnnl_success
            );
            assert_eq!(dnnl_stream_wait(stream), dnnl_success);
            let mut p: *mut c_void = null_mut();
            dnnl_memory_map_data(c, &mut p);
            let got = std::slice::from_raw_parts(p.cast::<f32>(), (N * N) as usize);
            for (i, &v) in got.iter().enumerate() {
                let want = scale * ((i % 17) as f32 - 8.0);
                assert_eq!(v, want, "thread {t} round {round} element {i}");
            }
            dnnl_memory_unmap_data(c, p);
        }
        dnnl_stream_destroy(stream);
        for m in [a, b, c] {
            dnnl_memory_destroy(m);
        }
        dnnl_memory_desc_destroy(md);
    }
}

fn check_engine(kind: dnnl_engine_kind_t, index: usize) {
    let md = md();
    let (mut engine, mut pd, mut primitive) = (null_mut(), null_mut(), null_mut());
    // SAFETY: valid out-pointers and live handles.
    unsafe {
        assert_eq!(dnnl_engine_create(&mut engine, kind, index), dnnl_success);
        assert_eq!(
            dnnl_matmul_primitive_desc_create(&mut pd, engine, md, md, null_mut(), md, null_mut()),
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
        dnnl_memory_desc_destroy(md);
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
