/* DNNL_MEMORY_ALLOCATE of INT64_MAX bytes on a Level Zero engine (issue 15): a u8
 * {1, INT64_MAX} and an f32 {INT64_MAX / 4} memory, through dnnl_memory_create and
 * dnnl_ze_interop_memory_create, are dnnl_out_of_memory as on the CPU engine (the
 * driver's ZE_RESULT_ERROR_UNSUPPORTED_SIZE, or a size it refuses as invalid), not
 * dnnl_runtime_error or dnnl_invalid_arguments; no output is written and the engine
 * still allocates. */
#include "interop/ze/ze_util.h"

#define SENTINEL ((dnnl_memory_t)(uintptr_t)0x5e5e5e50u)

static void expect_oom(dnnl_engine_t e, const char *what, int ndims, const dnnl_dim_t *dims,
        dnnl_data_type_t dt) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, ndims == 1 ? dnnl_a : dnnl_ab));
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    dnnl_memory_t m = SENTINEL;
    CHECK_STATUS(dnnl_ze_interop_memory_create(&m, md, e, 1, alloc), dnnl_out_of_memory);
    EXPECT(m == SENTINEL);
    CHECK_STATUS(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE), dnnl_out_of_memory);
    EXPECT(m == SENTINEL);
    printf("%s (%zu bytes): out_of_memory\n", what, dnnl_memory_desc_get_size(md));
    CHECK(dnnl_memory_desc_destroy(md));
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    dnnl_engine_t e = ze_engine(&u);
    const dnnl_dim_t bytes[] = {1, INT64_MAX};
    const dnnl_dim_t floats[] = {INT64_MAX / 4};
    expect_oom(e, "u8 {1, INT64_MAX}", 2, bytes, dnnl_u8);
    expect_oom(e, "f32 {INT64_MAX / 4}", 1, floats, dnnl_f32);

    dnnl_memory_desc_t md = ze_md_f32(16);
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_destroy(m));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("INT64_MAX Level Zero allocations: out_of_memory\n");
    return 0;
}
