/* Group normalization (dnnl_group_normalization_*) through the official API, compared
 * with a reference computed here in double from the definitions
 * (doc/primitives/group_normalization.md):
 *   - forward training (mean and variance, N x G, written) and inference, with and
 *     without use_global_stats, use_scale, use_shift;
 *   - backward (diff_src, diff_scale, diff_shift) and backward_data (with scale, as
 *     Intel's library takes it);
 *   - 3-D to 5-D tensors (the documented ranks: Intel's library accepts 2-D ones but
 *     computes garbage there), one group, a group per channel and in between; odd sizes;
 *     plain layouts (nchw, nhwc and kin) placed by this file's own offsets, `any`
 *     destinations, in place;
 *   - f32, bf16, f16 and s8 (src and dst types may differ); src / dst scales for int8;
 *     eltwise and binary post-ops;
 *   - the queries: epsilon, flags, groups (dnnl_query_group_size_s64), the argument
 *     descriptors, inputs and outputs.
 *
 * A case Intel's library (the @ref run) answers dnnl_unimplemented for is printed as
 * `note: <case>: unimplemented by this library` and counted; on ours every case runs.
 *
 * Usage: gnorm_sweep [cpu|gpu]. Without an argument under ONEDNN_GPU_RUNTIME=ze it runs
 * on the Level Zero engine. On a GPU engine without a device: skip (77). */
#include "norm_sweep.h"

enum { F_GLOBAL = 1, F_SCALE = 2, F_SHIFT = 4 };

typedef struct {
    const char *name;
    int ndims;
    dnnl_dim_t dims[5];
    dnnl_dim_t groups;
    dnnl_format_tag_t tag;
    dnnl_data_type_t src_dt, dst_dt;
    dnnl_prop_kind_t prop;
    unsigned flags;
    int scales, post, dst_any, in_place;
    dnnl_prop_kind_t bwd;
    int gpu;
} case_t;

