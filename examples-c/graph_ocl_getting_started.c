/* Getting started with the graph API on OpenCL, in C: dst = relu(src x weights + bias)
 * as a graph, run on the program's own OpenCL context and queue.
 *
 * The program
 *   1. makes an allocator from its own USM callbacks and an engine over its own
 *      context carrying it (dnnl_graph_ocl_interop_make_engine_with_allocator),
 *      and a stream over its own queue;
 *   2. builds a graph of three ops (MatMul, BiasAdd, ReLU; weights and bias are
 *      constant), finalizes it, and compiles each partition for the engine;
 *   3. copies the inputs into device USM with non-blocking copies and executes
 *      after their events (dnnl_graph_ocl_interop_compiled_partition_execute with
 *      deps), chaining partitions through the returned events;
 *   4. copies the result back after the last event and checks it against a
 *      reference computed here.
 * The library takes its temporaries (and the prepared constant weights) from the
 * allocator; the free callback receives the event the memory waited for and
 * waits for it, as the header asks. Graph memory on OpenCL is USM
 * (cl_intel_unified_shared_memory): without it the example says so and exits 77
 * (skipped); with no OpenCL device it says so and exits 77 too. */
#include <math.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "ocl_example.h"
#include "oneapi/dnnl/dnnl_graph.h"
#include "oneapi/dnnl/dnnl_graph_ocl.h"

#define M 16
#define K 64
#define N 32

/* The USM entry points, looked up on the device's platform. */
static clDeviceMemAllocINTEL_fn usm_alloc;
static clMemBlockingFreeINTEL_fn usm_free;
static clEnqueueMemcpyINTEL_fn usm_memcpy;
static int allocations, frees;

static void *my_malloc(size_t size, size_t alignment, cl_device_id dev, cl_context ctx) {
    cl_int err = CL_SUCCESS;
    void *p = usm_alloc(ctx, dev, NULL, size, (cl_uint)alignment, &err);
    if (err != CL_SUCCESS) return NULL;
    allocations++;
    return p;
}

static void my_free(void *buf, cl_device_id dev, cl_context ctx, cl_event event) {
    (void)dev;
    if (event) OCL(clWaitForEvents(1, &event)); /* already complete here */
    OCL(usm_free(ctx, buf));
    frees++;
}

static int has_usm(cl_device_id dev) {
    char ext[8192] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext, NULL);
    if (!strstr(ext, "cl_intel_unified_shared_memory")) return 0;
    cl_platform_id plat = NULL;
    OCL(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof(plat), &plat, NULL));
    usm_alloc = (clDeviceMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(
            plat, "clDeviceMemAllocINTEL");
    usm_free = (clMemBlockingFreeINTEL_fn)clGetExtensionFunctionAddressForPlatform(
            plat, "clMemBlockingFreeINTEL");
    usm_memcpy = (clEnqueueMemcpyINTEL_fn)clGetExtensionFunctionAddressForPlatform(
            plat, "clEnqueueMemcpyINTEL");
    return usm_alloc && usm_free && usm_memcpy;
}

static dnnl_graph_logical_tensor_t lt2(size_t id, int64_t d0, int64_t d1, int constant) {
    dnnl_graph_logical_tensor_t lt;
    dnnl_dims_t dims = {d0, d1};
    DNNL(dnnl_graph_logical_tensor_init_with_dims(&lt, id, dnnl_f32, d1 ? 2 : 1, dims,
            dnnl_graph_layout_type_strided,
            constant ? dnnl_graph_tensor_property_constant
                     : dnnl_graph_tensor_property_variable));
    return lt;
}

static void add_op(dnnl_graph_graph_t g, size_t id, dnnl_graph_op_kind_t kind,
        const dnnl_graph_logical_tensor_t *in0, const dnnl_graph_logical_tensor_t *in1,
        const dnnl_graph_logical_tensor_t *out) {
    dnnl_graph_op_t op = NULL;
    DNNL(dnnl_graph_op_create(&op, id, kind, "op"));
    DNNL(dnnl_graph_op_add_input(op, in0));
    if (in1) DNNL(dnnl_graph_op_add_input(op, in1));
    DNNL(dnnl_graph_op_add_output(op, out));
    DNNL(dnnl_graph_add_op(g, op));
    DNNL(dnnl_graph_op_destroy(op));
}

