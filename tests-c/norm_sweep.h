/* What the sweeps of the batch, layer and group normalizations (tests-c/<kind>/
 * <kind>_sweep.c) share: where they run, their counters and failure report, memories
 * for a primitive descriptor's arguments, value and descriptor checks, one execution,
 * and the opening and closing of main(). Include after nothing else: it brings
 * prim_util.h. */
#ifndef DNNL_TESTS_C_NORM_SWEEP_H
#define DNNL_TESTS_C_NORM_SWEEP_H

#include <stdarg.h>

#include "prim_util.h"

static const char *where;
static int on_gpu, n_run, n_noted, failures;

static inline void unused_helpers(void) {
    (void)expect_tag;
    (void)md_strides;
    (void)rounded;
}

static void fail(const char *what, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "FAIL: %s: ", what);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

/* A memory for pd's argument `arg`; NULL where pd has none. */
static inline dnnl_memory_t mem_of(dnnl_primitive_desc_t pd, int arg) {
    const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    if (!md || dnnl_memory_desc_get_size(md) == 0) return NULL;
    return memory(md);
}

static inline void read_vec(dnnl_memory_t m, float *v) {
    int ok = 1;
    read_back(m, v, &ok);
}

/* Reports the first of the n values that is off `want` by more than rel (1 + |want|). */
static inline void check_vals(const char *what, const char *arg, dnnl_data_type_t dt,
        const float *got, const double *want, int64_t n, double rel) {
    for (int64_t i = 0; i < n; i++) {
        double bound = rel * (1.0 + fabs(want[i]));
        if (!matches(dt, got[i], want[i], bound)) {
            fail(what, "%s[%lld] = %.7g, want %.7g", arg, (long long)i, got[i], want[i]);
            return;
        }
    }
}

static inline void expect_md(const char *what, dnnl_primitive_desc_t pd, int arg, int present) {
    const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    int has = md && dnnl_memory_desc_get_size(md) > 0;
    if (has != present) fail(what, "argument %d: descriptor %s", arg, has ? "present" : "missing");
}

static inline void execute(dnnl_primitive_desc_t pd, int nargs, dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

/* Creates the engine and stream of the engine the arguments name (cpu, gpu, ze; without
 * one, ze under ONEDNN_GPU_RUNTIME=ze, else cpu), skipping (77) without such a device,
 * and seeds the generator. */
static inline void sweep_open(int argc, char **argv, uint64_t seed) {
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    on_gpu = strcmp(where, "cpu") != 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    rng_seed(seed);
}

/* Destroys the stream and engine and prints the summary line of test `name`; the exit
 * status. */
static inline int sweep_close(const char *name) {
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("%s on %s%s: %d primitives run, %d noted (unimplemented by this library), "
           "%d failures\n",
            name, where, on_gpu ? " (the GPU subset)" : "", n_run, n_noted, failures);
    return failures ? 1 : 0;
}

#endif /* DNNL_TESTS_C_NORM_SWEEP_H */