#define F32 dnnl_f32
static const case_t cases[] = {
        {"nchw f32 training, 3 groups", 4, {2, 6, 3, 4}, 3, dnnl_nchw, F32, F32, dnnl_forward_training, 0, 0, 0, 0, 0, dnnl_backward, 1},
        {"nchw f32 training scale shift, 2 groups", 4, {3, 8, 5, 3}, 2, dnnl_nchw, F32, F32, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nhwc f32 training scale, 4 groups", 4, {2, 8, 3, 5}, 4, dnnl_nhwc, F32, F32, dnnl_forward_training, F_SCALE, 0, 0, 0, 0, dnnl_backward, 1},
        {"ncw f32 training shift, 1 group", 3, {3, 4, 9}, 1, dnnl_ncw, F32, F32, dnnl_forward_training, F_SHIFT, 0, 0, 0, 0, dnnl_backward, 0},
        {"nwc f32 training, a group per channel", 3, {2, 5, 7}, 5, dnnl_nwc, F32, F32, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"ncdhw f32 global scale shift", 5, {2, 6, 2, 3, 2}, 3, dnnl_ncdhw, F32, F32, dnnl_forward_inference, F_GLOBAL | F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nchw f32 inference", 4, {2, 6, 4, 3}, 2, dnnl_nchw, F32, F32, dnnl_forward_inference, 0, 0, 0, 0, 0, 0, 0},
        {"nchw f32 backward_data scale", 4, {2, 6, 3, 3}, 3, dnnl_nchw, F32, F32, dnnl_forward_training, F_SCALE, 0, 0, 0, 0, dnnl_backward_data, 0},
        {"nchw f32 global backward_data", 4, {2, 6, 3, 3}, 3, dnnl_nchw, F32, F32, dnnl_forward_training, F_GLOBAL, 0, 0, 0, 0, dnnl_backward_data, 0},
        {"nchw f32 dst any", 4, {2, 4, 3, 3}, 2, dnnl_nchw, F32, F32, dnnl_forward_training, F_SHIFT, 0, 0, 1, 0, dnnl_backward, 0},
        {"nhwc f32 in place", 4, {2, 6, 3, 3}, 3, dnnl_nhwc, F32, F32, dnnl_forward_inference, F_SCALE, 0, 0, 0, 1, 0, 1},
        {"nchw f32 post-ops", 4, {2, 6, 3, 4}, 3, dnnl_nchw, F32, F32, dnnl_forward_inference, F_SCALE | F_SHIFT, 0, 1, 0, 0, 0, 1},
        {"nchw bf16 training", 4, {2, 6, 4, 5}, 3, dnnl_nchw, dnnl_bf16, dnnl_bf16, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nhwc f16 training", 4, {2, 6, 4, 5}, 2, dnnl_nhwc, dnnl_f16, dnnl_f16, dnnl_forward_training, F_SCALE, 0, 0, 0, 0, dnnl_backward, 0},
        {"nchw f32 to bf16 inference", 4, {2, 6, 3, 3}, 3, dnnl_nchw, F32, dnnl_bf16, dnnl_forward_inference, F_SHIFT, 0, 0, 0, 0, 0, 0},
        {"nchw s8 inference global", 4, {2, 6, 3, 4}, 3, dnnl_nchw, dnnl_s8, dnnl_s8, dnnl_forward_inference, F_GLOBAL | F_SCALE | F_SHIFT, 0, 0, 0, 0, 0, 1},
        {"nchw f32 to s8, scales", 4, {2, 6, 3, 4}, 3, dnnl_nchw, F32, dnnl_s8, dnnl_forward_inference, F_SHIFT, 1, 0, 0, 0, 0, 0},
        /* Many elements per group: the GPU's two-level reduction. */
        {"nchw f32 long groups", 4, {2, 4, 40, 40}, 2, dnnl_nchw, F32, F32, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nhwc f32 long groups", 4, {2, 64, 12, 12}, 4, dnnl_nhwc, F32, F32, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
};

#define MAXE 40000
#define MAXC 64
#define MAXS 128

static void run_case(const case_t *k) {
    const char *what = k->name;
    int nd = k->ndims;
    int64_t N = k->dims[0], C = k->dims[1], SP = 1, G = k->groups, CG = C / G;
    for (int d = 2; d < nd; d++)
        SP *= k->dims[d];
    int64_t total = N * C * SP, S = N * G, M = CG * SP;
    int training = k->prop == dnnl_forward_training;
    int global = (k->flags & F_GLOBAL) != 0;
    float eps = 1e-3f;
    EXPECT(total <= MAXE && C <= MAXC && S <= MAXS);

    dnnl_memory_desc_t src_md = md_tag(nd, k->dims, k->src_dt, k->tag);
    dnnl_memory_desc_t dst_md = md_tag(nd, k->dims, k->dst_dt, k->dst_any ? dnnl_format_tag_any : k->tag);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_memory_desc_t bin_md = NULL;
    if (k->scales || k->post) CHECK(dnnl_primitive_attr_create(&attr));
    if (k->scales) {
        CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    }
    if (k->post) {
        dnnl_post_ops_t po = NULL;
        dnnl_dims_t bd = {1, 1, 1, 1, 1};
        bd[1] = C;
        bin_md = md_tag(nd, bd, F32, nd == 3 ? dnnl_abc : nd == 4 ? dnnl_abcd : dnnl_abcde);
        CHECK(dnnl_post_ops_create(&po));
        CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_tanh, 0.f, 0.f));
        CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bin_md));
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
    }
    dnnl_primitive_desc_t fpd = NULL;
    dnnl_status_t st = dnnl_group_normalization_forward_primitive_desc_create(
            &fpd, engine, k->prop, src_md, dst_md, G, eps, k->flags, attr);
    if (st == dnnl_unimplemented && !library_is_ours()) {
        printf("note: %s: unimplemented by this library\n", what);
        n_noted++;
        goto out;
    }
    if (st != dnnl_success) {
        fail(what, "forward creation: %s", dnnl_status2str(st));
        goto out;
    }
    {
        float e = 0;
        unsigned fl = 0;
        dnnl_dim_t groups = 0;
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_epsilon_f32, 0, &e));
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_flags, 0, &fl));
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_group_size_s64, 0, &groups));
        if (e != eps || fl != k->flags || groups != G)
            fail(what, "queries: eps %g flags %#x groups %lld", e, fl, (long long)groups);
        expect_md(what, fpd, DNNL_ARG_MEAN, training || global);
        expect_md(what, fpd, DNNL_ARG_SCALE, (k->flags & (F_SCALE | F_SHIFT)) != 0);
        int nin = dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_inputs_s32, 0);
        int nout = dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_outputs_s32, 0);
        int want_in = 1 + (global ? 2 : 0) + !!(k->flags & F_SCALE) + !!(k->flags & F_SHIFT) + (k->post ? 1 : 0);
        int want_out = 1 + (training && !global ? 2 : 0);
        if (nin != want_in || nout != want_out) fail(what, "%d inputs, %d outputs; want %d, %d", nin, nout, want_in, want_out);
    }
    {
        static float x[MAXE], y[MAXE];
        static double ry[MAXE];
        float sc[MAXC], sh[MAXC], bin[MAXC], mean[MAXS], var[MAXS];
        int src_int = k->src_dt == dnnl_s8, dst_int = k->dst_dt == dnnl_s8;
        for (int64_t i = 0; i < total; i++) {
            double v = src_int ? floor(rng_uniform() * 60) : 2.0 * rng_uniform() + 0.2 * (double)(i / SP % C);
            x[i] = rounded(k->src_dt, (float)v);
        }
        for (int64_t c = 0; c < C; c++) {
            sc[c] = (float)(1.0 + 0.5 * rng_uniform());
            sh[c] = (float)(0.5 * rng_uniform());
            bin[c] = (float)(0.25 * rng_uniform());
        }
        for (int64_t s = 0; s < S; s++) {
            mean[s] = (float)(src_int ? 10 * rng_uniform() : 0.3 * (double)(s % G) + 0.2 * rng_uniform());
            var[s] = (float)(src_int ? 100 + 50 * rng_uniform() : 1.2 + 0.5 * rng_uniform());
        }
        float src_scale = 0.5f, dst_scale = 0.02f;
        dnnl_memory_t m_src = memory(src_md);
        dnnl_memory_t m_dst = k->in_place ? m_src : memory(dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0));
        dnnl_memory_t m_mean = mem_of(fpd, DNNL_ARG_MEAN), m_var = mem_of(fpd, DNNL_ARG_VARIANCE);
        dnnl_memory_t m_sc = mem_of(fpd, DNNL_ARG_SCALE), m_sh = mem_of(fpd, DNNL_ARG_SHIFT);
        dnnl_memory_t m_bin = bin_md ? memory(bin_md) : NULL, m_ssc = NULL, m_dsc = NULL;
        fill(m_src, x);
        if (m_sc) fill(m_sc, sc);
        if (m_sh) fill(m_sh, sh);
        if (m_bin) fill(m_bin, bin);
        if (global) {
            fill(m_mean, mean);
            fill(m_var, var);
        }
        if (k->scales) {
            dnnl_dims_t one = {1};
            dnnl_memory_desc_t s1 = md_tag(1, one, F32, dnnl_a);
            m_ssc = memory(s1);
            m_dsc = memory(s1);
            fill(m_ssc, &src_scale);
            fill(m_dsc, &dst_scale);
            CHECK(dnnl_memory_desc_destroy(s1));
        }
        dnnl_exec_arg_t args[10];
        int na = 0;
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, m_src};
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DST, m_dst};
        if (m_mean) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_MEAN, m_mean};
        if (m_var) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_VARIANCE, m_var};
        if (m_sc) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCALE, m_sc};
        if (m_sh) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SHIFT, m_sh};
        if (m_bin) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, m_bin};
        if (m_ssc) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, m_ssc};
        if (m_dsc) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, m_dsc};
        execute(fpd, na, args);
        n_run++;

        double rm[MAXS], rv[MAXS];
        for (int64_t s = 0; s < S; s++) {
            if (global) {
                rm[s] = mean[s];
                rv[s] = var[s];
                continue;
            }
            int64_t n = s / G, g = s % G;
            double a = 0, q = 0;
            for (int64_t c = g * CG; c < (g + 1) * CG; c++)
                for (int64_t p = 0; p < SP; p++)
                    a += x[(n * C + c) * SP + p];
            rm[s] = a / (double)M;
            for (int64_t c = g * CG; c < (g + 1) * CG; c++)
                for (int64_t p = 0; p < SP; p++) {
                    double d = x[(n * C + c) * SP + p] - rm[s];
                    q += d * d;
                }
            rv[s] = q / (double)M;
        }
        for (int64_t i = 0; i < total; i++) {
            int64_t c = i / SP % C, s = i / (C * SP) * G + c / CG;
            double v = (x[i] - rm[s]) / sqrt(rv[s] + eps);
            if (k->flags & F_SCALE) v *= sc[c];
            if (k->flags & F_SHIFT) v += sh[c];
            if (k->scales) v *= src_scale;
            if (k->post) v = tanh(v) + bin[c];
            if (k->scales) v /= dst_scale;
            ry[i] = v;
        }
        read_vec(m_dst, y);
        if (dst_int) {
            for (int64_t i = 0; i < total; i++)
                if (fabs(y[i] - saturate(k->dst_dt, ry[i])) > 1) {
                    fail(what, "dst[%lld] = %g, want %g", (long long)i, y[i], ry[i]);
                    break;
                }
        } else {
            check_vals(what, "dst", k->dst_dt, y, ry, total, k->src_dt == F32 && k->dst_dt == F32 ? 3e-5 : 2e-2);
        }
        if (training && !global) {
            float gm[MAXS], gv[MAXS];
            read_vec(m_mean, gm);
            read_vec(m_var, gv);
            check_vals(what, "mean", F32, gm, rm, S, k->src_dt == F32 ? 1e-5 : 1e-3);
            check_vals(what, "variance", F32, gv, rv, S, k->src_dt == F32 ? 1e-5 : 1e-3);
        }

        if (k->bwd) {
            dnnl_data_type_t ddt = k->src_dt;
            dnnl_memory_desc_t dd_md = md_tag(nd, k->dims, ddt, k->dst_any ? dnnl_format_tag_any : k->tag);
            dnnl_primitive_desc_t bpd = NULL;
            st = dnnl_group_normalization_backward_primitive_desc_create(&bpd, engine, k->bwd, dd_md,
                    dd_md, src_md, G, eps, k->flags, fpd, NULL);
            if (st == dnnl_unimplemented && !library_is_ours()) {
                printf("note: %s backward: unimplemented by this library\n", what);
                n_noted++;
            } else if (st != dnnl_success) {
                fail(what, "backward creation: %s", dnnl_status2str(st));
            } else {
                float fm[MAXS], fv[MAXS];
                if (global) {
                    memcpy(fm, mean, sizeof fm);
                    memcpy(fv, var, sizeof fv);
                } else {
                    read_vec(m_mean, fm);
                    read_vec(m_var, fv);
                }
                static float dd[MAXE], ds[MAXE];
                static double rds[MAXE];
                for (int64_t i = 0; i < total; i++)
                    dd[i] = rounded(ddt, (float)rng_uniform());
                dnnl_memory_t m_dd = memory(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0));
                dnnl_memory_t m_ds = memory(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0));
                dnnl_memory_t m_bmean = mem_of(bpd, DNNL_ARG_MEAN), m_bvar = mem_of(bpd, DNNL_ARG_VARIANCE);
                dnnl_memory_t m_bsc = mem_of(bpd, DNNL_ARG_SCALE);
                dnnl_memory_t m_dscale = mem_of(bpd, DNNL_ARG_DIFF_SCALE), m_dshift = mem_of(bpd, DNNL_ARG_DIFF_SHIFT);
                dnnl_memory_t m_bsrc = memory(src_md);
                fill(m_bsrc, x);
                fill(m_dd, dd);
                fill(m_bmean, fm);
                fill(m_bvar, fv);
                if (m_bsc) fill(m_bsc, sc);
                na = 0;
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, m_bsrc};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, m_dd};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, m_ds};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_MEAN, m_bmean};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_VARIANCE, m_bvar};
                if (m_bsc) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCALE, m_bsc};
                if (m_dscale) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SCALE, m_dscale};
                if (m_dshift) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SHIFT, m_dshift};
                execute(bpd, na, args);
                n_run++;
                double dg[MAXC] = {0}, db[MAXC] = {0}, A[MAXS] = {0}, B[MAXS] = {0};
                for (int64_t i = 0; i < total; i++) {
                    int64_t c = i / SP % C, s = i / (C * SP) * G + c / CG;
                    double g = (k->flags & F_SCALE) ? sc[c] : 1.0;
                    double xh = (x[i] - fm[s]) / sqrt((double)fv[s] + eps);
                    db[c] += dd[i];
                    dg[c] += dd[i] * xh;
                    A[s] += g * dd[i];
                    B[s] += g * dd[i] * xh;
                }
                for (int64_t i = 0; i < total; i++) {
                    int64_t c = i / SP % C, s = i / (C * SP) * G + c / CG;
                    double g = (k->flags & F_SCALE) ? sc[c] : 1.0;
                    double inv = 1.0 / sqrt((double)fv[s] + eps), xh = (x[i] - fm[s]) * inv;
                    rds[i] = global ? g * dd[i] * inv : (g * dd[i] - A[s] / (double)M - xh * B[s] / (double)M) * inv;
                }
                read_vec(m_ds, ds);
                double brel = ddt == F32 ? 1e-4 : 3e-2;
                check_vals(what, "diff_src", ddt, ds, rds, total, brel);
                if (k->bwd == dnnl_backward) {
                    float got[MAXC];
                    if (m_dscale && (k->flags & F_SCALE)) {
                        read_vec(m_dscale, got);
                        check_vals(what, "diff_scale", F32, got, dg, C, brel * 10);
                    }
                    if (m_dshift && (k->flags & F_SHIFT)) {
                        read_vec(m_dshift, got);
                        check_vals(what, "diff_shift", F32, got, db, C, brel * 10);
                    }
                }
                dnnl_memory_t ms[] = {m_dd, m_ds, m_bmean, m_bvar, m_bsc, m_dscale, m_dshift, m_bsrc};
                for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
                    if (ms[i]) CHECK(dnnl_memory_destroy(ms[i]));
                CHECK(dnnl_primitive_desc_destroy(bpd));
            }
            CHECK(dnnl_memory_desc_destroy(dd_md));
        }
        dnnl_memory_t ms[] = {m_mean, m_var, m_sc, m_sh, m_bin, m_ssc, m_dsc};
        for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
            if (ms[i]) CHECK(dnnl_memory_destroy(ms[i]));
        if (!k->in_place) CHECK(dnnl_memory_destroy(m_dst));
        CHECK(dnnl_memory_destroy(m_src));
    }
    CHECK(dnnl_primitive_desc_destroy(fpd));
out:
    if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
    if (bin_md) CHECK(dnnl_memory_desc_destroy(bin_md));
    CHECK(dnnl_memory_desc_destroy(src_md));
    CHECK(dnnl_memory_desc_destroy(dst_md));
}

int main(int argc, char **argv) {
    sweep_open(argc, argv, 13);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (!on_gpu || cases[i].gpu) run_case(&cases[i]);
    return sweep_close("gnorm_sweep");
}
