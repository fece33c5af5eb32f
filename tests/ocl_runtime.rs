//! The OpenCL runtime layer (`dnnl::runtime::ocl`): devices, contexts,
//! queues, buffers and reference counts, against the OpenCL implementations
//! installed. Run it once per runtime, e.g.
//! `OCL_ICD_VENDORS=$PWD/.venv/icd/pocl cargo test --test ocl_runtime`
//! (also `.../intel`, `.../all`, or an empty directory: no device). Every test
//! passes, after reporting the skip (`skip.rs`), when no OpenCL device is present.

mod ocl_common;

use dnnl::core::Error;
use dnnl::runtime::ocl::*;
use ocl_common::*;

#[test]
fn devices_are_listed_gpu_first_with_their_info() {
    let Some(devices) = test_devices("devices") else {
        return;
    };
    println!("OpenCL library: {}", loader::api().unwrap().library);
    let mut last = DeviceType::Gpu;
    for (index, device) in devices.iter().enumerate() {
        let info = device.info().expect("device info");
        println!(
            "{index}: {} | {} | {} ({:#x}) | {} | driver {} | {} | CUs {} | global {} MiB | local {} KiB | wg {} | usm {} fp16 {} subgroups {} | IL '{}'",
            info.device_type.name(),
            info.platform_name,
            info.name,
            info.vendor_id,
            info.version,
            info.driver_version,
            info.opencl_c_version,
            info.max_compute_units,
            info.global_mem_size >> 20,
            info.local_mem_size >> 10,
            info.max_work_group_size,
            info.usm,
            info.fp16,
            info.subgroups,
            info.il_version
        );
        assert!(info.device_type >= last, "type order broken at {index}");
        last = info.device_type;
        assert!(!info.name.is_empty() && !info.platform_name.is_empty());
        assert!(info.max_compute_units > 0 && info.max_work_group_size > 0);
        assert!(!info.is_sub_device);
        assert_eq!(device.root().unwrap(), *device);
        assert!(device.parent().unwrap().is_none());
    }
}

#[test]
fn the_filter_narrows_the_list() {
    let Some(all) = test_devices("filter") else {
        return;
    };
    let infos: Vec<DeviceInfo> = all.iter().map(|d| d.info().unwrap()).collect();
    for (spec, keep) in [
        ("type:gpu", &|i: &DeviceInfo| {
            i.device_type == DeviceType::Gpu as _
        }),
        ("type:cpu", &|i: &DeviceInfo| {
            i.device_type == DeviceType::Cpu
        }),
        ("type:cpu,type:gpu", &|i: &DeviceInfo| {
            matches!(i.device_type, DeviceType::Cpu | DeviceType::Gpu)
        }),
        ("platform:PORTABLE", &|i: &DeviceInfo| {
            i.platform_name.contains("Portable")
        }),
        ("platform:intel(r) opencl,type:cpu", &|i: &DeviceInfo| {
            i.platform_name.to_lowercase().contains("intel(r) opencl")
                && i.device_type == DeviceType::Cpu
        }),
        ("name:xeon", &|i: &DeviceInfo| {
            i.name.to_lowercase().contains("xeon")
        }),
        ("strict", &|i: &DeviceInfo| {
            i.device_type == DeviceType::Gpu && i.vendor_id == 0x8086
        }),
        ("bogus", &|_: &DeviceInfo| true),
    ] as [(&str, &dyn Fn(&DeviceInfo) -> bool); 8]
    {
        let (filter, _) = DeviceFilter::parse(spec);
        let got: Vec<Device> = devices_matching(&filter);
        let want: Vec<&Device> = all
            .iter()
            .zip(&infos)
            .filter(|(_, i)| keep(i))
            .map(|(d, _)| d)
            .collect();
        println!("{spec}: {} of {} devices", got.len(), all.len());
        assert_eq!(got.iter().collect::<Vec<_>>(), want, "filter {spec}");
    }
}

