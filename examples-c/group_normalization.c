/* Group normalization, as a oneDNN user writes it from the primitive's documentation
 * (doc/primitives/group_normalization.md): a training forward pass over an NCHW tensor
 * whose 32 channels form 8 groups, with scale and shift, its mean and variance (N x G)
 * written, then the backward pass (diff_src, diff_scale, diff_shift). The program checks
 * both against a reference computed here in double and prints how many values it
 * checked.
 *
 * Usage: group_normalization [cpu|gpu] (default cpu). On a GPU engine without a device:
 * SKIP and exit 77; on a wrong result: exit 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

#define CHECK(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, dnnl_status2str(s_)); \
            exit(1); \
        } \
    } while (0)

#define N 3
#define C 32
#define H 13
#define W 13
#define SP (H * W)
#define TOTAL (N * C * SP)
#define G 8
#define CG (C / G)

static dnnl_engine_t engine;
static dnnl_stream_t stream;

/* Memory described by what `pd` expects for `arg`. */
static dnnl_memory_t arg_memory(const_dnnl_primitive_desc_t pd, int arg) {
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg),
            engine, DNNL_MEMORY_ALLOCATE));
    return m;
}

static void write_to(dnnl_memory_t m, const float *v, size_t n) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    memcpy(p, v, n * sizeof(float));
    CHECK(dnnl_memory_unmap_data(m, p));
}

static void read_from(dnnl_memory_t m, float *v, size_t n) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    memcpy(v, p, n * sizeof(float));
    CHECK(dnnl_memory_unmap_data(m, p));
}

