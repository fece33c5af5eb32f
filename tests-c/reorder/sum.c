/* Sum (dnnl_sum_primitive_desc_create) through the official API, compared exactly with
 * a reference computed here in double (quarters and power-of-two scales: exact in f32
 * too; one final rounding to nearest even, saturating integers at both ends of s8 and
 * u8, with ties): mixed types and layouts (blocked with
 * padding), dst given, `any` or NULL (resolved from source 0), queries of every
 * source (src_md with index i, exec_arg_md), zero-sized tensors, and bad input
 * (mismatched dims, wrong ndims, NULL scales/handles, n < 1).
 *
 * Usage: reorder_sum [cpu|gpu]; with gpu, skips (77) without an OpenCL device. */
#include "prim_util.h"

static int failures;

static void values(float *v, int64_t n, dnnl_data_type_t dt, int seed) {
    for (int64_t i = 0; i < n; i++) {
        int r = (int)((i * 7919 + seed * 104729) % 2401) - 1200; /* quarters in [-300, 300] */
        v[i] = rounded(dt, (float)r / 4.0f);
    }
}

/* n sources of dims (4-D), types/tags given; dst md (NULL allowed). */
static void run(const char *what, int n, const dnnl_dim_t *dims, const dnnl_data_type_t *dts,
        const dnnl_format_tag_t *tags, const float *scales, const_dnnl_memory_desc_t dst_md) {
    dnnl_memory_desc_t mds[4];
    dnnl_memory_t mems[4];
    int64_t ne = dims[0] * dims[1] * dims[2] * dims[3];
    float *v = malloc(sizeof(float) * (size_t)(4 * ne + 1));
    double *want = calloc((size_t)ne + 1, sizeof(double));
    for (int i = 0; i < n; i++) {
        mds[i] = md_tag(4, dims, dts[i], tags[i]);
        mems[i] = memory(mds[i]);
        values(v + i * ne, ne, dts[i], i + 1);
        fill(mems[i], v + i * ne);
        for (int64_t k = 0; k < ne; k++)
            want[k] += (double)scales[i] * v[i * ne + k];
    }
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_sum_primitive_desc_create(&pd, engine, dst_md, n, scales,
            (const_dnnl_memory_desc_t *)mds, NULL);
    if (reference_lacks(st, what)) {
        for (int i = 0; i < n; i++) {
            CHECK(dnnl_memory_destroy(mems[i]));
            CHECK(dnnl_memory_desc_destroy(mds[i]));
        }
        free(v);
        free(want);
        return;
    }
    CHECK(st);
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == n);
    for (int i = 0; i < n; i++) {
        EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, i), mds[i]));
        EXPECT(dnnl_memory_desc_equal(
                dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_MULTIPLE_SRC + i),
                mds[i]));
    }
    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    dnnl_format_kind_t fk;
    CHECK(dnnl_memory_desc_query(qd, dnnl_query_format_kind, &fk));
    EXPECT(fk == dnnl_blocked);
    dnnl_data_type_t ddt;
    CHECK(dnnl_memory_desc_query(qd, dnnl_query_data_type, &ddt));
    if (dst_md == NULL) EXPECT(ddt == dts[0]);
    dnnl_memory_t d = memory(qd);
    dnnl_exec_arg_t args[5];
    for (int i = 0; i < n; i++) {
        args[i].arg = DNNL_ARG_MULTIPLE_SRC + i;
        args[i].memory = mems[i];
    }
    args[n].arg = DNNL_ARG_DST;
    args[n].memory = d;
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, n + 1, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
    float *got = malloc(sizeof(float) * (size_t)(ne + 1));
    int padding_ok = 1;
    read_back(d, got, &padding_ok);
    if (!padding_ok && failures++ < 10) fprintf(stderr, "%s: padding not zero\n", what);
    for (int64_t k = 0; k < ne; k++) {
        float r = rounded(ddt, (float)want[k]); /* want is exact in f32 */
        if (got[k] != r && failures++ < 10)
            fprintf(stderr, "%s: element %lld: got %g, want %g (from %g)\n", what, (long long)k,
                    got[k], r, want[k]);
    }
    free(got);
    free(v);
    free(want);
    CHECK(dnnl_memory_destroy(d));
    for (int i = 0; i < n; i++) {
        CHECK(dnnl_memory_destroy(mems[i]));
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    }
    CHECK(dnnl_primitive_desc_destroy(pd));
}

