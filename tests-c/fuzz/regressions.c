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
 * 3. (sequences 1618, 3260, 8436, 14341, 16863, 19976) A scales or zero-point
 *    memory whose descriptor holds fewer values than the primitive reads (a
 *    {0} descriptor over a user pointer: 0 bytes) was accepted, and the
 *    primitive read 4 bytes from it. Binary, softmax, matmul and reorder must
 *    refuse it with dnnl_invalid_arguments.
 * 4. (fuzz_calls_ocl on PoCL, seed 0x2026, sequence 313) A reorder executed in
 *    place (one memory as source and destination) returned dnnl_runtime_error
 *    on OpenCL engines (clEnqueueCopyBuffer: CL_MEM_COPY_OVERLAP). It copies
 *    the elements onto themselves: success, and the values stay.
 *
 * Usage: fuzz_regressions [cpu|gpu]. gpu skips (77) without an OpenCL device. */
#include <string.h>
#include <unistd.h>

#include "check.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int on_gpu;

#define CANARY 64

/* The descriptor, or NULL when it is refused at creation (which settles it:
 * no primitive can be made over it). */
static dnnl_memory_desc_t strided(int nd, const dnnl_dim_t *dims, const dnnl_dim_t *strides) {
    dnnl_memory_desc_t md = NULL;
    dnnl_status_t s = dnnl_memory_desc_create_with_strides(&md, nd, dims, dnnl_f32, strides);
    if (s != dnnl_success) {
        printf("-- refused at creation (%s)\n", check_status_str(s));
        return NULL;
    }
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
    if (!md) return;
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

/* Executes `pd` with its arguments (library memories over `mds`, filled with
 * ones) plus `quant_arg` over a 0-byte memory; the execution must be refused. */
static void small_quant(const char *what, dnnl_primitive_desc_t pd, int nargs, const int *arg_ids,
        int quant_arg, dnnl_data_type_t quant_dt) {
    dnnl_memory_t mem[5];
    dnnl_exec_arg_t args[5];
    for (int k = 0; k < nargs; k++) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg_ids[k]);
        EXPECT(md != NULL);
        CHECK(dnnl_memory_create(&mem[k], md, engine, DNNL_MEMORY_ALLOCATE));
        args[k].arg = arg_ids[k];
        args[k].memory = mem[k];
    }
    static float user[4];
    dnnl_dim_t zero[1] = {0};
    dnnl_memory_desc_t qmd = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&qmd, 1, zero, quant_dt, dnnl_a));
    if (on_gpu)
        CHECK(dnnl_memory_create(&mem[nargs], qmd, engine, DNNL_MEMORY_ALLOCATE));
    else
        CHECK(dnnl_memory_create(&mem[nargs], qmd, engine, user));
    args[nargs].arg = quant_arg;
    args[nargs].memory = mem[nargs];
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    dnnl_status_t s = dnnl_primitive_execute(p, stream, nargs + 1, args);
    if (s == dnnl_success) CHECK(dnnl_stream_wait(stream));
    if (s != dnnl_invalid_arguments) {
        fprintf(stderr, "%s: a 0-byte memory as argument %d gave %s, not invalid_arguments\n", what,
                quant_arg, check_status_str(s));
        exit(1);
    }
    printf("%s: a 0-byte memory for argument %d refused\n", what, quant_arg);
    for (int k = 0; k <= nargs; k++) CHECK(dnnl_memory_destroy(mem[k]));
    CHECK(dnnl_memory_desc_destroy(qmd));
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

static dnnl_primitive_attr_t quant_attr(int scale_arg, int scale_mask, int zp_arg) {
    dnnl_primitive_attr_t a = NULL;
    CHECK(dnnl_primitive_attr_create(&a));
    if (scale_arg) CHECK(dnnl_primitive_attr_set_scales_mask(a, scale_arg, scale_mask));
    if (zp_arg) CHECK(dnnl_primitive_attr_set_zero_points_mask(a, zp_arg, 0));
    return a;
}

