/* LRN, in C: AlexNet's local response normalization across 5 channels (alpha 1e-4,
 * beta 0.75, k 1) on an NCHW activation, forward for training, then backward (the
 * gradient with respect to the source), on the engine named by the argument (cpu, the
 * default, or gpu). A workspace is passed when the library asks for one (query
 * workspace_md). The example checks every result against the documentation's formula.
 * On a gpu run without an OpenCL device it says so and exits 77 (skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

#define DNNL(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)s_); \
            exit(1); \
        } \
    } while (0)

enum { N = 2, C = 12, H = 5, W = 6, SIZE = N * C * H * W, LS = 5 };
static const float ALPHA = 1e-4f, BETA = 0.75f, K = 1.f;

static dnnl_memory_t make(dnnl_engine_t e, const_dnnl_memory_desc_t md, const float *v) {
    dnnl_memory_t m = NULL;
    DNNL(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    if (v) {
        void *p = NULL;
        DNNL(dnnl_memory_map_data(m, &p));
        memcpy(p, v, SIZE * sizeof(float));
        DNNL(dnnl_memory_unmap_data(m, p));
    }
    return m;
}

static void get(dnnl_memory_t m, float *v) {
    void *p = NULL;
    DNNL(dnnl_memory_map_data(m, &p));
    memcpy(v, p, SIZE * sizeof(float));
    DNNL(dnnl_memory_unmap_data(m, p));
}

static float x[SIZE], g[SIZE], y[SIZE], dx[SIZE];

/* k + alpha / LS * the sum of squares over the channels c - 2 .. c + 2 (clipped). */
static double omega(int n, int c, int s) {
    double sum = 0;
    for (int i = c - LS / 2; i <= c + LS / 2; i++)
        if (i >= 0 && i < C) sum += (double)x[(n * C + i) * H * W + s] * x[(n * C + i) * H * W + s];
    return K + ALPHA / LS * sum;
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: No OpenCL device is visible\n");
        return 77;
    }
    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    for (int i = 0; i < SIZE; i++) {
        x[i] = (float)((i * 31) % 17 - 8) * 4.f;
        g[i] = (float)((i * 7) % 5 - 2) / 2.f;
    }

    dnnl_dims_t dims = {N, C, H, W};
    dnnl_memory_desc_t data_md = NULL;
    DNNL(dnnl_memory_desc_create_with_tag(&data_md, 4, dims, dnnl_f32, dnnl_nchw));
    dnnl_primitive_desc_t fwd_pd = NULL, bwd_pd = NULL;
    DNNL(dnnl_lrn_forward_primitive_desc_create(&fwd_pd, engine, dnnl_forward_training,
            dnnl_lrn_across_channels, data_md, data_md, LS, ALPHA, BETA, K, NULL));
    DNNL(dnnl_lrn_backward_primitive_desc_create(&bwd_pd, engine, dnnl_lrn_across_channels,
            data_md, data_md, data_md, LS, ALPHA, BETA, K, fwd_pd, NULL));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(fwd_pd, dnnl_query_impl_info_str, 0, &impl));
    const_dnnl_memory_desc_t ws_md = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_workspace_md, 0);
    int has_ws = dnnl_memory_desc_get_size(ws_md) > 0;
    printf("lrn across %d channels on %dx%dx%dx%d (%s, %s)\n", LS, N, C, H, W, impl,
            has_ws ? "with a workspace" : "no workspace");

    dnnl_memory_t src = make(engine, data_md, x), dst = make(engine, data_md, NULL);
    dnnl_memory_t diff_dst = make(engine, data_md, g), diff_src = make(engine, data_md, NULL);
    dnnl_memory_t ws = NULL;
    if (has_ws) DNNL(dnnl_memory_create(&ws, ws_md, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_t fwd = NULL, bwd = NULL;
    DNNL(dnnl_primitive_create(&fwd, fwd_pd));
    DNNL(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}};
    DNNL(dnnl_primitive_execute(fwd, stream, has_ws ? 3 : 2, fargs));
    dnnl_exec_arg_t bargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, diff_dst},
            {DNNL_ARG_DIFF_SRC, diff_src}, {DNNL_ARG_WORKSPACE, ws}};
    DNNL(dnnl_primitive_execute(bwd, stream, has_ws ? 4 : 3, bargs));
    DNNL(dnnl_stream_wait(stream));
    get(dst, y);
    get(diff_src, dx);

    /* dst = src * omega^-beta; diff_src = diff_dst * omega^-beta - 2 alpha beta / LS * src
     * * the sum over the channels whose window holds c of diff_dst * dst / omega. */
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < H * W; s++) {
                int i = (n * C + c) * H * W + s;
                double om = omega(n, c, s), want_y = x[i] * pow(om, -BETA), sum = 0;
                for (int j = c - LS / 2; j <= c + LS / 2; j++) {
                    if (j < 0 || j >= C) continue;
                    int q = (n * C + j) * H * W + s;
                    double oq = omega(n, j, s);
                    sum += g[q] * x[q] * pow(oq, -BETA - 1);
                }
                double want_dx = g[i] * pow(om, -BETA) - 2 * ALPHA * BETA / LS * x[i] * sum;
                if (fabs(y[i] - want_y) > 1e-5 * (fabs(want_y) + 1)) bad++;
                if (fabs(dx[i] - want_dx) > 1e-5 * (fabs(want_dx) + 1)) bad++;
            }
    printf("%d results checked: %s\n", 2 * SIZE, bad ? "WRONG" : "ok");

    DNNL(dnnl_primitive_destroy(fwd));
    DNNL(dnnl_primitive_destroy(bwd));
    DNNL(dnnl_primitive_desc_destroy(fwd_pd));
    DNNL(dnnl_primitive_desc_destroy(bwd_pd));
    dnnl_memory_t ms[] = {src, dst, diff_dst, diff_src};
    for (int i = 0; i < 4; i++)
        DNNL(dnnl_memory_destroy(ms[i]));
    if (ws) DNNL(dnnl_memory_destroy(ws));
    DNNL(dnnl_memory_desc_destroy(data_md));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    return bad ? 1 : 0;
}
