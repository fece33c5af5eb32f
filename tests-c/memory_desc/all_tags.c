/* Every format tag: created for its number of dimensions, padded to its
 * blocks, dense (the size is the product of the padded dims), and refused
 * for another number of dimensions. */
#include "md_check.h"

int main(void) {
    const dnnl_dim_t base[DNNL_MAX_NDIMS] = {3, 17, 5, 7, 2, 9, 3, 2, 3, 2, 2, 2};
    int tags = 0;
    for (int t = dnnl_a; t < dnnl_format_tag_last; t++) {
        const dnnl_format_tag_t tag = (dnnl_format_tag_t)t;
        dnnl_memory_desc_t md = NULL;
        int ndims = 0;
        for (int n = 1; n <= DNNL_MAX_NDIMS && !md; n++)
            if (dnnl_memory_desc_create_with_tag(&md, n, base, dnnl_f32, tag) == dnnl_success) ndims = n;
        if (!md) {
            fprintf(stderr, "tag %d (%s) fits no number of dimensions\n", t, dnnl_fmt_tag2str(tag));
            return 1;
        }
        int32_t nblks = 0;
        CHECK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
        const dnnl_dim_t *padded = md_array(md, dnnl_query_padded_dims);
        const dnnl_dim_t *blks = md_array(md, dnnl_query_inner_blks);
        const dnnl_dim_t *idxs = md_array(md, dnnl_query_inner_idxs);
        dnnl_dim_t blocks[DNNL_MAX_NDIMS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        for (int b = 0; b < nblks; b++) {
            EXPECT(idxs[b] >= 0 && idxs[b] < ndims && blks[b] > 1);
            blocks[idxs[b]] *= blks[b];
        }
        size_t elements = 1;
        for (int d = 0; d < ndims; d++) {
            EXPECT(padded[d] >= base[d] && padded[d] % blocks[d] == 0);
            EXPECT(padded[d] - base[d] < blocks[d]);
            elements *= (size_t)padded[d];
        }
        if (dnnl_memory_desc_get_size(md) != elements * 4) {
            fprintf(stderr, "tag %s: size %zu, expected %zu\n", dnnl_fmt_tag2str(tag),
                    dnnl_memory_desc_get_size(md), elements * 4);
            return 1;
        }
        /* The innermost stride is the product of the inner blocks. */
        const dnnl_dim_t *strides = md_array(md, dnnl_query_strides);
        dnnl_dim_t block_size = 1, min_stride = strides[0];
        for (int b = 0; b < nblks; b++) block_size *= blks[b];
        for (int d = 1; d < ndims; d++)
            if (strides[d] < min_stride) min_stride = strides[d];
        EXPECT(min_stride == block_size);
        CHECK(dnnl_memory_desc_destroy(md));
        if (ndims < DNNL_MAX_NDIMS)
            CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, ndims + 1, base, dnnl_f32, tag),
                    dnnl_invalid_arguments);
        tags++;
    }
    printf("%d format tags ok\n", tags);
    return 0;
}
