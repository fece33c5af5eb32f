/* Batch normalization (dnnl_batch_normalization_*) through the official API, compared
 * with a reference computed here in double from the definitions
 * (doc/primitives/batch_normalization.md):
 *   - forward training (mean and variance written) and inference, with and without
 *     use_global_stats, use_scale, use_shift, fuse_norm_relu, fuse_norm_add_relu (src_1
 *     added before the ReLU) and the ReLU post-op (a negative slope in inference);
 *   - backward (diff_src, diff_scale, diff_shift) and backward_data, with global stats
 *     and with the fused ReLUs (the workspace of the forward run; diff_src_1);
 *   - 2-D to 5-D tensors (0 to 3 spatial dims), odd sizes, plain layouts (nchw, nhwc
 *     and kin) placed by this file's own offsets, `any` destinations, in place;
 *   - f32, bf16, f16 (f32 math) and s8 (inference with global stats);
 *   - statistics over many elements per channel (the GPU's two-level reduction) in
 *     channels-first and channels-last layouts;
 *   - the queries: epsilon, flags, prop kind, the argument descriptors (mean, variance,
 *     scale, shift, workspace, src_1), inputs and outputs.
 *
 * A case Intel's library (the @ref run) answers dnnl_unimplemented for is printed as
 * `note: <case>: unimplemented by this library` and counted; on ours every case runs.
 * Each failure names its case; the last line says how many ran.
 *
 * Usage: bnorm_sweep [cpu|gpu]. Without an argument under ONEDNN_GPU_RUNTIME=ze it runs
 * on the Level Zero engine. On a GPU engine without a device: skip (77). */
#include "norm_sweep.h"


enum { F_GLOBAL = 1, F_SCALE = 2, F_SHIFT = 4, F_RELU = 8, F_ADD = 16 };

typedef struct {
    const char *name;
    int ndims;
    dnnl_dim_t dims[5];
    dnnl_format_tag_t tag;
    dnnl_data_type_t dt;
    dnnl_prop_kind_t prop; /* forward propagation */
    unsigned flags;
    int post_relu; /* a ReLU post-op */
    float alpha;   /* its negative slope */
    int dst_any, in_place;
    dnnl_prop_kind_t bwd; /* 0: no backward run */
    int gpu;              /* in the GPU subset */
} case_t;

