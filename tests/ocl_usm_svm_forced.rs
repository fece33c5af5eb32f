//! `DNNL_OCL_USM=svm`: every OpenCL device with coarse-grained SVM takes USM
//! through SVM, Intel's runtime (which has `cl_intel_unified_shared_memory`)
//! included. The variable is read once per process, so this is a test binary
//! of its own that sets it before anything asks.

mod ocl_common;

use dnnl::runtime::ocl::*;
use ocl_common::*;

#[test]
fn svm_even_where_intel_usm_exists() {
    // SAFETY: set before any thread of this process reads the environment
    // (the only test of this binary, first thing).
    unsafe { std::env::set_var("DNNL_OCL_USM", "svm") };
    let Some(devices) = test_devices("svm_even_where_intel_usm_exists") else {
        return;
    };
    for device in &devices {
        let name = device.name().unwrap();
        let (context, queue) = setup(device, QueueProperties::default());
        if !device.supports_svm() {
            skip(format_args!("{name}: no coarse-grained SVM"));
            continue;
        }
        assert!(supports_usm(device), "{name}");
        assert!(is_svm_context(&context), "{name}: Intel's USM was chosen");
        let n = 64usize;
        let alloc = usm_alloc(&context, device, UsmKind::Device, 4 * n, 64).unwrap();
        assert_eq!(alloc.kind(), UsmKind::Svm, "{name}");
        assert_eq!(usm_kind(&context, alloc.ptr()).unwrap(), UsmKind::Svm);
        // A kernel writes it through clSetKernelArgSVMPointer; the host maps it.
        const SOURCE: &str = "__kernel void iota(__global float *y) { size_t i = get_global_id(0); y[i] = (float)i; }";
        let kernel = Program::build_source(&context, device, SOURCE, "")
            .unwrap()
            .kernel("iota")
            .unwrap();
        queue
            .enqueue_kernel(&kernel, &[KernelArg::Usm(alloc.ptr())], &[n], None, &[])
            .unwrap()
            .wait()
            .unwrap();
        // SAFETY: SVM of the queue's context holding 4n bytes.
        unsafe { queue.svm_map(alloc.ptr(), 4 * n) }.unwrap();
        // SAFETY: mapped for the host above.
        let values = unsafe { std::slice::from_raw_parts(alloc.ptr().cast::<f32>(), n) };
        assert!(
            values.iter().enumerate().all(|(i, &v)| v == i as f32),
            "{name}: {:?}",
            &values[..4]
        );
        // SAFETY: mapped above; `values` is not used after this.
        unsafe { queue.svm_unmap(alloc.ptr()) }.unwrap();
        println!(
            "{name}: DNNL_OCL_USM=svm gives SVM (Intel's extension: {})",
            device.info().unwrap().usm
        );
    }
}
