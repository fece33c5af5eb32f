/* The ukernel API (dnnl_ukernel.h): BRGeMM and transform through their C functions.
 *
 * Success paths, each checked against a plain loop: f32 with add_C over a batch of
 * three (M and N not multiples of any tile), bf16 and f16 with B packed by the
 * transform (K odd, so the last row pair is padding; from a row-major and from a
 * column-major B, which must pack to the same bytes), u8 x s8 with A scale, per-column
 * B scales, ReLU and a broadcast binary add into an f32 D, and s8 x s8 into an s8 D.
 * The packed layout itself is checked element by element against its definition.
 * Bad input: NULL handles and pointers, non-positive sizes, leading dimensions below
 * the size, unsupported type combinations, steps out of order, bad masks, a dead
 * handle; each with its status.
 *
 * The reference run (@ref) skips: Intel's wheel is built without
 * ONEDNN_EXPERIMENTAL_UKERNEL and exports none of these functions. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "oneapi/dnnl/dnnl_ukernel.h"
#include "check.h"

static uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16); /* exact for the small integers used here */
}

/* Exact for the small integers used here (normal f16 numbers, no rounding). */
static uint16_t to_f16(float f) {
    if (f == 0.0f) return 0;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    int32_t exp = (int32_t)((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(sign | ((uint32_t)exp << 10) | ((u >> 13) & 0x3ff));
}

static int small(int i, int mod) { return (i * 7 + 3) % mod - mod / 2; }

/* Creates, configures (add_C), finalizes and generates. */
static dnnl_brgemm_t make(dnnl_dim_t M, dnnl_dim_t N, dnnl_dim_t K, dnnl_dim_t bs, dnnl_dim_t lda,
        dnnl_dim_t ldb, dnnl_dim_t ldc, dnnl_data_type_t a, dnnl_data_type_t b,
        dnnl_data_type_t c, int add_c) {
    dnnl_brgemm_t g = NULL;
    CHECK(dnnl_brgemm_create(&g, M, N, K, bs, lda, ldb, ldc, a, b, c));
    CHECK(dnnl_brgemm_set_add_C(g, add_c));
    return g;
}

static void *scratchpad_for(dnnl_brgemm_t g) {
    size_t size = 12345;
    CHECK(dnnl_brgemm_get_scratchpad_size(g, &size));
    EXPECT(size < ((size_t)1 << 30));
    return malloc(size ? size : 1);
}

static void f32_batch_with_add_c(void) {
    enum { M = 13, N = 19, K = 7, BS = 3, LDA = K + 2, LDB = N + 1, LDC = N + 3 };
    dnnl_pack_type_t pack = dnnl_pack_type_undef;
    CHECK(dnnl_brgemm_get_B_pack_type(&pack, dnnl_f32, dnnl_f32));
    EXPECT(pack == dnnl_pack_type_no_trans);
    static float A[BS * M * LDA], B[BS * K * LDB], C[M * LDC];
    for (int i = 0; i < BS * M * LDA; ++i) A[i] = (float)small(i, 9);
    for (int i = 0; i < BS * K * LDB; ++i) B[i] = (float)small(i, 5);
    for (int i = 0; i < M * LDC; ++i) C[i] = 1.0f;
    dnnl_dim_t offsets[2 * BS];
    for (int b = 0; b < BS; ++b) {
        offsets[2 * b] = b * M * LDA;
        offsets[2 * b + 1] = b * K * LDB;
    }
    dnnl_brgemm_t g = make(M, N, K, BS, LDA, LDB, LDC, dnnl_f32, dnnl_f32, dnnl_f32, 1);
    CHECK(dnnl_brgemm_finalize(g));
    int valid = -1;
    CHECK(dnnl_brgemm_is_execute_postops_valid(g, &valid));
    EXPECT(valid == 0);
    CHECK(dnnl_brgemm_generate(g));
    CHECK(dnnl_brgemm_generate(g)); /* again: no effect */
    void *scratch = scratchpad_for(g);
    CHECK(dnnl_brgemm_set_hw_context(g));
    CHECK(dnnl_brgemm_execute(g, A, B, offsets, C, scratch));
    CHECK(dnnl_brgemm_release_hw_context());
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            float want = 1.0f;
            for (int b = 0; b < BS; ++b)
                for (int k = 0; k < K; ++k)
                    want += A[b * M * LDA + m * LDA + k] * B[b * K * LDB + k * LDB + n];
            if (C[m * LDC + n] != want) {
                fprintf(stderr, "f32 C(%d, %d) = %g, expected %g\n", m, n, C[m * LDC + n], want);
                exit(1);
            }
        }
    /* Padding columns of C are not written. */
    EXPECT(C[N] == 1.0f && C[LDC - 1] == 1.0f);
    free(scratch);
    CHECK(dnnl_brgemm_destroy(g));
    printf("f32 batch of %d with add_C: %d values ok\n", BS, M * N);
}

/* The packed position of B(k, n) (K rows in groups of `vnni`, panels of out_ld). */
static size_t packed_index(int k, int n, int K, int out_ld, int vnni) {
    int kp = (K + vnni - 1) / vnni * vnni;
    return (size_t)(n / out_ld) * kp * out_ld + (size_t)(k / vnni) * out_ld * vnni
            + (size_t)(n % out_ld) * vnni + k % vnni;
}

/* Packs a K x N B of 16-bit values given row-major, and given column-major; both must
 * give the layout of packed_index, with zeros in the padding. Returns the packed B. */
static uint16_t *pack16(const uint16_t *rowmajor, int K, int N, int out_ld, dnnl_data_type_t dt) {
    int kp = (K + 1) / 2 * 2, panels = (N + out_ld - 1) / out_ld;
    size_t count = (size_t)panels * kp * out_ld;
    uint16_t *out = malloc(count * 2), *out_t = malloc(count * 2);
    uint16_t *colmajor = malloc((size_t)N * (K + 1) * 2);
    memset(out, 0xee, count * 2);
    memset(out_t, 0xdd, count * 2);
    for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) colmajor[n * (K + 1) + k] = rowmajor[k * N + n];
    dnnl_transform_t t = NULL, tt = NULL;
    CHECK(dnnl_transform_create(&t, K, N, dnnl_pack_type_no_trans, N, out_ld, dt, dt));
    CHECK(dnnl_transform_create(&tt, K, N, dnnl_pack_type_trans, K + 1, out_ld, dt, dt));
    CHECK(dnnl_transform_generate(t));
    CHECK(dnnl_transform_generate(tt));
    CHECK(dnnl_transform_execute(t, rowmajor, out));
    CHECK(dnnl_transform_execute(tt, colmajor, out_t));
    EXPECT(memcmp(out, out_t, count * 2) == 0);
    for (int k = 0; k < kp; ++k)
        for (int n = 0; n < panels * out_ld; ++n) {
            uint16_t want = (k < K && n < N) ? rowmajor[k * N + n] : 0;
            EXPECT(out[packed_index(k, n, K, out_ld, 2)] == want);
        }
    CHECK(dnnl_transform_destroy(t));
    CHECK(dnnl_transform_destroy(tt));
    free(out_t);
    free(colmajor);
    return out;
}

