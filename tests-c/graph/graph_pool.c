/* The pooling and resampling ops of the graph API (MaxPool, AvgPool, their backward ops,
 * Interpolate, InterpolateBackward) and their fusion patterns:
 *   1. partitions: for each pattern, the partitions (op ids, and whether each is
 *      supported) must be the ones oneDNN v3.13 makes (the @ref run checks the same
 *      expectations against Intel's library): pooling + at most 19 unary / binary post-ops
 *      (binary ones with the chain first, or either input of the commutative ones; no
 *      Reciprocal, no SquaredDifference),
 *      int8 Dequantize -> pooling -> Quantize (with an Add of a dequantized tensor),
 *      Interpolate + at most 19 post-ops (binary ones with the chain first, or either
 *      input of the commutative ones), no Quantize after Interpolate; the limits: AvgPool
 *      with rounding_type ceil counting the padding, Interpolate with align_corners;
 *   2. numbers: each lowered pattern run on the engine and every output element compared
 *      with a reference computed here in double: NCX and NXC, padding, strides,
 *      dilations, ceil rounding, exclude_pad, auto_pad, the backward ops, Interpolate
 *      nearest (sizes) and bilinear (scales), int8 max pooling (exact).
 * Argument "cpu" (the CPU engine) or "gpu" (OpenCL engine 0, USM: skipped without it). */
#include "graph_case.h"

/* Interpolate lowers onto the resampling primitive: its cases wait for it. */
#define INTERPOLATE_LOWERS 1

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

/* Per-tensor (de)quantization with scale `sc` and zero point `zp`. */
static dnnl_graph_op_t quant(size_t id, dnnl_graph_op_kind_t kind, size_t a, size_t out, float sc, int64_t zp) {
    dnnl_graph_op_t op = unary(id, kind, a, out);
    set_f32(op, dnnl_graph_op_attr_scales, 1, &sc);
    set_s64s(op, dnnl_graph_op_attr_zps, 1, &zp);
    set_str(op, dnnl_graph_op_attr_qtype, "per_tensor");
    return op;
}

/* Pooling attributes (2-D unless nsp says otherwise); zeros mean stride and dilation 1. */
typedef struct {
    int nsp;
    int64_t k[3], s[3], d[3], pb[3], pe[3];
    int ncx, avg, exclude, ceil;
    const char *auto_pad;
} pattr_t;

static void pool_attrs(dnnl_graph_op_t op, const pattr_t *p) {
    int64_t s[3], d[3];
    for (int i = 0; i < p->nsp; i++) {
        s[i] = p->s[i] ? p->s[i] : 1;
        d[i] = p->d[i] ? p->d[i] : 1;
    }
    set_s64s(op, dnnl_graph_op_attr_kernel, p->nsp, p->k);
    set_s64s(op, dnnl_graph_op_attr_strides, p->nsp, s);
    set_s64s(op, dnnl_graph_op_attr_pads_begin, p->nsp, p->pb);
    set_s64s(op, dnnl_graph_op_attr_pads_end, p->nsp, p->pe);
    set_str(op, dnnl_graph_op_attr_data_format, p->ncx ? "NCX" : "NXC");
    if (!p->avg) set_s64s(op, dnnl_graph_op_attr_dilations, p->nsp, d);
    if (p->avg) set_bool(op, dnnl_graph_op_attr_exclude_pad, p->exclude);
    if (p->ceil) set_str(op, dnnl_graph_op_attr_rounding_type, "ceil");
    if (p->auto_pad) set_str(op, dnnl_graph_op_attr_auto_pad, p->auto_pad);
}

static dnnl_graph_op_t pool_op(size_t id, size_t src, size_t dst, const pattr_t *p) {
    dnnl_graph_op_t op = unary(id, p->avg ? dnnl_graph_op_avg_pool : dnnl_graph_op_max_pool, src, dst);
    pool_attrs(op, p);
    return op;
}

