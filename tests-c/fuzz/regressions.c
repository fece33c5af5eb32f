/* Minimal reproducers of what the fuzz suite found, kept as regression tests.
 *
 * 1. (fuzz_calls, seed 0x1006, sequence 168) A descriptor whose every stride
 *    is zero -- dims {5}, strides {0} -- has a size of 0 bytes by upstream's
 *    rule, yet holds elements. A binary primitive over it was accepted and,
 *    executed over a user buffer of that size, wrote an element past it (the
 *    canary after the buffer changed). Every kind must refuse such a
 *    descriptor, or compute without touching a byte past the buffer.
 * 2. (sequences 3780 and 13109) The same with a huge dimension -- softmax over
 *    dims {7, 2^63-1}, binary over {2^40}, strides all zero -- was accepted and
 *    the execution ran for ever. Each must be refused (or finish) at once.
 *
 * Usage: fuzz_regressions [cpu|gpu]. gpu skips (77) without an OpenCL device. */
#include <string.h>
#include <unistd.h>

#include "check.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int on_gpu;

#define CANARY 64

static dnnl_memory_desc_t strided(int nd, const dnnl_dim_t *dims, const dnnl_dim_t *strides) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_strides(&md, nd, dims, dnnl_f32, strides));
    return md;
}

/* Executes `pd`'s primitive with every argument over md (a user buffer of
 * get_size bytes between canaries on the CPU engine); the canaries must hold. */
static void run_guarded(dnnl_primitive_desc_t pd, const_dnnl_memory_desc_t md, int nargs,
        const int *arg_ids, const char *what) {
    size_t size = dnnl_memory_desc_get_size(md);
    unsigned char *buf[4];
    dnnl_memory_t mem[4];
    dnnl_exec_arg_t args[4];
    for (int k = 0; k < nargs; k++) {
        buf[k] = malloc(size + 2 * CANARY);
        EXPECT(buf[k] != NULL);
        memset(buf[k], 0xA5, size + 2 * CANARY);
        if (on_gpu)
            CHECK(dnnl_memory_create(&mem[k], md, engine, DNNL_MEMORY_ALLOCATE));
        else
            CHECK(dnnl_memory_create(&mem[k], md, engine, buf[k] + CANARY));
        args[k].arg = arg_ids[k];
        args[k].memory = mem[k];
    }
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    dnnl_status_t s = dnnl_primitive_execute(p, stream, nargs, args);
    if (s == dnnl_success) CHECK(dnnl_stream_wait(stream));
    for (int k = 0; k < nargs; k++) {
        for (size_t i = 0; i < CANARY; i++) {
            if (buf[k][i] != 0xA5 || buf[k][CANARY + size + i] != 0xA5) {
                fprintf(stderr, "%s: the execution (%s) wrote outside a %zu-byte buffer\n", what,
                        check_status_str(s), size);
                exit(1);
            }
        }
        CHECK(dnnl_memory_destroy(mem[k]));
        free(buf[k]);
    }
    CHECK(dnnl_primitive_destroy(p));
}

/* A primitive descriptor over `md` must be refused, or its execution must stay
 * inside the buffers. */
static void check_kind(const char *kind, dnnl_status_t s, dnnl_primitive_desc_t pd,
        const_dnnl_memory_desc_t md, int nargs, const int *args) {
    if (s != dnnl_success) {
        printf("%s: refused (%s)\n", kind, check_status_str(s));
        return;
    }
    run_guarded(pd, md, nargs, args, kind);
    CHECK(dnnl_primitive_desc_destroy(pd));
    printf("%s: accepted, and stayed inside the buffers\n", kind);
}

static void all_kinds(const_dnnl_memory_desc_t md, const char *name) {
    printf("-- %s (get_size: %zu bytes)\n", name, dnnl_memory_desc_get_size(md));
    dnnl_primitive_desc_t pd = NULL;
    const int sd[2] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    const int bin[3] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST};
    const int two[3] = {DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1, DNNL_ARG_DST};
    dnnl_status_t s;
    s = dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_relu, md, md, 0.0f, 0.0f, NULL);
    check_kind("eltwise", s, pd, md, 2, sd);
    s = dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, md, md, md, NULL);
    check_kind("binary", s, pd, md, 3, bin);
    s = dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_softmax_accurate, md, md, 0, NULL);
    check_kind("softmax", s, pd, md, 2, sd);
    s = dnnl_reorder_primitive_desc_create(&pd, md, engine, md, engine, NULL);
    check_kind("reorder", s, pd, md, 2, sd);
    const_dnnl_memory_desc_t srcs[2] = {md, md};
    float scales[2] = {1.0f, 1.0f};
    s = dnnl_sum_primitive_desc_create(&pd, engine, md, 2, scales, srcs, NULL);
    check_kind("sum", s, pd, md, 3, two);
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    /* A hang is a failure too: the whole program gets 60 seconds. */
    alarm(60);

    dnnl_dim_t d5[1] = {5}, z1[1] = {0};
    dnnl_memory_desc_t five = strided(1, d5, z1);
    all_kinds(five, "dims {5}, strides {0}");

    dnnl_dim_t big2[2] = {7, INT64_MAX}, z2[2] = {0, 0};
    dnnl_memory_desc_t huge = strided(2, big2, z2);
    all_kinds(huge, "dims {7, 2^63-1}, strides {0, 0}");

    dnnl_dim_t big1[1] = {(dnnl_dim_t)1 << 40};
    dnnl_memory_desc_t huge1 = strided(1, big1, z1);
    all_kinds(huge1, "dims {2^40}, strides {0}");

    CHECK(dnnl_memory_desc_destroy(five));
    CHECK(dnnl_memory_desc_destroy(huge));
    CHECK(dnnl_memory_desc_destroy(huge1));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("OK\n");
    return 0;
}
