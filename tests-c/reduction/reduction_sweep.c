/* Reduction (dnnl_reduction_primitive_desc_create) through the official API, compared
 * with a reference computed here in double from the formulas of the documentation:
 *   - every algorithm (max, min, sum, mul, mean and the four Lp norms, whose eps acts
 *     through max or sum) on reductions of the innermost axis, an outer axis, several
 *     axes, every axis, 1D to 5D, permuted and padded-stride layouts, dst `any`;
 *   - p = 1, 1.5, 2, 3 and an eps that dominates;
 *   - long reductions into few outputs (a GPU splits those in two passes);
 *   - source / destination types f32, f16, bf16, s8, u8, s32 (integer stores round
 *     half to even and saturate);
 *   - post-ops: sum, eltwise, binary;
 *   - queries: alg_kind, p, epsilon, memory descriptors.
 * Each output must be within the error bound of an f32 accumulation (its length times
 * the f32 epsilon times the magnitude summed) plus the final rounding.
 *
 * Usage: reduction_sweep [cpu|gpu]; with gpu it skips (77) without an OpenCL device. A
 * Level Zero run gets no argument but ONEDNN_GPU_RUNTIME=ze. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"

static int failures, n_run, n_noted, on_gpu;

enum { PO_NONE, PO_ALL };

typedef struct {
    int ndims;
    dnnl_dims_t src, dst;
    dnnl_format_tag_t stag, dtag; /* stag 0: padded strides (src_strides) */
    dnnl_dims_t src_strides;
} shape_t;

static const shape_t shapes[] = {
        {2, {7, 33}, {7, 1}, dnnl_ab, dnnl_ab, {0}},
        {2, {7, 33}, {1, 33}, dnnl_ab, dnnl_ab, {0}},
        {4, {3, 5, 4, 6}, {3, 5, 1, 1}, dnnl_abcd, dnnl_abcd, {0}},
        {4, {3, 5, 4, 6}, {3, 1, 4, 6}, dnnl_acdb, dnnl_format_tag_any, {0}},
        {3, {4, 3, 5}, {1, 1, 1}, dnnl_abc, dnnl_abc, {0}},
        {5, {2, 3, 2, 3, 4}, {1, 3, 1, 3, 1}, dnnl_abcde, dnnl_abcde, {0}},
        {1, {100}, {1}, dnnl_a, dnnl_a, {0}},
        {3, {6, 8, 4}, {6, 1, 4}, dnnl_abc, dnnl_acb, {0}},
        {2, {6, 10}, {6, 1}, 0, dnnl_ab, {16, 1}},
        {2, {2, 70001}, {2, 1}, dnnl_ab, dnnl_ab, {0}},
        {2, {5003, 3}, {1, 3}, dnnl_ab, dnnl_ab, {0}},
};

static const dnnl_alg_kind_t algs[] = {dnnl_reduction_max, dnnl_reduction_min,
        dnnl_reduction_sum, dnnl_reduction_mul, dnnl_reduction_mean,
        dnnl_reduction_norm_lp_max, dnnl_reduction_norm_lp_sum,
        dnnl_reduction_norm_lp_power_p_max, dnnl_reduction_norm_lp_power_p_sum};

static int is_lp(dnnl_alg_kind_t a) {
    return a == dnnl_reduction_norm_lp_max || a == dnnl_reduction_norm_lp_sum
            || a == dnnl_reduction_norm_lp_power_p_max || a == dnnl_reduction_norm_lp_power_p_sum;
}

