/* Graph results at realistic sizes, every output element compared with a reference
 * computed here in double, within the error bound of an f32 computation of that element:
 *   - one-op partitions on a 7x31x29 tensor (6293 elements, odd sizes): ReLU, Add with a
 *     (1, 31, 1) operand broadcast, SquaredDifference, GELU, Sigmoid, SoftMax (last
 *     axis), StaticTranspose, TypeCast to bf16, and the backward ops with a pseudo-random
 *     gradient of both signs: ReLUBackward (src and dst forms), SigmoidBackward,
 *     SoftMaxBackward;
 *   - the MLP (MatMul + BiasAdd + ReLU -> MatMul + BiasAdd -> SoftMax) at 37x129 ->
 *     67 -> 23, every output of each of its three partitions compared;
 *   - the int8 pattern Dequantize(u8) + Dequantize(s8) -> MatMul -> ReLU -> Quantize(u8)
 *     at 19x67x13 with power-of-two scales (the f32 arithmetic is exact, so the u8
 *     result is exact too, ties rounding to even), run with execute and again with
 *     execute_v2 and a user scratchpad, every element compared both times.
 * Argument "cpu" (host memory) or "gpu" (OpenCL engine 0, USM: skipped on a runtime
 * without it). */
#include "graph_util.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;
static int failures;

#define EPS (1.0 / 8388608.0) /* 2^-23 */

/* A deterministic pseudo-random stream in [-1, 1). */
static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

static float *random_f32(int64_t n, double scale) {
    float *v = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)(uniform() * scale);
    return v;
}

static float bf16_round(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    x = (x + 0x7fff + ((x >> 16) & 1)) & 0xffff0000u;
    memcpy(&f, &x, 4);
    return f;
}

/* Every element of got within bound[i] (plus half an ulp) of want. */
static void expect_all(const char *what, const float *got, const double *want, const double *bound, int64_t n) {
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double tol = bound[i] + 0.5 * EPS * fabs(want[i]);
        if (!(fabs(got[i] - want[i]) <= tol)) {
            if (bad++ < 5)
                fprintf(stderr, "%s[%lld]: got %.9g, want %.9g (bound %.3g)\n", what, (long long)i,
                        got[i], want[i], tol);
        }
    }
    if (bad) {
        fprintf(stderr, "%s: %d of %lld elements wrong\n", what, bad, (long long)n);
        failures++;
    } else {
        printf("%s: %lld elements ok\n", what, (long long)n);
    }
}

/* ---- one-op partitions ----------------------------------------------------------- */

static dnnl_graph_logical_tensor_t any_out(size_t id, dnnl_data_type_t dt) {
    dnnl_graph_logical_tensor_t lt;
    CHECK(dnnl_graph_logical_tensor_init(&lt, id, dt, DNNL_GRAPH_UNKNOWN_NDIMS,
            dnnl_graph_layout_type_any, dnnl_graph_tensor_property_variable));
    return lt;
}

/* Compiles op alone with inputs ins (data in[i], bytes in_size[i]) and one output, runs it,
 * reads the output (out_bytes) into out. */
