/* dnnl_ocl_interop_memory_create_v2 (notes 2.4: handles != NULL, nhandles > 0; host
 * scalar descriptors refused): one handle (ALLOCATE or a user cl_mem), wrong counts,
 * and a sparse CSR descriptor with its three handles, each a buffer of
 * dnnl_memory_desc_get_size_v2(md, i) bytes or more, mapped on its own. */
#include "ocl_util.h"

static void one_handle(dnnl_engine_t engine, cl_context ctx) {
    dnnl_memory_desc_t md = ocl_md_f32(40);
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_ocl_interop_memory_create_v2(&mem, md, engine, dnnl_ocl_interop_buffer, 1, alloc));
    cl_mem m = NULL;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &m));
    EXPECT(m != NULL);
    CHECK(dnnl_memory_destroy(mem));

    cl_int err = CL_SUCCESS;
    cl_mem user = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 40 * sizeof(float), NULL, &err);
    OCL_CHECK(err);
    void *handles[1] = {user};
    CHECK(dnnl_ocl_interop_memory_create_v2(
            &mem, md, engine, dnnl_ocl_interop_buffer, 1, handles));
    EXPECT(ocl_mem_refcount_settles(user, 2));
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &m));
    EXPECT(m == user);
    CHECK(dnnl_memory_destroy(mem));
    EXPECT(ocl_mem_refcount_settles(user, 1));

    dnnl_memory_t bad = NULL;
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, md, engine, dnnl_ocl_interop_buffer, 0, alloc),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, md, engine, dnnl_ocl_interop_buffer, -1, alloc),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, md, engine, dnnl_ocl_interop_buffer, 1, NULL),
            dnnl_invalid_arguments);
    void *two[2] = {DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE};
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, md, engine, dnnl_ocl_interop_buffer, 2, two),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         NULL, md, engine, dnnl_ocl_interop_buffer, 1, alloc),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    EXPECT(ocl_mem_refcount_settles(user, 1));

    dnnl_memory_desc_t scalar = NULL;
    CHECK(dnnl_memory_desc_create_host_scalar(&scalar, dnnl_f32));
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, scalar, engine, dnnl_ocl_interop_buffer, 1, alloc),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK(dnnl_memory_desc_destroy(scalar));

    OCL_CHECK(clReleaseMemObject(user));
    CHECK(dnnl_memory_desc_destroy(md));
    printf("create_v2 with one handle: ok\n");
}

static void csr(dnnl_engine_t engine, cl_context ctx, cl_command_queue q) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {4, 6};
    dnnl_status_t s = dnnl_memory_desc_create_with_csr_encoding(&md, 2, dims, dnnl_f32, 5,
            dnnl_s32, dnnl_s32);
    if (s == dnnl_unimplemented) {
        printf("part skipped: dnnl_memory_desc_create_with_csr_encoding is unimplemented, "
               "so memory with several handles cannot be made\n");
        return;
    }
    CHECK(s);
    int n = 0;
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_num_handles_s32, 0, &n));
    EXPECT(n == 3);

    /* Three library buffers. */
    void *alloc[3] = {DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE};
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_ocl_interop_memory_create_v2(&mem, md, engine, dnnl_ocl_interop_buffer, 3, alloc));
    cl_mem bufs[3];
    for (int i = 0; i < 3; i++) {
        void *h = NULL;
        CHECK(dnnl_memory_get_data_handle_v2(mem, &h, i));
        bufs[i] = (cl_mem)h;
        EXPECT(bufs[i] != NULL);
        size_t size = 0;
        OCL_CHECK(clGetMemObjectInfo(bufs[i], CL_MEM_SIZE, sizeof(size), &size, NULL));
        EXPECT(size >= dnnl_memory_desc_get_size_v2(md, i));
        int32_t *p = NULL;
        CHECK(dnnl_memory_map_data_v2(mem, (void **)&p, i));
        for (int j = 0; j < 5; j++)
            p[j] = 100 * i + j;
        CHECK(dnnl_memory_unmap_data_v2(mem, p, i));
    }
    EXPECT(bufs[0] != bufs[1] && bufs[1] != bufs[2] && bufs[0] != bufs[2]);
    for (int i = 0; i < 3; i++) {
        int32_t *p = NULL;
        CHECK(dnnl_memory_map_data_v2(mem, (void **)&p, i));
        for (int j = 0; j < 5; j++)
            EXPECT(p[j] == 100 * i + j);
        CHECK(dnnl_memory_unmap_data_v2(mem, p, i));
    }
    void *h = NULL;
    CHECK_STATUS(dnnl_memory_get_data_handle_v2(mem, &h, 3), dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(mem));

    /* Three user buffers: each retained, each released. */
    cl_mem user[3];
    void *handles[3];
    for (int i = 0; i < 3; i++) {
        cl_int err = CL_SUCCESS;
        user[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
        OCL_CHECK(err);
        int32_t v[16];
        for (int j = 0; j < 16; j++)
            v[j] = 1000 * (i + 1) + j;
        OCL_CHECK(clEnqueueWriteBuffer(q, user[i], CL_TRUE, 0, sizeof(v), v, 0, NULL, NULL));
        handles[i] = user[i];
    }
    CHECK(dnnl_ocl_interop_memory_create_v2(
            &mem, md, engine, dnnl_ocl_interop_buffer, 3, handles));
    for (int i = 0; i < 3; i++) {
        EXPECT(ocl_mem_refcount_settles(user[i], 2));
        CHECK(dnnl_memory_get_data_handle_v2(mem, &h, i));
        EXPECT(h == (void *)user[i]);
        int32_t *p = NULL;
        CHECK(dnnl_memory_map_data_v2(mem, (void **)&p, i));
        EXPECT(p[0] == 1000 * (i + 1) && p[4] == 1000 * (i + 1) + 4);
        CHECK(dnnl_memory_unmap_data_v2(mem, p, i));
    }
    CHECK(dnnl_memory_destroy(mem));
    for (int i = 0; i < 3; i++) {
        EXPECT(ocl_mem_refcount_settles(user[i], 1));
        OCL_CHECK(clReleaseMemObject(user[i]));
    }

    dnnl_memory_t bad = NULL;
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, md, engine, dnnl_ocl_interop_buffer, 1, alloc),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK(dnnl_memory_desc_destroy(md));
    printf("create_v2 with three handles (CSR): ok\n");
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    cl_command_queue q = ocl_queue_create(ctx, dev, 0);
    one_handle(engine, ctx);
    csr(engine, ctx, q);
    OCL_CHECK(clReleaseCommandQueue(q));
    CHECK(dnnl_engine_destroy(engine));
    OCL_CHECK(clReleaseContext(ctx));
    printf("ocl memory create_v2: ok\n");
    return 0;
}
