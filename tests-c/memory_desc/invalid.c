/* Invalid arguments that upstream refuses too (no NULL handles: upstream
 * crashes on those; they are in ours_only.c). */
#include "md_check.h"

int main(void) {
    dnnl_dims_t dims = {2, 3, 4, 5};
    dnnl_memory_desc_t md = NULL;
    const dnnl_status_t bad = dnnl_invalid_arguments;

    /* create_with_tag */
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(NULL, 4, dims, dnnl_f32, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 4, NULL, dnnl_f32, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, -1, dims, dnnl_f32, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 13, dims, dnnl_f32, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 3, dims, dnnl_f32, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_data_type_undef, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 4, dims, (dnnl_data_type_t)99, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_f32, (dnnl_format_tag_t)5000), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_f32, dnnl_format_tag_last), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 4, (dnnl_dims_t) {2, -3, 4, 5}, dnnl_f32, dnnl_nchw), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(
            &md, 4, (dnnl_dims_t) {2, DNNL_RUNTIME_DIM_VAL, 4, 5}, dnnl_f32, dnnl_format_tag_any), bad);
    /* create_with_strides */
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(NULL, 4, dims, dnnl_f32, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(&md, 4, NULL, dnnl_f32, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(&md, 13, dims, dnnl_f32, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(&md, 4, dims, dnnl_data_type_undef, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(&md, 2, dims, dnnl_f32, (dnnl_dims_t) {-3, 1}), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(&md, 2, (dnnl_dims_t) {2, 3}, dnnl_f32, (dnnl_dims_t) {2, 1}), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(&md, 2, (dnnl_dims_t) {2, 3}, dnnl_s4, (dnnl_dims_t) {3, 1}), bad);
    /* host scalar and sparse */
    CHECK_STATUS(dnnl_memory_desc_create_host_scalar(NULL, dnnl_f32), bad);
    CHECK_STATUS(dnnl_memory_desc_create_host_scalar(&md, dnnl_data_type_undef), bad);
    CHECK_STATUS(dnnl_memory_desc_create_host_scalar(&md, (dnnl_data_type_t)77), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_csr_encoding(NULL, 2, dims, dnnl_f32, 1, dnnl_s32, dnnl_s32), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_coo_encoding(&md, 2, NULL, dnnl_f32, 1, dnnl_s32), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_packed_encoding(&md, 13, dims, dnnl_f32, 1), bad);

    /* Transformations of a valid descriptor with bad arguments. */
    dnnl_memory_desc_t nchw = NULL, out = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&nchw, 4, dims, dnnl_f32, dnnl_nchw));
    CHECK_STATUS(dnnl_memory_desc_create_submemory(NULL, nchw, dims, (dnnl_dims_t) {0}), bad);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&out, nchw, (dnnl_dims_t) {2, 3, 4, 6}, (dnnl_dims_t) {0}), bad);
    CHECK_STATUS(dnnl_memory_desc_reshape(NULL, nchw, 2, (dnnl_dims_t) {6, 20}), bad);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, nchw, -1, (dnnl_dims_t) {6, 20}), bad);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, nchw, 2, (dnnl_dims_t) {6, -20}), bad);
    const int perm[] = {3, 2, 1, 0};
    CHECK_STATUS(dnnl_memory_desc_permute_axes(NULL, nchw, perm), bad);
    size_t size = 0;
    CHECK_STATUS(dnnl_memory_desc_query(nchw, dnnl_query_ndims_s32, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_query_v2(nchw, dnnl_query_dims, 0, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_blob(NULL, (const uint8_t *)&size), bad);
    EXPECT(dnnl_memory_desc_get_size(NULL) == 0);
    EXPECT(dnnl_memory_desc_get_size_v2(NULL, 0) == 0);
    EXPECT(dnnl_memory_desc_get_size_v2(nchw, 1) == 0);
    EXPECT(dnnl_memory_desc_equal(nchw, NULL) == 0);
    CHECK(dnnl_memory_desc_destroy(nchw));
    printf("invalid arguments refused\n");
    return 0;
}