static void run_op(dnnl_graph_op_t op, int nin, const dnnl_graph_logical_tensor_t *ins,
        void *const *in, const size_t *in_size, dnnl_graph_logical_tensor_t out_lt, void *out,
        size_t out_bytes) {
    dnnl_engine_kind_t ek;
    CHECK(dnnl_engine_get_kind(eng, &ek));
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_partition_create_with_op(&p, op, ek));
    uint8_t sup;
    CHECK(dnnl_graph_partition_is_supported(p, &sup));
    EXPECT(sup == 1);
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, p));
    const dnnl_graph_logical_tensor_t *pin[4], *pout[] = {&out_lt};
    for (int i = 0; i < nin; i++)
        pin[i] = &ins[i];
    CHECK(dnnl_graph_partition_compile(p, cp, nin, pin, 1, pout, eng));
    dnnl_graph_logical_tensor_t resolved;
    CHECK(dnnl_graph_compiled_partition_query_logical_tensor(cp, out_lt.id, &resolved));
    size_t size = 0;
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&resolved, &size));
    EXPECT(size == out_bytes);
    buffer_t bi[4], bo;
    dnnl_graph_tensor_t ti[4], to;
    for (int i = 0; i < nin; i++) {
        EXPECT(buffer_create(&bi[i], eng, in_size[i]));
        buffer_write(&bi[i], in[i], in_size[i]);
        CHECK(dnnl_graph_tensor_create(&ti[i], &ins[i], eng, bi[i].handle));
    }
    EXPECT(buffer_create(&bo, eng, out_bytes));
    CHECK(dnnl_graph_tensor_create(&to, &resolved, eng, bo.handle));
    CHECK(dnnl_graph_compiled_partition_execute(cp, strm, nin, (const_dnnl_graph_tensor_t *)ti, 1,
            (const_dnnl_graph_tensor_t *)&to));
    CHECK(dnnl_stream_wait(strm));
    buffer_read(&bo, out, out_bytes);
    for (int i = 0; i < nin; i++) {
        CHECK(dnnl_graph_tensor_destroy(ti[i]));
        buffer_destroy(&bi[i]);
    }
    CHECK(dnnl_graph_tensor_destroy(to));
    buffer_destroy(&bo);
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_graph_partition_destroy(p));
    CHECK(dnnl_graph_op_destroy(op));
}

enum { D0 = 7, D1 = 31, D2 = 29, N3 = D0 * D1 * D2 };

static double sigmoid(double x) { return 1 / (1 + exp(-x)); }

