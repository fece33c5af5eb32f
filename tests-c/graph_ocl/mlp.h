/* A two-layer MLP as a graph, for the graph allocator and execution tests:
 *
 *   src[M,K] -> MatMul(w1[K,H]) -> BiasAdd(b1[H]) -> ReLU
 *            -> MatMul(w2[H,N]) -> BiasAdd(b2[N]) -> SoftMax(axis 1) -> dst[M,N]
 *
 * The weights and biases have the constant property, so the library may prepare
 * them once into memory of the engine's allocator (the constant tensor cache); the
 * partitions' other temporaries come from the same allocator.
 *
 *   mlp_build(&m, kind)              the graph, finalized, and its partitions
 *   mlp_compile(&m, engine)          compiles every partition for `engine`
 *   mlp_fill(host)                   host[id]: the inputs' values (host floats)
 *   mlp_reference(host, ref)         dst in double precision
 *   mlp_destroy(&m)                  everything mlp_build/mlp_compile made
 *
 * Logical tensor ids: 0 src, 1 w1, 2 b1, 3 mm1, 4 ba1, 5 relu, 6 w2, 7 b2, 8 mm2,
 * 9 ba2, 10 dst. */
#ifndef DNNL_TESTS_C_GRAPH_MLP_H
#define DNNL_TESTS_C_GRAPH_MLP_H

#include <math.h>
#include <string.h>

#include "check.h"
#include "oneapi/dnnl/dnnl_graph.h"

#define MLP_M 8
#define MLP_K 32
#define MLP_H 64
#define MLP_N 16
#define MLP_IDS 11
#define MLP_MAX_PARTS 8

typedef struct {
    dnnl_graph_graph_t graph;
    size_t nparts;
    dnnl_graph_partition_t parts[MLP_MAX_PARTS];
    dnnl_graph_compiled_partition_t cps[MLP_MAX_PARTS];
    size_t nin[MLP_MAX_PARTS], nout[MLP_MAX_PARTS];
    dnnl_graph_logical_tensor_t ins[MLP_MAX_PARTS][4], outs[MLP_MAX_PARTS][2];
    dnnl_graph_logical_tensor_t lts[MLP_IDS];
} mlp_t;

static inline dnnl_graph_logical_tensor_t mlp_lt(size_t id, int ndims, int64_t d0, int64_t d1,
        dnnl_graph_tensor_property_t property) {
    dnnl_graph_logical_tensor_t lt;
    dnnl_dims_t dims = {d0, d1};
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&lt, id, dnnl_f32, ndims, dims,
            dnnl_graph_layout_type_strided, property));
    return lt;
}

static inline void mlp_add_op(mlp_t *m, size_t id, dnnl_graph_op_kind_t kind, const char *name,
        const size_t *in, size_t nin, size_t out) {
    dnnl_graph_op_t op = NULL;
    CHECK(dnnl_graph_op_create(&op, id, kind, name));
    for (size_t i = 0; i < nin; i++)
        CHECK(dnnl_graph_op_add_input(op, &m->lts[in[i]]));
    CHECK(dnnl_graph_op_add_output(op, &m->lts[out]));
    if (kind == dnnl_graph_op_softmax) {
        int64_t axis = 1;
        CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_axis, &axis, 1));
    }
    CHECK(dnnl_graph_add_op(m->graph, op));
    CHECK(dnnl_graph_op_destroy(op));
}

static inline void mlp_build(mlp_t *m, dnnl_engine_kind_t kind) {
    memset(m, 0, sizeof(*m));
    const dnnl_graph_tensor_property_t var = dnnl_graph_tensor_property_variable;
    const dnnl_graph_tensor_property_t con = dnnl_graph_tensor_property_constant;
    m->lts[0] = mlp_lt(0, 2, MLP_M, MLP_K, var);
    m->lts[1] = mlp_lt(1, 2, MLP_K, MLP_H, con);
    m->lts[2] = mlp_lt(2, 1, MLP_H, 0, con);
    m->lts[3] = mlp_lt(3, 2, MLP_M, MLP_H, var);
    m->lts[4] = mlp_lt(4, 2, MLP_M, MLP_H, var);
    m->lts[5] = mlp_lt(5, 2, MLP_M, MLP_H, var);
    m->lts[6] = mlp_lt(6, 2, MLP_H, MLP_N, con);
    m->lts[7] = mlp_lt(7, 1, MLP_N, 0, con);
    m->lts[8] = mlp_lt(8, 2, MLP_M, MLP_N, var);
    m->lts[9] = mlp_lt(9, 2, MLP_M, MLP_N, var);
    m->lts[10] = mlp_lt(10, 2, MLP_M, MLP_N, var);
    CHECK(dnnl_graph_graph_create(&m->graph, kind));
    mlp_add_op(m, 0, dnnl_graph_op_matmul, "mm1", (size_t[]) {0, 1}, 2, 3);
    mlp_add_op(m, 1, dnnl_graph_op_bias_add, "ba1", (size_t[]) {3, 2}, 2, 4);
    mlp_add_op(m, 2, dnnl_graph_op_relu, "relu", (size_t[]) {4}, 1, 5);
    mlp_add_op(m, 3, dnnl_graph_op_matmul, "mm2", (size_t[]) {5, 6}, 2, 8);
    mlp_add_op(m, 4, dnnl_graph_op_bias_add, "ba2", (size_t[]) {8, 7}, 2, 9);
    mlp_add_op(m, 5, dnnl_graph_op_softmax, "softmax", (size_t[]) {9}, 1, 10);
    CHECK(dnnl_graph_graph_finalize(m->graph));
    CHECK(dnnl_graph_graph_filter(m->graph, dnnl_graph_partition_policy_fusion));
    CHECK(dnnl_graph_graph_get_partition_num(m->graph, &m->nparts));
    EXPECT(m->nparts >= 1 && m->nparts <= MLP_MAX_PARTS);
    CHECK(dnnl_graph_graph_get_partitions(m->graph, m->nparts, m->parts));
    for (size_t p = 0; p < m->nparts; p++) {
        uint8_t supported = 0;
        CHECK(dnnl_graph_partition_is_supported(m->parts[p], &supported));
        EXPECT(supported);
        CHECK(dnnl_graph_partition_get_input_ports_num(m->parts[p], &m->nin[p]));
        CHECK(dnnl_graph_partition_get_output_ports_num(m->parts[p], &m->nout[p]));
        EXPECT(m->nin[p] <= 4 && m->nout[p] <= 2);
        CHECK(dnnl_graph_partition_get_input_ports(m->parts[p], m->nin[p], m->ins[p]));
        CHECK(dnnl_graph_partition_get_output_ports(m->parts[p], m->nout[p], m->outs[p]));
    }
}

