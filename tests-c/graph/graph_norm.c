/* The normalization ops of the graph API (BatchNormInference, BatchNormForwardTraining,
 * BatchNormTrainingBackward, LayerNorm, LayerNormBackward, GroupNorm, RMSNorm) and their
 * fusion patterns:
 *   1. partitions: for each pattern, the partitions (op ids, and whether each is
 *      supported) must be the ones oneDNN v3.13 makes (the @ref run checks the same
 *      expectations against Intel's library): BatchNormInference and
 *      BatchNormForwardTraining + one ReLU; GroupNorm + any number of unary / binary
 *      post-ops, a TypeCast to f32 and a Quantize; LayerNorm + at most 19 post-ops, a
 *      TypeCast and a Quantize, where upstream's binary patterns (a binary op followed by
 *      another post-op, or a unary op followed by a binary one) take precedence over the
 *      LayerNorm's chain; RMSNorm alone; LayerNorm over anything but the last axis is not
 *      supported;
 *   2. numbers: each lowered pattern run on the engine and every output element compared
 *      with a reference computed here in double.
 * Argument "cpu" (the CPU engine) or "gpu" (OpenCL engine 0, USM: skipped without it). */
#include "graph_case.h"

/* LayerNorm, LayerNormBackward and RMSNorm lower onto the layer normalization primitive,
 * GroupNorm onto the group normalization primitive: their cases wait for them. */
#define LAYER_NORM_LOWERS 1
#define GROUP_NORM_LOWERS 1

static dnnl_graph_op_t unary(size_t id, dnnl_graph_op_kind_t kind, size_t a, size_t out) {
    return mkop(id, kind, 1, &a, out);
}

static dnnl_graph_op_t binary(size_t id, dnnl_graph_op_kind_t kind, size_t a, size_t b, size_t out) {
    size_t in[2] = {a, b};
    return mkop(id, kind, 2, in, out);
}

static void set_bool(dnnl_graph_op_t op, dnnl_graph_op_attr_t a, int v) {
    uint8_t b = (uint8_t)v;
    CHECK(dnnl_graph_op_set_attr_bool(op, a, &b, 1));
}

static dnnl_graph_op_t quantize(size_t id, size_t a, size_t out) {
    dnnl_graph_op_t op = unary(id, dnnl_graph_op_quantize, a, out);
    float sc = 0.25f;
    int64_t zp = 0;
    set_f32(op, dnnl_graph_op_attr_scales, 1, &sc);
    set_s64s(op, dnnl_graph_op_attr_zps, 1, &zp);
    set_str(op, dnnl_graph_op_attr_qtype, "per_tensor");
    return op;
}

/* ---- 1. partitions ------------------------------------------------------------------- */

static const int64_t S[] = {2, 4, 6, 6}, C4[] = {4}, P4[] = {1, 4, 1, 1}, ST[] = {2, 4, 6};

/* A chain of n ReLUs from tensor `from` (ids 100.., ops 50..). */
static void relus(size_t from, int n) {
    for (int i = 0; i < n; i++) {
        def(100 + (size_t)i, dnnl_f32, 4, S, 0);
        add(unary(50 + (size_t)i, dnnl_graph_op_relu, from, 100 + (size_t)i));
        from = 100 + (size_t)i;
    }
}

enum { LN, GN, BN, RMS };

/* BatchNormForwardTraining's momentum when the attribute is not given (as Intel's
 * library computes it). */
#define DEFAULT_MOMENTUM 0.5f
static const char *NAMES[] = {"LayerNorm", "GroupNorm", "BatchNormInference", "RMSNorm"};

/* Norm op 1 of `kind`: src 1 -> dst 2, no statistics, no affine parameters (BN: its four
 * vectors at 30..33). */
static void norm1(int kind, dnnl_data_type_t dt) {
    def(1, dt, 4, S, 0), def(2, dt, 4, S, 0);
    dnnl_graph_op_t op;
    if (kind == LN) {
        op = unary(1, dnnl_graph_op_layer_norm, 1, 2);
        set_bool(op, dnnl_graph_op_attr_keep_stats, 0);
        set_bool(op, dnnl_graph_op_attr_use_affine, 0);
    } else if (kind == GN) {
        int64_t g = 2;
        op = unary(1, dnnl_graph_op_group_norm, 1, 2);
        set_s64s(op, dnnl_graph_op_attr_groups, 1, &g);
        set_bool(op, dnnl_graph_op_attr_keep_stats, 0);
        set_bool(op, dnnl_graph_op_attr_use_affine, 0);
        set_str(op, dnnl_graph_op_attr_data_format, "NCX");
    } else if (kind == BN) {
        float eps = 1e-5f;
        for (size_t i = 0; i < 4; i++) def(30 + i, dnnl_f32, 1, C4, 0);
        size_t in[5] = {1, 30, 31, 32, 33};
        op = mkop(1, dnnl_graph_op_batch_norm_inference, 5, in, 2);
        set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
        set_str(op, dnnl_graph_op_attr_data_format, "NCX");
    } else {
        op = unary(1, dnnl_graph_op_rms_norm, 1, 2);
    }
    add(op);
}