static dnnl_graph_op_t interp_op(size_t id, size_t src, size_t dst, const char *mode, int nsp,
        const int64_t *sizes, const float *scales, int ncx) {
    dnnl_graph_op_t op = unary(id, dnnl_graph_op_interpolate, src, dst);
    set_str(op, dnnl_graph_op_attr_mode, mode);
    if (sizes) set_s64s(op, dnnl_graph_op_attr_sizes, nsp, sizes);
    if (scales) set_f32(op, dnnl_graph_op_attr_scales, nsp, scales);
    set_str(op, dnnl_graph_op_attr_data_format, ncx ? "NCX" : "NXC");
    return op;
}

/* ---- 1. partitions ------------------------------------------------------------------- */

/* 1x4x6x6 -> 1x4x3x3 (kernel 2, stride 2, NCX); P4 broadcasts per channel. */
static const int64_t S[] = {1, 4, 6, 6}, D[] = {1, 4, 3, 3}, P4[] = {1, 4, 1, 1}, U[] = {1, 4, 12, 12};
static const pattr_t K2 = {.nsp = 2, .k = {2, 2}, .s = {2, 2}, .ncx = 1};

/* A chain of n ReLUs from tensor `from` (ids 100.., ops 50..) of shape d. */
static void relus(size_t from, int n, const int64_t *d) {
    for (int i = 0; i < n; i++) {
        def(100 + (size_t)i, dnnl_f32, 4, d, 0);
        add(unary(50 + (size_t)i, dnnl_graph_op_relu, from, 100 + (size_t)i));
        from = 100 + (size_t)i;
    }
}

/* Pooling (avg or max) 1: src 1 -> 2. */
static void pool1(int avg, dnnl_data_type_t dt) {
    pattr_t p = K2;
    p.avg = avg;
    def(1, dt, 4, S, 0), def(2, dt, 4, D, 0);
    add(pool_op(1, 1, 2, &p));
}

/* Interpolate 1 (nearest, to 12x12): src 1 -> 2. */
static void interp1(void) {
    static const int64_t sz[2] = {12, 12};
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, U, 0);
    add(interp_op(1, 1, 2, "nearest", 2, sz, NULL, 1));
}

static void interp_partitions(void);

