/* Host-scalar memory: dnnl_memory_create_host_scalar over a
 * dnnl_memory_desc_create_host_scalar descriptor copies the value in (official dnnl.h
 * note), dnnl_memory_get/set_host_scalar_value read and replace it, and the functions
 * refuse non-scalar memory and descriptors.
 *
 * What else upstream v3.13 does with such a memory (probed on Intel's library, which
 * the @ref run of this test repeats; issue 15): dnnl_memory_get_engine succeeds and
 * writes NULL (the value lives on the host, in no engine); dnnl_memory_map_data gives
 * the address of the value itself, the same address each time, so a write through it
 * is what dnnl_memory_get_host_scalar_value reads next and a set value shows through
 * it; unmapping it (or NULL) succeeds; buffer 1 does not exist (invalid arguments);
 * dnnl_memory_get_data_handle(_v2) and dnnl_memory_set_data_handle(_v2) are refused
 * with dnnl_invalid_arguments, leaving the output untouched. */
#include <stdint.h>

#include "check.h"

int main(void) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_host_scalar(&md, dnnl_f32));

    float value = 1.5f;
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create_host_scalar(&mem, md, &value));
    EXPECT(mem != NULL);
    value = -7.f; /* the memory holds its own copy */

    float got = 0.f;
    CHECK(dnnl_memory_get_host_scalar_value(mem, &got));
    EXPECT(got == 1.5f);
    const float next = 2.25f;
    CHECK(dnnl_memory_set_host_scalar_value(mem, &next));
    CHECK(dnnl_memory_get_host_scalar_value(mem, &got));
    EXPECT(got == 2.25f);

    const_dnnl_memory_desc_t got_md = NULL;
    CHECK(dnnl_memory_get_memory_desc(mem, &got_md));
    EXPECT(dnnl_memory_desc_equal(got_md, md) == 1);

    /* No engine, the value's address as the mapping, no data handle. */
    dnnl_engine_t owner = (dnnl_engine_t)(uintptr_t)0x5e5e5e50u;
    CHECK(dnnl_memory_get_engine(mem, &owner));
    EXPECT(owner == NULL);
    float *mapped = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&mapped));
    EXPECT(mapped != NULL);
    EXPECT(*mapped == 2.25f);
    *mapped = -3.5f;
    CHECK(dnnl_memory_unmap_data(mem, mapped));
    CHECK(dnnl_memory_get_host_scalar_value(mem, &got));
    EXPECT(got == -3.5f);
    float *again = NULL;
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&again, 0));
    EXPECT(again == mapped);
    const float later = 8.f;
    CHECK(dnnl_memory_set_host_scalar_value(mem, &later));
    EXPECT(*again == 8.f);
    CHECK(dnnl_memory_unmap_data_v2(mem, again, 0));
    CHECK(dnnl_memory_unmap_data(mem, NULL));
    void *other = (void *)(uintptr_t)0x5e5e5e50u;
    CHECK_STATUS(dnnl_memory_map_data_v2(mem, &other, 1), dnnl_invalid_arguments);
    EXPECT(other == (void *)(uintptr_t)0x5e5e5e50u);
    void *handle = (void *)(uintptr_t)0x5e5e5e50u;
    CHECK_STATUS(dnnl_memory_get_data_handle(mem, &handle), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_data_handle_v2(mem, &handle, 0), dnnl_invalid_arguments);
    EXPECT(handle == (void *)(uintptr_t)0x5e5e5e50u);
    float elsewhere = 0.f;
    CHECK_STATUS(dnnl_memory_set_data_handle(mem, &elsewhere), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_data_handle_v2(mem, &elsewhere, 0), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_data_handle(mem, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_memory_get_host_scalar_value(mem, &got));
    EXPECT(got == 8.f);

    CHECK_STATUS(dnnl_memory_get_host_scalar_value(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_host_scalar_value(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_host_scalar_value(NULL, &got), dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(mem));

    /* An s32 scalar. */
    dnnl_memory_desc_t md_s32 = NULL;
    CHECK(dnnl_memory_desc_create_host_scalar(&md_s32, dnnl_s32));
    int32_t iv = -123456;
    CHECK(dnnl_memory_create_host_scalar(&mem, md_s32, &iv));
    int32_t igot = 0;
    CHECK(dnnl_memory_get_host_scalar_value(mem, &igot));
    EXPECT(igot == -123456);
    int32_t *imapped = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&imapped));
    EXPECT(*imapped == -123456);
    CHECK(dnnl_memory_unmap_data(mem, imapped));
    CHECK(dnnl_memory_destroy(mem));

    /* Refused: a NULL value, a non-scalar descriptor, a non-scalar memory. */
    dnnl_memory_t bad = NULL;
    CHECK_STATUS(dnnl_memory_create_host_scalar(&bad, md, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create_host_scalar(NULL, md, &value), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create_host_scalar(&bad, NULL, &value), dnnl_invalid_arguments);
    dnnl_memory_desc_t plain = NULL;
    dnnl_dims_t dims = {1};
    CHECK(dnnl_memory_desc_create_with_tag(&plain, 1, dims, dnnl_f32, dnnl_a));
    CHECK_STATUS(dnnl_memory_create_host_scalar(&bad, plain, &value), dnnl_invalid_arguments);
    EXPECT(bad == NULL);

    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    CHECK(dnnl_memory_create(&mem, plain, engine, DNNL_MEMORY_ALLOCATE));
    CHECK_STATUS(dnnl_memory_get_host_scalar_value(mem, &got), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_host_scalar_value(mem, &next), dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(mem));
    CHECK(dnnl_engine_destroy(engine));

    CHECK(dnnl_memory_desc_destroy(plain));
    CHECK(dnnl_memory_desc_destroy(md_s32));
    CHECK(dnnl_memory_desc_destroy(md));
    printf("host scalar memory: ok\n");
    return 0;
}
