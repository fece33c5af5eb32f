/* Scales, zero points and precomputed reductions: which arguments, masks,
 * groups, data types, host scalars and quantization modes are accepted.
 * The C API has no getters for them (primitives read them); a refused call
 * must not disturb the attributes. Runs against upstream too. */
#include "attr_check.h"

static const dnnl_status_t bad = dnnl_invalid_arguments;

static int scales_arg_ok(int arg) {
    if (arg >= 0 && (arg & DNNL_ARG_MULTIPLE_SRC)) return 1;
    const int ok[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_DST, DNNL_ARG_WEIGHTS_0,
            DNNL_ARG_WEIGHTS_1, DNNL_ARG_WEIGHTS_2, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_SRC,
            DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_DST};
    for (int i = 0; i < (int)(sizeof ok / sizeof *ok); ++i)
        if (arg == ok[i]) return 1;
    return 0;
}

static int zero_points_arg_ok(int arg) {
    const int ok[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_2, DNNL_ARG_DST, DNNL_ARG_WEIGHTS_0, DNNL_ARG_WEIGHTS_1,
            DNNL_ARG_WEIGHTS_2};
    for (int i = 0; i < (int)(sizeof ok / sizeof *ok); ++i)
        if (arg == ok[i]) return 1;
    return 0;
}

static void arguments(void) {
    dnnl_primitive_attr_t attr = new_attr();
    const dnnl_dims_t groups = {1, 32};
    for (int arg = -2; arg < (1 << 17); arg += (arg < 2100 ? 1 : 7)) {
        dnnl_status_t want = scales_arg_ok(arg) ? dnnl_success : bad;
        CHECK_STATUS(dnnl_primitive_attr_set_scales_mask(attr, arg, 0), want);
        want = zero_points_arg_ok(arg) ? dnnl_success : bad;
        CHECK_STATUS(dnnl_primitive_attr_set_zero_points_mask(attr, arg, 0), want);
        want = arg == DNNL_ARG_SRC ? dnnl_success : bad;
        CHECK_STATUS(dnnl_primitive_attr_set_precomputed_reductions(attr, arg, 3, 2, groups, dnnl_s32), want);
    }
    const int far[] = {INT32_MIN, INT32_MIN | DNNL_ARG_MULTIPLE_SRC, -1, INT32_MAX};
    for (int i = 0; i < 4; ++i) {
        CHECK_STATUS(dnnl_primitive_attr_set_scales_mask(attr, far[i], 0), scales_arg_ok(far[i]) ? dnnl_success : bad);
        CHECK_STATUS(dnnl_primitive_attr_set_zero_points_mask(attr, far[i], 0), bad);
    }
    CHECK_STATUS(dnnl_primitive_attr_set_scales_mask(NULL, DNNL_ARG_SRC, 0), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_zero_points_mask(NULL, DNNL_ARG_SRC, 0), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_precomputed_reductions(NULL, DNNL_ARG_SRC, 0, 0, NULL, dnnl_s32), bad);
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void masks_and_groups(void) {
    dnnl_primitive_attr_t attr = new_attr();
    const dnnl_dims_t g = {2, 3}, g_zero = {0, 3}, g_neg = {-1, 3}, g_one = {1, 1}, g_big = {1000000, 7};
    const dnnl_dims_t g12 = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
    const int w = DNNL_ARG_WEIGHTS;
    /* Masks: any non-negative value. */
    CHECK_STATUS(dnnl_primitive_attr_set_scales_mask(attr, w, -1), bad);
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, w, 1 << 30));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, w, 0x1fff));
    CHECK_STATUS(dnnl_primitive_attr_set_zero_points_mask(attr, w, -1), bad);
    CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, w, 1 << 30));
    CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, w, -1, 0, NULL, dnnl_f32), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_precomputed_reductions(attr, DNNL_ARG_SRC, -1, 0, NULL, dnnl_s32), bad);
    /* Group counts: 0 or 2. */
    for (int n = 0; n <= 12; ++n) {
        dnnl_status_t want = (n == 0 || n == 2) ? dnnl_success : bad;
        CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, w, 0xfff, n, g12, dnnl_f32), want);
        CHECK_STATUS(dnnl_primitive_attr_set_zero_points(attr, w, 0xfff, n, g12, dnnl_s32), want);
        CHECK_STATUS(dnnl_primitive_attr_set_precomputed_reductions(attr, DNNL_ARG_SRC, 0xfff, n, g12, dnnl_s32), want);
    }
    CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, w, 3, -1, g, dnnl_f32), bad);
    /* Group sizes are positive, and groups need a non-zero mask. */
    CHECK(dnnl_primitive_attr_set_scales(attr, w, 3, 2, g, dnnl_f32));
    CHECK(dnnl_primitive_attr_set_scales(attr, w, 1, 2, g, dnnl_f32));
    CHECK(dnnl_primitive_attr_set_scales(attr, w, 3, 2, g_one, dnnl_f32));
    CHECK(dnnl_primitive_attr_set_scales(attr, w, 3, 2, g_big, dnnl_f32));
    CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, w, 3, 2, g_zero, dnnl_f32), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, w, 3, 2, g_neg, dnnl_f32), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, w, 0, 2, g, dnnl_f32), bad);
    CHECK(dnnl_primitive_attr_set_zero_points(attr, w, 3, 2, g, dnnl_s8));
    CHECK_STATUS(dnnl_primitive_attr_set_zero_points(attr, w, 3, 2, g_zero, dnnl_s8), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_zero_points(attr, w, 0, 2, g, dnnl_s32), bad);
    CHECK(dnnl_primitive_attr_set_precomputed_reductions(attr, DNNL_ARG_SRC, 3, 2, g, dnnl_s32));
    CHECK_STATUS(dnnl_primitive_attr_set_precomputed_reductions(attr, DNNL_ARG_SRC, 0, 2, g, dnnl_s32), bad);
    CHECK(dnnl_primitive_attr_set_precomputed_reductions(attr, DNNL_ARG_SRC, 0, 0, NULL, dnnl_s32));
    /* With no groups, the group pointer is not read. */
    CHECK(dnnl_primitive_attr_set_scales(attr, w, 3, 0, NULL, dnnl_f32));
    CHECK(dnnl_primitive_attr_set_zero_points(attr, w, 3, 0, NULL, dnnl_s32));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

