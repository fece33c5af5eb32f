//! The crate version, `dnnl_version.h` and `dnnl_version()` agree.

use std::ffi::CStr;

use dnnl::abi::*;
use dnnl::capi::common::dnnl_version;

#[test]
fn versions_agree() {
    let crate_version: Vec<i32> = env!("CARGO_PKG_VERSION")
        .split('.')
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(
        crate_version,
        [DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH]
    );

    let header = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/include/oneapi/dnnl/dnnl_version.h"
    ))
    .unwrap();
    for (name, value) in [
        ("DNNL_VERSION_MAJOR", DNNL_VERSION_MAJOR),
        ("DNNL_VERSION_MINOR", DNNL_VERSION_MINOR),
        ("DNNL_VERSION_PATCH", DNNL_VERSION_PATCH),
    ] {
        assert!(
            header.contains(&format!("#define {name} {value}\n")),
            "{name} in dnnl_version.h"
        );
    }

    // SAFETY: dnnl_version takes nothing and returns a pointer to a static struct.
    let v = unsafe { &*dnnl_version() };
    assert_eq!((v.major, v.minor, v.patch), (3, 13, DNNL_VERSION_PATCH));
    assert_eq!(v.cpu_runtime, DNNL_CPU_RUNTIME);
    assert_eq!(v.gpu_runtime, DNNL_GPU_RUNTIME);
    // SAFETY: hash points to a static NUL-terminated string.
    let hash = unsafe { CStr::from_ptr(v.hash) }.to_str().unwrap();
    assert!(
        hash == "N/A" || (hash.len() == 40 && hash.chars().all(|c| c.is_ascii_hexdigit())),
        "{hash}"
    );
}
