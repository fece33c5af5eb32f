/* The path the official C++ header takes for ocl_interop::make_memory(md, eng, cl_mem)
 * (notes 2.4; dnnl_ocl.hpp): a generic memory with no buffer
 * (dnnl_memory_create(_v2) with DNNL_MEMORY_NONE), then dnnl_memory_set_data_handle(_v2)
 * with a cl_mem cast to void *. The memory is buffer memory, has no cl_mem before
 * (get_mem_object gives NULL), and retains/releases the cl_mem it is given. */
#include "ocl_util.h"

#define N 128

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    cl_command_queue q = ocl_queue_create(ctx, dev, 0);
    dnnl_memory_desc_t md = ocl_md_f32(N);

    float host[N];
    for (int i = 0; i < N; i++)
        host[i] = 3.f * (float)i;
    cl_int err = CL_SUCCESS;
    cl_mem m1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(host),
            host, &err);
    OCL_CHECK(err);
    cl_mem m2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(host), NULL, &err);
    OCL_CHECK(err);

    /* dnnl_memory_create + dnnl_memory_set_data_handle. */
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_NONE));
    dnnl_ocl_interop_memory_kind_t kind = dnnl_ocl_interop_usm;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_buffer);
    cl_mem got = (cl_mem)&got;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &got));
    EXPECT(got == NULL);

    CHECK(dnnl_memory_set_data_handle(mem, (void *)m1));
    EXPECT(ocl_mem_refcount_settles(m1, 2));
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &got));
    EXPECT(got == m1);
    void *handle = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &handle));
    EXPECT(handle == (void *)m1);
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < N; i++)
        EXPECT(p[i] == 3.f * (float)i);
    CHECK(dnnl_memory_unmap_data(mem, p));

    CHECK(dnnl_memory_set_data_handle(mem, (void *)m2));
    EXPECT(ocl_mem_refcount_settles(m1, 1));
    EXPECT(ocl_mem_refcount_settles(m2, 2));
    CHECK(dnnl_memory_destroy(mem));
    EXPECT(ocl_mem_refcount_settles(m2, 1));

    /* What the C++ header does exactly: _create_v2 with {NONE}, set_data_handle_v2. */
    void *none[1] = {DNNL_MEMORY_NONE};
    CHECK(dnnl_memory_create_v2(&mem, md, engine, 1, none));
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &got));
    EXPECT(got == NULL);
    CHECK(dnnl_memory_set_data_handle_v2(mem, (void *)m1, 0));
    EXPECT(ocl_mem_refcount_settles(m1, 2));
    CHECK(dnnl_memory_get_data_handle_v2(mem, &handle, 0));
    EXPECT(handle == (void *)m1);
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&p, 0));
    EXPECT(p[N - 1] == 3.f * (float)(N - 1));
    p[0] = 77.f;
    CHECK(dnnl_memory_unmap_data_v2(mem, p, 0));
    float back = 0.f;
    OCL_CHECK(clEnqueueReadBuffer(q, m1, CL_TRUE, 0, sizeof(float), &back, 0, NULL, NULL));
    EXPECT(back == 77.f);
    CHECK_STATUS(dnnl_memory_set_data_handle_v2(mem, (void *)m2, 1), dnnl_invalid_arguments);
    EXPECT(ocl_mem_refcount_settles(m2, 1));
    CHECK(dnnl_memory_destroy(mem));
    EXPECT(ocl_mem_refcount_settles(m1, 1));

    OCL_CHECK(clReleaseMemObject(m1));
    OCL_CHECK(clReleaseMemObject(m2));
    CHECK(dnnl_memory_desc_destroy(md));
    OCL_CHECK(clReleaseCommandQueue(q));
    CHECK(dnnl_engine_destroy(engine));
    OCL_CHECK(clReleaseContext(ctx));
    printf("generic memory with a cl_mem data handle: ok\n");
    return 0;
}
