/* OpenCL interoperability, in C: the walk-through of oneDNN's "OpenCL
 * Interoperability" guide with the C API of dnnl_ocl.h.
 *
 * A program that already uses OpenCL owns a device, a context and a queue. It hands
 * them to the library, which retains them while its objects live and gives them back
 * untouched:
 *   1. an engine from the user's device and context  (dnnl_ocl_interop_engine_create)
 *   2. a stream from the user's command queue         (dnnl_ocl_interop_stream_create)
 *   3. memory over a user buffer (cl_mem), and memory the library allocates, whose
 *      cl_mem the user's kernel then uses             (dnnl_ocl_interop_memory_create,
 *                                                       _get_mem_object)
 *   4. a user kernel, built on the user's context, run on the user's queue, reading one
 *      memory and writing the other; the result read back through dnnl_memory_map_data
 *   5. USM: a user USM pointer wrapped as memory (the library never frees it), written
 *      by a user kernel. The pointer is Intel's shared USM where the device has
 *      cl_intel_unified_shared_memory, else shared virtual memory from clSVMAlloc
 *      (OpenCL 2.0: PoCL, NVIDIA, AMD), which the user's kernel takes through
 *      clSetKernelArgSVMPointer
 *   6. clean-up: every OpenCL reference count is back where it started.
 *
 * The device is the library's default: the one dnnl_engine_create(dnnl_gpu, 0) uses
 * (GPU-type OpenCL devices first, then accelerators, then CPU-type devices). With no
 * OpenCL device the program says so and exits 77 (skipped). */
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"
#include "oneapi/dnnl/dnnl_ocl.h"

#define N 1024

/* Stops the example on a failed library call. */
#define DNNL(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    dnnl_status2str(s_)); \
            exit(1); \
        } \
    } while (0)

/* Stops the example on a failed OpenCL call. */
#define OCL(call) \
    do { \
        cl_int e_ = (call); \
        if (e_ != CL_SUCCESS) { \
            fprintf(stderr, "%s:%d: %s failed: OpenCL error %d\n", __FILE__, __LINE__, \
                    #call, (int)e_); \
            exit(1); \
        } \
    } while (0)

static const char *kernel_source
        = "__kernel void axpb(__global const float *x, __global float *y, float a, float b) {\n"
          "    size_t i = get_global_id(0);\n"
          "    y[i] = a * x[i] + b;\n"
          "}\n";

static cl_uint context_refs(cl_context ctx) {
    cl_uint n = 0;
    OCL(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, NULL));
    return n;
}

static cl_uint queue_refs(cl_command_queue q) {
    cl_uint n = 0;
    OCL(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(n), &n, NULL));
    return n;
}

static cl_uint mem_refs(cl_mem m) {
    cl_uint n = 0;
    OCL(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(n), &n, NULL));
    return n;
}

/* Waits up to a second for the context's reference count to come back to `expected`
 * and returns the count and the milliseconds waited. A runtime may give a released
 * queue back later than clReleaseCommandQueue returns: PoCL's finished commands keep
 * their events, and each event its queue (and the queue its context), until PoCL's
 * driver thread frees them, shortly after clFinish has already returned. Nothing of
 * the library's runs in that time. */
static cl_uint settled_context_refs(cl_context ctx, cl_uint expected, int *waited_ms) {
    cl_uint n = context_refs(ctx);
    for (*waited_ms = 0; n != expected && *waited_ms < 1000; ++*waited_ms) {
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        n = context_refs(ctx);
    }
    return n;
}

/* Runs y = a * x + b over N elements on the queue and waits for it. `x` and `y` are
 * set by the caller (cl_mem or USM pointers). */
static void run_axpb(cl_command_queue queue, cl_kernel kernel, float a, float b) {
    OCL(clSetKernelArg(kernel, 2, sizeof(float), &a));
    OCL(clSetKernelArg(kernel, 3, sizeof(float), &b));
    size_t global = N;
    OCL(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    OCL(clFinish(queue));
}

/* Maps `mem` and checks that element i is a * i + b. */
static int check_axpb(dnnl_memory_t mem, float a, float b, const char *what) {
    float *y = NULL;
    DNNL(dnnl_memory_map_data(mem, (void **)&y));
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (y[i] != a * (float)i + b) {
            fprintf(stderr, "%s: element %d is %g, expected %g\n", what, i, y[i],
                    a * (float)i + b);
            bad = 1;
            break;
        }
    DNNL(dnnl_memory_unmap_data(mem, y));
    if (!bad) printf("   %s: %d results checked (y[%d] = %g)\n", what, N, N - 1, a * (N - 1) + b);
    return bad;
}

/* Whether the device has coarse-grained buffer shared virtual memory (OpenCL 2.0). */
static int has_svm(cl_device_id device) {
    char version[128] = "";
    clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof(version) - 1, version, NULL);
    int major = 0, minor = 0;
    if (sscanf(version, "OpenCL %d.%d", &major, &minor) != 2 || major < 2) return 0;
    cl_device_svm_capabilities caps = 0;
    clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL);
    return (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
}

