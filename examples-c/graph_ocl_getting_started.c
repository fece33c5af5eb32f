/* Getting started with the graph API on OpenCL, in C: two convolutions with bias
 * and ReLU and a residual Add (graph_example.h draws the graph), run on the
 * program's own OpenCL context and queue.
 *
 * The program
 *   1. makes an allocator from its own USM callbacks and an engine over its own
 *      context carrying it (dnnl_graph_ocl_interop_make_engine_with_allocator),
 *      and a stream over its own queue;
 *   2. builds the graph (weights and biases are constant), finalizes it, and
 *      compiles each supported partition for the engine (here two: conv0 + BiasAdd
 *      + ReLU, and conv1 + BiasAdd + ReLU + Add);
 *   3. copies the inputs into USM with non-blocking copies and executes
 *      after their events (dnnl_graph_ocl_interop_compiled_partition_execute with
 *      deps), chaining partitions through the returned events;
 *   4. copies the result back after the last event and checks it against a
 *      reference computed here.
 * The library takes its temporaries (and the prepared constant weights) from the
 * allocator; the free callback receives the event the memory waited for and
 * waits for it, as the header asks. Graph memory on OpenCL is USM: Intel's device
 * USM where the device has cl_intel_unified_shared_memory, else shared virtual memory
 * (OpenCL 2.0: clSVMAlloc, clEnqueueSVMMemcpy; NVIDIA, PoCL, AMD), as the library
 * chooses (DNNL_OCL_USM=svm makes both take SVM where Intel's extension exists too).
 * A device with neither makes the example say so and exit 77 (skipped); with no
 * OpenCL device it says so and exits 77 too. */
#include <math.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "ocl_example.h"
#include "graph_example.h"
#include "oneapi/dnnl/dnnl_graph.h"
#include "oneapi/dnnl/dnnl_graph_ocl.h"

/* The USM entry points: Intel's, looked up on the device's platform, or SVM. */
static clDeviceMemAllocINTEL_fn intel_alloc;
static clMemBlockingFreeINTEL_fn intel_free;
static clEnqueueMemcpyINTEL_fn intel_memcpy;
static int svm; /* 1: USM through SVM */
static int allocations, frees;

static void *my_malloc(size_t size, size_t alignment, cl_device_id dev, cl_context ctx) {
    void *p = NULL;
    if (svm) {
        p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, size, (cl_uint)alignment);
    } else {
        cl_int err = CL_SUCCESS;
        p = intel_alloc(ctx, dev, NULL, size, (cl_uint)alignment, &err);
        if (err != CL_SUCCESS) return NULL;
    }
    if (p) allocations++;
    return p;
}

static void my_free(void *buf, cl_device_id dev, cl_context ctx, cl_event event) {
    (void)dev;
    if (event) OCL(clWaitForEvents(1, &event)); /* already complete here */
    if (svm)
        clSVMFree(ctx, buf); /* nothing uses it once its event is complete */
    else
        OCL(intel_free(ctx, buf));
    frees++;
}

/* A copy of `size` bytes between host memory and USM, after `deps`. */
static void usm_copy(cl_command_queue q, cl_bool blocking, void *dst, const void *src,
        size_t size, cl_uint ndeps, const cl_event *deps, cl_event *done) {
    if (svm)
        OCL(clEnqueueSVMMemcpy(q, blocking, dst, src, size, ndeps, deps, done));
    else
        OCL(intel_memcpy(q, blocking, dst, src, size, ndeps, deps, done));
}

/* Whether the device has coarse-grained buffer SVM (an OpenCL 2.0 or later device). */
static int has_svm(cl_device_id dev) {
    char version[128] = "";
    clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof(version) - 1, version, NULL);
    int major = 0, minor = 0;
    if (sscanf(version, "OpenCL %d.%d", &major, &minor) != 2 || major < 2) return 0;
    cl_device_svm_capabilities caps = 0;
    clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL);
    return (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
}

