/* Post-ops: every kind appended and read back, kinds and lengths, the rules
 * of each append, the 32-entry limit, clones, and the post-ops of
 * attributes. Runs against upstream too. */
#include <math.h>

#include "attr_check.h"

static const dnnl_status_t bad = dnnl_invalid_arguments;

static void every_kind(void) {
    dnnl_post_ops_t po = new_post_ops();
    EXPECT(dnnl_post_ops_len(po) == 0);
    EXPECT(dnnl_post_ops_get_kind(po, 0) == dnnl_undefined_primitive);
    dnnl_memory_desc_t src1 = md2d(1, 6, dnnl_bf16, dnnl_ab), src2 = md2d(4, 6, dnnl_s8, dnnl_ab);
    CHECK(dnnl_post_ops_append_sum(po, 2.f, 3, dnnl_s8));
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_clip, -1.5f, 2.5f));
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_mul, src1));
    CHECK(dnnl_post_ops_append_binary_v2(po, dnnl_binary_select, src1, src2));
    CHECK(dnnl_post_ops_append_prelu(po, 5));
    CHECK(dnnl_post_ops_append_dw(po, dnnl_s8, dnnl_data_type_undef, dnnl_u8, 3, 2, 1));
    CHECK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
    EXPECT(dnnl_post_ops_len(po) == 7);
    const dnnl_primitive_kind_t kinds[] = {dnnl_sum, dnnl_eltwise, dnnl_binary, dnnl_binary, dnnl_prelu,
            dnnl_convolution, dnnl_sum};
    for (int i = 0; i < 7; ++i)
        EXPECT(dnnl_post_ops_get_kind(po, i) == kinds[i]);
    EXPECT(dnnl_post_ops_get_kind(po, 7) == dnnl_undefined_primitive);
    EXPECT(dnnl_post_ops_get_kind(po, -1) == dnnl_undefined_primitive);

    float scale = 0, alpha = 0, beta = 0;
    int32_t zp = 0;
    int mask = 0;
    dnnl_data_type_t dt = 0, wdt = 0, bdt = 0, ddt = 0;
    dnnl_alg_kind_t alg = 0;
    dnnl_dim_t k = 0, s = 0, p = 0;
    CHECK(dnnl_post_ops_get_params_sum(po, 0, &scale, &zp, &dt));
    EXPECT(scale == 2.f && zp == 3 && dt == dnnl_s8);
    CHECK(dnnl_post_ops_get_params_sum(po, 6, &scale, &zp, &dt));
    EXPECT(scale == 1.f && zp == 0 && dt == dnnl_data_type_undef);
    CHECK(dnnl_post_ops_get_params_eltwise(po, 1, &alg, &alpha, &beta));
    EXPECT(alg == dnnl_eltwise_clip && alpha == -1.5f && beta == 2.5f);
    const_dnnl_memory_desc_t got1 = NULL, got2 = NULL, again = NULL;
    CHECK(dnnl_post_ops_get_params_binary(po, 2, &alg, &got1));
    EXPECT(alg == dnnl_binary_mul && got1 != src1 && dnnl_memory_desc_equal(got1, src1));
    CHECK(dnnl_post_ops_get_params_binary(po, 2, NULL, &again));
    EXPECT(again == got1);
    CHECK(dnnl_post_ops_get_params_binary_v2(po, 2, &alg, &got1, &got2));
    EXPECT(alg == dnnl_binary_mul && got2 != NULL);
    CHECK(dnnl_post_ops_get_params_binary_v2(po, 3, &alg, &got1, &got2));
    EXPECT(alg == dnnl_binary_select && dnnl_memory_desc_equal(got1, src1) && dnnl_memory_desc_equal(got2, src2));
    CHECK(dnnl_post_ops_get_params_prelu(po, 4, &mask));
    EXPECT(mask == 5);
    CHECK(dnnl_post_ops_get_params_dw(po, 5, &wdt, &bdt, &ddt, &k, &s, &p));
    EXPECT(wdt == dnnl_s8 && bdt == dnnl_data_type_undef && ddt == dnnl_u8 && k == 3 && s == 2 && p == 1);
    /* The post-ops keep copies of the descriptors. */
    CHECK(dnnl_memory_desc_destroy(src1));
    CHECK(dnnl_memory_desc_destroy(src2));
    CHECK(dnnl_post_ops_get_params_binary(po, 2, &alg, &got1));
    EXPECT(md_ndims(got1) == 2);

    /* Outputs are optional. */
    CHECK(dnnl_post_ops_get_params_sum(po, 0, NULL, NULL, NULL));
    CHECK(dnnl_post_ops_get_params_eltwise(po, 1, NULL, NULL, NULL));
    CHECK(dnnl_post_ops_get_params_binary_v2(po, 3, NULL, NULL, NULL));
    CHECK(dnnl_post_ops_get_params_prelu(po, 4, NULL));
    CHECK(dnnl_post_ops_get_params_dw(po, 5, NULL, NULL, NULL, NULL, NULL, NULL));
    /* Another kind's index, or out of range. */
    const int wrong_sum[] = {1, 2, 4, 5, 7, -1};
    for (int i = 0; i < 6; ++i)
        CHECK_STATUS(dnnl_post_ops_get_params_sum(po, wrong_sum[i], &scale, &zp, &dt), bad);
    CHECK_STATUS(dnnl_post_ops_get_params_eltwise(po, 0, &alg, &alpha, &beta), bad);
    CHECK_STATUS(dnnl_post_ops_get_params_eltwise(po, 7, &alg, &alpha, &beta), bad);
    CHECK_STATUS(dnnl_post_ops_get_params_binary(po, 1, &alg, &got1), bad);
    CHECK_STATUS(dnnl_post_ops_get_params_binary_v2(po, -1, &alg, &got1, &got2), bad);
    CHECK_STATUS(dnnl_post_ops_get_params_prelu(po, 7, &mask), bad); /* other kinds: ours_only.c */
    CHECK_STATUS(dnnl_post_ops_get_params_dw(po, 4, &wdt, &bdt, &ddt, &k, &s, &p), bad);
    CHECK_STATUS(dnnl_post_ops_get_params_dw(po, 100, &wdt, &bdt, &ddt, &k, &s, &p), bad);
    CHECK(dnnl_post_ops_destroy(po));
}

