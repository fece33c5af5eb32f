/* Sub-memory, reshape, permute, equal, clone. */
#include "md_check.h"

static dnnl_memory_desc_t with_tag(int ndims, const dnnl_dim_t *dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

static void submemory(void) {
    dnnl_dims_t dims = {2, 40, 6, 7};
    dnnl_memory_desc_t nchw = with_tag(4, dims, dnnl_nchw), sub = NULL;
    dnnl_dims_t sd = {1, 8, 2, 3}, so = {1, 4, 2, 3};
    CHECK(dnnl_memory_desc_create_submemory(&sub, nchw, sd, so));
    EXPECT_LAYOUT(sub, 4, sd, sd, ((dnnl_dims_t) {1680, 42, 7, 1}));
    EXPECT(md_offset0(sub) == 1680 + 4 * 42 + 2 * 7 + 3);
    EXPECT(dnnl_memory_desc_get_size(sub) == 8 * 42 * 4);
    /* A sub-memory of a sub-memory adds the offsets. */
    dnnl_memory_desc_t subsub = NULL;
    CHECK(dnnl_memory_desc_create_submemory(&subsub, sub, (dnnl_dims_t) {1, 4, 1, 1}, (dnnl_dims_t) {0, 2, 1, 1}));
    EXPECT(md_offset0(subsub) == md_offset0(sub) + 2 * 42 + 7 + 1);
    CHECK(dnnl_memory_desc_destroy(subsub));
    CHECK(dnnl_memory_desc_destroy(sub));
    /* Out of bounds, negative: invalid. */
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, nchw, (dnnl_dims_t) {2, 8, 2, 3}, so),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, nchw, sd, (dnnl_dims_t) {-1, 4, 2, 3}),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, nchw, (dnnl_dims_t) {1, -8, 2, 3}, so),
            dnnl_invalid_arguments);
    /* An empty region is fine. */
    CHECK(dnnl_memory_desc_create_submemory(&sub, nchw, (dnnl_dims_t) {1, 0, 2, 3}, so));
    EXPECT(dnnl_memory_desc_get_size(sub) == 0);
    CHECK(dnnl_memory_desc_destroy(sub));
    CHECK(dnnl_memory_desc_destroy(nchw));

    /* Blocked: offsets on block boundaries; the end keeps the padding. */
    dnnl_memory_desc_t blocked = with_tag(4, dims, dnnl_nChw16c);
    CHECK(dnnl_memory_desc_create_submemory(&sub, blocked, (dnnl_dims_t) {1, 16, 2, 3}, (dnnl_dims_t) {1, 16, 2, 3}));
    EXPECT(md_offset0(sub) == 2016 + 672 + 2 * 112 + 3 * 16);
    EXPECT(same_dims(md_array(sub, dnnl_query_padded_dims), (dnnl_dims_t) {1, 16, 2, 3}, 4));
    CHECK(dnnl_memory_desc_destroy(sub));
    CHECK(dnnl_memory_desc_create_submemory(&sub, blocked, (dnnl_dims_t) {1, 8, 2, 3}, (dnnl_dims_t) {1, 32, 2, 3}));
    EXPECT(same_dims(md_array(sub, dnnl_query_padded_dims), (dnnl_dims_t) {1, 16, 2, 3}, 4));
    CHECK(dnnl_memory_desc_destroy(sub));
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, blocked, (dnnl_dims_t) {1, 8, 2, 3}, (dnnl_dims_t) {1, 4, 2, 3}),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, blocked, (dnnl_dims_t) {1, 17, 2, 3}, (dnnl_dims_t) {1, 0, 2, 3}),
            dnnl_unimplemented);
    CHECK(dnnl_memory_desc_destroy(blocked));

    /* Only blocked parents. */
    dnnl_memory_desc_t any = with_tag(4, dims, dnnl_format_tag_any);
    CHECK_STATUS(dnnl_memory_desc_create_submemory(&sub, any, sd, so), dnnl_unimplemented);
    CHECK(dnnl_memory_desc_destroy(any));
}

