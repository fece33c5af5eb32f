//! The `dnnl_ze.h` entry points through the C API, on the first Level Zero
//! device the loader reports (the tests run with the in-repository driver:
//! `ZE_ENABLE_ALT_DRIVERS=target/release/libze_ocl_driver.so`): engine
//! creation and its argument checks, getters, ownership of the user's
//! objects, a stream on the user's immediate list, USM memory, execution
//! gated on a user event with the returned event, and cache blobs (a warm
//! engine and a primitive from a blob compile nothing; foreign or corrupted
//! blobs are refused). Each test reports why it skips (`skip.rs`) when there
//! is no Level Zero device.

#![allow(non_upper_case_globals)]

use std::ffi::c_void;
use std::ptr::{null, null_mut};

mod skip;

use dnnl::abi::*;
use dnnl::capi::common::*;
use dnnl::capi::dnnl::*;
use dnnl::capi::ze::engine::*;
use dnnl::capi::ze::execute::*;
use dnnl::capi::ze::memory::*;
use dnnl::capi::ze::stream::*;
use dnnl::runtime::ze::cache::compiles_on_this_thread;
use level_zero_sys as sys;

const N: i64 = 1000;

/// The user's objects: a driver, its first device, and a context of ours.
struct User {
    api: &'static sys::Api,
    driver: sys::ze_driver_handle_t,
    device: sys::ze_device_handle_t,
    context: sys::ze_context_handle_t,
}

impl Drop for User {
    fn drop(&mut self) {
        // SAFETY: the context made in `user`, nothing left in it.
        unsafe { self.api.zeContextDestroy(self.context) };
    }
}

fn user() -> Option<User> {
    let api = match dnnl::runtime::ze::api() {
        Ok(api) => api,
        Err(e) => {
            skip::skip(format_args!("no Level Zero loader: {e}"));
            return None;
        }
    };
    let drivers = dnnl::runtime::ze::drivers().unwrap_or_default();
    let Some(&driver) = drivers.first() else {
        skip::skip("no Level Zero driver");
        return None;
    };
    let Some(&device) = dnnl::runtime::ze::devices_of(driver).unwrap().first() else {
        skip::skip("the Level Zero driver has no device");
        return None;
    };
    let mut context = null_mut();
    let desc = sys::ze_context_desc_t::default();
    // SAFETY: a driver of the loader, a valid descriptor and output.
    let r = unsafe { api.zeContextCreate(driver, &desc, &mut context) };
    assert!(r.is_success(), "zeContextCreate: {r}");
    Some(User {
        api,
        driver,
        device,
        context,
    })
}

fn engine_of(u: &User) -> dnnl_engine_t {
    let mut engine = null_mut();
    // SAFETY: live handles and a valid out-pointer.
    let s = unsafe {
        dnnl_ze_interop_engine_create(
            &mut engine,
            u.driver.cast(),
            u.device.cast(),
            u.context.cast(),
        )
    };
    assert_eq!(s, dnnl_success);
    engine
}

fn md() -> dnnl_memory_desc_t {
    let mut md = null_mut();
    // SAFETY: a valid out-pointer and dims.
    let s = unsafe { dnnl_memory_desc_create_with_tag(&mut md, 1, [N].as_ptr(), dnnl_f32, dnnl_a) };
    assert_eq!(s, dnnl_success);
    md
}

/// A ReLU (negative slope `alpha`) primitive descriptor on `engine`.
fn relu_pd(engine: dnnl_engine_t, alpha: f32) -> dnnl_primitive_desc_t {
    let md = md();
    let mut pd = null_mut();
    // SAFETY: live handles and a valid out-pointer.
    let s = unsafe {
        dnnl_eltwise_forward_primitive_desc_create(
            &mut pd,
            engine,
            dnnl_forward_inference,
            dnnl_eltwise_relu,
            md,
            md,
            alpha,
            0.0,
            null(),
        )
    };
    assert_eq!(s, dnnl_success);
    // SAFETY: ours.
    unsafe { dnnl_memory_desc_destroy(md) };
    pd
}

fn input(i: i64) -> f32 {
    (i % 7) as f32 - 3.0
}