/* LayerNorm followed by the chain `spec`: r ReLU, s Sigmoid, a Add (full tensor), m
 * Multiply (per channel), Q Quantize; ops 10.., tensors 110.., operands 60... */
static void ln_chain(const char *spec, const char *want) {
    new_graph(dnnl_cpu);
    norm1(LN, dnnl_f32);
    size_t t = 2, id = 10, ext = 60;
    for (const char *c = spec; *c; c++, id++) {
        size_t o = 100 + id;
        def(o, *c == 'Q' ? dnnl_u8 : dnnl_f32, 4, S, 0);
        switch (*c) {
        case 'r': add(unary(id, dnnl_graph_op_relu, t, o)); break;
        case 's': add(unary(id, dnnl_graph_op_sigmoid, t, o)); break;
        case 'a': def(ext, dnnl_f32, 4, S, 0), add(binary(id, dnnl_graph_op_add, t, ext++, o)); break;
        case 'm': def(ext, dnnl_f32, 4, P4, 0), add(binary(id, dnnl_graph_op_multiply, t, ext++, o)); break;
        default: add(quantize(id, t, o)); break;
        }
        t = o;
    }
    char what[64];
    snprintf(what, sizeof what, "LayerNorm + chain '%s'", spec);
    expect_parts(what, want);
}

static void training_partitions(void);

