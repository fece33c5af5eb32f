// The official oneDNN v3.13 C++ headers (dnnl.hpp, dnnl_ocl.hpp from the onednn-devel
// wheel) over our C headers and our dnnl_config.h, linked to our library: the
// dnnl::ocl_interop functions a C++ program uses (seeds ocl_interop_guide.rst):
// make_engine / get_device / get_context, make_stream / get_command_queue,
// make_memory (kind + handle, kind + ALLOCATE, and the cl_mem overload that goes
// through dnnl_memory_create_v2(NONE) + dnnl_memory_set_data_handle_v2), get_mem_object,
// get_memory_kind, memory::map_data, and dnnl::memory(md, engine) being buffer memory.
#define CL_TARGET_OPENCL_VERSION 300
#include "oneapi/dnnl/dnnl_ocl.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Our dnnl_config.h (the official one says SYCL), and our dnnl_ocl.h (only ours
// declares the v1 names).
#if DNNL_GPU_RUNTIME != DNNL_RUNTIME_OCL
#error "the official dnnl_config.h was picked up instead of ours"
#endif
static dnnl_status_t (*const v1_name_declared)(dnnl_engine_t, cl_device_id *)
        = &dnnl_engine_get_ocl_device;

#define EXPECT(cond) \
    do { \
        if (!(cond)) { \
            std::fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
            std::exit(1); \
        } \
    } while (0)

#define OCL_CHECK(call) \
    do { \
        cl_int e_ = (call); \
        if (e_ != CL_SUCCESS) { \
            std::fprintf(stderr, "%s:%d: %s failed: OpenCL error %d\n", __FILE__, __LINE__, \
                    #call, (int)e_); \
            std::exit(1); \
        } \
    } while (0)

namespace oi = dnnl::ocl_interop;

static cl_uint mem_refs(cl_mem m) {
    cl_uint n = 0;
    OCL_CHECK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(n), &n, nullptr));
    return n;
}

static cl_uint ctx_refs(cl_context c) {
    cl_uint n = 0;
    OCL_CHECK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, nullptr));
    return n;
}

static bool has_extension(cl_device_id dev, const char *name) {
    size_t size = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, nullptr, &size) != CL_SUCCESS) return false;
    std::vector<char> ext(size + 1, '\0');
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, size, ext.data(), nullptr) != CL_SUCCESS)
        return false;
    return std::strstr(ext.data(), name) != nullptr;
}

// Coarse-grained buffer SVM on an OpenCL 2.0 or later device: USM where Intel's
// extension is missing (PoCL, NVIDIA), or where DNNL_OCL_USM=svm asks for it.
static bool has_svm(cl_device_id dev) {
    char version[128] = "";
    if (clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof(version) - 1, version, nullptr)
            != CL_SUCCESS)
        return false;
    int major = 0, minor = 0;
    if (std::sscanf(version, "OpenCL %d.%d", &major, &minor) != 2 || major < 2) return false;
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, nullptr)
            != CL_SUCCESS)
        return false;
    return (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
}

static bool svm_forced() {
    const char *v = std::getenv("DNNL_OCL_USM");
    return v != nullptr && std::strcmp(v, "svm") == 0;
}

static bool has_intel_usm(cl_device_id dev) {
    return !svm_forced() && has_extension(dev, "cl_intel_unified_shared_memory");
}

static bool has_usm(cl_device_id dev) {
    return has_intel_usm(dev) || has_svm(dev);
}

