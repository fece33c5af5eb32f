//! The C boundary, called as C calls it: bad handles, bad values, NULL outputs
//! and unimplemented entry points get a status, never undefined behaviour.
//! These behaviours are ours alone (upstream would crash on most of them).

use std::ptr;

use dnnl::abi::*;
use dnnl::capi::{common::*, dnnl::*, graph::*};

fn garbage<T>() -> *mut T {
    ptr::without_provenance_mut(0xdead_bee0)
}

#[test]
fn destroy_accepts_null_as_upstream_and_rejects_garbage() {
    // SAFETY: the functions only look the token up; they never dereference it.
    unsafe {
        for status in [
            dnnl_engine_destroy(ptr::null_mut()),
            dnnl_stream_destroy(ptr::null_mut()),
            dnnl_memory_desc_destroy(ptr::null_mut()),
            dnnl_memory_destroy(ptr::null_mut()),
            dnnl_primitive_desc_destroy(ptr::null_mut()),
            dnnl_primitive_attr_destroy(ptr::null_mut()),
            dnnl_post_ops_destroy(ptr::null_mut()),
            dnnl_primitive_destroy(ptr::null_mut()),
            dnnl_graph_op_destroy(ptr::null_mut()),
            dnnl_graph_graph_destroy(ptr::null_mut()),
            dnnl_graph_partition_destroy(ptr::null_mut()),
            dnnl_graph_compiled_partition_destroy(ptr::null_mut()),
            dnnl_graph_tensor_destroy(ptr::null_mut()),
        ] {
            assert_eq!(status, dnnl_success);
        }
        // Upstream refuses a NULL allocator.
        assert_eq!(
            dnnl_graph_allocator_destroy(ptr::null_mut()),
            dnnl_invalid_arguments
        );
        for status in [
            dnnl_engine_destroy(garbage()),
            dnnl_stream_destroy(garbage()),
            dnnl_memory_desc_destroy(garbage()),
            dnnl_memory_destroy(garbage()),
            dnnl_primitive_desc_destroy(garbage()),
            dnnl_primitive_attr_destroy(garbage()),
            dnnl_post_ops_destroy(garbage()),
            dnnl_primitive_destroy(garbage()),
            dnnl_graph_op_destroy(garbage()),
            dnnl_graph_graph_destroy(garbage()),
            dnnl_graph_partition_destroy(garbage()),
            dnnl_graph_compiled_partition_destroy(garbage()),
            dnnl_graph_tensor_destroy(garbage()),
            dnnl_graph_allocator_destroy(garbage()),
        ] {
            assert_eq!(status, dnnl_invalid_arguments);
        }
    }
}

#[test]
fn a_destroyed_engine_handle_dies_while_a_stream_keeps_the_engine() {
    // SAFETY: every output points to a local; handles are tokens.
    unsafe {
        let mut engine: dnnl_engine_t = ptr::null_mut();
        assert_eq!(dnnl_engine_create(&mut engine, dnnl_cpu, 0), dnnl_success);
        let mut stream: dnnl_stream_t = ptr::null_mut();
        assert_eq!(
            dnnl_stream_create(&mut stream, engine, dnnl_stream_default_flags.0),
            dnnl_success
        );
        let mut before: dnnl_engine_t = ptr::null_mut();
        assert_eq!(dnnl_stream_get_engine(stream, &mut before), dnnl_success);
        assert_eq!(dnnl_engine_destroy(engine), dnnl_success);

        let mut kind = dnnl_any_engine;
        assert_eq!(
            dnnl_engine_get_kind(engine, &mut kind),
            dnnl_invalid_arguments
        );
        let mut other: dnnl_stream_t = ptr::null_mut();
        assert_eq!(
            dnnl_stream_create(&mut other, engine, dnnl_stream_default_flags.0),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_engine_destroy(engine), dnnl_invalid_arguments);

        // Before the destroy the query returned the caller's own handle (the
        // same pointer, as upstream), which died with it; after it, a handle
        // of the query's own, usable while the stream lives.
        assert_eq!(before, engine);
        assert_eq!(
            dnnl_engine_get_kind(before, &mut kind),
            dnnl_invalid_arguments
        );
        let mut after: dnnl_engine_t = ptr::null_mut();
        assert_eq!(dnnl_stream_get_engine(stream, &mut after), dnnl_success);
        assert_ne!(after, engine);
        assert_eq!(dnnl_engine_get_kind(after, &mut kind), dnnl_success);
        assert_eq!(kind, dnnl_cpu);
        assert_eq!(dnnl_engine_destroy(after), dnnl_invalid_arguments);
        assert_eq!(dnnl_stream_destroy(stream), dnnl_success);
        assert_eq!(
            dnnl_engine_get_kind(after, &mut kind),
            dnnl_invalid_arguments
        );
    }
}

