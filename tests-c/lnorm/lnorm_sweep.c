/* Layer normalization (dnnl_layer_normalization_*, and the _v2 forms) through the
 * official API, compared with a reference computed here in double from the definitions
 * (doc/primitives/layer_normalization.md):
 *   - forward training (mean and variance written through the statistics descriptor)
 *     and inference, with and without use_global_stats, use_scale, use_shift and
 *     rms_norm (no mean; the mean square for the variance);
 *   - backward (diff_src, diff_scale, diff_shift) and backward_data;
 *   - 2-D to 4-D tensors, odd sizes, plain layouts (tnc, ntc, ...) and statistics
 *     layouts (row-major, transposed, NULL and `any`), `any` destinations, in place;
 *   - f32, bf16, f16 and int8 (s8 / u8 source or destination, with src / dst scales);
 *     scale and shift of f32, bf16, f16 (_v2); eltwise and binary post-ops;
 *   - the queries: epsilon, flags, the argument descriptors, inputs and outputs.
 *
 * A case Intel's library (the @ref run) answers dnnl_unimplemented for is printed as
 * `note: <case>: unimplemented by this library` and counted; on ours every case runs.
 *
 * Usage: lnorm_sweep [cpu|gpu]. Without an argument under ONEDNN_GPU_RUNTIME=ze it runs
 * on the Level Zero engine. On a GPU engine without a device: skip (77). */
#include "norm_sweep.h"

enum { F_GLOBAL = 1, F_SCALE = 2, F_SHIFT = 4, F_RMS = 32 };
enum { ST_PLAIN, ST_TRANS, ST_NULL, ST_ANY };

typedef struct {
    const char *name;
    int ndims;
    dnnl_dim_t dims[4];
    dnnl_format_tag_t tag;
    dnnl_data_type_t src_dt, dst_dt, ss_dt;
    dnnl_prop_kind_t prop;
    unsigned flags;
    int stat;      /* statistics descriptor: ST_* */
    int scales;    /* src and dst scales */
    int post;      /* tanh, then a binary add per channel */
    int dst_any, in_place;
    dnnl_prop_kind_t bwd;
    dnnl_data_type_t diff_dt; /* of diff_src and diff_dst */
    int gpu;
} case_t;

