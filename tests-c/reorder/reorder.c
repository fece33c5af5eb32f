/* Reorder (dnnl_reorder_primitive_desc_create) through the official API,
 * compared exactly with a reference computed here in double (inputs are quarters, and
 * scales powers of two, so f32 arithmetic is exact too): conversions round to
 * nearest even once (integers also saturate, at both ends of s8 and u8, with ties):
 *   - every pair of f32/f16/bf16/s32/s8/u8 between plain and permuted layouts;
 *   - blocked layouts with padding (nChw16c: padding must be zeros), strided;
 *   - blocked <-> plain and blocked <-> blocked pairs (activations 3D to 5D,
 *     weights) of sizes that are not whole blocks;
 *   - scales and zero points for src and dst (mask 0 and per dimension) and
 *     the sum post-op;
 *   - queries (src/dst md, engines, inputs/outputs);
 *   - bad input: mismatched dims and ndims, format any, NULL handles,
 *     unsupported attributes;
 *   - with gpu: reorders between the CPU engine and the OpenCL engine both ways.
 *
 * Usage: reorder_reorder [cpu|gpu]; with gpu, skips (77) without an OpenCL device. */
#include "prim_util.h"

static int failures;

static dnnl_engine_t cpu_engine;

static void execute(dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

static dnnl_engine_kind_t engine_kind(dnnl_engine_t e) {
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(e, &kind));
    return kind;
}

static dnnl_memory_t memory_on(dnnl_engine_t e, const_dnnl_memory_desc_t md) {
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    return m;
}

static void values(float *v, int64_t n, dnnl_data_type_t dt, int seed) {
    for (int64_t i = 0; i < n; i++) {
        int r = (int)((i * 7919 + seed * 104729) % 2401) - 1200; /* quarters in [-300, 300] */
        v[i] = rounded(dt, (float)r / 4.0f);
    }
}

static void compare(const char *what, const float *got, const double *want, int64_t n,
        dnnl_data_type_t dt, int padding_ok) {
    if (!padding_ok) {
        if (failures++ < 10) fprintf(stderr, "%s: padding is not zero\n", what);
    }
    for (int64_t i = 0; i < n; i++) {
        /* want is exact in f32: one conversion to dt, exactly. */
        float r = rounded(dt, (float)want[i]);
        if (got[i] != r) {
            if (failures++ < 10)
                fprintf(stderr, "%s: element %lld: got %g, want %g (from %g)\n", what, (long long)i,
                        got[i], r, want[i]);
        }
    }
}

/* src (on se) -> dst (on de), optional attr and extra args; reference want. */
static void run(const char *what, const_dnnl_memory_desc_t smd, dnnl_engine_t se,
        const_dnnl_memory_desc_t dmd, dnnl_engine_t de, const_dnnl_primitive_attr_t attr,
        const float *src_vals, const float *old, int nextra, const dnnl_exec_arg_t *extra,
        const double *want) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, smd, se, dmd, de, attr);
    if (reference_lacks(st, what)) return;
    CHECK(st);
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), smd));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), dmd));
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 1);
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) == 1);
    dnnl_engine_t qs = NULL, qd = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_reorder_src_engine, 0, &qs));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_reorder_dst_engine, 0, &qd));
    /* Queries give their own handles of the engines: compare kinds. */
    EXPECT(engine_kind(qs) == engine_kind(se) && engine_kind(qd) == engine_kind(de));
    dnnl_memory_t s = memory_on(se, smd), d = memory_on(de, dmd);
    layout_t sl = layout_of(smd), dl = layout_of(dmd);
    fill(s, src_vals);
    if (old) fill(d, old);
    dnnl_exec_arg_t args[8] = {{DNNL_ARG_FROM, s}, {DNNL_ARG_TO, d}};
    for (int i = 0; i < nextra; i++)
        args[2 + i] = extra[i];
    execute(pd, 2 + nextra, args);
    float *got = malloc(sizeof(float) * (size_t)(dl.nelems + 1));
    int padding_ok = 1;
    read_back(d, got, &padding_ok);
    compare(what, got, want, sl.nelems, dl.dt, padding_ok);
    free(got);
    CHECK(dnnl_memory_destroy(s));
    CHECK(dnnl_memory_destroy(d));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

static const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_f16, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};