static void reshape_and_permute(void) {
    dnnl_dims_t dims = {2, 3, 4, 5};
    dnnl_memory_desc_t nchw = with_tag(4, dims, dnnl_nchw), nhwc = with_tag(4, dims, dnnl_nhwc);
    dnnl_memory_desc_t out = NULL, expected = NULL;
    CHECK(dnnl_memory_desc_reshape(&out, nchw, 2, (dnnl_dims_t) {6, 20}));
    expected = with_tag(2, (dnnl_dims_t) {6, 20}, dnnl_ab);
    EXPECT(dnnl_memory_desc_equal(out, expected) == 1);
    CHECK(dnnl_memory_desc_destroy(expected));
    CHECK(dnnl_memory_desc_destroy(out));
    /* Adding dimensions of 1. */
    CHECK(dnnl_memory_desc_reshape(&out, nchw, 6, (dnnl_dims_t) {1, 2, 3, 1, 20, 1}));
    EXPECT(dnnl_memory_desc_get_size(out) == 480);
    CHECK(dnnl_memory_desc_destroy(out));
    /* nhwc: h and w can be joined, c and h cannot. */
    CHECK(dnnl_memory_desc_reshape(&out, nhwc, 3, (dnnl_dims_t) {2, 3, 20}));
    EXPECT(same_dims(md_array(out, dnnl_query_strides), (dnnl_dims_t) {60, 1, 3}, 3));
    CHECK(dnnl_memory_desc_destroy(out));
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, nhwc, 2, (dnnl_dims_t) {6, 20}), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, nchw, 2, (dnnl_dims_t) {7, 20}), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, nchw, 0, (dnnl_dims_t) {0}), dnnl_invalid_arguments);
    /* A padded blocked dimension cannot be split or joined. */
    dnnl_memory_desc_t blocked = with_tag(4, (dnnl_dims_t) {2, 17, 3, 5}, dnnl_nChw16c);
    CHECK(dnnl_memory_desc_reshape(&out, blocked, 3, (dnnl_dims_t) {2, 17, 15}));
    CHECK(dnnl_memory_desc_destroy(out));
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, blocked, 2, (dnnl_dims_t) {34, 15}), dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_destroy(blocked));

    /* The header's example: swapping the axes of ab gives ba. */
    dnnl_memory_desc_t ab = with_tag(2, (dnnl_dims_t) {2, 3}, dnnl_ab);
    const int swap[] = {1, 0};
    CHECK(dnnl_memory_desc_permute_axes(&out, ab, swap));
    expected = with_tag(2, (dnnl_dims_t) {3, 2}, dnnl_ba);
    EXPECT(dnnl_memory_desc_equal(out, expected) == 1);
    CHECK(dnnl_memory_desc_destroy(expected));
    CHECK(dnnl_memory_desc_destroy(out));
    CHECK(dnnl_memory_desc_destroy(ab));
    const int perm[] = {0, 3, 1, 2};
    CHECK(dnnl_memory_desc_permute_axes(&out, nchw, perm));
    EXPECT_LAYOUT(out, 4, ((dnnl_dims_t) {2, 4, 5, 3}), ((dnnl_dims_t) {2, 4, 5, 3}),
            ((dnnl_dims_t) {60, 5, 1, 20}));
    CHECK(dnnl_memory_desc_destroy(out));
    const int repeated[] = {0, 0, 1, 2}, out_of_range[] = {0, 1, 2, 4};
    CHECK_STATUS(dnnl_memory_desc_permute_axes(&out, nchw, repeated), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_permute_axes(&out, nchw, out_of_range), dnnl_invalid_arguments);

    /* Host scalars and the zero descriptor neither reshape nor permute. */
    dnnl_memory_desc_t scalar = NULL, zero = NULL;
    CHECK(dnnl_memory_desc_create_host_scalar(&scalar, dnnl_f32));
    CHECK(dnnl_memory_desc_create_with_tag(&zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, scalar, 1, (dnnl_dims_t) {1}), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_reshape(&out, zero, 1, (dnnl_dims_t) {1}), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_permute_axes(&out, scalar, perm), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_permute_axes(&out, zero, perm), dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_destroy(scalar));
    CHECK(dnnl_memory_desc_destroy(zero));
    CHECK(dnnl_memory_desc_destroy(nchw));
    CHECK(dnnl_memory_desc_destroy(nhwc));
}

static void equal_and_clone(void) {
    dnnl_dims_t dims = {2, 3, 4, 5};
    dnnl_memory_desc_t a = with_tag(4, dims, dnnl_nchw), b = NULL, clone = NULL;
    CHECK(dnnl_memory_desc_create_with_strides(&b, 4, dims, dnnl_f32, NULL));
    EXPECT(dnnl_memory_desc_equal(a, b) == 1);
    EXPECT(dnnl_memory_desc_equal(a, a) == 1);
    EXPECT(dnnl_memory_desc_equal(a, NULL) == 0);
    EXPECT(dnnl_memory_desc_equal(NULL, NULL) == 1);
    CHECK(dnnl_memory_desc_destroy(b));
    CHECK(dnnl_memory_desc_create_with_tag(&b, 4, dims, dnnl_s32, dnnl_nchw));
    EXPECT(dnnl_memory_desc_equal(a, b) == 0); /* another data type */
    CHECK(dnnl_memory_desc_destroy(b));
    /* The stride of a dimension of 1 does not matter. */
    CHECK(dnnl_memory_desc_create_with_strides(&b, 2, (dnnl_dims_t) {1, 3}, dnnl_f32, (dnnl_dims_t) {3, 1}));
    CHECK(dnnl_memory_desc_create_with_strides(&clone, 2, (dnnl_dims_t) {1, 3}, dnnl_f32, (dnnl_dims_t) {7, 1}));
    EXPECT(dnnl_memory_desc_equal(b, clone) == 1);
    CHECK(dnnl_memory_desc_destroy(b));
    CHECK(dnnl_memory_desc_destroy(clone));

    /* A clone is equal, independent of the original, destroyed on its own. */
    CHECK(dnnl_memory_desc_clone(&clone, a));
    EXPECT(clone != a && dnnl_memory_desc_equal(clone, a) == 1);
    CHECK(dnnl_memory_desc_destroy(a));
    EXPECT(same_dims(md_array(clone, dnnl_query_dims), dims, 4));
    EXPECT(dnnl_memory_desc_get_size(clone) == 480);
    CHECK(dnnl_memory_desc_destroy(clone));
}

int main(void) {
    submemory();
    reshape_and_permute();
    equal_and_clone();
    printf("memory descriptor transformations ok\n");
    return 0;
}
