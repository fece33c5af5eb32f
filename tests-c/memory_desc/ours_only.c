/* What this library adds to upstream's rules (upstream crashes or accepts):
 * NULL, dead and garbage handles, damaged blobs, and the deliberate
 * differences the header documents. Labelled ours-only. */
#include "md_check.h"

static const dnnl_status_t bad = dnnl_invalid_arguments;

static void handles(void) {
    dnnl_dims_t dims = {2, 3};
    dnnl_memory_desc_t md = NULL, out = NULL;
    const_dnnl_memory_desc_t garbage = (const_dnnl_memory_desc_t)(uintptr_t)0xdeadbee0;
    int32_t ndims = 0;
    CHECK(dnnl_memory_desc_destroy(NULL)); /* as upstream */
    CHECK_STATUS(dnnl_memory_desc_destroy((dnnl_memory_desc_t)(uintptr_t)garbage), bad);
    CHECK_STATUS(dnnl_memory_desc_query(NULL, dnnl_query_ndims_s32, &ndims), bad);
    CHECK_STATUS(dnnl_memory_desc_query_v2(garbage, dnnl_query_ndims_s32, 0, &ndims), bad);
    CHECK_STATUS(dnnl_memory_desc_clone(&out, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&out, NULL, dims, dims), bad);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, garbage, 2, dims), bad);
    CHECK_STATUS(dnnl_memory_desc_permute_axes(&out, NULL, (const int[]) {1, 0}), bad);
    size_t size = 0;
    CHECK_STATUS(dnnl_memory_desc_get_blob(NULL, &size, NULL), bad);
    EXPECT(dnnl_memory_desc_equal(garbage, NULL) == 0);

    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, dnnl_ab));
    /* NULL arrays and outputs. */
    CHECK_STATUS(dnnl_memory_desc_clone(NULL, md), bad);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&out, md, NULL, dims), bad);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&out, md, dims, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, md, 2, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_permute_axes(&out, md, NULL), bad);
    CHECK_STATUS(dnnl_memory_desc_get_blob(NULL, NULL, md), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_blob(&out, NULL), bad);
    /* A blob buffer smaller than the blob is refused, not overrun. */
    CHECK(dnnl_memory_desc_get_blob(NULL, &size, md));
    uint8_t small[8];
    size_t small_size = sizeof small;
    CHECK_STATUS(dnnl_memory_desc_get_blob(small, &small_size, md), bad);
    /* Negative buffer indices. */
    int32_t nh = 0;
    CHECK_STATUS(dnnl_memory_desc_query_v2(md, dnnl_query_num_handles_s32, -1, &nh), bad);
    EXPECT(dnnl_memory_desc_get_size_v2(md, -1) == 0);

    /* Destroyed: the handle is dead, a second destroy is refused. */
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK_STATUS(dnnl_memory_desc_destroy(md), bad);
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims), bad);
    EXPECT(dnnl_memory_desc_get_size(md) == 0);
}

static void stricter_arguments(void) {
    dnnl_memory_desc_t md = NULL;
    /* Negative strides, even on an empty tensor. */
    CHECK_STATUS(dnnl_memory_desc_create_with_strides(&md, 2, (dnnl_dims_t) {0, 3}, dnnl_f32, (dnnl_dims_t) {-1, 1}), bad);
    /* Sparse: negative nnz, index types that are not data types. */
    dnnl_dims_t dims = {5, 7};
    CHECK_STATUS(dnnl_memory_desc_create_with_csr_encoding(&md, 2, dims, dnnl_f32, -1, dnnl_s32, dnnl_s32), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_csr_encoding(&md, 2, dims, dnnl_f32, 9, (dnnl_data_type_t)99, dnnl_s32), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_csr_encoding(&md, 2, dims, dnnl_f32, 9, dnnl_s32, dnnl_data_type_undef), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_coo_encoding(&md, 2, dims, dnnl_f32, 9, (dnnl_data_type_t)99), bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_packed_encoding(&md, 2, dims, dnnl_f32, -4), bad);
    /* Dense strides outside a run-time dimension are run-time (upstream
     * computes them with an overflow). */
    CHECK(dnnl_memory_desc_create_with_strides(&md, 3, (dnnl_dims_t) {4, 4, DNNL_RUNTIME_DIM_VAL}, dnnl_f32, NULL));
    EXPECT(same_dims(md_array(md, dnnl_query_strides),
            (dnnl_dims_t) {DNNL_RUNTIME_DIM_VAL, DNNL_RUNTIME_DIM_VAL, 1}, 3));
    CHECK(dnnl_memory_desc_destroy(md));
}

static void damaged_blobs(void) {
    dnnl_memory_desc_t md = NULL, out = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, 4, (dnnl_dims_t) {2, 17, 3, 5}, dnnl_f32, dnnl_OIhw16i16o));
    size_t size = 0;
    CHECK(dnnl_memory_desc_get_blob(NULL, &size, md));
    /* The buffers are over-allocated and zero-filled, so that a damaged
     * length field can never make the library read past them. */
    const size_t room = size + 1024;
    uint8_t *blob = calloc(room, 1), *copy = calloc(room, 1);
    EXPECT(blob && copy);
    CHECK(dnnl_memory_desc_get_blob(blob, &size, md));
    /* Every single flipped byte is caught. */
    for (size_t i = 0; i < size; i++) {
        for (int bit = 0; bit < 8; bit += 7) {
            memcpy(copy, blob, room);
            copy[i] ^= (uint8_t)(1u << bit);
            CHECK_STATUS(dnnl_memory_desc_create_with_blob(&out, copy), bad);
        }
    }
    /* Truncated: the tail is missing (something else in its place). */
    for (size_t len = 0; len < size; len += 7) {
        memcpy(copy, blob, room);
        for (size_t i = len; i < size; i++) copy[i] = (uint8_t)~blob[i];
        CHECK_STATUS(dnnl_memory_desc_create_with_blob(&out, copy), bad);
    }
    /* Another format version (with a consistent checksum it would still be
     * refused: the version is checked first). */
    memcpy(copy, blob, room);
    copy[8] = 2;
    CHECK_STATUS(dnnl_memory_desc_create_with_blob(&out, copy), bad);
    /* Not a blob at all. */
    memset(copy, 0xab, room);
    CHECK_STATUS(dnnl_memory_desc_create_with_blob(&out, copy), bad);
    /* The intact blob still works. */
    CHECK(dnnl_memory_desc_create_with_blob(&out, blob));
    EXPECT(dnnl_memory_desc_equal(out, md) == 1);
    CHECK(dnnl_memory_desc_destroy(out));
    CHECK(dnnl_memory_desc_destroy(md));
    free(blob);
    free(copy);
}

int main(void) {
    handles();
    stricter_arguments();
    damaged_blobs();
    printf("ours-only memory descriptor rules ok\n");
    return 0;
}
