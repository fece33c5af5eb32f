/* The reduction ops of the graph API (ReduceL1, ReduceL2, ReduceMax, ReduceMean, ReduceMin,
 * ReduceProd, ReduceSum) and PReLU / PReLUBackward:
 *   1. partitions: for each pattern, the partitions (op ids, and whether each is
 *      supported) must be the ones oneDNN v3.13 makes (the @ref run checks the same
 *      expectations against Intel's library): a reduction + at most 19 unary / binary
 *      post-ops (binary ones with the chain first, or either input of the commutative
 *      ones), no Quantize; PReLU and PReLUBackward alone;
 *   2. numbers: every reduction over several axes with keep_dims true and false, a
 *      reduction + ReLU + Add, PReLU per channel (NCX and NXC), PReLUBackward; every
 *      output element against a reference computed here in double.
 * Argument "cpu" (the CPU engine) or "gpu" (OpenCL engine 0, USM: skipped without it). */
#include "graph_case.h"

/* PReLU and PReLUBackward lower onto the PReLU primitive: their cases wait for it. */
#define PRELU_LOWERS 1

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

static const dnnl_graph_op_kind_t KINDS[7] = {dnnl_graph_op_reduce_l1, dnnl_graph_op_reduce_l2,
        dnnl_graph_op_reduce_max, dnnl_graph_op_reduce_mean, dnnl_graph_op_reduce_min,
        dnnl_graph_op_reduce_prod, dnnl_graph_op_reduce_sum};
static const char *NAMES[7] = {"ReduceL1", "ReduceL2", "ReduceMax", "ReduceMean", "ReduceMin",
        "ReduceProd", "ReduceSum"};

static dnnl_graph_op_t reduce_op(size_t id, int k, size_t src, size_t dst, int naxes, const int64_t *axes, int keep) {
    dnnl_graph_op_t op = unary(id, KINDS[k], src, dst);
    set_s64s(op, dnnl_graph_op_attr_axes, naxes, axes);
    set_bool(op, dnnl_graph_op_attr_keep_dims, keep);
    return op;
}

/* ---- 1. partitions ------------------------------------------------------------------- */

static const int64_t S[] = {2, 4, 6, 6}, RD[] = {2, 4, 1, 1}, P4[] = {1, 4, 1, 1}, C4[] = {4};
static const int64_t AX[2] = {2, 3};

static void partitions(void) {
    const dnnl_engine_kind_t K = dnnl_cpu;
    char what[128];
    for (int k = 0; k < 7; k++) {
        new_graph(K);
        def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, RD, 0);
        add(reduce_op(1, k, 1, 2, 2, AX, 1));
        snprintf(what, sizeof what, "%s", NAMES[k]);
        expect_parts(what, "[1]");
    }
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, RD, 0), def(3, dnnl_f32, 4, RD, 0);
    def(4, dnnl_f32, 4, P4, 0), def(5, dnnl_f32, 4, RD, 0), def(6, dnnl_f32, 4, RD, 0);
    add(reduce_op(1, 6, 1, 2, 2, AX, 1));
    add(unary(2, dnnl_graph_op_relu, 2, 3));
    add(binary(3, dnnl_graph_op_add, 4, 3, 5));
    add(binary(4, dnnl_graph_op_divide, 5, 4, 6));
    expect_parts("ReduceSum + ReLU + Add (swapped, broadcast) + Divide", "[1 2 3 4]");
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, RD, 0), def(3, dnnl_f32, 4, RD, 0);
    def(4, dnnl_f32, 4, RD, 0);
    add(reduce_op(1, 3, 1, 2, 2, AX, 1));
    add(binary(2, dnnl_graph_op_subtract, 3, 2, 4));
    expect_parts("ReduceMean + Subtract (chain second)", "[1] [2]");
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, RD, 0);
    add(reduce_op(1, 2, 1, 2, 2, AX, 1));
    size_t from = 2;
    for (size_t i = 0; i < 22; i++) {
        def(100 + i, dnnl_f32, 4, RD, 0);
        add(unary(50 + i, dnnl_graph_op_relu, from, 100 + i));
        from = 100 + i;
    }
    expect_parts("ReduceMax + 22 ReLU",
            "[1 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68] [69] [70] [71]");
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, RD, 0), def(3, dnnl_u8, 4, RD, 0);
    add(reduce_op(1, 6, 1, 2, 2, AX, 1));
    dnnl_graph_op_t q = unary(2, dnnl_graph_op_quantize, 2, 3);
    float sc = 0.5f;
    int64_t zp = 0;
    set_f32(q, dnnl_graph_op_attr_scales, 1, &sc);
    set_s64s(q, dnnl_graph_op_attr_zps, 1, &zp);
    add(q);
    expect_parts("ReduceSum + Quantize", "[1] [2]");

    /* PReLU: no fusion. */
    if (waits(PRELU_LOWERS, "the partitions of PReLU and PReLUBackward", "PReLU")) return;
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(9, dnnl_f32, 1, C4, 0), def(2, dnnl_f32, 4, S, 0);
    def(3, dnnl_f32, 4, S, 0);
    dnnl_graph_op_t op = binary(1, dnnl_graph_op_prelu, 1, 9, 2);
    set_str(op, dnnl_graph_op_attr_data_format, "NCX");
    add(op);
    add(unary(2, dnnl_graph_op_relu, 2, 3));
    expect_parts("PReLU + ReLU", "[1] [2]");
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(9, dnnl_f32, 1, C4, 0), def(2, dnnl_f32, 4, S, 0);
    def(3, dnnl_f32, 4, S, 0), def(4, dnnl_f32, 1, C4, 0);
    size_t in[3] = {1, 9, 2}, out[2] = {3, 4};
    op = mkop_n(1, dnnl_graph_op_prelu_backward, 3, in, 2, out);
    set_str(op, dnnl_graph_op_attr_data_format, "NCX");
    add(op);
    expect_parts("PReLUBackward", "[1]");
}