static void partitions(void) {
    const dnnl_engine_kind_t K = dnnl_cpu;
    for (int avg = 0; avg < 2; avg++) {
        char what[128];
        const char *name = avg ? "AvgPool" : "MaxPool";
#define WHAT(s) (snprintf(what, sizeof what, "%s%s", name, s), what)
        new_graph(K);
        pool1(avg, dnnl_f32);
        expect_parts(WHAT(""), "[1]");

        new_graph(K);
        pool1(avg, dnnl_f32);
        def(3, dnnl_f32, 4, D, 0), def(4, dnnl_f32, 4, P4, 0), def(5, dnnl_f32, 4, D, 0);
        def(6, dnnl_f32, 4, D, 0), def(7, dnnl_f32, 4, D, 0);
        add(unary(2, dnnl_graph_op_relu, 2, 3));
        add(binary(3, dnnl_graph_op_multiply, 4, 3, 5));
        add(binary(4, dnnl_graph_op_subtract, 5, 4, 6));
        add(unary(5, dnnl_graph_op_gelu, 6, 7));
        expect_parts(WHAT(" + ReLU + Multiply (swapped, broadcast) + Subtract + GELU"), "[1 2 3 4 5]");

        /* A Subtract with the chain second is not taken. */
        new_graph(K);
        pool1(avg, dnnl_f32);
        def(3, dnnl_f32, 4, D, 0), def(4, dnnl_f32, 4, D, 0);
        add(binary(2, dnnl_graph_op_subtract, 3, 2, 4));
        expect_parts(WHAT(" + Subtract (chain second)"), "[1] [2]");

        new_graph(K);
        pool1(avg, dnnl_f32);
        def(3, dnnl_f32, 4, D, 0), def(4, dnnl_f32, 4, D, 0);
        add(binary(2, dnnl_graph_op_squared_difference, 2, 3, 4));
        expect_parts(WHAT(" + SquaredDifference"), "[1] [2]");

        new_graph(K);
        pool1(avg, dnnl_f32);
        def(3, dnnl_f32, 4, D, 0);
        add(unary(2, dnnl_graph_op_reciprocal, 2, 3));
        /* Intel's library does not support a Reciprocal alone; ours does. */
        expect_parts(WHAT(" + Reciprocal"), "~[1] [2]");

        new_graph(K);
        pool1(avg, dnnl_f32);
        relus(2, 22, D);
        expect_parts(WHAT(" + 22 ReLU"),
                "[1 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68] [69] [70] [71]");

        new_graph(K);
        pool1(avg, dnnl_f32);
        def(3, dnnl_f32, 4, D, 0), def(4, dnnl_f32, 4, D, 0);
        add(unary(2, dnnl_graph_op_relu, 2, 3));
        pattr_t p = K2;
        p.avg = avg;
        static const int64_t D2[] = {1, 4, 1, 1};
        def(4, dnnl_f32, 4, D2, 0);
        add(pool_op(3, 3, 4, &p));
        expect_parts(WHAT(" + ReLU + pooling"), "[1 2] [3]");

        /* bf16 + TypeCast: not fused. */
        new_graph(K);
        pool1(avg, dnnl_bf16);
        def(3, dnnl_f32, 4, D, 0);
        add(unary(2, dnnl_graph_op_type_cast, 2, 3));
        expect_bf16_parts(WHAT(" (bf16) + TypeCast"), "[1] [2]");

        /* int8: a Dequantize and a Quantize around it, or neither. */
        pattr_t q = K2;
        q.avg = avg;
        new_graph(K);
        def(10, dnnl_u8, 4, S, 0), def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, D, 0);
        def(3, dnnl_u8, 4, D, 0);
        add(quant(20, dnnl_graph_op_dequantize, 10, 1, 0.5f, 0));
        add(pool_op(1, 1, 2, &q));
        add(quant(21, dnnl_graph_op_quantize, 2, 3, 0.5f, 0));
        expect_parts(WHAT(" int8: Dequantize + pooling + Quantize"), "[1 20 21]");
        new_graph(K);
        def(10, dnnl_u8, 4, S, 0), def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, D, 0);
        add(quant(20, dnnl_graph_op_dequantize, 10, 1, 0.5f, 0));
        add(pool_op(1, 1, 2, &q));
        expect_parts(WHAT(" int8: Dequantize + pooling"), "[1] [20]");
        new_graph(K);
        pool1(avg, dnnl_f32);
        def(3, dnnl_u8, 4, D, 0);
        add(quant(21, dnnl_graph_op_quantize, 2, 3, 0.5f, 0));
        expect_parts(WHAT(" + Quantize"), "[1] [21]");
        new_graph(K);
        def(10, dnnl_u8, 4, S, 0), def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, D, 0);
        def(11, dnnl_u8, 4, D, 0), def(12, dnnl_f32, 4, D, 0), def(4, dnnl_f32, 4, D, 0);
        def(3, dnnl_u8, 4, D, 0);
        add(quant(20, dnnl_graph_op_dequantize, 10, 1, 0.5f, 0));
        add(pool_op(1, 1, 2, &q));
        add(quant(22, dnnl_graph_op_dequantize, 11, 12, 0.5f, 0));
        add(binary(2, dnnl_graph_op_add, 2, 12, 4));
        add(quant(21, dnnl_graph_op_quantize, 4, 3, 0.5f, 0));
        expect_parts(WHAT(" int8: Dequantize + pooling + Add (Dequantize) + Quantize"), "[1 2 20 21 22]");
#undef WHAT
    }

    /* The limits. */
    new_graph(K);
    pattr_t ceil_incl = K2;
    ceil_incl.avg = 1, ceil_incl.ceil = 1;
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, D, 0);
    add(pool_op(1, 1, 2, &ceil_incl));
    expect_parts("AvgPool, ceil, padding counted", "[1]!");
    new_graph(K);
    ceil_incl.exclude = 1;
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, D, 0);
    add(pool_op(1, 1, 2, &ceil_incl));
    expect_parts("AvgPool, ceil, padding excluded", "[1]");

    /* Backward ops alone. */
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, D, 0), def(3, dnnl_f32, 4, S, 0);
    dnnl_graph_op_t op = binary(1, dnnl_graph_op_max_pool_backward, 1, 2, 3);
    pool_attrs(op, &K2);
    add(op);
    expect_parts("MaxPoolBackward", "[1]");
    new_graph(K);
    def(2, dnnl_f32, 4, D, 0), def(3, dnnl_f32, 4, S, 0);
    op = unary(1, dnnl_graph_op_avg_pool_backward, 2, 3);
    pattr_t ab = K2;
    ab.avg = 1;
    pool_attrs(op, &ab);
    set_s64s(op, dnnl_graph_op_attr_src_shape, 4, S);
    add(op);
    expect_parts("AvgPoolBackward", "[1]");

    interp_partitions();
}

