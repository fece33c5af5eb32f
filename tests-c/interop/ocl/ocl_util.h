/* Helpers shared by the OpenCL interop tests (tests-c/interop/ocl/) and the
 * ocl_interop example.
 *
 *   OCL_CHECK(call)              an OpenCL call must return CL_SUCCESS
 *   ocl_devices(list, max)       the OpenCL devices in the library's engine order
 *   ocl_first_device_or_skip()   device 0 of that order, or SKIP (exit 77) without one
 *   ocl_context_create(dev)      a context holding only `dev`
 *   ocl_queue_create(ctx, dev, props)   a command queue (props: CL_QUEUE_PROPERTIES bits)
 *   ocl_*_refcount(obj)          CL_*_REFERENCE_COUNT of a context, device, queue, mem
 *   ocl_program_build(ctx, dev, src)    a program built from OpenCL C source
 *   ocl_usm_get(dev, &usm)       how the device gives USM: Intel's extension, else SVM
 *   ocl_usm_alloc/_free/_set_arg/_host_begin/_host_end   USM through either
 *
 * The engine order is the library's (DESIGN.md, "Devices and engines"): every
 * available device of every platform, GPU-type devices first, then accelerators, then
 * CPU-type devices; within a type, platform order then the platform's device order.
 * The tests never set ONEDNN_OCL_DEVICES, so no filter applies. */
#ifndef DNNL_TESTS_C_OCL_UTIL_H
#define DNNL_TESTS_C_OCL_UTIL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <stdint.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "oneapi/dnnl/dnnl_ocl.h"

#define OCL_MAX_DEVICES 64

static inline void ocl_check_fail(const char *file, int line, const char *call, cl_int err) {
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s failed: OpenCL error %d\n", file, line, call, (int)err);
    exit(1);
}

#define OCL_CHECK(call) \
    do { \
        cl_int ocl_err_ = (call); \
        if (ocl_err_ != CL_SUCCESS) ocl_check_fail(__FILE__, __LINE__, #call, ocl_err_); \
    } while (0)

/* Rank of a device type in the engine order; -1 for devices the library never lists. */
static inline int ocl_type_rank(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return 0;
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return 1;
    if (type & CL_DEVICE_TYPE_CPU) return 2;
    return -1;
}

/* Fills `list` with up to `max` devices in the library's engine order and returns how
 * many there are (0 when no OpenCL platform is visible). */
static inline size_t ocl_devices(cl_device_id *list, size_t max) {
    cl_uint nplat = 0;
    if (clGetPlatformIDs(0, NULL, &nplat) != CL_SUCCESS || nplat == 0) return 0;
    cl_platform_id plats[16];
    if (nplat > 16) nplat = 16;
    if (clGetPlatformIDs(nplat, plats, NULL) != CL_SUCCESS) return 0;
    size_t n = 0;
    for (int rank = 0; rank < 3; rank++) {
        for (cl_uint p = 0; p < nplat; p++) {
            cl_uint ndev = 0;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS)
                continue;
            cl_device_id devs[OCL_MAX_DEVICES];
            if (ndev > OCL_MAX_DEVICES) ndev = OCL_MAX_DEVICES;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, devs, NULL) != CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < ndev; d++) {
                cl_device_type type = 0;
                cl_bool avail = CL_FALSE;
                if (clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof(type), &type, NULL)
                        != CL_SUCCESS)
                    continue;
                if (clGetDeviceInfo(devs[d], CL_DEVICE_AVAILABLE, sizeof(avail), &avail, NULL)
                                != CL_SUCCESS
                        || !avail)
                    continue;
                if (ocl_type_rank(type) != rank) continue;
                if (n < max) list[n] = devs[d];
                n++;
            }
        }
    }
    return n;
}

static inline cl_device_id ocl_first_device_or_skip(void) {
    cl_device_id devs[OCL_MAX_DEVICES];
    if (ocl_devices(devs, OCL_MAX_DEVICES) == 0) SKIP("no OpenCL device is visible");
    return devs[0];
}

static inline cl_platform_id ocl_platform_of(cl_device_id dev) {
    cl_platform_id plat = NULL;
    OCL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof(plat), &plat, NULL));
    return plat;
}

