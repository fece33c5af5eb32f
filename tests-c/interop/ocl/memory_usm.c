/* USM memory (DESIGN.md "Memory"; notes 2.1, 2.4; seeds ocl_interop_guide.rst).
 * On a device with cl_intel_unified_shared_memory (Intel's runtime):
 * - dnnl_ocl_interop_memory_create(usm, ALLOCATE) gives USM memory (kind usm, a USM
 *   pointer as data handle) that map/unmap read and write;
 * - a user shared and a user device USM pointer are wrapped as they are (data handle ==
 *   pointer), a user kernel writes/reads through them (clSetKernelArgMemPointerINTEL),
 *   map returns the kernel's results (a staging copy for device USM), unmap writes
 *   back; the library never frees them: the user frees them after dnnl_memory_destroy;
 * - a plain malloc pointer is refused (invalid_arguments) unless the device reports
 *   shared-system USM capabilities, in which case it is used as is;
 * - _create_v2 with one USM handle.
 * On a device without the extension (PoCL 3.1): every USM request returns
 * dnnl_unimplemented, and buffer memory still works. */
#include "ocl_util.h"

#define N 512

static const char *kernel_src
        = "__kernel void fill(__global float *dst, float base) {\n"
          "    size_t i = get_global_id(0);\n"
          "    dst[i] = base + (float)i;\n"
          "}\n"
          "__kernel void twice(__global const float *src, __global float *dst) {\n"
          "    size_t i = get_global_id(0);\n"
          "    dst[i] = 2.0f * src[i];\n"
          "}\n";

static void no_usm(dnnl_engine_t engine, dnnl_memory_desc_t md, const char *desc) {
    dnnl_memory_t mem = NULL;
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         &mem, md, engine, dnnl_ocl_interop_usm, DNNL_MEMORY_ALLOCATE),
            dnnl_unimplemented);
    float *host = (float *)malloc(N * sizeof(float));
    EXPECT(host != NULL);
    CHECK_STATUS(dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, host),
            dnnl_unimplemented);
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &mem, md, engine, dnnl_ocl_interop_usm, 1, alloc),
            dnnl_unimplemented);
    EXPECT(mem == NULL);
    free(host);
    /* Buffers still work. */
    CHECK(dnnl_ocl_interop_memory_create(
            &mem, md, engine, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_destroy(mem));
    printf("USM is unavailable on %s (no cl_intel_unified_shared_memory): USM requests "
           "return dnnl_unimplemented: ok\n",
            desc);
}

static cl_uint alloc_type(const ocl_usm_t *usm, cl_context ctx, const void *p) {
    cl_uint type = 0;
    OCL_CHECK(usm->get_alloc_info(ctx, p, CL_MEM_ALLOC_TYPE_INTEL, sizeof(type), &type, NULL));
    return type;
}

static void run(cl_command_queue q, cl_kernel k) {
    size_t gws = N;
    OCL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, NULL));
    OCL_CHECK(clFinish(q));
}