static void partitions(void) {
    const dnnl_engine_kind_t K = dnnl_cpu;
    /* One row per norm kind: alone, + ReLU, + Sigmoid, + Multiply (broadcast), + Add
     * (full, swapped), + Subtract (chain second), + Quantize, + ReLU + Quantize, bf16 +
     * TypeCast, bf16 + TypeCast + Quantize. */
    static const char *want[4][10] = {
            {"[1]", "[1 2]", "[1 2]", "[1 3]", "[1 3]", "[1] [3]", "[1 2]", "[1 2 3]", "[1 2]", "[1 2 3]"},
            {"[1]", "[1 2]", "[1 2]", "[1 3]", "[1 3]", "[1] [3]", "[1 2]", "[1 2 3]", "[1 2]", "[1 2 3]"},
            {"[1]", "[1 2]", "[1] [2]", "[1] [3]", "[1] [3]", "[1] [3]", "[1] [2]", "[1 2] [3]", "[1] [2]", "[1] [2 3]"},
            {"[1]", "[1] [2]", "[1] [2]", "[1] [3]", "[1] [3]", "[1] [3]", "[1] [2]", "[1] [2] [3]", "[1] [2]", "[1] [2 3]"},
    };
    for (int k = 0; k < 4; k++) {
        char what[128];
        const char *n = NAMES[k];
        if (k == GN && waits(GROUP_NORM_LOWERS, "the partitions of GroupNorm", "group normalization"))
            continue;
        if ((k == LN || k == RMS) && waits(LAYER_NORM_LOWERS, k == LN ? "the partitions of LayerNorm"
                        : "the partitions of RMSNorm", "layer normalization"))
            continue;
#define WHAT(s) (snprintf(what, sizeof what, "%s%s", n, s), what)
        new_graph(K);
        norm1(k, dnnl_f32);
        expect_parts(WHAT(""), want[k][0]);
        new_graph(K);
        norm1(k, dnnl_f32);
        def(3, dnnl_f32, 4, S, 0);
        add(unary(2, dnnl_graph_op_relu, 2, 3));
        expect_parts(WHAT(" + ReLU"), want[k][1]);
        new_graph(K);
        norm1(k, dnnl_f32);
        def(3, dnnl_f32, 4, S, 0);
        add(unary(2, dnnl_graph_op_sigmoid, 2, 3));
        expect_parts(WHAT(" + Sigmoid"), want[k][2]);
        new_graph(K);
        norm1(k, dnnl_f32);
        def(4, dnnl_f32, 4, P4, 0), def(6, dnnl_f32, 4, S, 0);
        add(binary(3, dnnl_graph_op_multiply, 2, 4, 6));
        expect_parts(WHAT(" + Multiply (broadcast)"), want[k][3]);
        new_graph(K);
        norm1(k, dnnl_f32);
        def(4, dnnl_f32, 4, S, 0), def(6, dnnl_f32, 4, S, 0);
        add(binary(3, dnnl_graph_op_add, 4, 2, 6));
        expect_parts(WHAT(" + Add (swapped)"), want[k][4]);
        new_graph(K);
        norm1(k, dnnl_f32);
        def(4, dnnl_f32, 4, S, 0), def(6, dnnl_f32, 4, S, 0);
        add(binary(3, dnnl_graph_op_subtract, 4, 2, 6));
        expect_parts(WHAT(" + Subtract (chain second)"), want[k][5]);
        new_graph(K);
        norm1(k, dnnl_f32);
        def(3, dnnl_u8, 4, S, 0);
        add(quantize(2, 2, 3));
        expect_parts(WHAT(" + Quantize"), want[k][6]);
        new_graph(K);
        norm1(k, dnnl_f32);
        def(3, dnnl_f32, 4, S, 0), def(4, dnnl_u8, 4, S, 0);
        add(unary(2, dnnl_graph_op_relu, 2, 3));
        add(quantize(3, 3, 4));
        expect_parts(WHAT(" + ReLU + Quantize"), want[k][7]);
        new_graph(K);
        norm1(k, dnnl_bf16);
        def(3, dnnl_f32, 4, S, 0);
        add(unary(2, dnnl_graph_op_type_cast, 2, 3));
        expect_bf16_parts(WHAT(" (bf16) + TypeCast"), want[k][8]);
        new_graph(K);
        norm1(k, dnnl_bf16);
        def(3, dnnl_f32, 4, S, 0), def(4, dnnl_u8, 4, S, 0);
        add(unary(2, dnnl_graph_op_type_cast, 2, 3));
        add(quantize(3, 3, 4));
        /* TypeCast + Quantize alone: a partition of their own (BatchNormInference, RMSNorm). */
        expect_bf16_parts(WHAT(" (bf16) + TypeCast + Quantize"), want[k][9]);
#undef WHAT
    }
    /* Post-op counts: GroupNorm takes any number, LayerNorm 19, BatchNormInference one ReLU. */
    if (!waits(GROUP_NORM_LOWERS, "GroupNorm + 22 ReLU", "group normalization")) {
        new_graph(K);
        norm1(GN, dnnl_f32);
        relus(2, 22);
        expect_parts("GroupNorm + 22 ReLU",
                "[1 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71]");
    }
    new_graph(K);
    norm1(BN, dnnl_f32);
    relus(2, 3);
    expect_parts("BatchNormInference + 3 ReLU", "[1 50] [51] [52]");
    training_partitions();
    if (waits(LAYER_NORM_LOWERS, "the partitions of LayerNorm's chains", "layer normalization")) return;
    new_graph(K);
    norm1(LN, dnnl_f32);
    relus(2, 22);
    expect_parts("LayerNorm + 22 ReLU",
            "[1 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68] [69] [70] [71]");

    /* LayerNorm against upstream's binary patterns. Ours runs a binary op and its
     * post-ops as separate partitions: only the LayerNorm's own partition is compared. */
    const int ours = library_is_ours();
    ln_chain("rr", "[1 10 11]");
    ln_chain("ra", ours ? "[1] [10] [11]" : "[1] [10 11]");
    ln_chain("rra", ours ? "[1 10] [11] [12]" : "[1 10] [11 12]");
    ln_chain("ram", ours ? "[1 10] [11] [12]" : "[1 10] [11 12]");
    ln_chain("am", ours ? "[1] [10] [11]" : "[1] [10 11]");
    ln_chain("rmr", ours ? "[1 10] [11] [12]" : "[1 10] [11 12]");
    ln_chain("aQ", "[1 10 11]");
    ln_chain("rrQ", "[1 10 11 12]");
    ln_chain("raQ", ours ? "[1] [10] [11] [12]" : "[1] [10 11] [12]");

    /* LayerNorm over other axes than the last: not supported. */
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, S, 0);
    dnnl_graph_op_t op = unary(1, dnnl_graph_op_layer_norm, 1, 2);
    int64_t axis = 2;
    set_s64s(op, dnnl_graph_op_attr_begin_norm_axis, 1, &axis);
    set_bool(op, dnnl_graph_op_attr_keep_stats, 0);
    add(op);
    expect_parts("LayerNorm, begin_norm_axis 2", "[1]!");

    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, S, 0), def(3, dnnl_f32, 3, ST, 0);
    def(4, dnnl_f32, 3, ST, 0), def(5, dnnl_f32, 4, S, 0);
    size_t lin[4] = {1, 2, 3, 4};
    op = mkop(1, dnnl_graph_op_layer_norm_backward, 4, lin, 5);
    set_bool(op, dnnl_graph_op_attr_use_affine, 0);
    add(op);
    expect_parts("LayerNormBackward", "[1]");
}

/* The batch normalizations' training ops. */
static void training_partitions(void) {
    const dnnl_engine_kind_t K = dnnl_cpu;
    dnnl_graph_op_t op;
    float eps = 1e-5f;
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0);
    for (size_t i = 0; i < 4; i++) def(30 + i, dnnl_f32, 1, C4, 0);
    for (size_t i = 0; i < 5; i++) def(2 + i, dnnl_f32, i ? 1 : 4, i ? C4 : S, 0);
    def(7, dnnl_f32, 4, S, 0);
    size_t bin[5] = {1, 30, 31, 32, 33}, bout[5] = {2, 3, 4, 5, 6};
    op = mkop_n(1, dnnl_graph_op_batch_norm_forward_training, 5, bin, 5, bout);
    set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
    set_str(op, dnnl_graph_op_attr_data_format, "NCX");
    add(op);
    add(unary(2, dnnl_graph_op_relu, 2, 7));
    expect_parts("BatchNormForwardTraining + ReLU", "[1 2]");
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, S, 0);
    for (size_t i = 0; i < 3; i++) def(30 + i, dnnl_f32, 1, C4, 0);
    def(3, dnnl_f32, 4, S, 0), def(4, dnnl_f32, 1, C4, 0), def(5, dnnl_f32, 1, C4, 0);
    size_t gin[5] = {1, 2, 30, 31, 32}, gout[3] = {3, 4, 5};
    op = mkop_n(1, dnnl_graph_op_batch_norm_backward, 5, gin, 3, gout);
    set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
    set_str(op, dnnl_graph_op_attr_data_format, "NCX");
    add(op);
    expect_parts("BatchNormTrainingBackward", "[1]");
}

