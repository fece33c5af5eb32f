/* Primitive attributes: creation, cloning, and every setter/getter pair but
 * the quantization ones and post-ops (quant.c, post_ops.c): defaults, round
 * trips, the values upstream refuses, and that a refused value changes
 * nothing. Runs against upstream too. */
#include "attr_check.h"

static const dnnl_status_t bad = dnnl_invalid_arguments;

static void creation(void) {
    dnnl_primitive_attr_t attr = new_attr(), copy = NULL;
    CHECK_STATUS(dnnl_primitive_attr_create(NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_clone(NULL, attr), bad);
    CHECK_STATUS(dnnl_primitive_attr_clone(&copy, NULL), bad);
    EXPECT(copy == NULL);
    CHECK(dnnl_primitive_attr_clone(&copy, attr));
    EXPECT(copy != NULL && copy != attr);
    CHECK(dnnl_primitive_attr_destroy(copy));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void scratchpad(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_scratchpad_mode_t mode = (dnnl_scratchpad_mode_t)77;
    CHECK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
    EXPECT(mode == dnnl_scratchpad_mode_library);
    CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    CHECK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
    EXPECT(mode == dnnl_scratchpad_mode_user);
    CHECK_STATUS(dnnl_primitive_attr_set_scratchpad_mode(attr, (dnnl_scratchpad_mode_t)2), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_scratchpad_mode(attr, (dnnl_scratchpad_mode_t)-1), bad);
    CHECK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
    EXPECT(mode == dnnl_scratchpad_mode_user);
    CHECK_STATUS(dnnl_primitive_attr_get_scratchpad_mode(attr, NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_scratchpad_mode(NULL, &mode), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_scratchpad_mode(NULL, dnnl_scratchpad_mode_user), bad);
    CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_library));
    CHECK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
    EXPECT(mode == dnnl_scratchpad_mode_library);
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void fpmath(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_fpmath_mode_t mode = (dnnl_fpmath_mode_t)77;
    int to_int = 77;
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, &mode, &to_int));
    EXPECT(mode == dnnl_fpmath_mode_strict && to_int == 0);
    const dnnl_fpmath_mode_t modes[] = {dnnl_fpmath_mode_bf16, dnnl_fpmath_mode_f16, dnnl_fpmath_mode_any,
            dnnl_fpmath_mode_tf32, dnnl_fpmath_mode_strict};
    for (int i = 0; i < 5; ++i) {
        CHECK(dnnl_primitive_attr_set_fpmath_mode(attr, modes[i]));
        CHECK(dnnl_primitive_attr_get_fpmath_mode(attr, &mode));
        EXPECT(mode == modes[i]);
    }
    /* Any non-zero apply_to_int reads back as 1; the v1 setter clears it. */
    CHECK(dnnl_primitive_attr_set_fpmath_mode_v2(attr, dnnl_fpmath_mode_bf16, 5));
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, &mode, &to_int));
    EXPECT(mode == dnnl_fpmath_mode_bf16 && to_int == 1);
    CHECK(dnnl_primitive_attr_set_fpmath_mode_v2(attr, dnnl_fpmath_mode_f16, -3));
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, &mode, &to_int));
    EXPECT(mode == dnnl_fpmath_mode_f16 && to_int == 1);
    CHECK(dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_tf32));
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, &mode, &to_int));
    EXPECT(mode == dnnl_fpmath_mode_tf32 && to_int == 0);
    /* The v2 getter's outputs are optional. */
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, NULL, &to_int));
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, &mode, NULL));
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, NULL, NULL));
    /* Refused values. */
    CHECK_STATUS(dnnl_primitive_attr_set_fpmath_mode(attr, (dnnl_fpmath_mode_t)5), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_fpmath_mode(attr, (dnnl_fpmath_mode_t)-1), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_fpmath_mode_v2(attr, (dnnl_fpmath_mode_t)9, 1), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_fpmath_mode(attr, NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_fpmath_mode(NULL, &mode), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_fpmath_mode_v2(NULL, &mode, &to_int), bad);
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(attr, &mode, &to_int));
    EXPECT(mode == dnnl_fpmath_mode_tf32 && to_int == 0);
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void deterministic_and_accumulation(void) {
    dnnl_primitive_attr_t attr = new_attr();
    int value = 77;
    CHECK(dnnl_primitive_attr_get_deterministic(attr, &value));
    EXPECT(value == 0);
    CHECK(dnnl_primitive_attr_set_deterministic(attr, 5));
    CHECK(dnnl_primitive_attr_get_deterministic(attr, &value));
    EXPECT(value == 1);
    CHECK(dnnl_primitive_attr_set_deterministic(attr, 0));
    CHECK(dnnl_primitive_attr_get_deterministic(attr, &value));
    EXPECT(value == 0);
    CHECK(dnnl_primitive_attr_set_deterministic(attr, -1));
    CHECK(dnnl_primitive_attr_get_deterministic(attr, &value));
    EXPECT(value == 1);
    CHECK_STATUS(dnnl_primitive_attr_get_deterministic(attr, NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_deterministic(NULL, 1), bad);

    dnnl_accumulation_mode_t mode = (dnnl_accumulation_mode_t)77;
    CHECK(dnnl_primitive_attr_get_accumulation_mode(attr, &mode));
    EXPECT(mode == dnnl_accumulation_mode_strict);
    const dnnl_accumulation_mode_t modes[] = {dnnl_accumulation_mode_relaxed, dnnl_accumulation_mode_any,
            dnnl_accumulation_mode_s32, dnnl_accumulation_mode_f32, dnnl_accumulation_mode_f16,
            dnnl_accumulation_mode_strict, dnnl_accumulation_mode_f16};
    for (int i = 0; i < 7; ++i) {
        CHECK(dnnl_primitive_attr_set_accumulation_mode(attr, modes[i]));
        CHECK(dnnl_primitive_attr_get_accumulation_mode(attr, &mode));
        EXPECT(mode == modes[i]);
    }
    CHECK_STATUS(dnnl_primitive_attr_set_accumulation_mode(attr, (dnnl_accumulation_mode_t)6), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_accumulation_mode(attr, (dnnl_accumulation_mode_t)-1), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_accumulation_mode(attr, NULL), bad);
    CHECK(dnnl_primitive_attr_get_accumulation_mode(attr, &mode));
    EXPECT(mode == dnnl_accumulation_mode_f16);
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void rounding(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_rounding_mode_t mode = (dnnl_rounding_mode_t)77;
    const int args[] = {DNNL_ARG_DST, DNNL_ARG_SRC, DNNL_ARG_DIFF_SRC, -5, 12345};
    for (int i = 0; i < 5; ++i) {
        CHECK(dnnl_primitive_attr_get_rounding(attr, args[i], &mode));
        EXPECT(mode == dnnl_rounding_mode_environment);
    }
    /* Stochastic rounding applies to dst, diff_src and diff_weights only. */
    const int ok[] = {DNNL_ARG_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_WEIGHTS};
    for (int i = 0; i < 3; ++i) {
        CHECK(dnnl_primitive_attr_set_rounding(attr, ok[i], dnnl_rounding_mode_stochastic));
        CHECK(dnnl_primitive_attr_get_rounding(attr, ok[i], &mode));
        EXPECT(mode == dnnl_rounding_mode_stochastic);
    }
    const int refused[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST, DNNL_ARG_BIAS, -1, 12345,
            DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_DST, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_DST,
            DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_DST, DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST};
    for (int i = 0; i < (int)(sizeof refused / sizeof *refused); ++i) {
        CHECK_STATUS(dnnl_primitive_attr_set_rounding(attr, refused[i], dnnl_rounding_mode_stochastic), bad);
        CHECK(dnnl_primitive_attr_get_rounding(attr, refused[i], &mode));
        EXPECT(mode == dnnl_rounding_mode_environment);
        /* `environment` is the default: setting it is accepted for any argument. */
        CHECK(dnnl_primitive_attr_set_rounding(attr, refused[i], dnnl_rounding_mode_environment));
    }
    /* ...and changes nothing, even where stochastic was set (upstream's rule). */
    CHECK(dnnl_primitive_attr_set_rounding(attr, DNNL_ARG_DST, dnnl_rounding_mode_environment));
    CHECK(dnnl_primitive_attr_get_rounding(attr, DNNL_ARG_DST, &mode));
    EXPECT(mode == dnnl_rounding_mode_stochastic);
    CHECK_STATUS(dnnl_primitive_attr_get_rounding(attr, DNNL_ARG_DST, NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_rounding(NULL, DNNL_ARG_DST, &mode), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_rounding(NULL, DNNL_ARG_DST, dnnl_rounding_mode_stochastic), bad);
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void dropout(void) {
    dnnl_primitive_attr_t attr = new_attr();
    const_dnnl_memory_desc_t got = NULL, again = NULL;
    dnnl_data_type_t seed = (dnnl_data_type_t)77;
    int offset = 77, host = 77;
    /* Without dropout: the zero descriptor, an undefined seed type, no flags. */
    CHECK(dnnl_primitive_attr_get_dropout_v2(attr, &got, &seed, &offset, &host));
    EXPECT(got != NULL && md_ndims(got) == 0);
    EXPECT(seed == dnnl_data_type_undef && offset == 0 && host == 0);
    CHECK(dnnl_primitive_attr_get_dropout(attr, &again));
    EXPECT(again == got);
    /* Every output is optional. */
    CHECK(dnnl_primitive_attr_get_dropout(attr, NULL));
    CHECK(dnnl_primitive_attr_get_dropout_v2(attr, NULL, NULL, NULL, NULL));
    CHECK_STATUS(dnnl_primitive_attr_get_dropout(NULL, &got), bad);

    /* v1: an s32 seed, no offset, no host scalars; the mask descriptor is copied. */
    dnnl_memory_desc_t mask = md2d(2, 3, dnnl_u8, dnnl_ab);
    CHECK(dnnl_primitive_attr_set_dropout(attr, mask));
    CHECK(dnnl_primitive_attr_get_dropout_v2(attr, &got, &seed, &offset, &host));
    EXPECT(got != mask && dnnl_memory_desc_equal(got, mask));
    EXPECT(seed == dnnl_s32 && offset == 0 && host == 0);
    CHECK(dnnl_primitive_attr_get_dropout(attr, &again));
    EXPECT(again == got);
    CHECK(dnnl_memory_desc_destroy(mask));
    EXPECT(md_ndims(got) == 2);

    /* v2: flags are booleans. */
    dnnl_memory_desc_t any_mask = md2d(4, 5, dnnl_u8, dnnl_format_tag_any);
    CHECK(dnnl_primitive_attr_set_dropout_v2(attr, any_mask, dnnl_s64, 5, -3));
    CHECK(dnnl_primitive_attr_get_dropout_v2(attr, &got, &seed, &offset, &host));
    EXPECT(dnnl_memory_desc_equal(got, any_mask));
    EXPECT(seed == dnnl_s64 && offset == 1 && host == 1);

    /* Refused: a mask that is not u8, a seed that is not s32/s64, no descriptor. */
    dnnl_memory_desc_t f32_mask = md2d(2, 3, dnnl_f32, dnnl_ab), s8_mask = md2d(2, 3, dnnl_s8, dnnl_ab);
    CHECK_STATUS(dnnl_primitive_attr_set_dropout(attr, f32_mask), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_dropout(attr, s8_mask), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_dropout(attr, NULL), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_dropout_v2(attr, NULL, dnnl_s32, 0, 0), bad);
    const dnnl_data_type_t seeds[] = {dnnl_data_type_undef, dnnl_u8, dnnl_s8, dnnl_f32, (dnnl_data_type_t)999};
    for (int i = 0; i < 5; ++i)
        CHECK_STATUS(dnnl_primitive_attr_set_dropout_v2(attr, any_mask, seeds[i], 0, 0), bad);
    CHECK(dnnl_primitive_attr_get_dropout_v2(attr, &got, &seed, &offset, &host));
    EXPECT(dnnl_memory_desc_equal(got, any_mask) && seed == dnnl_s64 && offset == 1 && host == 1);

    /* The zero descriptor: dropout without writing the mask. */
    dnnl_memory_desc_t zero = md_zero();
    CHECK(dnnl_primitive_attr_set_dropout(attr, zero));
    CHECK(dnnl_primitive_attr_get_dropout_v2(attr, &got, &seed, &offset, &host));
    EXPECT(md_ndims(got) == 0 && seed == dnnl_s32 && offset == 0 && host == 0);
    CHECK(dnnl_memory_desc_destroy(zero));
    CHECK(dnnl_memory_desc_destroy(any_mask));
    CHECK(dnnl_memory_desc_destroy(f32_mask));
    CHECK(dnnl_memory_desc_destroy(s8_mask));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void rnn_qparams(void) {
    dnnl_primitive_attr_t attr = new_attr();
    float scale = 7, shift = 7;
    CHECK(dnnl_primitive_attr_get_rnn_data_qparams(attr, &scale, &shift));
    EXPECT(scale == 1.f && shift == 0.f);
    CHECK(dnnl_primitive_attr_set_rnn_data_qparams(attr, 2.5f, -1.5f));
    CHECK(dnnl_primitive_attr_get_rnn_data_qparams(attr, &scale, &shift));
    EXPECT(scale == 2.5f && shift == -1.5f);
    CHECK(dnnl_primitive_attr_get_rnn_data_qparams(attr, NULL, &shift));
    CHECK(dnnl_primitive_attr_get_rnn_data_qparams(attr, &scale, NULL));
    CHECK_STATUS(dnnl_primitive_attr_set_rnn_data_qparams(NULL, 1.f, 0.f), bad);

    for (int projection = 0; projection < 2; ++projection) {
        dnnl_status_t (*set)(dnnl_primitive_attr_t, dnnl_dim_t, int, const float *) = projection
                ? dnnl_primitive_attr_set_rnn_weights_projection_qparams
                : dnnl_primitive_attr_set_rnn_weights_qparams;
        dnnl_status_t (*get)(const_dnnl_primitive_attr_t, dnnl_dim_t *, int *, const float **) = projection
                ? dnnl_primitive_attr_get_rnn_weights_projection_qparams
                : dnnl_primitive_attr_get_rnn_weights_qparams;
        dnnl_dim_t count = 77;
        int mask = 77;
        const float *scales = NULL;
        CHECK(get(attr, &count, &mask, &scales));
        EXPECT(count == 1 && mask == 0 && scales != NULL && scales[0] == 1.f);
        float values[3] = {1.f, 2.f, 3.f};
        CHECK(set(attr, 3, 5, values));
        values[0] = 99.f; /* the attributes keep a copy */
        CHECK(get(attr, &count, &mask, &scales));
        EXPECT(count == 3 && mask == 5 && scales[0] == 1.f && scales[1] == 2.f && scales[2] == 3.f);
        /* A single scale is common: its mask reads back as 0. */
        CHECK(set(attr, 1, 1 << 20, values));
        CHECK(get(attr, &count, &mask, &scales));
        EXPECT(count == 1 && mask == 0 && scales[0] == 99.f);
        CHECK(set(attr, 2, 1 << 20, values));
        CHECK(get(attr, &count, &mask, &scales));
        EXPECT(count == 2 && mask == 1 << 20 && scales[0] == 99.f && scales[1] == 2.f);
        /* Refused, and nothing changes. */
        CHECK_STATUS(set(attr, 0, 0, values), bad);
        CHECK_STATUS(set(attr, -1, 0, values), bad);
        CHECK_STATUS(set(attr, 1, -1, values), bad);
        CHECK_STATUS(set(attr, 1, 0, NULL), bad);
        CHECK_STATUS(set(NULL, 1, 0, values), bad);
        CHECK(get(attr, &count, &mask, &scales));
        EXPECT(count == 2 && mask == 1 << 20 && scales[0] == 99.f);
        CHECK(get(attr, NULL, &mask, &scales));
        CHECK(get(attr, &count, NULL, &scales));
        CHECK(get(attr, &count, &mask, NULL));
        CHECK_STATUS(get(NULL, &count, &mask, &scales), bad);
    }
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void clones_are_independent(void) {
    dnnl_primitive_attr_t attr = new_attr(), copy = NULL;
    dnnl_memory_desc_t mask = md2d(2, 3, dnnl_u8, dnnl_ab);
    float scales[2] = {0.5f, 0.25f};
    CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    CHECK(dnnl_primitive_attr_set_fpmath_mode_v2(attr, dnnl_fpmath_mode_bf16, 1));
    CHECK(dnnl_primitive_attr_set_deterministic(attr, 1));
    CHECK(dnnl_primitive_attr_set_accumulation_mode(attr, dnnl_accumulation_mode_relaxed));
    CHECK(dnnl_primitive_attr_set_rounding(attr, DNNL_ARG_DST, dnnl_rounding_mode_stochastic));
    CHECK(dnnl_primitive_attr_set_dropout_v2(attr, mask, dnnl_s64, 1, 0));
    CHECK(dnnl_primitive_attr_set_rnn_data_qparams(attr, 3.f, 4.f));
    CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(attr, 2, 3, scales));
    CHECK(dnnl_primitive_attr_clone(&copy, attr));
    /* Change or destroy the original: the copy keeps its values. */
    CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_library));
    CHECK(dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_strict));
    CHECK(dnnl_primitive_attr_set_deterministic(attr, 0));
    CHECK(dnnl_primitive_attr_set_rnn_data_qparams(attr, 1.f, 0.f));
    CHECK(dnnl_primitive_attr_destroy(attr));

    dnnl_scratchpad_mode_t spm;
    dnnl_fpmath_mode_t fpm;
    dnnl_accumulation_mode_t acc;
    dnnl_rounding_mode_t rnd;
    dnnl_data_type_t seed;
    const_dnnl_memory_desc_t got = NULL;
    const float *got_scales = NULL;
    dnnl_dim_t count = 0;
    int to_int = 0, det = 0, offset = 0, host = 0, wmask = 0;
    float scale = 0, shift = 0;
    CHECK(dnnl_primitive_attr_get_scratchpad_mode(copy, &spm));
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(copy, &fpm, &to_int));
    CHECK(dnnl_primitive_attr_get_deterministic(copy, &det));
    CHECK(dnnl_primitive_attr_get_accumulation_mode(copy, &acc));
    CHECK(dnnl_primitive_attr_get_rounding(copy, DNNL_ARG_DST, &rnd));
    CHECK(dnnl_primitive_attr_get_dropout_v2(copy, &got, &seed, &offset, &host));
    CHECK(dnnl_primitive_attr_get_rnn_data_qparams(copy, &scale, &shift));
    CHECK(dnnl_primitive_attr_get_rnn_weights_qparams(copy, &count, &wmask, &got_scales));
    EXPECT(spm == dnnl_scratchpad_mode_user && fpm == dnnl_fpmath_mode_bf16 && to_int == 1 && det == 1);
    EXPECT(acc == dnnl_accumulation_mode_relaxed && rnd == dnnl_rounding_mode_stochastic);
    EXPECT(dnnl_memory_desc_equal(got, mask) && seed == dnnl_s64 && offset == 1 && host == 0);
    EXPECT(scale == 3.f && shift == 4.f);
    EXPECT(count == 2 && wmask == 3 && got_scales[0] == 0.5f && got_scales[1] == 0.25f);
    CHECK(dnnl_memory_desc_destroy(mask));
    CHECK(dnnl_primitive_attr_destroy(copy));
}

/* New attributes take the default fpmath mode of their creation time. */
static void default_fpmath_mode(void) {
    dnnl_primitive_attr_t before = new_attr();
    CHECK(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_bf16));
    dnnl_primitive_attr_t after = new_attr(), copy = NULL;
    CHECK(dnnl_primitive_attr_clone(&copy, before));
    dnnl_fpmath_mode_t mode;
    int to_int = 7;
    CHECK(dnnl_primitive_attr_get_fpmath_mode(before, &mode));
    EXPECT(mode == dnnl_fpmath_mode_strict);
    CHECK(dnnl_primitive_attr_get_fpmath_mode_v2(after, &mode, &to_int));
    EXPECT(mode == dnnl_fpmath_mode_bf16 && to_int == 0);
    CHECK(dnnl_primitive_attr_get_fpmath_mode(copy, &mode));
    EXPECT(mode == dnnl_fpmath_mode_strict);
    CHECK(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_strict));
    CHECK(dnnl_primitive_attr_destroy(before));
    CHECK(dnnl_primitive_attr_destroy(after));
    CHECK(dnnl_primitive_attr_destroy(copy));
}

int main(void) {
    creation();
    scratchpad();
    fpmath();
    deterministic_and_accumulation();
    rounding();
    dropout();
    rnn_qparams();
    clones_are_independent();
    default_fpmath_mode();
    printf("attributes: every setter and getter checked\n");
    return 0;
}