static void interp_partitions(void) {
    const dnnl_engine_kind_t K = dnnl_cpu;
    dnnl_graph_op_t op;
    if (waits(INTERPOLATE_LOWERS, "the partitions of Interpolate", "resampling")) return;
    new_graph(K);
    interp1();
    expect_parts("Interpolate", "[1]");
    new_graph(K);
    interp1();
    def(3, dnnl_f32, 4, U, 0), def(4, dnnl_f32, 4, P4, 0), def(5, dnnl_f32, 4, U, 0);
    add(unary(2, dnnl_graph_op_relu, 2, 3));
    add(binary(3, dnnl_graph_op_add, 4, 3, 5));
    expect_parts("Interpolate + ReLU + Add (swapped, broadcast)", "[1 2 3]");
    new_graph(K);
    interp1();
    def(3, dnnl_f32, 4, U, 0), def(4, dnnl_f32, 4, U, 0);
    add(binary(2, dnnl_graph_op_subtract, 3, 2, 4));
    expect_parts("Interpolate + Subtract (chain second)", "[1] [2]");
    new_graph(K);
    interp1();
    relus(2, 22, U);
    expect_parts("Interpolate + 22 ReLU",
            "[1 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68] [69] [70] [71]");
    new_graph(K);
    interp1();
    def(3, dnnl_u8, 4, U, 0);
    add(quant(2, dnnl_graph_op_quantize, 2, 3, 0.5f, 0));
    expect_parts("Interpolate + Quantize", "[1] [2]");
    static const int64_t sz[2] = {12, 12};
    const char *modes[] = {"nearest", "linear", "bilinear"};
    for (int m = 0; m < 3; m++) {
        char what[96];
        new_graph(K);
        def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, U, 0);
        op = interp_op(1, 1, 2, modes[m], 2, sz, NULL, 1);
        set_str(op, dnnl_graph_op_attr_coordinate_transformation_mode, "align_corners");
        add(op);
        snprintf(what, sizeof what, "Interpolate %s, align_corners", modes[m]);
        expect_parts(what, "[1]!");
    }
    new_graph(K);
    def(1, dnnl_f32, 4, S, 0), def(2, dnnl_f32, 4, U, 0), def(3, dnnl_f32, 4, S, 0);
    op = binary(1, dnnl_graph_op_interpolate_backward, 1, 2, 3);
    set_str(op, dnnl_graph_op_attr_mode, "nearest");
    set_str(op, dnnl_graph_op_attr_data_format, "NCX");
    set_s64s(op, dnnl_graph_op_attr_sizes, 2, sz);
    add(op);
    expect_parts("InterpolateBackward", "[1]");
}

/* ---- 2. numbers ---------------------------------------------------------------------- */

/* Dims of a 4-D tensor in the graph's order for data_format ncx. */
static void dims4(int ncx, int64_t n, int64_t c, int64_t h, int64_t w, int64_t *d) {
    if (ncx) d[0] = n, d[1] = c, d[2] = h, d[3] = w;
    else d[0] = n, d[1] = h, d[2] = w, d[3] = c;
}

/* Offset of (n, c, h, w) in a dense tensor of dims (N, C, H, W) in the graph's order. */
static int64_t off4(int ncx, int64_t C, int64_t H, int64_t W, int64_t n, int64_t c, int64_t h, int64_t w) {
    return ncx ? ((n * C + c) * H + h) * W + w : ((n * H + h) * W + w) * C + c;
}

/* Output size of one spatial axis. */
static int64_t out_size(int64_t i, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, int ceil) {
    int64_t span = i + pb + pe - ((k - 1) * d + 1);
    return (ceil ? (span + s - 1) / s : span / s) + 1;
}

