//! Cache blobs through the C API, on every OpenCL device present: an engine
//! made from an engine cache blob, and a primitive made from a primitive
//! cache blob, compile no program (counted on this thread); foreign and
//! corrupted blobs, and blobs of an older format, are refused; a CPU
//! primitive has no blob.

#![allow(non_upper_case_globals)]

use std::ptr::{null, null_mut};

mod skip;

use dnnl::abi::*;
use dnnl::capi::common::*;
use dnnl::capi::dnnl::*;
use dnnl::capi::ocl::*;
use dnnl::runtime::ocl::cache::stable_hash;
use dnnl::runtime::ocl::program::source_builds_on_this_thread;

const N: i64 = 1000;

/// An eltwise forward (`alg`, with a tanh post-op) primitive descriptor on `engine`.
fn eltwise_pd(engine: dnnl_engine_t, alg: dnnl_alg_kind_t) -> dnnl_primitive_desc_t {
    let mut md: dnnl_memory_desc_t = null_mut();
    let mut attr: dnnl_primitive_attr_t = null_mut();
    let mut ops: dnnl_post_ops_t = null_mut();
    let mut pd: dnnl_primitive_desc_t = null_mut();
    // SAFETY: valid out-pointers and handles throughout.
    unsafe {
        assert_eq!(
            dnnl_memory_desc_create_with_tag(&mut md, 1, [N].as_ptr(), dnnl_f32, dnnl_a),
            dnnl_success
        );
        assert_eq!(dnnl_primitive_attr_create(&mut attr), dnnl_success);
        assert_eq!(dnnl_post_ops_create(&mut ops), dnnl_success);
        assert_eq!(
            dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_tanh, 0.0, 0.0),
            dnnl_success
        );
        assert_eq!(dnnl_primitive_attr_set_post_ops(attr, ops), dnnl_success);
        assert_eq!(
            dnnl_eltwise_forward_primitive_desc_create(
                &mut pd,
                engine,
                dnnl_forward_inference,
                alg,
                md,
                md,
                0.5,
                0.0,
                attr
            ),
            dnnl_success
        );
        dnnl_post_ops_destroy(ops);
        dnnl_primitive_attr_destroy(attr);
        dnnl_memory_desc_destroy(md);
    }
    pd
}

/// Runs `primitive` on `engine` and checks tanh(relu(x, 0.5)).
fn check_runs(engine: dnnl_engine_t, primitive: dnnl_primitive_t) {
    let mut md: dnnl_memory_desc_t = null_mut();
    let (mut src, mut dst, mut stream) = (null_mut(), null_mut(), null_mut());
    // SAFETY: valid handles and buffers of N floats.
    unsafe {
        dnnl_memory_desc_create_with_tag(&mut md, 1, [N].as_ptr(), dnnl_f32, dnnl_a);
        assert_eq!(
            dnnl_memory_create(&mut src, md, engine, usize::MAX as *mut std::ffi::c_void),
            dnnl_success
        );
        assert_eq!(
            dnnl_memory_create(&mut dst, md, engine, usize::MAX as *mut std::ffi::c_void),
            dnnl_success
        );
        let mut p: *mut std::ffi::c_void = null_mut();
        dnnl_memory_map_data(src, &mut p);
        let x = std::slice::from_raw_parts_mut(p.cast::<f32>(), N as usize);
        for (i, v) in x.iter_mut().enumerate() {
            *v = i as f32 / 100.0 - 5.0;
        }
        dnnl_memory_unmap_data(src, p);
        assert_eq!(
            dnnl_stream_create(&mut stream, engine, dnnl_stream_default_flags.0),
            dnnl_success
        );
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC,
                memory: src,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_DST,
                memory: dst,
            },
        ];
        assert_eq!(
            dnnl_primitive_execute(primitive, stream, 2, args.as_ptr()),
            dnnl_success
        );
        assert_eq!(dnnl_stream_wait(stream), dnnl_success);
        dnnl_memory_map_data(dst, &mut p);
        let y = std::slice::from_raw_parts(p.cast::<f32>(), N as usize);
        for (i, got) in y.iter().enumerate() {
            let x = i as f64 / 100.0 - 5.0;
            let want = (if x > 0.0 { x } else { 0.5 * x }).tanh();
            assert!(
                (f64::from(*got) - want).abs() < 1e-5,
                "y[{i}] = {got}, want {want}"
            );
        }
        dnnl_memory_unmap_data(dst, p);
        dnnl_stream_destroy(stream);
        dnnl_memory_destroy(src);
        dnnl_memory_destroy(dst);
        dnnl_memory_desc_destroy(md);
    }
}

