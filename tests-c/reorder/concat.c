/* Concat (dnnl_concat_primitive_desc_create) through the official API,
 * compared with a reference computed here in double: every axis, mixed types
 * and layouts, a blocked destination with padding, zero-sized sources, dst
 * given, `any` or NULL, per-source scales, queries of every source, and bad
 * input (axis out of range, mismatched dims, wrong ndims, NULL handles).
 *
 * Usage: reorder_concat [cpu|gpu]; with gpu, skips (77) without an OpenCL device. */
#include "prim_util.h"

static int failures;

static void values(float *v, int64_t n, dnnl_data_type_t dt, int seed) {
    for (int64_t i = 0; i < n; i++) {
        int r = (int)((i * 7919 + seed * 104729) % 2401) - 1200; /* quarters in [-300, 300] */
        v[i] = rounded(dt, (float)r / 4.0f);
    }
}

static int64_t prod(const dnnl_dim_t *d) { return d[0] * d[1] * d[2] * d[3]; }

/* n 4-D sources along axis. */
static void run(const char *what, int n, dnnl_dims_t *dims, const dnnl_data_type_t *dts,
        const dnnl_format_tag_t *tags, int axis, const_dnnl_memory_desc_t dst_md,
        const float *scales) {
    dnnl_memory_desc_t mds[4];
    dnnl_memory_t mems[4], sc_mems[4];
    float *v[4];
    for (int i = 0; i < n; i++) {
        mds[i] = md_tag(4, dims[i], dts[i], tags[i]);
        mems[i] = memory(mds[i]);
        v[i] = malloc(sizeof(float) * (size_t)(prod(dims[i]) + 1));
        values(v[i], prod(dims[i]), dts[i], i + 3);
        fill(mems[i], v[i]);
    }
    dnnl_primitive_attr_t attr = NULL;
    if (scales) {
        CHECK(dnnl_primitive_attr_create(&attr));
        for (int i = 0; i < n; i++)
            CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_MULTIPLE_SRC + i, 0));
    }
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_concat_primitive_desc_create(&pd, engine, dst_md, n, axis,
            (const_dnnl_memory_desc_t *)mds, attr);
    if (reference_lacks(st, what)) {
        for (int i = 0; i < n; i++) {
            free(v[i]);
            CHECK(dnnl_memory_destroy(mems[i]));
            CHECK(dnnl_memory_desc_destroy(mds[i]));
        }
        if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
        return;
    }
    CHECK(st);
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == n);
    for (int i = 0; i < n; i++)
        EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, i), mds[i]));
    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    layout_t dl = layout_of(qd);
    EXPECT(dl.ndims == 4);
    dnnl_memory_t d = memory(qd);
    dnnl_exec_arg_t args[9];
    int na = 0;
    for (int i = 0; i < n; i++) {
        args[na].arg = DNNL_ARG_MULTIPLE_SRC + i;
        args[na++].memory = mems[i];
        if (scales) {
            dnnl_dims_t one = {1};
            dnnl_memory_desc_t smd = md_tag(1, one, dnnl_f32, dnnl_a);
            sc_mems[i] = memory(smd);
            fill(sc_mems[i], &scales[i]);
            CHECK(dnnl_memory_desc_destroy(smd));
            args[na].arg = DNNL_ARG_ATTR_SCALES | (DNNL_ARG_MULTIPLE_SRC + i);
            args[na++].memory = sc_mems[i];
        }
    }
    args[na].arg = DNNL_ARG_DST;
    args[na++].memory = d;
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, na, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
    float *got = malloc(sizeof(float) * (size_t)(dl.nelems + 1));
    int padding_ok = 1;
    read_back(d, got, &padding_ok);
    if (!padding_ok && failures++ < 10) fprintf(stderr, "%s: padding not zero\n", what);
    for (int64_t k = 0; k < dl.nelems; k++) {
        int64_t idx[4], r = k;
        for (int q = 3; q >= 0; q--) {
            idx[q] = r % dl.dims[q];
            r /= dl.dims[q];
        }
        int s = 0;
        while (idx[axis] >= dims[s][axis]) {
            idx[axis] -= dims[s][axis];
            s++;
        }
        int64_t j = ((idx[0] * dims[s][1] + idx[1]) * dims[s][2] + idx[2]) * dims[s][3] + idx[3];
        /* A copy, scaled by a power of two: exact, then one conversion to dst's type. */
        double want = (double)v[s][j] * (scales ? scales[s] : 1.0);
        float w = rounded(dl.dt, (float)want);
        if (got[k] != w && failures++ < 10)
            fprintf(stderr, "%s: element %lld: got %g, want %g\n", what, (long long)k, got[k], w);
    }
    free(got);
    CHECK(dnnl_memory_destroy(d));
    for (int i = 0; i < n; i++) {
        free(v[i]);
        CHECK(dnnl_memory_destroy(mems[i]));
        if (scales) CHECK(dnnl_memory_destroy(sc_mems[i]));
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    }
    if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

