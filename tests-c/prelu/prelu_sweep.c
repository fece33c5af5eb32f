/* PReLU (dnnl_prelu_{forward,backward}_primitive_desc_create) through the official API,
 * compared with a reference computed here in double from the documentation's formulas:
 *   - weights broadcasts: scalar, per channel, whole tensor, shared axes (several
 *     patterns), on 1D to 5D tensors, plain and channels-last layouts, `any` weights;
 *   - forward training and inference; backward diff_src and diff_weights (the sum of
 *     min(src, 0) * diff_dst over the broadcast dimensions), with the hint;
 *   - types f32, bf16, f16, s8, u8, s32 (integer stores round and saturate);
 *   - a long tensor with scalar weights (a GPU reduces it in two passes).
 *
 * Usage: prelu_sweep [cpu|gpu]; with gpu it skips (77) without an OpenCL device. A Level
 * Zero run gets no argument but ONEDNN_GPU_RUNTIME=ze. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"

static int failures, n_run, n_noted, on_gpu;

typedef struct {
    int ndims;
    dnnl_dims_t src, wei;
    dnnl_format_tag_t tag, wtag;
} shape_t;

static const shape_t shapes[] = {
        {4, {2, 5, 3, 4}, {1, 1, 1, 1}, dnnl_abcd, dnnl_abcd},
        {4, {2, 5, 3, 4}, {1, 5, 1, 1}, dnnl_abcd, dnnl_abcd},
        {4, {2, 5, 3, 4}, {2, 5, 3, 4}, dnnl_abcd, dnnl_abcd},
        {4, {2, 5, 3, 4}, {2, 1, 3, 1}, dnnl_abcd, dnnl_abcd},
        {4, {2, 5, 3, 4}, {1, 5, 1, 1}, dnnl_acdb, dnnl_format_tag_any},
        {3, {3, 7, 5}, {1, 7, 5}, dnnl_abc, dnnl_abc},
        {2, {9, 17}, {9, 1}, dnnl_ab, dnnl_ab},
        {1, {33}, {1}, dnnl_a, dnnl_a},
        {5, {2, 3, 2, 3, 4}, {1, 3, 1, 1, 4}, dnnl_abcde, dnnl_abcde},
        {2, {3, 90001}, {1, 1}, dnnl_ab, dnnl_ab},
};

static void execute(const_dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

/* The weights element broadcast to src element i (row-major numbering of both). */
static int64_t wei_index(const shape_t *s, int64_t i) {
    int64_t w = 0, mul = 1;
    for (int d = s->ndims - 1; d >= 0; d--) {
        int64_t pos = i % s->src[d];
        i /= s->src[d];
        if (s->wei[d] != 1) w += pos * mul;
        mul *= s->wei[d];
    }
    return w;
}

static float value(dnnl_data_type_t dt, int64_t i) {
    double u = rng_uniform();
    if (dt == dnnl_u8) return (float)(int)(4.5 * (u + 1));
    if (is_int_dt(dt)) return (float)(int)(6 * u);
    (void)i;
    return rounded(dt, (float)(2 * u));
}

