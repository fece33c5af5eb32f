/* USM memory (DESIGN.md "Memory"; notes 2.1, 2.4; seeds ocl_interop_guide.rst), on a
 * device's USM as the library sees it (ocl_util.h): Intel's
 * cl_intel_unified_shared_memory (Intel's runtime), else coarse-grained SVM from
 * clSVMAlloc (PoCL, NVIDIA; Intel's runtime too under DNNL_OCL_USM=svm).
 * - dnnl_ocl_interop_memory_create(usm, ALLOCATE) gives USM memory (kind usm, a USM
 *   pointer as data handle: an SVM allocation through SVM) that map/unmap read and
 *   write and a user kernel reads;
 * - a user shared and a user device USM pointer (two clSVMAlloc pointers through SVM)
 *   are wrapped as they are (data handle == pointer, kind usm), a user kernel
 *   writes/reads through them (clSetKernelArgMemPointerINTEL / clSetKernelArgSVMPointer),
 *   map returns the kernel's results, unmap writes back, set_data_handle swaps them;
 *   the library never frees them: the user frees them after dnnl_memory_destroy;
 * - an eltwise primitive runs from a user USM pointer into library-allocated USM, and
 *   again after set_data_handle;
 * - a plain malloc pointer: with Intel USM refused (invalid_arguments) unless the
 *   device reports shared-system USM capabilities; through SVM accepted (OpenCL cannot
 *   tell SVM of the context from other readable host memory);
 * - pointers the host cannot read (PROT_NONE, unmapped addresses) are refused with
 *   invalid_arguments, and nothing is created;
 * - _create_v2 with one USM handle.
 * On a device with neither (none on CI) every USM request returns dnnl_unimplemented
 * and buffer memory still works. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <sys/mman.h>

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
    printf("USM is unavailable on %s (neither Intel USM nor coarse-grained SVM): USM "
           "requests return dnnl_unimplemented: ok\n",
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

static void expect_values(const float *p, float scale, float base, const char *what) {
    for (int i = 0; i < N; i++)
        if (p[i] != scale * (base + (float)i)) {
            fprintf(stderr, "%s[%d] = %g, expected %g\n", what, i, p[i],
                    scale * (base + (float)i));
            exit(1);
        }
}

static void expect_mapped(dnnl_memory_t mem, float scale, float base) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    EXPECT(p != NULL);
    expect_values(p, scale, base, "mapped");
    CHECK(dnnl_memory_unmap_data(mem, p));
}

/* The user's USM `p` (N floats, from ocl_usm_alloc(shared 1)) read on the host. */
static void expect_user(const ocl_usm_t *usm, cl_command_queue q, float *p, float scale,
        float base, const char *what) {
    ocl_usm_host_begin(usm, q, p, N * sizeof(float));
    expect_values(p, scale, base, what);
    ocl_usm_host_end(usm, q, p);
}

static void write_user(const ocl_usm_t *usm, cl_command_queue q, float *p, float scale,
        float base) {
    ocl_usm_host_begin(usm, q, p, N * sizeof(float));
    for (int i = 0; i < N; i++)
        p[i] = scale * (base + (float)i);
    ocl_usm_host_end(usm, q, p);
}

/* An eltwise primitive (linear: 2x + 1) reads a user USM pointer and writes
 * library-allocated USM; after set_data_handle it reads a second user pointer. */