/* Step 5: USM. Intel's shared USM where the device has cl_intel_unified_shared_memory
 * (as the library, unless DNNL_OCL_USM=svm asks for SVM), else a clSVMAlloc pointer. */
static int usm_step(cl_device_id device, cl_context context, cl_command_queue queue,
        cl_kernel kernel, dnnl_engine_t engine, const_dnnl_memory_desc_t md, cl_mem x) {
    cl_platform_id platform = NULL;
    OCL(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, NULL));
    char extensions[8192] = "";
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof(extensions) - 1, extensions, NULL);
    const char *force = getenv("DNNL_OCL_USM");
    clSharedMemAllocINTEL_fn shared_alloc = NULL;
    clMemBlockingFreeINTEL_fn blocking_free = NULL;
    clSetKernelArgMemPointerINTEL_fn set_arg_ptr = NULL;
    if (strstr(extensions, "cl_intel_unified_shared_memory")
            && !(force && strcmp(force, "svm") == 0)) {
        shared_alloc = (clSharedMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(
                platform, "clSharedMemAllocINTEL");
        blocking_free = (clMemBlockingFreeINTEL_fn)clGetExtensionFunctionAddressForPlatform(
                platform, "clMemBlockingFreeINTEL");
        set_arg_ptr = (clSetKernelArgMemPointerINTEL_fn)
                clGetExtensionFunctionAddressForPlatform(platform, "clSetKernelArgMemPointerINTEL");
    }
    const int intel = shared_alloc && blocking_free && set_arg_ptr;
    if (!intel && !has_svm(device)) {
        printf("5. USM: skipped, this device has neither cl_intel_unified_shared_memory nor "
               "shared virtual memory (buffers only)\n");
        return 0;
    }
    const char *what = intel ? "shared USM" : "clSVMAlloc";

    cl_int err = CL_SUCCESS;
    float *y = intel ? (float *)shared_alloc(context, device, NULL, N * sizeof(float), 0, &err)
                     : (float *)clSVMAlloc(context, CL_MEM_READ_WRITE, N * sizeof(float), 0);
    OCL(err);
    if (!y) {
        fprintf(stderr, "could not allocate %s\n", what);
        return 1;
    }
    dnnl_memory_t usm_mem = NULL;
    DNNL(dnnl_ocl_interop_memory_create(&usm_mem, md, engine, dnnl_ocl_interop_usm, y));
    dnnl_ocl_interop_memory_kind_t kind = dnnl_ocl_interop_buffer;
    DNNL(dnnl_ocl_interop_memory_get_memory_kind(usm_mem, &kind));
    void *handle = NULL;
    DNNL(dnnl_memory_get_data_handle(usm_mem, &handle));
    printf("5. USM: a user %s pointer wrapped as memory (kind %s, data handle %s "
           "the pointer)\n",
            what, kind == dnnl_ocl_interop_usm ? "usm" : "buffer",
            handle == (void *)y ? "is" : "is NOT");
    if (kind != dnnl_ocl_interop_usm || handle != (void *)y) return 1;

    /* y = 3 * x - 1, written through the USM pointer by the user's kernel. */
    OCL(clSetKernelArg(kernel, 0, sizeof(cl_mem), &x));
    if (intel)
        OCL(set_arg_ptr(kernel, 1, y));
    else
        OCL(clSetKernelArgSVMPointer(kernel, 1, y));
    run_axpb(queue, kernel, 3.f, -1.f);
    /* dnnl_memory_map_data maps SVM for the host (clEnqueueSVMMap) and unmaps it. */
    int bad = check_axpb(usm_mem, 3.f, -1.f, "USM memory after the user kernel");

    /* The library does not own user USM: the user frees it after the memory is gone. */
    DNNL(dnnl_memory_destroy(usm_mem));
    if (intel)
        OCL(blocking_free(context, y));
    else
        clSVMFree(context, y); /* nothing uses it any more: run_axpb finished the queue */
    printf("   memory destroyed, then the user freed the USM pointer\n");
    return bad;
}