/* A device's name and platform name, for messages. */
static inline void ocl_describe(cl_device_id dev, char *buf, size_t size) {
    char name[256] = "", plat_name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
    clGetPlatformInfo(ocl_platform_of(dev), CL_PLATFORM_NAME, sizeof(plat_name) - 1,
            plat_name, NULL);
    snprintf(buf, size, "%s (%s)", name, plat_name);
}

static inline cl_context ocl_context_create(cl_device_id dev) {
    cl_int err = CL_SUCCESS;
    cl_context_properties props[]
            = {CL_CONTEXT_PLATFORM, (cl_context_properties)ocl_platform_of(dev), 0};
    cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    OCL_CHECK(err);
    return ctx;
}

static inline cl_command_queue ocl_queue_create(
        cl_context ctx, cl_device_id dev, cl_command_queue_properties props) {
    cl_int err = CL_SUCCESS;
    cl_queue_properties qprops[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)props, 0};
    cl_command_queue q
            = clCreateCommandQueueWithProperties(ctx, dev, props ? qprops : NULL, &err);
    OCL_CHECK(err);
    return q;
}

/* Whether the device can run out-of-order queues on the host. */
static inline int ocl_device_has_ooo(cl_device_id dev) {
    cl_command_queue_properties p = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof(p), &p, NULL)
            != CL_SUCCESS)
        return 0;
    return (p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
}

static inline cl_uint ocl_context_refcount(cl_context ctx) {
    cl_uint n = 0;
    OCL_CHECK(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, NULL));
    return n;
}

static inline cl_uint ocl_device_refcount(cl_device_id dev) {
    cl_uint n = 0;
    OCL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_REFERENCE_COUNT, sizeof(n), &n, NULL));
    return n;
}

static inline cl_uint ocl_queue_refcount(cl_command_queue q) {
    cl_uint n = 0;
    OCL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(n), &n, NULL));
    return n;
}

static inline cl_uint ocl_mem_refcount(cl_mem m) {
    cl_uint n = 0;
    OCL_CHECK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(n), &n, NULL));
    return n;
}

/* Runtimes may drop the references that finished commands hold from their own
 * threads, a little after the work completes (PoCL does): these poll for up to
 * 5 s for a count to settle at `want` before judging it. Each poll sleeps 1 ms,
 * which lets the runtime's thread run where threads are serialised (valgrind
 * runs one at a time, and a busy poll there starved PoCL's driver thread past
 * an earlier 200 ms limit). */
static inline double ocl_now_ms_(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static inline void ocl_nap_ms_(void) {
    struct timespec t = {0, 1000000};
    thrd_sleep(&t, NULL);
}

#define OCL_DEFINE_SETTLES_(name, type) \
    static inline int ocl_##name##_refcount_settles(type obj, cl_uint want) { \
        double until = ocl_now_ms_() + 5000.0; \
        while (ocl_##name##_refcount(obj) != want && ocl_now_ms_() < until) \
            ocl_nap_ms_(); \
        return ocl_##name##_refcount(obj) == want; \
    }
OCL_DEFINE_SETTLES_(queue, cl_command_queue)
OCL_DEFINE_SETTLES_(context, cl_context)
OCL_DEFINE_SETTLES_(device, cl_device_id)
OCL_DEFINE_SETTLES_(mem, cl_mem)

static inline int ocl_device_has_extension(cl_device_id dev, const char *ext) {
    size_t size = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS) return 0;
    char *exts = (char *)calloc(size + 1, 1);
    if (!exts) return 0;
    int found = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, size, exts, NULL) == CL_SUCCESS) {
        size_t len = strlen(ext);
        for (const char *p = exts; (p = strstr(p, ext)) != NULL; p += len) {
            int starts = p == exts || p[-1] == ' ';
            int ends = p[len] == '\0' || p[len] == ' ';
            if (starts && ends) {
                found = 1;
                break;
            }
        }
    }
    free(exts);
    return found;
}

/* Builds `src` for `dev` on `ctx`; prints the build log and exits on failure. */
static inline cl_program ocl_program_build(cl_context ctx, cl_device_id dev, const char *src) {
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    OCL_CHECK(err);
    err = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        fprintf(stderr, "clBuildProgram failed (%d):\n%s\n", (int)err, log);
        exit(1);
    }
    return prog;
}