fn primitive_blob(primitive: dnnl_primitive_t) -> Vec<u8> {
    let mut size = 0usize;
    // SAFETY: valid handle and size pointer; then a buffer of `size` bytes.
    unsafe {
        assert_eq!(
            dnnl_primitive_get_cache_blob(primitive, &mut size, null_mut()),
            dnnl_success
        );
        let mut blob = vec![0u8; size];
        assert_eq!(
            dnnl_primitive_get_cache_blob(primitive, &mut size, blob.as_mut_ptr()),
            dnnl_success
        );
        blob
    }
}

fn engine_blob(engine: dnnl_engine_t) -> Vec<u8> {
    let mut size = 0usize;
    // SAFETY: as in `primitive_blob`.
    unsafe {
        assert_eq!(
            dnnl_ocl_interop_engine_get_cache_blob(engine, &mut size, null_mut()),
            dnnl_success
        );
        let mut blob = vec![0u8; size];
        assert_eq!(
            dnnl_ocl_interop_engine_get_cache_blob(engine, &mut size, blob.as_mut_ptr()),
            dnnl_success
        );
        blob
    }
}

/// `blob` relabelled as format `version`, its checksum made valid again: a
/// blob as an older (or newer) library would have written it.
fn with_format_version(blob: &[u8], version: u32) -> Vec<u8> {
    let mut out = blob.to_vec();
    // Magic (8 bytes), then the version; an FNV-1a 128 checksum at the end.
    out[8..12].copy_from_slice(&version.to_le_bytes());
    let body = out.len() - 16;
    let checksum = stable_hash(&out[..body]);
    out[body..].copy_from_slice(&checksum.to_le_bytes());
    out
}