#[test]
fn reference_counts_go_up_and_back_down() {
    let Some(devices) = test_devices("refcounts") else {
        return;
    };
    for device in &devices {
        let (context, queue) = setup(device, QueueProperties::default());
        // The queue holds a reference to its context.
        let base = context.reference_count().unwrap();
        {
            // SAFETY: a live context.
            let borrowed = unsafe { Context::retain_borrowed(context.raw()) }.unwrap();
            assert_eq!(context.reference_count().unwrap(), base + 1);
            let cloned = borrowed.clone();
            assert_eq!(cloned.reference_count().unwrap(), base + 2);
        }
        assert_eq!(context.reference_count().unwrap(), base);

        assert_eq!(queue.reference_count().unwrap(), 1);
        {
            // SAFETY: a live queue.
            let user = unsafe { Queue::retain_borrowed(queue.raw()) }.unwrap();
            assert_eq!(queue.reference_count().unwrap(), 2);
            assert_eq!(user.context().unwrap(), context);
            assert_eq!(user.device().unwrap(), *device);
        }
        assert_eq!(queue.reference_count().unwrap(), 1);

        let mem = Mem::create(&context, 1024).unwrap();
        assert_eq!(mem.reference_count().unwrap(), 1);
        {
            // SAFETY: a live buffer.
            let user = unsafe { Mem::retain_borrowed(mem.raw()) }.unwrap();
            assert_eq!(mem.reference_count().unwrap(), 2);
            assert_eq!(user.size().unwrap(), 1024);
            assert_eq!(user.context().unwrap(), context);
        }
        assert_eq!(mem.reference_count().unwrap(), 1);
        assert!(matches!(
            Mem::create(&context, 0),
            Err(Error::InvalidArguments(_))
        ));

        assert!(context.contains(device).unwrap());
        assert_eq!(context.devices().unwrap(), vec![device.clone()]);
        let event = queue.marker(&[]).unwrap();
        event.wait().unwrap();
        assert!(event.is_complete().unwrap());
        // A runtime may still hold the event for a moment after it completes
        // (PoCL releases it from its worker thread), so the count is allowed
        // to settle; a reference we leaked would never go away.
        queue.finish().unwrap();
        let settled = (0..200).any(|_| {
            let count = event.reference_count().unwrap();
            if count != 1 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            count == 1
        });
        assert!(
            settled,
            "the event keeps {} references",
            event.reference_count().unwrap()
        );
    }
}

#[test]
fn user_handles_are_checked() {
    // SAFETY: NULL is always accepted by the checks.
    unsafe {
        assert!(matches!(
            Context::retain_borrowed(std::ptr::null_mut()),
            Err(Error::InvalidArguments(_))
        ));
        assert!(matches!(
            Queue::retain_borrowed(std::ptr::null_mut()),
            Err(Error::InvalidArguments(_))
        ));
        assert!(matches!(
            Device::retain_borrowed(std::ptr::null_mut()),
            Err(Error::InvalidArguments(_))
        ));
        assert!(matches!(
            Mem::retain_borrowed(std::ptr::null_mut()),
            Err(Error::InvalidArguments(_))
        ));
        assert!(matches!(
            Event::retain_borrowed(std::ptr::null_mut()),
            Err(Error::InvalidArguments(_))
        ));
        assert!(!Context::is_valid(std::ptr::null_mut()));
    }
    let Some(devices) = test_devices("user handles") else {
        return;
    };
    for device in &devices {
        let (context, queue) = setup(device, QueueProperties::default());
        // SAFETY: a live context.
        assert!(unsafe { Context::is_valid(context.raw()) });
        // A live object of another type. Only the query is tried (never a
        // retain): drivers that do not check types (PoCL) accept it.
        // SAFETY: the pointer is a live OpenCL object (a queue), which the ICD
        // loader can dispatch on; the query only reads.
        let accepted = unsafe { Context::is_valid(queue.raw().cast()) };
        let platform = device.platform().unwrap().name().unwrap();
        println!(
            "{platform}: a queue passed as a context is {}",
            if accepted { "accepted" } else { "refused" }
        );
        if platform.starts_with("Intel") {
            assert!(!accepted);
        }
    }
}

#[test]
fn buffers_write_read_fill_copy_map() {
    let Some(devices) = test_devices("buffers") else {
        return;
    };
    for device in &devices {
        let (context, queue) = setup(device, QueueProperties::default());
        let a = Mem::create(&context, 256).unwrap();
        let b = Mem::create(&context, 256).unwrap();
        let data: Vec<u8> = (0..=255).collect();
        queue.write_buffer(&a, 0, &data, &[]).unwrap();
        let mut back = vec![0u8; 256];
        queue.read_buffer(&a, 0, &mut back, &[]).unwrap();
        assert_eq!(back, data);

        // Offsets, and a fill then a copy chained through events.
        let fill = queue.fill_buffer(&b, &[7, 7, 7, 7], 0, 256, &[]).unwrap();
        let copy = queue.copy_buffer(&a, 16, &b, 32, 64, &[fill]).unwrap();
        let mut part = vec![0u8; 128];
        queue.read_buffer(&b, 0, &mut part, &[copy]).unwrap();
        assert!(part[..32].iter().all(|&x| x == 7));
        assert_eq!(&part[32..96], &data[16..80]);
        assert!(part[96..].iter().all(|&x| x == 7));

        // Zero-size commands are markers.
        queue
            .copy_buffer(&a, 0, &b, 0, 0, &[])
            .unwrap()
            .wait()
            .unwrap();
        queue.write_buffer(&a, 0, &[], &[]).unwrap().wait().unwrap();

        // Map, write through the pointer, unmap, read back.
        let (ptr, _) = queue
            .map_buffer(&b, MapAccess::ReadWrite, 8, 16, &[])
            .unwrap();
        // SAFETY: 16 bytes mapped for reading and writing until the unmap.
        unsafe {
            let view = std::slice::from_raw_parts_mut(ptr.cast::<u8>(), 16);
            assert!(view.iter().all(|&x| x == 7));
            view.copy_from_slice(&[42; 16]);
        }
        // SAFETY: `view` is not used after this.
        unsafe { queue.unmap_buffer(&b, ptr, &[]) }.unwrap();
        queue.finish().unwrap();
        let mut small = vec![0u8; 32];
        queue.read_buffer(&b, 0, &mut small, &[]).unwrap();
        assert_eq!(&small[..8], &[7; 8]);
        assert_eq!(&small[8..24], &[42; 16]);
        assert_eq!(&small[24..], &[7; 8]);
        assert!(queue.map_buffer(&b, MapAccess::Read, 0, 0, &[]).is_err());
    }
}

