/* LRN (dnnl_lrn_{forward,backward}_primitive_desc_create) through the official API,
 * compared with a reference computed here in double from the documentation's formulas:
 * dst = src * (k + alpha / D * sum of src^2 over the window)^-beta, the window the
 * channels c - (n-1)/2 .. c + (n+1)/2 - 1 (across) or that box in every spatial
 * dimension (within a channel), clipped at the edges; D = n across channels, n to the
 * power of the number of spatial dimensions within one (as Intel's library divides);
 * backward the exact gradient of that:
 *   - both algorithms; local sizes 1, 3, 4 (even: the bounds above), 5, 7;
 *   - alpha, beta, k of several values;
 *   - 2D to 5D tensors, plain and channels-last layouts; `any` dst (src's layout),
 *     `any` diff_src (src's) and diff_dst (diff_src's); backward src in another layout
 *     than the gradients;
 *   - forward training and inference; backward with the hint, with the workspace where
 *     the library asks for one (Intel's on channels-last; ours never does);
 *   - types f32, bf16, f16;
 *   - queries: alpha, beta, k, local size, algorithm, prop kind, inputs and outputs.
 *
 * Two backward cases are checked on ours only: Intel's v3.13 library returns results
 * that differ from the definition (and from its own result on plain layouts) for a src
 * in another layout than the gradients, and on channels-last with 19 channels and a
 * local size of 7 (its optimised kernel); its @ref run prints a note for each.
 *
 * Usage: lrn_sweep [cpu|gpu]; with gpu it skips (77) without an OpenCL device. A Level
 * Zero run gets no argument but ONEDNN_GPU_RUNTIME=ze. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"

static int failures, n_run, n_noted;

typedef struct {
    int ndims;
    dnnl_dims_t dims;
    dnnl_format_tag_t tag, stag; /* the data (and gradients), backward src */
} shape_t;

static const shape_t shapes[] = {
        {4, {2, 7, 4, 5}, dnnl_abcd, dnnl_abcd},
        {4, {2, 7, 4, 5}, dnnl_acdb, dnnl_acdb},
        {4, {2, 7, 4, 5}, dnnl_abcd, dnnl_acdb},
        {2, {3, 9}, dnnl_ab, dnnl_ab},
        {3, {2, 6, 7}, dnnl_abc, dnnl_acb},
        {5, {2, 5, 3, 4, 3}, dnnl_abcde, dnnl_abcde},
        {4, {1, 19, 6, 7}, dnnl_acdb, dnnl_acdb},
};

typedef struct {
    int across;
    int64_t ls;
    float alpha, beta, k;
} params_t;

static const shape_t *S;
static params_t P;

static int64_t n_of(void) {
    int64_t n = 1;
    for (int d = 0; d < S->ndims; d++)
        n *= S->dims[d];
    return n;
}

static void pos_of(int64_t i, int64_t *pos) {
    for (int d = S->ndims - 1; d >= 0; d--) {
        pos[d] = i % S->dims[d];
        i /= S->dims[d];
    }
}

static int64_t index_of(const int64_t *pos) {
    int64_t f = 0;
    for (int d = 0; d < S->ndims; d++)
        f = f * S->dims[d] + pos[d];
    return f;
}

/* The row-major indices of the window of element i, in w; returns their count. */
static int window(int64_t i, int64_t *w) {
    if (P.ls == 0) return 0;
    int64_t lo = -(P.ls - 1) / 2, hi = (P.ls + 1) / 2 - 1, span = hi - lo + 1;
    int64_t pos[DNNL_MAX_NDIMS], q[DNNL_MAX_NDIMS];
    pos_of(i, pos);
    int first = P.across ? 1 : 2, last = P.across ? 1 : S->ndims - 1, count = 0;
    int64_t total = 1;
    for (int d = first; d <= last; d++)
        total *= span;
    for (int64_t t = 0; t < total; t++) {
        memcpy(q, pos, sizeof pos);
        int64_t r = t;
        int inside = 1;
        for (int d = first; d <= last; d++) {
            q[d] += r % span + lo;
            r /= span;
            inside &= q[d] >= 0 && q[d] < S->dims[d];
        }
        if (inside) w[count++] = index_of(q);
    }
    return count;
}

static double divisor(void) {
    return P.across ? (double)P.ls : pow((double)P.ls, S->ndims - 2);
}

static double omega(const float *x, int64_t i, int64_t *w) {
    int cnt = window(i, w);
    double sum = 0;
    for (int j = 0; j < cnt; j++)
        sum += (double)x[w[j]] * x[w[j]];
    return cnt ? P.k + P.alpha / divisor() * sum : P.k;
}

