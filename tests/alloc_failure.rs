//! Allocation failure on every create path returns `dnnl_out_of_memory` and
//! leaks nothing: the library's fault injection (`dnnl::base::fault`) fails
//! the n-th fallible allocation, and each path is walked with n = 1, 2, ...
//! until it makes fewer than n allocations. After each failed attempt the
//! live host buffers and graph allocations are back where they started.
//!
//! One test function: the injection is process-wide, and this file is its
//! own test binary.

#![allow(non_upper_case_globals)]

mod skip;

use std::ffi::c_void;
use std::ptr::null_mut;

use dnnl::abi::*;
use dnnl::base::fault;
use dnnl::capi::common::*;
use dnnl::capi::dnnl::*;
use dnnl::capi::graph::*;
use dnnl::core::host_buffer;
use dnnl::graph::alloc;

const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

fn md(dims: &[i64], dt: dnnl_data_type_t) -> dnnl_memory_desc_t {
    let mut md = null_mut();
    // SAFETY: a valid out-pointer and dims.
    let s = unsafe {
        dnnl_memory_desc_create_with_tag(&mut md, dims.len() as i32, dims.as_ptr(), dt, dnnl_ab)
    };
    assert_eq!(s, dnnl_success);
    md
}

/// Walks `path` with the n-th allocation failing, n = 1, 2, ...: each
/// attempt whose injected failure fired must return `dnnl_out_of_memory`
/// and leave the live host buffers and graph allocations as they were.
/// Returns the number of fallible allocations the path makes.
fn walk(name: &str, path: impl Fn() -> dnnl_status_t) -> u64 {
    for n in 1..100 {
        let live = || (host_buffer::live_buffers(), alloc::live_allocations());
        let before = live();
        fault::fail_nth(n);
        let status = path();
        let fired = fault::fired();
        fault::fail_nth(0);
        assert_eq!(live(), before, "{name}: failing allocation {n} leaked");
        if !fired {
            assert_eq!(status, dnnl_success, "{name}: no failure injected at {n}");
            println!("{name}: {} allocations, each failure reported", n - 1);
            return n - 1;
        }
        assert_eq!(
            status, dnnl_out_of_memory,
            "{name}: allocation {n} failed and the status is not out_of_memory"
        );
    }
    panic!("{name}: more than 99 allocations");
}