static void half_types(dnnl_data_type_t dt, const char *name) {
    enum { M = 6, N = 21, K = 7, KP = 8, BS = 2, LDB = 32 };
    dnnl_pack_type_t pack = dnnl_pack_type_undef;
    CHECK(dnnl_brgemm_get_B_pack_type(&pack, dt, dt));
    if (pack == dnnl_pack_type_undef) {
        printf("SKIP: %s: this library's brgemm has no %s on this CPU\n", name, name);
        return;
    }
    EXPECT(pack == dnnl_pack_type_pack32);
    float a[BS][M][K], b[BS][K][N];
    uint16_t A[BS * M * K], Bplain[K * N];
    uint16_t *Bpacked = malloc(sizeof(uint16_t) * BS * KP * LDB);
    for (int e = 0; e < BS; ++e) {
        for (int m = 0; m < M; ++m)
            for (int k = 0; k < K; ++k) {
                a[e][m][k] = (float)small(e * 100 + m * K + k, 11);
                A[e * M * K + m * K + k] = dt == dnnl_bf16 ? to_bf16(a[e][m][k]) : to_f16(a[e][m][k]);
            }
        for (int k = 0; k < K; ++k)
            for (int n = 0; n < N; ++n) {
                b[e][k][n] = (float)small(e * 300 + k * N + n, 7);
                Bplain[k * N + n] = dt == dnnl_bf16 ? to_bf16(b[e][k][n]) : to_f16(b[e][k][n]);
            }
        uint16_t *p = pack16(Bplain, K, N, LDB, dt);
        memcpy(Bpacked + e * KP * LDB, p, sizeof(uint16_t) * KP * LDB);
        free(p);
    }
    dnnl_dim_t offsets[2 * BS] = {0, 0, M * K, KP * LDB};
    float C[M * N];
    memset(C, 0xff, sizeof(C)); /* NaN: overwritten since add_C is 0 */
    dnnl_brgemm_t g = make(M, N, K, BS, K, LDB, N, dt, dt, dnnl_f32, 0);
    CHECK(dnnl_brgemm_finalize(g));
    CHECK(dnnl_brgemm_generate(g));
    CHECK(dnnl_brgemm_execute(g, A, Bpacked, offsets, C, NULL));
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            float want = 0.0f;
            for (int e = 0; e < BS; ++e)
                for (int k = 0; k < K; ++k) want += a[e][m][k] * b[e][k][n];
            if (C[m * N + n] != want) {
                fprintf(stderr, "%s C(%d, %d) = %g, expected %g\n", name, m, n, C[m * N + n], want);
                exit(1);
            }
        }
    CHECK(dnnl_brgemm_destroy(g));
    free(Bpacked);
    printf("%s with B packed by the transform (row-major and column-major alike): ok\n", name);
}

