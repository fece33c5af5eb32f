/* Batch normalization, as a oneDNN user writes it from the primitive's documentation
 * (doc/primitives/batch_normalization.md): a training forward pass over an NCHW tensor
 * with scale and shift and the fused ReLU, whose mean, variance and workspace feed the
 * backward pass (diff_src, diff_scale, diff_shift). The program checks both against a
 * reference computed here in double and prints how many values it checked.
 *
 * Usage: batch_normalization [cpu|gpu] (default cpu). On a GPU engine without a device:
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
    float scale[C], shift[C], mean[C], var[C], diff_scale[C], diff_shift[C];
    for (int i = 0; i < TOTAL; i++) {
        src[i] = cosf((float)i / 10.f) * 3.f + (float)(i / SP % C) * 0.1f;
        diff_dst[i] = sinf((float)i * 0.7f);
    }
    for (int c = 0; c < C; c++) {
        scale[c] = 1.f + 0.1f * sinf((float)c);
        shift[c] = 0.1f * cosf((float)c);
    }

    /* Forward training: dst = relu(scale * (src - mean) / sqrt(var + eps) + shift). */
    const float eps = 1e-5f;
    const unsigned flags = dnnl_use_scale | dnnl_use_shift | dnnl_fuse_norm_relu;
    dnnl_memory_desc_t src_md;
    CHECK(dnnl_memory_desc_create_with_tag(&src_md, 4, (dnnl_dims_t){N, C, H, W}, dnnl_f32, dnnl_nchw));
    dnnl_primitive_desc_t fwd_pd = NULL;
    CHECK(dnnl_batch_normalization_forward_primitive_desc_create(&fwd_pd, engine, dnnl_forward_training,
            src_md, src_md, eps, flags, NULL));
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(fwd_pd, dnnl_query_impl_info_str, 0, &impl));
    printf("batch normalization %dx%dx%dx%d on %s (%s)\n", N, C, H, W, gpu ? "gpu" : "cpu", impl);

    dnnl_memory_t src_m = arg_memory(fwd_pd, DNNL_ARG_SRC), dst_m = arg_memory(fwd_pd, DNNL_ARG_DST);
    dnnl_memory_t scale_m = arg_memory(fwd_pd, DNNL_ARG_SCALE), shift_m = arg_memory(fwd_pd, DNNL_ARG_SHIFT);
    dnnl_memory_t mean_m = arg_memory(fwd_pd, DNNL_ARG_MEAN), var_m = arg_memory(fwd_pd, DNNL_ARG_VARIANCE);
    dnnl_memory_t ws_m = arg_memory(fwd_pd, DNNL_ARG_WORKSPACE);
    write_to(src_m, src, TOTAL);
    write_to(scale_m, scale, C);
    write_to(shift_m, shift, C);
    dnnl_primitive_t fwd = NULL;
    CHECK(dnnl_primitive_create(&fwd, fwd_pd));
    dnnl_exec_arg_t fwd_args[] = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_DST, dst_m},
            {DNNL_ARG_SCALE, scale_m}, {DNNL_ARG_SHIFT, shift_m}, {DNNL_ARG_MEAN, mean_m},
            {DNNL_ARG_VARIANCE, var_m}, {DNNL_ARG_WORKSPACE, ws_m}};
    CHECK(dnnl_primitive_execute(fwd, stream, 7, fwd_args));
    CHECK(dnnl_stream_wait(stream));

    /* Backward: the forward descriptor is the hint; its workspace masks diff_dst. */
    dnnl_primitive_desc_t bwd_pd = NULL;
    CHECK(dnnl_batch_normalization_backward_primitive_desc_create(&bwd_pd, engine, dnnl_backward,
            src_md, src_md, src_md, eps, flags, fwd_pd, NULL));
    dnnl_memory_t dd_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_DST), ds_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_SRC);
    dnnl_memory_t dsc_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_SCALE), dsh_m = arg_memory(bwd_pd, DNNL_ARG_DIFF_SHIFT);
    write_to(dd_m, diff_dst, TOTAL);
    dnnl_primitive_t bwd = NULL;
    CHECK(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t bwd_args[] = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_DIFF_DST, dd_m},
            {DNNL_ARG_SCALE, scale_m}, {DNNL_ARG_MEAN, mean_m}, {DNNL_ARG_VARIANCE, var_m},
            {DNNL_ARG_WORKSPACE, ws_m}, {DNNL_ARG_DIFF_SRC, ds_m}, {DNNL_ARG_DIFF_SCALE, dsc_m},
            {DNNL_ARG_DIFF_SHIFT, dsh_m}};
    CHECK(dnnl_primitive_execute(bwd, stream, 9, bwd_args));
    CHECK(dnnl_stream_wait(stream));

    read_from(dst_m, dst, TOTAL);
    read_from(mean_m, mean, C);
    read_from(var_m, var, C);
    read_from(ds_m, diff_src, TOTAL);
    read_from(dsc_m, diff_scale, C);
    read_from(dsh_m, diff_shift, C);

    /* The reference, in double. */
    int bad = 0, checked = 0;
    const double M = N * SP;
    for (int c = 0; c < C; c++) {
        double m = 0, v = 0;
        for (int n = 0; n < N; n++)
            for (int p = 0; p < SP; p++)
                m += src[(n * C + c) * SP + p];
        m /= M;
        for (int n = 0; n < N; n++)
            for (int p = 0; p < SP; p++) {
                double d = src[(n * C + c) * SP + p] - m;
                v += d * d;
            }
        v /= M;
        bad += !close_to(mean[c], m) + !close_to(var[c], v);
        double inv = 1 / sqrt(v + eps), db = 0, dg = 0;
        for (int n = 0; n < N; n++)
            for (int p = 0; p < SP; p++) {
                int i = (n * C + c) * SP + p;
                double y = scale[c] * (src[i] - m) * inv + shift[c];
                y = y > 0 ? y : 0;
                bad += !close_to(dst[i], y);
                double g = y > 0 ? diff_dst[i] : 0;
                db += g;
                dg += g * (src[i] - m) * inv;
            }
        bad += !close_to(diff_scale[c], dg) + !close_to(diff_shift[c], db);
        for (int n = 0; n < N; n++)
            for (int p = 0; p < SP; p++) {
                int i = (n * C + c) * SP + p;
                double y = scale[c] * (src[i] - m) * inv + shift[c];
                double g = y > 0 ? diff_dst[i] : 0;
                double want = scale[c] * inv * (g - db / M - (src[i] - m) * inv * dg / M);
                bad += !close_to(diff_src[i], want);
            }
        checked += 4 + 2 * N * SP;
    }
    printf("%d results checked: %s\n", checked, bad ? "WRONG" : "ok");

    dnnl_memory_t ms[] = {src_m, dst_m, scale_m, shift_m, mean_m, var_m, ws_m, dd_m, ds_m, dsc_m, dsh_m};
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
