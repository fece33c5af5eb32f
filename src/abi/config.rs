//! `dnnl_config.h`: what this build of the library contains.
//!
//! The runtime values are upstream's; the choices are ours: the CPU engine runs
//! native Rust kernels on its own threads (reported as OpenMP-like: all cores by
//! default, no threadpool needed), the GPU engine is OpenCL on any vendor.

/// No runtime.
pub const DNNL_RUNTIME_NONE: u32 = 0u32;
/// Sequential execution.
pub const DNNL_RUNTIME_SEQ: u32 = 1u32;
/// OpenMP-style threading.
pub const DNNL_RUNTIME_OMP: u32 = 2u32;
/// TBB threading.
pub const DNNL_RUNTIME_TBB: u32 = 4u32;
/// A user-provided threadpool.
pub const DNNL_RUNTIME_THREADPOOL: u32 = 8u32;
/// OpenCL.
pub const DNNL_RUNTIME_OCL: u32 = 256u32;
/// SYCL.
pub const DNNL_RUNTIME_SYCL: u32 = 512u32;
/// The former name of DNNL_RUNTIME_SYCL.
pub const DNNL_RUNTIME_DPCPP: u32 = DNNL_RUNTIME_SYCL;
/// Level Zero.
pub const DNNL_RUNTIME_ZE: u32 = 1024u32;

/// No GPU vendor.
pub const DNNL_VENDOR_NONE: u32 = 0u32;
/// Intel.
pub const DNNL_VENDOR_INTEL: u32 = 1u32;
/// NVIDIA.
pub const DNNL_VENDOR_NVIDIA: u32 = 2u32;
/// AMD.
pub const DNNL_VENDOR_AMD: u32 = 4u32;
/// Any vendor.
pub const DNNL_VENDOR_GENERIC: u32 = 8u32;

/// How the CPU engine runs work in parallel.
pub const DNNL_CPU_THREADING_RUNTIME: u32 = DNNL_RUNTIME_OMP;
/// The CPU engine's runtime.
pub const DNNL_CPU_RUNTIME: u32 = DNNL_RUNTIME_OMP;
/// The GPU engine's runtime: OpenCL (Level Zero engines come from dnnl_ze.h).
pub const DNNL_GPU_RUNTIME: u32 = DNNL_RUNTIME_OCL;
/// GPU engines work on devices of any vendor.
pub const DNNL_GPU_VENDOR: u32 = DNNL_VENDOR_GENERIC;

// Which parts upstream's build selection kept: this library has all of them,
// spelled as upstream spells "everything".
/// Training (forward and backward) is built.
pub const BUILD_TRAINING: i32 = 1;
/// Not an inference-only build.
pub const BUILD_INFERENCE: i32 = 0;
/// Every primitive is built.
pub const BUILD_PRIMITIVE_ALL: i32 = 1;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_BATCH_NORMALIZATION: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_BINARY: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_CONCAT: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_CONVOLUTION: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_DECONVOLUTION: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_ELTWISE: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_GATED_MLP: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_GROUP_NORMALIZATION: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_INNER_PRODUCT: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_LAYER_NORMALIZATION: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_LRN: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_MATMUL: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_POOLING: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_PRELU: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_REDUCTION: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_REORDER: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_RESAMPLING: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_RNN: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_SDPA: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_SHUFFLE: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_SOFTMAX: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_ALL is set.
pub const BUILD_SUM: i32 = 0;
/// Every CPU ISA is built (the CPU kernels are portable Rust).
pub const BUILD_PRIMITIVE_CPU_ISA_ALL: i32 = 1;
/// Selection flag, unused when BUILD_PRIMITIVE_CPU_ISA_ALL is set.
pub const BUILD_SSE41: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_CPU_ISA_ALL is set.
pub const BUILD_AVX2: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_CPU_ISA_ALL is set.
pub const BUILD_AVX512: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_CPU_ISA_ALL is set.
pub const BUILD_AMX: i32 = 0;
/// Every GPU is targeted (kernels are portable OpenCL C).
pub const BUILD_PRIMITIVE_GPU_ISA_ALL: i32 = 1;
/// Selection flag, unused when BUILD_PRIMITIVE_GPU_ISA_ALL is set.
pub const BUILD_XELP: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_GPU_ISA_ALL is set.
pub const BUILD_XEHP: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_GPU_ISA_ALL is set.
pub const BUILD_XEHPG: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_GPU_ISA_ALL is set.
pub const BUILD_XEHPC: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_GPU_ISA_ALL is set.
pub const BUILD_XE2: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_GPU_ISA_ALL is set.
pub const BUILD_XE3: i32 = 0;
/// Selection flag, unused when BUILD_PRIMITIVE_GPU_ISA_ALL is set.
pub const BUILD_XE3P: i32 = 0;
/// Every GEMM kernel is built.
pub const BUILD_GEMM_KERNELS_ALL: i32 = 1;
/// Selection flag, unused when BUILD_GEMM_KERNELS_ALL is set.
pub const BUILD_GEMM_KERNELS_NONE: i32 = 0;
/// Selection flag, unused when BUILD_GEMM_KERNELS_ALL is set.
pub const BUILD_GEMM_SSE41: i32 = 0;
/// Selection flag, unused when BUILD_GEMM_KERNELS_ALL is set.
pub const BUILD_GEMM_AVX2: i32 = 0;
/// Selection flag, unused when BUILD_GEMM_KERNELS_ALL is set.
pub const BUILD_GEMM_AVX512: i32 = 0;