/* Packs an int8 B (row quads) with the transform and checks the layout. */
static int8_t *pack8(const int8_t *rowmajor, int K, int N, int out_ld) {
    int kp = (K + 3) / 4 * 4, panels = (N + out_ld - 1) / out_ld;
    size_t count = (size_t)panels * kp * out_ld;
    int8_t *out = malloc(count);
    memset(out, 0x5a, count);
    dnnl_transform_t t = NULL;
    CHECK(dnnl_transform_create(&t, K, N, dnnl_pack_type_no_trans, N, out_ld, dnnl_s8, dnnl_s8));
    CHECK(dnnl_transform_generate(t));
    CHECK(dnnl_transform_execute(t, rowmajor, out));
    for (int k = 0; k < kp; ++k)
        for (int n = 0; n < panels * out_ld; ++n) {
            int8_t want = (k < K && n < N) ? rowmajor[k * N + n] : 0;
            EXPECT(out[packed_index(k, n, K, out_ld, 4)] == want);
        }
    CHECK(dnnl_transform_destroy(t));
    return out;
}

static void int8_with_postops(void) {
    enum { M = 7, N = 18, K = 10, LDB = 48, LDD = N + 2 };
    dnnl_pack_type_t pack = dnnl_pack_type_undef;
    CHECK(dnnl_brgemm_get_B_pack_type(&pack, dnnl_u8, dnnl_s8));
    EXPECT(pack == dnnl_pack_type_pack32);
    uint8_t A[M * K];
    int8_t Bplain[K * N];
    int32_t C[M * N];
    float D[M * LDD], bias[N], b_scales[N], a_scale = 0.25f;
    for (int i = 0; i < M * K; ++i) A[i] = (uint8_t)((i * 37) % 256);
    for (int i = 0; i < K * N; ++i) Bplain[i] = (int8_t)small(i, 255);
    for (int n = 0; n < N; ++n) {
        bias[n] = (float)(n % 5) * 100.0f - 150.0f;
        b_scales[n] = 0.5f + 0.125f * (float)n;
    }
    for (int i = 0; i < M * N; ++i) C[i] = (i % 9) - 4;
    for (int i = 0; i < M * LDD; ++i) D[i] = -7.0f;
    int8_t *B = pack8(Bplain, K, N, LDB);

    dnnl_post_ops_t po = NULL;
    dnnl_memory_desc_t bias_md = NULL;
    dnnl_dims_t bias_dims = {1, N};
    CHECK(dnnl_memory_desc_create_with_tag(&bias_md, 2, bias_dims, dnnl_f32, dnnl_ab));
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bias_md));
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.0f, 0.0f));

    dnnl_brgemm_t g = make(M, N, K, 1, K, LDB, N, dnnl_u8, dnnl_s8, dnnl_s32, 1);
    CHECK(dnnl_brgemm_set_post_ops(g, LDD, dnnl_f32, po));
    CHECK(dnnl_brgemm_set_A_scales(g, 0));
    CHECK(dnnl_brgemm_set_B_scales(g, 2));
    CHECK(dnnl_brgemm_finalize(g));
    int valid = 0;
    CHECK(dnnl_brgemm_is_execute_postops_valid(g, &valid));
    EXPECT(valid == 1);
    CHECK(dnnl_brgemm_generate(g));

    dnnl_ukernel_attr_params_t params = NULL;
    CHECK(dnnl_ukernel_attr_params_create(&params));
    const void *po_args[1] = {bias};
    CHECK(dnnl_ukernel_attr_params_set_post_ops_args(params, po_args));
    CHECK(dnnl_ukernel_attr_params_set_A_scales(params, &a_scale));
    CHECK(dnnl_ukernel_attr_params_set_B_scales(params, b_scales));
    dnnl_dim_t offsets[2] = {0, 0};
    CHECK(dnnl_brgemm_execute_postops(g, A, B, offsets, C, D, NULL, params));
    for (int m = 0; m < M; ++m) {
        for (int n = 0; n < N; ++n) {
            int32_t acc = C[m * N + n];
            for (int k = 0; k < K; ++k) acc += (int32_t)A[m * K + k] * Bplain[k * N + n];
            float want = (float)acc * a_scale * b_scales[n] + bias[n];
            want = want > 0.0f ? want : 0.0f;
            float got = D[m * LDD + n];
            if (fabsf(got - want) > 1e-5f * fmaxf(1.0f, fabsf(want))) {
                fprintf(stderr, "u8s8 D(%d, %d) = %g, expected %g\n", m, n, got, want);
                exit(1);
            }
        }
        EXPECT(D[m * LDD + N] == -7.0f && D[m * LDD + N + 1] == -7.0f);
    }
    /* C is an input here: unchanged. */
    for (int i = 0; i < M * N; ++i) EXPECT(C[i] == (i % 9) - 4);

    /* A scale configured but not given: refused, D untouched. */
    dnnl_ukernel_attr_params_t empty = NULL;
    CHECK(dnnl_ukernel_attr_params_create(&empty));
    D[0] = 123.0f;
    CHECK_STATUS(dnnl_brgemm_execute_postops(g, A, B, offsets, C, D, NULL, empty),
            dnnl_invalid_arguments);
    EXPECT(D[0] == 123.0f);
    CHECK(dnnl_ukernel_attr_params_destroy(empty));

    CHECK(dnnl_ukernel_attr_params_destroy(params));
    CHECK(dnnl_brgemm_destroy(g));
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_memory_desc_destroy(bias_md));
    free(B);
    printf("u8 x s8 with A, per-column B scales, binary add and ReLU into f32 D: ok\n");
}

