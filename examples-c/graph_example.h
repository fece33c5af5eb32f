/* What the graph getting-started examples (graph_cpu_getting_started.c,
 * graph_ocl_getting_started.c) share: the graph they build, its data, and the
 * reference they check the result against.
 *
 * The graph, in NCX / OIX formats (ids of the logical tensors in brackets):
 *
 *   src [0] --Convolution 5x5, stride 2, pad 1 (weights [1])--> [3]
 *       --BiasAdd (bias [2])--> [4] --ReLU--> relu0 [5]
 *   relu0 --Convolution 1x1 (weights [6])--> [7] --BiasAdd (bias [8])--> [9]
 *       --ReLU--> [10] --Add (relu0)--> dst [11]
 *
 * Weights and biases are constant tensors. oneDNN makes two partitions of it:
 * conv0 + BiasAdd + ReLU, and conv1 + BiasAdd + ReLU + Add (the Add a post-op of
 * the second convolution). */
#ifndef DNNL_EXAMPLES_GRAPH_EXAMPLE_H
#define DNNL_EXAMPLES_GRAPH_EXAMPLE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl_debug.h"
#include "oneapi/dnnl/dnnl_graph.h"

#ifndef DNNL
/* Stops the example on a failed library call. */
#define DNNL(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    dnnl_status2str(s_)); \
            exit(1); \
        } \
    } while (0)
#endif

enum {
    MB = 2, IC = 3, IH = 31, IW = 31, /* source */
    OC = 16, KH = 5, KW = 5,          /* conv0: stride 2, padding 1 */
    OH = (IH + 2 - KH) / 2 + 1, OW = (IW + 2 - KW) / 2 + 1,
    N_LT = 12
};

/* The logical tensors, by id. */
static inline void example_tensors(dnnl_graph_logical_tensor_t *lts) {
    const int64_t src[] = {MB, IC, IH, IW}, w0[] = {OC, IC, KH, KW}, w1[] = {OC, OC, 1, 1},
                  bias[] = {OC}, act[] = {MB, OC, OH, OW};
    const int64_t *dims[N_LT] = {src, w0, bias, act, act, act, w1, act, bias, act, act, act};
    const int constant[N_LT] = {0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0};
    for (int i = 0; i < N_LT; i++)
        DNNL(dnnl_graph_logical_tensor_init_with_dims(&lts[i], (size_t)i, dnnl_f32,
                dims[i] == bias ? 1 : 4, dims[i], dnnl_graph_layout_type_strided,
                constant[i] ? dnnl_graph_tensor_property_constant
                            : dnnl_graph_tensor_property_variable));
}

static inline void example_op(dnnl_graph_graph_t g, size_t id, dnnl_graph_op_kind_t kind,
        const char *name, const dnnl_graph_logical_tensor_t *in0,
        const dnnl_graph_logical_tensor_t *in1, const dnnl_graph_logical_tensor_t *out,
        int64_t stride, int64_t pad) {
    dnnl_graph_op_t op = NULL;
    DNNL(dnnl_graph_op_create(&op, id, kind, name));
    DNNL(dnnl_graph_op_add_input(op, in0));
    if (in1) DNNL(dnnl_graph_op_add_input(op, in1));
    DNNL(dnnl_graph_op_add_output(op, out));
    if (kind == dnnl_graph_op_convolution) {
        const int64_t s[] = {stride, stride}, p[] = {pad, pad}, d[] = {1, 1};
        DNNL(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_strides, s, 2));
        DNNL(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_pads_begin, p, 2));
        DNNL(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_pads_end, p, 2));
        DNNL(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_dilations, d, 2));
        DNNL(dnnl_graph_op_set_attr_str(op, dnnl_graph_op_attr_weights_format, "OIX", 3));
    }
    if (kind == dnnl_graph_op_convolution || kind == dnnl_graph_op_bias_add)
        DNNL(dnnl_graph_op_set_attr_str(op, dnnl_graph_op_attr_data_format, "NCX", 3));
    DNNL(dnnl_graph_add_op(g, op));
    DNNL(dnnl_graph_op_destroy(op));
}