#[test]
fn engine_arguments_getters_and_ownership() {
    let Some(u) = user() else { return };
    let mut engine = null_mut();
    let (dr, de, cx) = (u.driver.cast(), u.device.cast(), u.context.cast());
    // SAFETY: the calls check their arguments; out-pointers are valid.
    unsafe {
        for (a, b, c) in [
            (null_mut(), de, cx),
            (dr, null_mut(), cx),
            (dr, de, null_mut()),
            // A handle that is not one of the driver's devices.
            (dr, cx, cx),
        ] {
            assert_eq!(
                dnnl_ze_interop_engine_create(&mut engine, a, b, c),
                dnnl_invalid_arguments
            );
        }
        assert_eq!(
            dnnl_ze_interop_engine_create(null_mut(), dr, de, cx),
            dnnl_invalid_arguments
        );
    }
    let engine = engine_of(&u);
    let (mut d, mut v, mut c) = (null_mut(), null_mut(), null_mut());
    // SAFETY: a live engine and valid out-pointers.
    unsafe {
        assert_eq!(
            dnnl_ze_interop_engine_get_driver(engine, &mut d),
            dnnl_success
        );
        assert_eq!(
            dnnl_ze_interop_engine_get_device(engine, &mut v),
            dnnl_success
        );
        assert_eq!(
            dnnl_ze_interop_engine_get_context(engine, &mut c),
            dnnl_success
        );
    }
    assert_eq!(
        (d.cast(), v.cast(), c.cast()),
        (u.driver, u.device, u.context)
    );
    let mut kind = dnnl_any_engine;
    // SAFETY: as above.
    unsafe {
        assert_eq!(dnnl_engine_get_kind(engine, &mut kind), dnnl_success);
        assert_eq!(dnnl_engine_destroy(engine), dnnl_success);
    }
    assert_eq!(kind, dnnl_gpu);
    // The user's context survives the engine.
    // SAFETY: the user's live context.
    assert!(unsafe { u.api.zeContextGetStatus(u.context) }.is_success());
}

#[test]
fn execute_on_a_user_list_after_a_user_event() {
    let Some(u) = user() else { return };
    let api = u.api;
    let engine = engine_of(&u);
    // The user's immediate list, event pool and gate event.
    let mut list = null_mut();
    let qdesc = sys::ze_command_queue_desc_t::default();
    let mut pool = null_mut();
    let pdesc = sys::ze_event_pool_desc_t {
        flags: sys::ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
        count: 1,
        ..Default::default()
    };
    let mut gate = null_mut();
    let edesc = sys::ze_event_desc_t {
        signal: sys::ZE_EVENT_SCOPE_FLAG_HOST,
        wait: sys::ZE_EVENT_SCOPE_FLAG_HOST,
        ..Default::default()
    };
    // Shared USM for the source, written by the host.
    let mut src: *mut c_void = null_mut();
    let bytes = N as usize * 4;
    // SAFETY: live handles, valid descriptors and outputs.
    unsafe {
        let r = api.zeCommandListCreateImmediate(u.context, u.device, &qdesc, &mut list);
        assert!(r.is_success(), "{r}");
        assert!(
            api.zeEventPoolCreate(u.context, &pdesc, 0, null_mut(), &mut pool)
                .is_success()
        );
        assert!(api.zeEventCreate(pool, &edesc, &mut gate).is_success());
        let d = sys::ze_device_mem_alloc_desc_t::default();
        let h = sys::ze_host_mem_alloc_desc_t::default();
        let r = api.zeMemAllocShared(u.context, &d, &h, bytes, 64, u.device, &mut src);
        assert!(r.is_success(), "{r}");
        let s = std::slice::from_raw_parts_mut(src.cast::<f32>(), N as usize);
        for (i, x) in s.iter_mut().enumerate() {
            *x = input(i as i64);
        }
    }
    let mut stream = null_mut();
    let mut got_list = null_mut();
    let md = md();
    let (mut src_mem, mut dst_mem) = (null_mut(), null_mut());
    let pd = relu_pd(engine, 0.5);
    let mut prim = null_mut();
    let mut done: sys::ze_event_handle_t = null_mut();
    // SAFETY: live handles; valid out-pointers and argument arrays.
    unsafe {
        assert_eq!(
            dnnl_ze_interop_stream_create(&mut stream, engine, null_mut(), 0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_ze_interop_stream_create(&mut stream, engine, list.cast(), 1),
            dnnl_success
        );
        assert_eq!(
            dnnl_ze_interop_stream_get_list(stream, &mut got_list),
            dnnl_success
        );
        assert_eq!(got_list.cast(), list);
        let mut h = [src];
        assert_eq!(
            dnnl_ze_interop_memory_create(&mut src_mem, md, engine, 1, h.as_mut_ptr()),
            dnnl_success
        );
        // A host pointer that is not USM of the context is refused.
        let mut plain = vec![0f32; N as usize];
        let mut bad = null_mut();
        let mut hp = [plain.as_mut_ptr().cast::<c_void>()];
        assert_eq!(
            dnnl_ze_interop_memory_create(&mut bad, md, engine, 1, hp.as_mut_ptr()),
            dnnl_invalid_arguments
        );
        let mut alloc = [usize::MAX as *mut c_void];
        assert_eq!(
            dnnl_ze_interop_memory_create(&mut dst_mem, md, engine, 1, alloc.as_mut_ptr()),
            dnnl_success
        );
        assert_eq!(dnnl_primitive_create(&mut prim, pd), dnnl_success);
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC,
                memory: src_mem,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_DST,
                memory: dst_mem,
            },
        ];
        let deps = [gate.cast(), null_mut()];
        assert_eq!(
            dnnl_ze_interop_primitive_execute(
                prim,
                stream,
                2,
                args.as_ptr(),
                2,
                deps.as_ptr(),
                (&mut done as *mut sys::ze_event_handle_t).cast()
            ),
            dnnl_success
        );
        assert!(!done.is_null());
        // Gated: nothing runs before the user signals.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(api.zeEventQueryStatus(done), sys::ZE_RESULT_NOT_READY);
        assert!(api.zeEventHostSignal(gate).is_success());
        assert!(api.zeEventHostSynchronize(done, u64::MAX).is_success());
        let mut mapped = null_mut();
        assert_eq!(dnnl_memory_map_data(dst_mem, &mut mapped), dnnl_success);
        let out = std::slice::from_raw_parts(mapped.cast::<f32>(), N as usize);
        for (i, y) in out.iter().enumerate() {
            let x = input(i as i64);
            assert_eq!(*y, if x > 0.0 { x } else { 0.5 * x }, "at {i}");
        }
        assert_eq!(dnnl_memory_unmap_data(dst_mem, mapped), dnnl_success);
        assert_eq!(dnnl_stream_wait(stream), dnnl_success);
        assert_eq!(dnnl_stream_destroy(stream), dnnl_success);
        // The user's list, event and memory are still theirs and usable.
        assert!(
            api.zeCommandListAppendBarrier(list, null_mut(), 0, null_mut())
                .is_success()
        );
        assert!(api.zeEventHostReset(gate).is_success());
        for h in [src_mem, dst_mem] {
            dnnl_memory_destroy(h);
        }
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_desc_destroy(md);
        dnnl_engine_destroy(engine);
        assert!(api.zeMemFree(u.context, src).is_success());
        assert!(api.zeEventDestroy(gate).is_success());
        assert!(api.zeEventPoolDestroy(pool).is_success());
        assert!(api.zeCommandListDestroy(list).is_success());
    }
}