/* USM as the library sees it: Intel's cl_intel_unified_shared_memory where the device
 * has it, else coarse-grained buffer shared virtual memory (OpenCL 2.0, clSVMAlloc),
 * which is what a user on NVIDIA, PoCL or AMD passes as a USM pointer. With
 * DNNL_OCL_USM=svm in the environment the library uses SVM even where Intel's
 * extension exists, and so do these helpers. */
typedef enum {
    OCL_USM_NONE = 0,
    OCL_USM_INTEL, /* cl_intel_unified_shared_memory */
    OCL_USM_SVM, /* clSVMAlloc, coarse grain: the host maps it before touching it */
} ocl_usm_via_t;

/* How a device gives USM; the Intel entry points are NULL unless via == OCL_USM_INTEL. */
typedef struct {
    ocl_usm_via_t via;
    clHostMemAllocINTEL_fn host_alloc;
    clDeviceMemAllocINTEL_fn device_alloc;
    clSharedMemAllocINTEL_fn shared_alloc;
    clMemBlockingFreeINTEL_fn blocking_free;
    clGetMemAllocInfoINTEL_fn get_alloc_info;
    clSetKernelArgMemPointerINTEL_fn set_kernel_arg;
} ocl_usm_t;

/* Whether the device has coarse-grained buffer SVM (an OpenCL 2.0 or later device
 * reporting CL_DEVICE_SVM_COARSE_GRAIN_BUFFER). */
static inline int ocl_device_has_svm(cl_device_id dev) {
    char version[128] = "";
    if (clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof(version) - 1, version, NULL)
            != CL_SUCCESS)
        return 0;
    int major = 0, minor = 0;
    if (sscanf(version, "OpenCL %d.%d", &major, &minor) != 2 || major < 2) return 0;
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL)
            != CL_SUCCESS)
        return 0;
    return (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
}

/* Whether DNNL_OCL_USM=svm asks for SVM even where Intel's extension exists. */
static inline int ocl_usm_svm_forced(void) {
    const char *v = getenv("DNNL_OCL_USM");
    return v != NULL && strcmp(v, "svm") == 0;
}

/* Fills `usm` with the way the device gives USM (the library's choice: Intel's
 * extension first, unless DNNL_OCL_USM=svm, else SVM); returns 0 when it has none. */
static inline int ocl_usm_get(cl_device_id dev, ocl_usm_t *usm) {
    memset(usm, 0, sizeof(*usm));
    if (!ocl_usm_svm_forced() && ocl_device_has_extension(dev, "cl_intel_unified_shared_memory")) {
        cl_platform_id plat = ocl_platform_of(dev);
#define OCL_USM_ENTRY(field, type, name) \
    usm->field = (type)clGetExtensionFunctionAddressForPlatform(plat, name)
        OCL_USM_ENTRY(host_alloc, clHostMemAllocINTEL_fn, "clHostMemAllocINTEL");
        OCL_USM_ENTRY(device_alloc, clDeviceMemAllocINTEL_fn, "clDeviceMemAllocINTEL");
        OCL_USM_ENTRY(shared_alloc, clSharedMemAllocINTEL_fn, "clSharedMemAllocINTEL");
        OCL_USM_ENTRY(blocking_free, clMemBlockingFreeINTEL_fn, "clMemBlockingFreeINTEL");
        OCL_USM_ENTRY(get_alloc_info, clGetMemAllocInfoINTEL_fn, "clGetMemAllocInfoINTEL");
        OCL_USM_ENTRY(set_kernel_arg, clSetKernelArgMemPointerINTEL_fn,
                "clSetKernelArgMemPointerINTEL");
#undef OCL_USM_ENTRY
        if (usm->host_alloc && usm->device_alloc && usm->shared_alloc && usm->blocking_free
                && usm->get_alloc_info && usm->set_kernel_arg) {
            usm->via = OCL_USM_INTEL;
            return 1;
        }
        memset(usm, 0, sizeof(*usm));
    }
    if (ocl_device_has_svm(dev)) {
        usm->via = OCL_USM_SVM;
        return 1;
    }
    return 0;
}