/* ---- 2. numbers ---------------------------------------------------------------------- */

/* LayerNorm over the last axis of rows x n (keep_stats, affine) + Multiply by a tensor of
 * the last axis: dst, mean and variance against the definition. */
static void layer_norm(void) {
    const char *what = "LayerNorm (stats, affine) + Multiply";
    if (waits(LAYER_NORM_LOWERS, what, "layer normalization")) return;
    int64_t dims[3] = {3, 5, 37}, sd[2] = {3, 5}, cd[1] = {37};
    int64_t rows = 15, n = 37, total = rows * n;
    float *x = rand_f32(total, 2.0), *gamma = rand_f32(n, 1.0), *beta = rand_f32(n, 1.0);
    float *m = rand_f32(n, 1.0), *got = malloc(sizeof(float) * (size_t)total);
    float gm[15], gv[15];
    double *want = malloc(sizeof(double) * (size_t)total), *bound = malloc(sizeof(double) * (size_t)total);
    double wm[15], wv[15], bm[15];
    float eps = 1e-3f;

    new_graph(ekind);
    def(1, dnnl_f32, 3, dims, 0), def(2, dnnl_f32, 1, cd, 0), def(3, dnnl_f32, 1, cd, 0);
    def(4, dnnl_f32, 3, dims, 0), def(5, dnnl_f32, 2, sd, 0), def(6, dnnl_f32, 2, sd, 0);
    def(7, dnnl_f32, 1, cd, 0), def(8, dnnl_f32, 3, dims, 0);
    size_t in[3] = {1, 2, 3}, out[3] = {4, 5, 6};
    dnnl_graph_op_t op = mkop_n(1, dnnl_graph_op_layer_norm, 3, in, 3, out);
    set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
    add(op);
    add(binary(2, dnnl_graph_op_multiply, 4, 7, 8));
    put(1, x), put(2, gamma), put(3, beta), put(7, m);
    run_graph(what, 1, 1);
    get(8, got), get(5, gm), get(6, gv);
    for (int64_t r = 0; r < rows; r++) {
        double mean = 0, var = 0, amax = 0;
        for (int64_t i = 0; i < n; i++) mean += x[r * n + i], amax = fmax(amax, fabs(x[r * n + i]));
        mean /= (double)n;
        for (int64_t i = 0; i < n; i++) var += (x[r * n + i] - mean) * (x[r * n + i] - mean);
        var /= (double)n;
        wm[r] = mean, wv[r] = var, bm[r] = 4 * n * EPS * amax;
        double inv = 1 / sqrt(var + eps);
        for (int64_t i = 0; i < n; i++) {
            double y = ((x[r * n + i] - mean) * inv * gamma[i] + beta[i]) * m[i];
            want[r * n + i] = y;
            /* Statistics in f32: relative errors of about n ulps in the normalized value. */
            bound[r * n + i] = 8 * n * EPS * (fabs(y) + fabs(gamma[i] * m[i]) + amax * inv * fabs(gamma[i] * m[i]));
        }
    }
    expect_all(what, got, want, bound, total);
    expect_all("LayerNorm mean", gm, wm, bm, rows);
    for (int64_t r = 0; r < rows; r++) bm[r] = 8 * n * EPS * (wv[r] + 1);
    expect_all("LayerNorm variance", gv, wv, bm, rows);
    release_buffers();
    free(x), free(gamma), free(beta), free(m), free(got), free(want), free(bound);
}

/* RMSNorm over the last axis of 4 x 29 rows, with gamma or without:
 * dst = gamma * x / sqrt(mean(x^2) + eps). */
static void rms_norm(int with_gamma) {
    const char *what = with_gamma ? "RMSNorm (gamma)" : "RMSNorm";
    if (waits(LAYER_NORM_LOWERS, what, "layer normalization")) return;
    int64_t dims[2] = {4, 29}, cd[1] = {29}, rows = 4, n = 29, total = rows * n;
    float *x = rand_f32(total, 2.0), *gamma = rand_f32(n, 1.0), *got = malloc(sizeof(float) * (size_t)total);
    double *want = malloc(sizeof(double) * (size_t)total), *bound = malloc(sizeof(double) * (size_t)total);
    float eps = 1e-3f;
    new_graph(ekind);
    def(1, dnnl_f32, 2, dims, 0), def(2, dnnl_f32, 1, cd, 0), def(3, dnnl_f32, 2, dims, 0);
    size_t in[2] = {1, 2};
    dnnl_graph_op_t op = mkop(1, dnnl_graph_op_rms_norm, with_gamma ? 2 : 1, in, 3);
    set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
    add(op);
    put(1, x);
    if (with_gamma) put(2, gamma);
    run_graph(what, 1, 1);
    get(3, got);
    for (int64_t r = 0; r < rows; r++) {
        double ms = 0;
        for (int64_t i = 0; i < n; i++) ms += (double)x[r * n + i] * x[r * n + i];
        ms /= (double)n;
        double inv = 1 / sqrt(ms + eps);
        for (int64_t i = 0; i < n; i++) {
            double g = with_gamma ? gamma[i] : 1;
            want[r * n + i] = g * x[r * n + i] * inv;
            bound[r * n + i] = 8 * n * EPS * fabs(g) * (fabs(x[r * n + i]) * inv + 1);
        }
    }
    expect_all(what, got, want, bound, total);
    release_buffers();
    free(x), free(gamma), free(got), free(want), free(bound);
}