/* ---- 2. numbers ---------------------------------------------------------------------- */

/* Reduction k of a 3x5x4x7 tensor over axes (1, -1), keep_dims as given. */
static void reduction(int k, int keep) {
    char what[96];
    snprintf(what, sizeof what, "%s over (1, -1)%s", NAMES[k], keep ? ", keep_dims" : "");
    int64_t sd[4] = {3, 5, 4, 7}, kd[4] = {3, 1, 4, 1}, dd[2] = {3, 4}, axes[2] = {1, -1};
    int64_t ns = volume(4, sd), nd = 12;
    float *x = rand_f32(ns, 1.0), got[12];
    double want[12], bound[12];
    for (int64_t i = 0; i < ns; i++)
        if (k == 5) x[i] = (float)(1 + 0.02 * x[i]); /* products near 1 */
    new_graph(ekind);
    def(1, dnnl_f32, 4, sd, 0);
    if (keep) def(2, dnnl_f32, 4, kd, 0);
    else def(2, dnnl_f32, 2, dd, 0);
    add(reduce_op(1, k, 1, 2, 2, axes, keep));
    put(1, x);
    run_graph(what, 1, 1);
    get(2, got);
    for (int64_t a = 0; a < 3; a++)
        for (int64_t h = 0; h < 4; h++) {
            double acc = k == 5 ? 1 : k == 2 ? -INFINITY : k == 4 ? INFINITY : 0, mag = 0;
            for (int64_t c = 0; c < 5; c++)
                for (int64_t w = 0; w < 7; w++) {
                    double v = x[((a * 5 + c) * 4 + h) * 7 + w];
                    switch (k) {
                    case 0: acc += fabs(v); break;
                    case 1: acc += v * v; break;
                    case 2: acc = fmax(acc, v); break;
                    case 4: acc = fmin(acc, v); break;
                    case 5: acc *= v; break;
                    default: acc += v; break;
                    }
                    mag += fabs(v);
                }
            if (k == 1) acc = sqrt(acc);
            if (k == 3) acc /= 35, mag /= 35;
            want[a * 4 + h] = acc;
            bound[a * 4 + h] = k == 2 || k == 4 ? 0 : 40 * EPS * (mag + fabs(acc));
        }
    expect_all(what, got, want, bound, nd);
    release_buffers();
    free(x);
}