static void one_op_partitions(void) {
    int64_t dims[] = {D0, D1, D2}, bdims[] = {1, D1, 1}, tdims[] = {D2, D0, D1};
    dnnl_graph_logical_tensor_t la = lt_f32(1, 3, dims), lb = lt_f32(2, 3, bdims), lg = lt_f32(2, 3, dims);
    float *a = random_f32(N3, 4.0), *b = random_f32(D1, 4.0), *g = random_f32(N3, 2.0);
    float *out = malloc(sizeof(float) * N3);
    double *want = malloc(sizeof(double) * N3), *bound = calloc(N3, sizeof(double));
    const size_t full = sizeof(float) * N3;
    void *in_a[] = {a}, *in_ab[] = {a, b};
    size_t sz_a[] = {full}, sz_ab[] = {full, sizeof(float) * D1}, sz_ag[] = {full, full};
    dnnl_graph_logical_tensor_t lab[] = {la, lb}, lag[] = {la, lg}, o9 = any_out(9, dnnl_f32);

    run_op(make_op(1, dnnl_graph_op_relu, "relu", 1, &la, 1, &o9), 1, &la, in_a, sz_a, o9, out, full);
    for (int i = 0; i < N3; i++) {
        want[i] = a[i] > 0 ? a[i] : 0;
        bound[i] = 0;
    }
    expect_all("ReLU", out, want, bound, N3);

    run_op(make_op(2, dnnl_graph_op_add, "add", 2, lab, 1, &o9), 2, lab, in_ab, sz_ab, o9, out, full);
    for (int i = 0; i < N3; i++)
        want[i] = (double)a[i] + b[i / D2 % D1];
    expect_all("Add (broadcast 1x31x1)", out, want, bound, N3);

    run_op(make_op(3, dnnl_graph_op_squared_difference, "sqd", 2, lab, 1, &o9), 2, lab, in_ab, sz_ab, o9, out, full);
    for (int i = 0; i < N3; i++) {
        double d = (double)a[i] - b[i / D2 % D1];
        want[i] = d * d;
        bound[i] = 3 * EPS * want[i];
    }
    expect_all("SquaredDifference", out, want, bound, N3);

    run_op(make_op(4, dnnl_graph_op_gelu, "gelu", 1, &la, 1, &o9), 1, &la, in_a, sz_a, o9, out, full);
    for (int i = 0; i < N3; i++) {
        want[i] = 0.5 * a[i] * erfc(-a[i] / sqrt(2.0));
        bound[i] = EPS * (8 * fabs(want[i]) + 4 * (1 + fabs(a[i])));
    }
    expect_all("GELU", out, want, bound, N3);

    run_op(make_op(5, dnnl_graph_op_sigmoid, "sig", 1, &la, 1, &o9), 1, &la, in_a, sz_a, o9, out, full);
    float *y = malloc(full);
    memcpy(y, out, full);
    for (int i = 0; i < N3; i++) {
        want[i] = sigmoid(a[i]);
        bound[i] = EPS * (8 * want[i] + 4);
    }
    expect_all("Sigmoid", out, want, bound, N3);

    dnnl_graph_op_t sm = make_op(6, dnnl_graph_op_softmax, "sm", 1, &la, 1, &o9);
    int64_t axis = -1;
    CHECK(dnnl_graph_op_set_attr_s64(sm, dnnl_graph_op_attr_axis, &axis, 1));
    run_op(sm, 1, &la, in_a, sz_a, o9, out, full);
    float *s = malloc(full);
    memcpy(s, out, full);
    for (int r = 0; r < D0 * D1; r++) {
        double mx = -INFINITY, sum = 0;
        for (int k = 0; k < D2; k++)
            mx = fmax(mx, a[r * D2 + k]);
        for (int k = 0; k < D2; k++)
            sum += exp(a[r * D2 + k] - mx);
        for (int k = 0; k < D2; k++) {
            int i = r * D2 + k;
            want[i] = exp(a[i] - mx) / sum;
            bound[i] = EPS * want[i] * (2 * fabs(a[i] - mx) + D2 + 16) + 0x1p-126;
        }
    }
    expect_all("SoftMax", out, want, bound, N3);

    dnnl_graph_op_t tr = make_op(7, dnnl_graph_op_static_transpose, "tr", 1, &la, 1, &o9);
    int64_t order[] = {2, 0, 1};
    CHECK(dnnl_graph_op_set_attr_s64(tr, dnnl_graph_op_attr_order, order, 3));
    run_op(tr, 1, &la, in_a, sz_a, o9, out, full);
    for (int i0 = 0; i0 < D2; i0++)
        for (int i1 = 0; i1 < D0; i1++)
            for (int i2 = 0; i2 < D1; i2++) {
                int o = (i0 * D0 + i1) * D1 + i2;
                want[o] = a[(i1 * D1 + i2) * D2 + i0];
                bound[o] = 0;
            }
    (void)tdims;
    expect_all("StaticTranspose (2, 0, 1)", out, want, bound, N3);

    dnnl_graph_logical_tensor_t obf = any_out(9, dnnl_bf16);
    uint16_t *hb = malloc(sizeof(uint16_t) * N3);
    run_op(make_op(8, dnnl_graph_op_type_cast, "cast", 1, &la, 1, &obf), 1, &la, in_a, sz_a, obf, hb,
            sizeof(uint16_t) * N3);
    for (int i = 0; i < N3; i++) {
        uint32_t bits = (uint32_t)hb[i] << 16;
        memcpy(&out[i], &bits, 4);
        want[i] = bf16_round(a[i]); /* round to nearest even, exactly */
        bound[i] = 0;
    }
    expect_all("TypeCast to bf16", out, want, bound, N3);

    /* Backward ops: a random gradient g of both signs. */
    for (int use_dst = 0; use_dst < 2; use_dst++) {
        dnnl_graph_op_t op = make_op(10 + (size_t)use_dst, dnnl_graph_op_relu_backward, "relu_bw", 2, lag, 1, &o9);
        uint8_t u = (uint8_t)use_dst;
        CHECK(dnnl_graph_op_set_attr_bool(op, dnnl_graph_op_attr_use_dst, &u, 1));
        /* With use_dst the first input is ReLU's output: a's positive part. */
        float *first = malloc(full);
        for (int i = 0; i < N3; i++)
            first[i] = use_dst ? (a[i] > 0 ? a[i] : 0) : a[i];
        void *in[] = {first, g};
        run_op(op, 2, lag, in, sz_ag, o9, out, full);
        for (int i = 0; i < N3; i++) {
            want[i] = first[i] > 0 ? g[i] : 0;
            bound[i] = 0;
        }
        expect_all(use_dst ? "ReLUBackward (from dst)" : "ReLUBackward (from src)", out, want, bound, N3);
        free(first);
    }

    dnnl_graph_op_t sb = make_op(12, dnnl_graph_op_sigmoid_backward, "sig_bw", 2, lag, 1, &o9);
    uint8_t yes = 1;
    CHECK(dnnl_graph_op_set_attr_bool(sb, dnnl_graph_op_attr_use_dst, &yes, 1));
    void *in_yg[] = {y, g};
    run_op(sb, 2, lag, in_yg, sz_ag, o9, out, full);
    for (int i = 0; i < N3; i++) {
        want[i] = (double)g[i] * y[i] * (1 - (double)y[i]);
        bound[i] = 4 * EPS * fabs(g[i] * y[i]);
    }
    expect_all("SigmoidBackward (from dst)", out, want, bound, N3);

    /* SoftMaxBackward: diff_dst, dst. */
    dnnl_graph_logical_tensor_t lgs[] = {lt_f32(1, 3, dims), lt_f32(2, 3, dims)};
    dnnl_graph_op_t smb = make_op(13, dnnl_graph_op_softmax_backward, "sm_bw", 2, lgs, 1, &o9);
    CHECK(dnnl_graph_op_set_attr_s64(smb, dnnl_graph_op_attr_axis, &axis, 1));
    void *in_gs[] = {g, s};
    run_op(smb, 2, lgs, in_gs, sz_ag, o9, out, full);
    for (int r = 0; r < D0 * D1; r++) {
        double dot = 0, mag = 0;
        for (int k = 0; k < D2; k++) {
            dot += (double)g[r * D2 + k] * s[r * D2 + k];
            mag += fabs((double)g[r * D2 + k] * s[r * D2 + k]);
        }
        for (int k = 0; k < D2; k++) {
            int i = r * D2 + k;
            want[i] = s[i] * (g[i] - dot);
            bound[i] = EPS * (2 * fabs(want[i]) + s[i] * ((double)D2 * mag + 2 * fabs(g[i])));
        }
    }
    expect_all("SoftMaxBackward", out, want, bound, N3);

    free(a);
    free(b);
    free(g);
    free(y);
    free(s);
    free(hb);
    free(out);
    free(want);
    free(bound);
}