static void quant_arrays(void) {
    printf("-- scales and zero points over 0-byte memories\n");
    dnnl_dims_t d = {2, 3, 4};
    dnnl_memory_desc_t f = NULL, s8 = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&f, 3, d, dnnl_f32, dnnl_abc));
    CHECK(dnnl_memory_desc_create_with_tag(&s8, 3, d, dnnl_s8, dnnl_abc));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t a = quant_attr(DNNL_ARG_SRC_0, 0, 0);
    CHECK(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, f, f, f, a));
    const int bin[3] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST};
    small_quant("binary", pd, 3, bin, DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0, dnnl_f32);
    CHECK(dnnl_primitive_attr_destroy(a));

    a = quant_attr(DNNL_ARG_DST, 0, 0);
    CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_softmax_accurate, f, f, 2, a));
    const int sd[2] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    small_quant("softmax", pd, 2, sd, DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, dnnl_f32);
    CHECK(dnnl_primitive_attr_destroy(a));

    a = quant_attr(DNNL_ARG_WEIGHTS, 1 << 2, 0);
    dnnl_dims_t wd = {2, 4, 5}, dd = {2, 3, 5};
    dnnl_memory_desc_t w = NULL, dst = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&w, 3, wd, dnnl_f32, dnnl_abc));
    CHECK(dnnl_memory_desc_create_with_tag(&dst, 3, dd, dnnl_f32, dnnl_abc));
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, f, w, NULL, dst, a));
    const int mm[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    small_quant("matmul", pd, 3, mm, DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, dnnl_f32);
    CHECK(dnnl_primitive_attr_destroy(a));

    a = quant_attr(DNNL_ARG_SRC, 0, 0);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, f, engine, s8, engine, a));
    small_quant("reorder (scales)", pd, 2, sd, DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, dnnl_f32);
    CHECK(dnnl_primitive_attr_destroy(a));
    a = quant_attr(0, 0, DNNL_ARG_DST);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, f, engine, s8, engine, a));
    small_quant("reorder (zero points)", pd, 2, sd, DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, dnnl_s32);
    CHECK(dnnl_primitive_attr_destroy(a));

    CHECK(dnnl_memory_desc_destroy(f));
    CHECK(dnnl_memory_desc_destroy(s8));
    CHECK(dnnl_memory_desc_destroy(w));
    CHECK(dnnl_memory_desc_destroy(dst));
}

static void reorder_in_place(void) {
    dnnl_dims_t d = {2, 3, 4, 5};
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, 4, d, dnnl_f32, dnnl_nchw));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, md, engine, md, engine, NULL));
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE));
    float *v = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&v));
    for (int i = 0; i < 120; i++) v[i] = (float)i - 60.0f;
    CHECK(dnnl_memory_unmap_data(m, v));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, m}};
    CHECK(dnnl_primitive_execute(p, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_memory_map_data(m, (void **)&v));
    for (int i = 0; i < 120; i++) EXPECT(v[i] == (float)i - 60.0f);
    CHECK(dnnl_memory_unmap_data(m, v));
    printf("-- reorder in place: success, values kept\n");
    CHECK(dnnl_memory_destroy(m));
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(md));
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
    EXPECT(five != NULL);
    all_kinds(five, "dims {5}, strides {0}");

    dnnl_dim_t big2[2] = {7, INT64_MAX}, z2[2] = {0, 0};
    dnnl_memory_desc_t huge = strided(2, big2, z2);
    all_kinds(huge, "dims {7, 2^63-1}, strides {0, 0}");

    dnnl_dim_t big1[1] = {(dnnl_dim_t)1 << 40};
    dnnl_memory_desc_t huge1 = strided(1, big1, z1);
    all_kinds(huge1, "dims {2^40}, strides {0}");

    quant_arrays();
    reorder_in_place();

    CHECK(dnnl_memory_desc_destroy(five));
    if (huge) CHECK(dnnl_memory_desc_destroy(huge));
    if (huge1) CHECK(dnnl_memory_desc_destroy(huge1));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("OK\n");
    return 0;
}
