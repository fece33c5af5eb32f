/* Memory over a user cl_mem (notes 2.1, 2.4):
 * - dnnl_ocl_interop_memory_create(buffer, cl_mem) and dnnl_memory_create(cl_mem as the
 *   handle) retain it (CL_MEM_REFERENCE_COUNT 1 -> 2) and release it on destroy (-> 1);
 * - dnnl_ocl_interop_memory_get_mem_object returns it without retaining;
 * - map shows the buffer's contents, unmap writes changes back;
 * - dnnl_ocl_interop_memory_set_mem_object retains the new buffer and releases the old
 *   one, as do the v1 dnnl_memory_set_ocl_mem_object / dnnl_memory_get_ocl_mem_object. */
#include "ocl_util.h"

#define N 256

static cl_mem user_buffer(cl_context ctx, cl_command_queue q, float base) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    OCL_CHECK(err);
    float host[N];
    for (int i = 0; i < N; i++)
        host[i] = base + (float)i;
    OCL_CHECK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof(host), host, 0, NULL, NULL));
    return m;
}

static cl_mem mem_object(dnnl_memory_t mem) {
    cl_mem m = (cl_mem)&m;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &m));
    return m;
}

static void expect_contents(dnnl_memory_t mem, float base) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < N; i++)
        if (p[i] != base + (float)i) {
            fprintf(stderr, "mapped[%d] = %g, expected %g\n", i, p[i], base + (float)i);
            exit(1);
        }
    CHECK(dnnl_memory_unmap_data(mem, p));
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    cl_command_queue q = ocl_queue_create(ctx, dev, 0);
    dnnl_memory_desc_t md = ocl_md_f32(N);

    cl_mem m1 = user_buffer(ctx, q, 0.f);
    cl_mem m2 = user_buffer(ctx, q, 1000.f);
    EXPECT(ocl_mem_refcount_settles(m1, 1));

    dnnl_memory_t mem = NULL;
    CHECK(dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_buffer, m1));
    EXPECT(ocl_mem_refcount_settles(m1, 2));
    EXPECT(mem_object(mem) == m1);
    EXPECT(ocl_mem_refcount_settles(m1, 2));
    void *handle = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &handle));
    EXPECT(handle == (void *)m1);
    dnnl_ocl_interop_memory_kind_t kind = dnnl_ocl_interop_usm;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_buffer);

    /* Map shows the user's data; unmap writes changes back into the user's buffer. */
    expect_contents(mem, 0.f);
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    p[3] = -1.f;
    CHECK(dnnl_memory_unmap_data(mem, p));
    float back[N];
    OCL_CHECK(clEnqueueReadBuffer(q, m1, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL));
    EXPECT(back[3] == -1.f && back[4] == 4.f);
    back[3] = 3.f;
    OCL_CHECK(clEnqueueWriteBuffer(q, m1, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL));

    /* set_mem_object: the new buffer is retained, the old one released. */
    CHECK(dnnl_ocl_interop_memory_set_mem_object(mem, m2));
    EXPECT(ocl_mem_refcount_settles(m1, 1));
    EXPECT(ocl_mem_refcount_settles(m2, 2));
    EXPECT(mem_object(mem) == m2);
    expect_contents(mem, 1000.f);
    /* Setting the same buffer again keeps one reference. */
    CHECK(dnnl_ocl_interop_memory_set_mem_object(mem, m2));
    EXPECT(ocl_mem_refcount_settles(m2, 2));

    /* The v1 names. */
    cl_mem got = NULL;
    CHECK(dnnl_memory_get_ocl_mem_object(mem, &got));
    EXPECT(got == m2);
    CHECK(dnnl_memory_set_ocl_mem_object(mem, m1));
    EXPECT(ocl_mem_refcount_settles(m1, 2));
    EXPECT(ocl_mem_refcount_settles(m2, 1));
    CHECK(dnnl_memory_get_ocl_mem_object(mem, &got));
    EXPECT(got == m1);
    expect_contents(mem, 0.f);

    /* Setting no buffer releases the current one. */
    CHECK(dnnl_ocl_interop_memory_set_mem_object(mem, NULL));
    EXPECT(ocl_mem_refcount_settles(m1, 1));
    EXPECT(mem_object(mem) == NULL);
    CHECK(dnnl_ocl_interop_memory_set_mem_object(mem, m2));
    EXPECT(ocl_mem_refcount_settles(m2, 2));

    CHECK(dnnl_memory_destroy(mem));
    EXPECT(ocl_mem_refcount_settles(m1, 1));
    EXPECT(ocl_mem_refcount_settles(m2, 1));

    /* The generic dnnl_memory_create takes a cl_mem as its handle (official dnnl.h:
     * "For OpenCL it is a cl_mem"; seeds/ocl_interop_guide_v1.md). */
    CHECK(dnnl_memory_create(&mem, md, engine, (void *)m1));
    EXPECT(ocl_mem_refcount_settles(m1, 2));
    EXPECT(mem_object(mem) == m1);
    expect_contents(mem, 0.f);
    CHECK(dnnl_memory_destroy(mem));
    EXPECT(ocl_mem_refcount_settles(m1, 1));

    /* Two memories over one buffer hold a reference each. */
    dnnl_memory_t a = NULL, b = NULL;
    CHECK(dnnl_ocl_interop_memory_create(&a, md, engine, dnnl_ocl_interop_buffer, m2));
    CHECK(dnnl_ocl_interop_memory_create(&b, md, engine, dnnl_ocl_interop_buffer, m2));
    EXPECT(ocl_mem_refcount_settles(m2, 3));
    CHECK(dnnl_memory_destroy(a));
    EXPECT(ocl_mem_refcount_settles(m2, 2));
    expect_contents(b, 1000.f);
    CHECK(dnnl_memory_destroy(b));
    EXPECT(ocl_mem_refcount_settles(m2, 1));

    OCL_CHECK(clReleaseMemObject(m1));
    OCL_CHECK(clReleaseMemObject(m2));
    CHECK(dnnl_memory_desc_destroy(md));
    OCL_CHECK(clReleaseCommandQueue(q));
    CHECK(dnnl_engine_destroy(engine));
    EXPECT(ocl_context_refcount_settles(ctx, 1));
    OCL_CHECK(clReleaseContext(ctx));
    printf("user buffers: ok\n");
    return 0;
}