static void execute(const_dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

static double tol_of(dnnl_data_type_t dt) {
    return dt == dnnl_f32 ? 4e-6 : dt == dnnl_f16 ? 4e-3 : 3e-2;
}

static void run_case(const shape_t *s, params_t p, dnnl_data_type_t dt, int bwd,
        dnnl_prop_kind_t pk, int any) {
    S = s;
    P = p;
    char what[220];
    snprintf(what, sizeof what,
            "lrn %s %s %dD %ldx%ld.. tags %d/%d ls %ld alpha %g beta %g k %g %s%s",
            bwd ? "backward" : dnnl_prop_kind2str(pk), p.across ? "across" : "within", s->ndims,
            (long)s->dims[0], (long)s->dims[1], (int)s->tag, (int)s->stag, (long)p.ls, p.alpha,
            p.beta, p.k, dnnl_dt2str(dt), any ? " any" : "");
    dnnl_alg_kind_t alg = p.across ? dnnl_lrn_across_channels : dnnl_lrn_within_channel;
    dnnl_memory_desc_t data = md_tag(s->ndims, s->dims, dt, s->tag);
    dnnl_memory_desc_t smd = md_tag(s->ndims, s->dims, dt, bwd ? s->stag : s->tag);
    dnnl_memory_desc_t amd = md_tag(s->ndims, s->dims, dt, dnnl_format_tag_any);
    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    /* The forward runs on src's layout (backward: it makes the workspace, if any). */
    dnnl_status_t st = dnnl_lrn_forward_primitive_desc_create(&fpd, engine,
            bwd ? dnnl_forward_training : pk, alg, smd, any && !bwd ? amd : smd, p.ls, p.alpha,
            p.beta, p.k, NULL);
    if (st == dnnl_success && bwd)
        st = dnnl_lrn_backward_primitive_desc_create(&pd, engine, alg, any ? amd : data, data,
                smd, p.ls, p.alpha, p.beta, p.k, fpd, NULL);
    if (st == dnnl_unimplemented && !library_is_ours()) {
        printf("note: %s: unimplemented by this library\n", what);
        n_noted++;
        if (fpd) CHECK(dnnl_primitive_desc_destroy(fpd));
        CHECK(dnnl_memory_desc_destroy(data));
        CHECK(dnnl_memory_desc_destroy(smd));
        CHECK(dnnl_memory_desc_destroy(amd));
        return;
    }
    CHECK(st);
    if (!bwd) pd = fpd;
    int upstream_wrong = bwd && (s->stag != s->tag || (s->tag == dnnl_acdb && s->dims[1] == 19 && p.ls == 7));
    if (upstream_wrong && !library_is_ours()) {
        printf("note: %s: not checked on this library (its result differs from the "
               "definition)\n", what);
        n_noted++;
        CHECK(dnnl_primitive_desc_destroy(pd));
        CHECK(dnnl_primitive_desc_destroy(fpd));
        CHECK(dnnl_memory_desc_destroy(data));
        CHECK(dnnl_memory_desc_destroy(smd));
        CHECK(dnnl_memory_desc_destroy(amd));
        return;
    }
    n_run++;
    int bad = 0;
    float qa = 0, qb = 0, qk = 0;
    dnnl_dim_t qls = -1;
    dnnl_alg_kind_t qalg;
    dnnl_prop_kind_t qpk;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_alpha_f32, 0, &qa));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_beta_f32, 0, &qb));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_k_f32, 0, &qk));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_local_size_s64, 0, &qls));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &qalg));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &qpk));
    if (qa != p.alpha || qb != p.beta || qk != p.k || qls != p.ls || qalg != alg
            || qpk != (bwd ? dnnl_backward_data : pk)) {
        fprintf(stderr, "FAIL %s: queries: alpha %g beta %g k %g local size %ld alg %d pk %d\n",
                what, qa, qb, qk, (long)qls, (int)qalg, (int)qpk);
        bad++;
    }
    const_dnnl_memory_desc_t ws_md = dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0);
    int has_ws = dnnl_memory_desc_get_size(ws_md) > 0;
    int bwd_ws = bwd && dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(
                                pd, dnnl_query_workspace_md, 0)) > 0;
    int want_in = bwd ? 2 + bwd_ws : 1, want_out = bwd ? 1 : 1 + (has_ws && pk == dnnl_forward_training);
    if (dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) != want_in
            || dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) != want_out) {
        fprintf(stderr, "FAIL %s: inputs/outputs not %d/%d\n", what, want_in, want_out);
        bad++;
    }
    dnnl_query_t out_q = bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md;
    const_dnnl_memory_desc_t out_md = dnnl_primitive_desc_query_md(pd, out_q, 0);
    if (!dnnl_memory_desc_equal(out_md, bwd ? (any ? smd : data) : smd)) {
        fprintf(stderr, "FAIL %s: the output's descriptor is not the expected one\n", what);
        bad++;
    }

    int64_t n = n_of();
    float *x = malloc(sizeof(float) * (size_t)n), *g = malloc(sizeof(float) * (size_t)n);
    float *y = malloc(sizeof(float) * (size_t)n);
    double *t = malloc(sizeof(double) * (size_t)n), *ta = malloc(sizeof(double) * (size_t)n);
    int64_t w[512];
    for (int64_t i = 0; i < n; i++) {
        x[i] = rounded(dt, (float)(2.5 * rng_uniform()));
        g[i] = rounded(dt, (float)(2 * rng_uniform()));
    }
    dnnl_memory_t src = memory(smd), dst = memory(smd), ws = NULL;
    fill(src, x);
    if (has_ws) ws = memory(ws_md);
    int padding_ok = 1;
    dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}};
    execute(fpd, has_ws ? 3 : 2, fargs);
    double tol = tol_of(dt);
    if (!bwd) {
        read_back(dst, y, &padding_ok);
        for (int64_t i = 0; i < n && bad < 5; i++) {
            double want = x[i] * pow(omega(x, i, w), -p.beta);
            if (!matches(dt, y[i], want, tol * fabs(want) + 1e-30)) {
                fprintf(stderr, "FAIL %s: dst %ld: got %.9g, want %.9g\n", what, (long)i, y[i], want);
                bad++;
            }
        }
    } else {
        const_dnnl_memory_desc_t dd_md = dnnl_primitive_desc_query_md(pd, dnnl_query_diff_dst_md, 0);
        dnnl_memory_t dd = memory(dd_md), ds = memory(out_md);
        fill(dd, g);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dd},
                {DNNL_ARG_DIFF_SRC, ds}, {DNNL_ARG_WORKSPACE, ws}};
        execute(pd, bwd_ws ? 4 : 3, args);
        read_back(ds, y, &padding_ok);
        for (int64_t i = 0; i < n; i++) {
            double om = omega(x, i, w);
            t[i] = g[i] * (double)x[i] * pow(om, -p.beta - 1);
            ta[i] = fabs(t[i]);
        }
        double c = p.ls ? 2.0 * p.alpha * p.beta / divisor() : 0;
        for (int64_t i = 0; i < n && bad < 5; i++) {
            int cnt = window(i, w);
            double sum = 0, mag = 0;
            for (int j = 0; j < cnt; j++) {
                sum += t[w[j]];
                mag += ta[w[j]];
            }
            double first = g[i] * pow(omega(x, i, w), -p.beta);
            double want = first - c * x[i] * sum;
            double bound = tol * (fabs(first) + fabs(c * x[i]) * mag) + 1e-30;
            if (!matches(dt, y[i], want, bound)) {
                fprintf(stderr, "FAIL %s: diff_src %ld: got %.9g, want %.9g (bound %.3g)\n", what,
                        (long)i, y[i], want, bound);
                bad++;
            }
        }
        CHECK(dnnl_memory_destroy(dd));
        CHECK(dnnl_memory_destroy(ds));
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    if (bad) failures++;
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    if (ws) CHECK(dnnl_memory_destroy(ws));
    CHECK(dnnl_primitive_desc_destroy(fpd));
    CHECK(dnnl_memory_desc_destroy(data));
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(amd));
    free(x);
    free(g);
    free(y);
    free(t);
    free(ta);
}