static void eltwise_rules(void) {
    const float values[] = {-1.f, 0.f, 0.5f, 1.f, 2.f};
    for (int a = 0; a < 0x200; ++a) {
        const dnnl_alg_kind_t alg = (dnnl_alg_kind_t)a;
        const int known = (a >= dnnl_eltwise_relu && a <= dnnl_eltwise_hardswish)
                || (a >= dnnl_eltwise_relu_use_dst_for_bwd && a <= dnnl_eltwise_clip_v2_use_dst_for_bwd);
        const int clip = alg == dnnl_eltwise_clip || alg == dnnl_eltwise_clip_v2
                || alg == dnnl_eltwise_clip_v2_use_dst_for_bwd;
        const int alpha_non_negative
                = alg == dnnl_eltwise_relu_use_dst_for_bwd || alg == dnnl_eltwise_elu_use_dst_for_bwd;
        for (int x = 0; x < 5; ++x)
            for (int y = 0; y < 5; ++y) {
                const float alpha = values[x], beta = values[y];
                const int ok = known && !(clip && beta < alpha) && !(alpha_non_negative && alpha < 0);
                dnnl_post_ops_t po = new_post_ops();
                CHECK_STATUS(dnnl_post_ops_append_eltwise(po, alg, alpha, beta), ok ? dnnl_success : bad);
                EXPECT(dnnl_post_ops_len(po) == ok);
                CHECK(dnnl_post_ops_destroy(po));
            }
    }
    /* Any value is stored as given. */
    dnnl_post_ops_t po = new_post_ops();
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, NAN, INFINITY));
    dnnl_alg_kind_t alg = 0;
    float alpha = 0, beta = 0;
    CHECK(dnnl_post_ops_get_params_eltwise(po, 0, &alg, &alpha, &beta));
    EXPECT(alg == dnnl_eltwise_relu && isnan(alpha) && isinf(beta));
    CHECK_STATUS(dnnl_post_ops_append_eltwise(po, dnnl_binary_add, 0, 0), bad);
    CHECK_STATUS(dnnl_post_ops_append_eltwise(NULL, dnnl_eltwise_relu, 0, 0), bad);
    CHECK(dnnl_post_ops_destroy(po));
}

