/* DNNL_MEMORY_ALLOCATE of INT64_MAX bytes (issue 15): upstream v3.13's CPU engine
 * answers dnnl_out_of_memory for a u8 {1, INT64_MAX} and an f32 {INT64_MAX / 4}
 * memory (probed against Intel's library, the @ref run); so does ours on the CPU
 * engine and on an OpenCL engine (PoCL, Intel's CPU runtime, and Intel's runtime with
 * USM taken through SVM), through dnnl_memory_create(_v2) and
 * dnnl_ocl_interop_memory_create(_v2) of the buffer and USM kinds: not
 * dnnl_runtime_error, and no output written. The engine still allocates afterwards.
 *
 *   alloc_int64_max cpu | gpu   (gpu: the first OpenCL engine; skipped without one) */
#include <stdint.h>
#include <string.h>

#include "check.h"
#ifdef DNNL_TEST_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include "oneapi/dnnl/dnnl_ocl.h"
#endif

#define SENTINEL ((dnnl_memory_t)(uintptr_t)0x5e5e5e50u)

static void expect_oom(const char *what, const char *how, dnnl_status_t s, dnnl_memory_t m) {
    if (s != dnnl_out_of_memory) {
        fprintf(stderr, "%s through %s: got %s, expected out_of_memory\n", what, how,
                dnnl_status2str(s));
        exit(1);
    }
    EXPECT(m == SENTINEL);
    printf("%s through %s: out_of_memory\n", what, how);
}

static void try_all(dnnl_engine_t e, int on_gpu, const char *what, dnnl_memory_desc_t md) {
    dnnl_memory_t m = SENTINEL;
    expect_oom(what, "dnnl_memory_create",
            dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE), m);
    void *allocate[1] = {DNNL_MEMORY_ALLOCATE};
    expect_oom(what, "dnnl_memory_create_v2",
            dnnl_memory_create_v2(&m, md, e, 1, allocate), m);
#ifdef DNNL_TEST_OPENCL
    if (on_gpu) {
        expect_oom(what, "ocl buffer",
                dnnl_ocl_interop_memory_create(
                        &m, md, e, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE),
                m);
        dnnl_status_t s = dnnl_ocl_interop_memory_create(
                &m, md, e, dnnl_ocl_interop_usm, DNNL_MEMORY_ALLOCATE);
        if (s == dnnl_unimplemented) {
            printf("part skipped: %s through USM: the device has neither Intel USM nor SVM\n",
                    what);
        } else {
            expect_oom(what, "ocl usm", s, m);
            expect_oom(what, "ocl usm v2",
                    dnnl_ocl_interop_memory_create_v2(
                            &m, md, e, dnnl_ocl_interop_usm, 1, allocate),
                    m);
        }
    }
#else
    (void)on_gpu;
#endif
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    dnnl_engine_t e = NULL;
    CHECK(dnnl_engine_create(&e, on_gpu ? dnnl_gpu : dnnl_cpu, 0));

    dnnl_memory_desc_t bytes = NULL, floats = NULL;
    const dnnl_dim_t bytes_dims[] = {1, INT64_MAX};
    const dnnl_dim_t floats_dims[] = {INT64_MAX / 4};
    CHECK(dnnl_memory_desc_create_with_tag(&bytes, 2, bytes_dims, dnnl_u8, dnnl_ab));
    CHECK(dnnl_memory_desc_create_with_tag(&floats, 1, floats_dims, dnnl_f32, dnnl_a));
    EXPECT(dnnl_memory_desc_get_size(bytes) == (size_t)INT64_MAX);
    EXPECT(dnnl_memory_desc_get_size(floats) == (size_t)(INT64_MAX / 4) * 4);
    try_all(e, on_gpu, "u8 {1, INT64_MAX}", bytes);
    try_all(e, on_gpu, "f32 {INT64_MAX / 4}", floats);

    /* The engine still allocates: a value written through a mapping reads back. */
    dnnl_memory_desc_t small = NULL;
    const dnnl_dim_t small_dims[] = {16};
    CHECK(dnnl_memory_desc_create_with_tag(&small, 1, small_dims, dnnl_f32, dnnl_a));
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, small, e, DNNL_MEMORY_ALLOCATE));
    float *p = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    p[15] = 2.5f;
    CHECK(dnnl_memory_unmap_data(m, p));
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    EXPECT(p[15] == 2.5f);
    CHECK(dnnl_memory_unmap_data(m, p));
    CHECK(dnnl_memory_destroy(m));
    CHECK(dnnl_memory_desc_destroy(small));
    CHECK(dnnl_memory_desc_destroy(bytes));
    CHECK(dnnl_memory_desc_destroy(floats));
    CHECK(dnnl_engine_destroy(e));
    printf("INT64_MAX allocations (%s): out_of_memory\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
