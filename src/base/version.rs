//! What `dnnl_version()` reports.

use std::ffi::CStr;
use std::sync::LazyLock;

use crate::abi::*;

/// The version and build of this library.
pub struct Version {
    /// Major version (the oneDNN API we implement).
    pub major: i32,
    /// Minor version.
    pub minor: i32,
    /// Patch version (ours).
    pub patch: i32,
    /// The commit this library was built from, or "N/A".
    pub hash: &'static str,
}

static HASH: LazyLock<std::ffi::CString> = LazyLock::new(|| {
    std::ffi::CString::new(env!("DNNL_BUILD_HASH")).unwrap_or_else(|_| c"N/A".to_owned())
});

/// The C struct `dnnl_version()` points to; it lives as long as the library.
pub static C_VERSION: LazyLock<CVersion> = LazyLock::new(|| {
    CVersion(dnnl_version_t {
        major: DNNL_VERSION_MAJOR,
        minor: DNNL_VERSION_MINOR,
        patch: DNNL_VERSION_PATCH,
        hash: HASH.as_ptr(),
        cpu_runtime: DNNL_CPU_RUNTIME,
        gpu_runtime: DNNL_GPU_RUNTIME,
    })
});

/// `dnnl_version_t` holds a pointer, so it is not `Sync` by itself; the one we
/// publish points to a string that is never freed or changed.
pub struct CVersion(pub dnnl_version_t);

// SAFETY: the only pointer inside is `HASH`, a process-lifetime immutable C string.
unsafe impl Sync for CVersion {}
// SAFETY: as above; nothing in it is tied to a thread.
unsafe impl Send for CVersion {}

/// This library's version.
pub fn get() -> Version {
    let hash: &'static CStr = HASH.as_c_str();
    Version {
        major: DNNL_VERSION_MAJOR,
        minor: DNNL_VERSION_MINOR,
        patch: DNNL_VERSION_PATCH,
        hash: hash.to_str().unwrap_or("N/A"),
    }
}
