/* What the RNN examples (rnn_vanilla.c, rnn_lstm.c, rnn_gru.c, rnn_lbr_gru.c,
 * rnn_augru.c, rnn_lbr_augru.c) share: the engine named by the argument, memories
 * filled from the program's arrays, a reorder where the primitive chose its own
 * weights layout (`any`), and the checks each example prints.
 *
 * Every example runs one layer, left to right, over T = 3 time steps of a batch of
 * N = 2 with C = 4 channels everywhere (src_layer, the states and dst_layer): the
 * shapes of rnn.md with L = 1 and D = 1. */
#ifndef RNN_EXAMPLE_H
#define RNN_EXAMPLE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

#define DNNL(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)s_); \
            exit(1); \
        } \
    } while (0)

enum { T = 3, N = 2, C = 4 };

static dnnl_engine_t engine;
static dnnl_stream_t stream;

/* cpu (the default) or gpu; a gpu run without an OpenCL device exits 77 (skipped). */
static void example_open(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: No OpenCL device is visible\n");
        exit(77);
    }
    DNNL(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
}

static void example_close(void) {
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
}

/* The primitive descriptor's creation: a library without this cell says so (77). */
static void skip_if_unimplemented(dnnl_status_t st, const char *cell) {
    if (st == dnnl_unimplemented) {
        printf("SKIP: %s: rnn not implemented by this library\n", cell);
        exit(77);
    }
    DNNL(st);
}

static dnnl_memory_desc_t desc(int ndims, const dnnl_dim_t *dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    DNNL(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

/* A memory of md holding v (zeros without v). */
static dnnl_memory_t filled(const_dnnl_memory_desc_t md, const float *v) {
    dnnl_memory_t m = NULL;
    DNNL(dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE));
    void *p = NULL;
    DNNL(dnnl_memory_map_data(m, &p));
    size_t size = dnnl_memory_desc_get_size(md);
    if (v)
        memcpy(p, v, size);
    else
        memset(p, 0, size);
    DNNL(dnnl_memory_unmap_data(m, p));
    return m;
}

static void read_floats(dnnl_memory_t m, float *v, size_t n) {
    void *p = NULL;
    DNNL(dnnl_memory_map_data(m, &p));
    memcpy(v, p, n * sizeof(float));
    DNNL(dnnl_memory_unmap_data(m, p));
}

/* The user's weights `user` in the layout the primitive chose for argument `arg`: the
 * same memory where the layouts agree, else a reorder of it (*reordered is then the new
 * memory, for the caller to destroy). */
static dnnl_memory_t weights_for(const_dnnl_primitive_desc_t pd, int arg, dnnl_memory_t user,
        dnnl_memory_t *reordered) {
    const_dnnl_memory_desc_t want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    const_dnnl_memory_desc_t have = NULL;
    DNNL(dnnl_memory_get_memory_desc(user, &have));
    *reordered = NULL;
    if (dnnl_memory_desc_equal(want, have)) return user;
    DNNL(dnnl_memory_create(reordered, want, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t r = NULL;
    DNNL(dnnl_reorder_primitive_desc_create(&rpd, have, engine, want, engine, NULL));
    DNNL(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, *reordered}};
    DNNL(dnnl_primitive_execute(r, stream, 2, args));
    DNNL(dnnl_stream_wait(stream));
    DNNL(dnnl_primitive_destroy(r));
    DNNL(dnnl_primitive_desc_destroy(rpd));
    return *reordered;
}

/* Deterministic inputs in [-scale, scale]. */
static void make_values(float *v, int n, float scale, int seed) {
    for (int i = 0; i < n; i++)
        v[i] = scale * sinf(0.7f * (float)(i + 1) + 1.3f * (float)seed);
}

static inline float sigmoid(float x) { return 1.f / (1.f + expf(-x)); }

/* The checks every example prints: the first time step computed here from rnn.md's
 * equations (want, N * C values) against dst_layer's, every output finite, and a second
 * run with the same inputs giving the same outputs. */
static int check_results(const float *first, const float *second, int n, const float *want) {
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(first[i]) || first[i] != second[i]) bad++;
        if (i < N * C && fabsf(first[i] - want[i]) > 1e-5f * (1.f + fabsf(want[i]))) {
            fprintf(stderr, "dst_layer[0][%d][%d]: %.7g, by hand %.7g\n", i / C, i % C, first[i], want[i]);
            bad++;
        }
    }
    printf("%d results checked: %s\n", n + N * C, bad ? "WRONG" : "ok");
    return bad != 0;
}

#endif