int main(void) {
    /* The default device: the library's engine 0. */
    if (dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: No OpenCL device is visible, so there is nothing to show: this example "
               "needs one (for instance PoCL, or Intel's CPU runtime: "
               "OCL_ICD_VENDORS=.venv/icd/all).\n");
        return 77;
    }
    cl_device_id device = NULL;
    {
        dnnl_engine_t probe = NULL;
        DNNL(dnnl_engine_create(&probe, dnnl_gpu, 0));
        DNNL(dnnl_ocl_interop_get_device(probe, &device));
        DNNL(dnnl_engine_destroy(probe));
    }
    char name[256] = "", platform_name[256] = "";
    cl_platform_id platform = NULL;
    OCL(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL));
    OCL(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, NULL));
    OCL(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(platform_name) - 1, platform_name,
            NULL));
    printf("Device: %s (platform: %s)\n", name, platform_name);

    /* The user's own OpenCL objects. */
    cl_int err = CL_SUCCESS;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    OCL(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    OCL(err);
    /* Some runtimes count their own references too (PoCL: one per queue, buffer,
     * program): what matters is that the library gives back every reference it takes. */
    const cl_uint ctx_refs0 = context_refs(context);

    /* 1. Engine. */
    dnnl_engine_t engine = NULL;
    DNNL(dnnl_ocl_interop_engine_create(&engine, device, context));
    cl_context engine_context = NULL;
    DNNL(dnnl_ocl_interop_engine_get_context(engine, &engine_context));
    printf("1. engine from the user's device and context: the engine's context %s the user's; "
           "context references: %u before, %u with the engine\n",
            engine_context == context ? "is" : "is NOT", ctx_refs0, context_refs(context));

    /* 2. Stream. */
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_ocl_interop_stream_create(&stream, engine, queue));
    cl_command_queue stream_queue = NULL;
    DNNL(dnnl_ocl_interop_stream_get_command_queue(stream, &stream_queue));
    printf("2. stream from the user's queue: the stream's queue %s the user's; queue "
           "references: %u\n",
            stream_queue == queue ? "is" : "is NOT", queue_refs(queue));

    /* 3. Memory: x over a user buffer, y allocated by the library. */
    float host[N];
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    cl_mem x_buf = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            sizeof(host), host, &err);
    OCL(err);
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {N};
    DNNL(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    dnnl_memory_t x = NULL, y = NULL;
    DNNL(dnnl_ocl_interop_memory_create(&x, md, engine, dnnl_ocl_interop_buffer, x_buf));
    DNNL(dnnl_memory_create(&y, md, engine, DNNL_MEMORY_ALLOCATE));
    cl_mem y_buf = NULL;
    DNNL(dnnl_ocl_interop_memory_get_mem_object(y, &y_buf));
    dnnl_ocl_interop_memory_kind_t y_kind = dnnl_ocl_interop_usm;
    DNNL(dnnl_ocl_interop_memory_get_memory_kind(y, &y_kind));
    printf("3. memory x over the user's cl_mem (buffer references: %u); memory y allocated "
           "by the library (kind %s, its cl_mem given to the user)\n",
            mem_refs(x_buf), y_kind == dnnl_ocl_interop_buffer ? "buffer" : "usm");

    /* 4. The user's kernel: y = 2 * x + 1, on the user's queue; read back with map. */
    cl_program program = clCreateProgramWithSource(context, 1, &kernel_source, NULL, &err);
    OCL(err);
    OCL(clBuildProgram(program, 1, &device, "", NULL, NULL));
    cl_kernel kernel = clCreateKernel(program, "axpb", &err);
    OCL(err);
    OCL(clSetKernelArg(kernel, 0, sizeof(cl_mem), &x_buf));
    OCL(clSetKernelArg(kernel, 1, sizeof(cl_mem), &y_buf));
    run_axpb(queue, kernel, 2.f, 1.f);
    DNNL(dnnl_stream_wait(stream));
    printf("4. the user's kernel y = 2 * x + 1 ran on the user's queue\n");
    int bad = check_axpb(y, 2.f, 1.f, "library memory y after the user kernel");

    /* 5. USM. */
    bad |= usm_step(device, context, queue, kernel, engine, md, x_buf);

    /* 6. Clean-up: the library gives every reference back. */
    OCL(clReleaseKernel(kernel));
    OCL(clReleaseProgram(program));
    DNNL(dnnl_memory_destroy(x));
    DNNL(dnnl_memory_destroy(y));
    DNNL(dnnl_memory_desc_destroy(md));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    const cl_uint x_refs = mem_refs(x_buf);
    OCL(clReleaseMemObject(x_buf));
    int waited_ms = 0;
    const cl_uint ctx_refs = settled_context_refs(context, ctx_refs0, &waited_ms);
    const cl_uint q_refs = queue_refs(queue);
    printf("6. oneDNN objects destroyed: references of the buffer %u (expected 1), the queue "
           "%u (expected 1), the context %u (expected %u, as before the engine)\n",
            x_refs, q_refs, ctx_refs, ctx_refs0);
    if (waited_ms > 0)
        printf("   the runtime gave the engine's last queue reference back %d ms after "
               "dnnl_engine_destroy returned\n",
                waited_ms);
    bad |= ctx_refs != ctx_refs0 || q_refs != 1 || x_refs != 1;
    OCL(clReleaseCommandQueue(queue));
    OCL(clReleaseContext(context));

    printf(bad ? "FAILED\n" : "OK\n");
    return bad;
}