static void bad_input(void) {
    dnnl_dims_t a = {2, 3}, b = {3, 4}, c = {2, 3, 1};
    dnnl_memory_desc_t ma = md_tag(2, a, dnnl_f32, dnnl_ab), mb = md_tag(2, b, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t mc = md_tag(3, c, dnnl_f32, dnnl_abc);
    const_dnnl_memory_desc_t ab[2] = {ma, mb}, ac[2] = {ma, mc}, aa[2] = {ma, ma};
    dnnl_primitive_desc_t pd = NULL;
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 1, ab, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 1, ac, NULL),
            dnnl_invalid_arguments);
    /* Intel's v3.13.2 divides by zero (SIGFPE) on an axis out of range. */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 2, aa, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, -1, aa, NULL),
                dnnl_invalid_arguments);
    }
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, ma, 2, 0, aa, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 0, 0, aa, NULL),
            dnnl_invalid_arguments);
    /* NULL handles: upstream dereferences them (reference runs crash). */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, NULL, NULL, 2, 0, aa, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_concat_primitive_desc_create(NULL, engine, NULL, 2, 0, aa, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 0, NULL, NULL),
                dnnl_invalid_arguments);
    }
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_MULTIPLE_SRC, 1));
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 0, aa, attr),
            dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_memory_desc_destroy(ma));
    CHECK(dnnl_memory_desc_destroy(mb));
    CHECK(dnnl_memory_desc_destroy(mc));
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    /* Sources of one type (upstream's rule), then of mixed types (ours alone). */
    for (int mixed = 0; mixed < 1 + library_is_ours(); mixed++)
        for (int axis = 0; axis < 4; axis++) {
            dnnl_dims_t dims[3] = {{2, 19, 3, 5}, {2, 19, 3, 5}, {2, 19, 3, 5}};
            dims[0][axis] = 3;
            dims[1][axis] = 0;
            dims[2][axis] = 2;
            dnnl_dims_t total = {2, 19, 3, 5};
            total[axis] = 5;
            dnnl_data_type_t dts[3] = {dnnl_f32, dnnl_f32, mixed ? dnnl_bf16 : dnnl_f32};
            dnnl_format_tag_t tags[3] = {dnnl_nchw, dnnl_nchw, dnnl_nhwc};
            dnnl_memory_desc_t dst = md_tag(4, total, dnnl_f32, dnnl_nChw16c);
            char what[32];
            snprintf(what, sizeof what, "axis %d%s", axis, mixed ? ", mixed types" : "");
            run(what, 3, dims, dts, tags, axis, dst, NULL);
            CHECK(dnnl_memory_desc_destroy(dst));
            run(what, 3, dims, dts, tags, axis, NULL, NULL);
        }
    {
        /* Scaled by 0.5 and 2 into s8: ties, and both ends of s8. Mixed types, into f32:
         * ours alone. */
        dnnl_dims_t dims[2] = {{2, 5, 3, 3}, {2, 7, 3, 3}};
        dnnl_data_type_t dts[2] = {dnnl_s8, dnnl_s8}, mixed[2] = {dnnl_s8, dnnl_u8};
        dnnl_format_tag_t tags[2] = {dnnl_nhwc, dnnl_nchw};
        float sc[2] = {0.5f, 2.0f};
        dnnl_dims_t total = {2, 12, 3, 3};
        dnnl_memory_desc_t any = md_tag(4, total, dnnl_s8, dnnl_format_tag_any);
        run("scales", 2, dims, dts, tags, 1, any, sc);
        CHECK(dnnl_memory_desc_destroy(any));
        any = md_tag(4, total, dnnl_f32, dnnl_format_tag_any);
        if (library_is_ours()) run("scales, mixed types", 2, dims, mixed, tags, 1, any, sc);
        CHECK(dnnl_memory_desc_destroy(any));
    }
    bad_input();
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("concat: all cases passed\n");
    return 0;
}