/* What the device's USM is, for messages. */
static inline const char *ocl_usm_name(const ocl_usm_t *usm) {
    switch (usm->via) {
    case OCL_USM_INTEL: return "Intel USM (cl_intel_unified_shared_memory)";
    case OCL_USM_SVM: return "SVM (clSVMAlloc, coarse grain)";
    default: return "no USM";
    }
}

/* `size` bytes of USM, aligned to `alignment` (0: the driver's default): device USM
 * (`shared` 0) or shared USM (`shared` 1) through Intel's extension, an SVM
 * allocation either way through SVM. NULL when the runtime refuses. */
static inline void *ocl_usm_alloc(const ocl_usm_t *usm, cl_context ctx, cl_device_id dev,
        int shared, size_t size, cl_uint alignment) {
    cl_int err = CL_SUCCESS;
    void *p = NULL;
    if (usm->via == OCL_USM_INTEL)
        p = shared ? usm->shared_alloc(ctx, dev, NULL, size, alignment, &err)
                   : usm->device_alloc(ctx, dev, NULL, size, alignment, &err);
    else if (usm->via == OCL_USM_SVM)
        p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, size, alignment);
    return err == CL_SUCCESS ? p : NULL;
}

/* ocl_usm_alloc that must succeed. */
static inline void *ocl_usm_alloc_or_die(const ocl_usm_t *usm, cl_context ctx,
        cl_device_id dev, int shared, size_t size) {
    void *p = ocl_usm_alloc(usm, ctx, dev, shared, size, 0);
    if (!p) {
        fprintf(stderr, "%s: could not allocate %zu bytes\n", ocl_usm_name(usm), size);
        exit(1);
    }
    return p;
}

/* Frees what ocl_usm_alloc gave. Intel's free waits for commands using it; an SVM
 * free does not: the caller finishes those first. */
static inline void ocl_usm_free(const ocl_usm_t *usm, cl_context ctx, void *p) {
    if (usm->via == OCL_USM_INTEL)
        OCL_CHECK(usm->blocking_free(ctx, p));
    else if (usm->via == OCL_USM_SVM)
        clSVMFree(ctx, p);
}

/* Sets kernel argument `index` to the USM pointer `p`. */
static inline cl_int ocl_usm_set_arg(const ocl_usm_t *usm, cl_kernel k, cl_uint index,
        const void *p) {
    if (usm->via == OCL_USM_INTEL) return usm->set_kernel_arg(k, index, p);
    return clSetKernelArgSVMPointer(k, index, p);
}

/* Host access to `size` bytes of USM at `p` from ocl_usm_alloc(shared 1), between
 * ocl_usm_host_begin and ocl_usm_host_end: SVM is mapped (blocking, read and write) on
 * `q`, and unmapped then finished at the end; shared Intel USM needs nothing. */
static inline void ocl_usm_host_begin(const ocl_usm_t *usm, cl_command_queue q, void *p,
        size_t size) {
    if (usm->via == OCL_USM_SVM)
        OCL_CHECK(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, p, size, 0, NULL,
                NULL));
}

static inline void ocl_usm_host_end(const ocl_usm_t *usm, cl_command_queue q, void *p) {
    if (usm->via == OCL_USM_SVM) {
        OCL_CHECK(clEnqueueSVMUnmap(q, p, 0, NULL, NULL));
        OCL_CHECK(clFinish(q));
    }
}

/* A 1-D f32 memory descriptor of n elements (format tag `a`). */
static inline dnnl_memory_desc_t ocl_md_f32(dnnl_dim_t n) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {n};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    return md;
}

/* An engine on `dev` over a new context of its own: the caller gets the context too
 * (one reference, released by the caller after the engine is gone). */
static inline dnnl_engine_t ocl_engine_create(cl_device_id dev, cl_context *ctx_out) {
    cl_context ctx = ocl_context_create(dev);
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&engine, dev, ctx));
    EXPECT(engine != NULL);
    *ctx_out = ctx;
    return engine;
}

#endif /* DNNL_TESTS_C_OCL_UTIL_H */