static void s8_into_s8(void) {
    enum { M = 3, N = 16, K = 5, LDB = 16 };
    int8_t A[M * K], Bplain[K * N], D[M * N];
    for (int i = 0; i < M * K; ++i) A[i] = (int8_t)small(i * 3, 200);
    for (int i = 0; i < K * N; ++i) Bplain[i] = (int8_t)small(i * 5, 250);
    int8_t *B = pack8(Bplain, K, N, LDB);
    float d_scale = 64.0f;
    dnnl_brgemm_t g = make(M, N, K, 1, K, LDB, N, dnnl_s8, dnnl_s8, dnnl_s32, 0);
    CHECK(dnnl_brgemm_set_post_ops(g, N, dnnl_s8, NULL));
    CHECK(dnnl_brgemm_set_D_scales(g, 0));
    CHECK(dnnl_brgemm_finalize(g));
    CHECK(dnnl_brgemm_generate(g));
    dnnl_ukernel_attr_params_t params = NULL;
    CHECK(dnnl_ukernel_attr_params_create(&params));
    CHECK(dnnl_ukernel_attr_params_set_D_scales(params, &d_scale));
    dnnl_dim_t offsets[2] = {0, 0};
    /* add_C is 0: C is not read, NULL is fine. */
    CHECK(dnnl_brgemm_execute_postops(g, A, B, offsets, NULL, D, NULL, params));
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            int32_t acc = 0;
            for (int k = 0; k < K; ++k) acc += (int32_t)A[m * K + k] * Bplain[k * N + n];
            float v = nearbyintf((float)acc / d_scale);
            v = v > 127.0f ? 127.0f : v < -128.0f ? -128.0f : v;
            EXPECT(D[m * N + n] == (int8_t)v);
        }
    CHECK(dnnl_ukernel_attr_params_destroy(params));
    CHECK(dnnl_brgemm_destroy(g));
    free(B);
    printf("s8 x s8 with a D scale into s8 D (saturated): ok\n");
}

