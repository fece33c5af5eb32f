/* PReLU, in C: forward with one slope per channel on an NCHW activation, then backward
 * (diff_src and the slopes' gradient, summed over N, H and W), on the engine named by
 * the argument (cpu, the default, or gpu). The weights' layout is `any`: the library
 * chooses it from the source. The example checks every result. On a gpu run without an
 * OpenCL device it says so and exits 77 (skipped). */
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

enum { N = 2, C = 16, H = 7, W = 9, SIZE = N * C * H * W };

static dnnl_memory_t make(dnnl_engine_t e, const_dnnl_memory_desc_t md, const float *v, size_t n) {
    dnnl_memory_t m = NULL;
    DNNL(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    if (v) {
        void *p = NULL;
        DNNL(dnnl_memory_map_data(m, &p));
        memcpy(p, v, n * sizeof(float));
        DNNL(dnnl_memory_unmap_data(m, p));
    }
    return m;
}

static void get(dnnl_memory_t m, float *v, size_t n) {
    void *p = NULL;
    DNNL(dnnl_memory_map_data(m, &p));
    memcpy(v, p, n * sizeof(float));
    DNNL(dnnl_memory_unmap_data(m, p));
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

    static float x[SIZE], g[SIZE], y[SIZE], dx[SIZE];
    float slope[C], dslope[C];
    for (int i = 0; i < SIZE; i++) {
        x[i] = (float)((i * 31) % 17 - 8) / 4.f;
        g[i] = (float)((i * 7) % 5 - 2) / 2.f;
    }
    for (int c = 0; c < C; c++)
        slope[c] = 0.05f * (float)(c + 1);

    dnnl_dims_t dims = {N, C, H, W}, wdims = {1, C, 1, 1};
    dnnl_memory_desc_t data_md = NULL, w_any = NULL;
    DNNL(dnnl_memory_desc_create_with_tag(&data_md, 4, dims, dnnl_f32, dnnl_nchw));
    DNNL(dnnl_memory_desc_create_with_tag(&w_any, 4, wdims, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t fwd_pd = NULL, bwd_pd = NULL;
    DNNL(dnnl_prelu_forward_primitive_desc_create(
            &fwd_pd, engine, dnnl_forward_training, data_md, w_any, data_md, NULL));
    DNNL(dnnl_prelu_backward_primitive_desc_create(
            &bwd_pd, engine, data_md, w_any, data_md, w_any, data_md, fwd_pd, NULL));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(fwd_pd, dnnl_query_impl_info_str, 0, &impl));
    printf("prelu %dx%dx%dx%d, one slope per channel (%s)\n", N, C, H, W, impl);
    const_dnnl_memory_desc_t w_md = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_weights_md, 0);

    dnnl_memory_t src = make(engine, data_md, x, SIZE), wei = make(engine, w_md, slope, C);
    dnnl_memory_t dst = make(engine, data_md, NULL, 0), diff_dst = make(engine, data_md, g, SIZE);
    dnnl_memory_t diff_src = make(engine, data_md, NULL, 0), diff_wei = make(engine, w_md, NULL, 0);
    dnnl_primitive_t fwd = NULL, bwd = NULL;
    DNNL(dnnl_primitive_create(&fwd, fwd_pd));
    DNNL(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    DNNL(dnnl_primitive_execute(fwd, stream, 3, fargs));
    dnnl_exec_arg_t bargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei},
            {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_SRC, diff_src},
            {DNNL_ARG_DIFF_WEIGHTS, diff_wei}};
    DNNL(dnnl_primitive_execute(bwd, stream, 5, bargs));
    DNNL(dnnl_stream_wait(stream));
    get(dst, y, SIZE);
    get(diff_src, dx, SIZE);
    get(diff_wei, dslope, C);

    int bad = 0;
    double want_dw[C] = {0};
    for (int i = 0; i < SIZE; i++) {
        int c = i / (H * W) % C;
        float want_y = x[i] > 0 ? x[i] : x[i] * slope[c];
        float want_dx = x[i] > 0 ? g[i] : g[i] * slope[c];
        want_dw[c] += (x[i] < 0 ? x[i] : 0) * (double)g[i];
        if (fabsf(y[i] - want_y) > 1e-6f || fabsf(dx[i] - want_dx) > 1e-6f) bad++;
    }
    for (int c = 0; c < C; c++)
        if (fabs(dslope[c] - want_dw[c]) > 1e-4 * (fabs(want_dw[c]) + 1)) bad++;
    printf("%d results checked: %s\n", 2 * SIZE + C, bad ? "WRONG" : "ok");

    DNNL(dnnl_primitive_destroy(fwd));
    DNNL(dnnl_primitive_destroy(bwd));
    DNNL(dnnl_primitive_desc_destroy(fwd_pd));
    DNNL(dnnl_primitive_desc_destroy(bwd_pd));
    dnnl_memory_t ms[] = {src, wei, dst, diff_dst, diff_src, diff_wei};
    for (int i = 0; i < 6; i++)
        DNNL(dnnl_memory_destroy(ms[i]));
    DNNL(dnnl_memory_desc_destroy(data_md));
    DNNL(dnnl_memory_desc_destroy(w_any));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    return bad ? 1 : 0;
}
