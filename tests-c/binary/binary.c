/* Binary (dnnl_binary_primitive_desc_create{,_v2}) through the official API,
 * compared with a reference computed here the way oneDNN defines it (inputs scaled,
 * the operation in f32, one final rounding): f32 results exact (division within
 * OpenCL's 2.5 ulps), f16/bf16 within one ulp, integers exact (round half to even,
 * saturation at both ends of s8 and u8, on inputs that produce ties):
 *   - queries (src0/src1/src2/dst memory descriptors, algorithm, inputs,
 *     implementation string) and dst `any`;
 *   - every algorithm (select through _v2 with an s8 / u8 condition),
 *     broadcasting (scalar, per-channel, spatial, of src0 too), blocked layouts with
 *     padding, mixed data types, scales of src0 / src1, in-place;
 *   - bad input: mismatched dimensions, wrong broadcast, select without src2,
 *     src2 on another algorithm, NULL handles.
 *
 * Usage: binary_binary [cpu|gpu]. With gpu, the test skips (77) when the
 * library sees no OpenCL device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"

static int failures;

static void execute(const_dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

/* In f32, as the library computes it. */
static float ref(dnnl_alg_kind_t alg, float a, float b, float c) {
    switch (alg) {
        case dnnl_binary_add: return a + b;
        case dnnl_binary_mul: return a * b;
        case dnnl_binary_max: return a > b ? a : b;
        case dnnl_binary_min: return a < b ? a : b;
        case dnnl_binary_div: return a / b;
        case dnnl_binary_sub: return a - b;
        case dnnl_binary_ge: return a >= b;
        case dnnl_binary_gt: return a > b;
        case dnnl_binary_le: return a <= b;
        case dnnl_binary_lt: return a < b;
        case dnnl_binary_eq: return a == b;
        case dnnl_binary_ne: return a != b;
        default: return c != 0 ? a : b;
    }
}

/* Integers over the whole s8 / u8 range (sums and differences leave it at both ends);
 * floats multiples of 0.5 up to 150 (scaled by 0.5: quarters, with ties). */
static float value(dnnl_data_type_t dt, int64_t i, int seed) {
    int64_t k = (i * 37 + seed * 101 + 3) % 256;
    if (dt == dnnl_u8) return (float)k;
    if (dt == dnnl_s8) return (float)(k - 128);
    if (dt == dnnl_s32) return (float)((i * 7919 + seed * 104729) % 20001 - 10000);
    return (float)((i * 7 + seed * 13 + 3) % 601 - 300) * 0.5f;
}

/* The flat index in `l` (dims possibly 1: broadcast) of dst's idx-th element. */
static int64_t bcast(const layout_t *l, const layout_t *dst, int64_t idx) {
    int64_t pos[DNNL_MAX_NDIMS], f = 0;
    for (int d = dst->ndims - 1; d >= 0; d--) {
        pos[d] = idx % dst->dims[d];
        idx /= dst->dims[d];
    }
    for (int d = 0; d < dst->ndims; d++)
        f = f * l->dims[d] + (l->dims[d] == 1 ? 0 : pos[d]);
    return f;
}

