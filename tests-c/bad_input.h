/* What the bad-input tests (tests-c/<kind>/<kind>_bad_input.c of convolution, pooling,
 * resampling, reduction, PReLU, shuffle, LRN and the batch, layer and group
 * normalizations) share: a status check
 * that counts failures, a primitive descriptor output that must survive a refusal, and
 * memories whose bytes (and, on the CPU engine, the bytes after them) must stay as they
 * were after a refused execution. Set `engine`, `stream` and `on_gpu` first. */
#ifndef DNNL_TESTS_C_BAD_INPUT_H
#define DNNL_TESTS_C_BAD_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int on_gpu, failures;

/* A value no library returns as a primitive descriptor: it must survive a refusal. */
#define UNTOUCHED ((dnnl_primitive_desc_t)(uintptr_t)0x5eed)

static inline void expect_status(const char *what, dnnl_status_t got, dnnl_status_t want) {
    if (got == want) return;
    fflush(stdout);
    fprintf(stderr, "FAIL: %s: returned %s, want %s\n", what, check_status_str(got),
            check_status_str(want));
    failures++;
}

/* Checks a creation's status and that a refused one left *pd as it was; destroys a
 * created descriptor. */
static inline void expect_pd(const char *what, dnnl_status_t got, dnnl_primitive_desc_t pd,
        dnnl_status_t want) {
    expect_status(what, got, want);
    if (got != dnnl_success && pd != UNTOUCHED) {
        fprintf(stderr, "FAIL: %s: a refused creation wrote its output\n", what);
        failures++;
    }
    if (got == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
}

static dnnl_memory_desc_t mds_made[64];
static int n_mds_made;

/* A plain (row-major) descriptor, destroyed at the end (free_mds). */
static inline const_dnnl_memory_desc_t md(int ndims, const dnnl_dim_t *dims, dnnl_data_type_t dt) {
    static const dnnl_format_tag_t plain[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde,
            dnnl_abcdef};
    dnnl_memory_desc_t m = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&m, ndims, dims, dt, plain[ndims - 1]));
    EXPECT(n_mds_made < 64);
    mds_made[n_mds_made++] = m;
    return m;
}

static inline const_dnnl_memory_desc_t md_with_tag(int ndims, const dnnl_dim_t *dims,
        dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t m = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&m, ndims, dims, dt, tag));
    EXPECT(n_mds_made < 64);
    mds_made[n_mds_made++] = m;
    return m;
}

static inline void free_mds(void) {
    for (int i = 0; i < n_mds_made; i++)
        CHECK(dnnl_memory_desc_destroy(mds_made[i]));
    n_mds_made = 0;
}

/* A memory of m over `bytes` bytes (a user buffer on the CPU engine, so that the bytes
 * after m's size are watched; library memory on a GPU one), filled with 0xa5. */
static inline dnnl_memory_t canary_memory(
        const_dnnl_memory_desc_t m, unsigned char **buf, size_t bytes) {
    dnnl_memory_t mem = NULL;
    *buf = NULL;
    if (!on_gpu) {
        *buf = malloc(bytes);
        memset(*buf, 0xa5, bytes);
        CHECK(dnnl_memory_create(&mem, m, engine, *buf));
        return mem;
    }
    CHECK(dnnl_memory_create(&mem, m, engine, DNNL_MEMORY_ALLOCATE));
    void *p = NULL;
    CHECK(dnnl_memory_map_data(mem, &p));
    memset(p, 0xa5, dnnl_memory_desc_get_size(m));
    CHECK(dnnl_memory_unmap_data(mem, p));
    return mem;
}

/* Whether every byte of mem (and, on the CPU, of the whole buffer) is still 0xa5. */
static inline int untouched(dnnl_memory_t mem, const unsigned char *buf, size_t bytes) {
    const_dnnl_memory_desc_t m;
    CHECK(dnnl_memory_get_memory_desc(mem, &m));
    void *p = NULL;
    CHECK(dnnl_memory_map_data(mem, &p));
    size_t n = dnnl_memory_desc_get_size(m);
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= ((unsigned char *)p)[i] == 0xa5;
    CHECK(dnnl_memory_unmap_data(mem, p));
    for (size_t i = 0; buf && i < bytes; i++)
        ok &= buf[i] == 0xa5;
    return ok;
}