#define F32 dnnl_f32
static const case_t cases[] = {
        {"tnc f32 training", 3, {2, 3, 17}, dnnl_tnc, F32, F32, F32, dnnl_forward_training, 0, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, F32, 1},
        {"tnc f32 training scale shift", 3, {3, 2, 40}, dnnl_tnc, F32, F32, F32, dnnl_forward_training, F_SCALE | F_SHIFT, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, F32, 1},
        {"nc f32 training scale, stats NULL", 2, {5, 9}, dnnl_nc, F32, F32, F32, dnnl_forward_training, F_SCALE, ST_NULL, 0, 0, 0, 0, dnnl_backward, F32, 0},
        {"ntc f32 training shift, stats transposed", 3, {4, 3, 8}, dnnl_ntc, F32, F32, F32, dnnl_forward_training, F_SHIFT, ST_TRANS, 0, 0, 0, 0, dnnl_backward, F32, 1},
        {"tnc f32 global scale shift", 3, {2, 3, 16}, dnnl_tnc, F32, F32, F32, dnnl_forward_inference, F_GLOBAL | F_SCALE | F_SHIFT, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, F32, 1},
        {"tnc f32 inference", 3, {3, 5, 33}, dnnl_tnc, F32, F32, F32, dnnl_forward_inference, 0, ST_NULL, 0, 0, 0, 0, 0, F32, 0},
        {"abcd f32 training, stats any", 4, {2, 2, 3, 10}, dnnl_abcd, F32, F32, F32, dnnl_forward_training, F_SCALE | F_SHIFT, ST_ANY, 0, 0, 0, 0, dnnl_backward, F32, 0},
        {"tnc f32 backward_data", 3, {2, 3, 12}, dnnl_tnc, F32, F32, F32, dnnl_forward_training, 0, ST_PLAIN, 0, 0, 0, 0, dnnl_backward_data, F32, 0},
        {"tnc f32 global backward_data", 3, {2, 3, 12}, dnnl_tnc, F32, F32, F32, dnnl_forward_training, F_GLOBAL, ST_PLAIN, 0, 0, 0, 0, dnnl_backward_data, F32, 0},
        {"tnc f32 rms", 3, {2, 3, 20}, dnnl_tnc, F32, F32, F32, dnnl_forward_training, F_RMS | F_SCALE, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, F32, 1},
        {"nc f32 rms global", 2, {4, 24}, dnnl_nc, F32, F32, F32, dnnl_forward_inference, F_RMS | F_GLOBAL | F_SHIFT, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, F32, 0},
        {"tnc f32 dst any", 3, {2, 3, 7}, dnnl_tnc, F32, F32, F32, dnnl_forward_training, F_SHIFT, ST_PLAIN, 0, 0, 1, 0, dnnl_backward, F32, 0},
        {"tnc f32 in place", 3, {2, 4, 9}, dnnl_tnc, F32, F32, F32, dnnl_forward_inference, F_SCALE, ST_NULL, 0, 0, 0, 1, 0, F32, 1},
        {"tnc f32 post-ops", 3, {2, 3, 16}, dnnl_tnc, F32, F32, F32, dnnl_forward_inference, F_SCALE | F_SHIFT, ST_NULL, 0, 1, 0, 0, 0, F32, 1},
        {"tnc bf16 training, bf16 scale shift", 3, {2, 3, 32}, dnnl_tnc, dnnl_bf16, dnnl_bf16, dnnl_bf16, dnnl_forward_training, F_SCALE | F_SHIFT, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, dnnl_bf16, 1},
        {"tnc f16 training, f16 scale", 3, {2, 3, 32}, dnnl_tnc, dnnl_f16, dnnl_f16, dnnl_f16, dnnl_forward_training, F_SCALE, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, dnnl_f16, 0},
        {"tnc f32 to s8, scales", 3, {2, 3, 24}, dnnl_tnc, F32, dnnl_s8, F32, dnnl_forward_inference, F_SCALE | F_SHIFT, ST_NULL, 1, 0, 0, 0, 0, F32, 1},
        {"tnc u8 to f32, scales", 3, {2, 3, 24}, dnnl_tnc, dnnl_u8, F32, F32, dnnl_forward_inference, F_SCALE, ST_NULL, 1, 0, 0, 0, 0, F32, 0},
        {"tnc s8 training", 3, {2, 3, 24}, dnnl_tnc, dnnl_s8, dnnl_s8, F32, dnnl_forward_training, 0, ST_PLAIN, 0, 0, 0, 0, 0, F32, 0},
        {"tnc f32 to s8, scales and post-ops", 3, {2, 3, 24}, dnnl_tnc, F32, dnnl_s8, F32, dnnl_forward_inference, F_SHIFT, ST_NULL, 1, 1, 0, 0, 0, F32, 0},
        /* Long rows: a work-group per row, many of them. */
        {"nc f32 long rows", 2, {300, 1000}, dnnl_nc, F32, F32, F32, dnnl_forward_training, F_SCALE | F_SHIFT, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, F32, 1},
        {"nc f32 few long rows", 2, {3, 5000}, dnnl_nc, F32, F32, F32, dnnl_forward_training, F_SCALE, ST_PLAIN, 0, 0, 0, 0, dnnl_backward, F32, 1},
};

/* The statistics descriptor a case gives (NULL for ST_NULL). */
static dnnl_memory_desc_t stat_md(const case_t *k) {
    static const dnnl_format_tag_t plain[] = {dnnl_a, dnnl_ab, dnnl_abc};
    int nd = k->ndims - 1;
    if (k->stat == ST_NULL) return NULL;
    dnnl_format_tag_t tag = k->stat == ST_ANY ? dnnl_format_tag_any
                          : k->stat == ST_TRANS ? (nd == 2 ? dnnl_ba : dnnl_acb)
                                                : plain[nd - 1];
    return md_tag(nd, k->dims, F32, tag);
}

#define MAXC 5000
#define MAXR 300

