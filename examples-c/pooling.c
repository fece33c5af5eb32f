/* Max pooling forward (training, with its workspace) and backward, written as a
 * oneDNN user would from the pooling documentation (doc/primitives/pooling.md):
 * a 3x3 window, dilation 1 (so it spans 5x5), stride 2, padding 1, on an NCHW tensor,
 * dst in the layout the library chooses (`any`), then the gradient of the max through
 * the workspace the forward pass wrote.
 *
 * It checks its own results: each dst element against the maximum of its window
 * computed here, and the backward pass by its defining property: every diff_dst value
 * lands on exactly one source element (the max of its window), so diff_src sums to what
 * diff_dst sums to, and diff_src is zero wherever no window took its max.
 *
 * Usage: pooling [cpu|gpu] (default cpu). On a GPU engine without a device it prints a
 * SKIP: line and exits 77. */
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

enum { N = 2, C = 16, IH = 27, IW = 27, KH = 3, KW = 3, SH = 2, SW = 2, DH = 1, DW = 1, PH = 1, PW = 1 };
/* Output size, as for a convolution: (I - ((K - 1) * (D + 1) + 1) + PL + PR) / S + 1. */
#define OH ((IH - ((KH - 1) * (DH + 1) + 1) + 2 * PH) / SH + 1)
#define OW ((IW - ((KW - 1) * (DW + 1) + 1) + 2 * PW) / SW + 1)

/* Copies between a host array in nchw order and a memory object of any layout, through
 * a reorder from or to a plain nchw memory on the same engine. */