static void run_case(const shape_t *s, dnnl_data_type_t dt, dnnl_data_type_t wdt, int bwd,
        dnnl_prop_kind_t pk) {
    char what[160];
    snprintf(what, sizeof what, "prelu %s %dD %ldx%ld.. weights %ldx%ld.. %s weights %s",
            bwd ? "backward" : dnnl_prop_kind2str(pk), s->ndims, (long)s->src[0],
            (long)s->src[s->ndims > 1], (long)s->wei[0], (long)s->wei[s->ndims > 1],
            dnnl_dt2str(dt), dnnl_dt2str(wdt));
    dnnl_memory_desc_t smd = md_tag(s->ndims, s->src, dt, s->tag);
    dnnl_memory_desc_t wmd = md_tag(s->ndims, s->wei, wdt, s->wtag);
    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    dnnl_status_t st = dnnl_prelu_forward_primitive_desc_create(
            &fpd, engine, bwd ? dnnl_forward_training : pk, smd, wmd, smd, NULL);
    if (st == dnnl_success && bwd)
        st = dnnl_prelu_backward_primitive_desc_create(
                &pd, engine, smd, wmd, smd, wmd, smd, fpd, NULL);
    if (st == dnnl_unimplemented && !library_is_ours()) {
        printf("note: %s: unimplemented by this library\n", what);
        n_noted++;
        if (fpd) CHECK(dnnl_primitive_desc_destroy(fpd));
        CHECK(dnnl_memory_desc_destroy(smd));
        CHECK(dnnl_memory_desc_destroy(wmd));
        return;
    }
    CHECK(st);
    if (!bwd) pd = fpd;
    n_run++;
    dnnl_prop_kind_t q_pk;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &q_pk));
    EXPECT(q_pk == (bwd ? dnnl_backward : pk));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), smd));
    const_dnnl_memory_desc_t real_w = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    if (s->wtag == dnnl_format_tag_any) expect_tag(real_w, s->tag);
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == (bwd ? 3 : 2));

    layout_t ls = layout_of(smd), lw = layout_of(real_w);
    int64_t n = ls.nelems, nw = lw.nelems;
    float *x = malloc(sizeof(float) * (size_t)(n + 1)), *g = malloc(sizeof(float) * (size_t)(n + 1));
    float *y = malloc(sizeof(float) * (size_t)(n + 1)), *w = malloc(sizeof(float) * (size_t)(nw + 1));
    float *gw = malloc(sizeof(float) * (size_t)(nw + 1));
    double *rw = calloc((size_t)nw + 1, sizeof(double)), *mag = calloc((size_t)nw + 1, sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        x[i] = value(dt, i);
        g[i] = value(dt, i + 7);
    }
    for (int64_t i = 0; i < nw; i++)
        w[i] = is_int_dt(wdt) ? value(wdt, i) : rounded(wdt, (float)(0.25 * rng_uniform()));
    dnnl_memory_t src = memory(smd), wm = memory(real_w), out = memory(smd);
    fill(src, x);
    fill(wm, w);
    int bad = 0, padding_ok = 1;
    if (!bwd) {
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, out}};
        execute(pd, 3, args);
        read_back(out, y, &padding_ok);
        for (int64_t i = 0; i < n && bad < 5; i++) {
            double want = x[i] > 0 ? x[i] : (double)x[i] * w[wei_index(s, i)];
            if (!matches(dt, y[i], want, F32_EPS * fabs(want))) {
                fprintf(stderr, "FAIL %s: dst %ld: got %.9g, want %.9g\n", what, (long)i, y[i], want);
                bad++;
            }
        }
    } else {
        dnnl_memory_t dd = memory(smd), dwm = memory(real_w);
        fill(dd, g);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wm},
                {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_DIFF_SRC, out}, {DNNL_ARG_DIFF_WEIGHTS, dwm}};
        execute(pd, 5, args);
        read_back(out, y, &padding_ok);
        read_back(dwm, gw, &padding_ok);
        for (int64_t i = 0; i < n; i++) {
            int64_t k = wei_index(s, i);
            double want = x[i] > 0 ? g[i] : (double)g[i] * w[k];
            double p = fmin(x[i], 0) * (double)g[i];
            rw[k] += p;
            mag[k] += fabs(p);
            if (bad < 5 && !matches(dt, y[i], want, F32_EPS * fabs(want))) {
                fprintf(stderr, "FAIL %s: diff_src %ld: got %.9g, want %.9g\n", what, (long)i, y[i], want);
                bad++;
            }
        }
        int64_t r = n / nw;
        for (int64_t k = 0; k < nw && bad < 5; k++) {
            double bound = (double)(r + 4) * 2 * F32_EPS * mag[k];
            if (!matches(wdt, gw[k], rw[k], bound)) {
                fprintf(stderr, "FAIL %s: diff_weights %ld: got %.9g, want %.9g (bound %.3g)\n", what,
                        (long)k, gw[k], rw[k], bound);
                bad++;
            }
        }
        CHECK(dnnl_memory_destroy(dd));
        CHECK(dnnl_memory_destroy(dwm));
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    if (bad) failures++;
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_memory_destroy(out));
    CHECK(dnnl_primitive_desc_destroy(fpd));
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(wmd));
    free(x);
    free(g);
    free(y);
    free(w);
    free(gw);
    free(rw);
    free(mag);
}

int main(int argc, char **argv) {
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    const char *where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    on_gpu = strcmp(where, "cpu") != 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    const int nshapes = (int)(sizeof shapes / sizeof *shapes);
    for (int si = 0; si < nshapes; si++) {
        run_case(&shapes[si], dnnl_f32, dnnl_f32, 0, dnnl_forward_training);
        run_case(&shapes[si], dnnl_f32, dnnl_f32, 1, dnnl_forward_training);
    }
    run_case(&shapes[1], dnnl_f32, dnnl_f32, 0, dnnl_forward_inference);
    const dnnl_data_type_t types[][2] = {{dnnl_bf16, dnnl_bf16}, {dnnl_f16, dnnl_f16},
            {dnnl_s8, dnnl_f32}, {dnnl_u8, dnnl_bf16}, {dnnl_s32, dnnl_s32}, {dnnl_f32, dnnl_s8}};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        for (int bwd = 0; bwd < 2; bwd++)
            run_case(&shapes[3], types[k][0], types[k][1], bwd, dnnl_forward_training);
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("prelu_sweep on %s: %d primitives run, %d noted (unimplemented by this library), "
           "%d failures\n",
            where, n_run, n_noted, failures);
    return failures ? 1 : 0;
}
