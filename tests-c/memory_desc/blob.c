/* dnnl_memory_desc_get_blob / _create_with_blob round trips. (Damaged blobs
 * are refused only by this library: see ours_only.c.) */
#include "md_check.h"

static void round_trip(const_dnnl_memory_desc_t md) {
    size_t size = 0;
    CHECK(dnnl_memory_desc_get_blob(NULL, &size, md));
    EXPECT(size > 0);
    uint8_t *blob = malloc(size);
    EXPECT(blob != NULL);
    CHECK(dnnl_memory_desc_get_blob(blob, &size, md));
    dnnl_memory_desc_t back = NULL;
    CHECK(dnnl_memory_desc_create_with_blob(&back, blob));
    EXPECT(dnnl_memory_desc_equal(back, md) == 1);
    EXPECT(dnnl_memory_desc_get_size(back) == dnnl_memory_desc_get_size(md));
    CHECK(dnnl_memory_desc_destroy(back));
    free(blob);
}

int main(void) {
    dnnl_dims_t dims = {2, 40, 6, 7};
    dnnl_memory_desc_t mds[9] = {NULL};
    CHECK(dnnl_memory_desc_create_with_tag(&mds[0], 4, dims, dnnl_f32, dnnl_nChw16c));
    CHECK(dnnl_memory_desc_create_submemory(&mds[1], mds[0], (dnnl_dims_t) {1, 16, 2, 3}, (dnnl_dims_t) {1, 16, 2, 3}));
    CHECK(dnnl_memory_desc_create_with_tag(&mds[2], 4, dims, dnnl_s8, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&mds[3], 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    CHECK(dnnl_memory_desc_create_with_strides(&mds[4], 2, dims, dnnl_bf16, (dnnl_dims_t) {100, 2}));
    CHECK(dnnl_memory_desc_create_host_scalar(&mds[5], dnnl_f64));
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&mds[6], 2, dims, dnnl_f32, 9, dnnl_s32, dnnl_s64));
    CHECK(dnnl_memory_desc_create_with_coo_encoding(&mds[7], 2, dims, dnnl_f32, 9, dnnl_s32));
    CHECK(dnnl_memory_desc_create_with_tag(&mds[8], 4, dims, dnnl_f32, dnnl_ABcd4b16a4b));
    for (int i = 0; i < 9; i++) {
        round_trip(mds[i]);
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    }
    printf("memory descriptor blobs ok\n");
    return 0;
}