/* LayerNormBackward over the last axis of 3 x 4 x 19 (the rows' own statistics), with
 * use_affine (diff_gamma, diff_beta) or without: with xhat = (x - mean) * inv,
 * inv = 1 / sqrt(var + eps), g = gamma (1 without affine) and C elements per row,
 * diff_src = inv * (g dy - mean(g dy) - xhat * mean(g dy xhat)),
 * diff_gamma = sum over rows of dy xhat, diff_beta = sum over rows of dy. */
static void layer_norm_backward(int affine) {
    const char *what = affine ? "LayerNormBackward (affine)" : "LayerNormBackward";
    if (waits(LAYER_NORM_LOWERS, what, "layer normalization")) return;
    int64_t dims[3] = {3, 4, 19}, sd[2] = {3, 4}, cd[1] = {19}, rows = 12, n = 19, total = rows * n;
    float *x = rand_f32(total, 2.0), *dy = rand_f32(total, 1.0), *gamma = rand_f32(n, 1.0);
    float *beta = rand_f32(n, 1.0), mean[12], var[12], dg[19], db[19];
    float *got = malloc(sizeof(float) * (size_t)total);
    double *want = malloc(sizeof(double) * (size_t)total), *bound = malloc(sizeof(double) * (size_t)total);
    double wg[19] = {0}, wb[19] = {0}, bg[19], bb[19];
    float eps = 1e-3f;
    for (int64_t r = 0; r < rows; r++) {
        double m = 0, v = 0;
        for (int64_t i = 0; i < n; i++) m += x[r * n + i];
        m /= (double)n;
        for (int64_t i = 0; i < n; i++) v += (x[r * n + i] - m) * (x[r * n + i] - m);
        mean[r] = (float)m, var[r] = (float)(v / (double)n);
    }
    new_graph(ekind);
    def(1, dnnl_f32, 3, dims, 0), def(2, dnnl_f32, 3, dims, 0), def(3, dnnl_f32, 2, sd, 0);
    def(4, dnnl_f32, 2, sd, 0), def(5, dnnl_f32, 1, cd, 0), def(6, dnnl_f32, 1, cd, 0);
    def(7, dnnl_f32, 3, dims, 0), def(8, dnnl_f32, 1, cd, 0), def(9, dnnl_f32, 1, cd, 0);
    size_t in[6] = {1, 2, 3, 4, 5, 6}, out[3] = {7, 8, 9};
    dnnl_graph_op_t op = mkop_n(1, dnnl_graph_op_layer_norm_backward, affine ? 6 : 4, in, affine ? 3 : 1, out);
    set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
    set_bool(op, dnnl_graph_op_attr_use_affine, affine);
    add(op);
    put(1, x), put(2, dy), put(3, mean), put(4, var);
    if (affine) put(5, gamma), put(6, beta);
    run_graph(what, 1, 1);
    get(7, got);
    if (affine) get(8, dg), get(9, db);
    for (int64_t r = 0; r < rows; r++) {
        double inv = 1 / sqrt((double)var[r] + eps), a = 0, bsum = 0, mag = 0;
        for (int64_t i = 0; i < n; i++) {
            double g = affine ? gamma[i] : 1, xh = (x[r * n + i] - mean[r]) * inv;
            a += g * dy[r * n + i], bsum += g * dy[r * n + i] * xh, mag += fabs(g * dy[r * n + i]) * (1 + fabs(xh));
            wg[i] += dy[r * n + i] * xh, wb[i] += dy[r * n + i];
        }
        for (int64_t i = 0; i < n; i++) {
            double g = affine ? gamma[i] : 1, xh = (x[r * n + i] - mean[r]) * inv;
            want[r * n + i] = inv * (g * dy[r * n + i] - a / (double)n - xh * bsum / (double)n);
            bound[r * n + i] = 16 * n * EPS * inv * (fabs(g * dy[r * n + i]) + mag / (double)n * (1 + fabs(xh)) + 1);
        }
    }
    for (int64_t i = 0; i < n; i++) bg[i] = 16 * rows * EPS * (fabs(wg[i]) + 4), bb[i] = 16 * rows * EPS * (fabs(wb[i]) + 4);
    expect_all(what, got, want, bound, total);
    if (affine) {
        expect_all("LayerNormBackward diff_gamma", dg, wg, bg, n);
        expect_all("LayerNormBackward diff_beta", db, wb, bb, n);
    }
    release_buffers();
    free(x), free(dy), free(gamma), free(beta), free(got), free(want), free(bound);
}