/* Runs one case; src2 is NULL but for select; s0/s1 are scales (0: none). */
static void run_case(dnnl_alg_kind_t alg, const_dnnl_memory_desc_t s0md,
        const_dnnl_memory_desc_t s1md, const_dnnl_memory_desc_t s2md,
        const_dnnl_memory_desc_t dmd, float s0, float s1, int in_place) {
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (s0 != 0) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_0, 0));
    if (s1 != 0) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_1, 0));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_binary_primitive_desc_create_v2(&pd, engine, alg, s0md, s1md, s2md, dmd, attr);
    CHECK(dnnl_primitive_attr_destroy(attr));
    char what[64];
    snprintf(what, sizeof what, "binary %s (%s)", dnnl_alg_kind2str(alg), dnnl_dt2str(layout_of(s0md).dt));
    if (reference_lacks(st, what)) return;
    CHECK(st);
    dnnl_alg_kind_t q_alg;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &q_alg));
    EXPECT(q_alg == alg);
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), s0md));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 1), s1md));
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == (s2md ? 3 : 2));
    if (s2md)
        EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 2), s2md));
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    EXPECT(impl && strlen(impl) > 0);
    const_dnnl_memory_desc_t real_dst = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    dnnl_format_kind_t fk;
    CHECK(dnnl_memory_desc_query(real_dst, dnnl_query_format_kind, &fk));
    EXPECT(fk == dnnl_blocked);

    layout_t l0 = layout_of(s0md), l1 = layout_of(s1md), ld = layout_of(real_dst), l2;
    float *v0 = malloc(sizeof(float) * (size_t)(l0.nelems + 1));
    float *v1 = malloc(sizeof(float) * (size_t)(l1.nelems + 1));
    float *v2 = NULL;
    float *got = malloc(sizeof(float) * (size_t)(ld.nelems + 1));
    for (int64_t i = 0; i < l0.nelems; i++)
        v0[i] = rounded(l0.dt, value(l0.dt, i, 0));
    for (int64_t i = 0; i < l1.nelems; i++) {
        v1[i] = rounded(l1.dt, value(l1.dt, i, 1));
        if (alg == dnnl_binary_div && v1[i] == 0) v1[i] = 2;
    }
    dnnl_memory_t m0 = memory(s0md), m1 = memory(s1md), m2 = NULL;
    dnnl_memory_t md_ = in_place ? m0 : memory(real_dst);
    fill(m0, v0);
    fill(m1, v1);
    dnnl_exec_arg_t args[8] = {{DNNL_ARG_SRC_0, m0}, {DNNL_ARG_SRC_1, m1}, {DNNL_ARG_DST, md_}};
    int nargs = 3;
    if (s2md) {
        l2 = layout_of(s2md);
        v2 = malloc(sizeof(float) * (size_t)(l2.nelems + 1));
        for (int64_t i = 0; i < l2.nelems; i++)
            v2[i] = (float)((i * 5) % 3 == 0);
        m2 = memory(s2md);
        fill(m2, v2);
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_2, m2};
    }
    dnnl_memory_t sm[2] = {NULL, NULL};
    float sv[2] = {s0, s1};
    dnnl_dims_t one = {1};
    dnnl_memory_desc_t smd = md_tag(1, one, dnnl_f32, dnnl_a);
    for (int k = 0; k < 2; k++) {
        if (sv[k] == 0) continue;
        sm[k] = memory(smd);
        fill(sm[k], &sv[k]);
        args[nargs++] = (dnnl_exec_arg_t){
                DNNL_ARG_ATTR_SCALES | (k ? DNNL_ARG_SRC_1 : DNNL_ARG_SRC_0), sm[k]};
    }
    execute(pd, nargs, args);
    int padding_ok;
    read_back(md_, got, &padding_ok);
    if (!padding_ok) {
        fprintf(stderr, "alg %#x: padding not zero\n", (unsigned)alg);
        failures++;
    }
    for (int64_t i = 0; i < ld.nelems; i++) {
        float a = v0[bcast(&l0, &ld, i)] * (s0 != 0 ? s0 : 1.f);
        float b = v1[bcast(&l1, &ld, i)] * (s1 != 0 ? s1 : 1.f);
        float c = v2 ? v2[bcast(&l2, &ld, i)] : 0;
        double want = ref(alg, a, b, c);
        /* The f32 result is the reference's; OpenCL allows 2.5 ulps for a division. */
        double bound = alg == dnnl_binary_div ? 2.5 * ulp_of(dnnl_f32, want) : 0;
        if (!matches(ld.dt, got[i], want, bound)) {
            if (failures++ < 10)
                fprintf(stderr, "alg %s (%s): element %lld: %g op %g: got %.9g, want %.9g\n",
                        dnnl_alg_kind2str(alg), impl, (long long)i, a, b, got[i], want);
        }
    }
    CHECK(dnnl_memory_desc_destroy(smd));
    for (int k = 0; k < 2; k++)
        if (sm[k]) CHECK(dnnl_memory_destroy(sm[k]));
    if (m2) CHECK(dnnl_memory_destroy(m2));
    if (!in_place) CHECK(dnnl_memory_destroy(md_));
    CHECK(dnnl_memory_destroy(m0));
    CHECK(dnnl_memory_destroy(m1));
    CHECK(dnnl_primitive_desc_destroy(pd));
    free(v0);
    free(v1);
    free(v2);
    free(got);
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    dnnl_dims_t d4 = {2, 19, 3, 5}, dc = {1, 19, 1, 1}, ds = {2, 1, 3, 5}, d1 = {1, 1, 1, 1};
    dnnl_dims_t dbad = {2, 18, 3, 5}, d3 = {2, 19, 3};
    dnnl_memory_desc_t nchw = md_tag(4, d4, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t nhwc = md_tag(4, d4, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_t blk = md_tag(4, d4, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_t chan = md_tag(4, dc, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t spatial = md_tag(4, ds, dnnl_bf16, dnnl_nhwc);
    dnnl_memory_desc_t scalar = md_tag(4, d1, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t s8c = md_tag(4, d4, dnnl_s8, dnnl_nchw);
    dnnl_memory_desc_t u8c = md_tag(4, dc, dnnl_u8, dnnl_nchw);
    dnnl_memory_desc_t h = md_tag(4, d4, dnnl_f16, dnnl_nhwc);
    dnnl_memory_desc_t i8 = md_tag(4, d4, dnnl_s8, dnnl_nchw);
    dnnl_memory_desc_t i8b = md_tag(4, d4, dnnl_s8, dnnl_nChw16c);
    dnnl_memory_desc_t u8f = md_tag(4, d4, dnnl_u8, dnnl_nhwc);
    dnnl_memory_desc_t u8c4 = md_tag(4, d4, dnnl_u8, dnnl_nchw);
    dnnl_memory_desc_t s32 = md_tag(4, d4, dnnl_s32, dnnl_nchw);
    dnnl_memory_desc_t s8b = md_tag(4, d4, dnnl_s8, dnnl_nChw16c);
    dnnl_memory_desc_t anyh = md_tag(4, d4, dnnl_f16, dnnl_format_tag_any);
    dnnl_memory_desc_t bad = md_tag(4, dbad, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t three = md_tag(3, d3, dnnl_f32, dnnl_abc);

    const dnnl_alg_kind_t algs[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
            dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt,
            dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};
    for (size_t k = 0; k < sizeof algs / sizeof *algs; k++) {
        run_case(algs[k], nchw, nchw, NULL, nchw, 0, 0, 0);
        run_case(algs[k], nchw, chan, NULL, nchw, 0, 0, 0);
    }
    run_case(dnnl_binary_select, nchw, nchw, s8c, nchw, 0, 0, 0);
    /* A u8 condition, and one broadcast: ours alone (upstream: s8, src0's dims). */
    if (library_is_ours()) run_case(dnnl_binary_select, blk, scalar, u8c, nhwc, 0, 0, 0);
    run_case(dnnl_binary_select, blk, scalar, s8b, nhwc, 0, 0, 0);
    /* Integer results: s8 + s8 and s8 - s8 beyond both ends of s8; u8 + u8 beyond 255;
     * f32 scaled to quarters into s8 and u8 (ties round to even, both ends saturate). */
    run_case(dnnl_binary_add, i8, i8b, NULL, i8, 0, 0, 0);
    run_case(dnnl_binary_sub, i8, i8b, NULL, i8, 0, 0, 0);
    run_case(dnnl_binary_add, u8f, u8f, NULL, u8f, 0, 0, 0);
    run_case(dnnl_binary_sub, nchw, nhwc, NULL, u8c4, 0.5f, 2.f, 0);
    /* Intel's v3.13.2 CPU (jit:uni) writes an integer dst in src0's layout when the two
     * differ (wrong results): this one is checked on ours alone. */
    if (library_is_ours()) run_case(dnnl_binary_sub, nchw, nhwc, NULL, u8f, 0.5f, 2.f, 0);
    run_case(dnnl_binary_mul, nchw, chan, NULL, i8, 0.5f, 0, 0);
    run_case(dnnl_binary_max, i8, u8f, NULL, s32, 0, 0, 0);
    run_case(dnnl_binary_add, blk, chan, NULL, blk, 0, 0, 1);
    run_case(dnnl_binary_mul, nhwc, spatial, NULL, blk, 0, 0, 0);
    run_case(dnnl_binary_sub, h, scalar, NULL, i8, 0.5f, 3.f, 0);
    run_case(dnnl_binary_add, nchw, nchw, NULL, nchw, 2.f, 0, 1);
    run_case(dnnl_binary_max, blk, nchw, NULL, anyh, 0, 0, 0);
    run_case(dnnl_binary_sub, chan, nhwc, NULL, nchw, 0, 0, 0); /* src0 broadcast */

    /* Bad input. */
    dnnl_primitive_desc_t pd = NULL;
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, nchw, bad, nchw, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, nchw, nchw, bad, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, chan, chan, nchw, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, nchw, three, nchw, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_select, nchw, nchw, nchw, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_binary_primitive_desc_create_v2(
                         &pd, engine, dnnl_binary_select, nchw, nchw, NULL, nchw, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_eltwise_relu, nchw, nchw, nchw, NULL),
            dnnl_invalid_arguments);
    /* Ours alone: upstream ignores a src2 given to another algorithm, and dereferences
     * NULL handles. */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_binary_primitive_desc_create_v2(
                             &pd, engine, dnnl_binary_add, nchw, nchw, s8c, nchw, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_binary_primitive_desc_create(NULL, engine, dnnl_binary_add, nchw, nchw, nchw, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, NULL, dnnl_binary_add, nchw, nchw, nchw, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, NULL, nchw, nchw, NULL),
                dnnl_invalid_arguments);
    }
    /* Attributes binary does not apply. */
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC_0, 0));
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, nchw, nchw, nchw, attr),
            dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_0, 0));
    CHECK(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, nchw, nchw, nchw, attr));
    CHECK(dnnl_primitive_attr_destroy(attr));
    const_dnnl_primitive_attr_t kept = NULL;
    CHECK(dnnl_primitive_desc_get_attr(pd, &kept));
    EXPECT(kept != NULL);
    CHECK(dnnl_primitive_desc_destroy(pd));

    dnnl_memory_desc_t mds[] = {nchw, nhwc, blk, chan, spatial, scalar, s8c, u8c, h, i8, anyh, bad, three,
            i8b, u8f, s32, s8b, u8c4};
    for (size_t i = 0; i < sizeof mds / sizeof *mds; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d mismatches\n", failures);
        return 1;
    }
    printf("binary on the %s engine: ok\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
