//! Helpers shared by the OpenCL runtime tests (`ocl_runtime.rs`, `ocl_kernels.rs`).

#![allow(dead_code)]

use dnnl::runtime::ocl::*;

#[path = "../skip/mod.rs"]
pub mod skip;
pub use skip::skip;

/// The devices to test on, or `None` after reporting the skip ([`skip`]).
pub fn test_devices(test: &str) -> Option<Vec<Device>> {
    let devices = devices_matching(&DeviceFilter::default());
    if devices.is_empty() {
        skip(format_args!(
            "{test}: no OpenCL device (OpenCL loaded: {})",
            loader::available()
        ));
        None
    } else {
        Some(devices)
    }
}

pub fn setup(device: &Device, properties: QueueProperties) -> (Context, Queue) {
    let context = Context::create(device).expect("context");
    let queue = Queue::create(&context, device, properties).expect("queue");
    (context, queue)
}

pub const ADD_SOURCE: &str = r#"
__kernel void add(__global const float *a, __global const float *b, __global float *c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i] + BIAS;
}
"#;

pub fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}