/* GroupNorm (NXC, 3 groups of 2 channels, affine) + ReLU. */
static void group_norm(void) {
    const char *what = "GroupNorm NXC + ReLU";
    if (waits(GROUP_NORM_LOWERS, what, "group normalization")) return;
    int64_t N = 2, C = 6, G3 = 3, H = 5, W = 7;
    int64_t dims[4] = {N, H, W, C}, cd[1] = {C}, total = N * H * W * C;
    float *x = rand_f32(total, 2.0), *gamma = rand_f32(C, 1.0), *beta = rand_f32(C, 1.0);
    float *got = malloc(sizeof(float) * (size_t)total);
    double *want = malloc(sizeof(double) * (size_t)total), *bound = malloc(sizeof(double) * (size_t)total);
    new_graph(ekind);
    def(1, dnnl_f32, 4, dims, 0), def(2, dnnl_f32, 1, cd, 0), def(3, dnnl_f32, 1, cd, 0);
    def(4, dnnl_f32, 4, dims, 0), def(5, dnnl_f32, 4, dims, 0);
    size_t in[3] = {1, 2, 3};
    dnnl_graph_op_t op = mkop(1, dnnl_graph_op_group_norm, 3, in, 4);
    set_s64s(op, dnnl_graph_op_attr_groups, 1, &G3);
    set_bool(op, dnnl_graph_op_attr_keep_stats, 0);
    add(op);
    add(unary(2, dnnl_graph_op_relu, 4, 5));
    put(1, x), put(2, gamma), put(3, beta);
    run_graph(what, 1, 1);
    get(5, got);
    int64_t cg = C / G3, count = H * W * cg;
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G3; g++) {
            double mean = 0, var = 0;
            for (int64_t s = 0; s < H * W; s++)
                for (int64_t c = g * cg; c < (g + 1) * cg; c++) mean += x[(n * H * W + s) * C + c];
            mean /= (double)count;
            for (int64_t s = 0; s < H * W; s++)
                for (int64_t c = g * cg; c < (g + 1) * cg; c++) {
                    double d = x[(n * H * W + s) * C + c] - mean;
                    var += d * d;
                }
            var /= (double)count;
            double inv = 1 / sqrt(var + 1e-5);
            for (int64_t s = 0; s < H * W; s++)
                for (int64_t c = g * cg; c < (g + 1) * cg; c++) {
                    int64_t o = (n * H * W + s) * C + c;
                    double y = (x[o] - mean) * inv * gamma[c] + beta[c];
                    want[o] = y > 0 ? y : 0;
                    bound[o] = 16 * count * EPS * (fabs(y) + 4 * fabs(gamma[c]) + 1);
                }
        }
    expect_all(what, got, want, bound, total);
    release_buffers();
    free(x), free(gamma), free(beta), free(got), free(want), free(bound);
}

/* BatchNormInference (NCX) + ReLU, and BatchNormForwardTraining (NXC) + ReLU with its
 * batch statistics and running statistics (momentum 0.1; training 2: no momentum
 * attribute, NCX, no ReLU). */