#[test]
fn blobs_spare_every_compilation_and_foreign_ones_are_refused() {
    // SAFETY: plain query.
    let count = unsafe { dnnl_engine_get_count(dnnl_gpu) };
    if count == 0 {
        skip::skip("no OpenCL device");
        return;
    }
    for index in 0..count {
        // SAFETY: valid out-pointers and live handles throughout.
        unsafe {
            let mut first: dnnl_engine_t = null_mut();
            assert_eq!(
                dnnl_engine_create(&mut first, dnnl_gpu, index),
                dnnl_success
            );
            let (mut device, mut context) = (null_mut(), null_mut());
            dnnl_ocl_interop_get_device(first, &mut device);
            dnnl_ocl_interop_engine_get_context(first, &mut context);
            let pd = eltwise_pd(first, dnnl_eltwise_relu);
            let mut primitive: dnnl_primitive_t = null_mut();
            let before = source_builds_on_this_thread();
            assert_eq!(dnnl_primitive_create(&mut primitive, pd), dnnl_success);
            // The counter counts: the first engine compiled its program.
            assert!(source_builds_on_this_thread() > before);
            check_runs(first, primitive);
            let blob = primitive_blob(primitive);
            let engine_blob = engine_blob(first);
            assert!(!blob.is_empty());

            // An engine from the engine blob builds the same primitive from binaries.
            let mut warm: dnnl_engine_t = null_mut();
            assert_eq!(
                dnnl_ocl_interop_engine_create_from_cache_blob(
                    &mut warm,
                    device,
                    context,
                    engine_blob.len(),
                    engine_blob.as_ptr()
                ),
                dnnl_success
            );
            let before = source_builds_on_this_thread();
            let warm_pd = eltwise_pd(warm, dnnl_eltwise_relu);
            let mut warm_primitive: dnnl_primitive_t = null_mut();
            assert_eq!(
                dnnl_primitive_create(&mut warm_primitive, warm_pd),
                dnnl_success
            );
            assert_eq!(
                source_builds_on_this_thread(),
                before,
                "engine blob: compiled"
            );
            check_runs(warm, warm_primitive);

            // A fresh engine: the primitive blob spares the compilation.
            let mut fresh: dnnl_engine_t = null_mut();
            assert_eq!(
                dnnl_ocl_interop_engine_create(&mut fresh, device, context),
                dnnl_success
            );
            let fresh_pd = eltwise_pd(fresh, dnnl_eltwise_relu);
            let before = source_builds_on_this_thread();
            let mut from_blob: dnnl_primitive_t = null_mut();
            assert_eq!(
                dnnl_primitive_create_from_cache_blob(
                    &mut from_blob,
                    fresh_pd,
                    blob.len(),
                    blob.as_ptr()
                ),
                dnnl_success
            );
            assert_eq!(
                source_builds_on_this_thread(),
                before,
                "primitive blob: compiled"
            );
            check_runs(fresh, from_blob);

            // Refused: another primitive's blob, a corrupted one, none at all.
            let other_pd = eltwise_pd(fresh, dnnl_eltwise_elu);
            let mut refused: dnnl_primitive_t = null_mut();
            assert_eq!(
                dnnl_primitive_create_from_cache_blob(
                    &mut refused,
                    other_pd,
                    blob.len(),
                    blob.as_ptr()
                ),
                dnnl_invalid_arguments
            );
            let mut corrupt = blob.clone();
            let middle = corrupt.len() / 2;
            corrupt[middle] ^= 0x5a;
            assert_eq!(
                dnnl_primitive_create_from_cache_blob(
                    &mut refused,
                    fresh_pd,
                    corrupt.len(),
                    corrupt.as_ptr()
                ),
                dnnl_invalid_arguments
            );
            assert_eq!(
                dnnl_primitive_create_from_cache_blob(&mut refused, fresh_pd, 0, null()),
                dnnl_invalid_arguments
            );
            let old = with_format_version(&blob, 1);
            assert_eq!(
                dnnl_primitive_create_from_cache_blob(
                    &mut refused,
                    fresh_pd,
                    old.len(),
                    old.as_ptr()
                ),
                dnnl_invalid_arguments,
                "a blob of format version 1 (keys from Debug text)"
            );
            assert!(refused.is_null());
            // A wrong size for the copy.
            let mut size = blob.len() - 1;
            let mut buf = vec![0u8; blob.len()];
            assert_eq!(
                dnnl_primitive_get_cache_blob(primitive, &mut size, buf.as_mut_ptr()),
                dnnl_invalid_arguments
            );

            for p in [primitive, warm_primitive, from_blob] {
                dnnl_primitive_destroy(p);
            }
            for pd in [pd, warm_pd, fresh_pd, other_pd] {
                dnnl_primitive_desc_destroy(pd);
            }
            for e in [first, warm, fresh] {
                dnnl_engine_destroy(e);
            }
        }
    }
}

#[test]
fn cpu_primitives_have_no_cache_blob() {
    // SAFETY: valid out-pointers and live handles.
    unsafe {
        let mut engine: dnnl_engine_t = null_mut();
        assert_eq!(dnnl_engine_create(&mut engine, dnnl_cpu, 0), dnnl_success);
        let pd = eltwise_pd(engine, dnnl_eltwise_relu);
        let mut primitive: dnnl_primitive_t = null_mut();
        assert_eq!(dnnl_primitive_create(&mut primitive, pd), dnnl_success);
        let mut size = 0usize;
        assert_eq!(
            dnnl_primitive_get_cache_blob(primitive, &mut size, null_mut()),
            dnnl_unimplemented
        );
        dnnl_primitive_destroy(primitive);
        dnnl_primitive_desc_destroy(pd);
        dnnl_engine_destroy(engine);
    }
}
