/* dnnl_memory_desc_create_with_tag / _with_strides / _host_scalar: layouts,
 * padding, sizes, the zero descriptor, format `any`, zero and run-time dims. */
#include "md_check.h"

static dnnl_memory_desc_t with_tag(int ndims, const dnnl_dim_t *dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, tag));
    EXPECT(md != NULL);
    return md;
}

static void plain_tags(void) {
    dnnl_dims_t dims = {2, 3, 4, 5};
    dnnl_memory_desc_t nchw = with_tag(4, dims, dnnl_f32, dnnl_nchw);
    EXPECT_LAYOUT(nchw, 4, dims, dims, ((dnnl_dims_t) {60, 20, 5, 1}));
    EXPECT(dnnl_memory_desc_get_size(nchw) == 480);
    dnnl_memory_desc_t abcd = with_tag(4, dims, dnnl_f32, dnnl_abcd);
    EXPECT(dnnl_memory_desc_equal(nchw, abcd) == 1);

    dnnl_memory_desc_t nhwc = with_tag(4, dims, dnnl_f32, dnnl_nhwc);
    EXPECT_LAYOUT(nhwc, 4, dims, dims, ((dnnl_dims_t) {60, 1, 15, 3}));
    EXPECT(dnnl_memory_desc_equal(nchw, nhwc) == 0);
    dnnl_memory_desc_t acdb = with_tag(4, dims, dnnl_f32, dnnl_acdb);
    EXPECT(dnnl_memory_desc_equal(nhwc, acdb) == 1);

    dnnl_dims_t d2 = {2, 3};
    dnnl_memory_desc_t ba = with_tag(2, d2, dnnl_bf16, dnnl_ba);
    EXPECT_LAYOUT(ba, 2, d2, d2, ((dnnl_dims_t) {1, 2}));
    EXPECT(dnnl_memory_desc_get_size(ba) == 12);

    dnnl_dims_t d12 = {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
    dnnl_memory_desc_t twelve = with_tag(12, d12, dnnl_f32, dnnl_abcdefghijlk);
    EXPECT_LAYOUT(twelve, 12, d12, d12,
            ((dnnl_dims_t) {64, 32, 32, 16, 16, 8, 8, 4, 4, 2, 1, 1}));
    EXPECT(dnnl_memory_desc_get_size(twelve) == 256);

    dnnl_memory_desc_t mds[] = {nchw, abcd, nhwc, acdb, ba, twelve};
    for (size_t i = 0; i < sizeof(mds) / sizeof(mds[0]); i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
}

static void blocked_tags(void) {
    dnnl_dims_t dims = {2, 17, 3, 5};
    dnnl_memory_desc_t md = with_tag(4, dims, dnnl_f32, dnnl_nChw16c);
    EXPECT_LAYOUT(md, 4, dims, ((dnnl_dims_t) {2, 32, 3, 5}), ((dnnl_dims_t) {480, 240, 80, 16}));
    int nblks = -1;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
    EXPECT(nblks == 1);
    EXPECT(md_array(md, dnnl_query_inner_blks)[0] == 16);
    EXPECT(md_array(md, dnnl_query_inner_idxs)[0] == 1);
    EXPECT(dnnl_memory_desc_get_size(md) == 2 * 32 * 3 * 5 * 4);
    /* The generic name of nChw16c is the same tag. */
    dnnl_memory_desc_t generic = with_tag(4, dims, dnnl_f32, dnnl_aBcd16b);
    EXPECT(dnnl_memory_desc_equal(md, generic));
    CHECK(dnnl_memory_desc_destroy(generic));
    CHECK(dnnl_memory_desc_destroy(md));

    md = with_tag(4, dims, dnnl_f32, dnnl_nChw8c);
    EXPECT_LAYOUT(md, 4, dims, ((dnnl_dims_t) {2, 24, 3, 5}), ((dnnl_dims_t) {360, 120, 40, 8}));
    CHECK(dnnl_memory_desc_destroy(md));

    dnnl_dims_t d3 = {2, 17, 5};
    md = with_tag(3, d3, dnnl_f32, dnnl_nCw16c);
    EXPECT_LAYOUT(md, 3, d3, ((dnnl_dims_t) {2, 32, 5}), ((dnnl_dims_t) {160, 80, 16}));
    CHECK(dnnl_memory_desc_destroy(md));

    dnnl_dims_t d5 = {2, 17, 2, 3, 5};
    md = with_tag(5, d5, dnnl_f32, dnnl_nCdhw16c);
    EXPECT_LAYOUT(md, 5, d5, ((dnnl_dims_t) {2, 32, 2, 3, 5}),
            ((dnnl_dims_t) {960, 480, 240, 80, 16}));
    CHECK(dnnl_memory_desc_destroy(md));

    /* Weights: OIhw16i16o pads both channel dims; the block of i is outer. */
    md = with_tag(4, dims, dnnl_f32, dnnl_OIhw16i16o);
    EXPECT_LAYOUT(md, 4, dims, ((dnnl_dims_t) {16, 32, 3, 5}),
            ((dnnl_dims_t) {7680, 3840, 1280, 256}));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
    EXPECT(nblks == 2);
    EXPECT(same_dims(md_array(md, dnnl_query_inner_blks), (dnnl_dims_t) {16, 16}, 2));
    EXPECT(same_dims(md_array(md, dnnl_query_inner_idxs), (dnnl_dims_t) {1, 0}, 2));
    EXPECT(dnnl_memory_desc_get_size(md) == 30720);
    CHECK(dnnl_memory_desc_destroy(md));

    md = with_tag(4, dims, dnnl_f32, dnnl_OIhw16o16i);
    EXPECT(same_dims(md_array(md, dnnl_query_inner_idxs), (dnnl_dims_t) {0, 1}, 2));
    CHECK(dnnl_memory_desc_destroy(md));

    md = with_tag(4, dims, dnnl_f32, dnnl_Oihw16o);
    EXPECT_LAYOUT(md, 4, dims, ((dnnl_dims_t) {16, 17, 3, 5}), ((dnnl_dims_t) {4080, 240, 80, 16}));
    CHECK(dnnl_memory_desc_destroy(md));

    dnnl_dims_t g5 = {2, 3, 17, 3, 5};
    md = with_tag(5, g5, dnnl_f32, dnnl_gOIhw16i16o);
    EXPECT_LAYOUT(md, 5, g5, ((dnnl_dims_t) {2, 16, 32, 3, 5}),
            ((dnnl_dims_t) {7680, 7680, 3840, 1280, 256}));
    CHECK(dnnl_memory_desc_destroy(md));

    /* Three inner blocks, the second dimension split twice. */
    md = with_tag(4, dims, dnnl_f32, dnnl_ABcd4b16a4b);
    EXPECT_LAYOUT(md, 4, dims, ((dnnl_dims_t) {16, 32, 3, 5}),
            ((dnnl_dims_t) {7680, 3840, 1280, 256}));
    EXPECT(same_dims(md_array(md, dnnl_query_inner_blks), (dnnl_dims_t) {4, 16, 4}, 3));
    EXPECT(same_dims(md_array(md, dnnl_query_inner_idxs), (dnnl_dims_t) {1, 0, 1}, 3));
    CHECK(dnnl_memory_desc_destroy(md));
}

static void any_zero_runtime(void) {
    dnnl_dims_t dims = {2, 17, 3, 5};
    dnnl_memory_desc_t md = with_tag(4, dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_format_kind_t kind = dnnl_format_kind_undef;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind));
    EXPECT(kind == dnnl_format_kind_any);
    EXPECT(dnnl_memory_desc_get_size(md) == 0);
    EXPECT(same_dims(md_array(md, dnnl_query_padded_dims), dims, 4));
    CHECK(dnnl_memory_desc_destroy(md));

    /* The zero descriptor, as C++'s memory::desc() makes it. */
    md = with_tag(0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef);
    EXPECT(md_ndims(md) == 0);
    CHECK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind));
    EXPECT(kind == dnnl_format_kind_undef);
    EXPECT(dnnl_memory_desc_get_size(md) == 0);
    dnnl_memory_desc_t undef_tag = with_tag(4, dims, dnnl_f32, dnnl_format_tag_undef);
    EXPECT(dnnl_memory_desc_equal(md, undef_tag) == 1);
    CHECK(dnnl_memory_desc_destroy(undef_tag));
    CHECK(dnnl_memory_desc_destroy(md));

    /* Zero-size tensors: strides still meaningful, size 0. */
    dnnl_dims_t zero = {2, 0, 4, 5};
    md = with_tag(4, zero, dnnl_f32, dnnl_nchw);
    EXPECT_LAYOUT(md, 4, zero, zero, ((dnnl_dims_t) {20, 20, 5, 1}));
    EXPECT(dnnl_memory_desc_get_size(md) == 0);
    CHECK(dnnl_memory_desc_destroy(md));

    /* Run-time dims: the strides outside them are run-time too. */
    dnnl_dims_t rt = {2, DNNL_RUNTIME_DIM_VAL, 4, 5};
    md = with_tag(4, rt, dnnl_f32, dnnl_nchw);
    EXPECT_LAYOUT(md, 4, rt, rt, ((dnnl_dims_t) {DNNL_RUNTIME_DIM_VAL, 20, 5, 1}));
    EXPECT(dnnl_memory_desc_get_size(md) == DNNL_RUNTIME_SIZE_VAL);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 4, rt, dnnl_f32, dnnl_format_tag_any),
            dnnl_invalid_arguments);
}