static inline void mlp_compile(mlp_t *m, dnnl_engine_t engine) {
    for (size_t p = 0; p < m->nparts; p++) {
        const dnnl_graph_logical_tensor_t *in[4], *out[2];
        for (size_t i = 0; i < m->nin[p]; i++)
            in[i] = &m->ins[p][i];
        for (size_t i = 0; i < m->nout[p]; i++)
            out[i] = &m->outs[p][i];
        CHECK(dnnl_graph_compiled_partition_create(&m->cps[p], m->parts[p]));
        CHECK(dnnl_graph_partition_compile(
                m->parts[p], m->cps[p], m->nin[p], in, m->nout[p], out, engine));
    }
}

static inline size_t mlp_size(const mlp_t *m, size_t id) {
    size_t size = 0;
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&m->lts[id], &size));
    return size;
}

/* The inputs' values: host[id] holds mlp_size(id) bytes for ids 0, 1, 2, 6, 7. */
static inline void mlp_fill(float *const host[MLP_IDS]) {
    for (int i = 0; i < MLP_M * MLP_K; i++)
        host[0][i] = (float)((i * 7) % 13) / 6.f - 1.f;
    for (int i = 0; i < MLP_K * MLP_H; i++)
        host[1][i] = (float)((i * 5) % 11) / 20.f - 0.25f;
    for (int i = 0; i < MLP_H; i++)
        host[2][i] = (float)(i % 7) / 7.f - 0.4f;
    for (int i = 0; i < MLP_H * MLP_N; i++)
        host[6][i] = (float)((i * 3) % 17) / 34.f - 0.25f;
    for (int i = 0; i < MLP_N; i++)
        host[7][i] = (float)(i % 5) / 10.f - 0.2f;
}

static inline void mlp_reference(float *const host[MLP_IDS], double *ref) {
    static double hid[MLP_M][MLP_H];
    for (int i = 0; i < MLP_M; i++)
        for (int j = 0; j < MLP_H; j++) {
            double s = host[2][j];
            for (int k = 0; k < MLP_K; k++)
                s += (double)host[0][i * MLP_K + k] * host[1][k * MLP_H + j];
            hid[i][j] = s > 0 ? s : 0;
        }
    for (int i = 0; i < MLP_M; i++) {
        double row[MLP_N], max = -INFINITY, sum = 0;
        for (int j = 0; j < MLP_N; j++) {
            double s = host[7][j];
            for (int k = 0; k < MLP_H; k++)
                s += hid[i][k] * host[6][k * MLP_N + j];
            row[j] = s;
            if (s > max) max = s;
        }
        for (int j = 0; j < MLP_N; j++)
            sum += row[j] = exp(row[j] - max);
        for (int j = 0; j < MLP_N; j++)
            ref[i * MLP_N + j] = row[j] / sum;
    }
}

/* The largest difference between dst and the reference. */
static inline double mlp_error(const float *dst, const double *ref) {
    double worst = 0;
    for (int i = 0; i < MLP_M * MLP_N; i++) {
        double d = fabs(dst[i] - ref[i]);
        if (!(d <= worst)) worst = d; /* NaN counts as the worst */
    }
    return worst;
}

static inline void mlp_destroy(mlp_t *m) {
    for (size_t p = 0; p < m->nparts; p++) {
        if (m->cps[p]) CHECK(dnnl_graph_compiled_partition_destroy(m->cps[p]));
        CHECK(dnnl_graph_partition_destroy(m->parts[p]));
    }
    CHECK(dnnl_graph_graph_destroy(m->graph));
    memset(m, 0, sizeof(*m));
}

#endif /* DNNL_TESTS_C_GRAPH_MLP_H */
