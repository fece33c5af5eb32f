/* dnnl_ze_interop_primitive_execute (notes 2.8: ndeps comes before deps):
 * - on a stream over the user's immediate list, with memories over the user's shared
 *   USM: no deps; one dependency (a user event the host signalled); two; the returned
 *   event is a real event, signalled once the results are there
 *   (zeEventHostSynchronize), and a NULL return_event pointer is allowed;
 * - on a stream over a regular list: the primitive is appended and runs when the user
 *   closes the list and executes it on a queue;
 * - dnnl_primitive_execute (the generic call) on a ze stream, then dnnl_stream_wait;
 * - refused with invalid_arguments: ndeps < 0, ndeps > 0 with NULL deps, nargs < 0,
 *   a NULL primitive or stream, a CPU stream, a stream of an engine over another
 *   context; nothing
 *   runs (the destination keeps its contents). */
#include <math.h>

#include "ze_util.h"

#define N 4096

static void fill_src(float *p) {
    for (int i = 0; i < N; i++)
        p[i] = (float)(i % 101) / 10.f - 5.f;
}

/* Whether dst = 3 * src - 1 for the values of fill_src. */
static int linear_done(const float *dst) {
    for (int i = 0; i < N; i++) {
        float x = (float)(i % 101) / 10.f - 5.f;
        if (fabsf(dst[i] - (3.f * x - 1.f)) > 1e-5f * (1.f + fabsf(3.f * x))) {
            fprintf(stderr, "dst[%d] = %g, want %g\n", i, dst[i], 3.f * x - 1.f);
            return 0;
        }
    }
    return 1;
}

static void poison(float *p) {
    for (int i = 0; i < N; i++)
        p[i] = -777.f;
}

static int untouched(const float *p) {
    for (int i = 0; i < N; i++)
        if (p[i] != -777.f) return 0;
    return 1;
}