/* Intel's USM first (unless DNNL_OCL_USM=svm), else SVM: the library's order. */
static int has_usm(cl_device_id dev) {
    char ext[8192] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext, NULL);
    const char *force = getenv("DNNL_OCL_USM");
    if (strstr(ext, "cl_intel_unified_shared_memory") && !(force && strcmp(force, "svm") == 0)) {
        cl_platform_id plat = NULL;
        OCL(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof(plat), &plat, NULL));
        intel_alloc = (clDeviceMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(
                plat, "clDeviceMemAllocINTEL");
        intel_free = (clMemBlockingFreeINTEL_fn)clGetExtensionFunctionAddressForPlatform(
                plat, "clMemBlockingFreeINTEL");
        intel_memcpy = (clEnqueueMemcpyINTEL_fn)clGetExtensionFunctionAddressForPlatform(
                plat, "clEnqueueMemcpyINTEL");
        if (intel_alloc && intel_free && intel_memcpy) return 1;
    }
    svm = has_svm(dev);
    return svm;
}

int main(void) {
    user_ocl_t u;
    if (!user_ocl_create(&u)) return 77;
    if (!has_usm(u.device)) {
        printf("SKIP: the device has neither cl_intel_unified_shared_memory nor shared "
               "virtual memory; the graph API on OpenCL works on USM memory\n");
        user_ocl_release(&u);
        return 77;
    }

    printf("USM: %s\n", svm ? "shared virtual memory (clSVMAlloc)"
                            : "Intel's device USM (clDeviceMemAllocINTEL)");

    /* 1. The allocator, the engine that carries (a copy of) it, the stream. */
    dnnl_graph_allocator_t alloc = NULL;
    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_graph_ocl_interop_allocator_create(&alloc, my_malloc, my_free));
    DNNL(dnnl_graph_ocl_interop_make_engine_with_allocator(
            &engine, u.device, u.context, alloc));
    DNNL(dnnl_graph_allocator_destroy(alloc));
    DNNL(dnnl_ocl_interop_stream_create(&stream, engine, u.queue));

    /* 2. The graph and its partitions. */
    dnnl_graph_logical_tensor_t lts[N_LT];
    example_tensors(lts);
    dnnl_graph_graph_t graph = example_graph(dnnl_gpu, lts);
    DNNL(dnnl_graph_graph_filter(graph, dnnl_graph_partition_policy_fusion));
    size_t nparts = 0;
    DNNL(dnnl_graph_graph_get_partition_num(graph, &nparts));
    if (nparts == 0) {
        printf("FAILED: no partitions\n");
        return 1;
    }
    dnnl_graph_partition_t *parts = calloc(nparts, sizeof(*parts));
    dnnl_graph_compiled_partition_t *cps = calloc(nparts, sizeof(*cps));
    DNNL(dnnl_graph_graph_get_partitions(graph, nparts, parts));
    printf("%zu partition(s)\n", nparts);

    /* The data: USM the program allocates itself. */
    float *host[N_LT];
    void *dev_mem[N_LT];
    size_t sizes[N_LT];
    for (int i = 0; i < N_LT; i++) {
        DNNL(dnnl_graph_logical_tensor_get_mem_size(&lts[i], &sizes[i]));
        host[i] = calloc(1, sizes[i]);
        dev_mem[i] = my_malloc(sizes[i], 64, u.device, u.context);
        if (!host[i] || !dev_mem[i]) return 1;
    }
    example_inputs(host, sizes);

    /* 3. Non-blocking copies in (the inputs: src, weights, biases); the first
     * partition runs after their events. */
    const int inputs[5] = {0, 1, 2, 6, 8};
    cl_event copies[5];
    for (int i = 0; i < 5; i++)
        usm_copy(u.queue, CL_FALSE, dev_mem[inputs[i]], host[inputs[i]], sizes[inputs[i]], 0,
                NULL, &copies[i]);
    cl_event *deps = copies;
    int ndeps = 5;
    cl_event last = NULL;
    for (size_t p = 0; p < nparts; p++) {
        uint8_t supported = 0;
        DNNL(dnnl_graph_partition_is_supported(parts[p], &supported));
        if (!supported) {
            printf("partition %zu is not supported: skipped\n", p);
            continue;
        }
        size_t nin = 0, nout = 0;
        DNNL(dnnl_graph_partition_get_input_ports_num(parts[p], &nin));
        DNNL(dnnl_graph_partition_get_output_ports_num(parts[p], &nout));
        dnnl_graph_logical_tensor_t *ins = calloc(nin, sizeof(*ins));
        dnnl_graph_logical_tensor_t *outs = calloc(nout, sizeof(*outs));
        const dnnl_graph_logical_tensor_t **in_ptrs = calloc(nin, sizeof(*in_ptrs));
        const dnnl_graph_logical_tensor_t **out_ptrs = calloc(nout, sizeof(*out_ptrs));
        DNNL(dnnl_graph_partition_get_input_ports(parts[p], nin, ins));
        DNNL(dnnl_graph_partition_get_output_ports(parts[p], nout, outs));
        for (size_t i = 0; i < nin; i++)
            in_ptrs[i] = &ins[i];
        for (size_t i = 0; i < nout; i++)
            out_ptrs[i] = &outs[i];
        DNNL(dnnl_graph_compiled_partition_create(&cps[p], parts[p]));
        DNNL(dnnl_graph_partition_compile(
                parts[p], cps[p], nin, in_ptrs, nout, out_ptrs, engine));

        dnnl_graph_tensor_t *tin = calloc(nin, sizeof(*tin)), *tout = calloc(nout, sizeof(*tout));
        for (size_t i = 0; i < nin; i++)
            DNNL(dnnl_graph_tensor_create(&tin[i], &ins[i], engine, dev_mem[ins[i].id]));
        for (size_t i = 0; i < nout; i++)
            DNNL(dnnl_graph_tensor_create(&tout[i], &outs[i], engine, dev_mem[outs[i].id]));
        cl_event done = NULL;
        DNNL(dnnl_graph_ocl_interop_compiled_partition_execute(cps[p], stream, nin,
                (const_dnnl_graph_tensor_t *)tin, nout, (const_dnnl_graph_tensor_t *)tout,
                deps, ndeps, &done));
        /* The returned event is ours (NULL on an in-order queue, where the queue's
         * order already makes the next command wait). */
        if (last) OCL(clReleaseEvent(last));
        last = done;
        deps = last ? &last : NULL;
        ndeps = last ? 1 : 0;
        for (size_t i = 0; i < nin; i++)
            DNNL(dnnl_graph_tensor_destroy(tin[i]));
        for (size_t i = 0; i < nout; i++)
            DNNL(dnnl_graph_tensor_destroy(tout[i]));
        free(tin);
        free(tout);
        free(ins);
        free(outs);
        free(in_ptrs);
        free(out_ptrs);
    }
    for (int i = 0; i < 5; i++)
        OCL(clReleaseEvent(copies[i]));

    /* 4. The result, after the last execution. */
    usm_copy(u.queue, CL_TRUE, host[11], dev_mem[11], sizes[11], last ? 1 : 0,
            last ? &last : NULL, NULL);
    if (last) OCL(clReleaseEvent(last));
    double worst = example_check(host);
    printf("max |dst - reference| = %.3g\n", worst);

    for (size_t p = 0; p < nparts; p++) {
        if (cps[p]) DNNL(dnnl_graph_compiled_partition_destroy(cps[p]));
        DNNL(dnnl_graph_partition_destroy(parts[p]));
    }
    free(cps);
    free(parts);
    DNNL(dnnl_graph_graph_destroy(graph));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    OCL(clFinish(u.queue));
    for (int i = 0; i < N_LT; i++) {
        my_free(dev_mem[i], u.device, u.context, NULL);
        free(host[i]);
    }
    printf("allocator calls: %d allocations, %d frees so far (the library's own: %d)\n",
            allocations, frees, allocations - N_LT);
    user_ocl_release(&u);
    if (nparts != 2 || !(worst <= 1e-4)) {
        printf("FAILED\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