static void type_pairs(void) {
    dnnl_dims_t dims = {3, 5, 7};
    float v[105];
    double want[105];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            dnnl_memory_desc_t s = md_tag(3, dims, dts[i], dnnl_abc);
            dnnl_memory_desc_t d = md_tag(3, dims, dts[j], dnnl_acb);
            values(v, 105, dts[i], i + j);
            for (int k = 0; k < 105; k++)
                want[k] = v[k];
            char what[64];
            snprintf(what, sizeof what, "types %d->%d", i, j);
            run(what, s, engine, d, engine, NULL, v, NULL, 0, NULL, want);
            CHECK(dnnl_memory_desc_destroy(s));
            CHECK(dnnl_memory_desc_destroy(d));
        }
}

static void layouts(void) {
    dnnl_dims_t dims = {2, 19, 3, 5};
    enum { N = 570 };
    static float v[N];
    static double want[N];
    values(v, N, dnnl_f32, 3);
    for (int k = 0; k < N; k++)
        want[k] = v[k];
    dnnl_memory_desc_t nchw = md_tag(4, dims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t blk = md_tag(4, dims, dnnl_bf16, dnnl_nChw16c);
    dnnl_memory_desc_t nhwc = md_tag(4, dims, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_t strided = NULL;
    dnnl_dims_t strides = {800, 40, 12, 2};
    strided = md_strides(4, dims, dnnl_f32, strides);
    for (int k = 0; k < N; k++)
        want[k] = rounded(dnnl_bf16, v[k]);
    run("nchw->nChw16c", nchw, engine, blk, engine, NULL, v, NULL, 0, NULL, want);
    run("strided->nChw16c", strided, engine, blk, engine, NULL, v, NULL, 0, NULL, want);
    for (int k = 0; k < N; k++)
        want[k] = v[k];
    run("nhwc->strided", nhwc, engine, strided, engine, NULL, v, NULL, 0, NULL, want);
    /* Zero-sized. */
    dnnl_dims_t zd = {2, 0, 3};
    dnnl_memory_desc_t z1 = md_tag(3, zd, dnnl_f32, dnnl_abc), z2 = md_tag(3, zd, dnnl_s8, dnnl_acb);
    run("zero-sized", z1, engine, z2, engine, NULL, v, NULL, 0, NULL, want);
    CHECK(dnnl_memory_desc_destroy(z1));
    CHECK(dnnl_memory_desc_destroy(z2));
    CHECK(dnnl_memory_desc_destroy(nchw));
    CHECK(dnnl_memory_desc_destroy(blk));
    CHECK(dnnl_memory_desc_destroy(nhwc));
    CHECK(dnnl_memory_desc_destroy(strided));
}

/* Blocked <-> plain and blocked <-> blocked pairs (on GPU engines our
 * ocl:reorder_blocked), channels and block-unaligned sizes, a few type pairs. */
static void blocked_layouts(void) {
    static const struct {
        int ndims;
        dnnl_dim_t dims[5];
        dnnl_format_tag_t s, d;
        dnnl_data_type_t sdt, ddt;
    } cases[] = {
            {4, {2, 19, 9, 11}, dnnl_nChw16c, dnnl_nchw, dnnl_f32, dnnl_f32},
            {4, {2, 19, 9, 11}, dnnl_nchw, dnnl_nChw16c, dnnl_f32, dnnl_bf16},
            {4, {3, 37, 5, 40}, dnnl_nChw16c, dnnl_nhwc, dnnl_f16, dnnl_f32},
            {4, {3, 37, 5, 40}, dnnl_nhwc, dnnl_nChw16c, dnnl_s8, dnnl_s8},
            {4, {2, 21, 7, 7}, dnnl_nChw8c, dnnl_nChw16c, dnnl_f32, dnnl_f16},
            {4, {1, 3, 1, 1}, dnnl_nChw8c, dnnl_nchw, dnnl_u8, dnnl_f32},
            {4, {17, 19, 3, 3}, dnnl_OIhw16i16o, dnnl_oihw, dnnl_f32, dnnl_f32},
            {4, {17, 19, 3, 3}, dnnl_oihw, dnnl_OIhw16i16o, dnnl_f32, dnnl_s8},
            {4, {35, 20, 1, 3}, dnnl_ohwi, dnnl_OIhw16i16o, dnnl_bf16, dnnl_bf16},
            {4, {17, 19, 2, 3}, dnnl_OIhw16i16o, dnnl_ohwi, dnnl_f32, dnnl_s8},
            {3, {2, 19, 45}, dnnl_nCw16c, dnnl_nwc, dnnl_f32, dnnl_f32},
            {5, {2, 19, 3, 4, 5}, dnnl_ndhwc, dnnl_nCdhw16c, dnnl_f32, dnnl_f32},
    };
    enum { N = 3 * 37 * 5 * 40 };
    static float v[N];
    static double want[N];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t n = 1;
        for (int d = 0; d < cases[c].ndims; d++)
            n *= cases[c].dims[d];
        dnnl_memory_desc_t s = md_tag(cases[c].ndims, cases[c].dims, cases[c].sdt, cases[c].s);
        dnnl_memory_desc_t d = md_tag(cases[c].ndims, cases[c].dims, cases[c].ddt, cases[c].d);
        values(v, n, cases[c].sdt, (int)c);
        for (int64_t k = 0; k < n; k++)
            want[k] = v[k];
        char what[64];
        snprintf(what, sizeof what, "blocked case %d", (int)c);
        run(what, s, engine, d, engine, NULL, v, NULL, 0, NULL, want);
        CHECK(dnnl_memory_desc_destroy(s));
        CHECK(dnnl_memory_desc_destroy(d));
    }
}

static dnnl_memory_t f32_array(dnnl_engine_t e, const float *v, int64_t n) {
    dnnl_dims_t d = {n};
    dnnl_memory_desc_t md = md_tag(1, d, dnnl_f32, dnnl_a);
    dnnl_memory_t m = memory_on(e, md);
    dnnl_engine_t keep = engine;
    engine = e;
    fill(m, v);
    engine = keep;
    CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

static dnnl_memory_t s32_array(dnnl_engine_t e, const int32_t *v, int64_t n) {
    dnnl_dims_t d = {n};
    dnnl_memory_desc_t md = md_tag(1, d, dnnl_s32, dnnl_a);
    dnnl_memory_t m = memory_on(e, md);
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    memcpy(p, v, sizeof(int32_t) * (size_t)n);
    CHECK(dnnl_memory_unmap_data(m, p));
    CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

/* zp_dst: per w (mask 1 << 2), one value (mask 0), or none (-1). */
static dnnl_primitive_attr_t quant_attr(int dst_zp_mask, int sum) {
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 1 << 1));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
    if (dst_zp_mask >= 0) CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_DST, dst_zp_mask));
    if (sum) {
        dnnl_post_ops_t po = NULL;
        CHECK(dnnl_post_ops_create(&po));
        CHECK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef));
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
    }
    return attr;
}