typedef struct {
    int64_t N, C, IH, IW, OH, OW;
    int64_t k[2], s[2], d[2], pb[2];
} geom_t;

static geom_t geom(const pattr_t *p, int64_t N, int64_t C, int64_t IH, int64_t IW, const int64_t *pe) {
    geom_t g = {.N = N, .C = C, .IH = IH, .IW = IW};
    for (int i = 0; i < 2; i++) {
        g.k[i] = p->k[i];
        g.s[i] = p->s[i] ? p->s[i] : 1;
        g.d[i] = p->d[i] ? p->d[i] : 1;
        g.pb[i] = p->pb[i];
    }
    g.OH = out_size(IH, g.k[0], g.s[0], g.d[0], p->pb[0], pe[0], p->ceil);
    g.OW = out_size(IW, g.k[1], g.s[1], g.d[1], p->pb[1], pe[1], p->ceil);
    return g;
}

/* Reference pooling into want (dense, graph order of the output). Average: exclude_pad
 * divides by the window's overlap with the image, otherwise by the window's overlap with
 * the padded image (positions past the end padding, from ceil rounding, never count). */
static void pool_ref(const pattr_t *p, const geom_t *g, const int64_t *pe, const float *src, double *want) {
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t c = 0; c < g->C; c++)
            for (int64_t oh = 0; oh < g->OH; oh++)
                for (int64_t ow = 0; ow < g->OW; ow++) {
                    double acc = p->avg ? 0 : -INFINITY;
                    int64_t count = 0, total = 0;
                    for (int64_t kh = 0; kh < g->k[0]; kh++)
                        for (int64_t kw = 0; kw < g->k[1]; kw++) {
                            int64_t ih = oh * g->s[0] + kh * g->d[0] - g->pb[0];
                            int64_t iw = ow * g->s[1] + kw * g->d[1] - g->pb[1];
                            if (ih < g->IH + pe[0] && iw < g->IW + pe[1]) total++;
                            if (ih < 0 || iw < 0 || ih >= g->IH || iw >= g->IW) continue;
                            double v = src[off4(p->ncx, g->C, g->IH, g->IW, n, c, ih, iw)];
                            count++;
                            if (p->avg) acc += v;
                            else acc = v > acc ? v : acc;
                        }
                    if (p->avg) acc /= (double)(p->exclude ? count : total);
                    want[off4(p->ncx, g->C, g->OH, g->OW, n, c, oh, ow)] = acc;
                }
}

/* Pooling (+ ReLU + Add of a full tensor when post) on the engine against pool_ref. */
static void pool_case(const char *what, const pattr_t *p, int64_t N, int64_t C, int64_t IH, int64_t IW,
        const int64_t *pe, int post) {
    geom_t g = geom(p, N, C, IH, IW, pe);
    int64_t sd[4], dd[4];
    dims4(p->ncx, N, C, IH, IW, sd);
    dims4(p->ncx, N, C, g.OH, g.OW, dd);
    int64_t ns = volume(4, sd), nd = volume(4, dd);
    float *x = rand_f32(ns, 2.0), *other = rand_f32(nd, 1.0), *got = malloc(sizeof(float) * (size_t)nd);
    double *want = malloc(sizeof(double) * (size_t)nd), *bound = calloc((size_t)nd, sizeof(double));
    pattr_t q = *p;
    for (int i = 0; i < 2; i++) q.pe[i] = pe[i];

    new_graph(ekind);
    def(1, dnnl_f32, 4, sd, 0), def(2, dnnl_f32, 4, dd, 0);
    add(pool_op(1, 1, 2, &q));
    size_t out = 2;
    if (post) {
        def(3, dnnl_f32, 4, dd, 0), def(4, dnnl_f32, 4, dd, 0), def_any(5, dnnl_f32, 4);
        add(unary(2, dnnl_graph_op_relu, 2, 3));
        add(binary(3, dnnl_graph_op_add, 3, 4, 5));
        put(4, other);
        out = 5;
    }
    put(1, x);
    run_graph(what, 1, 1);
    get(out, got);
    pool_ref(&q, &g, pe, x, want);
    for (int64_t i = 0; i < nd; i++) {
        if (p->avg) bound[i] = 2 * EPS * (double)(g.k[0] * g.k[1]) * 2.0;
        if (post) {
            want[i] = (want[i] > 0 ? want[i] : 0) + other[i];
            bound[i] += EPS * (fabs(want[i]) + 2);
        }
    }
    expect_all(what, got, want, bound, nd);
    release_buffers();
    free(x), free(other), free(got), free(want), free(bound);
}

