/* Shared by the profiling tests (tests-c/profiling/): the experimental profiling API
 * (DNNL_EXPERIMENTAL_PROFILING; the tests define it) on a stream that profiles.
 *
 *   prof_run_three(engine, stream, &host_ns)  runs a small eltwise, a large matmul and
 *                          the small eltwise again on `stream`, waits, and returns the
 *                          host time the three took (their results are checked)
 *   prof_check_three(stream, host_ns)  the profile holds exactly those three entries:
 *                          each > 0 and below the host time, in execution order (the
 *                          matmul, second, longer than each eltwise); reset empties it;
 *                          the query's argument rules
 *   prof_refused(stream, status)  reset and both queries answer `status`
 *
 * Includers define _POSIX_C_SOURCE (clock_gettime) before any include.
 *
 * Upstream v3.13 (doc/advanced/experimental.md, dnnl.h): the profile has one entry
 * per primitive execution since the last dnnl_reset_profiling; with data NULL the
 * query gives their number; dnnl_profiling_data_kind_time is the execution time in
 * nanoseconds. Its library answers dnnl_unimplemented on streams of the CPU engine
 * (probed: stream creation with dnnl_stream_profiling, reset, query); it crashes on a
 * NULL stream, which ours refuses (invalid_arguments). */
#ifndef DNNL_TESTS_C_PROFILING_UTIL_H
#define DNNL_TESTS_C_PROFILING_UTIL_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum { PROF_SMALL = 64, PROF_MM = 192 };

static inline uint64_t prof_host_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline dnnl_memory_t prof_memory(dnnl_engine_t e, int ndims, const dnnl_dim_t *dims) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(
            &md, ndims, dims, dnnl_f32, ndims == 1 ? dnnl_a : dnnl_ab));
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

static inline void prof_fill(dnnl_memory_t m, size_t n, float scale) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    for (size_t i = 0; i < n; i++)
        p[i] = scale * (float)((int)(i % 7) - 3);
    CHECK(dnnl_memory_unmap_data(m, p));
}

static inline dnnl_primitive_t prof_primitive(dnnl_primitive_desc_t pd) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    return p;
}

static inline uint64_t prof_run_three(dnnl_engine_t e, dnnl_stream_t s) {
    dnnl_dim_t n = PROF_SMALL, mm[2] = {PROF_MM, PROF_MM};
    dnnl_memory_t src = prof_memory(e, 1, &n), dst = prof_memory(e, 1, &n);
    dnnl_memory_t a = prof_memory(e, 2, mm), b = prof_memory(e, 2, mm), c = prof_memory(e, 2, mm);
    prof_fill(src, PROF_SMALL, 1.f);
    prof_fill(a, PROF_MM * PROF_MM, 0.5f);
    prof_fill(b, PROF_MM * PROF_MM, 0.25f);
    const_dnnl_memory_desc_t smd, amd;
    CHECK(dnnl_memory_get_memory_desc(src, &smd));
    CHECK(dnnl_memory_get_memory_desc(a, &amd));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
            dnnl_eltwise_relu, smd, smd, 0.f, 0.f, NULL));
    dnnl_primitive_t relu = prof_primitive(pd);
    CHECK(dnnl_matmul_primitive_desc_create(&pd, e, amd, amd, NULL, amd, NULL));
    dnnl_primitive_t matmul = prof_primitive(pd);
    dnnl_exec_arg_t eargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    dnnl_exec_arg_t margs[] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
    CHECK(dnnl_stream_wait(s));
    uint64_t t0 = prof_host_ns();
    CHECK(dnnl_primitive_execute(relu, s, 2, eargs));
    CHECK(dnnl_primitive_execute(matmul, s, 3, margs));
    CHECK(dnnl_primitive_execute(relu, s, 2, eargs));
    CHECK(dnnl_stream_wait(s));
    uint64_t host = prof_host_ns() - t0;

    float *p = NULL;
    CHECK(dnnl_memory_map_data(dst, (void **)&p));
    for (int i = 0; i < PROF_SMALL; i++)
        EXPECT(p[i] == fmaxf(0.f, (float)((i % 7) - 3)));
    CHECK(dnnl_memory_unmap_data(dst, p));
    CHECK(dnnl_memory_map_data(c, (void **)&p));
    double want = 0;
    for (int k = 0; k < PROF_MM; k++)
        want += 0.5 * ((k % 7) - 3) * 0.25 * (((k * PROF_MM) % 7) - 3);
    EXPECT(fabs(p[0] - want) < 1e-3 * (1 + fabs(want)));
    CHECK(dnnl_memory_unmap_data(c, p));

    CHECK(dnnl_primitive_destroy(relu));
    CHECK(dnnl_primitive_destroy(matmul));
    dnnl_memory_t all[] = {src, dst, a, b, c};
    for (int i = 0; i < 5; i++)
        CHECK(dnnl_memory_destroy(all[i]));
    return host;
}

static inline int prof_count(dnnl_stream_t s) {
    int n = -1;
    CHECK(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_undef, &n, NULL));
    return n;
}

static inline void prof_check_three(dnnl_stream_t s, uint64_t host_ns) {
    EXPECT(prof_count(s) == 3);
    uint64_t t[5] = {0, 0, 0, 0xdead, 0xdead};
    int n = 3;
    CHECK(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, t));
    printf("profile: relu %llu ns, matmul %llu ns, relu %llu ns (host: %llu ns for all)\n",
            (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
            (unsigned long long)host_ns);
    EXPECT(n == 3 && t[3] == 0xdead);
    for (int i = 0; i < 3; i++)
        EXPECT(t[i] > 0 && t[i] <= host_ns);
    /* Execution order: the matmul (192^3 multiply-adds) is the second entry. */
    EXPECT(t[1] > t[0] && t[1] > t[2]);

    /* Room for fewer: only that many are written. */
    uint64_t one[2] = {0, 0xdead};
    n = 1;
    CHECK(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, one));
    EXPECT(n == 1 && one[0] == t[0] && one[1] == 0xdead);
    /* Argument rules: no count pointer, a negative room, a kind that is not time. */
    CHECK_STATUS(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, NULL, t),
            dnnl_invalid_arguments);
    n = -1;
    CHECK_STATUS(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, t),
            dnnl_invalid_arguments);
    n = 3;
    CHECK_STATUS(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_undef, &n, t),
            dnnl_invalid_arguments);

    CHECK(dnnl_reset_profiling(s));
    EXPECT(prof_count(s) == 0);
    n = 3;
    CHECK(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, t));
    EXPECT(n == 0);
}

static inline void prof_refused(dnnl_stream_t s, dnnl_status_t status) {
    int n = 7;
    uint64_t t[1] = {0xdead};
    CHECK_STATUS(dnnl_reset_profiling(s), status);
    CHECK_STATUS(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, NULL), status);
    CHECK_STATUS(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, t), status);
    EXPECT(n == 7 && t[0] == 0xdead);
}

#endif /* DNNL_TESTS_C_PROFILING_UTIL_H */