/* ReduceMean over the spatial axes + ReLU + Add of a per-channel tensor. */
static void reduction_chain(void) {
    const char *what = "ReduceMean + ReLU + Add";
    int64_t sd[4] = {2, 3, 5, 6}, kd[4] = {2, 3, 1, 1}, cd[4] = {1, 3, 1, 1}, axes[2] = {2, 3};
    int64_t ns = volume(4, sd);
    float *x = rand_f32(ns, 1.0), *b = rand_f32(3, 1.0), got[6];
    double want[6], bound[6];
    new_graph(ekind);
    def(1, dnnl_f32, 4, sd, 0), def(2, dnnl_f32, 4, kd, 0), def(3, dnnl_f32, 4, kd, 0);
    def(4, dnnl_f32, 4, cd, 0), def(5, dnnl_f32, 4, kd, 0);
    add(reduce_op(1, 3, 1, 2, 2, axes, 1));
    add(unary(2, dnnl_graph_op_relu, 2, 3));
    add(binary(3, dnnl_graph_op_add, 3, 4, 5));
    put(1, x), put(4, b);
    run_graph(what, 1, 1);
    get(5, got);
    for (int64_t i = 0; i < 6; i++) {
        double acc = 0, mag = 0;
        for (int64_t s = 0; s < 30; s++) acc += x[i * 30 + s], mag += fabs(x[i * 30 + s]);
        acc /= 30;
        want[i] = (acc > 0 ? acc : 0) + b[i % 3];
        bound[i] = 40 * EPS * (mag / 30 + fabs(want[i]));
    }
    expect_all(what, got, want, bound, 6);
    release_buffers();
    free(x), free(b);
}

/* PReLU with a per-channel slope (NCX or NXC), and PReLUBackward (NCX) with its slope
 * gradient. */
static void prelu(int ncx, int backward) {
    const char *what = backward ? "PReLUBackward NCX" : ncx ? "PReLU NCX" : "PReLU NXC";
    if (waits(PRELU_LOWERS, what, "PReLU")) return;
    int64_t N = 2, C = 5, H = 3, W = 4, total = N * C * H * W, sp = H * W;
    int64_t dims[4], cd[1] = {C};
    if (ncx) dims[0] = N, dims[1] = C, dims[2] = H, dims[3] = W;
    else dims[0] = N, dims[1] = H, dims[2] = W, dims[3] = C;
    float *x = rand_f32(total, 1.0), *slope = rand_f32(C, 1.0), *dy = rand_f32(total, 1.0);
    float *got = malloc(sizeof(float) * (size_t)total), gs[5];
    double *want = malloc(sizeof(double) * (size_t)total), *bound = calloc((size_t)total, sizeof(double));
    double ws[5] = {0}, bs[5];
    new_graph(ekind);
    def(1, dnnl_f32, 4, dims, 0), def(9, dnnl_f32, 1, cd, 0), def(2, dnnl_f32, 4, dims, 0);
    dnnl_graph_op_t op;
    if (backward) {
        def(3, dnnl_f32, 4, dims, 0), def(4, dnnl_f32, 1, cd, 0);
        size_t in[3] = {1, 9, 2}, out[2] = {3, 4};
        op = mkop_n(1, dnnl_graph_op_prelu_backward, 3, in, 2, out);
        put(2, dy);
    } else {
        op = binary(1, dnnl_graph_op_prelu, 1, 9, 2);
    }
    set_str(op, dnnl_graph_op_attr_data_format, ncx ? "NCX" : "NXC");
    add(op);
    put(1, x), put(9, slope);
    run_graph(what, 1, 1);
    get(backward ? 3 : 2, got);
    if (backward) get(4, gs);
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t s = 0; s < sp; s++) {
                int64_t o = ncx ? (n * C + c) * sp + s : (n * sp + s) * C + c;
                if (backward) {
                    want[o] = x[o] > 0 ? dy[o] : slope[c] * dy[o];
                    if (x[o] <= 0) ws[c] += x[o] * dy[o];
                } else {
                    want[o] = x[o] > 0 ? x[o] : slope[c] * x[o];
                }
            }
    expect_all(what, got, want, bound, total);
    if (backward) {
        for (int64_t c = 0; c < C; c++) bs[c] = 4 * N * sp * EPS;
        expect_all("PReLUBackward diff_slope", gs, ws, bs, C);
    }
    release_buffers();
    free(x), free(slope), free(dy), free(got), free(want), free(bound);
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    ekind = gpu ? dnnl_gpu : dnnl_cpu;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&eng, ekind, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    partitions();
    for (int k = 0; k < 7; k++) reduction(k, k % 2);
    reduction_chain();
    prelu(1, 0);
    prelu(0, 0);
    prelu(1, 1);

    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed on the %s engine\n", gpu ? "OpenCL" : "CPU");
    return 0;
}