static void batch_norm(int training) {
    const char *what = training == 2 ? "BatchNormForwardTraining NCX, default momentum"
            : training ? "BatchNormForwardTraining NXC + ReLU" : "BatchNormInference NCX + ReLU";
    int ncx = training != 1, relu = training != 2;
    int64_t N = 3, C = 5, H = 4, W = 6, total = N * C * H * W, sp = H * W;
    int64_t dims[4], cd[1] = {C};
    if (ncx) dims[0] = N, dims[1] = C, dims[2] = H, dims[3] = W;
    else dims[0] = N, dims[1] = H, dims[2] = W, dims[3] = C;
    float *x = rand_f32(total, 2.0), *gamma = rand_f32(C, 1.0), *beta = rand_f32(C, 1.0);
    float *mean = rand_f32(C, 0.5), *var = rand_f32(C, 0.5);
    for (int64_t c = 0; c < C; c++) var[c] = var[c] * var[c] + 0.25f;
    float *got = malloc(sizeof(float) * (size_t)total), st[4][5];
    double *want = malloc(sizeof(double) * (size_t)total), *bound = malloc(sizeof(double) * (size_t)total);
    double ws[4][5], bs[4][5];
    float eps = 1e-4f, mom = 0.1f;
    new_graph(ekind);
    def(1, dnnl_f32, 4, dims, 0);
    for (size_t i = 0; i < 4; i++) def(30 + i, dnnl_f32, 1, cd, 0);
    def(2, dnnl_f32, 4, dims, 0), def(7, dnnl_f32, 4, dims, 0);
    dnnl_graph_op_t op;
    if (training) {
        for (size_t i = 3; i < 7; i++) def(i, dnnl_f32, 1, cd, 0);
        /* src, running mean, running variance, gamma, beta -> dst, running mean, running
         * variance, batch mean, batch variance. */
        size_t in[5] = {1, 32, 33, 30, 31}, out[5] = {2, 3, 4, 5, 6};
        op = mkop_n(1, dnnl_graph_op_batch_norm_forward_training, 5, in, 5, out);
        if (training == 1) set_f32(op, dnnl_graph_op_attr_momentum, 1, &mom);
        else mom = DEFAULT_MOMENTUM;
    } else {
        size_t in[5] = {1, 30, 31, 32, 33};
        op = mkop(1, dnnl_graph_op_batch_norm_inference, 5, in, 2);
    }
    set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
    set_str(op, dnnl_graph_op_attr_data_format, ncx ? "NCX" : "NXC");
    add(op);
    if (relu) add(unary(2, dnnl_graph_op_relu, 2, 7));
    put(1, x), put(30, gamma), put(31, beta), put(32, mean), put(33, var);
    run_graph(what, 1, 1);
    get(relu ? 7 : 2, got);
    if (training)
        for (int i = 0; i < 4; i++) get(3 + (size_t)i, st[i]);
    for (int64_t c = 0; c < C; c++) {
        double m = mean[c], v = var[c], amax = 0;
        int64_t cnt = N * sp;
#define AT(n, s) (ncx ? ((n) * C + c) * sp + (s) : ((n) * sp + (s)) * C + c)
        if (training) {
            m = 0, v = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t s = 0; s < sp; s++) m += x[AT(n, s)], amax = fmax(amax, fabs(x[AT(n, s)]));
            m /= (double)cnt;
            for (int64_t n = 0; n < N; n++)
                for (int64_t s = 0; s < sp; s++) v += (x[AT(n, s)] - m) * (x[AT(n, s)] - m);
            v /= (double)cnt;
            /* running = momentum * running + (1 - momentum) * batch, as upstream's graph
             * op defines it. */
            ws[0][c] = mom * mean[c] + (1 - mom) * m, ws[1][c] = mom * var[c] + (1 - mom) * v;
            ws[2][c] = m, ws[3][c] = v;
            for (int i = 0; i < 4; i++) bs[i][c] = 8 * cnt * EPS * (amax * amax + 1);
        }
        double inv = 1 / sqrt(v + eps);
        for (int64_t n = 0; n < N; n++)
            for (int64_t s = 0; s < sp; s++) {
                double y = (x[AT(n, s)] - m) * inv * gamma[c] + beta[c];
                want[AT(n, s)] = y > 0 || !relu ? y : 0;
                bound[AT(n, s)] = 16 * (training ? cnt : 4) * EPS * (fabs(y) + 4 * fabs(gamma[c]) + 1);
            }
#undef AT
    }
    expect_all(what, got, want, bound, total);
    if (training) {
        const char *names[4] = {"running mean", "running variance", "batch mean", "batch variance"};
        for (int i = 0; i < 4; i++) expect_all(names[i], st[i], ws[i], bs[i], C);
    }
    release_buffers();
    free(x), free(gamma), free(beta), free(mean), free(var), free(got), free(want), free(bound);
}

/* BatchNormTrainingBackward (src, diff_dst, mean, variance[, gamma] -> diff_src[,
 * diff_gamma, diff_beta]) with the batch's statistics, against the gradient of the
 * normalization: with xhat = (x - mean) / sqrt(var + eps) and M elements per channel,
 * diff_beta = sum(dy), diff_gamma = sum(dy * xhat),
 * diff_src = gamma / sqrt(var + eps) * (dy - diff_beta / M - xhat * diff_gamma / M).
 * Without diff_gamma and diff_beta, Intel's library ignores gamma and treats the
 * statistics as constants: diff_src = dy / sqrt(var + eps). */