/* ---- the MLP -------------------------------------------------------------------- */

enum { M = 37, K = 129, H = 67, N = 23 };

static void mlp(void) {
    float *src = random_f32(M * K, 1.0), *w1 = random_f32(K * H, 0.2), *b1 = random_f32(H, 0.5);
    float *w2 = random_f32(H * N, 0.3), *b2 = random_f32(N, 0.5);
    const dnnl_graph_tensor_property_t cst = dnnl_graph_tensor_property_constant;
    const dnnl_graph_layout_type_t strided = dnnl_graph_layout_type_strided;
    int64_t d_mk[] = {M, K}, d_kh[] = {K, H}, d_h[] = {H}, d_mh[] = {M, H}, d_hn[] = {H, N},
            d_n[] = {N}, d_mn[] = {M, N};
    dnnl_graph_logical_tensor_t t_src = lt_f32(1, 2, d_mk), t_w1 = lt_dims(2, dnnl_f32, 2, d_kh, strided, cst),
            t_b1 = lt_dims(3, dnnl_f32, 1, d_h, strided, cst), t_mm1 = lt_f32(4, 2, d_mh),
            t_ba1 = lt_f32(5, 2, d_mh), t_relu = lt_f32(6, 2, d_mh),
            t_w2 = lt_dims(7, dnnl_f32, 2, d_hn, strided, cst), t_b2 = lt_dims(8, dnnl_f32, 1, d_n, strided, cst),
            t_mm2 = lt_f32(9, 2, d_mn), t_ba2 = lt_f32(10, 2, d_mn), t_out = lt_f32(11, 2, d_mn);
    dnnl_engine_kind_t ek;
    CHECK(dnnl_engine_get_kind(eng, &ek));
    dnnl_graph_graph_t g;
    CHECK(dnnl_graph_graph_create(&g, ek));
    dnnl_graph_logical_tensor_t in_mm1[] = {t_src, t_w1}, in_ba1[] = {t_mm1, t_b1}, in_mm2[] = {t_relu, t_w2},
                                in_ba2[] = {t_mm2, t_b2};
    add_and_destroy(g, make_op(1, dnnl_graph_op_matmul, "mm1", 2, in_mm1, 1, &t_mm1));
    add_and_destroy(g, make_op(2, dnnl_graph_op_bias_add, "ba1", 2, in_ba1, 1, &t_ba1));
    add_and_destroy(g, make_op(3, dnnl_graph_op_relu, "relu", 1, &t_ba1, 1, &t_relu));
    add_and_destroy(g, make_op(4, dnnl_graph_op_matmul, "mm2", 2, in_mm2, 1, &t_mm2));
    add_and_destroy(g, make_op(5, dnnl_graph_op_bias_add, "ba2", 2, in_ba2, 1, &t_ba2));
    dnnl_graph_op_t sm = make_op(6, dnnl_graph_op_softmax, "softmax", 1, &t_ba2, 1, &t_out);
    int64_t axis = 1;
    CHECK(dnnl_graph_op_set_attr_s64(sm, dnnl_graph_op_attr_axis, &axis, 1));
    add_and_destroy(g, sm);
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
    size_t np = 0;
    CHECK(dnnl_graph_graph_get_partition_num(g, &np));
    EXPECT(np == 3);
    dnnl_graph_partition_t parts[3];
    CHECK(dnnl_graph_graph_get_partitions(g, 3, parts));
    const dnnl_graph_logical_tensor_t *c_in[3][3] = {{&t_src, &t_w1, &t_b1}, {&t_relu, &t_w2, &t_b2}, {&t_ba2}};
    const dnnl_graph_logical_tensor_t *c_out[3][1] = {{&t_relu}, {&t_ba2}, {&t_out}};
    const size_t nin[3] = {3, 3, 1};
    dnnl_graph_compiled_partition_t cps[3];
    for (int p = 0; p < 3; p++) {
        CHECK(dnnl_graph_compiled_partition_create(&cps[p], parts[p]));
        CHECK(dnnl_graph_partition_compile(parts[p], cps[p], nin[p], c_in[p], 1, c_out[p], eng));
    }
    buffer_t b_src, b_w1, b_b1, b_w2, b_b2, b_hid, b_ba2, b_out;
    EXPECT(buffer_create(&b_src, eng, sizeof(float) * M * K) && buffer_create(&b_w1, eng, sizeof(float) * K * H)
            && buffer_create(&b_b1, eng, sizeof(float) * H) && buffer_create(&b_w2, eng, sizeof(float) * H * N)
            && buffer_create(&b_b2, eng, sizeof(float) * N) && buffer_create(&b_hid, eng, sizeof(float) * M * H)
            && buffer_create(&b_ba2, eng, sizeof(float) * M * N) && buffer_create(&b_out, eng, sizeof(float) * M * N));
    buffer_write(&b_src, src, sizeof(float) * M * K);
    buffer_write(&b_w1, w1, sizeof(float) * K * H);
    buffer_write(&b_b1, b1, sizeof(float) * H);
    buffer_write(&b_w2, w2, sizeof(float) * H * N);
    buffer_write(&b_b2, b2, sizeof(float) * N);
    dnnl_graph_tensor_t x_src, x_w1, x_b1, x_hid, x_w2, x_b2, x_ba2, x_out;
    CHECK(dnnl_graph_tensor_create(&x_src, &t_src, eng, b_src.handle));
    CHECK(dnnl_graph_tensor_create(&x_w1, &t_w1, eng, b_w1.handle));
    CHECK(dnnl_graph_tensor_create(&x_b1, &t_b1, eng, b_b1.handle));
    CHECK(dnnl_graph_tensor_create(&x_hid, &t_relu, eng, b_hid.handle));
    CHECK(dnnl_graph_tensor_create(&x_w2, &t_w2, eng, b_w2.handle));
    CHECK(dnnl_graph_tensor_create(&x_b2, &t_b2, eng, b_b2.handle));
    CHECK(dnnl_graph_tensor_create(&x_ba2, &t_ba2, eng, b_ba2.handle));
    CHECK(dnnl_graph_tensor_create(&x_out, &t_out, eng, b_out.handle));
    const_dnnl_graph_tensor_t i0[] = {x_src, x_w1, x_b1}, o0[] = {x_hid};
    const_dnnl_graph_tensor_t i1[] = {x_hid, x_w2, x_b2}, o1[] = {x_ba2};
    const_dnnl_graph_tensor_t i2[] = {x_ba2}, o2[] = {x_out};
    CHECK(dnnl_graph_compiled_partition_execute(cps[0], strm, 3, i0, 1, o0));
    CHECK(dnnl_graph_compiled_partition_execute(cps[1], strm, 3, i1, 1, o1));
    CHECK(dnnl_graph_compiled_partition_execute(cps[2], strm, 1, i2, 1, o2));
    CHECK(dnnl_stream_wait(strm));

    /* Each partition from the library's own inputs to it: hidden, then ba2, then out. */
    float *hid = malloc(sizeof(float) * M * H), *ba2 = malloc(sizeof(float) * M * N), *out = malloc(sizeof(float) * M * N);
    buffer_read(&b_hid, hid, sizeof(float) * M * H);
    buffer_read(&b_ba2, ba2, sizeof(float) * M * N);
    buffer_read(&b_out, out, sizeof(float) * M * N);
    double *want = malloc(sizeof(double) * M * H), *bound = malloc(sizeof(double) * M * H);
    for (int m = 0; m < M; m++)
        for (int h = 0; h < H; h++) {
            double acc = b1[h], mag = fabs(b1[h]);
            for (int k = 0; k < K; k++) {
                acc += (double)src[m * K + k] * w1[k * H + h];
                mag += fabs((double)src[m * K + k] * w1[k * H + h]);
            }
            want[m * H + h] = acc > 0 ? acc : 0;
            bound[m * H + h] = EPS * (K + 3) * mag;
        }
    expect_all("MLP partition 1 (MatMul+BiasAdd+ReLU)", hid, want, bound, M * H);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double acc = b2[n], mag = fabs(b2[n]);
            for (int h = 0; h < H; h++) {
                acc += (double)hid[m * H + h] * w2[h * N + n];
                mag += fabs((double)hid[m * H + h] * w2[h * N + n]);
            }
            want[m * N + n] = acc;
            bound[m * N + n] = EPS * (H + 3) * mag;
        }
    expect_all("MLP partition 2 (MatMul+BiasAdd)", ba2, want, bound, M * N);
    for (int m = 0; m < M; m++) {
        double mx = -INFINITY, sum = 0;
        for (int n = 0; n < N; n++)
            mx = fmax(mx, ba2[m * N + n]);
        for (int n = 0; n < N; n++)
            sum += exp(ba2[m * N + n] - mx);
        for (int n = 0; n < N; n++) {
            int i = m * N + n;
            want[i] = exp(ba2[i] - mx) / sum;
            bound[i] = EPS * want[i] * (2 * fabs(ba2[i] - mx) + N + 16) + 0x1p-126;
        }
    }
    expect_all("MLP partition 3 (SoftMax)", out, want, bound, M * N);

    dnnl_graph_tensor_t xs[] = {x_src, x_w1, x_b1, x_hid, x_w2, x_b2, x_ba2, x_out};
    for (int i = 0; i < 8; i++)
        CHECK(dnnl_graph_tensor_destroy(xs[i]));
    buffer_t *bs[] = {&b_src, &b_w1, &b_b1, &b_w2, &b_b2, &b_hid, &b_ba2, &b_out};
    for (int i = 0; i < 8; i++)
        buffer_destroy(bs[i]);
    for (int p = 0; p < 3; p++) {
        CHECK(dnnl_graph_compiled_partition_destroy(cps[p]));
        CHECK(dnnl_graph_partition_destroy(parts[p]));
    }
    CHECK(dnnl_graph_graph_destroy(g));
    free(src);
    free(w1);
    free(b1);
    free(w2);
    free(b2);
    free(hid);
    free(ba2);
    free(out);
    free(want);
    free(bound);
}

