/* Helpers shared by the memory descriptor tests: read a descriptor back
 * through dnnl_memory_desc_query and compare it with expected values. */
#ifndef DNNL_TESTS_C_MD_CHECK_H
#define DNNL_TESTS_C_MD_CHECK_H

#include <stdint.h>
#include <string.h>

#include "check.h"

/* Queries one of the array-valued properties (dims, padded dims, strides...). */
static inline const dnnl_dim_t *md_array(const_dnnl_memory_desc_t md, dnnl_query_t what) {
    const dnnl_dims_t *array = NULL;
    CHECK(dnnl_memory_desc_query(md, what, &array));
    EXPECT(array != NULL);
    return *array;
}

static inline int md_ndims(const_dnnl_memory_desc_t md) {
    int ndims = -1;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims));
    return ndims;
}

static inline int64_t md_offset0(const_dnnl_memory_desc_t md) {
    int64_t offset = -1;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &offset));
    return offset;
}

static inline int same_dims(const dnnl_dim_t *got, const dnnl_dim_t *want, int n) {
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "  entry %d: got %lld, expected %lld\n", i, (long long)got[i],
                    (long long)want[i]);
            return 0;
        }
    return 1;
}

/* The descriptor has these dims, padded dims and strides (n entries each). */
#define EXPECT_LAYOUT(md, n, dims, padded, strides) \
    do { \
        EXPECT(md_ndims(md) == (n)); \
        EXPECT(same_dims(md_array(md, dnnl_query_dims), (dims), (n))); \
        EXPECT(same_dims(md_array(md, dnnl_query_padded_dims), (padded), (n))); \
        EXPECT(same_dims(md_array(md, dnnl_query_strides), (strides), (n))); \
    } while (0)

#endif /* DNNL_TESTS_C_MD_CHECK_H */