/* dst = (src_scale[c] * (src - src_zp) + 0.5 * old) / dst_scale + dst_zp, from src_dt to
 * s8, the sum term with the sum post-op only: destination scales apply after it, as
 * upstream's v3.13 reorder computes. Scales are powers of two, so the f32 arithmetic is
 * exact and the result, often a tie, rounds to even once. Upstream takes zero points of
 * integer tensors, with mask 0, only: an f32 source or a per-w dst_zp is ours alone. */
static void quantization(dnnl_data_type_t src_dt, int dst_zp_mask, int sum) {
    dnnl_dims_t dims = {2, 3, 4};
    float v[24], old[24];
    double want[24];
    values(v, 24, src_dt, 5);
    for (int i = 0; i < 24; i++)
        old[i] = (float)(i % 5);
    dnnl_memory_desc_t s = md_tag(3, dims, src_dt, dnnl_abc);
    dnnl_memory_desc_t d = md_tag(3, dims, dnnl_s8, dnnl_cab);
    const float ssc[3] = {0.5f, 1.0f, 2.0f}, dsc[1] = {4.0f};
    const int32_t szp[1] = {3}, dzp[4] = {-2, -1, 0, 1};
    dnnl_memory_t m_ssc = f32_array(engine, ssc, 3), m_dsc = f32_array(engine, dsc, 1);
    dnnl_memory_t m_szp = s32_array(engine, szp, 1);
    dnnl_memory_t m_dzp = s32_array(engine, dzp, dst_zp_mask > 0 ? 4 : 1);
    dnnl_exec_arg_t extra[4] = {{DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, m_ssc},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, m_dsc},
            {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, m_szp},
            {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, m_dzp}};
    dnnl_primitive_attr_t attr = quant_attr(dst_zp_mask, sum);
    for (int i = 0; i < 24; i++) {
        int c = i / 4 % 3, w = dst_zp_mask > 0 ? i % 4 : 0;
        double x = (v[i] - szp[0]) * ssc[c] + (sum ? 0.5 * old[i] : 0.0);
        want[i] = x / dsc[0] + (dst_zp_mask >= 0 ? dzp[w] : 0);
    }
    char what[64];
    snprintf(what, sizeof what, "quantized from %s%s%s", dnnl_dt2str(src_dt),
            dst_zp_mask > 0 ? ", dst_zp per w" : dst_zp_mask == 0 ? ", dst_zp" : "", sum ? ", sum" : "");
    run(what, s, engine, d, engine, attr, v, old, dst_zp_mask >= 0 ? 4 : 3, extra, want);
    /* The descriptor keeps its attributes. */
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, s, engine, d, engine, attr));
    const_dnnl_primitive_attr_t got_attr = NULL;
    CHECK(dnnl_primitive_desc_get_attr(pd, &got_attr));
    EXPECT(got_attr != NULL);
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_memory_destroy(m_ssc));
    CHECK(dnnl_memory_destroy(m_dsc));
    CHECK(dnnl_memory_destroy(m_szp));
    CHECK(dnnl_memory_destroy(m_dzp));
    CHECK(dnnl_memory_desc_destroy(s));
    CHECK(dnnl_memory_desc_destroy(d));
}

