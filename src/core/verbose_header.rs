//! The verbose log's header: the library version, the CPU and the devices of
//! the GPU runtime in use (OpenCL, or Level Zero under
//! `ONEDNN_GPU_RUNTIME=ze`), printed once before the first line.
//!
//! Layer: core (it enumerates the runtimes' devices); the log itself is
//! `base::verbose`, which calls [`print`] through the printer registered at
//! load time.

use crate::base::verbose;

/// Prints the header lines: library version, CPU, the GPU runtime and its
/// devices.
pub fn print() {
    let v = crate::core::version::get();
    verbose::print_raw(
        "info,",
        &format!(
            "oneDNN v{}.{}.{} (commit {})",
            v.major, v.minor, v.patch, v.hash
        ),
    );
    verbose::print_raw(
        "info,",
        "implementation:dnnl-rs (Rust; GPU engines on any OpenCL device or Level Zero driver)",
    );
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    verbose::print_raw(
        "info,",
        &format!("cpu,runtime:native threads,nthr:{threads}"),
    );
    verbose::print_raw("info,", &format!("cpu,isa:{}", cpu_isa_description()));
    print_gpu_devices();
    let stamp = if verbose::timestamps() {
        "timestamp,"
    } else {
        ""
    };
    verbose::print_raw(
        "primitive,info,",
        &format!(
            "template:{stamp}operation,engine,primitive,implementation,prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time"
        ),
    );
    verbose::print_raw(
        "graph,info,",
        &format!(
            "template:{stamp}operation,engine,partition_id,partition_kind,op_names,data_formats,logical_tensors,fpmath_mode,implementation,backend,exec_time"
        ),
    );
}

/// The GPU lines of the header: the runtime that `dnnl_engine_create(dnnl_gpu, i)`
/// uses (`ONEDNN_GPU_RUNTIME`) and its devices, in engine index order.
fn print_gpu_devices() {
    if crate::core::ze_engine::is_gpu_runtime() {
        verbose::print_raw("info,", "gpu,runtime:Level Zero");
        let devices = crate::runtime::ze::all_devices();
        verbose::print_raw(
            "info,",
            &format!(
                "gpu,engine,level zero device count:{}{}",
                devices.len(),
                no_devices(devices.len())
            ),
        );
        for (i, (driver, device)) in devices.into_iter().enumerate() {
            if let Ok(info) = crate::runtime::ze::device_info(driver, device) {
                verbose::print_raw(
                    "info,",
                    &format!(
                        "gpu,engine,{i},name:{},driver_version:{}",
                        info.name, info.driver_version
                    ),
                );
            }
        }
        return;
    }
    verbose::print_raw("info,", "gpu,runtime:OpenCL");
    // The format of upstream's non-Intel builds: no `binary_kernels:` field.
    let devices = crate::runtime::ocl::devices();
    verbose::print_raw(
        "info,",
        &format!(
            "gpu,engine,opencl device count:{}{}",
            devices.len(),
            no_devices(devices.len())
        ),
    );
    for (i, device) in devices.iter().enumerate() {
        if let Ok(info) = device.info() {
            verbose::print_raw(
                "info,",
                &format!(
                    "gpu,engine,{i},name:{},driver_version:{}",
                    info.name, info.driver_version
                ),
            );
        }
    }
}

fn no_devices(count: usize) -> &'static str {
    if count == 0 {
        " - no devices available."
    } else {
        ""
    }
}

/// The instruction set the CPU kernels may use: upstream's description of
/// the effective ISA (the host's, within `ONEDNN_MAX_CPU_ISA` /
/// `dnnl_set_max_cpu_isa`; printing it does not fix the maximum).
fn cpu_isa_description() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        crate::base::isa::description(crate::base::isa::effective_peek()).to_string()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH.to_string()
    }
}