#[test]
fn every_create_path_reports_allocation_failure() {
    let mut engine = null_mut();
    let mut stream = null_mut();
    // SAFETY: valid out-pointers.
    unsafe {
        assert_eq!(dnnl_engine_create(&mut engine, dnnl_cpu, 0), dnnl_success);
        assert_eq!(
            dnnl_stream_create(&mut stream, engine, dnnl_stream_default_flags.0),
            dnnl_success
        );
    }
    let (f32_md, f16_md) = (md(&[64, 64], dnnl_f32), md(&[64, 64], dnnl_f16));

    // Memory the library allocates.
    let n = walk("dnnl_memory_create(DNNL_MEMORY_ALLOCATE)", || {
        let mut m = null_mut();
        // SAFETY: live handles, a valid out-pointer.
        let s = unsafe { dnnl_memory_create(&mut m, f32_md, engine, ALLOCATE) };
        if s == dnnl_success {
            // SAFETY: a live memory, destroyed once.
            unsafe { dnnl_memory_destroy(m) };
        }
        s
    });
    assert_eq!(n, 1);

    // A sum into f16 accumulates in the library's scratchpad, allocated at
    // the first execute on a stream: a fresh stream each time.
    let (mut pd, mut prim) = (null_mut(), null_mut());
    let scales = [1.0f32, 2.0];
    let srcs = [f16_md.cast_const(), f16_md.cast_const()];
    let (mut a, mut b, mut c) = (null_mut(), null_mut(), null_mut());
    // SAFETY: live handles, valid out-pointers and arrays.
    unsafe {
        assert_eq!(
            dnnl_sum_primitive_desc_create(
                &mut pd,
                engine,
                f16_md,
                2,
                scales.as_ptr(),
                srcs.as_ptr(),
                null_mut()
            ),
            dnnl_success
        );
        assert_eq!(dnnl_primitive_create(&mut prim, pd), dnnl_success);
        for m in [&mut a, &mut b, &mut c] {
            assert_eq!(
                dnnl_memory_create(m, f16_md, engine, ALLOCATE),
                dnnl_success
            );
        }
    }
    let n = walk("dnnl_primitive_execute (sum, library scratchpad)", || {
        let mut s = null_mut();
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_MULTIPLE_SRC,
                memory: a,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_MULTIPLE_SRC + 1,
                memory: b,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_DST,
                memory: c,
            },
        ];
        // SAFETY: live handles and arguments; the stream is destroyed once.
        unsafe {
            assert_eq!(
                dnnl_stream_create(&mut s, engine, dnnl_stream_default_flags.0),
                dnnl_success
            );
            let status = dnnl_primitive_execute(prim, s, 3, args.as_ptr());
            dnnl_stream_wait(s);
            dnnl_stream_destroy(s);
            status
        }
    });
    assert!(n >= 1, "the sum into f16 allocates its scratchpad");

    // Memory the library allocates on every OpenCL device (a buffer).
    // SAFETY: a plain count query.
    let gpus = unsafe { dnnl_engine_get_count(dnnl_gpu) };
    for i in 0..gpus {
        let mut gpu = null_mut();
        // SAFETY: a valid out-pointer, an index below the count.
        let s = unsafe { dnnl_engine_create(&mut gpu, dnnl_gpu, i) };
        assert_eq!(s, dnnl_success);
        let n = walk(
            &format!("dnnl_memory_create(DNNL_MEMORY_ALLOCATE) on GPU engine {i}"),
            || {
                let mut m = null_mut();
                // SAFETY: live handles, a valid out-pointer.
                let s = unsafe { dnnl_memory_create(&mut m, f32_md, gpu, ALLOCATE) };
                if s == dnnl_success {
                    // SAFETY: a live memory, destroyed once.
                    unsafe { dnnl_memory_destroy(m) };
                }
                s
            },
        );
        assert_eq!(n, 1);
        // SAFETY: a live engine, destroyed once.
        unsafe { dnnl_engine_destroy(gpu) };
    }
    if gpus == 0 {
        skip::skip("no OpenCL device: the OpenCL allocation path is not walked");
    }

    // A graph tensor the library allocates.
    // SAFETY: a plain C struct, all zeros is a valid value to initialise.
    let mut lt: dnnl_graph_logical_tensor_t = unsafe { std::mem::zeroed() };
    // SAFETY: a valid logical tensor and dims.
    unsafe {
        assert_eq!(
            dnnl_graph_logical_tensor_init_with_dims(
                &mut lt,
                1,
                dnnl_f32,
                2,
                [64i64, 64].as_ptr(),
                dnnl_graph_layout_type_strided,
                dnnl_graph_tensor_property_undef
            ),
            dnnl_success
        );
    }
    let n = walk("dnnl_graph_tensor_create(DNNL_MEMORY_ALLOCATE)", || {
        let mut t = null_mut();
        // SAFETY: a valid logical tensor, a live engine, a valid out-pointer.
        let s = unsafe { dnnl_graph_tensor_create(&mut t, &lt, engine, ALLOCATE) };
        if s == dnnl_success {
            // SAFETY: a live tensor, destroyed once.
            unsafe { dnnl_graph_tensor_destroy(t) };
        }
        s
    });
    assert_eq!(n, 1);

    // SAFETY: live handles, destroyed once.
    unsafe {
        for m in [a, b, c] {
            dnnl_memory_destroy(m);
        }
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_desc_destroy(f32_md);
        dnnl_memory_desc_destroy(f16_md);
        dnnl_stream_destroy(stream);
        dnnl_engine_destroy(engine);
    }
}