static void expect_mapped(dnnl_memory_t mem, float scale, float base) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    EXPECT(p != NULL);
    for (int i = 0; i < N; i++)
        if (p[i] != scale * (base + (float)i)) {
            fprintf(stderr, "mapped[%d] = %g, expected %g\n", i, p[i],
                    scale * (base + (float)i));
            exit(1);
        }
    CHECK(dnnl_memory_unmap_data(mem, p));
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    char desc[600];
    ocl_describe(dev, desc, sizeof(desc));
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    dnnl_memory_desc_t md = ocl_md_f32(N);
    const size_t size = N * sizeof(float);

    ocl_usm_t usm;
    if (!ocl_usm_get(dev, &usm)) {
        no_usm(engine, md, desc);
        CHECK(dnnl_memory_desc_destroy(md));
        CHECK(dnnl_engine_destroy(engine));
        OCL_CHECK(clReleaseContext(ctx));
        return 0;
    }

    cl_command_queue q = ocl_queue_create(ctx, dev, 0);
    cl_program prog = ocl_program_build(ctx, dev, kernel_src);
    cl_int err = CL_SUCCESS;
    cl_kernel fill = clCreateKernel(prog, "fill", &err);
    OCL_CHECK(err);
    cl_kernel twice = clCreateKernel(prog, "twice", &err);
    OCL_CHECK(err);
    float *out = (float *)usm.shared_alloc(ctx, dev, NULL, size, 0, &err);
    OCL_CHECK(err);

    /* 1. The library allocates USM. */
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_ocl_interop_memory_create(
            &mem, md, engine, dnnl_ocl_interop_usm, DNNL_MEMORY_ALLOCATE));
    dnnl_ocl_interop_memory_kind_t kind = dnnl_ocl_interop_buffer;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_usm);
    void *lib_ptr = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &lib_ptr));
    EXPECT(lib_ptr != NULL && lib_ptr != DNNL_MEMORY_ALLOCATE);
    const cl_uint lib_type = alloc_type(&usm, ctx, lib_ptr);
    EXPECT(lib_type != CL_MEM_TYPE_UNKNOWN_INTEL);
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = 10.f + (float)i;
    CHECK(dnnl_memory_unmap_data(mem, p));
    expect_mapped(mem, 1.f, 10.f);
    OCL_CHECK(usm.set_kernel_arg(twice, 0, lib_ptr));
    OCL_CHECK(usm.set_kernel_arg(twice, 1, out));
    run(q, twice);
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == 2.f * (10.f + (float)i));
    CHECK(dnnl_memory_destroy(mem));
    printf("library-allocated USM (CL_MEM_ALLOC_TYPE_INTEL 0x%x): ok\n", lib_type);

    /* 2. A user shared USM pointer: wrapped as is, written by a user kernel. */
    float *shared = (float *)usm.shared_alloc(ctx, dev, NULL, size, 0, &err);
    OCL_CHECK(err);
    CHECK(dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, shared));
    void *h = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == (void *)shared);
    kind = dnnl_ocl_interop_buffer;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_usm);
    const float base = 3.f;
    OCL_CHECK(usm.set_kernel_arg(fill, 0, shared));
    OCL_CHECK(clSetKernelArg(fill, 1, sizeof(float), &base));
    run(q, fill);
    expect_mapped(mem, 1.f, base);
    CHECK(dnnl_memory_destroy(mem));
    shared[0] = 1.f; /* still ours */
    OCL_CHECK(usm.blocking_free(ctx, shared));
    printf("user shared USM: ok (freed by the user after dnnl_memory_destroy)\n");

    /* 3. A user device USM pointer: map/unmap go through a staging copy. */
    float *device = (float *)usm.device_alloc(ctx, dev, NULL, size, 0, &err);
    OCL_CHECK(err);
    CHECK(dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, device));
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == (void *)device);
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = 7.f + (float)i;
    CHECK(dnnl_memory_unmap_data(mem, p));
    OCL_CHECK(usm.set_kernel_arg(twice, 0, device));
    OCL_CHECK(usm.set_kernel_arg(twice, 1, out));
    run(q, twice);
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == 2.f * (7.f + (float)i));
    /* A kernel writes the device memory; map returns it. */
    OCL_CHECK(usm.set_kernel_arg(fill, 0, device));
    run(q, fill);
    expect_mapped(mem, 1.f, base);

    /* set_data_handle swaps USM pointers; nothing is freed. */
    float *shared2 = (float *)usm.shared_alloc(ctx, dev, NULL, size, 0, &err);
    OCL_CHECK(err);
    for (int i = 0; i < N; i++)
        shared2[i] = 0.5f * (float)i;
    CHECK(dnnl_memory_set_data_handle(mem, shared2));
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == (void *)shared2);
    expect_mapped(mem, 0.5f, 0.f);
    CHECK(dnnl_memory_destroy(mem));
    OCL_CHECK(usm.blocking_free(ctx, device));
    OCL_CHECK(usm.blocking_free(ctx, shared2));
    printf("user device USM: ok\n");

    /* 4. A plain host pointer (not USM). */
    cl_bitfield sys_caps = 0;
    clGetDeviceInfo(dev, CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL, sizeof(sys_caps),
            &sys_caps, NULL);
    float *host = (float *)malloc(size);
    EXPECT(host != NULL);
    for (int i = 0; i < N; i++)
        host[i] = 9.f + (float)i;
    EXPECT(alloc_type(&usm, ctx, host) == CL_MEM_TYPE_UNKNOWN_INTEL);
    mem = NULL;
    dnnl_status_t s = dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, host);
    if (sys_caps == 0) {
        CHECK_STATUS(s, dnnl_invalid_arguments);
        EXPECT(mem == NULL);
        printf("malloc pointer as USM: refused (no shared-system USM): ok\n");
    } else {
        /* notes 2.4: accepted when the device supports system allocators. */
        CHECK(s);
        CHECK(dnnl_memory_get_data_handle(mem, &h));
        EXPECT(h == (void *)host);
        expect_mapped(mem, 1.f, 9.f);
        CHECK(dnnl_memory_destroy(mem));
        printf("malloc pointer as USM: accepted (the device reports shared-system USM "
               "capabilities 0x%llx): ok\n",
                (unsigned long long)sys_caps);
    }
    free(host);

    /* 5. _create_v2 with one USM handle. */
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    CHECK(dnnl_ocl_interop_memory_create_v2(&mem, md, engine, dnnl_ocl_interop_usm, 1, alloc));
    kind = dnnl_ocl_interop_buffer;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_usm);
    CHECK(dnnl_memory_destroy(mem));

    OCL_CHECK(usm.blocking_free(ctx, out));
    OCL_CHECK(clReleaseKernel(fill));
    OCL_CHECK(clReleaseKernel(twice));
    OCL_CHECK(clReleaseProgram(prog));
    OCL_CHECK(clReleaseCommandQueue(q));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine));
    OCL_CHECK(clReleaseContext(ctx));
    printf("USM memory on %s: ok\n", desc);
    return 0;
}