static void bad_input(void) {
    dnnl_dims_t a = {2, 3}, b = {3, 2}, c = {2, 3, 1};
    dnnl_memory_desc_t mds[2] = {md_tag(2, a, dnnl_f32, dnnl_ab), md_tag(2, b, dnnl_f32, dnnl_ab)};
    dnnl_memory_desc_t mc = md_tag(3, c, dnnl_f32, dnnl_abc);
    const float scales[2] = {1.f, 1.f};
    dnnl_primitive_desc_t pd = NULL;
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, NULL, 2, scales,
                         (const_dnnl_memory_desc_t *)mds, NULL),
            dnnl_invalid_arguments);
    const_dnnl_memory_desc_t wrong_nd[2] = {mds[0], mc};
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, NULL, 2, scales, wrong_nd, NULL),
            dnnl_invalid_arguments);
    const_dnnl_memory_desc_t same[2] = {mds[0], mds[0]};
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, mc, 2, scales, same, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, NULL, 2, NULL, same, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, NULL, 0, scales, same, NULL),
            dnnl_invalid_arguments);
    /* NULL handles: upstream dereferences them (reference runs crash). */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, NULL, NULL, 2, scales, same, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_sum_primitive_desc_create(NULL, engine, NULL, 2, scales, same, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, NULL, 2, scales, NULL, NULL),
                dnnl_invalid_arguments);
    }
    CHECK(dnnl_memory_desc_destroy(mds[0]));
    CHECK(dnnl_memory_desc_destroy(mds[1]));
    CHECK(dnnl_memory_desc_destroy(mc));
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_dims_t dims = {2, 19, 3, 5};
    {
        dnnl_data_type_t dts[3] = {dnnl_f32, dnnl_bf16, dnnl_s8};
        dnnl_format_tag_t tags[3] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c};
        float sc[3] = {1.f, 0.5f, -2.f};
        dnnl_memory_desc_t dst = md_tag(4, dims, dnnl_f32, dnnl_nChw8c);
        run("mixed", 3, dims, dts, tags, sc, dst);
        CHECK(dnnl_memory_desc_destroy(dst));
        run("dst NULL", 3, dims, dts, tags, sc, NULL);
        dnnl_memory_desc_t any = md_tag(4, dims, dnnl_bf16, dnnl_format_tag_any);
        run("dst any", 3, dims, dts, tags, sc, any);
        CHECK(dnnl_memory_desc_destroy(any));
    }
    {
        dnnl_data_type_t dts[2] = {dnnl_f16, dnnl_u8};
        dnnl_format_tag_t tags[2] = {dnnl_nChw16c, dnnl_nchw};
        float sc[2] = {2.f, 0.25f};
        run("blocked first", 2, dims, dts, tags, sc, NULL);
        /* Into s8 and u8: halves (ties) and values beyond both ends. */
        dnnl_data_type_t fd[2] = {dnnl_f32, dnnl_f32};
        dnnl_format_tag_t ft[2] = {dnnl_nchw, dnnl_nhwc};
        float h[2] = {0.5f, 2.f};
        dnnl_memory_desc_t s8 = md_tag(4, dims, dnnl_s8, dnnl_nChw16c);
        dnnl_memory_desc_t u8 = md_tag(4, dims, dnnl_u8, dnnl_nhwc);
        run("into s8", 2, dims, fd, ft, h, s8);
        run("into u8", 2, dims, fd, ft, h, u8);
        CHECK(dnnl_memory_desc_destroy(s8));
        CHECK(dnnl_memory_desc_destroy(u8));
        dnnl_dims_t zero = {2, 0, 3, 5};
        run("zero-sized", 2, zero, dts, tags, sc, NULL);
    }
    bad_input();
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("sum: all cases passed\n");
    return 0;
}