static void execute(const_dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

/* A source value of type dt for element i (mul gets factors near 1, or small integers). */
static float value(dnnl_data_type_t dt, dnnl_alg_kind_t alg, int64_t i) {
    double u = rng_uniform();
    if (alg == dnnl_reduction_mul) {
        if (is_int_dt(dt)) return (float)(i % 7 == 0 ? (dt == dnnl_u8 ? 2 : -1) : 1);
        return rounded(dt, (float)(1.0 + 0.25 * u));
    }
    if (dt == dnnl_u8) return (float)(int)(4.5 * (u + 1));
    if (is_int_dt(dt)) return (float)(int)(4.5 * u * (i % 3 ? 1 : 2));
    return rounded(dt, (float)(u * (i % 5 ? 1 : 3)));
}

static void run_case(const shape_t *s, dnnl_alg_kind_t alg, dnnl_data_type_t sdt,
        dnnl_data_type_t ddt, float p, float eps, int post) {
    char what[160];
    snprintf(what, sizeof what, "%s %dD src %ldx%ld.. -> %ldx%ld.. %s->%s p %g eps %g%s",
            dnnl_alg_kind2str(alg), s->ndims, (long)s->src[0], (long)s->src[s->ndims > 1],
            (long)s->dst[0], (long)s->dst[s->ndims > 1], dnnl_dt2str(sdt), dnnl_dt2str(ddt),
            p, eps, post ? " post-ops" : "");
    dnnl_memory_desc_t smd = s->stag ? md_tag(s->ndims, s->src, sdt, s->stag)
                                     : md_strides(s->ndims, s->src, sdt, s->src_strides);
    dnnl_memory_desc_t dmd = md_tag(s->ndims, s->dst, ddt, s->dtag);
    dnnl_dims_t bdims;
    memcpy(bdims, s->dst, sizeof bdims);
    bdims[0] = 1; /* the binary operand broadcasts along dimension 0 */
    dnnl_memory_desc_t bmd = md_tag(s->ndims, bdims, dnnl_f32,
            s->ndims == 1 ? dnnl_a : s->ndims == 2 ? dnnl_ab : s->ndims == 3 ? dnnl_abc
                    : s->ndims == 4 ? dnnl_abcd : dnnl_abcde);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    const float sum_scale = 0.5f, alpha = 1.5f, beta = -0.25f;
    if (post) {
        dnnl_post_ops_t po = NULL;
        CHECK(dnnl_post_ops_create(&po));
        CHECK(dnnl_post_ops_append_sum(po, sum_scale, 0, dnnl_data_type_undef));
        CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, alpha, beta));
        CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bmd));
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
    }
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_reduction_primitive_desc_create(&pd, engine, alg, smd, dmd, p, eps, attr);
    CHECK(dnnl_primitive_attr_destroy(attr));
    if (st == dnnl_unimplemented && !library_is_ours()) {
        printf("note: %s: unimplemented by this library\n", what);
        n_noted++;
        CHECK(dnnl_memory_desc_destroy(smd));
        CHECK(dnnl_memory_desc_destroy(dmd));
        CHECK(dnnl_memory_desc_destroy(bmd));
        return;
    }
    CHECK(st);
    n_run++;

    /* Queries. */
    dnnl_alg_kind_t q_alg;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &q_alg));
    EXPECT(q_alg == alg);
    float q_p = 0, q_eps = 0;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_p_f32, 0, &q_p));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_epsilon_f32, 0, &q_eps));
    EXPECT(q_p == p && q_eps == eps);
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), smd));
    const_dnnl_memory_desc_t real_dst = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    if (s->dtag == dnnl_format_tag_any) expect_tag(real_dst, s->stag);
    else EXPECT(dnnl_memory_desc_equal(real_dst, dmd));

    layout_t ls = layout_of(smd), ld = layout_of(real_dst), lb = layout_of(bmd);
    float *x = malloc(sizeof(float) * (size_t)(ls.nelems + 1));
    float *y = malloc(sizeof(float) * (size_t)(ld.nelems + 1));
    float *old = malloc(sizeof(float) * (size_t)(ld.nelems + 1));
    float *b = malloc(sizeof(float) * (size_t)(lb.nelems + 1));
    double *acc = calloc((size_t)ld.nelems + 1, sizeof(double));
    double *mag = calloc((size_t)ld.nelems + 1, sizeof(double));
    for (int64_t i = 0; i < ls.nelems; i++)
        x[i] = value(sdt, alg, i);
    for (int64_t i = 0; i < ld.nelems; i++)
        old[i] = rounded(ddt, (float)(is_int_dt(ddt) ? (i % 5) : 0.5 * rng_uniform()));
    for (int64_t i = 0; i < lb.nelems; i++)
        b[i] = (float)(i % 4) * 0.25f;
    dnnl_memory_t src = memory(smd), dst = memory(real_dst), bin = memory(bmd);
    fill(src, x);
    fill(dst, old);
    fill(bin, b);

    /* The reference: each source element's output index, the accumulators in double. */
    int64_t r = ls.nelems / (ld.nelems ? ld.nelems : 1);
    double init = alg == dnnl_reduction_max ? -INFINITY : alg == dnnl_reduction_min ? INFINITY
            : alg == dnnl_reduction_mul ? 1.0 : 0.0;
    for (int64_t o = 0; o < ld.nelems; o++)
        acc[o] = init;
    for (int64_t i = 0; i < ls.nelems; i++) {
        int64_t q = i, o = 0, mul = 1;
        for (int d = s->ndims - 1; d >= 0; d--) {
            int64_t pd_ = q % s->src[d];
            q /= s->src[d];
            if (s->dst[d] != 1) o += pd_ * mul;
            mul *= s->dst[d];
        }
        double v = x[i];
        switch (alg) {
            case dnnl_reduction_max: acc[o] = fmax(acc[o], v); break;
            case dnnl_reduction_min: acc[o] = fmin(acc[o], v); break;
            case dnnl_reduction_mul: acc[o] *= v; mag[o] = fabs(acc[o]); break;
            case dnnl_reduction_sum:
            case dnnl_reduction_mean: acc[o] += v; mag[o] += fabs(v); break;
            default: acc[o] += pow(fabs(v), p); mag[o] += pow(fabs(v), p); break;
        }
    }
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst},
            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | DNNL_ARG_SRC_1, bin}};
    execute(pd, post ? 3 : 2, args);
    int padding_ok = 1;
    read_back(dst, y, &padding_ok);
    int bad = 0;
    for (int64_t o = 0; o < ld.nelems && bad < 5; o++) {
        double a = acc[o], want;
        /* f32 accumulation: r roundings of values up to the magnitude, a few more
         * in pow and the finishing steps. */
        double bound = (double)(r + 8) * 2 * F32_EPS * mag[o];
        switch (alg) {
            case dnnl_reduction_mean: want = a / (double)r; bound /= (double)r; break;
            case dnnl_reduction_norm_lp_max:
                want = pow(fmax(a, eps), 1.0 / p);
                bound = bound / p / fmax(fmax(a, eps), 1e-30) * want + 8 * F32_EPS * want;
                break;
            case dnnl_reduction_norm_lp_sum:
                want = pow(a + eps, 1.0 / p);
                bound = bound / p / fmax(a + eps, 1e-30) * want + 8 * F32_EPS * want;
                break;
            case dnnl_reduction_norm_lp_power_p_max: want = fmax(a, eps); break;
            case dnnl_reduction_norm_lp_power_p_sum: want = a + eps; break;
            default: want = a; break;
        }
        if (post) {
            int64_t q = o, bo = 0, mul = 1;
            for (int d = s->ndims - 1; d >= 0; d--) {
                int64_t pos = q % s->dst[d];
                q /= s->dst[d];
                if (d > 0) bo += pos * mul;
                mul *= bdims[d];
            }
            want = alpha * (want + sum_scale * old[o]) + beta + b[bo];
            bound = alpha * bound + 4 * F32_EPS * (fabs(want) + 1);
        }
        if (!matches(ddt, y[o], want, bound)) {
            fprintf(stderr, "FAIL %s: output %ld: got %.9g, want %.9g (bound %.3g)\n", what,
                    (long)o, y[o], want, bound);
            bad++;
        }
    }
    if (bad) failures++;
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_destroy(bin));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(dmd));
    CHECK(dnnl_memory_desc_destroy(bmd));
    free(x);
    free(y);
    free(old);
    free(b);
    free(acc);
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
    const int nalgs = (int)(sizeof algs / sizeof *algs);

    /* Every algorithm on every shape, f32 (a GPU, which builds a program per case,
     * gets the shapes of distinct geometries: inner, outer, all axes, the two-pass
     * ones). */
    for (int si = 0; si < nshapes; si++) {
        if (on_gpu && !(si == 1 || si == 3 || si == 4 || si == 9 || si == 10)) continue;
        for (int a = 0; a < nalgs; a++)
            run_case(&shapes[si], algs[a], dnnl_f32, dnnl_f32, 2.0f, 1e-3f, PO_NONE);
    }
    /* p and eps. */
    const float ps[] = {1.0f, 1.5f, 3.0f};
    for (int k = 0; k < 3; k++)
        for (int a = 5; a < nalgs; a++)
            if (!on_gpu || a == 5 + k)
                run_case(&shapes[2], algs[a], dnnl_f32, dnnl_f32, ps[k], 0.25f, PO_NONE);
    for (int a = 5; a < nalgs; a++)
        if (!on_gpu || a % 2)
            run_case(&shapes[0], algs[a], dnnl_f32, dnnl_f32, 2.0f, 1000.0f, PO_NONE);
    /* Types. */
    const dnnl_data_type_t pairs[][2] = {{dnnl_bf16, dnnl_bf16}, {dnnl_f16, dnnl_f16},
            {dnnl_bf16, dnnl_f32}, {dnnl_f32, dnnl_bf16}, {dnnl_s8, dnnl_s8},
            {dnnl_u8, dnnl_u8}, {dnnl_s8, dnnl_f32}, {dnnl_u8, dnnl_s32}, {dnnl_s32, dnnl_s32},
            {dnnl_f32, dnnl_s8}, {dnnl_f32, dnnl_u8}};
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
        for (int a = 0; a < nalgs; a++) {
            if (is_lp(algs[a]) && is_int_dt(pairs[k][0])) continue;
            /* GPU: one algorithm of each kind of accumulation per type pair. */
            if (on_gpu && (a + (int)k) % 3) continue;
            run_case(&shapes[3], algs[a], pairs[k][0], pairs[k][1], 2.0f, 1e-3f, PO_NONE);
        }
    /* Post-ops. */
    const int post_shapes[] = {0, 3, 5, 9};
    for (int k = 0; k < 4; k++) {
        run_case(&shapes[post_shapes[k]], dnnl_reduction_sum, dnnl_f32, dnnl_f32, 2, 0, PO_ALL);
        run_case(&shapes[post_shapes[k]], dnnl_reduction_norm_lp_max, dnnl_f32, dnnl_f32, 2,
                1e-3f, PO_ALL);
    }
    run_case(&shapes[3], dnnl_reduction_mean, dnnl_s8, dnnl_s8, 2, 0, PO_ALL);

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("reduction_sweep on %s: %d primitives run, %d noted (unimplemented by this "
           "library), %d failures\n",
            where, n_run, n_noted, failures);
    return failures ? 1 : 0;
}
