/* Sparse descriptors (CSR, COO, packed): buffers and their sizes. */
#include "md_check.h"

int main(void) {
    dnnl_dims_t dims = {5, 7};
    dnnl_memory_desc_t md = NULL;

    /* CSR: values, column indices, row pointers (rows + 1 of them). */
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&md, 2, dims, dnnl_f32, 9, dnnl_s32, dnnl_s64));
    EXPECT(dnnl_memory_desc_get_size(md) == 9 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 0) == 9 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 1) == 9 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 2) == 6 * 8);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 3) == 0);
    EXPECT(same_dims(md_array(md, dnnl_query_dims), dims, 2));
    CHECK(dnnl_memory_desc_destroy(md));

    /* COO: values, then one index buffer per dimension. */
    CHECK(dnnl_memory_desc_create_with_coo_encoding(&md, 2, dims, dnnl_f16, 9, dnnl_s32));
    EXPECT(dnnl_memory_desc_get_size_v2(md, 0) == 9 * 2);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 1) == 9 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 2) == 9 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 3) == 0);
    CHECK(dnnl_memory_desc_destroy(md));
    int32_t nhandles = 0;
    CHECK(dnnl_memory_desc_create_with_coo_encoding(&md, 1, dims, dnnl_f32, 3, dnnl_s32));
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_num_handles_s32, 0, &nhandles));
    EXPECT(nhandles == 2);
    CHECK(dnnl_memory_desc_destroy(md));

    /* Packed: like `any`, no buffers can be made from it (size 0). */
    dnnl_dims_t d3 = {2, 3, 4};
    CHECK(dnnl_memory_desc_create_with_packed_encoding(&md, 3, d3, dnnl_s8, 9));
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_num_handles_s32, 0, &nhandles));
    EXPECT(nhandles == 3 && dnnl_memory_desc_get_size(md) == 0);
    CHECK(dnnl_memory_desc_destroy(md));

    /* Empty and run-time shapes. */
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&md, 2, (dnnl_dims_t) {0, 7}, dnnl_f32, 0, dnnl_s32, dnnl_s32));
    EXPECT(dnnl_memory_desc_get_size_v2(md, 2) == 0);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_memory_desc_create_with_csr_encoding(
            &md, 2, (dnnl_dims_t) {DNNL_RUNTIME_DIM_VAL, 7}, dnnl_f32, 3, dnnl_s32, dnnl_s32));
    EXPECT(dnnl_memory_desc_get_size(md) == DNNL_RUNTIME_SIZE_VAL);
    CHECK(dnnl_memory_desc_destroy(md));

    /* CSR and COO take 1 or 2 dimensions; more is not implemented. */
    CHECK_STATUS(dnnl_memory_desc_create_with_csr_encoding(&md, 3, d3, dnnl_f32, 9, dnnl_s32, dnnl_s32),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_memory_desc_create_with_coo_encoding(&md, 3, d3, dnnl_f32, 9, dnnl_s32),
            dnnl_unimplemented);
    /* Shape rules are the dense ones. */
    CHECK_STATUS(dnnl_memory_desc_create_with_csr_encoding(&md, 2, (dnnl_dims_t) {5, -7}, dnnl_f32, 9, dnnl_s32, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_create_with_coo_encoding(&md, 2, dims, dnnl_data_type_undef, 9, dnnl_s32),
            dnnl_invalid_arguments);
    /* No dims: the zero descriptor. */
    CHECK(dnnl_memory_desc_create_with_packed_encoding(&md, 0, NULL, dnnl_f32, 9));
    EXPECT(md_ndims(md) == 0);
    CHECK(dnnl_memory_desc_destroy(md));
    printf("sparse memory descriptors ok\n");
    return 0;
}