#[test]
fn out_of_order_and_profiling_queues() {
    let Some(devices) = test_devices("queue properties") else {
        return;
    };
    for device in &devices {
        let name = device.name().unwrap();
        let context = Context::create(device).unwrap();
        let ooo = QueueProperties {
            out_of_order: true,
            profiling: false,
        };
        match Queue::create(&context, device, ooo) {
            Ok(queue) => {
                assert_eq!(queue.properties().unwrap(), ooo);
                // A user's queue: in/out-of-order read from its own properties.
                // SAFETY: a live queue.
                let user = unsafe { Queue::retain_borrowed(queue.raw()) }.unwrap();
                assert!(user.properties().unwrap().out_of_order);
                // Dependencies through events on an out-of-order queue.
                let mem = Mem::create(&context, 64).unwrap();
                let first = queue.fill_buffer(&mem, &[1], 0, 64, &[]).unwrap();
                let second = queue.fill_buffer(&mem, &[2], 0, 32, &[first]).unwrap();
                let barrier = queue.barrier(std::slice::from_ref(&second)).unwrap();
                let marker = queue.marker(&[barrier]).unwrap();
                let mut out = vec![0u8; 64];
                queue.read_buffer(&mem, 0, &mut out, &[marker]).unwrap();
                assert_eq!(&out[..32], &[2; 32]);
                assert_eq!(&out[32..], &[1; 32]);
                Event::wait_all(&[second]).unwrap();
            }
            Err(e) => skip(format_args!("out-of-order on {name}: {e}")),
        }
        let profiling = QueueProperties {
            out_of_order: false,
            profiling: true,
        };
        let queue = Queue::create(&context, device, profiling).unwrap();
        assert_eq!(queue.properties().unwrap(), profiling);
        let mem = Mem::create(&context, 4096).unwrap();
        let event = queue
            .fill_buffer(&mem, &[0, 0, 0, 0], 0, 4096, &[])
            .unwrap();
        event.wait().unwrap();
        let (start, end) = event.profiling_times().unwrap();
        assert!(end >= start, "{name}: {start}..{end}");
        let plain = Queue::create(&context, device, QueueProperties::default()).unwrap();
        assert_eq!(plain.properties().unwrap(), QueueProperties::default());
        let event = plain.marker(&[]).unwrap();
        event.wait().unwrap();
        assert!(event.profiling_times().is_err());
    }
}

#[test]
fn sub_devices_know_their_root() {
    let Some(devices) = test_devices("sub-devices") else {
        return;
    };
    for device in &devices {
        let name = device.name().unwrap();
        let subs = match device.partition_equally(1) {
            Ok(subs) if !subs.is_empty() => subs,
            Ok(_) => continue,
            Err(e) => {
                skip(format_args!("sub-devices of {name}: {e}"));
                continue;
            }
        };
        let sub = &subs[0];
        assert_eq!(sub.reference_count().unwrap(), 1);
        {
            // SAFETY: a live sub-device.
            let user = unsafe { Device::retain_borrowed(sub.raw()) }.unwrap();
            assert_eq!(sub.reference_count().unwrap(), 2);
            assert!(user.info().unwrap().is_sub_device);
        }
        assert_eq!(sub.reference_count().unwrap(), 1);
        assert_eq!(sub.parent().unwrap().as_ref(), Some(device));
        assert_eq!(sub.root().unwrap(), *device);
        // A context and queue on the sub-device work.
        let (context, queue) = setup(sub, QueueProperties::default());
        if context.contains(sub).unwrap() {
            assert!(!context.contains(device).unwrap());
        } else {
            // PoCL lists the root device of a context made for a sub-device.
            println!(
                "{name}: a context for a sub-device lists {:?}",
                context.devices().unwrap()
            );
            assert!(context.contains(device).unwrap());
        }
        let mem = Mem::create(&context, 16).unwrap();
        queue
            .fill_buffer(&mem, &[5], 0, 16, &[])
            .unwrap()
            .wait()
            .unwrap();
        println!("{name}: {} sub-devices of 1 compute unit", subs.len());
    }
}
