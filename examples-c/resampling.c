/* Bilinear upsampling by 2 (forward inference) and its backward pass, written as a
 * oneDNN user would from the resampling documentation (doc/primitives/resampling.md):
 * an NHWC tensor upsampled by the factors {2, 2} with the destination left to the
 * library (NULL dst: the shape is (dim_t)(I * F), the layout src's), then diff_src from
 * a diff_dst of ones.
 *
 * It checks its own results: each dst element against the bilinear formula computed
 * here, and the backward pass by its defining property: every output distributes its
 * gradient over its taps with weights that sum to 1, so diff_src sums to what diff_dst
 * sums to.
 *
 * Usage: resampling [cpu|gpu] (default cpu). On a GPU engine without a device it prints
 * a SKIP: line and exits 77. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

#define DNNL(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    dnnl_status2str(s_)); \
            exit(1); \
        } \
    } while (0)

enum { N = 2, C = 8, IH = 9, IW = 13 };

/* Writes (to_memory) or reads a plain memory's buffer. */
static void transfer(dnnl_memory_t mem, float *host, size_t count, int to_memory) {
    void *p;
    DNNL(dnnl_memory_map_data(mem, &p));
    if (to_memory) memcpy(p, host, count * sizeof(float));
    else memcpy(host, p, count * sizeof(float));
    DNNL(dnnl_memory_unmap_data(mem, p));
}

/* The documentation's source coordinate and its clamped taps along one dimension. */
static void taps(int o, int in, int out, int *i0, int *i1, double *w) {
    double x = (o + 0.5) * in / out - 0.5;
    double f = floor(x);
    *w = x - f;
    *i0 = f < 0 ? 0 : (int)f > in - 1 ? in - 1 : (int)f;
    *i1 = ceil(x) < 0 ? 0 : (int)ceil(x) > in - 1 ? in - 1 : (int)ceil(x);
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: no GPU engine\n");
        return 77;
    }
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    DNNL(dnnl_engine_create(&engine, gpu ? dnnl_gpu : dnnl_cpu, 0));
    DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    /* src: NHWC. */
    dnnl_dims_t src_dims = {N, C, IH, IW};
    dnnl_memory_desc_t src_md;
    DNNL(dnnl_memory_desc_create_with_tag(&src_md, 4, src_dims, dnnl_f32, dnnl_nhwc));
    const float factors[2] = {2.0f, 2.0f};
    dnnl_primitive_desc_t fwd_pd;
    DNNL(dnnl_resampling_forward_primitive_desc_create(&fwd_pd, engine, dnnl_forward_inference,
            dnnl_resampling_linear, factors, src_md, NULL, NULL));
    const_dnnl_memory_desc_t dst_md = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_dst_md, 0);
    const dnnl_dims_t *dd;
    DNNL(dnnl_memory_desc_query(dst_md, dnnl_query_dims, &dd));
    const int OH = (int)(*dd)[2], OW = (int)(*dd)[3];
    printf("bilinear resampling N=%d C=%d %dx%d -> %dx%d (nhwc)\n", N, C, IH, IW, OH, OW);

    size_t ns = (size_t)N * C * IH * IW, nd = (size_t)N * C * OH * OW;
    float *src = malloc(ns * sizeof(float)), *dst = malloc(nd * sizeof(float));
    /* NHWC order: ((n * IH + h) * IW + w) * C + c. */
    for (size_t i = 0; i < ns; i++)
        src[i] = (float)((i * 37) % 101) * 0.125f - 6.0f;
    dnnl_memory_t src_mem, dst_mem;
    DNNL(dnnl_memory_create(&src_mem, src_md, engine, DNNL_MEMORY_ALLOCATE));
    DNNL(dnnl_memory_create(&dst_mem, dst_md, engine, DNNL_MEMORY_ALLOCATE));
    transfer(src_mem, src, ns, 1);
    dnnl_primitive_t fwd;
    DNNL(dnnl_primitive_create(&fwd, fwd_pd));
    dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_DST, dst_mem}};
    DNNL(dnnl_primitive_execute(fwd, stream, 2, fargs));
    DNNL(dnnl_stream_wait(stream));
    transfer(dst_mem, dst, nd, 0);

    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++)
                for (int c = 0; c < C; c++) {
                    int h0, h1, w0, w1;
                    double wh, ww;
                    taps(oh, IH, OH, &h0, &h1, &wh);
                    taps(ow, IW, OW, &w0, &w1, &ww);
#define S(h, w) (double)src[(((size_t)n * IH + (h)) * IW + (w)) * C + c]
                    double want = S(h0, w0) * (1 - wh) * (1 - ww) + S(h1, w0) * wh * (1 - ww)
                            + S(h0, w1) * (1 - wh) * ww + S(h1, w1) * wh * ww;
#undef S
                    double got = dst[(((size_t)n * OH + oh) * OW + ow) * C + c];
                    if (fabs(got - want) > 1e-5 * (1.0 + fabs(want)) && bad++ < 5)
                        fprintf(stderr, "dst n=%d c=%d (%d, %d): %g, want %g\n", n, c, oh, ow, got, want);
                }

    /* Backward: diff_dst of ones. */
    dnnl_primitive_desc_t bwd_pd;
    DNNL(dnnl_resampling_backward_primitive_desc_create(&bwd_pd, engine, dnnl_resampling_linear, NULL,
            src_md, dst_md, fwd_pd, NULL));
    float *ones = malloc(nd * sizeof(float)), *dsrc = malloc(ns * sizeof(float));
    for (size_t i = 0; i < nd; i++)
        ones[i] = 1.0f;
    dnnl_memory_t dd_mem, ds_mem;
    DNNL(dnnl_memory_create(&dd_mem, dst_md, engine, DNNL_MEMORY_ALLOCATE));
    DNNL(dnnl_memory_create(&ds_mem, src_md, engine, DNNL_MEMORY_ALLOCATE));
    transfer(dd_mem, ones, nd, 1);
    dnnl_primitive_t bwd;
    DNNL(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t bargs[] = {{DNNL_ARG_DIFF_DST, dd_mem}, {DNNL_ARG_DIFF_SRC, ds_mem}};
    DNNL(dnnl_primitive_execute(bwd, stream, 2, bargs));
    DNNL(dnnl_stream_wait(stream));
    transfer(ds_mem, dsrc, ns, 0);
    double sum = 0;
    for (size_t i = 0; i < ns; i++)
        sum += dsrc[i];
    if (fabs(sum - (double)nd) > 1e-3 * (double)nd) {
        fprintf(stderr, "diff_src sums to %g, diff_dst to %zu\n", sum, nd);
        bad++;
    }

    DNNL(dnnl_primitive_destroy(fwd));
    DNNL(dnnl_primitive_destroy(bwd));
    DNNL(dnnl_primitive_desc_destroy(fwd_pd));
    DNNL(dnnl_primitive_desc_destroy(bwd_pd));
    DNNL(dnnl_memory_destroy(src_mem));
    DNNL(dnnl_memory_destroy(dst_mem));
    DNNL(dnnl_memory_destroy(dd_mem));
    DNNL(dnnl_memory_destroy(ds_mem));
    DNNL(dnnl_memory_desc_destroy(src_md));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    free(src);
    free(dst);
    free(ones);
    free(dsrc);
    if (bad) {
        fprintf(stderr, "%d mismatches\n", bad);
        return 1;
    }
    printf("%zu dst values checked, gradient sum %g: ok\n", nd, sum);
    return 0;
}