static void pooling(void) {
    static const int64_t z[2] = {0, 0}, p1[2] = {1, 1}, p2[2] = {1, 2};
    pattr_t mx = {.nsp = 2, .k = {3, 3}, .s = {2, 2}, .pb = {1, 1}, .ncx = 1};
    pool_case("MaxPool NCX 3x3 stride 2 pad 1", &mx, 2, 5, 9, 8, p1, 0);
    pattr_t mxd = {.nsp = 2, .k = {2, 3}, .s = {1, 2}, .d = {2, 1}, .pb = {0, 1}, .ncx = 0};
    pool_case("MaxPool NXC dilated + ReLU + Add", &mxd, 1, 7, 8, 9, p2, 1);
    pattr_t mxc = {.nsp = 2, .k = {3, 3}, .s = {2, 2}, .ncx = 1, .ceil = 1};
    pool_case("MaxPool NCX ceil", &mxc, 1, 3, 8, 8, z, 0);
    pattr_t av = {.nsp = 2, .k = {3, 2}, .s = {2, 2}, .pb = {1, 0}, .ncx = 0, .avg = 1, .exclude = 1};
    pool_case("AvgPool NXC exclude_pad", &av, 2, 6, 7, 9, p1, 0);
    pattr_t avi = av;
    avi.exclude = 0, avi.ncx = 1;
    pool_case("AvgPool NCX include_pad + ReLU + Add", &avi, 1, 4, 7, 9, p1, 1);
    pattr_t avc = {.nsp = 2, .k = {3, 3}, .s = {2, 2}, .ncx = 1, .avg = 1, .exclude = 1, .ceil = 1};
    pool_case("AvgPool NCX ceil exclude_pad", &avc, 1, 3, 8, 8, z, 0);
}

/* MaxPoolBackward (src, diff_dst) and AvgPoolBackward (diff_dst) against a reference:
 * the gradient goes to the first maximum of each window, or is spread over the window. */
static void pool_backward(int avg) {
    const char *what = avg ? "AvgPoolBackward NCX exclude_pad" : "MaxPoolBackward NXC";
    pattr_t p = {.nsp = 2, .k = {3, 3}, .s = {2, 2}, .pb = {1, 1}, .pe = {1, 1}, .ncx = avg, .avg = avg, .exclude = 1};
    int64_t N = 2, C = 3, IH = 7, IW = 6;
    geom_t g = geom(&p, N, C, IH, IW, p.pe);
    int64_t sd[4], dd[4];
    dims4(p.ncx, N, C, IH, IW, sd);
    dims4(p.ncx, N, C, g.OH, g.OW, dd);
    int64_t ns = volume(4, sd), nd = volume(4, dd);
    float *x = rand_f32(ns, 2.0), *dy = rand_f32(nd, 1.0), *got = malloc(sizeof(float) * (size_t)ns);
    double *want = calloc((size_t)ns, sizeof(double)), *bound = calloc((size_t)ns, sizeof(double));

    new_graph(ekind);
    def(1, dnnl_f32, 4, sd, 0), def(2, dnnl_f32, 4, dd, 0), def(3, dnnl_f32, 4, sd, 0);
    dnnl_graph_op_t op;
    if (avg) {
        op = unary(1, dnnl_graph_op_avg_pool_backward, 2, 3);
        set_s64s(op, dnnl_graph_op_attr_src_shape, 4, sd);
    } else {
        op = binary(1, dnnl_graph_op_max_pool_backward, 1, 2, 3);
    }
    pool_attrs(op, &p);
    add(op);
    if (!avg) put(1, x);
    put(2, dy);
    run_graph(what, 1, 1);
    get(3, got);
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t oh = 0; oh < g.OH; oh++)
                for (int64_t ow = 0; ow < g.OW; ow++) {
                    double v = dy[off4(p.ncx, C, g.OH, g.OW, n, c, oh, ow)];
                    int64_t best = -1, count = 0;
                    double bv = -INFINITY;
                    for (int pass = 0; pass < 2; pass++)
                        for (int64_t kh = 0; kh < 3; kh++)
                            for (int64_t kw = 0; kw < 3; kw++) {
                                int64_t ih = oh * 2 + kh - 1, iw = ow * 2 + kw - 1;
                                if (ih < 0 || iw < 0 || ih >= IH || iw >= IW) continue;
                                int64_t o = off4(p.ncx, C, IH, IW, n, c, ih, iw);
                                if (pass == 0) {
                                    count++;
                                    if (x[o] > bv) bv = x[o], best = o;
                                } else if (avg) {
                                    want[o] += v / (double)count;
                                    bound[o] += 2 * EPS * fabs(v);
                                }
                            }
                    if (!avg) want[best] += v, bound[best] += EPS * fabs(v) * 4;
                }
    expect_all(what, got, want, bound, ns);
    release_buffers();
    free(x), free(dy), free(got), free(want), free(bound);
}

