/* Allocations no Level Zero device can make (issue 18): DNNL_MEMORY_ALLOCATE of 2^40
 * bytes, of a 4 TiB f32 tensor {2^20, 2^20} and of 2^60 bytes, through
 * dnnl_ze_interop_memory_create and dnnl_memory_create on a ze engine, return
 * dnnl_out_of_memory (the driver's ZE_RESULT_ERROR_UNSUPPORTED_SIZE or
 * ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY), not dnnl_runtime_error; no output is written
 * and the engine still allocates. */
#include "interop/ze/ze_util.h"

#define SENTINEL ((dnnl_memory_t)(uintptr_t)0x5e5e5e50u)

static void expect_oom(dnnl_engine_t e, dnnl_dim_t rows, dnnl_dim_t cols, dnnl_data_type_t dt) {
    dnnl_memory_desc_t md = NULL;
    const dnnl_dim_t dims[] = {rows, cols};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dt, dnnl_ab));
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    dnnl_memory_t m = SENTINEL;
    CHECK_STATUS(dnnl_ze_interop_memory_create(&m, md, e, 1, alloc), dnnl_out_of_memory);
    EXPECT(m == SENTINEL);
    CHECK_STATUS(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE), dnnl_out_of_memory);
    EXPECT(m == SENTINEL);
    printf("%zu bytes: out_of_memory\n", dnnl_memory_desc_get_size(md));
    CHECK(dnnl_memory_desc_destroy(md));
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    dnnl_engine_t e = ze_engine(&u);
    expect_oom(e, (dnnl_dim_t)1 << 20, (dnnl_dim_t)1 << 20, dnnl_u8);
    expect_oom(e, (dnnl_dim_t)1 << 20, (dnnl_dim_t)1 << 20, dnnl_f32);
    expect_oom(e, (dnnl_dim_t)1 << 30, (dnnl_dim_t)1 << 30, dnnl_u8);

    dnnl_memory_desc_t md = ze_md_f32(16);
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_destroy(m));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("impossible Level Zero allocations: out_of_memory\n");
    return 0;
}