static void strides(void) {
    dnnl_dims_t dims = {2, 3, 4};
    dnnl_memory_desc_t dense = NULL, tagged = with_tag(3, dims, dnnl_f32, dnnl_abc);
    CHECK(dnnl_memory_desc_create_with_strides(&dense, 3, dims, dnnl_f32, NULL));
    EXPECT(dnnl_memory_desc_equal(dense, tagged) == 1);
    CHECK(dnnl_memory_desc_destroy(dense));
    CHECK(dnnl_memory_desc_destroy(tagged));

    dnnl_dims_t d2 = {2, 3};
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_strides(&md, 2, d2, dnnl_f32, (dnnl_dims_t) {10, 2}));
    EXPECT_LAYOUT(md, 2, d2, d2, ((dnnl_dims_t) {10, 2}));
    EXPECT(dnnl_memory_desc_get_size(md) == 80);
    CHECK(dnnl_memory_desc_destroy(md));
    /* Column-major, and a broadcast (stride 0) dimension. */
    CHECK(dnnl_memory_desc_create_with_strides(&md, 2, d2, dnnl_f32, (dnnl_dims_t) {1, 2}));
    EXPECT(dnnl_memory_desc_get_size(md) == 24);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_memory_desc_create_with_strides(&md, 2, d2, dnnl_f32, (dnnl_dims_t) {0, 1}));
    EXPECT(dnnl_memory_desc_get_size(md) == 12);
    CHECK(dnnl_memory_desc_destroy(md));
    /* A dimension of 1 may have any stride. */
    CHECK(dnnl_memory_desc_create_with_strides(
            &md, 2, (dnnl_dims_t) {2, 1}, dnnl_f32, (dnnl_dims_t) {2, 3}));
    CHECK(dnnl_memory_desc_destroy(md));
    /* Run-time strides. */
    CHECK(dnnl_memory_desc_create_with_strides(
            &md, 2, d2, dnnl_f32, (dnnl_dims_t) {DNNL_RUNTIME_DIM_VAL, 1}));
    EXPECT(dnnl_memory_desc_get_size(md) == DNNL_RUNTIME_SIZE_VAL);
    CHECK(dnnl_memory_desc_destroy(md));
    /* Dense strides outside a zero dimension are 0. */
    CHECK(dnnl_memory_desc_create_with_strides(&md, 3, (dnnl_dims_t) {2, 0, 3}, dnnl_f32, NULL));
    EXPECT(same_dims(md_array(md, dnnl_query_strides), (dnnl_dims_t) {0, 3, 1}, 3));
    CHECK(dnnl_memory_desc_destroy(md));
}