static void eltwise_on_user_usm(const ocl_usm_t *usm, dnnl_engine_t engine, cl_context ctx,
        cl_device_id dev, cl_command_queue q, dnnl_memory_desc_t md) {
    float *a = (float *)ocl_usm_alloc_or_die(usm, ctx, dev, 1, N * sizeof(float));
    float *b = (float *)ocl_usm_alloc_or_die(usm, ctx, dev, 1, N * sizeof(float));
    write_user(usm, q, a, 1.f, 5.f);
    write_user(usm, q, b, 0.25f, 0.f);
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_ocl_interop_memory_create(&src, md, engine, dnnl_ocl_interop_usm, a));
    CHECK(dnnl_ocl_interop_memory_create(
            &dst, md, engine, dnnl_ocl_interop_usm, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_linear, md, md, 2.f, 1.f, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_ocl_interop_stream_create(&stream, engine, q));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    CHECK(dnnl_primitive_execute(prim, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    expect_mapped(dst, 2.f, 5.5f);
    CHECK(dnnl_memory_set_data_handle(src, b));
    void *h = NULL;
    CHECK(dnnl_memory_get_data_handle(src, &h));
    EXPECT(h == (void *)b);
    CHECK(dnnl_primitive_execute(prim, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    expect_mapped(dst, 0.5f, 2.f);
    /* The user's memory is untouched and still the user's. */
    expect_user(usm, q, a, 1.f, 5.f, "user src a");
    expect_user(usm, q, b, 0.25f, 0.f, "user src b");
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    ocl_usm_free(usm, ctx, a);
    ocl_usm_free(usm, ctx, b);
    printf("eltwise from user USM into library USM, again after set_data_handle: ok\n");
}

/* Pointers the host cannot read are no USM of any kind: refused, nothing created. */
static void wild_pointers(dnnl_engine_t engine, dnnl_memory_desc_t md) {
    long page = 4096;
    void *none = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(none != MAP_FAILED);
    /* Readable at the start, not at the end (N floats cross into the PROT_NONE page). */
    char *edge = (char *)mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(edge != MAP_FAILED);
    EXPECT(mprotect(edge + page, (size_t)page, PROT_NONE) == 0);
    /* Under AddressSanitizer 0xdeadbeef000 lies in its (readable) shadow memory, and
     * low addresses in its shadow gap: those two are tried without it only. A range
     * this program unmapped is not tried: another thread (the OpenCL runtime's, the
     * sanitizer's) may map it again before the check; the check fails the same way
     * for unmapped and PROT_NONE pages. */
    void *const wild[] = {none, edge + page - 16,
#ifndef __SANITIZE_ADDRESS__
            (void *)(uintptr_t)0xdeadbeef000ull, (void *)1,
#endif
    };
    const char *names[] = {"a PROT_NONE page", "a range running into a PROT_NONE page",
            "0xdeadbeef000", "(void *)1"};
    for (size_t i = 0; i < sizeof(wild) / sizeof(wild[0]); i++) {
        dnnl_memory_t mem = NULL;
        dnnl_status_t s
                = dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, wild[i]);
        if (s != dnnl_invalid_arguments || mem != NULL) {
            fprintf(stderr, "%s as USM: got %s, expected invalid_arguments\n", names[i],
                    dnnl_status2str(s));
            exit(1);
        }
        void *handles[1] = {wild[i]};
        CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                             &mem, md, engine, dnnl_ocl_interop_usm, 1, handles),
                dnnl_invalid_arguments);
        EXPECT(mem == NULL);
    }
    munmap(none, (size_t)page);
    munmap(edge, (size_t)page * 2);
    printf("pointers the host cannot read as USM: invalid_arguments: ok\n");
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
    const int svm = usm.via == OCL_USM_SVM;
    printf("USM on %s: %s\n", desc, ocl_usm_name(&usm));

    cl_command_queue q = ocl_queue_create(ctx, dev, 0);
    cl_program prog = ocl_program_build(ctx, dev, kernel_src);
    cl_int err = CL_SUCCESS;
    cl_kernel fill = clCreateKernel(prog, "fill", &err);
    OCL_CHECK(err);
    cl_kernel twice = clCreateKernel(prog, "twice", &err);
    OCL_CHECK(err);
    float *out = (float *)ocl_usm_alloc_or_die(&usm, ctx, dev, 1, size);

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
    cl_uint lib_type = 0;
    if (!svm) {
        lib_type = alloc_type(&usm, ctx, lib_ptr);
        EXPECT(lib_type != CL_MEM_TYPE_UNKNOWN_INTEL);
    }
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = 10.f + (float)i;
    CHECK(dnnl_memory_unmap_data(mem, p));
    expect_mapped(mem, 1.f, 10.f);
    /* The user's kernel reads the library's allocation. */
    OCL_CHECK(ocl_usm_set_arg(&usm, twice, 0, lib_ptr));
    OCL_CHECK(ocl_usm_set_arg(&usm, twice, 1, out));
    run(q, twice);
    expect_user(&usm, q, out, 2.f, 10.f, "out");
    /* ... and writes it: map sees the kernel's values. */
    const float base = 3.f;
    OCL_CHECK(ocl_usm_set_arg(&usm, fill, 0, lib_ptr));
    OCL_CHECK(clSetKernelArg(fill, 1, sizeof(float), &base));
    run(q, fill);
    expect_mapped(mem, 1.f, base);
    CHECK(dnnl_memory_destroy(mem));
    if (svm)
        printf("library-allocated USM (SVM): ok\n");
    else
        printf("library-allocated USM (CL_MEM_ALLOC_TYPE_INTEL 0x%x): ok\n", lib_type);

    /* 2. A user shared USM pointer: wrapped as is, written by a user kernel. */
    float *shared = (float *)ocl_usm_alloc_or_die(&usm, ctx, dev, 1, size);
    CHECK(dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, shared));
    void *h = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == (void *)shared);
    kind = dnnl_ocl_interop_buffer;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_usm);
    OCL_CHECK(ocl_usm_set_arg(&usm, fill, 0, shared));
    run(q, fill);
    expect_mapped(mem, 1.f, base);
    /* The host writes through map; the user sees it. */
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    EXPECT(p == shared || !svm);
    for (int i = 0; i < N; i++)
        p[i] = 4.f * (1.f + (float)i);
    CHECK(dnnl_memory_unmap_data(mem, p));
    CHECK(dnnl_memory_destroy(mem));
    expect_user(&usm, q, shared, 4.f, 1.f, "user shared"); /* still there, still ours */
    ocl_usm_free(&usm, ctx, shared);
    printf("user %s pointer: ok (freed by the user after dnnl_memory_destroy)\n",
            svm ? "clSVMAlloc" : "shared USM");

    /* 3. A user device USM pointer (through SVM, another clSVMAlloc pointer): map and
     * unmap go through a staging copy for Intel's device USM. */
    float *device = (float *)ocl_usm_alloc_or_die(&usm, ctx, dev, 0, size);
    CHECK(dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, device));
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == (void *)device);
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = 7.f + (float)i;
    CHECK(dnnl_memory_unmap_data(mem, p));
    OCL_CHECK(ocl_usm_set_arg(&usm, twice, 0, device));
    OCL_CHECK(ocl_usm_set_arg(&usm, twice, 1, out));
    run(q, twice);
    expect_user(&usm, q, out, 2.f, 7.f, "out");
    /* A kernel writes the device memory; map returns it. */
    OCL_CHECK(ocl_usm_set_arg(&usm, fill, 0, device));
    run(q, fill);
    expect_mapped(mem, 1.f, base);

    /* set_data_handle swaps USM pointers; nothing is freed. */
    float *shared2 = (float *)ocl_usm_alloc_or_die(&usm, ctx, dev, 1, size);
    write_user(&usm, q, shared2, 0.5f, 0.f);
    CHECK(dnnl_memory_set_data_handle(mem, shared2));
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == (void *)shared2);
    kind = dnnl_ocl_interop_buffer;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_usm);
    expect_mapped(mem, 0.5f, 0.f);
    CHECK(dnnl_memory_destroy(mem));
    ocl_usm_free(&usm, ctx, device);
    ocl_usm_free(&usm, ctx, shared2);
    printf("user %s pointer: ok\n", svm ? "clSVMAlloc (as device memory)" : "device USM");

    /* 4. A plain host pointer (not USM). */
    float *host = (float *)malloc(size);
    EXPECT(host != NULL);
    for (int i = 0; i < N; i++)
        host[i] = 9.f + (float)i;
    mem = NULL;
    if (svm) {
        /* OpenCL cannot tell clSVMAlloc memory of the context from other readable host
         * memory: the library takes the user at their word (README, "USM"). */
        CHECK(dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, host));
        CHECK(dnnl_memory_get_data_handle(mem, &h));
        EXPECT(h == (void *)host);
        kind = dnnl_ocl_interop_buffer;
        CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
        EXPECT(kind == dnnl_ocl_interop_usm);
        CHECK(dnnl_memory_destroy(mem));
        printf("malloc pointer as USM: accepted, as readable host memory cannot be told "
               "from SVM: ok\n");
    } else {
        cl_bitfield sys_caps = 0;
        clGetDeviceInfo(dev, CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL,
                sizeof(sys_caps), &sys_caps, NULL);
        EXPECT(alloc_type(&usm, ctx, host) == CL_MEM_TYPE_UNKNOWN_INTEL);
        dnnl_status_t s
                = dnnl_ocl_interop_memory_create(&mem, md, engine, dnnl_ocl_interop_usm, host);
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
    }
    free(host);
    wild_pointers(engine, md);

    /* 5. _create_v2 with one USM handle. */
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    CHECK(dnnl_ocl_interop_memory_create_v2(&mem, md, engine, dnnl_ocl_interop_usm, 1, alloc));
    kind = dnnl_ocl_interop_buffer;
    CHECK(dnnl_ocl_interop_memory_get_memory_kind(mem, &kind));
    EXPECT(kind == dnnl_ocl_interop_usm);
    CHECK(dnnl_memory_destroy(mem));

    /* 6. A primitive on user USM. */
    eltwise_on_user_usm(&usm, engine, ctx, dev, q, md);

    ocl_usm_free(&usm, ctx, out);
    OCL_CHECK(clReleaseKernel(fill));
    OCL_CHECK(clReleaseKernel(twice));
    OCL_CHECK(clReleaseProgram(prog));
    OCL_CHECK(clReleaseCommandQueue(q));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine));
    OCL_CHECK(clReleaseContext(ctx));
    printf("USM memory on %s through %s: ok\n", desc, ocl_usm_name(&usm));
    return 0;
}