/// A creation call that fails (here: no engine) leaves its output as it was.
#[test]
fn failed_creation_writes_nothing() {
    let mut pd: dnnl_primitive_desc_t = garbage();
    // SAFETY: `pd` is a valid output location; nothing else is read.
    let status = unsafe {
        dnnl_gru_forward_primitive_desc_create(
            &mut pd,
            ptr::null_mut(),
            dnnl_forward_inference,
            dnnl_unidirectional_left2right,
            ptr::null(),
            ptr::null(),
            ptr::null(),
            ptr::null(),
            ptr::null(),
            ptr::null(),
            ptr::null(),
            0,
            ptr::null(),
        )
    };
    assert_eq!(status, dnnl_invalid_arguments);
    assert_eq!(pd, garbage());
}

#[test]
fn verbose_levels() {
    // SAFETY: plain values and a valid output location.
    unsafe {
        assert_eq!(dnnl_set_verbose(3), dnnl_invalid_arguments);
        assert_eq!(dnnl_set_verbose(-1), dnnl_invalid_arguments);
        let mut enabled = -1;
        assert_eq!(dnnl_set_verbose(1), dnnl_success);
        assert_eq!(dnnl_verbose_profiling_enabled(&mut enabled), dnnl_success);
        assert_eq!(enabled, 1);
        assert_eq!(dnnl_set_verbose(0), dnnl_success);
        assert_eq!(dnnl_verbose_profiling_enabled(&mut enabled), dnnl_success);
        assert_eq!(enabled, 0);
        assert_eq!(
            dnnl_verbose_profiling_enabled(ptr::null_mut()),
            dnnl_invalid_arguments
        );
    }
}

#[test]
fn default_fpmath_mode() {
    // SAFETY: plain values and valid output locations.
    unsafe {
        let mut mode = dnnl_fpmath_mode_t(99);
        assert_eq!(dnnl_get_default_fpmath_mode(&mut mode), dnnl_success);
        assert_eq!(mode, dnnl_fpmath_mode_strict);
        assert_eq!(
            dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_bf16),
            dnnl_success
        );
        assert_eq!(dnnl_get_default_fpmath_mode(&mut mode), dnnl_success);
        assert_eq!(mode, dnnl_fpmath_mode_bf16);
        assert_eq!(
            dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_t(77)),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_get_default_fpmath_mode(&mut mode), dnnl_success);
        assert_eq!(
            mode, dnnl_fpmath_mode_bf16,
            "a rejected value changes nothing"
        );
        assert_eq!(
            dnnl_get_default_fpmath_mode(ptr::null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_strict),
            dnnl_success
        );
    }
}

#[test]
fn data_type_sizes() {
    // SAFETY: plain values.
    unsafe {
        assert_eq!(dnnl_data_type_size(dnnl_f32), 4);
        assert_eq!(dnnl_data_type_size(dnnl_bf16), 2);
        assert_eq!(dnnl_data_type_size(dnnl_s64), 8);
        assert_eq!(dnnl_data_type_size(dnnl_u4), 1);
        assert_eq!(dnnl_data_type_size(dnnl_data_type_undef), usize::MAX);
        assert_eq!(dnnl_data_type_size(dnnl_data_type_t(999)), usize::MAX);
    }
}
