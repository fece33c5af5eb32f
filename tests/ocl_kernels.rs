//! The OpenCL runtime layer (`dnnl::runtime::ocl`): programs, kernels, the
//! program cache, USM and cache blob ids, on every OpenCL device installed
//! (see `ocl_runtime.rs` for how to choose the runtime). Every test passes,
//! after reporting the skip (`skip.rs`), when no OpenCL device is present.

mod ocl_common;

use std::ffi::c_void;

use dnnl::core::Error;
use dnnl::runtime::ocl::*;
use ocl_common::*;

#[test]
fn kernels_build_run_and_rebuild_from_binaries() {
    let Some(devices) = test_devices("kernels") else {
        return;
    };
    for device in &devices {
        let name = device.name().unwrap();
        let (context, queue) = setup(device, QueueProperties::default());
        let n = 1000usize;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
        let (ma, mb, mc) = (
            Mem::create(&context, 4 * n).unwrap(),
            Mem::create(&context, 4 * n).unwrap(),
            Mem::create(&context, 4 * n).unwrap(),
        );
        queue.write_buffer(&ma, 0, &bytes(&a), &[]).unwrap();
        queue.write_buffer(&mb, 0, &bytes(&b), &[]).unwrap();

        let run = |kernel: &Kernel, bias: f32| {
            let args = [
                KernelArg::Mem(&ma),
                KernelArg::Mem(&mb),
                KernelArg::Mem(&mc),
                KernelArg::I32(n as i32),
            ];
            let done = queue
                .enqueue_kernel(kernel, &args, &[1024], None, &[])
                .unwrap();
            let mut out = vec![0u8; 4 * n];
            queue.read_buffer(&mc, 0, &mut out, &[done]).unwrap();
            let out = floats(&out);
            for i in 0..n {
                assert_eq!(out[i], a[i] + b[i] + bias, "{name}: c[{i}]");
            }
        };

        let cache = ProgramCache::new();
        let kernel = cache
            .kernel(&context, device, ADD_SOURCE, "-DBIAS=1.0f", "add")
            .unwrap();
        assert_eq!(kernel.name().unwrap(), "add");
        assert_eq!(kernel.num_args().unwrap(), 4);
        assert!(kernel.work_group_size(device).unwrap() > 0);
        run(&kernel, 1.0);
        run(&kernel.duplicate().unwrap(), 1.0);
        // The same source and options come from the cache.
        let again = cache
            .get_or_build(&context, device, ADD_SOURCE, "-DBIAS=1.0f")
            .unwrap();
        assert_eq!(again, kernel.program().unwrap());
        assert_eq!(again.kernel_names().unwrap(), vec!["add".to_string()]);
        cache
            .kernel(&context, device, ADD_SOURCE, "-DBIAS=3.0f", "add")
            .unwrap();
        assert_eq!(cache.len(), 2);

        // Saved as binaries, restored into a new cache, run without the source.
        let entries = cache.entries().unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(
            entries,
            cache.entries().unwrap(),
            "entries are deterministic"
        );
        println!(
            "{name}: binaries of {} and {} bytes",
            entries[0].1.len(),
            entries[1].1.len()
        );
        let restored = ProgramCache::new();
        for (key, binary) in entries.clone() {
            restored.insert_binary(key, binary).unwrap();
        }
        let from_binary =
            Program::build_binary(&context, device, &entries[0].1, &entries[0].0.options).unwrap();
        assert_eq!(from_binary.kernel_names().unwrap(), vec!["add".to_string()]);
        run(
            &restored
                .kernel(&context, device, ADD_SOURCE, "-DBIAS=1.0f", "add")
                .unwrap(),
            1.0,
        );
        run(
            &restored
                .kernel(&context, device, ADD_SOURCE, "-DBIAS=3.0f", "add")
                .unwrap(),
            3.0,
        );
        assert_eq!(restored.entries().unwrap(), entries);

        // A garbage binary is refused and the cache builds the source instead.
        let garbage = ProgramCache::new();
        garbage
            .insert_binary(ProgramKey::new(ADD_SOURCE, "-DBIAS=2.0f"), vec![1, 2, 3, 4])
            .unwrap();
        run(
            &garbage
                .kernel(&context, device, ADD_SOURCE, "-DBIAS=2.0f", "add")
                .unwrap(),
            2.0,
        );

        // Zero work-items: nothing runs, the event still completes.
        let args = [
            KernelArg::Mem(&ma),
            KernelArg::Mem(&mb),
            KernelArg::Mem(&mc),
            KernelArg::I32(0),
        ];
        queue
            .enqueue_kernel(&kernel, &args, &[0], None, &[])
            .unwrap()
            .wait()
            .unwrap();
        assert!(
            queue
                .enqueue_kernel(&kernel, &args, &[], None, &[])
                .is_err()
        );

        // A build error carries the log.
        match Program::build_source(&context, device, "__kernel void broken( { }", "") {
            Err(Error::Runtime(message)) => {
                assert!(message.contains("CL_BUILD_PROGRAM_FAILURE"), "{message}");
                assert!(message.contains("build log"), "{message}");
            }
            other => panic!("{name}: a broken kernel built: {other:?}"),
        }
        match cache.kernel(
            &context,
            device,
            ADD_SOURCE,
            "-DBIAS=1.0f",
            "no_such_kernel",
        ) {
            Err(Error::Runtime(m)) => assert!(m.contains("CL_INVALID_KERNEL_NAME"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn one_kernel_launched_from_many_threads() {
    let Some(devices) = test_devices("threads") else {
        return;
    };
    let device = &devices[0];
    let (context, queue) = setup(device, QueueProperties::default());
    const SOURCE: &str = "__kernel void set(__global int *p, int v) { p[get_global_id(0)] = v; }";
    let program = Program::build_source(&context, device, SOURCE, "").unwrap();
    let kernel = program.kernel("set").unwrap();
    let buffers: Vec<Mem> = (0..8)
        .map(|_| Mem::create(&context, 4 * 64).unwrap())
        .collect();
    std::thread::scope(|s| {
        for (t, mem) in buffers.iter().enumerate() {
            let (kernel, queue) = (kernel.clone(), queue.clone());
            s.spawn(move || {
                for _ in 0..20 {
                    let args = [KernelArg::Mem(mem), KernelArg::I32(t as i32)];
                    queue
                        .enqueue_kernel(&kernel, &args, &[64], None, &[])
                        .unwrap();
                }
            });
        }
    });
    queue.finish().unwrap();
    for (t, mem) in buffers.iter().enumerate() {
        let mut out = vec![0u8; 4 * 64];
        queue.read_buffer(mem, 0, &mut out, &[]).unwrap();
        assert!(
            out.chunks_exact(4)
                .all(|c| i32::from_ne_bytes(c.try_into().unwrap()) == t as i32)
        );
    }
}

#[test]
fn usm_where_the_device_has_it() {
    let Some(devices) = test_devices("usm") else {
        return;
    };
    for device in &devices {
        let name = device.name().unwrap();
        let (context, queue) = setup(device, QueueProperties::default());
        if !supports_usm(device) {
            match usm_alloc(&context, device, UsmKind::Device, 64, 0) {
                Err(Error::Unimplemented(m)) => {
                    assert!(
                        m.contains("cl_intel_unified_shared_memory")
                            && m.contains("shared virtual memory")
                            && m.contains(&name),
                        "{m}"
                    );
                    skip(format_args!("usm on {name}: {m}"));
                }
                other => panic!("{name}: {other:?}"),
            }
            continue;
        }
        // Intel's extension first; SVM on devices without it (PoCL, NVIDIA).
        let svm = is_svm_context(&context);
        assert_eq!(svm, !device.info().unwrap().usm, "{name}");
        let n = 256usize;
        let host = usm_alloc(&context, device, UsmKind::Host, 4 * n, 64).unwrap();
        let dev = usm_alloc(&context, device, UsmKind::Device, 4 * n, 0).unwrap();
        let shared = usm_alloc(&context, device, UsmKind::Shared, 4 * n, 0).unwrap();
        assert_eq!(host.ptr() as usize % 64, 0);
        let kinds = [
            (&host, UsmKind::Host),
            (&dev, UsmKind::Device),
            (&shared, UsmKind::Shared),
        ];
        for (alloc, kind) in kinds {
            let want = if svm { UsmKind::Svm } else { kind };
            assert_eq!(alloc.kind(), want, "{name}");
            assert_eq!(usm_kind(&context, alloc.ptr()).unwrap(), want, "{name}");
            // Inside the allocation too.
            let inner = alloc.ptr().wrapping_byte_add(4 * n - 4);
            assert_eq!(usm_kind(&context, inner).unwrap(), want, "{name}");
        }
        let local = [0u8; 16];
        assert_eq!(
            usm_kind(&context, local.as_ptr().cast()).unwrap(),
            UsmKind::Unknown
        );
        // Through SVM a readable pointer of the user's counts as their SVM
        // (OpenCL cannot tell), an unreadable one as nothing.
        let user = user_usm_kind(&context, local.as_ptr().cast(), local.len()).unwrap();
        assert_eq!(user, if svm { UsmKind::Svm } else { UsmKind::Unknown });
        let wild = 0x0dea_dbee_f000_usize as *const c_void;
        assert_eq!(user_usm_kind(&context, wild, 16).unwrap(), UsmKind::Unknown);
        assert_eq!(
            usm_device(&context, dev.ptr()).unwrap().as_ref(),
            if svm { None } else { Some(device) }
        );
        assert!(usm_kind(&context, std::ptr::null()).is_ok());
        // An alignment the driver may refuse (PoCL takes at most 128 bytes
        // for SVM) is still honoured.
        let page = usm_alloc(&context, device, UsmKind::Device, 100, 4096).unwrap();
        assert_eq!(page.ptr() as usize % 4096, 0, "{name}");
        assert_eq!(usm_kind(&context, page.ptr()).unwrap(), page.kind());
        drop(page);

        // Fill device memory, double it with a kernel taking USM pointers,
        // copy into host USM and read it there.
        // SAFETY: `dev` is device USM of 4n bytes.
        let filled =
            unsafe { queue.usm_fill(dev.ptr(), &3.5f32.to_ne_bytes(), 4 * n, &[]) }.unwrap();
        const SOURCE: &str = "__kernel void twice(__global const float *x, __global float *y) { size_t i = get_global_id(0); y[i] = 2.0f * x[i]; }";
        let kernel = Program::build_source(&context, device, SOURCE, "")
            .unwrap()
            .kernel("twice")
            .unwrap();
        let args = [KernelArg::Usm(dev.ptr()), KernelArg::Usm(shared.ptr())];
        let ran = queue
            .enqueue_kernel(&kernel, &args, &[n], None, &[filled])
            .unwrap();
        // SAFETY: both are USM allocations of 4n bytes.
        unsafe {
            queue.usm_memcpy(
                true,
                host.ptr(),
                shared.ptr() as *const c_void,
                4 * n,
                &[ran],
            )
        }
        .unwrap();
        if svm {
            // SAFETY: SVM of the queue's context holding 4n bytes.
            unsafe { queue.svm_map(host.ptr(), 4 * n) }.unwrap();
        }
        // SAFETY: host USM (mapped SVM), written by the blocking copy above.
        let values = unsafe { std::slice::from_raw_parts(host.ptr().cast::<f32>(), n) };
        assert!(
            values.iter().all(|&v| v == 7.0),
            "{name}: {:?}",
            &values[..4]
        );
        if svm {
            // SAFETY: mapped above; `values` is not used after this.
            unsafe { queue.svm_unmap(host.ptr()) }.unwrap();
        }
        // Zero bytes: a marker.
        // SAFETY: nothing is copied.
        unsafe { queue.usm_memcpy(false, host.ptr(), dev.ptr(), 0, &[]) }
            .unwrap()
            .wait()
            .unwrap();
        drop(host);
        // A pointer freed without `UsmAlloc`.
        let raw = usm_alloc(&context, device, UsmKind::Shared, 16, 0).unwrap();
        let ptr = raw.ptr();
        std::mem::forget(raw);
        // SAFETY: allocated above and freed once (its owner was forgotten).
        unsafe { usm_free(&context, ptr) }.unwrap();
        println!(
            "{name}: USM ({}) host/device/shared allocations, fill, memcpy and kernel \
             arguments work",
            if svm { "SVM" } else { "Intel's" }
        );
    }
}

#[test]
fn cache_blob_ids_identify_the_device() {
    let Some(devices) = test_devices("cache blob id") else {
        return;
    };
    for device in &devices {
        let id = cache_blob_id(device).unwrap();
        assert_eq!(id, cache_blob_id(device).unwrap());
        let info = device.info().unwrap();
        let text = String::from_utf8_lossy(&id);
        assert!(text.contains(&info.name) && text.contains(&info.platform_name));
        assert!(text.contains(&info.driver_version) && text.contains(env!("CARGO_PKG_VERSION")));
    }
    let ids: std::collections::HashSet<Vec<u8>> =
        devices.iter().map(|d| cache_blob_id(d).unwrap()).collect();
    println!("{} devices, {} distinct blob ids", devices.len(), ids.len());
}