static void bad_input(void) {
    dnnl_brgemm_t g = NULL;
    const dnnl_data_type_t f32 = dnnl_f32;
    /* create */
    CHECK_STATUS(dnnl_brgemm_create(NULL, 4, 4, 4, 1, 4, 4, 4, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 0, 4, 4, 1, 4, 4, 4, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, -1, 4, 1, 4, 4, 4, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 4, 0, 1, 4, 4, 4, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 4, 4, 0, 4, 4, 4, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 4, 8, 1, 7, 4, 4, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 8, 4, 1, 4, 7, 8, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 8, 4, 1, 4, 8, 7, f32, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 4, 4, 1, 4, 4, 4, f32, dnnl_bf16, f32), dnnl_unimplemented);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 4, 4, 1, 4, 4, 4, dnnl_bf16, dnnl_bf16, dnnl_bf16),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 4, 4, 1, 4, 4, 4, dnnl_u8, dnnl_s8, f32), dnnl_unimplemented);
    CHECK_STATUS(dnnl_brgemm_create(&g, 4, 4, 4, INT64_MAX / 2, 4, 4, 4, f32, f32, f32),
            dnnl_invalid_arguments);
    EXPECT(g == NULL); /* nothing written on failure */
    dnnl_pack_type_t pack = dnnl_pack_type_pack32;
    CHECK_STATUS(dnnl_brgemm_get_B_pack_type(NULL, f32, f32), dnnl_invalid_arguments);
    CHECK(dnnl_brgemm_get_B_pack_type(&pack, f32, dnnl_bf16));
    EXPECT(pack == dnnl_pack_type_undef);

    /* NULL handles */
    CHECK_STATUS(dnnl_brgemm_set_add_C(NULL, 1), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_set_post_ops(NULL, 4, f32, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_set_A_scales(NULL, 0), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_finalize(NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_generate(NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_set_hw_context(NULL), dnnl_invalid_arguments);
    size_t size = 7;
    int valid = 7;
    CHECK_STATUS(dnnl_brgemm_get_scratchpad_size(NULL, &size), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_is_execute_postops_valid(NULL, &valid), dnnl_invalid_arguments);
    EXPECT(size == 7 && valid == 7);
    float A[16] = {0}, B[16] = {0}, C[16] = {0};
    dnnl_dim_t offsets[2] = {0, 0};
    CHECK_STATUS(dnnl_brgemm_execute(NULL, A, B, offsets, C, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ukernel_attr_params_create(NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ukernel_attr_params_set_A_scales(NULL, A), dnnl_invalid_arguments);

    /* order, masks, ld */
    CHECK(dnnl_brgemm_create(&g, 4, 4, 4, 1, 4, 4, 4, f32, f32, f32));
    CHECK_STATUS(dnnl_brgemm_get_scratchpad_size(g, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_set_A_scales(g, -1), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_set_B_scales(g, -2), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_set_post_ops(g, 3, f32, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_generate(g), dnnl_invalid_arguments); /* before finalize */
    CHECK_STATUS(dnnl_brgemm_execute(g, A, B, offsets, C, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_brgemm_finalize(g));
    CHECK_STATUS(dnnl_brgemm_set_add_C(g, 1), dnnl_invalid_arguments); /* after finalize */
    CHECK_STATUS(dnnl_brgemm_execute(g, A, B, offsets, C, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_brgemm_generate(g));
    CHECK_STATUS(dnnl_brgemm_execute(g, A, B, NULL, C, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_execute(g, NULL, B, offsets, C, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_execute(g, A, B, offsets, NULL, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_brgemm_execute_postops(g, A, B, offsets, C, NULL, NULL, NULL),
            dnnl_invalid_arguments);
    CHECK(dnnl_brgemm_execute(g, A, B, offsets, C, NULL));
    CHECK(dnnl_brgemm_destroy(g));
    CHECK_STATUS(dnnl_brgemm_execute(g, A, B, offsets, C, NULL), dnnl_invalid_arguments); /* dead */
    CHECK_STATUS(dnnl_brgemm_destroy(g), dnnl_invalid_arguments);

    /* transform */
    dnnl_transform_t t = NULL;
    const dnnl_pack_type_t nt = dnnl_pack_type_no_trans;
    CHECK_STATUS(dnnl_transform_create(NULL, 4, 4, nt, 4, 16, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_create(&t, 0, 4, nt, 4, 16, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_create(&t, 4, -4, nt, 4, 16, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_create(&t, 4, 8, nt, 7, 16, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_create(&t, 8, 4, dnnl_pack_type_trans, 7, 16, f32, f32),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_create(&t, 4, 4, dnnl_pack_type_pack32, 4, 16, f32, f32),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_create(&t, 4, 4, nt, 4, 20, f32, f32), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_create(&t, 4, 4, nt, 4, 16, f32, dnnl_bf16), dnnl_unimplemented);
    CHECK_STATUS(dnnl_transform_create(&t, 4, 4, nt, 4, 16, dnnl_s32, dnnl_s32), dnnl_unimplemented);
    CHECK_STATUS(dnnl_transform_create(&t, INT64_MAX - 1, 4, nt, 4, 16, f32, f32),
            dnnl_invalid_arguments);
    EXPECT(t == NULL);
    CHECK(dnnl_transform_create(&t, 4, 4, nt, 4, 16, f32, f32));
    float out[64];
    CHECK_STATUS(dnnl_transform_execute(t, A, out), dnnl_invalid_arguments); /* before generate */
    CHECK_STATUS(dnnl_transform_generate(NULL), dnnl_invalid_arguments);
    CHECK(dnnl_transform_generate(t));
    CHECK_STATUS(dnnl_transform_execute(t, NULL, out), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_transform_execute(NULL, A, out), dnnl_invalid_arguments);
    CHECK(dnnl_transform_execute(t, A, out));
    CHECK(dnnl_transform_destroy(t));
    printf("bad input: every status as documented\n");
}

int main(void) {
    /* Looked up first: a library without the ukernel API must not be called. */
    if (!dlsym(RTLD_DEFAULT, "dnnl_brgemm_create")) {
        EXPECT(!library_is_ours());
        SKIP("this libdnnl.so.3 is built without ONEDNN_EXPERIMENTAL_UKERNEL "
             "(dnnl_brgemm_create is not exported)");
    }
    f32_batch_with_add_c();
    half_types(dnnl_bf16, "bf16");
    half_types(dnnl_f16, "f16");
    int8_with_postops();
    s8_into_s8();
    bad_input();
    printf("ok\n");
    return 0;
}