static void four_bit_and_host_scalar(void) {
    dnnl_memory_desc_t md = NULL;
    /* Two elements per byte; a row may not start mid-byte. */
    md = with_tag(2, (dnnl_dims_t) {2, 3}, dnnl_s4, dnnl_ba);
    EXPECT(dnnl_memory_desc_get_size(md) == 3);
    CHECK(dnnl_memory_desc_destroy(md));
    md = with_tag(2, (dnnl_dims_t) {1, 3}, dnnl_u4, dnnl_ab);
    EXPECT(dnnl_memory_desc_get_size(md) == 2);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK_STATUS(dnnl_memory_desc_create_with_tag(&md, 2, (dnnl_dims_t) {2, 3}, dnnl_s4, dnnl_ab),
            dnnl_invalid_arguments);

    CHECK(dnnl_memory_desc_create_host_scalar(&md, dnnl_f16));
    dnnl_format_kind_t kind = dnnl_format_kind_undef;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind));
    EXPECT(kind == dnnl_format_kind_host_scalar);
    dnnl_data_type_t dt = dnnl_data_type_undef;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    EXPECT(dt == dnnl_f16);
    EXPECT(md_ndims(md) == 1 && md_array(md, dnnl_query_dims)[0] == 1);
    EXPECT(dnnl_memory_desc_get_size(md) == 2);
    const dnnl_dims_t *strides = NULL;
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_strides, &strides), dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_destroy(md));
}

int main(void) {
    plain_tags();
    blocked_tags();
    any_zero_runtime();
    strides();
    four_bit_and_host_scalar();
    printf("memory descriptor creation ok\n");
    return 0;
}
