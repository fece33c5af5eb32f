/* The ukernel API: a small matrix multiplication D = ReLU(A * B + bias) built from
 * BRGeMM ukernels, the way the ukernel documentation lays out its steps (create,
 * configure, finalize, query, generate, execute).
 *
 * A is M x K and B is K x N, in bf16; K is cut into blocks of K_BLK, and each BRGeMM
 * call reduces a batch of those blocks. The first ukernel covers the first half of the
 * K blocks into an f32 accumulator C; the second adds the other half onto C and applies
 * the post-ops (a binary add of a per-column bias, then ReLU), writing f32 D. B is
 * packed first when the ukernel asks for it (get_B_pack_type), with the transform
 * ukernel, panel by panel of N_BLK columns. The result is checked against a plain loop.
 *
 * The ukernel API is experimental upstream: DNNL_EXPERIMENTAL_UKERNEL must be defined
 * before the headers, and a library built without it does not export these functions
 * (the example then says SKIP). */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_ukernel.h"

#define CHECK(f) \
    do { \
        dnnl_status_t s_ = (f); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: status %d\n", __FILE__, __LINE__, #f, (int)s_); \
            exit(1); \
        } \
    } while (0)

enum { M = 8, N = 64, K = 96, K_BLK = 16, N_BLK = 32 };
enum { K_BLOCKS = K / K_BLK, BATCH = K_BLOCKS / 2, N_PANELS = N / N_BLK };

static uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

int main(void) {
    if (!dlsym(RTLD_DEFAULT, "dnnl_brgemm_create")) {
        printf("SKIP: this libdnnl.so.3 is built without the ukernel API\n");
        return 77;
    }
    const dnnl_data_type_t ab_dt = dnnl_bf16;

    /* Inputs: A row-major M x K, B row-major K x N, a bias per column. */
    static uint16_t A[M * K], B[K * N];
    static float bias[N], C[M * N_BLK], D[M * N];
    for (int i = 0; i < M * K; ++i) A[i] = to_bf16((float)((i * 13) % 17 - 8) / 8.0f);
    for (int i = 0; i < K * N; ++i) B[i] = to_bf16((float)((i * 7) % 11 - 5) / 4.0f);
    for (int n = 0; n < N; ++n) bias[n] = (float)(n % 7) - 3.0f;

    /* Query: does the BRGeMM want B packed for this type pair? */
    dnnl_pack_type_t pack = dnnl_pack_type_undef;
    CHECK(dnnl_brgemm_get_B_pack_type(&pack, ab_dt, ab_dt));
    if (pack == dnnl_pack_type_undef) {
        printf("SKIP: the BRGeMM ukernel has no bf16 on this machine\n");
        return 77;
    }
    const int packed = pack == dnnl_pack_type_pack32;

    /* B, as the ukernel reads it: per N panel, the K x N_BLK block (packed if asked). */
    const dnnl_dim_t ldb = packed ? N_BLK : N;
    uint16_t *B_ready = B;
    if (packed) {
        B_ready = malloc(sizeof(uint16_t) * K * N);
        dnnl_transform_t pack_B = NULL;
        CHECK(dnnl_transform_create(&pack_B, K, N_BLK, dnnl_pack_type_no_trans, N, N_BLK,
                ab_dt, ab_dt));
        CHECK(dnnl_transform_generate(pack_B));
        for (int p = 0; p < N_PANELS; ++p)
            CHECK(dnnl_transform_execute(pack_B, B + p * N_BLK, B_ready + p * K * N_BLK));
        CHECK(dnnl_transform_destroy(pack_B));
    }

    /* Post-ops of the second ukernel: + bias (one value per column, broadcast over rows),
     * then ReLU. */
    dnnl_post_ops_t post_ops = NULL;
    dnnl_memory_desc_t bias_md = NULL;
    dnnl_dims_t bias_dims = {1, N_BLK};
    CHECK(dnnl_memory_desc_create_with_tag(&bias_md, 2, bias_dims, dnnl_f32, dnnl_ab));
    CHECK(dnnl_post_ops_create(&post_ops));
    CHECK(dnnl_post_ops_append_binary(post_ops, dnnl_binary_add, bias_md));
    CHECK(dnnl_post_ops_append_eltwise(post_ops, dnnl_eltwise_relu, 0.0f, 0.0f));

    /* Create and configure the two ukernels: one M x N_BLK tile each, a batch of BATCH
     * blocks of K_BLK; A's rows are K apart, C's N_BLK, D's N. */
    dnnl_brgemm_t first = NULL, last = NULL;
    CHECK(dnnl_brgemm_create(&first, M, N_BLK, K_BLK, BATCH, K, ldb, N_BLK, ab_dt, ab_dt, dnnl_f32));
    CHECK(dnnl_brgemm_set_add_C(first, 0));
    CHECK(dnnl_brgemm_create(&last, M, N_BLK, K_BLK, BATCH, K, ldb, N_BLK, ab_dt, ab_dt, dnnl_f32));
    CHECK(dnnl_brgemm_set_add_C(last, 1));
    CHECK(dnnl_brgemm_set_post_ops(last, N, dnnl_f32, post_ops));
    CHECK(dnnl_brgemm_finalize(first));
    CHECK(dnnl_brgemm_finalize(last));

    /* Query what execution needs, then generate (once, outside any loop). */
    size_t scratch_first = 0, scratch_last = 0;
    CHECK(dnnl_brgemm_get_scratchpad_size(first, &scratch_first));
    CHECK(dnnl_brgemm_get_scratchpad_size(last, &scratch_last));
    size_t scratch_size = scratch_first > scratch_last ? scratch_first : scratch_last;
    void *scratchpad = malloc(scratch_size ? scratch_size : 1);
    int with_postops = 0;
    CHECK(dnnl_brgemm_is_execute_postops_valid(last, &with_postops));
    CHECK(dnnl_brgemm_generate(first));
    CHECK(dnnl_brgemm_generate(last));

    /* Execute, panel by panel of N: the (A, B) offsets, in elements, of each batch
     * entry. A K block starts K_BLK columns further in A, K_BLK rows further in B (in
     * a packed panel, K_BLK rows take K_BLK * N_BLK elements too). */
    dnnl_ukernel_attr_params_t params = NULL;
    CHECK(dnnl_ukernel_attr_params_create(&params));
    for (int p = 0; p < N_PANELS; ++p) {
        const uint16_t *B_panel = packed ? B_ready + p * K * N_BLK : B + p * N_BLK;
        dnnl_dim_t offsets_first[2 * BATCH], offsets_last[2 * BATCH];
        for (int i = 0; i < BATCH; ++i) {
            offsets_first[2 * i] = (dnnl_dim_t)i * K_BLK;
            offsets_first[2 * i + 1] = (dnnl_dim_t)i * K_BLK * ldb;
            offsets_last[2 * i] = (dnnl_dim_t)(BATCH + i) * K_BLK;
            offsets_last[2 * i + 1] = (dnnl_dim_t)(BATCH + i) * K_BLK * ldb;
        }
        const void *post_ops_args[1] = {bias + p * N_BLK};
        CHECK(dnnl_ukernel_attr_params_set_post_ops_args(params, post_ops_args));
        CHECK(dnnl_brgemm_set_hw_context(first));
        CHECK(dnnl_brgemm_execute(first, A, B_panel, offsets_first, C, scratchpad));
        if (with_postops)
            CHECK(dnnl_brgemm_execute_postops(last, A, B_panel, offsets_last, C,
                    D + p * N_BLK, scratchpad, params));
        else
            CHECK(dnnl_brgemm_execute(last, A, B_panel, offsets_last, C, scratchpad));
    }
    CHECK(dnnl_brgemm_release_hw_context());

    /* Check against a plain loop (f32 sums of bf16 products). */
    int bad = 0;
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            float want = 0.0f;
            for (int k = 0; k < K; ++k) want += from_bf16(A[m * K + k]) * from_bf16(B[k * N + n]);
            want = fmaxf(want + bias[n], 0.0f);
            if (fabsf(D[m * N + n] - want) > 1e-4f * fmaxf(1.0f, fabsf(want))) {
                if (bad++ < 5)
                    fprintf(stderr, "D(%d, %d) = %g, expected %g\n", m, n, D[m * N + n], want);
            }
        }

    CHECK(dnnl_ukernel_attr_params_destroy(params));
    CHECK(dnnl_brgemm_destroy(first));
    CHECK(dnnl_brgemm_destroy(last));
    CHECK(dnnl_post_ops_destroy(post_ops));
    CHECK(dnnl_memory_desc_destroy(bias_md));
    free(scratchpad);
    if (packed) free(B_ready);

    printf("brgemm ukernel: %dx%dx%d bf16, B %s, 2 x %d K blocks, bias + ReLU post-ops\n", M,
            N, K, packed ? "packed (pack32)" : "as given", BATCH);
    if (bad) {
        printf("%d of %d values wrong\n", bad, M * N);
        return 1;
    }
    printf("%d values checked: ok\n", M * N);
    return 0;
}