static int run() {
    using dnnl::memory;
    (void)v1_name_declared;
    if (dnnl::engine::get_count(dnnl::engine::kind::gpu) == 0) {
        std::printf("SKIP: no OpenCL device is visible\n");
        return 77;
    }
    // The default device, as the library orders them.
    cl_device_id dev = oi::get_device(dnnl::engine(dnnl::engine::kind::gpu, 0));
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    OCL_CHECK(err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &err);
    OCL_CHECK(err);

    const int n = 100;
    std::vector<float> host(n);
    for (int i = 0; i < n; i++)
        host[i] = 0.25f * (float)i;
    cl_mem user = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            n * sizeof(float), host.data(), &err);
    OCL_CHECK(err);
    const cl_uint ctx0 = ctx_refs(ctx);
    {
        dnnl::engine eng = oi::make_engine(dev, ctx);
        EXPECT(eng.get_kind() == dnnl::engine::kind::gpu);
        EXPECT(oi::get_device(eng) == dev);
        EXPECT(oi::get_context(eng) == ctx);
        EXPECT(ctx_refs(ctx) > ctx0);

        dnnl::stream strm = oi::make_stream(eng, q);
        EXPECT(oi::get_command_queue(strm) == q);

        memory::desc md({n}, memory::data_type::f32, memory::format_tag::a);
        EXPECT(md.get_size() == n * sizeof(float));

        // make_memory(md, eng, kind): the library allocates (create_v2, ALLOCATE).
        memory lib = oi::make_memory(md, eng, oi::memory_kind::buffer);
        EXPECT(oi::get_memory_kind(lib) == oi::memory_kind::buffer);
        EXPECT(oi::get_mem_object(lib) != nullptr);
        EXPECT(lib.get_desc() == md);

        // make_memory(md, eng, cl_mem): memory(md, eng, {NONE}) + set_data_handle(cl_mem, 0).
        memory wrapped = oi::make_memory(md, eng, user);
        EXPECT(oi::get_mem_object(wrapped) == user);
        EXPECT(oi::get_memory_kind(wrapped) == oi::memory_kind::buffer);
        EXPECT(mem_refs(user) == 2);
        float *p = wrapped.map_data<float>();
        EXPECT(p != nullptr);
        for (int i = 0; i < n; i++)
            EXPECT(p[i] == 0.25f * (float)i);
        p[1] = 42.f;
        wrapped.unmap_data(p);

        // make_memory(md, eng, kind, handle) with the cl_mem as handle.
        memory again = oi::make_memory(md, eng, oi::memory_kind::buffer, (void *)user);
        EXPECT(oi::get_mem_object(again) == user);
        EXPECT(mem_refs(user) == 3);
        p = again.map_data<float>();
        EXPECT(p[1] == 42.f);
        again.unmap_data(p);

        // dnnl::memory(md, eng): buffer memory by default.
        memory plain(md, eng);
        EXPECT(oi::get_memory_kind(plain) == oi::memory_kind::buffer);
        oi::set_mem_object(plain, user);
        EXPECT(oi::get_mem_object(plain) == user);
        EXPECT(mem_refs(user) == 4);

        // USM where the device has it; dnnl_unimplemented elsewhere.
        if (has_usm(dev)) {
            memory usm = oi::make_memory(md, eng, oi::memory_kind::usm);
            EXPECT(oi::get_memory_kind(usm) == oi::memory_kind::usm);
            EXPECT(usm.get_data_handle() != nullptr);
            std::printf("USM memory through make_memory: ok\n");
            if (!has_intel_usm(dev)) {
                // Through SVM: the user's clSVMAlloc pointer is a USM handle.
                const size_t bytes = md.get_size();
                float *svm = static_cast<float *>(
                        clSVMAlloc(ctx, CL_MEM_READ_WRITE, bytes, 0));
                EXPECT(svm != nullptr);
                memory user_usm = oi::make_memory(md, eng, oi::memory_kind::usm, svm);
                EXPECT(oi::get_memory_kind(user_usm) == oi::memory_kind::usm);
                EXPECT(user_usm.get_data_handle() == svm);
                const size_t count = bytes / sizeof(float);
                float *w = static_cast<float *>(user_usm.map_data());
                for (size_t i = 0; i < count; i++)
                    w[i] = 0.5f * static_cast<float>(i);
                user_usm.unmap_data(w);
                const float *r = static_cast<const float *>(user_usm.map_data());
                for (size_t i = 0; i < count; i++)
                    EXPECT(r[i] == 0.5f * static_cast<float>(i));
                user_usm.unmap_data(const_cast<float *>(r));
                user_usm = memory();
                clSVMFree(ctx, svm);
                std::printf("a user clSVMAlloc pointer through make_memory(usm, ptr): ok\n");
            }
        } else {
            try {
                memory usm = oi::make_memory(md, eng, oi::memory_kind::usm);
                std::fprintf(stderr, "make_memory(usm) succeeded on a device without USM\n");
                return 1;
            } catch (const dnnl::error &e) {
                EXPECT(e.status == dnnl_unimplemented);
                std::printf("USM unavailable on this device: make_memory(usm) throws "
                            "dnnl_unimplemented: ok\n");
            }
        }
        strm.wait();
    }
    // (The exact context count is checked by the C tests: PoCL adds references of its
    // own while commands on the buffer are pending.)
    EXPECT(mem_refs(user) == 1);
    OCL_CHECK(clReleaseMemObject(user));
    OCL_CHECK(clReleaseCommandQueue(q));
    OCL_CHECK(clReleaseContext(ctx));
    std::printf("official C++ headers over our library: ok\n");
    return 0;
}

int main() {
    try {
        return run();
    } catch (const dnnl::error &e) {
        std::fprintf(stderr, "dnnl::error: %s (status %d)\n", e.what(), (int)e.status);
        return 1;
    }
}