static void run_case(const case_t *k) {
    const char *what = k->name;
    int nd = k->ndims;
    int64_t C = k->dims[nd - 1], R = 1;
    for (int d = 0; d < nd - 1; d++)
        R *= k->dims[d];
    int64_t total = R * C;
    int training = k->prop == dnnl_forward_training;
    int global = (k->flags & F_GLOBAL) != 0, rms = (k->flags & F_RMS) != 0;
    float eps = 1e-3f;
    EXPECT(C <= MAXC && R <= MAXR);

    dnnl_memory_desc_t src_md = md_tag(nd, k->dims, k->src_dt, k->tag);
    dnnl_memory_desc_t dst_md = md_tag(nd, k->dims, k->dst_dt, k->dst_any ? dnnl_format_tag_any : k->tag);
    dnnl_memory_desc_t smd = stat_md(k);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_memory_desc_t bin_md = NULL;
    if (k->scales || k->post) CHECK(dnnl_primitive_attr_create(&attr));
    if (k->scales) {
        CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    }
    if (k->post) {
        dnnl_post_ops_t po = NULL;
        dnnl_dims_t bd = {1, 1, 1, 1};
        bd[nd - 1] = C;
        bin_md = md_tag(nd, bd, F32, nd == 2 ? dnnl_ab : nd == 3 ? dnnl_abc : dnnl_abcd);
        CHECK(dnnl_post_ops_create(&po));
        CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_tanh, 0.f, 0.f));
        CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bin_md));
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
    }
    dnnl_primitive_desc_t fpd = NULL;
    dnnl_status_t st = k->ss_dt == F32
            ? dnnl_layer_normalization_forward_primitive_desc_create(&fpd, engine, k->prop, src_md,
                      dst_md, smd, eps, k->flags, attr)
            : dnnl_layer_normalization_forward_primitive_desc_create_v2(&fpd, engine, k->prop,
                      src_md, dst_md, smd, k->ss_dt, eps, k->flags, attr);
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
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_epsilon_f32, 0, &e));
        CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_flags, 0, &fl));
        if (e != eps || fl != k->flags) fail(what, "queries: eps %g flags %#x", e, fl);
        expect_md(what, fpd, DNNL_ARG_VARIANCE, training || global);
        expect_md(what, fpd, DNNL_ARG_SCALE, (k->flags & (F_SCALE | F_SHIFT)) != 0);
        int nin = dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_inputs_s32, 0);
        int nout = dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_outputs_s32, 0);
        int nstats = rms ? 1 : 2;
        int want_in = 1 + (global ? nstats : 0) + !!(k->flags & F_SCALE) + !!(k->flags & F_SHIFT) + (k->post ? 1 : 0);
        int want_out = 1 + (training && !global ? nstats : 0);
        if (nin != want_in || nout != want_out) fail(what, "%d inputs, %d outputs; want %d, %d", nin, nout, want_in, want_out);
    }
    {
        static float x[MAXR * MAXC], y[MAXR * MAXC], bin[MAXC];
        static double ry[MAXR * MAXC];
        static float sc[MAXC], sh[MAXC];
        float mean[MAXR], var[MAXR];
        int src_int = k->src_dt == dnnl_s8 || k->src_dt == dnnl_u8;
        int dst_int = k->dst_dt == dnnl_s8 || k->dst_dt == dnnl_u8;
        for (int64_t i = 0; i < total; i++) {
            double v = src_int ? floor((rng_uniform() + (k->src_dt == dnnl_u8)) * 60)
                               : 2.0 * rng_uniform() + 0.1 * (double)(i / C);
            x[i] = rounded(k->src_dt, (float)v);
        }
        for (int64_t c = 0; c < C; c++) {
            sc[c] = rounded(k->ss_dt, (float)(1.0 + 0.5 * rng_uniform()));
            sh[c] = rounded(k->ss_dt, (float)(0.5 * rng_uniform()));
            bin[c] = (float)(0.25 * rng_uniform());
        }
        for (int64_t r = 0; r < R; r++) {
            mean[r] = (float)(src_int ? 20 * rng_uniform() : 0.1 * (double)r + 0.2 * rng_uniform());
            var[r] = (float)(src_int ? 400 + 100 * rng_uniform() : 1.2 + 0.5 * rng_uniform());
        }
        float src_scale = 0.5f, dst_scale = dst_int ? 0.02f : 2.0f;
        dnnl_memory_t m_src = memory(src_md);
        const_dnnl_memory_desc_t qdst = dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0);
        dnnl_memory_t m_dst = k->in_place ? m_src : memory(qdst);
        dnnl_memory_t m_mean = mem_of(fpd, DNNL_ARG_MEAN), m_var = mem_of(fpd, DNNL_ARG_VARIANCE);
        dnnl_memory_t m_sc = mem_of(fpd, DNNL_ARG_SCALE), m_sh = mem_of(fpd, DNNL_ARG_SHIFT);
        dnnl_memory_t m_bin = bin_md ? memory(bin_md) : NULL, m_ssc = NULL, m_dsc = NULL;
        fill(m_src, x);
        if (m_sc) fill(m_sc, sc);
        if (m_sh) fill(m_sh, sh);
        if (m_bin) fill(m_bin, bin);
        if (global) {
            fill(m_var, var);
            if (!rms) fill(m_mean, mean);
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

        double rm[MAXR], rv[MAXR];
        for (int64_t r = 0; r < R; r++) {
            if (global) {
                rm[r] = rms ? 0 : mean[r];
                rv[r] = var[r];
                continue;
            }
            double s = 0, q = 0;
            for (int64_t c = 0; c < C && !rms; c++)
                s += x[r * C + c];
            rm[r] = s / (double)C;
            for (int64_t c = 0; c < C; c++)
                q += (x[r * C + c] - rm[r]) * (x[r * C + c] - rm[r]);
            rv[r] = q / (double)C;
        }
        for (int64_t i = 0; i < total; i++) {
            int64_t r = i / C, c = i % C;
            double v = (x[i] - rm[r]) / sqrt(rv[r] + eps);
            if (k->flags & F_SCALE) v *= sc[c];
            if (k->flags & F_SHIFT) v += sh[c];
            if (k->scales) v *= src_scale;
            if (k->post) v = tanh(v) + bin[c];
            if (k->scales) v /= dst_scale;
            ry[i] = v;
        }
        read_vec(m_dst, y);
        double rel = k->src_dt == F32 && k->dst_dt == F32 ? 3e-5 : 2e-2;
        if (dst_int) {
            for (int64_t i = 0; i < total; i++)
                if (fabs(y[i] - saturate(k->dst_dt, ry[i])) > 1) {
                    fail(what, "dst[%lld] = %g, want %g", (long long)i, y[i], ry[i]);
                    break;
                }
        } else {
            check_vals(what, "dst", k->dst_dt, y, ry, total, rel);
        }
        if (training && !global) {
            float gm[MAXR], gv[MAXR];
            read_vec(m_var, gv);
            check_vals(what, "variance", F32, gv, rv, R, k->src_dt == F32 ? 1e-5 : 1e-3);
            if (!rms) {
                read_vec(m_mean, gm);
                check_vals(what, "mean", F32, gm, rm, R, k->src_dt == F32 ? 1e-5 : 1e-3);
            }
        }

        if (k->bwd) {
            dnnl_memory_desc_t dd_md = md_tag(nd, k->dims, k->diff_dt, k->dst_any ? dnnl_format_tag_any : k->tag);
            dnnl_memory_desc_t bsrc_md = md_tag(nd, k->dims, k->src_dt, k->tag);
            dnnl_primitive_desc_t bpd = NULL;
            st = k->ss_dt == F32
                    ? dnnl_layer_normalization_backward_primitive_desc_create(&bpd, engine, k->bwd,
                              dd_md, dd_md, bsrc_md, smd, eps, k->flags, fpd, NULL)
                    : dnnl_layer_normalization_backward_primitive_desc_create_v2(&bpd, engine,
                              k->bwd, dd_md, dd_md, bsrc_md, smd, k->ss_dt, k->ss_dt, eps, k->flags,
                              fpd, NULL);
            if (st == dnnl_unimplemented && !library_is_ours()) {
                printf("note: %s backward: unimplemented by this library\n", what);
                n_noted++;
            } else if (st != dnnl_success) {
                fail(what, "backward creation: %s", dnnl_status2str(st));
            } else {
                float fm[MAXR], fv[MAXR];
                for (int64_t r = 0; r < R; r++) {
                    fm[r] = (float)rm[r];
                    fv[r] = (float)rv[r];
                }
                if (!global) {
                    read_vec(m_var, fv);
                    if (!rms) read_vec(m_mean, fm);
                }
                static float dd[MAXR * MAXC], ds[MAXR * MAXC];
                static double rds[MAXR * MAXC];
                double dg[MAXC], db[MAXC];
                for (int64_t i = 0; i < total; i++)
                    dd[i] = rounded(k->diff_dt, (float)rng_uniform());
                dnnl_memory_t m_dd = memory(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0));
                dnnl_memory_t m_ds = memory(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0));
                dnnl_memory_t m_bmean = mem_of(bpd, DNNL_ARG_MEAN), m_bvar = mem_of(bpd, DNNL_ARG_VARIANCE);
                dnnl_memory_t m_bsc = mem_of(bpd, DNNL_ARG_SCALE);
                dnnl_memory_t m_dscale = mem_of(bpd, DNNL_ARG_DIFF_SCALE), m_dshift = mem_of(bpd, DNNL_ARG_DIFF_SHIFT);
                dnnl_memory_t m_bsrc = memory(bsrc_md);
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
                for (int64_t c = 0; c < C; c++)
                    dg[c] = db[c] = 0;
                for (int64_t r = 0; r < R; r++) {
                    double inv = 1.0 / sqrt((double)fv[r] + eps), m = rms ? 0 : fm[r], a = 0, b = 0;
                    for (int64_t c = 0; c < C; c++) {
                        int64_t i = r * C + c;
                        double g = (k->flags & F_SCALE) ? sc[c] : 1.0, xh = (x[i] - m) * inv;
                        db[c] += dd[i];
                        dg[c] += dd[i] * xh;
                        a += g * dd[i];
                        b += g * dd[i] * xh;
                    }
                    /* RMS keeps the mean of scale * diff_dst term, as Intel's library
                     * computes it (the @ref run proves it), though the exact gradient of
                     * x / rms(x) has none. */
                    for (int64_t c = 0; c < C; c++) {
                        int64_t i = r * C + c;
                        double g = (k->flags & F_SCALE) ? sc[c] : 1.0, xh = (x[i] - m) * inv;
                        rds[i] = global ? g * dd[i] * inv : (g * dd[i] - a / (double)C - xh * b / (double)C) * inv;
                    }
                }
                read_vec(m_ds, ds);
                double brel = k->diff_dt == F32 && k->src_dt == F32 ? 1e-4 : 3e-2;
                check_vals(what, "diff_src", k->diff_dt, ds, rds, total, brel);
                if (k->bwd == dnnl_backward) {
                    static float got[MAXC];
                    if (m_dscale && (k->flags & F_SCALE)) {
                        read_vec(m_dscale, got);
                        check_vals(what, "diff_scale", k->ss_dt, got, dg, C, brel * 10);
                    }
                    if (m_dshift && (k->flags & F_SHIFT)) {
                        read_vec(m_dshift, got);
                        check_vals(what, "diff_shift", k->ss_dt, got, db, C, brel * 10);
                    }
                }
                dnnl_memory_t ms[] = {m_dd, m_ds, m_bmean, m_bvar, m_bsc, m_dscale, m_dshift, m_bsrc};
                for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
                    if (ms[i]) CHECK(dnnl_memory_destroy(ms[i]));
                CHECK(dnnl_primitive_desc_destroy(bpd));
            }
            CHECK(dnnl_memory_desc_destroy(dd_md));
            CHECK(dnnl_memory_desc_destroy(bsrc_md));
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
    if (smd) CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(src_md));
    CHECK(dnnl_memory_desc_destroy(dst_md));
}

int main(int argc, char **argv) {
    sweep_open(argc, argv, 11);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (!on_gpu || cases[i].gpu) run_case(&cases[i]);
    return sweep_close("lnorm_sweep");
}
