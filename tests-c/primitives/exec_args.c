/* Execution arguments are checked against the primitive before anything runs.
 *
 * For each of the eight primitive kinds, a primitive executes correctly with
 * the memories it was created for, and an argument described otherwise is
 * refused with dnnl_invalid_arguments, leaving the caller's buffers alone:
 *  - a destination too small for the primitive (a 1x1 memory over a user
 *    buffer followed by canary bytes, on the CPU engine: the canary must
 *    survive);
 *  - another data type, other dimensions, another layout of the same size.
 * Between engines (gpu run): a reorder from a CPU memory into a 1x1 GPU memory.
 * The scratchpad: a sum into bf16 of two sources needs one; in the user mode the
 * primitive descriptor reports it (scratchpad_md), execution without it or with a
 * smaller one is refused, with it the result is right; in the library mode it
 * counts in memory_consumption.
 *
 * Usage: primitives_exec_args [cpu|gpu]. gpu skips (77) without an OpenCL device. */
#include <math.h>
#include <string.h>

#include "check.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int on_gpu;

static dnnl_memory_desc_t md_tag(int ndims, const dnnl_dim_t *dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, tag));
    return md;
}

static dnnl_memory_t mem(const_dnnl_memory_desc_t md) {
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE));
    return m;
}

/* Fills an f32 memory with `v`. */
static void fill(dnnl_memory_t m, float v) {
    const_dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_get_memory_desc(m, &md));
    size_t n = dnnl_memory_desc_get_size(md) / sizeof(float);
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    for (size_t i = 0; i < n; i++) ((float *)p)[i] = v;
    CHECK(dnnl_memory_unmap_data(m, p));
}

static float first(dnnl_memory_t m, dnnl_data_type_t dt) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    float v;
    if (dt == dnnl_bf16) {
        unsigned int bits = (unsigned int)((unsigned short *)p)[0] << 16;
        memcpy(&v, &bits, sizeof v);
    } else {
        v = ((float *)p)[0];
    }
    CHECK(dnnl_memory_unmap_data(m, p));
    return v;
}

static dnnl_primitive_t prim_of(dnnl_primitive_desc_t pd) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    return p;
}

static dnnl_status_t run(dnnl_primitive_t p, int n, const dnnl_exec_arg_t *args) {
    dnnl_status_t s = dnnl_primitive_execute(p, stream, n, args);
    CHECK(dnnl_stream_wait(stream));
    return s;
}

/* A memory that must be refused as argument `slot` of `args` (replaced for one
 * execution, then restored). */
static void refused(dnnl_primitive_t p, int n, dnnl_exec_arg_t *args, int slot,
        dnnl_memory_t bad, const char *what) {
    dnnl_memory_t good = args[slot].memory;
    args[slot].memory = bad;
    dnnl_status_t s = run(p, n, args);
    if (s != dnnl_invalid_arguments) {
        fprintf(stderr, "%s: execute returned %s, expected invalid_arguments\n", what,
                check_status_str(s));
        exit(1);
    }
    args[slot].memory = good;
}

/* The four wrong destinations of a 2x3x4x5 f32 nchw output, and the check that
 * each is refused with the canary intact. */
