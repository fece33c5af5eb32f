/* Shuffle, in C: the channel shuffle of ShuffleNet on an NCHW activation (channels in
 * groups of 4 interleaved), forward, then backward (the inverse permutation, which
 * gives the gradient back in the original channel order), on the engine named by the
 * argument (cpu, the default, or gpu). The destination's layout is `any`: the library
 * gives it the source's. The example checks every result. On a gpu run without an
 * OpenCL device it says so and exits 77 (skipped). */
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

enum { N = 2, C = 24, H = 5, W = 7, SIZE = N * C * H * W, GROUP = 4 };

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

    static float x[SIZE], y[SIZE], g[SIZE], dx[SIZE];
    for (int i = 0; i < SIZE; i++) {
        x[i] = (float)i;
        g[i] = (float)(i % 97) - 48.f;
    }

    dnnl_dims_t dims = {N, C, H, W};
    dnnl_memory_desc_t data_md = NULL, any_md = NULL;
    DNNL(dnnl_memory_desc_create_with_tag(&data_md, 4, dims, dnnl_f32, dnnl_nchw));
    DNNL(dnnl_memory_desc_create_with_tag(&any_md, 4, dims, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t fwd_pd = NULL, bwd_pd = NULL;
    DNNL(dnnl_shuffle_forward_primitive_desc_create(
            &fwd_pd, engine, dnnl_forward_training, data_md, any_md, 1, GROUP, NULL));
    DNNL(dnnl_shuffle_backward_primitive_desc_create(
            &bwd_pd, engine, data_md, any_md, 1, GROUP, fwd_pd, NULL));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(fwd_pd, dnnl_query_impl_info_str, 0, &impl));
    printf("shuffle %dx%dx%dx%d, channels in groups of %d (%s)\n", N, C, H, W, GROUP, impl);
    const_dnnl_memory_desc_t dst_md = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_dst_md, 0);
    const_dnnl_memory_desc_t dd_md = dnnl_primitive_desc_query_md(bwd_pd, dnnl_query_diff_dst_md, 0);

    dnnl_memory_t src = make(engine, data_md, x), dst = make(engine, dst_md, NULL);
    dnnl_memory_t diff_dst = make(engine, dd_md, g), diff_src = make(engine, data_md, NULL);
    dnnl_primitive_t fwd = NULL, bwd = NULL;
    DNNL(dnnl_primitive_create(&fwd, fwd_pd));
    DNNL(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    DNNL(dnnl_primitive_execute(fwd, stream, 2, fargs));
    dnnl_exec_arg_t bargs[] = {{DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_SRC, diff_src}};
    DNNL(dnnl_primitive_execute(bwd, stream, 2, bargs));
    DNNL(dnnl_stream_wait(stream));
    get(dst, y);
    get(diff_src, dx);

    /* The channels as a C/G x G matrix, transposed: dst channel u + v*C/G is src channel
     * u*G + v; backward sends diff_dst channel u + v*C/G back to diff_src channel u*G + v. */
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++) {
            int u = c % (C / GROUP), v = c / (C / GROUP), from = u * GROUP + v;
            for (int s = 0; s < H * W; s++) {
                if (y[(n * C + c) * H * W + s] != x[(n * C + from) * H * W + s]) bad++;
                if (dx[(n * C + from) * H * W + s] != g[(n * C + c) * H * W + s]) bad++;
            }
        }
    printf("%d results checked: %s\n", 2 * SIZE, bad ? "WRONG" : "ok");

    DNNL(dnnl_primitive_destroy(fwd));
    DNNL(dnnl_primitive_destroy(bwd));
    DNNL(dnnl_primitive_desc_destroy(fwd_pd));
    DNNL(dnnl_primitive_desc_destroy(bwd_pd));
    dnnl_memory_t ms[] = {src, dst, diff_dst, diff_src};
    for (int i = 0; i < 4; i++)
        DNNL(dnnl_memory_destroy(ms[i]));
    DNNL(dnnl_memory_desc_destroy(data_md));
    DNNL(dnnl_memory_desc_destroy(any_md));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    return bad ? 1 : 0;
}