static void batch_norm_backward(int diffs, int with_gamma, int ncx) {
    char what[128];
    snprintf(what, sizeof what, "BatchNormTrainingBackward %s%s%s", ncx ? "NCX" : "NXC",
            with_gamma ? ", gamma" : "", diffs ? ", diff_gamma and diff_beta" : "");
    int64_t N = 2, C = 6, H = 5, W = 3, total = N * C * H * W, sp = H * W, cnt = N * sp;
    int64_t dims[4], cd[1] = {C};
    if (ncx) dims[0] = N, dims[1] = C, dims[2] = H, dims[3] = W;
    else dims[0] = N, dims[1] = H, dims[2] = W, dims[3] = C;
    float *x = rand_f32(total, 2.0), *dy = rand_f32(total, 1.0), *gamma = rand_f32(C, 1.0);
    float mean[6], var[6], dg[6], db[6], *got = malloc(sizeof(float) * (size_t)total);
    double *want = malloc(sizeof(double) * (size_t)total), *bound = malloc(sizeof(double) * (size_t)total);
    double wg[6], wb[6], bg[6], bb[6];
    float eps = 1e-3f;
#define AT(n, s) (ncx ? ((n) * C + c) * sp + (s) : ((n) * sp + (s)) * C + c)
    for (int64_t c = 0; c < C; c++) {
        double m = 0, v = 0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t s = 0; s < sp; s++) m += x[AT(n, s)];
        m /= (double)cnt;
        for (int64_t n = 0; n < N; n++)
            for (int64_t s = 0; s < sp; s++) v += (x[AT(n, s)] - m) * (x[AT(n, s)] - m);
        mean[c] = (float)m, var[c] = (float)(v / (double)cnt);
    }
    new_graph(ekind);
    def(1, dnnl_f32, 4, dims, 0), def(2, dnnl_f32, 4, dims, 0), def(3, dnnl_f32, 1, cd, 0);
    def(4, dnnl_f32, 1, cd, 0), def(5, dnnl_f32, 1, cd, 0), def(6, dnnl_f32, 4, dims, 0);
    def(7, dnnl_f32, 1, cd, 0), def(8, dnnl_f32, 1, cd, 0);
    size_t in[5] = {1, 2, 3, 4, 5}, out[3] = {6, 7, 8};
    dnnl_graph_op_t op = mkop_n(1, dnnl_graph_op_batch_norm_backward, with_gamma ? 5 : 4, in, diffs ? 3 : 1, out);
    set_f32(op, dnnl_graph_op_attr_epsilon, 1, &eps);
    set_str(op, dnnl_graph_op_attr_data_format, ncx ? "NCX" : "NXC");
    add(op);
    put(1, x), put(2, dy), put(3, mean), put(4, var);
    if (with_gamma) put(5, gamma);
    run_graph(what, 1, 1);
    get(6, got);
    if (diffs) get(7, dg), get(8, db);
    for (int64_t c = 0; c < C; c++) {
        double inv = 1 / sqrt((double)var[c] + eps), sb = 0, sg = 0, ab = 0, ag = 0;
        double g = with_gamma ? gamma[c] : 1;
        for (int64_t n = 0; n < N; n++)
            for (int64_t s = 0; s < sp; s++) {
                double xh = (x[AT(n, s)] - mean[c]) * inv;
                sb += dy[AT(n, s)], sg += dy[AT(n, s)] * xh;
                ab += fabs(dy[AT(n, s)]), ag += fabs(dy[AT(n, s)] * xh);
            }
        wg[c] = sg, wb[c] = sb, bg[c] = 8 * cnt * EPS * (ag + 1), bb[c] = 8 * cnt * EPS * (ab + 1);
        for (int64_t n = 0; n < N; n++)
            for (int64_t s = 0; s < sp; s++) {
                double xh = (x[AT(n, s)] - mean[c]) * inv;
                double d = diffs ? g * inv * (dy[AT(n, s)] - sb / (double)cnt - xh * sg / (double)cnt)
                                 : inv * dy[AT(n, s)];
                want[AT(n, s)] = d;
                bound[AT(n, s)] = 16 * cnt * EPS * fabs(g) * inv * (fabs(dy[AT(n, s)]) + (ab + ag * fabs(xh)) / (double)cnt + 1);
            }
    }
#undef AT
    expect_all(what, got, want, bound, total);
    if (diffs) {
        expect_all("diff_gamma", dg, wg, bg, C);
        expect_all("diff_beta", db, wb, bb, C);
    }
    release_buffers();
    free(x), free(dy), free(gamma), free(got), free(want), free(bound);
}

/* TypeCast (bf16 to f32) + Quantize (scale 1/4, zero point 0, u8), the partition of its
 * own after a BatchNormInference or RMSNorm: exact. */
static void typecast_quantize(void) {
    const char *what = "bf16 TypeCast + Quantize";
    int64_t dims[2] = {7, 9}, n = 63;
    uint16_t x[63];
    uint8_t got[63];
    new_graph(ekind);
    def(1, dnnl_bf16, 2, dims, 0), def(2, dnnl_f32, 2, dims, 0), def(3, dnnl_u8, 2, dims, 0);
    add(unary(1, dnnl_graph_op_type_cast, 1, 2));
    add(quantize(2, 2, 3));
    for (int64_t i = 0; i < n; i++) {
        float v = (float)((uniform() + 1) * 40);
        uint32_t bits;
        memcpy(&bits, &v, 4);
        x[i] = (uint16_t)(bits >> 16);
    }
    put(1, x);
    if (!run_bf16_graph(what, 1, 1)) {
        release_buffers();
        return;
    }
    get(3, got);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)x[i] << 16;
        float v;
        memcpy(&v, &bits, 4);
        double q = nearbyint(v / 0.25);
        q = q > 255 ? 255 : q;
        if (got[i] != (uint8_t)q && bad++ < 5)
            fprintf(stderr, "%s[%lld]: got %d, want %g\n", what, (long long)i, got[i], q);
    }
    if (bad) failures++;
    else printf("%s: %lld u8 results exact\n", what, (long long)n);
    release_buffers();
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    ekind = gpu ? dnnl_gpu : dnnl_cpu;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&eng, ekind, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    partitions();
    layer_norm();
    rms_norm(1);
    rms_norm(0);
    layer_norm_backward(1);
    layer_norm_backward(0);
    group_norm();
    batch_norm(0);
    batch_norm(1);
    batch_norm(2);
    batch_norm_backward(1, 1, 0);
    batch_norm_backward(0, 1, 1);
    batch_norm_backward(0, 0, 0);
    typecast_quantize();

    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed on the %s engine\n", gpu ? "OpenCL" : "CPU");
    return 0;
}