#[test]
fn cache_blobs_skip_compilation_and_refuse_foreign_ones() {
    let Some(u) = user() else { return };
    let engine = engine_of(&u);
    let pd = relu_pd(engine, 0.25);
    let mut prim = null_mut();
    let (mut size, mut psize) = (0usize, 0usize);
    // SAFETY: live handles and valid out-pointers throughout.
    unsafe {
        assert_eq!(dnnl_primitive_create(&mut prim, pd), dnnl_success);
        assert_eq!(
            dnnl_ze_interop_engine_get_cache_blob(engine, &mut size, null_mut()),
            dnnl_success
        );
        assert!(size > 0);
        let mut blob = vec![0u8; size];
        let mut wrong = size + 1;
        assert_eq!(
            dnnl_ze_interop_engine_get_cache_blob(engine, &mut wrong, blob.as_mut_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_ze_interop_engine_get_cache_blob(engine, &mut size, blob.as_mut_ptr()),
            dnnl_success
        );
        assert_eq!(
            dnnl_primitive_get_cache_blob(prim, &mut psize, null_mut()),
            dnnl_success
        );
        let mut pblob = vec![0u8; psize];
        assert_eq!(
            dnnl_primitive_get_cache_blob(prim, &mut psize, pblob.as_mut_ptr()),
            dnnl_success
        );
        let mut id_size = 0usize;
        assert_eq!(
            dnnl_ze_interop_engine_get_cache_blob_id(
                u.driver.cast(),
                u.device.cast(),
                &mut id_size,
                null_mut()
            ),
            dnnl_success
        );
        assert!(id_size > 0);

        // A warm engine builds the primitive without compiling.
        let mut warm = null_mut();
        let (dr, de, cx) = (u.driver.cast(), u.device.cast(), u.context.cast());
        assert_eq!(
            dnnl_ze_interop_engine_create_from_cache_blob(
                &mut warm,
                dr,
                de,
                cx,
                size,
                blob.as_ptr()
            ),
            dnnl_success
        );
        let before = compiles_on_this_thread();
        let wpd = relu_pd(warm, 0.25);
        let mut wprim = null_mut();
        assert_eq!(dnnl_primitive_create(&mut wprim, wpd), dnnl_success);
        assert_eq!(compiles_on_this_thread(), before, "a warm engine compiled");

        // A primitive from its blob on a fresh engine compiles nothing either.
        let fresh = engine_of(&u);
        let fpd = relu_pd(fresh, 0.25);
        let mut fprim = null_mut();
        assert_eq!(
            dnnl_primitive_create_from_cache_blob(&mut fprim, fpd, psize, pblob.as_ptr()),
            dnnl_success
        );
        assert_eq!(
            compiles_on_this_thread(),
            before,
            "a primitive blob compiled"
        );

        // Corrupted and foreign blobs are refused.
        let mut bad = blob.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x55;
        let mut refused = null_mut();
        assert_eq!(
            dnnl_ze_interop_engine_create_from_cache_blob(
                &mut refused,
                dr,
                de,
                cx,
                bad.len(),
                bad.as_ptr()
            ),
            dnnl_invalid_arguments
        );
        let other = relu_pd(fresh, 0.75);
        let mut oprim = null_mut();
        assert_eq!(
            dnnl_primitive_create_from_cache_blob(&mut oprim, other, psize, pblob.as_ptr()),
            dnnl_invalid_arguments
        );
        for p in [prim, wprim, fprim] {
            dnnl_primitive_destroy(p);
        }
        for p in [pd, wpd, fpd, other] {
            dnnl_primitive_desc_destroy(p);
        }
        for e in [engine, warm, fresh] {
            dnnl_engine_destroy(e);
        }
    }
}

#[test]
fn own_stream_and_memory_handles() {
    let Some(u) = user() else { return };
    let engine = engine_of(&u);
    let md = md();
    let (mut stream, mut mem, mut list) = (null_mut(), null_mut(), null_mut());
    let mut handle = null_mut();
    // SAFETY: live handles and valid out-pointers throughout.
    unsafe {
        assert_eq!(dnnl_stream_create(&mut stream, engine, 1), dnnl_success);
        assert_eq!(
            dnnl_ze_interop_stream_get_list(stream, &mut list),
            dnnl_success
        );
        assert!(!list.is_null());
        assert_eq!(
            dnnl_memory_create(&mut mem, md, engine, usize::MAX as *mut c_void),
            dnnl_success
        );
        assert_eq!(dnnl_memory_get_data_handle(mem, &mut handle), dnnl_success);
        // Our allocation is device USM of the user's context, zeroed.
        let mut props = sys::ze_memory_allocation_properties_t::default();
        let mut dev = null_mut();
        assert!(
            u.api
                .zeMemGetAllocProperties(u.context, handle, &mut props, &mut dev)
                .is_success()
        );
        assert_eq!(props.r#type, sys::ZE_MEMORY_TYPE_DEVICE);
        let mut mapped = null_mut();
        assert_eq!(dnnl_memory_map_data(mem, &mut mapped), dnnl_success);
        let out = std::slice::from_raw_parts_mut(mapped.cast::<f32>(), N as usize);
        assert!(out.iter().all(|x| *x == 0.0));
        out[7] = 42.0;
        assert_eq!(dnnl_memory_unmap_data(mem, mapped), dnnl_success);
        assert_eq!(dnnl_memory_map_data(mem, &mut mapped), dnnl_success);
        assert_eq!(*mapped.cast::<f32>().add(7), 42.0);
        assert_eq!(dnnl_memory_unmap_data(mem, mapped), dnnl_success);
        // DNNL_MEMORY_NONE, then a handle set later.
        assert_eq!(dnnl_memory_set_data_handle(mem, null_mut()), dnnl_success);
        assert_eq!(dnnl_memory_get_data_handle(mem, &mut handle), dnnl_success);
        assert!(handle.is_null());
        assert_eq!(dnnl_stream_wait(stream), dnnl_success);
        dnnl_memory_destroy(mem);
        dnnl_stream_destroy(stream);
        dnnl_memory_desc_destroy(md);
        dnnl_engine_destroy(engine);
    }
}