/* Interpolate (half_pixel) nearest by sizes, bilinear by scales, + Multiply by a
 * per-channel tensor. The nearest source index: floor((o + 0.5) / scale) at most I - 1
 * (the rounding oneDNN's resampling primitive uses for nearest); linear: the two
 * neighbours of (o + 0.5) / scale - 0.5, clamped to the image. */
static double coord(int64_t o, double scale) {
    return ((double)o + 0.5) / scale - 0.5;
}

static void interpolate(int linear, int ncx) {
    const char *what = linear ? "Interpolate bilinear (scales) + Multiply" : "Interpolate nearest (sizes)";
    if (waits(INTERPOLATE_LOWERS, what, "resampling")) return;
    int64_t N = 2, C = 3, IH = 5, IW = 4, OH = linear ? 10 : 7, OW = linear ? 6 : 9;
    int64_t sd[4], dd[4], cd[4];
    dims4(ncx, N, C, IH, IW, sd);
    dims4(ncx, N, C, OH, OW, dd);
    dims4(ncx, 1, C, 1, 1, cd);
    int64_t ns = volume(4, sd), nd = volume(4, dd);
    float *x = rand_f32(ns, 1.0), *m = rand_f32(C, 1.0), *got = malloc(sizeof(float) * (size_t)nd);
    double *want = malloc(sizeof(double) * (size_t)nd), *bound = calloc((size_t)nd, sizeof(double));
    int64_t sizes[2] = {OH, OW};
    float scales[2] = {(float)OH / (float)IH, (float)OW / (float)IW};

    new_graph(ekind);
    def(1, dnnl_f32, 4, sd, 0), def_any(2, dnnl_f32, 4);
    size_t out = 2;
    if (linear) {
        def(2, dnnl_f32, 4, dd, 0), def(3, dnnl_f32, 4, cd, 0), def_any(4, dnnl_f32, 4);
        add(interp_op(1, 1, 2, "bilinear", 2, NULL, scales, ncx));
        add(binary(2, dnnl_graph_op_multiply, 2, 3, 4));
        put(3, m);
        out = 4;
    } else {
        add(interp_op(1, 1, 2, "nearest", 2, sizes, NULL, ncx));
    }
    put(1, x);
    run_graph(what, 1, 1);
    get(out, got);
    double sh = (double)OH / (double)IH, sw = (double)OW / (double)IW;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    double v;
                    if (!linear) {
                        int64_t ih = (int64_t)floor(((double)oh + 0.5) / sh);
                        int64_t iw = (int64_t)floor(((double)ow + 0.5) / sw);
                        ih = ih < IH ? ih : IH - 1, iw = iw < IW ? iw : IW - 1;
                        v = x[off4(ncx, C, IH, IW, n, c, ih, iw)];
                    } else {
                        double fh = coord(oh, sh), fw = coord(ow, sw);
                        fh = fh < 0 ? 0 : fh, fw = fw < 0 ? 0 : fw;
                        int64_t h0 = (int64_t)floor(fh), w0 = (int64_t)floor(fw);
                        h0 = h0 < IH - 1 ? h0 : IH - 1, w0 = w0 < IW - 1 ? w0 : IW - 1;
                        int64_t h1 = h0 + 1 < IH ? h0 + 1 : IH - 1, w1 = w0 + 1 < IW ? w0 + 1 : IW - 1;
                        double ah = fh - (double)h0, aw = fw - (double)w0;
                        ah = ah > 1 ? 1 : ah, aw = aw > 1 ? 1 : aw;
                        v = (1 - ah) * ((1 - aw) * x[off4(ncx, C, IH, IW, n, c, h0, w0)]
                                    + aw * x[off4(ncx, C, IH, IW, n, c, h0, w1)])
                                + ah * ((1 - aw) * x[off4(ncx, C, IH, IW, n, c, h1, w0)]
                                        + aw * x[off4(ncx, C, IH, IW, n, c, h1, w1)]);
                        v *= m[c];
                    }
                    int64_t o = off4(ncx, C, OH, OW, n, c, oh, ow);
                    want[o] = v;
                    bound[o] = linear ? 16 * EPS : 0;
                }
    expect_all(what, got, want, bound, nd);
    release_buffers();
    free(x), free(m), free(got), free(want), free(bound);
}