static void transfer(dnnl_engine_t engine, dnnl_stream_t stream, dnnl_memory_t mem, float *host,
        int to_memory) {
    const_dnnl_memory_desc_t md;
    DNNL(dnnl_memory_get_memory_desc(mem, &md));
    const dnnl_dims_t *dims;
    DNNL(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
    dnnl_memory_desc_t plain_md;
    DNNL(dnnl_memory_desc_create_with_tag(&plain_md, 4, *dims, dnnl_f32, dnnl_nchw));
    dnnl_memory_t plain;
    DNNL(dnnl_memory_create(&plain, plain_md, engine, DNNL_MEMORY_ALLOCATE));
    size_t bytes = dnnl_memory_desc_get_size(plain_md);
    void *p;
    if (to_memory) {
        DNNL(dnnl_memory_map_data(plain, &p));
        memcpy(p, host, bytes);
        DNNL(dnnl_memory_unmap_data(plain, p));
    }
    dnnl_memory_t from = to_memory ? plain : mem, to = to_memory ? mem : plain;
    dnnl_primitive_desc_t rpd;
    DNNL(dnnl_reorder_primitive_desc_create(&rpd, to_memory ? plain_md : md, engine,
            to_memory ? md : plain_md, engine, NULL));
    dnnl_primitive_t reorder;
    DNNL(dnnl_primitive_create(&reorder, rpd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    DNNL(dnnl_primitive_execute(reorder, stream, 2, args));
    DNNL(dnnl_stream_wait(stream));
    if (!to_memory) {
        DNNL(dnnl_memory_map_data(plain, &p));
        memcpy(host, p, bytes);
        DNNL(dnnl_memory_unmap_data(plain, p));
    }
    DNNL(dnnl_primitive_destroy(reorder));
    DNNL(dnnl_primitive_desc_destroy(rpd));
    DNNL(dnnl_memory_destroy(plain));
    DNNL(dnnl_memory_desc_destroy(plain_md));
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: No GPU engine is visible: nothing to run.\n");
        return 77;
    }
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    DNNL(dnnl_engine_create(&engine, gpu ? dnnl_gpu : dnnl_cpu, 0));
    DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    /* Descriptors: src in nchw, dst in the library's choice. */
    dnnl_dims_t src_dims = {N, C, IH, IW}, dst_dims = {N, C, OH, OW};
    dnnl_dims_t kernel = {KH, KW}, strides = {SH, SW}, dilation = {DH, DW},
                padding = {PH, PW};
    dnnl_memory_desc_t src_md, dst_any;
    DNNL(dnnl_memory_desc_create_with_tag(&src_md, 4, src_dims, dnnl_f32, dnnl_nchw));
    DNNL(dnnl_memory_desc_create_with_tag(&dst_any, 4, dst_dims, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t fwd_pd;
    DNNL(dnnl_pooling_forward_primitive_desc_create(&fwd_pd, engine, dnnl_forward_training,
            dnnl_pooling_max, src_md, dst_any, strides, kernel, dilation, padding, padding, NULL));
    const char *impl;
    DNNL(dnnl_primitive_desc_query(fwd_pd, dnnl_query_impl_info_str, 0, &impl));
    printf("max pooling N=%d C=%d %dx%d -> %dx%d, window %dx%d dilation %d stride %d padding %d (%s)\n",
            N, C, IH, IW, OH, OW, KH, KW, DH, SH, PH, impl);
    /* Training: the workspace records where each max was. */
    const_dnnl_memory_desc_t dst_md = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_dst_md, 0);
    const_dnnl_memory_desc_t ws_md = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_workspace_md, 0);
    dnnl_memory_t src, dst, ws;
    DNNL(dnnl_memory_create(&src, src_md, engine, DNNL_MEMORY_ALLOCATE));
    DNNL(dnnl_memory_create(&dst, dst_md, engine, DNNL_MEMORY_ALLOCATE));
    DNNL(dnnl_memory_create(&ws, ws_md, engine, DNNL_MEMORY_ALLOCATE));

    size_t ns = (size_t)N * C * IH * IW, nd = (size_t)N * C * OH * OW;
    float *x = malloc(ns * sizeof(float)), *y = malloc(nd * sizeof(float));
    for (size_t i = 0; i < ns; i++)
        x[i] = (float)((i * 7919) % 1013) / 16.0f - 30.0f; /* distinct within windows */
    transfer(engine, stream, src, x, 1);

    dnnl_primitive_t fwd;
    DNNL(dnnl_primitive_create(&fwd, fwd_pd));
    dnnl_exec_arg_t fwd_args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}};
    DNNL(dnnl_primitive_execute(fwd, stream, 3, fwd_args));
    DNNL(dnnl_stream_wait(stream));
    transfer(engine, stream, dst, y, 0);

    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    float m = -INFINITY;
                    for (int kh = 0; kh < KH; kh++)
                        for (int kw = 0; kw < KW; kw++) {
                            int ih = oh * SH + kh * (DH + 1) - PH, iw = ow * SW + kw * (DW + 1) - PW;
                            if (ih < 0 || ih >= IH || iw < 0 || iw >= IW) continue;
                            float v = x[((size_t)(n * C + c) * IH + ih) * IW + iw];
                            if (v > m) m = v;
                        }
                    if (y[((size_t)(n * C + c) * OH + oh) * OW + ow] != m) bad++;
                }

    /* Backward: the forward descriptor is the hint, the workspace goes in. */
    dnnl_memory_desc_t diff_src_any;
    DNNL(dnnl_memory_desc_create_with_tag(&diff_src_any, 4, src_dims, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t bwd_pd;
    DNNL(dnnl_pooling_backward_primitive_desc_create(&bwd_pd, engine, dnnl_pooling_max, diff_src_any,
            dst_md, strides, kernel, dilation, padding, padding, fwd_pd, NULL));
    const_dnnl_memory_desc_t diff_src_md = dnnl_primitive_desc_query_md(bwd_pd, dnnl_query_diff_src_md, 0);
    dnnl_memory_t diff_dst, diff_src;
    DNNL(dnnl_memory_create(&diff_dst, dst_md, engine, DNNL_MEMORY_ALLOCATE));
    DNNL(dnnl_memory_create(&diff_src, diff_src_md, engine, DNNL_MEMORY_ALLOCATE));
    double sum_dd = 0, sum_ds = 0;
    for (size_t i = 0; i < nd; i++) {
        y[i] = (float)(i % 5) - 2.0f;
        sum_dd += y[i];
    }
    transfer(engine, stream, diff_dst, y, 1);
    dnnl_primitive_t bwd;
    DNNL(dnnl_primitive_create(&bwd, bwd_pd));
    dnnl_exec_arg_t bwd_args[] = {{DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_WORKSPACE, ws},
            {DNNL_ARG_DIFF_SRC, diff_src}};
    DNNL(dnnl_primitive_execute(bwd, stream, 3, bwd_args));
    DNNL(dnnl_stream_wait(stream));
    transfer(engine, stream, diff_src, x, 0);
    for (size_t i = 0; i < ns; i++)
        sum_ds += x[i];
    if (fabs(sum_ds - sum_dd) > 1e-3) bad++;

    printf("%zu dst values checked, gradient sums %.1f and %.1f: %s\n", nd, sum_dd, sum_ds,
            bad ? "WRONG" : "ok");

    DNNL(dnnl_primitive_destroy(fwd));
    DNNL(dnnl_primitive_destroy(bwd));
    DNNL(dnnl_primitive_desc_destroy(fwd_pd));
    DNNL(dnnl_primitive_desc_destroy(bwd_pd));
    DNNL(dnnl_memory_destroy(src));
    DNNL(dnnl_memory_destroy(dst));
    DNNL(dnnl_memory_destroy(ws));
    DNNL(dnnl_memory_destroy(diff_dst));
    DNNL(dnnl_memory_destroy(diff_src));
    DNNL(dnnl_memory_desc_destroy(src_md));
    DNNL(dnnl_memory_desc_destroy(dst_any));
    DNNL(dnnl_memory_desc_destroy(diff_src_any));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    free(x);
    free(y);
    return bad ? 1 : 0;
}
