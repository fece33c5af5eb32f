/* Buffer memory that the library allocates, used by a user kernel:
 * - dnnl_memory_create on an OpenCL engine makes buffer memory (notes 2.4, upstream
 *   test BasicInteropC), and so does dnnl_ocl_interop_memory_create(buffer, ALLOCATE);
 * - dnnl_ocl_interop_memory_get_mem_object gives a cl_mem of the engine's context,
 *   big enough for the descriptor, equal to dnnl_memory_get_data_handle, not retained;
 * - map -> write -> unmap puts host data into the buffer; a user kernel, built on the
 *   user's context and run on the user's queue, reads one memory's cl_mem and writes
 *   another's; map_data returns the kernel's results. */
#include "ocl_util.h"

#define N 1000

static const char *kernel_src
        = "__kernel void scale(__global const float *src, __global float *dst, float a) {\n"
          "    size_t i = get_global_id(0);\n"
          "    dst[i] = a * src[i] + 1.0f;\n"
          "}\n";

static cl_mem buffer_of(dnnl_memory_t mem, cl_context ctx, size_t size) {
    dnnl_ocl_interop_memory_kind_t kind = dnnl_ocl_interop_usm;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_buffer);
    cl_mem m = NULL;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &m));
    EXPECT(m != NULL);
    const cl_uint refs = ocl_mem_refcount(m);
    cl_mem again = NULL;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &again));
    EXPECT(again == m);
    EXPECT(ocl_mem_refcount_settles(m, refs));
    void *handle = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &handle));
    EXPECT(handle == (void *)m);

    cl_context mctx = NULL;
    size_t msize = 0;
    OCL_CHECK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof(mctx), &mctx, NULL));
    OCL_CHECK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(msize), &msize, NULL));
    EXPECT(mctx == ctx);
    EXPECT(msize >= size);
    return m;
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    cl_command_queue q = ocl_queue_create(ctx, dev, 0);
    dnnl_memory_desc_t md = ocl_md_f32(N);
    const size_t size = dnnl_memory_desc_get_size(md);
    EXPECT(size == N * sizeof(float));

    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_memory_create(&src, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_ocl_interop_memory_create(
            &dst, md, engine, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE));
    cl_mem src_buf = buffer_of(src, ctx, size);
    cl_mem dst_buf = buffer_of(dst, ctx, size);
    EXPECT(src_buf != dst_buf);
    dnnl_engine_t got_engine = NULL;
    CHECK(dnnl_memory_get_engine(src, &got_engine));
    /* A query gives its own (not owned) handle of the same engine. */
    cl_context got_ctx = NULL;
    CHECK(dnnl_ocl_interop_engine_get_context(got_engine, &got_ctx));
    EXPECT(got_ctx == ctx);

    float *p = NULL;
    CHECK(dnnl_memory_map_data(src, (void **)&p));
    EXPECT(p != NULL);
    for (int i = 0; i < N; i++)
        p[i] = (float)i;
    CHECK(dnnl_memory_unmap_data(src, p));

    cl_program prog = ocl_program_build(ctx, dev, kernel_src);
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(prog, "scale", &err);
    OCL_CHECK(err);
    const float a = 2.f;
    OCL_CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &src_buf));
    OCL_CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &dst_buf));
    OCL_CHECK(clSetKernelArg(k, 2, sizeof(float), &a));
    size_t gws = N;
    OCL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, NULL));
    OCL_CHECK(clFinish(q));

    CHECK(dnnl_memory_map_data(dst, (void **)&p));
    for (int i = 0; i < N; i++)
        if (p[i] != 2.f * (float)i + 1.f) {
            fprintf(stderr, "dst[%d] = %g, expected %g\n", i, p[i], 2.f * (float)i + 1.f);
            return 1;
        }
    CHECK(dnnl_memory_unmap_data(dst, p));
    /* The source still holds what was written through the first map. */
    CHECK(dnnl_memory_map_data_v2(src, (void **)&p, 0));
    for (int i = 0; i < N; i++)
        EXPECT(p[i] == (float)i);
    CHECK(dnnl_memory_unmap_data_v2(src, p, 0));
    /* And the device sees it as well. */
    float back[N];
    OCL_CHECK(clEnqueueReadBuffer(q, src_buf, CL_TRUE, 0, size, back, 0, NULL, NULL));
    EXPECT(back[N - 1] == (float)(N - 1));

    OCL_CHECK(clReleaseKernel(k));
    OCL_CHECK(clReleaseProgram(prog));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_destroy(src));

    /* The same on an engine from dnnl_engine_create: buffer kind by default. */
    dnnl_engine_t gpu = NULL;
    CHECK(dnnl_engine_create(&gpu, dnnl_gpu, 0));
    cl_context gpu_ctx = NULL;
    CHECK(dnnl_ocl_interop_engine_get_context(gpu, &gpu_ctx));
    CHECK(dnnl_memory_create(&src, md, gpu, DNNL_MEMORY_ALLOCATE));
    (void)buffer_of(src, gpu_ctx, size);
    CHECK(dnnl_memory_map_data(src, (void **)&p));
    p[0] = 5.f;
    CHECK(dnnl_memory_unmap_data(src, p));
    CHECK(dnnl_memory_map_data(src, (void **)&p));
    EXPECT(p[0] == 5.f);
    CHECK(dnnl_memory_unmap_data(src, p));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_engine_destroy(gpu));

    CHECK(dnnl_memory_desc_destroy(md));
    OCL_CHECK(clReleaseCommandQueue(q));
    CHECK(dnnl_engine_destroy(engine));
    EXPECT(ocl_context_refcount_settles(ctx, 1));
    OCL_CHECK(clReleaseContext(ctx));
    printf("library buffers with a user kernel: ok\n");
    return 0;
}
