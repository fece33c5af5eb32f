//! `ONEDNN_OCL_DEVICES` / `DNNL_OCL_DEVICES` narrow `runtime::ocl::devices()`.
//! One test per process: it sets environment variables.

use dnnl::runtime::ocl::*;

#[test]
fn the_environment_variable_narrows_devices() {
    let all = devices_matching(&DeviceFilter::default());
    // SAFETY: the only test of this binary, so no other thread reads the
    // environment while it is changed.
    unsafe { std::env::set_var("DNNL_OCL_DEVICES", "type:gpu") };
    let gpus = devices();
    assert!(
        gpus.iter()
            .all(|d| d.device_type().unwrap() == DeviceType::Gpu)
    );
    // ONEDNN_ wins over DNNL_; unknown terms are ignored.
    // SAFETY: as above.
    unsafe { std::env::set_var("ONEDNN_OCL_DEVICES", "type:cpu,nonsense") };
    let cpus = devices();
    assert!(
        cpus.iter()
            .all(|d| d.device_type().unwrap() == DeviceType::Cpu)
    );
    assert_eq!(
        gpus.len() + cpus.len(),
        all.iter()
            .filter(|d| d.device_type().unwrap() != DeviceType::Accelerator)
            .count()
    );
    // SAFETY: as above.
    unsafe {
        std::env::remove_var("ONEDNN_OCL_DEVICES");
        std::env::remove_var("DNNL_OCL_DEVICES");
    }
    assert_eq!(devices(), all);
    println!(
        "{} devices: {} GPU, {} CPU",
        all.len(),
        gpus.len(),
        cpus.len()
    );
}
