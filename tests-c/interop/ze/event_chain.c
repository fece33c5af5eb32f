/* Two primitives chained through Level Zero events only:
 *   y = x * w                       matmul, on stream A (the user's immediate list A),
 *                                   waits for `gate`, a user event the host signals later
 *   z = y * s  (s broadcast by row) binary mul, on stream B (the user's immediate list B),
 *                                   waits for the matmul's returned event
 * The two lists are different, so nothing but the events orders the work. Before the
 * host signals the gate, neither returned event may be signalled and y, z must keep
 * their sentinel values (checked after a pause that lets anything wrongly released
 * run). After the signal, z must match a reference computed here in double; both
 * returned events are then signalled, and the user's gate is still the user's
 * (signalled, resettable). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <math.h>
#include <time.h>

#include "ze_util.h"

#define M 33
#define K 70
#define N 45

static dnnl_memory_t wrap(dnnl_engine_t e, int64_t rows, int64_t cols, float *p) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {rows, cols};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, dnnl_ab));
    dnnl_memory_t m = NULL;
    void *h[1] = {p};
    CHECK(dnnl_ze_interop_memory_create(&m, md, e, 1, h));
    CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

static const_dnnl_memory_desc_t md_of(dnnl_memory_t m) {
    const_dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_get_memory_desc(m, &md));
    return md;
}

static void pause_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    dnnl_engine_t e = ze_engine(&u);
    ze_command_list_handle_t list_a = ze_immediate_list(&u), list_b = ze_immediate_list(&u);
    dnnl_stream_t sa = NULL, sb = NULL;
    CHECK(dnnl_ze_interop_stream_create(&sa, e, list_a, 0));
    CHECK(dnnl_ze_interop_stream_create(&sb, e, list_b, 0));

    float *x = ze_alloc(&u, ZE_USM_SHARED, M * K * sizeof(float));
    float *w = ze_alloc(&u, ZE_USM_SHARED, K * N * sizeof(float));
    float *sc = ze_alloc(&u, ZE_USM_SHARED, M * sizeof(float));
    float *y = ze_alloc(&u, ZE_USM_SHARED, M * N * sizeof(float));
    float *z = ze_alloc(&u, ZE_USM_SHARED, M * N * sizeof(float));
    for (int i = 0; i < M * K; i++)
        x[i] = (float)((i * 7) % 23) / 11.f - 1.f;
    for (int i = 0; i < K * N; i++)
        w[i] = (float)((i * 5) % 19) / 9.f - 1.f;
    for (int i = 0; i < M; i++)
        sc[i] = 0.5f + (float)i / M;
    for (int i = 0; i < M * N; i++)
        y[i] = z[i] = -1234.f;

    dnnl_memory_t xm = wrap(e, M, K, x), wm = wrap(e, K, N, w), sm = wrap(e, M, 1, sc);
    dnnl_memory_t ym = wrap(e, M, N, y), zm = wrap(e, M, N, z);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t matmul = NULL, mul = NULL;
    CHECK(dnnl_matmul_primitive_desc_create(&pd, e, md_of(xm), md_of(wm), NULL, md_of(ym), NULL));
    CHECK(dnnl_primitive_create(&matmul, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_binary_primitive_desc_create(
            &pd, e, dnnl_binary_mul, md_of(ym), md_of(sm), md_of(zm), NULL));
    CHECK(dnnl_primitive_create(&mul, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    printf("matmul %dx%dx%d on list A, binary mul (row broadcast) on list B\n", M, N, K);

    ze_event_pool_handle_t pool = ze_event_pool(&u, 1);
    ze_event_handle_t gate = ze_event(pool, 0);
    dnnl_exec_arg_t a1[] = {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}};
    dnnl_exec_arg_t a2[] = {{DNNL_ARG_SRC_0, ym}, {DNNL_ARG_SRC_1, sm}, {DNNL_ARG_DST, zm}};
    ze_event_handle_t r1 = NULL, r2 = NULL;
    CHECK(dnnl_ze_interop_primitive_execute(matmul, sa, 3, a1, 1, &gate, &r1));
    EXPECT(r1 != NULL);
    CHECK(dnnl_ze_interop_primitive_execute(mul, sb, 3, a2, 1, &r1, &r2));
    EXPECT(r2 != NULL && r2 != r1);
    printf("both executes returned (gate not signalled): events %p, %p\n", (void *)r1,
            (void *)r2);

    pause_ms(200);
    EXPECT(!ze_event_done(r1));
    EXPECT(!ze_event_done(r2));
    for (int i = 0; i < M * N; i++)
        EXPECT(y[i] == -1234.f && z[i] == -1234.f);
    printf("before the host signals the gate nothing has run: ok\n");

    ZE_CHECK(zeEventHostSignal(gate));
    ZE_CHECK(zeEventHostSynchronize(r2, UINT64_MAX));
    EXPECT(ze_event_done(r1));
    int bad = 0;
    for (int i = 0; i < M && bad < 5; i++)
        for (int j = 0; j < N && bad < 5; j++) {
            double acc = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                acc += (double)x[i * K + k] * w[k * N + j];
                mag += fabs((double)x[i * K + k] * w[k * N + j]);
            }
            double want = acc * sc[i];
            if (fabs(z[i * N + j] - want) > 1e-5 * (1.0 + mag * sc[i])) {
                fprintf(stderr, "z[%d][%d] = %g, want %g\n", i, j, z[i * N + j], want);
                bad++;
            }
        }
    EXPECT(bad == 0);
    printf("after the signal: z = (x * w) * s, exact: ok\n");

    /* The gate is still the user's. */
    EXPECT(ze_event_done(gate));
    ZE_CHECK(zeEventHostReset(gate));
    EXPECT(!ze_event_done(gate));

    CHECK(dnnl_primitive_destroy(matmul));
    CHECK(dnnl_primitive_destroy(mul));
    dnnl_memory_t mems[] = {xm, wm, sm, ym, zm};
    for (int i = 0; i < 5; i++)
        CHECK(dnnl_memory_destroy(mems[i]));
    CHECK(dnnl_stream_destroy(sa));
    CHECK(dnnl_stream_destroy(sb));
    CHECK(dnnl_engine_destroy(e));
    ZE_CHECK(zeEventDestroy(gate));
    ZE_CHECK(zeEventPoolDestroy(pool));
    ZE_CHECK(zeCommandListDestroy(list_a));
    ZE_CHECK(zeCommandListDestroy(list_b));
    void *ptrs[] = {x, w, sc, y, z};
    for (int i = 0; i < 5; i++)
        ZE_CHECK(zeMemFree(u.context, ptrs[i]));
    ze_user_destroy(&u);
    printf("ze event chain: ok\n");
    return 0;
}