static void check_wrong_outputs(
        dnnl_primitive_t p, int n, dnnl_exec_arg_t *args, int slot, const char *kind) {
    dnnl_dims_t dims = {2, 3, 4, 5}, one = {1, 1, 1, 1}, other = {2, 3, 4, 6};
    dnnl_memory_desc_t tiny_md = md_tag(4, one, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t s32_md = md_tag(4, dims, dnnl_s32, dnnl_nchw);
    dnnl_memory_desc_t other_md = md_tag(4, other, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t nhwc_md = md_tag(4, dims, dnnl_f32, dnnl_nhwc);
    /* The 1x1 destination: over a user buffer with canaries on the CPU. */
    float user[1 + 16];
    for (int i = 0; i < 17; i++) user[i] = 1234.5f;
    dnnl_memory_t tiny = NULL;
    if (on_gpu)
        tiny = mem(tiny_md);
    else
        CHECK(dnnl_memory_create(&tiny, tiny_md, engine, user));
    char what[128];
    snprintf(what, sizeof what, "%s: 1x1 destination", kind);
    refused(p, n, args, slot, tiny, what);
    for (int i = 0; i < 17; i++) EXPECT(user[i] == 1234.5f);
    dnnl_memory_t wrong[3] = {mem(s32_md), mem(other_md), mem(nhwc_md)};
    const char *why[3] = {"s32 destination", "2x3x4x6 destination", "nhwc destination"};
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "%s: %s", kind, why[i]);
        refused(p, n, args, slot, wrong[i], what);
        CHECK(dnnl_memory_destroy(wrong[i]));
    }
    CHECK(dnnl_memory_destroy(tiny));
    CHECK(dnnl_memory_desc_destroy(tiny_md));
    CHECK(dnnl_memory_desc_destroy(s32_md));
    CHECK(dnnl_memory_desc_destroy(other_md));
    CHECK(dnnl_memory_desc_destroy(nhwc_md));
    printf("%s: wrong destinations refused\n", kind);
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_dims_t dims = {2, 3, 4, 5};
    dnnl_memory_desc_t f = md_tag(4, dims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t f_nhwc = md_tag(4, dims, dnnl_f32, dnnl_nhwc);
    dnnl_memory_t src = mem(f), src1 = mem(f), dst = mem(f), src_nhwc = mem(f_nhwc);
    fill(src, -2.0f);
    fill(src1, 3.0f);
    fill(src_nhwc, 5.0f);
    dnnl_primitive_desc_t pd = NULL;

    /* Eltwise (ReLU): a right execution, then the wrong destinations and a
     * wrong source. */
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_linear, f, f, 2.0f, 1.0f, NULL));
    dnnl_primitive_t p = prim_of(pd);
    dnnl_exec_arg_t eargs[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    CHECK(run(p, 2, eargs));
    EXPECT(first(dst, dnnl_f32) == -3.0f);
    check_wrong_outputs(p, 2, eargs, 1, "eltwise");
    refused(p, 2, eargs, 0, src_nhwc, "eltwise: nhwc source");
    CHECK(dnnl_primitive_destroy(p));

    /* Binary (add). */
    CHECK(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, f, f, f, NULL));
    p = prim_of(pd);
    dnnl_exec_arg_t bargs[3] = {
            {DNNL_ARG_SRC_0, src}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}};
    CHECK(run(p, 3, bargs));
    EXPECT(first(dst, dnnl_f32) == 1.0f);
    check_wrong_outputs(p, 3, bargs, 2, "binary");
    refused(p, 3, bargs, 1, src_nhwc, "binary: nhwc src1");
    CHECK(dnnl_primitive_destroy(p));

    /* Softmax along the channels: every output is 1/3. */
    CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_softmax_accurate, f, f, 1, NULL));
    p = prim_of(pd);
    CHECK(run(p, 2, eargs));
    EXPECT(fabsf(first(dst, dnnl_f32) - 1.0f / 3.0f) < 1e-6f);
    check_wrong_outputs(p, 2, eargs, 1, "softmax");
    CHECK(dnnl_primitive_destroy(p));

    /* Reorder nchw -> nchw (a copy), and nhwc -> nchw. */
    CHECK(dnnl_reorder_primitive_desc_create(&pd, f, engine, f, engine, NULL));
    p = prim_of(pd);
    CHECK(run(p, 2, eargs));
    EXPECT(first(dst, dnnl_f32) == -2.0f);
    check_wrong_outputs(p, 2, eargs, 1, "reorder");
    refused(p, 2, eargs, 0, src_nhwc, "reorder: nhwc source for an nchw one");
    CHECK(dnnl_primitive_destroy(p));

    /* Sum of two. */
    float scales[2] = {1.0f, 2.0f};
    const_dnnl_memory_desc_t two[2] = {f, f};
    CHECK(dnnl_sum_primitive_desc_create(&pd, engine, f, 2, scales, two, NULL));
    p = prim_of(pd);
    dnnl_exec_arg_t sargs[3] = {{DNNL_ARG_MULTIPLE_SRC, src},
            {DNNL_ARG_MULTIPLE_SRC + 1, src1}, {DNNL_ARG_DST, dst}};
    CHECK(run(p, 3, sargs));
    EXPECT(first(dst, dnnl_f32) == 4.0f);
    check_wrong_outputs(p, 3, sargs, 2, "sum");
    CHECK(dnnl_primitive_destroy(p));

    /* Concat of two halves along the batch: 1x3x4x5 each. */
    dnnl_dims_t half = {1, 3, 4, 5};
    dnnl_memory_desc_t h = md_tag(4, half, dnnl_f32, dnnl_nchw);
    const_dnnl_memory_desc_t halves[2] = {h, h};
    CHECK(dnnl_concat_primitive_desc_create(&pd, engine, f, 2, 0, halves, NULL));
    p = prim_of(pd);
    dnnl_memory_t h0 = mem(h), h1 = mem(h);
    fill(h0, 7.0f);
    fill(h1, 8.0f);
    dnnl_exec_arg_t cargs[3] = {
            {DNNL_ARG_MULTIPLE_SRC, h0}, {DNNL_ARG_MULTIPLE_SRC + 1, h1}, {DNNL_ARG_DST, dst}};
    CHECK(run(p, 3, cargs));
    EXPECT(first(dst, dnnl_f32) == 7.0f);
    check_wrong_outputs(p, 3, cargs, 2, "concat");
    refused(p, 3, cargs, 0, src, "concat: a whole tensor as a half");
    CHECK(dnnl_primitive_destroy(p));

    /* Matmul 6x20 x 20x5 -> 6x5 viewed through the same 2x3x4x5 buffers is
     * another shape: use 2-D tensors. A 2x3 x 3x4 matmul. */
    dnnl_dims_t a_dims = {2, 3}, b_dims = {3, 4}, c_dims = {2, 4}, c_small = {1, 1};
    dnnl_memory_desc_t a_md = md_tag(2, a_dims, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t b_md = md_tag(2, b_dims, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t c_md = md_tag(2, c_dims, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t c_tiny = md_tag(2, c_small, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t b_t = md_tag(2, b_dims, dnnl_f32, dnnl_ba);
    dnnl_memory_t a = mem(a_md), b = mem(b_md), c = mem(c_md), bt = mem(b_t);
    fill(a, 1.0f);
    fill(b, 2.0f);
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, a_md, b_md, NULL, c_md, NULL));
    p = prim_of(pd);
    dnnl_exec_arg_t margs[3] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
    CHECK(run(p, 3, margs));
    EXPECT(first(c, dnnl_f32) == 6.0f);
    dnnl_memory_t ct = mem(c_tiny);
    refused(p, 3, margs, 2, ct, "matmul: 1x1 destination");
    refused(p, 3, margs, 1, bt, "matmul: transposed weights");
    CHECK(dnnl_primitive_destroy(p));

    /* Inner product: src 2x3, weights 4x3, dst 2x4. */
    dnnl_dims_t w_dims = {4, 3};
    dnnl_memory_desc_t w_md = md_tag(2, w_dims, dnnl_f32, dnnl_ab);
    dnnl_memory_t w = mem(w_md);
    fill(w, 0.5f);
    CHECK(dnnl_inner_product_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, a_md, w_md, NULL, c_md, NULL));
    p = prim_of(pd);
    dnnl_exec_arg_t iargs[3] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, c}};
    CHECK(run(p, 3, iargs));
    EXPECT(first(c, dnnl_f32) == 1.5f);
    refused(p, 3, iargs, 2, ct, "inner product: 1x1 destination");
    refused(p, 3, iargs, 1, b, "inner product: 3x4 weights for 4x3");
    CHECK(dnnl_primitive_destroy(p));
    printf("matmul, inner product: wrong arguments refused\n");

    /* Between engines: a CPU source into a 1x1 GPU destination. */
    if (on_gpu) {
        dnnl_engine_t cpu = NULL;
        CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
        CHECK(dnnl_reorder_primitive_desc_create(&pd, f, cpu, f, engine, NULL));
        p = prim_of(pd);
        float host[2 * 3 * 4 * 5];
        for (int i = 0; i < 120; i++) host[i] = (float)i;
        dnnl_memory_t hm = NULL;
        CHECK(dnnl_memory_create(&hm, f, cpu, host));
        dnnl_exec_arg_t xargs[2] = {{DNNL_ARG_SRC, hm}, {DNNL_ARG_DST, dst}};
        CHECK(run(p, 2, xargs));
        dnnl_dims_t one = {1, 1, 1, 1};
        dnnl_memory_desc_t tiny_md = md_tag(4, one, dnnl_f32, dnnl_nchw);
        dnnl_memory_t tiny = mem(tiny_md);
        refused(p, 2, xargs, 1, tiny, "cross-engine reorder: 1x1 GPU destination");
        dnnl_memory_t htiny = NULL;
        float canary[17];
        for (int i = 0; i < 17; i++) canary[i] = -1.0f;
        CHECK(dnnl_memory_create(&htiny, tiny_md, cpu, canary));
        refused(p, 2, xargs, 0, htiny, "cross-engine reorder: 1x1 CPU source");
        for (int i = 0; i < 17; i++) EXPECT(canary[i] == -1.0f);
        CHECK(dnnl_memory_destroy(htiny));
        CHECK(dnnl_memory_destroy(tiny));
        CHECK(dnnl_memory_desc_destroy(tiny_md));
        CHECK(dnnl_memory_destroy(hm));
        CHECK(dnnl_primitive_destroy(p));
        CHECK(dnnl_engine_destroy(cpu));
        printf("cross-engine reorder: wrong arguments refused\n");
    }

    /* The scratchpad: sum of two sources into bf16 runs in an f32 scratch. */
    dnnl_memory_desc_t bf = md_tag(4, dims, dnnl_bf16, dnnl_nchw);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_sum_primitive_desc_create(&pd, engine, bf, 2, scales, two, attr));
    dnnl_dim_t consumption = -1;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &consumption));
    EXPECT(consumption >= 2 * 3 * 4 * 5 * 4);
    EXPECT(dnnl_memory_desc_get_size(
                   dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)) == 0);
    dnnl_memory_t out = mem(bf);
    dnnl_exec_arg_t lib_args[3] = {{DNNL_ARG_MULTIPLE_SRC, src},
            {DNNL_ARG_MULTIPLE_SRC + 1, src1}, {DNNL_ARG_DST, out}};
    p = prim_of(pd);
    for (int rep = 0; rep < 3; rep++) CHECK(run(p, 3, lib_args)); /* the arena is reused */
    EXPECT(first(out, dnnl_bf16) == 4.0f);
    CHECK(dnnl_primitive_destroy(p));

    CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    CHECK(dnnl_sum_primitive_desc_create(&pd, engine, bf, 2, scales, two, attr));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &consumption));
    EXPECT(consumption == 0);
    const_dnnl_memory_desc_t sp_md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t sp_size = dnnl_memory_desc_get_size(sp_md);
    EXPECT(sp_size >= 2 * 3 * 4 * 5 * 4);
    dnnl_memory_t sp = mem(sp_md);
    dnnl_dims_t sp_small_dims = {(dnnl_dim_t)sp_size - 1};
    dnnl_memory_desc_t sp_small_md = md_tag(1, sp_small_dims, dnnl_u8, dnnl_a);
    dnnl_memory_t sp_small = mem(sp_small_md);
    p = prim_of(pd);
    fill(out, 0.0f);
    CHECK_STATUS(run(p, 3, lib_args), dnnl_invalid_arguments); /* no scratchpad given */
    dnnl_exec_arg_t user_args[4] = {lib_args[0], lib_args[1], lib_args[2],
            {DNNL_ARG_SCRATCHPAD, sp_small}};
    CHECK_STATUS(run(p, 4, user_args), dnnl_invalid_arguments);
    EXPECT(first(out, dnnl_bf16) == 0.0f);
    user_args[3].memory = sp;
    CHECK(run(p, 4, user_args));
    EXPECT(first(out, dnnl_bf16) == 4.0f);
    printf("scratchpad: library arena and user memory, %zu bytes\n", sp_size);
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_primitive_attr_destroy(attr));

    dnnl_memory_t all[] = {src, src1, dst, src_nhwc, h0, h1, a, b, c, bt, ct, w, out, sp,
            sp_small};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CHECK(dnnl_memory_destroy(all[i]));
    dnnl_memory_desc_t mds[] = {f, f_nhwc, h, a_md, b_md, c_md, c_tiny, b_t, w_md, bf,
            sp_small_md};
    for (size_t i = 0; i < sizeof mds / sizeof mds[0]; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("OK\n");
    return 0;
}