static void binary_rules(void) {
    dnnl_memory_desc_t full = md2d(4, 6, dnnl_f32, dnnl_ab), any = md2d(4, 6, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t zero = md_zero();
    dnnl_post_ops_t po = new_post_ops();
    for (int a = dnnl_binary_add - 16; a < dnnl_binary_select + 16; ++a) {
        const dnnl_alg_kind_t alg = (dnnl_alg_kind_t)a;
        const int known = a >= dnnl_binary_add && a <= dnnl_binary_select;
        if (alg != dnnl_binary_select) /* select needs a third operand: ours_only.c */
            CHECK_STATUS(dnnl_post_ops_append_binary(po, alg, full), known ? dnnl_success : bad);
        CHECK_STATUS(dnnl_post_ops_append_binary_v2(po, alg, full, full), known ? dnnl_success : bad);
        dnnl_post_ops_destroy(po);
        po = new_post_ops();
    }
    const int others[] = {dnnl_alg_kind_undef, dnnl_eltwise_relu, dnnl_convolution_direct, 0x12345};
    for (int i = 0; i < 4; ++i)
        CHECK_STATUS(dnnl_post_ops_append_binary(po, (dnnl_alg_kind_t)others[i], full), bad);
    /* Any descriptor is stored: format `any`, the zero descriptor. */
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, any));
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, zero));
    /* A third operand given to another algorithm is kept. */
    CHECK(dnnl_post_ops_append_binary_v2(po, dnnl_binary_add, full, any));
    CHECK(dnnl_post_ops_append_binary_v2(po, dnnl_binary_sub, full, NULL));
    const_dnnl_memory_desc_t got1 = NULL, got2 = NULL;
    dnnl_alg_kind_t alg = 0;
    CHECK(dnnl_post_ops_get_params_binary(po, 0, &alg, &got1));
    EXPECT(dnnl_memory_desc_equal(got1, any));
    CHECK(dnnl_post_ops_get_params_binary(po, 1, &alg, &got1));
    EXPECT(md_ndims(got1) == 0);
    CHECK(dnnl_post_ops_get_params_binary_v2(po, 2, &alg, &got1, &got2));
    EXPECT(alg == dnnl_binary_add && dnnl_memory_desc_equal(got2, any));
    /* (Upstream leaves the third operand of a v2 append without one
     * uninitialised: what it reports then is in ours_only.c.) */
    CHECK(dnnl_post_ops_get_params_binary_v2(po, 3, &alg, &got1, &got2));
    EXPECT(alg == dnnl_binary_sub);
    CHECK_STATUS(dnnl_post_ops_append_binary(NULL, dnnl_binary_add, full), bad);
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_memory_desc_destroy(full));
    CHECK(dnnl_memory_desc_destroy(any));
    CHECK(dnnl_memory_desc_destroy(zero));
}