static void bad_input(void) {
    dnnl_dims_t a = {2, 3}, b = {3, 2}, c = {2, 3, 1};
    dnnl_memory_desc_t ma = md_tag(2, a, dnnl_f32, dnnl_ab), mb = md_tag(2, b, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t mc = md_tag(3, c, dnnl_f32, dnnl_abc);
    dnnl_memory_desc_t many = md_tag(2, a, dnnl_f32, dnnl_format_tag_any);
    dnnl_primitive_desc_t pd = NULL;
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, ma, engine, mb, engine, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, ma, engine, mc, engine, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, ma, engine, many, engine, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(NULL, ma, engine, ma, engine, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, NULL, engine, ma, engine, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, ma, NULL, ma, engine, NULL),
            dnnl_invalid_arguments);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_post_ops_destroy(po));
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, ma, engine, ma, engine, attr),
            dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_memory_desc_destroy(ma));
    CHECK(dnnl_memory_desc_destroy(mb));
    CHECK(dnnl_memory_desc_destroy(mc));
    CHECK(dnnl_memory_desc_destroy(many));
}

static void cross_engine(void) {
    dnnl_dims_t dims = {2, 19, 3, 5};
    enum { N = 570 };
    static float v[N];
    static double want[N];
    values(v, N, dnnl_f32, 9);
    for (int k = 0; k < N; k++)
        want[k] = rounded(dnnl_f16, v[k]);
    dnnl_memory_desc_t nchw = md_tag(4, dims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t blk = md_tag(4, dims, dnnl_f16, dnnl_nChw16c);
    /* fill()/read_back() map through the memory's own engine. */
    run("cpu->gpu", nchw, cpu_engine, blk, engine, NULL, v, NULL, 0, NULL, want);
    run("gpu->cpu", nchw, engine, blk, cpu_engine, NULL, v, NULL, 0, NULL, want);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, nchw, cpu_engine, blk, engine, NULL));
    dnnl_engine_t pe = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &pe));
    /* The GPU engine (a query gives its own handle of it). */
    EXPECT(engine_kind(pe) == dnnl_gpu);
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(nchw));
    CHECK(dnnl_memory_desc_destroy(blk));
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&cpu_engine, dnnl_cpu, 0));
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    (void)memory; /* prim_util's helper; this test creates memory on either engine */
    type_pairs();
    layouts();
    blocked_layouts();
    quantization(dnnl_s8, 0, 0);
    quantization(dnnl_s8, -1, 1);
    /* A sum with a destination zero point: the old value enters as stored (Intel's
     * v3.13.2 s8 reorder computes this too; its f32 one has no implementation). */
    quantization(dnnl_s8, 0, 1);
    if (library_is_ours()) {
        quantization(dnnl_f32, 1 << 2, 0);
        quantization(dnnl_f32, -1, 1);
    }
    bad_input();
    if (on_gpu) cross_engine();
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    CHECK(dnnl_engine_destroy(cpu_engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("reorder: all cases passed\n");
    return 0;
}