int main(void) {
    user_ocl_t u;
    if (!user_ocl_create(&u)) return 77;
    if (!has_usm(u.device)) {
        printf("SKIP: the device has no cl_intel_unified_shared_memory; the graph API "
               "on OpenCL works on USM memory\n");
        user_ocl_release(&u);
        return 77;
    }

    /* 1. The allocator, the engine that carries (a copy of) it, the stream. */
    dnnl_graph_allocator_t alloc = NULL;
    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_graph_ocl_interop_allocator_create(&alloc, my_malloc, my_free));
    DNNL(dnnl_graph_ocl_interop_make_engine_with_allocator(
            &engine, u.device, u.context, alloc));
    DNNL(dnnl_graph_allocator_destroy(alloc));
    DNNL(dnnl_ocl_interop_stream_create(&stream, engine, u.queue));

    /* 2. The graph: ids 0 src, 1 weights, 2 bias, 3 matmul, 4 biasadd, 5 dst. */
    dnnl_graph_logical_tensor_t lts[6] = {lt2(0, M, K, 0), lt2(1, K, N, 1), lt2(2, N, 0, 1),
            lt2(3, M, N, 0), lt2(4, M, N, 0), lt2(5, M, N, 0)};
    dnnl_graph_graph_t graph = NULL;
    DNNL(dnnl_graph_graph_create(&graph, dnnl_gpu));
    add_op(graph, 0, dnnl_graph_op_matmul, &lts[0], &lts[1], &lts[3]);
    add_op(graph, 1, dnnl_graph_op_bias_add, &lts[3], &lts[2], &lts[4]);
    add_op(graph, 2, dnnl_graph_op_relu, &lts[4], NULL, &lts[5]);
    DNNL(dnnl_graph_graph_finalize(graph));
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

    /* The data: device USM the program allocates itself. */
    float *host[6];
    void *dev_mem[6];
    for (int i = 0; i < 6; i++) {
        size_t size = 0;
        DNNL(dnnl_graph_logical_tensor_get_mem_size(&lts[i], &size));
        host[i] = malloc(size);
        dev_mem[i] = my_malloc(size, 64, u.device, u.context);
        if (!host[i] || !dev_mem[i]) return 1;
    }
    for (int i = 0; i < M * K; i++)
        host[0][i] = (float)((i * 7) % 13) / 6.f - 1.f;
    for (int i = 0; i < K * N; i++)
        host[1][i] = (float)((i * 5) % 11) / 10.f - 0.5f;
    for (int j = 0; j < N; j++)
        host[2][j] = (float)j / N - 0.5f;

    /* 3. Non-blocking copies in; the first partition runs after their events. */
    cl_event copies[3];
    const size_t in_sizes[3] = {M * K * sizeof(float), K * N * sizeof(float), N * sizeof(float)};
    for (int i = 0; i < 3; i++)
        OCL(usm_memcpy(u.queue, CL_FALSE, dev_mem[i], host[i], in_sizes[i], 0, NULL,
                &copies[i]));
    cl_event *deps = copies;
    int ndeps = 3;
    cl_event last = NULL;
    for (size_t p = 0; p < nparts; p++) {
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
    for (int i = 0; i < 3; i++)
        OCL(clReleaseEvent(copies[i]));

    /* 4. The result, after the last execution. */
    OCL(usm_memcpy(u.queue, CL_TRUE, host[5], dev_mem[5], M * N * sizeof(float), last ? 1 : 0,
            last ? &last : NULL, NULL));
    if (last) OCL(clReleaseEvent(last));
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = host[2][j];
            for (int k = 0; k < K; k++)
                s += (double)host[0][i * K + k] * host[1][k * N + j];
            double d = fabs(host[5][i * N + j] - (s > 0 ? s : 0));
            if (!(d <= worst)) worst = d;
        }
    printf("max |dst - reference| = %.3g\n", worst);

    for (size_t p = 0; p < nparts; p++) {
        DNNL(dnnl_graph_compiled_partition_destroy(cps[p]));
        DNNL(dnnl_graph_partition_destroy(parts[p]));
    }
    free(cps);
    free(parts);
    DNNL(dnnl_graph_graph_destroy(graph));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    OCL(clFinish(u.queue));
    for (int i = 0; i < 6; i++) {
        my_free(dev_mem[i], u.device, u.context, NULL);
        free(host[i]);
    }
    printf("allocator calls: %d allocations, %d frees so far (the library's own: %d)\n",
            allocations, frees, allocations - 6);
    user_ocl_release(&u);
    if (worst > 1e-3) {
        printf("FAILED\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