static int close_to(double got, double want) { return fabs(got - want) <= 1e-4 * (1 + fabs(want)); }

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: no GPU engine\n");
        return 77;
    }
    CHECK(dnnl_engine_create(&engine, gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    static float src[TOTAL], dst[TOTAL], diff_dst[TOTAL], diff_src[TOTAL];
    float scale[C], shift[C], mean[N * G], var[N * G], diff_scale[C], diff_shift[C];
    for (int i = 0; i < TOTAL; i++) {
        src[i] = cosf((float)i / 10.f) * 3.f + (float)(i / SP % C) * 0.1f;
        diff_dst[i] = sinf((float)i * 0.7f);
    }
    for (int c = 0; c < C; c++) {
        scale[c] = 1.f + 0.1f * sinf((float)c);
        shift[c] = 0.1f * cosf((float)c);
    }

    /* Forward training: dst = scale * (src - mean) / sqrt(var + eps) + shift, mean and
     * variance per (n, group). */
    const float eps = 1e-5f;
    const unsigned flags = dnnl_use_scale | dnnl_use_shift;
    dnnl_memory_desc_t src_md;
    CHECK(dnnl_memory_desc_create_with_tag(&src_md, 4, (dnnl_dims_t){N, C, H, W}, dnnl_f32, dnnl_nchw));
    dnnl_primitive_desc_t fwd_pd = NULL;
    CHECK(dnnl_group_normalization_forward_primitive_desc_create(&fwd_pd, engine, dnnl_forward_training,
            src_md, src_md, G, eps, flags, NULL));
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(fwd_pd, dnnl_query_impl_info_str, 0, &impl));
    printf("group normalization %dx%dx%dx%d, %d groups, on %s (%s)\n", N, C, H, W, G, gpu ? "gpu" : "cpu", impl);

    dnnl_memory_t src_m = arg_memory(fwd_pd, DNNL_ARG_SRC), dst_m = arg_memory(fwd_pd, DNNL_ARG_DST);
    dnnl_memory_t scale_m = arg_memory(fwd_pd, DNNL_ARG_SCALE), shift_m = arg_memory(fwd_pd, DNNL_ARG_SHIFT);
    dnnl_memory_t mean_m = arg_memory(fwd_pd, DNNL_ARG_MEAN), var_m = arg_memory(fwd_pd, DNNL_ARG_VARIANCE);
    write_to(src_m, src, TOTAL);
    write_to(scale_m, scale, C);
    write_to(shift_m, shift, C);
    dnnl_primitive_t fwd = NULL;
    CHECK(dnnl_primitive_create(&fwd, fwd_pd));
    dnnl_exec_arg_t fwd_args[] = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_DST, dst_m},
            {DNNL_ARG_SCALE, scale_m}, {DNNL_ARG_SHIFT, shift_m}, {DNNL_ARG_MEAN, mean_m},
            {DNNL_ARG_VARIANCE, var_m}};
    CHECK(dnnl_primitive_execute(fwd, stream, 6, fwd_args));
    CHECK(dnnl_stream_wait(stream));

    /* Backward with the forward's statistics. */
    dnnl_primitive_desc_t bwd_pd = NULL;
    CHECK(dnnl_group_normalization_backward_primitive_desc_create(&bwd_pd, engine, dnnl_backward,
            src_md, src_md, src_md, G, eps, flags, fwd_pd, NULL));
    dnnl_memory_t dd_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_DST), ds_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_SRC);
    dnnl_memory_t dsc_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_SCALE), dsh_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_SHIFT);
    write_to(dd_m, diff_dst, TOTAL);
    dnnl_primitive_t bwd = NULL;
    CHECK(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t bwd_args[] = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_DIFF_DST, dd_m},
            {DNNL_ARG_SCALE, scale_m}, {DNNL_ARG_MEAN, mean_m}, {DNNL_ARG_VARIANCE, var_m},
            {DNNL_ARG_DIFF_SRC, ds_m}, {DNNL_ARG_DIFF_SCALE, dsc_m}, {DNNL_ARG_DIFF_SHIFT, dsh_m}};
    CHECK(dnnl_primitive_execute(bwd, stream, 8, bwd_args));
    CHECK(dnnl_stream_wait(stream));

    read_from(dst_m, dst, TOTAL);
    read_from(mean_m, mean, N * G);
    read_from(var_m, var, N * G);
    read_from(ds_m, diff_src, TOTAL);
    read_from(dsc_m, diff_scale, C);
    read_from(dsh_m, diff_shift, C);

    /* The reference, in double. */
    int bad = 0, checked = 0;
    const double M = CG * SP;
    double dg[C] = {0}, db[C] = {0};
    for (int n = 0; n < N; n++)
        for (int g = 0; g < G; g++) {
            double m = 0, v = 0, a = 0, b = 0;
            for (int c = g * CG; c < (g + 1) * CG; c++)
                for (int p = 0; p < SP; p++)
                    m += src[(n * C + c) * SP + p];
            m /= M;
            for (int c = g * CG; c < (g + 1) * CG; c++)
                for (int p = 0; p < SP; p++) {
                    double d = src[(n * C + c) * SP + p] - m;
                    v += d * d;
                }
            v /= M;
            bad += !close_to(mean[n * G + g], m) + !close_to(var[n * G + g], v);
            double inv = 1 / sqrt(v + eps);
            for (int c = g * CG; c < (g + 1) * CG; c++)
                for (int p = 0; p < SP; p++) {
                    int i = (n * C + c) * SP + p;
                    double xh = (src[i] - m) * inv;
                    bad += !close_to(dst[i], scale[c] * xh + shift[c]);
                    db[c] += diff_dst[i];
                    dg[c] += diff_dst[i] * xh;
                    a += scale[c] * diff_dst[i];
                    b += scale[c] * diff_dst[i] * xh;
                }
            for (int c = g * CG; c < (g + 1) * CG; c++)
                for (int p = 0; p < SP; p++) {
                    int i = (n * C + c) * SP + p;
                    double xh = (src[i] - m) * inv;
                    double want = (scale[c] * diff_dst[i] - a / M - xh * b / M) * inv;
                    bad += !close_to(diff_src[i], want);
                }
            checked += 2 + 2 * CG * SP;
        }
    for (int c = 0; c < C; c++)
        bad += !close_to(diff_scale[c], dg[c]) + !close_to(diff_shift[c], db[c]);
    checked += 2 * C;
    printf("%d results checked: %s\n", checked, bad ? "WRONG" : "ok");

    dnnl_memory_t ms[] = {src_m, dst_m, scale_m, shift_m, mean_m, var_m, dd_m, ds_m, dsc_m, dsh_m};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        CHECK(dnnl_memory_destroy(ms[i]));
    CHECK(dnnl_primitive_destroy(fwd));
    CHECK(dnnl_primitive_destroy(bwd));
    CHECK(dnnl_primitive_desc_destroy(fwd_pd));
    CHECK(dnnl_primitive_desc_destroy(bwd_pd));
    CHECK(dnnl_memory_desc_destroy(src_md));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    return bad ? 1 : 0;
}