static const case_t cases[] = {
        {"nchw f32 training", 4, {2, 3, 4, 5}, dnnl_nchw, dnnl_f32, dnnl_forward_training, 0, 0, 0, 0, 0, dnnl_backward, 1},
        {"nchw f32 training scale shift", 4, {3, 5, 3, 7}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nchw f32 training scale", 4, {2, 4, 3, 3}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_SCALE, 0, 0, 0, 0, dnnl_backward, 0},
        {"nchw f32 training shift", 4, {2, 4, 3, 3}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_SHIFT, 0, 0, 0, 0, dnnl_backward, 0},
        {"nhwc f32 global scale shift", 4, {2, 6, 3, 5}, dnnl_nhwc, dnnl_f32, dnnl_forward_training, F_GLOBAL | F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nhwc f32 inference", 4, {3, 7, 2, 3}, dnnl_nhwc, dnnl_f32, dnnl_forward_inference, 0, 0, 0, 0, 0, 0, 0},
        {"nc f32 training fused relu", 2, {7, 5}, dnnl_nc, dnnl_f32, dnnl_forward_training, F_RELU, 0, 0, 0, 0, dnnl_backward, 1},
        {"ncw f32 training relu scale shift", 3, {3, 4, 9}, dnnl_ncw, dnnl_f32, dnnl_forward_training, F_RELU | F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 0},
        {"nwc f32 inference", 3, {2, 5, 7}, dnnl_nwc, dnnl_f32, dnnl_forward_inference, F_SCALE, 0, 0, 0, 0, 0, 0},
        {"ncdhw f32 training scale", 5, {2, 3, 2, 3, 4}, dnnl_ncdhw, dnnl_f32, dnnl_forward_training, F_SCALE, 0, 0, 0, 0, dnnl_backward, 1},
        {"ndhwc f32 global", 5, {2, 3, 2, 3, 2}, dnnl_ndhwc, dnnl_f32, dnnl_forward_inference, F_GLOBAL | F_SHIFT, 0, 0, 0, 0, dnnl_backward_data, 0},
        {"nchw f32 backward_data", 4, {2, 3, 5, 3}, dnnl_nchw, dnnl_f32, dnnl_forward_training, 0, 0, 0, 0, 0, dnnl_backward_data, 0},
        {"nchw f32 backward_data relu", 4, {2, 3, 5, 3}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_RELU, 0, 0, 0, 0, dnnl_backward_data, 0},
        {"nchw f32 global relu", 4, {2, 3, 2, 2}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_GLOBAL | F_RELU, 0, 0, 0, 0, dnnl_backward, 0},
        {"nchw f32 relu post-op alpha", 4, {2, 3, 4, 4}, dnnl_nchw, dnnl_f32, dnnl_forward_inference, F_GLOBAL | F_SCALE, 1, 0.25f, 0, 0, 0, 1},
        {"nchw f32 relu post-op training", 4, {2, 3, 4, 4}, dnnl_nchw, dnnl_f32, dnnl_forward_training, 0, 1, 0.f, 0, 0, 0, 0},
        {"nchw f32 dst any", 4, {2, 3, 3, 4}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_SHIFT, 0, 0, 1, 0, dnnl_backward, 0},
        {"nhwc f32 in place", 4, {2, 5, 3, 3}, dnnl_nhwc, dnnl_f32, dnnl_forward_inference, F_SCALE | F_SHIFT, 0, 0, 0, 1, 0, 1},
        {"nchw f32 add relu", 4, {2, 3, 3, 4}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_ADD | F_SCALE, 0, 0, 0, 0, dnnl_backward, 1},
        {"nhwc f32 add relu inference", 4, {2, 3, 3, 4}, dnnl_nhwc, dnnl_f32, dnnl_forward_inference, F_ADD | F_GLOBAL, 0, 0, 0, 0, 0, 0},
        {"nchw bf16 training scale shift", 4, {2, 3, 4, 5}, dnnl_nchw, dnnl_bf16, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nhwc f16 training", 4, {2, 3, 4, 5}, dnnl_nhwc, dnnl_f16, dnnl_forward_training, F_RELU, 0, 0, 0, 0, dnnl_backward, 1},
        {"nchw s8 inference", 4, {2, 3, 4, 5}, dnnl_nchw, dnnl_s8, dnnl_forward_inference, F_GLOBAL | F_SCALE | F_SHIFT, 0, 0, 0, 0, 0, 1},
        {"nhwc s8 inference relu", 4, {2, 4, 3, 3}, dnnl_nhwc, dnnl_s8, dnnl_forward_inference, F_GLOBAL, 1, 0.f, 0, 0, 0, 0},
        /* Many elements per channel, few channels: the GPU's two-level reduction. */
        {"nchw f32 long stats", 4, {3, 3, 41, 43}, dnnl_nchw, dnnl_f32, dnnl_forward_training, F_SCALE | F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nhwc f32 long stats", 4, {3, 35, 41, 7}, dnnl_nhwc, dnnl_f32, dnnl_forward_training, F_SHIFT, 0, 0, 0, 0, dnnl_backward, 1},
        {"nc f32 long stats relu", 2, {5000, 3}, dnnl_nc, dnnl_f32, dnnl_forward_training, F_RELU | F_SCALE, 0, 0, 0, 0, dnnl_backward, 1},
};

static void run_case(const case_t *k) {
    const char *what = k->name;
    int nd = k->ndims;
    int64_t N = k->dims[0], C = k->dims[1], SP = 1;
    for (int d = 2; d < nd; d++)
        SP *= k->dims[d];
    int64_t total = N * C * SP, M = N * SP;
    int training = k->prop == dnnl_forward_training;
    int global = (k->flags & F_GLOBAL) != 0;
    int fused = (k->flags & (F_RELU | F_ADD)) != 0;
    float eps = 1e-3f;

    dnnl_memory_desc_t src_md = md_tag(nd, k->dims, k->dt, k->tag);
    dnnl_memory_desc_t dst_md = md_tag(nd, k->dims, k->dt, k->dst_any ? dnnl_format_tag_any : k->tag);
    dnnl_primitive_attr_t attr = NULL;
    if (k->post_relu) {
        dnnl_post_ops_t po = NULL;
        CHECK(dnnl_post_ops_create(&po));
        CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, k->alpha, 0.f));
        CHECK(dnnl_primitive_attr_create(&attr));
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
    }
    dnnl_primitive_desc_t fpd = NULL;
    dnnl_status_t st = dnnl_batch_normalization_forward_primitive_desc_create(
            &fpd, engine, k->prop, src_md, dst_md, eps, k->flags, attr);
    if (st == dnnl_unimplemented && !library_is_ours()) {
        printf("note: %s: unimplemented by this library\n", what);
        n_noted++;
        goto out;
    }
    if (st != dnnl_success) {
        fail(what, "forward creation: %s", dnnl_status2str(st));
        goto out;
    }
    /* Queries. */
    {
        float e = 0;
        unsigned fl = 0;
        dnnl_prop_kind_t pk;
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_epsilon_f32, 0, &e));
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_flags, 0, &fl));
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_prop_kind, 0, &pk));
        if (e != eps || fl != k->flags || pk != k->prop) fail(what, "queries: eps %g flags %#x prop %d", e, fl, (int)pk);
        expect_md(what, fpd, DNNL_ARG_MEAN, training || global);
        expect_md(what, fpd, DNNL_ARG_VARIANCE, training || global);
        /* Both are described when either is used (as Intel's library does). */
        expect_md(what, fpd, DNNL_ARG_SCALE, (k->flags & (F_SCALE | F_SHIFT)) != 0);
        expect_md(what, fpd, DNNL_ARG_SHIFT, (k->flags & (F_SCALE | F_SHIFT)) != 0);
        expect_md(what, fpd, DNNL_ARG_WORKSPACE, fused && training);
        expect_md(what, fpd, DNNL_ARG_SRC_1, (k->flags & F_ADD) != 0);
        const_dnnl_memory_desc_t ws = dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0);
        if (fused && training && dnnl_memory_desc_get_size(ws) < (size_t)total / 8)
            fail(what, "workspace of %zu bytes", dnnl_memory_desc_get_size(ws));
        int nin = dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_inputs_s32, 0);
        int nout = dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_outputs_s32, 0);
        int want_in = 1 + (global ? 2 : 0) + !!(k->flags & F_SCALE) + !!(k->flags & F_SHIFT) + !!(k->flags & F_ADD);
        int want_out = 1 + (training && !global ? 2 : 0) + (fused && training);
        if (nin != want_in || nout != want_out) fail(what, "%d inputs, %d outputs; want %d, %d", nin, nout, want_in, want_out);
    }
    {
        float *x = malloc(sizeof(float) * (size_t)total), *x1 = malloc(sizeof(float) * (size_t)total);
        float *y = malloc(sizeof(float) * (size_t)total);
        float sc[64], sh[64], mean[64], var[64];
        EXPECT(C <= 64);
        int is_int = k->dt == dnnl_s8;
        for (int64_t i = 0; i < total; i++) {
            int64_t c = i / SP % C;
            double v = is_int ? floor(rng_uniform() * 60) : 2.0 * rng_uniform() + 0.3 * (double)c;
            x[i] = rounded(k->dt, (float)v);
            x1[i] = rounded(k->dt, (float)(is_int ? floor(rng_uniform() * 10) : rng_uniform()));
        }
        for (int64_t c = 0; c < C; c++) {
            sc[c] = (float)(1.0 + 0.5 * rng_uniform());
            sh[c] = (float)(0.5 * rng_uniform());
            mean[c] = (float)(is_int ? 10 * rng_uniform() : 0.3 * (double)c + 0.2 * rng_uniform());
            var[c] = (float)(is_int ? 100 + 50 * rng_uniform() : 1.2 + 0.5 * rng_uniform());
        }
        dnnl_memory_t m_src = memory(src_md);
        const_dnnl_memory_desc_t qdst = dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0);
        dnnl_memory_t m_dst = k->in_place ? m_src : memory(qdst);
        dnnl_memory_t m_mean = mem_of(fpd, DNNL_ARG_MEAN), m_var = mem_of(fpd, DNNL_ARG_VARIANCE);
        dnnl_memory_t m_sc = mem_of(fpd, DNNL_ARG_SCALE), m_sh = mem_of(fpd, DNNL_ARG_SHIFT);
        dnnl_memory_t m_ws = mem_of(fpd, DNNL_ARG_WORKSPACE), m_s1 = mem_of(fpd, DNNL_ARG_SRC_1);
        fill(m_src, x);
        if (m_s1) fill(m_s1, x1);
        if (m_sc) fill(m_sc, sc);
        if (m_sh) fill(m_sh, sh);
        if (global) {
            fill(m_mean, mean);
            fill(m_var, var);
        }
        dnnl_exec_arg_t args[8];
        int na = 0;
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, m_src};
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DST, m_dst};
        if (m_mean) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_MEAN, m_mean};
        if (m_var) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_VARIANCE, m_var};
        if (m_sc) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCALE, m_sc};
        if (m_sh) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SHIFT, m_sh};
        if (m_ws) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, m_ws};
        if (m_s1) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_1, m_s1};
        execute(fpd, na, args);
        n_run++;

        /* Reference. */
        double rm[64], rv[64];
        for (int64_t c = 0; c < C; c++) {
            if (global) {
                rm[c] = mean[c];
                rv[c] = var[c];
                continue;
            }
            double s = 0, q = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t p = 0; p < SP; p++)
                    s += x[(n * C + c) * SP + p];
            rm[c] = s / (double)M;
            for (int64_t n = 0; n < N; n++)
                for (int64_t p = 0; p < SP; p++) {
                    double d = x[(n * C + c) * SP + p] - rm[c];
                    q += d * d;
                }
            rv[c] = q / (double)M;
        }
        double *ry = malloc(sizeof(double) * (size_t)total);
        int relu = fused || k->post_relu;
        double alpha = fused ? 0.0 : k->alpha;
        for (int64_t i = 0; i < total; i++) {
            int64_t c = i / SP % C;
            double v = (x[i] - rm[c]) / sqrt(rv[c] + eps);
            if (k->flags & F_SCALE) v *= sc[c];
            if (k->flags & F_SHIFT) v += sh[c];
            if (k->flags & F_ADD) v += x1[i];
            if (relu && v <= 0) v *= alpha;
            ry[i] = v;
        }
        read_vec(m_dst, y);
        double rel = k->dt == dnnl_f32 ? 3e-5 : is_int ? 0.5 : 2e-2;
        check_vals(what, "dst", k->dt, y, ry, total, is_int ? 0 : rel);
        if (is_int) {
            /* Integers: within one of the rounded reference (f32 math before rounding). */
            for (int64_t i = 0; i < total; i++)
                if (fabs(y[i] - saturate(dnnl_s8, ry[i])) > 1) {
                    fail(what, "dst[%lld] = %g, want %g", (long long)i, y[i], ry[i]);
                    break;
                }
        }
        if (training && !global) {
            float gm[64], gv[64];
            read_vec(m_mean, gm);
            read_vec(m_var, gv);
            check_vals(what, "mean", dnnl_f32, gm, rm, C, k->dt == dnnl_f32 ? 1e-5 : 1e-3);
            check_vals(what, "variance", dnnl_f32, gv, rv, C, k->dt == dnnl_f32 ? 1e-5 : 1e-3);
        }

        if (k->bwd) {
            /* Backward with the forward's statistics and workspace. */
            dnnl_memory_desc_t dd_md = md_tag(nd, k->dims, k->dt, k->dst_any ? dnnl_format_tag_any : k->tag);
            dnnl_primitive_desc_t bpd = NULL;
            st = dnnl_batch_normalization_backward_primitive_desc_create(&bpd, engine, k->bwd, dd_md,
                    dd_md, src_md, eps, k->flags, fpd, NULL);
            if (st == dnnl_unimplemented && !library_is_ours()) {
                printf("note: %s backward: unimplemented by this library\n", what);
                n_noted++;
            } else if (st != dnnl_success) {
                fail(what, "backward creation: %s", dnnl_status2str(st));
            } else {
                float fm[64], fv[64];
                if (global) {
                    memcpy(fm, mean, sizeof fm);
                    memcpy(fv, var, sizeof fv);
                } else {
                    read_vec(m_mean, fm);
                    read_vec(m_var, fv);
                }
                float *dd = malloc(sizeof(float) * (size_t)total), *ds = malloc(sizeof(float) * (size_t)total);
                for (int64_t i = 0; i < total; i++)
                    dd[i] = rounded(k->dt, (float)rng_uniform());
                const_dnnl_memory_desc_t q_dd = dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0);
                const_dnnl_memory_desc_t q_ds = dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0);
                dnnl_memory_t m_dd = memory(q_dd), m_ds = memory(q_ds);
                dnnl_memory_t m_bmean = mem_of(bpd, DNNL_ARG_MEAN), m_bvar = mem_of(bpd, DNNL_ARG_VARIANCE);
                dnnl_memory_t m_bsc = mem_of(bpd, DNNL_ARG_SCALE);
                dnnl_memory_t m_dsc = mem_of(bpd, DNNL_ARG_DIFF_SCALE), m_dsh = mem_of(bpd, DNNL_ARG_DIFF_SHIFT);
                dnnl_memory_t m_ds1 = mem_of(bpd, DNNL_ARG_DIFF_SRC_1);
                dnnl_memory_t m_bsrc = memory(src_md);
                fill(m_bsrc, x);
                fill(m_dd, dd);
                fill(m_bmean, fm);
                fill(m_bvar, fv);
                if (m_bsc) fill(m_bsc, sc);
                expect_md(what, bpd, DNNL_ARG_WORKSPACE, fused);
                na = 0;
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, m_bsrc};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, m_dd};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, m_ds};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_MEAN, m_bmean};
                args[na++] = (dnnl_exec_arg_t){DNNL_ARG_VARIANCE, m_bvar};
                if (m_bsc) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCALE, m_bsc};
                if (m_dsc) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SCALE, m_dsc};
                if (m_dsh) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SHIFT, m_dsh};
                dnnl_exec_arg_t more[2];
                int nm = 0;
                if (fused) more[nm++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, m_ws};
                if (m_ds1) more[nm++] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC_1, m_ds1};
                dnnl_exec_arg_t all[12];
                memcpy(all, args, sizeof(dnnl_exec_arg_t) * (size_t)na);
                memcpy(all + na, more, sizeof(dnnl_exec_arg_t) * (size_t)nm);
                execute(bpd, na + nm, all);
                n_run++;
                /* Reference: the ReLU mask from the forward's own output. */
                double *rdd = malloc(sizeof(double) * (size_t)total), *rds = malloc(sizeof(double) * (size_t)total);
                double db[64] = {0}, dg[64] = {0};
                for (int64_t i = 0; i < total; i++) {
                    int64_t c = i / SP % C;
                    rdd[i] = fused && !(y[i] > 0) ? 0.0 : dd[i];
                    double xh = (x[i] - fm[c]) / sqrt((double)fv[c] + eps);
                    db[c] += rdd[i];
                    dg[c] += rdd[i] * xh;
                }
                for (int64_t i = 0; i < total; i++) {
                    int64_t c = i / SP % C;
                    double g = (k->flags & F_SCALE) ? sc[c] : 1.0;
                    double inv = 1.0 / sqrt((double)fv[c] + eps);
                    double xh = (x[i] - fm[c]) * inv;
                    rds[i] = global ? g * rdd[i] * inv
                                    : g * inv * (rdd[i] - db[c] / (double)M - xh * dg[c] / (double)M);
                }
                read_vec(m_ds, ds);
                double brel = k->dt == dnnl_f32 ? 1e-4 : 3e-2;
                check_vals(what, "diff_src", k->dt, ds, rds, total, brel);
                if (m_ds1) {
                    read_vec(m_ds1, ds);
                    check_vals(what, "diff_src_1", k->dt, ds, rdd, total, 0);
                }
                if (k->bwd == dnnl_backward) {
                    float got[64];
                    if (m_dsc && (k->flags & F_SCALE)) {
                        read_vec(m_dsc, got);
                        check_vals(what, "diff_scale", dnnl_f32, got, dg, C, k->dt == dnnl_f32 ? 1e-4 : 2e-2);
                    }
                    if (m_dsh && (k->flags & F_SHIFT)) {
                        read_vec(m_dsh, got);
                        check_vals(what, "diff_shift", dnnl_f32, got, db, C, k->dt == dnnl_f32 ? 1e-4 : 2e-2);
                    }
                    expect_md(what, bpd, DNNL_ARG_DIFF_SCALE, (k->flags & (F_SCALE | F_SHIFT)) != 0);
                    expect_md(what, bpd, DNNL_ARG_DIFF_SHIFT, (k->flags & (F_SCALE | F_SHIFT)) != 0);
                }
                dnnl_memory_t ms[] = {m_dd, m_ds, m_bmean, m_bvar, m_bsc, m_dsc, m_dsh, m_ds1, m_bsrc};
                for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
                    if (ms[i]) CHECK(dnnl_memory_destroy(ms[i]));
                free(dd);
                free(ds);
                free(rdd);
                free(rds);
                CHECK(dnnl_primitive_desc_destroy(bpd));
            }
            CHECK(dnnl_memory_desc_destroy(dd_md));
        }
        dnnl_memory_t ms[] = {m_mean, m_var, m_sc, m_sh, m_ws, m_s1};
        for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
            if (ms[i]) CHECK(dnnl_memory_destroy(ms[i]));
        if (!k->in_place) CHECK(dnnl_memory_destroy(m_dst));
        CHECK(dnnl_memory_destroy(m_src));
        free(x);
        free(x1);
        free(y);
        free(ry);
    }
    CHECK(dnnl_primitive_desc_destroy(fpd));
out:
    if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_memory_desc_destroy(src_md));
    CHECK(dnnl_memory_desc_destroy(dst_md));
}

int main(int argc, char **argv) {
    sweep_open(argc, argv, 7);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (!on_gpu || cases[i].gpu) run_case(&cases[i]);
    return sweep_close("bnorm_sweep");
}