/* The graph of the header's comment on engines of `kind`, finalized. */
static inline dnnl_graph_graph_t example_graph(dnnl_engine_kind_t kind,
        const dnnl_graph_logical_tensor_t *t) {
    dnnl_graph_graph_t g = NULL;
    DNNL(dnnl_graph_graph_create(&g, kind));
    example_op(g, 0, dnnl_graph_op_convolution, "conv0", &t[0], &t[1], &t[3], 2, 1);
    example_op(g, 1, dnnl_graph_op_bias_add, "bias0", &t[3], &t[2], &t[4], 0, 0);
    example_op(g, 2, dnnl_graph_op_relu, "relu0", &t[4], NULL, &t[5], 0, 0);
    example_op(g, 3, dnnl_graph_op_convolution, "conv1", &t[5], &t[6], &t[7], 1, 0);
    example_op(g, 4, dnnl_graph_op_bias_add, "bias1", &t[7], &t[8], &t[9], 0, 0);
    example_op(g, 5, dnnl_graph_op_relu, "relu1", &t[9], NULL, &t[10], 0, 0);
    example_op(g, 6, dnnl_graph_op_add, "residual", &t[5], &t[10], &t[11], 0, 0);
    DNNL(dnnl_graph_graph_finalize(g));
    return g;
}

/* Values for the inputs (tensors 0, 1, 2, 6, 8). */
static inline void example_inputs(float *const *host, const size_t *sizes) {
    for (int id = 0; id < N_LT; id++) {
        size_t n = sizes[id] / sizeof(float);
        for (size_t i = 0; i < n; i++) {
            if (id == 0) host[id][i] = (float)((i * 7) % 13) / 6.f - 1.f;
            if (id == 1 || id == 6) host[id][i] = (float)((i * 5 + (size_t)id) % 11) / 20.f - 0.25f;
            if (id == 2 || id == 8) host[id][i] = (float)(i % 5) / 10.f - 0.2f;
        }
    }
}

/* The largest |dst - reference|, the reference computed here in double. */
static inline double example_check(float *const *host) {
    const float *src = host[0], *w0 = host[1], *b0 = host[2], *w1 = host[6], *b1 = host[8],
                *dst = host[11];
    double *relu0 = malloc(sizeof(double) * MB * OC * OH * OW);
    double worst = 0;
    for (int n = 0; n < MB; n++)
        for (int o = 0; o < OC; o++)
            for (int y = 0; y < OH; y++)
                for (int x = 0; x < OW; x++) {
                    double s = b0[o];
                    for (int c = 0; c < IC; c++)
                        for (int ky = 0; ky < KH; ky++)
                            for (int kx = 0; kx < KW; kx++) {
                                int iy = y * 2 - 1 + ky, ix = x * 2 - 1 + kx;
                                if (iy < 0 || iy >= IH || ix < 0 || ix >= IW) continue;
                                s += (double)src[((n * IC + c) * IH + iy) * IW + ix]
                                        * w0[((o * IC + c) * KH + ky) * KW + kx];
                            }
                    relu0[((n * OC + o) * OH + y) * OW + x] = s > 0 ? s : 0;
                }
    for (int n = 0; n < MB; n++)
        for (int o = 0; o < OC; o++)
            for (int p = 0; p < OH * OW; p++) {
                double s = b1[o];
                for (int c = 0; c < OC; c++) s += relu0[(n * OC + c) * OH * OW + p] * w1[o * OC + c];
                size_t at = (size_t)(n * OC + o) * OH * OW + (size_t)p;
                double want = (s > 0 ? s : 0) + relu0[at];
                double d = fabs(dst[at] - want);
                if (!(d <= worst)) worst = d;
            }
    free(relu0);
    return worst;
}

#endif