static void sum_prelu_dw_rules(void) {
    dnnl_post_ops_t po = new_post_ops();
    /* Sums and PReLU masks are stored as given; several sums are fine. */
    CHECK(dnnl_post_ops_append_sum(po, -3.f, -7, dnnl_f32));
    CHECK(dnnl_post_ops_append_sum(po, 0.f, 0, dnnl_data_type_undef));
    CHECK(dnnl_post_ops_append_prelu(po, -1));
    int mask = 0;
    CHECK(dnnl_post_ops_get_params_prelu(po, 2, &mask));
    EXPECT(mask == -1);
    CHECK_STATUS(dnnl_post_ops_append_sum(NULL, 1.f, 0, dnnl_f32), bad);
    CHECK_STATUS(dnnl_post_ops_append_prelu(NULL, 0), bad);
    /* Depthwise: kernel and stride positive, left padding below the kernel,
     * weights and destination types defined. */
    const dnnl_dim_t ok[][3] = {{3, 1, 1}, {3, 1, 0}, {3, 1, -1}, {3, 3, 1}, {3, 4, 2}, {5, 1, 4}, {1, 1, 0}, {2, 1, 1}};
    for (int i = 0; i < 8; ++i)
        CHECK(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, ok[i][0], ok[i][1], ok[i][2]));
    const dnnl_dim_t refused[][3] = {{0, 1, 0}, {-1, 1, 0}, {3, 0, 1}, {3, -1, 1}, {3, 1, 3}, {1, 1, 1}};
    for (int i = 0; i < 6; ++i)
        CHECK_STATUS(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, refused[i][0], refused[i][1], refused[i][2]), bad);
    CHECK_STATUS(dnnl_post_ops_append_dw(po, dnnl_data_type_undef, dnnl_f32, dnnl_f32, 3, 1, 1), bad);
    CHECK_STATUS(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_data_type_undef, 3, 1, 1), bad);
    CHECK(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_data_type_undef, dnnl_f32, 3, 1, 1));
    CHECK_STATUS(dnnl_post_ops_append_dw(NULL, dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 1), bad);
    EXPECT(dnnl_post_ops_len(po) == 12);
    dnnl_dim_t k = 0, s = 0, p = 0;
    CHECK(dnnl_post_ops_get_params_dw(po, 5, NULL, NULL, NULL, &k, &s, &p));
    EXPECT(k == 3 && s == 1 && p == -1);
    CHECK(dnnl_post_ops_destroy(po));
}

/* At most 32 entries: the 33rd is out_of_memory, checked before its arguments. */
static void limit(void) {
    dnnl_post_ops_t po = new_post_ops(), copy = NULL;
    dnnl_memory_desc_t md = md2d(2, 3, dnnl_f32, dnnl_ab);
    for (int i = 0; i < 32; ++i)
        CHECK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_f32));
    const dnnl_status_t full = dnnl_out_of_memory;
    CHECK_STATUS(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_f32), full);
    CHECK_STATUS(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0, 0), full);
    CHECK_STATUS(dnnl_post_ops_append_eltwise(po, dnnl_alg_kind_undef, 0, 0), full);
    CHECK_STATUS(dnnl_post_ops_append_binary(po, dnnl_binary_add, md), full);
    CHECK_STATUS(dnnl_post_ops_append_binary_v2(po, dnnl_binary_select, md, md), full);
    CHECK_STATUS(dnnl_post_ops_append_prelu(po, 0), full);
    CHECK_STATUS(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 1), full);
    CHECK_STATUS(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, 0, 1, 1), full);
    EXPECT(dnnl_post_ops_len(po) == 32);
    CHECK(dnnl_post_ops_clone(&copy, po));
    EXPECT(dnnl_post_ops_len(copy) == 32);
    CHECK(dnnl_post_ops_destroy(copy));
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_memory_desc_destroy(md));
}

