//! The `ONEDNN_VERBOSE` header names the GPU runtime that
//! `dnnl_engine_create(dnnl_gpu, i)` uses and lists that runtime's devices:
//! Level Zero devices under `ONEDNN_GPU_RUNTIME=ze`, OpenCL devices otherwise.
//!
//! The runtime choice and the verbose setting are read once per process, so
//! each case runs this test binary again as a child with its environment and
//! reads the child's stdout. The expected devices come from the runtime
//! modules in this process. Level Zero devices come from the loader; run with
//! `ZE_ENABLE_ALT_DRIVERS=<target>/release/libze_ocl_driver.so` (and Intel's CPU
//! OpenCL runtime visible) to see the repository's test driver; without a
//! device the header must say there is none.

use std::process::Command;

use dnnl::capi::common::*;

const CHILD: &str = "DNNL_TEST_VERBOSE_HEADER_CHILD";

/// In the child: one rejected call, logged under `check`, prints the header.
#[test]
fn child_rejected_call() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    // SAFETY: a garbage token is a handle the function refuses; it is never
    // dereferenced.
    let _ = unsafe { dnnl_engine_destroy(std::ptr::without_provenance_mut(0xdead_bee0)) };
}

/// The header lines (`info,` payloads) the child printed with `gpu_runtime`
/// as `ONEDNN_GPU_RUNTIME` (None: unset).
fn header(gpu_runtime: Option<&str>) -> Vec<String> {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "child_rejected_call",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, "1")
    .env("ONEDNN_VERBOSE", "check")
    .env_remove("DNNL_VERBOSE")
    .env_remove("DNNL_GPU_RUNTIME");
    match gpu_runtime {
        Some(r) => cmd.env("ONEDNN_GPU_RUNTIME", r),
        None => cmd.env_remove("ONEDNN_GPU_RUNTIME"),
    };
    let out = cmd.output().expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "child failed:\n{stdout}");
    assert!(
        stdout.contains("common,check,dnnl_engine_destroy,invalid_arguments"),
        "the child's call was not logged:\n{stdout}"
    );
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("onednn_verbose,v1,info,"))
        .map(str::to_string)
        .collect()
}

/// Checks the GPU lines: the runtime, the count, then `name:` of each device.
fn check_gpu_lines(lines: &[String], runtime: &str, count_key: &str, names: &[String]) {
    let text = lines.join("\n");
    assert!(
        lines.iter().any(|l| l == &format!("gpu,runtime:{runtime}")),
        "no 'gpu,runtime:{runtime}' line:\n{text}"
    );
    let none = if names.is_empty() {
        " - no devices available."
    } else {
        ""
    };
    let count = format!("gpu,engine,{count_key} device count:{}{none}", names.len());
    assert!(lines.contains(&count), "no '{count}' line:\n{text}");
    for (i, name) in names.iter().enumerate() {
        let prefix = format!("gpu,engine,{i},name:{name},driver_version:");
        assert!(
            lines.iter().any(|l| l.starts_with(&prefix)),
            "no '{prefix}...' line:\n{text}"
        );
    }
    let engine_lines = lines
        .iter()
        .filter(|l| l.starts_with("gpu,engine,") && !l.contains("device count"))
        .count();
    assert_eq!(engine_lines, names.len(), "device lines:\n{text}");
}

/// The `gpu,` lines, one per line.
fn gpu_lines(lines: &[String]) -> String {
    let gpu: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("gpu,"))
        .map(String::as_str)
        .collect();
    gpu.join("\n")
}

#[test]
fn header_lists_level_zero_devices_under_ze() {
    let names: Vec<String> = dnnl::runtime::ze::all_devices()
        .into_iter()
        .map(|(driver, device)| {
            dnnl::runtime::ze::device_info(driver, device)
                .expect("device info")
                .name
        })
        .collect();
    println!("Level Zero devices: {names:?}");
    let lines = header(Some("ze"));
    check_gpu_lines(&lines, "Level Zero", "level zero", &names);
    let text = gpu_lines(&lines);
    assert!(
        !text.contains("OpenCL") && !text.contains("opencl device count"),
        "OpenCL named under ONEDNN_GPU_RUNTIME=ze:\n{text}"
    );
}

#[test]
fn header_lists_opencl_devices_by_default() {
    let names: Vec<String> = dnnl::runtime::ocl::devices()
        .iter()
        .map(|d| d.info().expect("device info").name)
        .collect();
    println!("OpenCL devices: {names:?}");
    for runtime in [None, Some("ocl")] {
        let lines = header(runtime);
        check_gpu_lines(&lines, "OpenCL", "opencl", &names);
        let text = gpu_lines(&lines);
        assert!(
            !text.contains("Level Zero") && !text.contains("level zero device count"),
            "Level Zero named with ONEDNN_GPU_RUNTIME={runtime:?}:\n{text}"
        );
    }
}