/* Executes prim with args, args[out_index] replaced by a memory of `bad` over canary
 * bytes (`bytes` of them on the CPU engine): the execution must be refused with
 * invalid_arguments and leave that memory (and the bytes after it) untouched. Ours
 * only (Intel's library does not check execution arguments). */
static inline void expect_refused_output(dnnl_primitive_t prim, int nargs, dnnl_exec_arg_t *args,
        int out_index, const_dnnl_memory_desc_t bad, size_t bytes, const char *what) {
    unsigned char *buf = NULL;
    dnnl_memory_t dm = canary_memory(bad, &buf, bytes);
    dnnl_memory_t keep = args[out_index].memory;
    args[out_index].memory = dm;
    dnnl_status_t st = dnnl_primitive_execute(prim, stream, nargs, args);
    CHECK(dnnl_stream_wait(stream));
    args[out_index].memory = keep;
    expect_status(what, st, dnnl_invalid_arguments);
    if (!untouched(dm, buf, bytes)) {
        fprintf(stderr, "FAIL: %s wrote to it or past it\n", what);
        failures++;
    }
    CHECK(dnnl_memory_destroy(dm));
    free(buf);
}

/* expect_refused_output for each of the undersized or mistyped `bad` descriptors in
 * turn, over the size of `good` and 64 bytes more. */
static inline void expect_refused_outputs(dnnl_primitive_t prim, int nargs, dnnl_exec_arg_t *args,
        int out_index, const_dnnl_memory_desc_t good, int nbad,
        const const_dnnl_memory_desc_t *bad) {
    size_t full = dnnl_memory_desc_get_size(good) + 64;
    for (int i = 0; i < nbad; i++) {
        char what[64];
        snprintf(what, sizeof what, "execution with bad output %d", i);
        expect_refused_output(prim, nargs, args, out_index, bad[i], full, what);
    }
}

/* The execution checks of a primitive whose last argument (args[nargs - 1]) is its dst,
 * a plain f32 tensor of `dims`: a dst one element short in its last dimension, one short
 * in its first, and a bf16 one are refused and left untouched (expect_refused_outputs);
 * an execution without a dst is refused. */
static inline void expect_refused_dsts(dnnl_primitive_t prim, int nargs, dnnl_exec_arg_t *args,
        int ndims, const dnnl_dim_t *dims) {
    dnnl_dims_t last, first;
    memcpy(last, dims, sizeof(dnnl_dim_t) * (size_t)ndims);
    memcpy(first, dims, sizeof(dnnl_dim_t) * (size_t)ndims);
    last[ndims - 1]--;
    first[0]--;
    const_dnnl_memory_desc_t bad[] = {
            md(ndims, last, dnnl_f32), md(ndims, first, dnnl_f32), md(ndims, dims, dnnl_bf16)};
    expect_refused_outputs(prim, nargs, args, nargs - 1, md(ndims, dims, dnnl_f32), 3, bad);
    expect_status("execution without a dst", dnnl_primitive_execute(prim, stream, nargs - 1, args),
            dnnl_invalid_arguments);
}

/* Opens the engine (and its stream) that argv[1] names: gpu, else the CPU; skips (77)
 * on a GPU engine without an OpenCL device. */
static inline void bad_input_open(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
}

/* Frees the descriptors, the stream and the engine and reports test `name`; the exit
 * status. */
static inline int bad_input_close(const char *name) {
    free_mds();
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%s: %d failures\n", name, failures);
        return 1;
    }
    printf("%s on %s: every bad input refused with upstream's status\n", name,
            on_gpu ? "gpu" : "cpu");
    return 0;
}

#endif