static void expect_refused(dnnl_status_t s, const char *what) {
    if (s != dnnl_invalid_arguments) {
        fprintf(stderr, "dnnl_ze_interop_primitive_execute with %s returned %s, expected "
                        "invalid_arguments\n",
                what, check_status_str(s));
        exit(1);
    }
    printf("refused: %s\n", what);
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    dnnl_engine_t e = ze_engine(&u);
    ze_command_list_handle_t imm = ze_immediate_list(&u);
    dnnl_stream_t s = NULL;
    CHECK(dnnl_ze_interop_stream_create(&s, e, imm, 0));

    dnnl_memory_desc_t md = ze_md_f32(N);
    float *src_p = ze_alloc(&u, ZE_USM_SHARED, N * sizeof(float));
    float *dst_p = ze_alloc(&u, ZE_USM_SHARED, N * sizeof(float));
    fill_src(src_p);
    dnnl_memory_t src = NULL, dst = NULL;
    void *hs[1] = {src_p}, *hd[1] = {dst_p};
    CHECK(dnnl_ze_interop_memory_create(&src, md, e, 1, hs));
    CHECK(dnnl_ze_interop_memory_create(&dst, md, e, 1, hd));
    dnnl_primitive_t lin = ze_eltwise(e, md, dnnl_eltwise_linear, 3.f, -1.f);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};

    /* No deps; the returned event says when dst is there. */
    poison(dst_p);
    ze_event_handle_t done = NULL;
    CHECK(dnnl_ze_interop_primitive_execute(lin, s, 2, args, 0, NULL, &done));
    EXPECT(done != NULL);
    ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    EXPECT(ze_event_done(done));
    EXPECT(linear_done(dst_p));
    printf("execute without deps; the returned event is signalled with the results: ok\n");

    /* One and two user events (signalled by the host) as deps. */
    ze_event_pool_handle_t pool = ze_event_pool(&u, 2);
    ze_event_handle_t ev[2] = {ze_event(pool, 0), ze_event(pool, 1)};
    ZE_CHECK(zeEventHostSignal(ev[0]));
    ZE_CHECK(zeEventHostSignal(ev[1]));
    for (int ndeps = 1; ndeps <= 2; ndeps++) {
        poison(dst_p);
        done = NULL;
        CHECK(dnnl_ze_interop_primitive_execute(lin, s, 2, args, ndeps, ev, &done));
        EXPECT(done != NULL);
        ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
        EXPECT(linear_done(dst_p));
    }
    /* The user's events are untouched: still signalled, resettable. */
    EXPECT(ze_event_done(ev[0]) && ze_event_done(ev[1]));
    ZE_CHECK(zeEventHostReset(ev[0]));
    ZE_CHECK(zeEventHostReset(ev[1]));
    EXPECT(!ze_event_done(ev[0]) && !ze_event_done(ev[1]));
    printf("execute after one and two host-signalled user events: ok\n");

    /* No return event asked for. */
    poison(dst_p);
    CHECK(dnnl_ze_interop_primitive_execute(lin, s, 2, args, 0, NULL, NULL));
    CHECK(dnnl_stream_wait(s));
    EXPECT(linear_done(dst_p));
    /* The generic call on the ze stream. */
    poison(dst_p);
    CHECK(dnnl_primitive_execute(lin, s, 2, args));
    CHECK(dnnl_stream_wait(s));
    EXPECT(linear_done(dst_p));
    printf("execute with a NULL return_event pointer, and dnnl_primitive_execute: ok\n");

    /* A regular list: the primitive runs when the user executes the list. */
    ze_command_list_handle_t reg = ze_regular_list(&u);
    ze_command_queue_handle_t q = ze_queue(&u);
    dnnl_stream_t rs = NULL;
    CHECK(dnnl_ze_interop_stream_create(&rs, e, reg, 0));
    poison(dst_p);
    done = NULL;
    CHECK(dnnl_ze_interop_primitive_execute(lin, rs, 2, args, 0, NULL, &done));
    EXPECT(done != NULL);
    EXPECT(untouched(dst_p));
    ze_run_regular(q, reg);
    ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    EXPECT(linear_done(dst_p));
    CHECK(dnnl_stream_destroy(rs));
    printf("execute on a regular list, run by the user's queue: ok\n");

    /* Refusals: nothing runs. */
    poison(dst_p);
    done = NULL;
    expect_refused(dnnl_ze_interop_primitive_execute(lin, s, 2, args, -1, ev, &done),
            "ndeps -1");
    expect_refused(dnnl_ze_interop_primitive_execute(lin, s, 2, args, 1, NULL, &done),
            "ndeps 1 with NULL deps");
    expect_refused(dnnl_ze_interop_primitive_execute(lin, s, -1, args, 0, NULL, &done),
            "nargs -1");
    expect_refused(dnnl_ze_interop_primitive_execute(NULL, s, 2, args, 0, NULL, &done),
            "a NULL primitive");
    expect_refused(dnnl_ze_interop_primitive_execute(lin, NULL, 2, args, 0, NULL, &done),
            "a NULL stream");
    dnnl_engine_t cpu = NULL;
    dnnl_stream_t cpu_s = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&cpu_s, cpu, dnnl_stream_default_flags));
    expect_refused(dnnl_ze_interop_primitive_execute(lin, cpu_s, 2, args, 0, NULL, &done),
            "a CPU stream");
    CHECK(dnnl_stream_destroy(cpu_s));
    CHECK(dnnl_engine_destroy(cpu));
    ze_user_t u2 = u;
    u2.context = ze_context_create(u.driver);
    dnnl_engine_t e2 = ze_engine(&u2);
    ze_command_list_handle_t imm2 = ze_immediate_list(&u2);
    dnnl_stream_t s2 = NULL;
    CHECK(dnnl_ze_interop_stream_create(&s2, e2, imm2, 0));
    expect_refused(dnnl_ze_interop_primitive_execute(lin, s2, 2, args, 0, NULL, &done),
            "a stream of an engine over another context");
    CHECK(dnnl_stream_destroy(s2));
    CHECK(dnnl_engine_destroy(e2));
    ZE_CHECK(zeCommandListDestroy(imm2));
    ze_user_destroy(&u2);
    EXPECT(done == NULL);
    CHECK(dnnl_stream_wait(s));
    EXPECT(untouched(dst_p));

    CHECK(dnnl_primitive_destroy(lin));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(s));
    CHECK(dnnl_engine_destroy(e));
    ZE_CHECK(zeEventDestroy(ev[0]));
    ZE_CHECK(zeEventDestroy(ev[1]));
    ZE_CHECK(zeEventPoolDestroy(pool));
    ZE_CHECK(zeCommandListDestroy(reg));
    ZE_CHECK(zeCommandQueueDestroy(q));
    ZE_CHECK(zeCommandListDestroy(imm));
    ZE_CHECK(zeMemFree(u.context, src_p));
    ZE_CHECK(zeMemFree(u.context, dst_p));
    ze_user_destroy(&u);
    printf("ze primitive execute: ok\n");
    return 0;
}
