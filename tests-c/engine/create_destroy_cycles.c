/* Create-use-destroy cycles leave nothing behind (issue 18): each cycle makes an
 * engine, a stream, memories, a ReLU primitive descriptor and primitive, runs it,
 * checks the result and destroys everything.
 *
 *   create_destroy_cycles cpu   2000 cycles on the CPU engine with a 64 KiB memory;
 *                               the resident size may not grow by more than 4 MiB
 *                               after a warm-up (a leaked memory alone would be 125 MiB)
 *   create_destroy_cycles gpu   30 cycles on the first OpenCL device, the engine and one
 *                               stream made over the test's own cl_context and
 *                               cl_command_queue and one memory over a cl_mem: after
 *                               every cycle their reference counts are back to where
 *                               they were before the first (the queue and buffer hold
 *                               the context on some runtimes), so the library released
 *                               every OpenCL object it made (each program, kernel,
 *                               buffer, queue and event holds the context where the
 *                               runtime counts it). The resident size is printed, not
 *                               judged:
 *                               Intel's CPU runtime keeps about 1.5 KiB per program
 *                               built in a fresh context and released, in plain OpenCL
 *                               without this library too (see the issue 18 report). */
#include <string.h>

#include "interop/ocl/ocl_util.h"

enum { N = 16384 }; /* floats: 64 KiB */

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    fclose(f);
    return kb;
}

static void fill(dnnl_memory_t m) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = (float)(i % 7) - 3.0f;
    CHECK(dnnl_memory_unmap_data(m, p));
}

static void expect_relu(dnnl_memory_t m) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    for (int i = 0; i < N; i++) {
        float x = (float)(i % 7) - 3.0f;
        EXPECT(p[i] == (x > 0 ? x : 0.0f));
    }
    CHECK(dnnl_memory_unmap_data(m, p));
}

/* One cycle on `engine` (destroyed here). `user_queue` / `user_mem`: the test's
 * OpenCL objects to wrap, or NULL. */
static void cycle(dnnl_engine_t engine, cl_command_queue user_queue, cl_mem user_mem) {
    dnnl_stream_t stream = NULL, wrapped = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    if (user_queue) CHECK(dnnl_ocl_interop_stream_create(&wrapped, engine, user_queue));
    dnnl_memory_desc_t md = NULL;
    const dnnl_dim_t dims[] = {N};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_memory_create(&src, md, engine, DNNL_MEMORY_ALLOCATE));
    if (user_mem)
        CHECK(dnnl_ocl_interop_memory_create(&dst, md, engine, dnnl_ocl_interop_buffer, user_mem));
    else
        CHECK(dnnl_memory_create(&dst, md, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_relu, md, md, 0.0f, 0.0f, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    fill(src);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    CHECK(dnnl_primitive_execute(prim, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    expect_relu(dst);
    if (wrapped) {
        CHECK(dnnl_primitive_execute(prim, wrapped, 2, args));
        CHECK(dnnl_stream_wait(wrapped));
        expect_relu(dst);
        CHECK(dnnl_stream_destroy(wrapped));
    }
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
}

static void on_cpu(void) {
    const int warmup = 100, cycles = 2000;
    long before = 0;
    for (int i = 0; i < warmup + cycles; i++) {
        if (i == warmup) before = rss_kb();
        dnnl_engine_t e = NULL;
        CHECK(dnnl_engine_create(&e, dnnl_cpu, 0));
        cycle(e, NULL, NULL);
    }
    long after = rss_kb();
    printf("cpu: %d cycles: resident %ld -> %ld KiB\n", cycles, before, after);
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer keeps freed memory in its quarantine: the resident size says
     * nothing there, and LeakSanitizer checks for leaks at exit instead. */
    printf("cpu: resident size not bounded under AddressSanitizer (LeakSanitizer checks)\n");
#else
    EXPECT(after - before < 4096);
#endif
}

static void on_gpu(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = ocl_context_create(dev);
    cl_command_queue q = ocl_queue_create(ctx, dev, 0);
    const int cycles = 30;
    const cl_uint ctx_refs = ocl_context_refcount(ctx);
    long before = rss_kb();
    for (int i = 0; i < cycles; i++) {
        /* A fresh buffer per cycle: PoCL keeps a context reference for a buffer's
         * last command until the buffer is released. */
        cl_int err = CL_SUCCESS;
        cl_mem mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
        OCL_CHECK(err);
        dnnl_engine_t e = NULL;
        CHECK(dnnl_ocl_interop_engine_create(&e, dev, ctx));
        EXPECT(ocl_context_refcount(ctx) > ctx_refs);
        cycle(e, q, mem);
        int mem_ok = ocl_mem_refcount_settles(mem, 1);
        OCL_CHECK(clReleaseMemObject(mem));
        if (!mem_ok || !ocl_context_refcount_settles(ctx, ctx_refs)
                || !ocl_queue_refcount_settles(q, 1)) {
            fprintf(stderr,
                    "cycle %d: reference counts context %u (want %u), queue %u (want 1), "
                    "buffer back to 1: %s\n",
                    i, ocl_context_refcount(ctx), ctx_refs, ocl_queue_refcount(q),
                    mem_ok ? "yes" : "no");
            exit(1);
        }
    }
    printf("gpu: %d cycles: OpenCL reference counts back after each (context %u); resident %ld "
           "-> %ld KiB (not judged)\n",
            cycles, ctx_refs, before, rss_kb());
    OCL_CHECK(clReleaseCommandQueue(q));
    OCL_CHECK(clReleaseContext(ctx));
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "gpu") == 0)
        on_gpu();
    else
        on_cpu();
    return 0;
}