int main(int argc, char **argv) {
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    const char *where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    int on_gpu = strcmp(where, "cpu") != 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    const int nshapes = (int)(sizeof shapes / sizeof *shapes);
    const params_t params[] = {{1, 5, 1e-4f, 0.75f, 1.f}, {1, 3, 0.7f, 0.75f, 1.5f},
            {1, 4, 0.5f, 0.5f, 2.f}, {1, 1, 0.9f, 1.25f, 1.f}, {1, 7, 0.3f, 0.75f, 1.f},
            {0, 3, 0.7f, 0.75f, 1.5f}, {0, 5, 0.4f, 0.6f, 1.f}, {0, 4, 0.5f, 0.5f, 2.f},
            {0, 1, 0.9f, 1.25f, 1.f}};
    const int nparams = (int)(sizeof params / sizeof *params);
    /* Every parameter set on the first shape; on the others (to keep the OpenCL runs
     * short: each case builds its kernels) across 3, 4 and 7, within 5 and 4. */
    const int some[] = {1, 2, 4, 6, 7};
    for (int si = 0; si < nshapes; si++)
        for (int j = 0; j < (si ? 5 : nparams); j++)
            for (int bwd = 0; bwd < 2; bwd++)
                run_case(&shapes[si], params[si ? some[j] : j], dnnl_f32, bwd,
                        dnnl_forward_training, 0);
    run_case(&shapes[1], params[1], dnnl_f32, 0, dnnl_forward_inference, 1);
    run_case(&shapes[0], params[5], dnnl_f32, 0, dnnl_forward_inference, 0);
    run_case(&shapes[1], params[1], dnnl_f32, 1, dnnl_forward_training, 1);
    run_case(&shapes[5], params[6], dnnl_f32, 1, dnnl_forward_training, 1);
    const dnnl_data_type_t types[] = {dnnl_bf16, dnnl_f16};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        for (int si = 0; si < 3; si++)
            for (int bwd = 0; bwd < 2; bwd++) {
                run_case(&shapes[si], params[1], types[k], bwd, dnnl_forward_training, 0);
                run_case(&shapes[si], params[6], types[k], bwd, dnnl_forward_training, 0);
            }
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("lrn_sweep on %s: %d primitives run, %d noted (unimplemented or not checked on this "
           "library), "
           "%d failures\n",
            where, n_run, n_noted, failures);
    return failures ? 1 : 0;
}