static void clones(void) {
    dnnl_post_ops_t po = new_post_ops(), copy = NULL;
    CHECK_STATUS(dnnl_post_ops_create(NULL), bad);
    CHECK_STATUS(dnnl_post_ops_clone(NULL, po), bad);
    CHECK_STATUS(dnnl_post_ops_clone(&copy, NULL), bad);
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0, 0));
    CHECK(dnnl_post_ops_clone(&copy, po));
    CHECK(dnnl_post_ops_append_prelu(po, 0));
    CHECK(dnnl_post_ops_append_sum(copy, 1.f, 0, dnnl_data_type_undef));
    CHECK(dnnl_post_ops_append_sum(copy, 1.f, 0, dnnl_data_type_undef));
    EXPECT(dnnl_post_ops_len(po) == 2 && dnnl_post_ops_len(copy) == 3);
    EXPECT(dnnl_post_ops_get_kind(po, 1) == dnnl_prelu && dnnl_post_ops_get_kind(copy, 1) == dnnl_sum);
    CHECK(dnnl_post_ops_destroy(po));
    EXPECT(dnnl_post_ops_len(copy) == 3);
    CHECK(dnnl_post_ops_destroy(copy));
    /* NULL: length 0, kind undefined (as upstream). */
    EXPECT(dnnl_post_ops_len(NULL) == 0);
    EXPECT(dnnl_post_ops_get_kind(NULL, 0) == dnnl_undefined_primitive);
}

/* The post-ops of attributes: a handle owned by the attributes, the same
 * for their whole life, showing the attributes' current post-ops. */
static void attribute_post_ops(void) {
    dnnl_primitive_attr_t attr = new_attr(), copy = NULL;
    const_dnnl_post_ops_t view = NULL, again = NULL, copy_view = NULL;
    CHECK(dnnl_primitive_attr_get_post_ops(attr, &view));
    EXPECT(view != NULL && dnnl_post_ops_len(view) == 0);
    CHECK_STATUS(dnnl_primitive_attr_get_post_ops(attr, NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_post_ops(NULL, &again), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_post_ops(attr, NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_post_ops(NULL, view), bad);

    dnnl_post_ops_t po = new_post_ops();
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0, 0));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_primitive_attr_get_post_ops(attr, &again));
    EXPECT(again == view && again != po && dnnl_post_ops_len(view) == 1);
    /* The attributes keep a copy... */
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_tanh, 0, 0));
    EXPECT(dnnl_post_ops_len(view) == 1);
    CHECK(dnnl_post_ops_destroy(po));
    EXPECT(dnnl_post_ops_len(view) == 1);
    /* ...and appending through the view changes them (as upstream). */
    CHECK(dnnl_post_ops_append_eltwise((dnnl_post_ops_t)view, dnnl_eltwise_abs, 0, 0));
    EXPECT(dnnl_post_ops_len(view) == 2 && dnnl_post_ops_get_kind(view, 1) == dnnl_eltwise);
    /* Setting the attributes' own post-ops is a copy onto itself. */
    CHECK(dnnl_primitive_attr_set_post_ops(attr, view));
    EXPECT(dnnl_post_ops_len(view) == 2);
    /* A clone has post-ops of its own. */
    CHECK(dnnl_primitive_attr_clone(&copy, attr));
    CHECK(dnnl_primitive_attr_get_post_ops(copy, &copy_view));
    EXPECT(copy_view != view && dnnl_post_ops_len(copy_view) == 2);
    CHECK(dnnl_post_ops_append_prelu((dnnl_post_ops_t)copy_view, 1));
    EXPECT(dnnl_post_ops_len(copy_view) == 3 && dnnl_post_ops_len(view) == 2);
    /* A clone of the view is an ordinary post-ops object. */
    dnnl_post_ops_t detached = NULL;
    CHECK(dnnl_post_ops_clone(&detached, view));
    CHECK(dnnl_primitive_attr_set_post_ops(copy, detached));
    EXPECT(dnnl_post_ops_len(copy_view) == 2);
    CHECK(dnnl_post_ops_destroy(detached));
    /* Setting empty post-ops empties them. */
    dnnl_post_ops_t empty = new_post_ops();
    CHECK(dnnl_primitive_attr_set_post_ops(attr, empty));
    EXPECT(dnnl_post_ops_len(view) == 0);
    CHECK(dnnl_post_ops_destroy(empty));
    CHECK(dnnl_primitive_attr_destroy(copy));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

int main(void) {
    every_kind();
    eltwise_rules();
    binary_rules();
    sum_prelu_dw_rules();
    limit();
    clones();
    attribute_post_ops();
    printf("post-ops: every kind and rule checked\n");
    return 0;
}