/* Which data types each setter takes, with a common (mask 0) and a
 * per-dimension (mask 3) value, for every quantization mode of scales_v3. */
static void data_types(void) {
    dnnl_primitive_attr_t attr = new_attr();
    const dnnl_dims_t g = {2, 3};
    for (int dt = 0; dt <= 20; ++dt) {
        const dnnl_data_type_t t = (dnnl_data_type_t)dt;
        const int common_scale = t == dnnl_f32 || t == dnnl_bf16 || t == dnnl_f16;
        const int any_scale = common_scale || t == dnnl_f8_e4m3 || t == dnnl_e8m0;
        const int common_zp = t == dnnl_s32 || t == dnnl_s8 || t == dnnl_u8;
        const int any_zp = common_zp || t == dnnl_s4 || t == dnnl_u4;
        for (int q = 0; q <= 4; ++q) {
            const int q_ok = q >= dnnl_quantization_mode_static_sazp && q <= dnnl_quantization_mode_dynamic_fp;
            const dnnl_quantization_mode_t qm = (dnnl_quantization_mode_t)q;
            for (int gn = 0; gn <= 2; gn += 2) {
                CHECK_STATUS(dnnl_primitive_attr_set_scales_v3(attr, 33, 0, gn, g, t, 0, qm),
                        q_ok && common_scale && gn == 0 ? dnnl_success : bad);
                CHECK_STATUS(dnnl_primitive_attr_set_scales_v3(attr, 33, 3, gn, g, t, 0, qm),
                        q_ok && any_scale ? dnnl_success : bad);
                /* A host scalar is a single value: mask 0, no groups. */
                CHECK_STATUS(dnnl_primitive_attr_set_scales_v3(attr, 33, 0, gn, g, t, 1, qm),
                        q_ok && common_scale && gn == 0 ? dnnl_success : bad);
                CHECK_STATUS(dnnl_primitive_attr_set_scales_v3(attr, 33, 3, gn, g, t, 1, qm), bad);
            }
        }
        for (int gn = 0; gn <= 2; gn += 2) {
            CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, 33, 3, gn, g, t), any_scale ? dnnl_success : bad);
            CHECK_STATUS(dnnl_primitive_attr_set_scales_v2(attr, 33, 0, 0, g, t, 7), common_scale ? dnnl_success : bad);
            CHECK_STATUS(dnnl_primitive_attr_set_zero_points(attr, 33, 0, gn, g, t),
                    common_zp && gn == 0 ? dnnl_success : bad);
            CHECK_STATUS(dnnl_primitive_attr_set_zero_points(attr, 33, 3, gn, g, t), any_zp ? dnnl_success : bad);
            CHECK_STATUS(dnnl_primitive_attr_set_zero_points_v2(attr, 33, 0, gn, g, t, 1),
                    common_zp && gn == 0 ? dnnl_success : bad);
            CHECK_STATUS(dnnl_primitive_attr_set_zero_points_v2(attr, 33, 3, gn, g, t, -1), bad);
            CHECK_STATUS(dnnl_primitive_attr_set_precomputed_reductions(attr, DNNL_ARG_SRC, 3, gn, g, t),
                    t == dnnl_s32 ? dnnl_success : bad);
        }
    }
    CHECK(dnnl_primitive_attr_destroy(attr));
}

/* Setting again replaces the setting; clones carry the quantization. */
static void replace_and_clone(void) {
    dnnl_primitive_attr_t attr = new_attr(), copy = NULL;
    const dnnl_dims_t g = {4, 1};
    CHECK(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_WEIGHTS, 3, 2, g, dnnl_bf16));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 2));
    CHECK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 2, 0, NULL, dnnl_u8));
    CHECK(dnnl_primitive_attr_set_scales_v2(attr, DNNL_ARG_DST, 0, 0, NULL, dnnl_f32, 1));
    CHECK(dnnl_primitive_attr_clone(&copy, attr));
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(copy, DNNL_ARG_SRC, 0));
    CHECK(dnnl_primitive_attr_destroy(copy));
}

int main(void) {
    arguments();
    masks_and_groups();
    data_types();
    replace_and_clone();
    printf("quantization attributes: every rule checked\n");
    return 0;
}