/* int8 Dequantize (zp 3, scale 1/2) + MaxPool + Quantize (zp 1, scale 1/4): exact. */
static void int8_pool(void) {
    const char *what = "int8 Dequantize + MaxPool + Quantize";
    pattr_t p = {.nsp = 2, .k = {2, 2}, .s = {2, 2}, .ncx = 1};
    static const int64_t pe[2] = {0, 0};
    int64_t N = 1, C = 3, IH = 6, IW = 8;
    geom_t g = geom(&p, N, C, IH, IW, pe);
    int64_t sd[4], dd[4];
    dims4(1, N, C, IH, IW, sd);
    dims4(1, N, C, g.OH, g.OW, dd);
    int64_t ns = volume(4, sd), nd = volume(4, dd);
    uint8_t *x = malloc((size_t)ns), *got = malloc((size_t)nd);
    float *xf = malloc(sizeof(float) * (size_t)ns);
    double *want = malloc(sizeof(double) * (size_t)nd);
    for (int64_t i = 0; i < ns; i++) {
        x[i] = (uint8_t)((uniform() + 1) * 60);
        xf[i] = (float)((x[i] - 3) * 0.5);
    }
    new_graph(ekind);
    def(10, dnnl_u8, 4, sd, 0), def(1, dnnl_f32, 4, sd, 0), def(2, dnnl_f32, 4, dd, 0);
    def(3, dnnl_u8, 4, dd, 0);
    add(quant(20, dnnl_graph_op_dequantize, 10, 1, 0.5f, 3));
    add(pool_op(1, 1, 2, &p));
    add(quant(21, dnnl_graph_op_quantize, 2, 3, 0.25f, 1));
    put(10, x);
    run_graph(what, 1, 1);
    get(3, got);
    pool_ref(&p, &g, pe, xf, want);
    int bad = 0;
    for (int64_t i = 0; i < nd; i++) {
        double q = want[i] / 0.25 + 1;
        q = q < 0 ? 0 : q > 255 ? 255 : q;
        if (got[i] != (uint8_t)nearbyint(q) && bad++ < 5)
            fprintf(stderr, "%s[%lld]: got %d, want %g\n", what, (long long)i, got[i], q);
    }
    if (bad) failures++;
    else printf("%s: %lld u8 results exact\n", what, (long long)nd);
    release_buffers();
    free(x), free(got), free(xf), free(want);
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    ekind = gpu ? dnnl_gpu : dnnl_cpu;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&eng, ekind, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    partitions();
    pooling();
    pool_backward(0);
    pool_backward(1);
    interpolate(0, 1);
    interpolate(1, 0);
    int8_pool();

    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed on the %s engine\n", gpu ? "OpenCL" : "CPU");
    return 0;
}