/* ---- the int8 pattern ------------------------------------------------------------- */

enum { QM = 19, QK = 67, QN = 13 };

static void int8_pattern(void) {
    int64_t dmk[] = {QM, QK}, dkn[] = {QK, QN}, dmn[] = {QM, QN};
    const dnnl_graph_layout_type_t strided = dnnl_graph_layout_type_strided;
    dnnl_graph_logical_tensor_t xs = lt_dims(1, dnnl_u8, 2, dmk, strided, dnnl_graph_tensor_property_variable),
            xw = lt_dims(2, dnnl_s8, 2, dkn, strided, dnnl_graph_tensor_property_constant),
            fs = lt_f32(3, 2, dmk), fw = lt_f32(4, 2, dkn), mo = lt_f32(5, 2, dmn), ro = lt_f32(6, 2, dmn),
            qo = lt_dims(7, dnnl_u8, 2, dmn, strided, dnnl_graph_tensor_property_variable);
    /* Powers of two: every f32 step exact; acc is a multiple of 1/8, so
     * dst = round_even(relu(acc) / 0.25 + 5), saturated, meets ties (halves). */
    float ss = 0.5f, sw = 0.25f, so = 0.25f;
    int64_t zs = 10, zw = 0, zo = 5;
    dnnl_engine_kind_t ek;
    CHECK(dnnl_engine_get_kind(eng, &ek));
    dnnl_graph_graph_t g;
    CHECK(dnnl_graph_graph_create(&g, ek));
    dnnl_graph_op_t op = make_op(1, dnnl_graph_op_dequantize, "dq_src", 1, &xs, 1, &fs);
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &ss, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zs, 1));
    add_and_destroy(g, op);
    op = make_op(2, dnnl_graph_op_dequantize, "dq_wei", 1, &xw, 1, &fw);
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &sw, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zw, 1));
    add_and_destroy(g, op);
    dnnl_graph_logical_tensor_t mmin[] = {fs, fw};
    add_and_destroy(g, make_op(3, dnnl_graph_op_matmul, "mm", 2, mmin, 1, &mo));
    add_and_destroy(g, make_op(4, dnnl_graph_op_relu, "relu", 1, &mo, 1, &ro));
    op = make_op(5, dnnl_graph_op_quantize, "q", 1, &ro, 1, &qo);
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &so, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zo, 1));
    add_and_destroy(g, op);
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
    size_t n;
    CHECK(dnnl_graph_graph_get_partition_num(g, &n));
    EXPECT(n == 1);
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_graph_get_partitions(g, 1, &p));
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, p));
    const dnnl_graph_logical_tensor_t *pin[] = {&xs, &xw}, *pout[] = {&qo};
    CHECK(dnnl_graph_partition_compile(p, cp, 2, pin, 1, pout, eng));
    dnnl_graph_logical_tensor_t sp;
    CHECK(dnnl_graph_compiled_partition_get_scratchpad_logical_tensor(cp, &sp));

    uint8_t src[QM * QK], dst[QM * QN], want[QM * QN];
    int8_t wei[QK * QN];
    for (int i = 0; i < QM * QK; i++)
        src[i] = (uint8_t)((uniform() + 1) * 10); /* around the zero point 10 */
    for (int i = 0; i < QK * QN; i++)
        wei[i] = (int8_t)(uniform() * 8);
    int ties = 0, saturated = 0;
    for (int m = 0; m < QM; m++)
        for (int j = 0; j < QN; j++) {
            double acc = 0;
            for (int k = 0; k < QK; k++)
                acc += ((double)src[m * QK + k] - zs) * ss * (double)wei[k * QN + j] * sw;
            acc = acc > 0 ? acc : 0;
            double q = acc / so + zo; /* round(src / scale + zp), the zero point first */
            ties += q - floor(q) == 0.5;
            q = nearbyint(q);
            saturated += q > 255;
            want[m * QN + j] = (uint8_t)(q > 255 ? 255 : q);
        }
    buffer_t bsrc, bwei, bdst, bsp;
    EXPECT(buffer_create(&bsrc, eng, sizeof src) && buffer_create(&bwei, eng, sizeof wei)
            && buffer_create(&bdst, eng, sizeof dst)
            && buffer_create(&bsp, eng, (size_t)(sp.dims[0] > 0 ? sp.dims[0] : 1)));
    buffer_write(&bsrc, src, sizeof src);
    buffer_write(&bwei, wei, sizeof wei);
    dnnl_graph_tensor_t ts, tw, td, tsp;
    CHECK(dnnl_graph_tensor_create(&ts, &xs, eng, bsrc.handle));
    CHECK(dnnl_graph_tensor_create(&tw, &xw, eng, bwei.handle));
    CHECK(dnnl_graph_tensor_create(&td, &qo, eng, bdst.handle));
    CHECK(dnnl_graph_tensor_create(&tsp, &sp, eng, bsp.handle));
    const_dnnl_graph_tensor_t ins[] = {ts, tw}, outs[] = {td};
    for (int v2 = 0; v2 < 2; v2++) {
        memset(dst, 0xa5, sizeof dst);
        buffer_write(&bdst, dst, sizeof dst);
        if (v2) CHECK(dnnl_graph_compiled_partition_execute_v2(cp, strm, 2, ins, 1, outs, tsp));
        else CHECK(dnnl_graph_compiled_partition_execute(cp, strm, 2, ins, 1, outs));
        CHECK(dnnl_stream_wait(strm));
        buffer_read(&bdst, dst, sizeof dst);
        int bad = 0;
        for (int i = 0; i < QM * QN; i++)
            if (dst[i] != want[i] && bad++ < 5)
                fprintf(stderr, "int8 %s [%d]: got %d, want %d\n", v2 ? "execute_v2" : "execute", i, dst[i], want[i]);
        if (bad) failures++;
        else
            printf("int8 pattern (%s): %d elements exact (%d ties, %d saturated)\n",
                    v2 ? "execute_v2, user scratchpad" : "execute", QM * QN, ties, saturated);
    }
    dnnl_graph_tensor_t tt[] = {ts, tw, td, tsp};
    for (int i = 0; i < 4; i++)
        CHECK(dnnl_graph_tensor_destroy(tt[i]));
    buffer_t *bb[] = {&bsrc, &bwei, &bdst, &bsp};
    for (int i = 0; i < 4; i++)
        buffer_destroy(bb[i]);
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_graph_partition_destroy(p));
    CHECK(dnnl_graph_graph_destroy(g));
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&eng, gpu ? dnnl_gpu : dnnl_cpu, 0));
    if (gpu) {
        buffer_t probe;
        buffer_create_or_skip(&probe, eng, 16);
        buffer_destroy(&probe);
    }
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    one_op_partitions();
    mlp();
    int8_pattern();
    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("graph at realistic sizes on %s: ok\n", gpu ? "OpenCL" : "the CPU engine");
    return 0;
}
