/* Eltwise forward and backward (dnnl_eltwise_{forward,backward}_primitive_desc_create)
 * through the official API, compared with a reference computed here in double:
 *   - the queries of the primitive descriptor (src/dst/diff memory descriptors,
 *     algorithm, alpha/beta, prop kind, inputs/outputs, implementation string);
 *   - a sweep of algorithms forward and backward (every algorithm on the CPU
 *     engine; a representative set on OpenCL, whose every algorithm the Rust
 *     tests cover), shapes (1-D to 5-D, odd sizes, zero-sized dimensions) and
 *     layouts (nchw, nhwc, nChw16c with padding, strided), data types (f32, f16,
 *     bf16, s8, u8, s32) and in-place execution.
 *
 * Usage: primitives_eltwise [cpu|gpu|gpu-all]. With gpu, the test skips (77)
 * when the library sees no OpenCL device; gpu-all sweeps every algorithm on
 * the OpenCL device too (for GPU machines, where builds are fast). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"
#include "eltwise_ref.h"

static int on_gpu;
static int failures;
static int case_number; /* for messages */
/* Whether the library is ours (its implementation names say so). Upstream
 * refuses some cases we compute (mixed layouts, mixed types): under a
 * reference run (LD_LIBRARY_PATH to upstream's library) those are skipped. */
static int ours = -1;

/* ---- the reference ---------------------------------------------------------- */

/* The gradient factor (diff_src = factor * diff_dst); x is the source, or the
 * destination for the _use_dst_for_bwd algorithms. */
static double bwd_factor(alg_t a, float xf) {
    double x = xf, al = a.alpha, be = a.beta, c = sqrt(2.0 / PI);
    float lin = a.alpha * xf + a.beta;
    switch (a.alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_relu_use_dst_for_bwd: return x > 0 ? 1 : al;
        case dnnl_eltwise_tanh: return 1 - tanh(x) * tanh(x);
        case dnnl_eltwise_tanh_use_dst_for_bwd: return 1 - x * x;
        case dnnl_eltwise_elu: return x > 0 ? 1 : al * exp(x);
        case dnnl_eltwise_elu_use_dst_for_bwd: return x > 0 ? 1 : x + al;
        case dnnl_eltwise_square: return 2 * x;
        case dnnl_eltwise_abs: return x > 0 ? 1 : x < 0 ? -1 : 0;
        case dnnl_eltwise_sqrt: return 0.5 / sqrt(x);
        case dnnl_eltwise_sqrt_use_dst_for_bwd: return 0.5 / x;
        case dnnl_eltwise_linear: return al;
        case dnnl_eltwise_soft_relu: return logistic(al * x);
        case dnnl_eltwise_hardsigmoid: return lin > 0 && lin < 1 ? al : 0;
        case dnnl_eltwise_logistic: return logistic(x) * (1 - logistic(x));
        case dnnl_eltwise_logistic_use_dst_for_bwd: return x * (1 - x);
        case dnnl_eltwise_exp: return exp(x);
        case dnnl_eltwise_exp_use_dst_for_bwd: return x;
        case dnnl_eltwise_gelu_tanh: {
            double t = tanh(c * x * (1 + 0.044715 * x * x));
            return 0.5 * (1 + t) * (1 + x * (1 - t) * c * (1 + 3 * 0.044715 * x * x));
        }
        case dnnl_eltwise_swish: {
            double v = logistic(al * x);
            return v + al * x * v * (1 - v);
        }
        case dnnl_eltwise_log: return 1 / x;
        case dnnl_eltwise_clip: return al < x && x <= be;
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_clip_v2_use_dst_for_bwd: return al < x && x < be;
        case dnnl_eltwise_pow: return be == 0 ? 0 : al * be * pow(x, be - 1);
        case dnnl_eltwise_gelu_erf:
            return 0.5 * erfc(-x / sqrt(2.0)) + x * exp(-0.5 * x * x) / sqrt(2 * PI);
        case dnnl_eltwise_mish: {
            double t = tanh(soft_relu(x, 1.0));
            return t + x * (1 - t * t) * logistic(x);
        }
        case dnnl_eltwise_hardswish: return lin <= 0 ? 0 : lin >= 1 ? 1 : 2 * al * x + be;
        default: return NAN;
    }
}

/* The error of the gradient: the factor's (as fwd_bound, at the factor's own scale),
 * times |diff_dst|, plus the product's rounding. */
static double bwd_bound(alg_t a, float x, double factor, double dd) {
    double s = 1 + fabs((double)x) * fmax(1.0, fabs((double)a.alpha));
    double f;
    switch (base_alg(a.alg)) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_abs:
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_linear:
        case dnnl_eltwise_hardsigmoid: f = 0; break;
        case dnnl_eltwise_pow:
            f = F32_EPS * fabs(factor) * (8 + 4 * fabs((a.beta - 1) * log(fabs((double)x) + 1e-30)));
            break;
        default: f = F32_EPS * (8 * fabs(factor) + 8 * s);
    }
    return fabs(dd) * f + F32_EPS * fabs(factor * dd);
}

/* ---- inputs ------------------------------------------------------------------ */

/* Integer cases: every integer in [-300, 300] and around both saturation ends of s8
 * and u8, so that relu (alpha 0.5) and linear (2.5x - 3) produce halves (ties, which
 * round to even) and results beyond each end. */
static int int_inputs;

static float input(int64_t i) {
    if (int_inputs) return (float)(i % 601 - 300);
    static const float edges[] = {-100.f, -20.f, -5.5f, -3.f, -2.5f, -1.5f, -1.f, -0.75f, -0.5f,
            -0.1f, 0.f, 0.1f, 0.25f, 0.5f, 0.75f, 1.f, 1.5f, 2.f, 2.5f, 3.f, 5.5f, 20.f, 88.f};
    const int64_t n = (int64_t)(sizeof edges / sizeof *edges);
    if (i < n) return edges[i];
    uint32_t h = (uint32_t)i * 2654435761u;
    h ^= h >> 15;
    return (float)(h % 12000) / 1000.0f - 6.0f;
}

static float grad(int64_t i) { return input(i + 1000) / 3.0f + 0.01f; }

/* ---- one case ------------------------------------------------------------------ */

static const char *alg_name(dnnl_alg_kind_t alg) { return dnnl_alg_kind2str(alg); }

static void fail(const char *what, alg_t a, int64_t i, float x, float got, double want) {
    if (failures++ < 10)
        fprintf(stderr, "case %d: %s %s(alpha %g, beta %g): element %lld, x = %g: got %.9g, want %.9g\n",
                case_number, what, alg_name(a.alg), a.alpha, a.beta, (long long)i, x, got, want);
}

static void execute(dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

static void expect_impl(const_dnnl_primitive_desc_t pd) {
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    EXPECT(impl != NULL && impl[0] != '\0');
    if (ours < 0) ours = strncmp(impl + 3, ":eltwise_", 9) == 0;
}

/* Forward from src_md to dst_md (dst_md may be `any`), then backward with
 * diff_dst and diff_src in diff_md (NULL: no backward). in_place: dst is the
 * src memory, and diff_src the diff_dst memory. */
static void run_case(alg_t a, const_dnnl_memory_desc_t src_md, const_dnnl_memory_desc_t dst_md,
        const_dnnl_memory_desc_t diff_md, int in_place) {
    case_number++;
    dnnl_primitive_desc_t fpd = NULL;
    dnnl_status_t status = dnnl_eltwise_forward_primitive_desc_create(&fpd, engine,
            dnnl_forward_training, a.alg, src_md, dst_md, a.alpha, a.beta, NULL);
    char what[64];
    snprintf(what, sizeof what, "case %d (%s)", case_number, alg_name(a.alg));
    if (reference_lacks(status, what)) return;
    CHECK(status);
    /* Queries. */
    const_dnnl_memory_desc_t q_src = dnnl_primitive_desc_query_md(fpd, dnnl_query_src_md, 0);
    const_dnnl_memory_desc_t q_dst = dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0);
    EXPECT(dnnl_memory_desc_equal(q_src, src_md));
    dnnl_format_kind_t fk;
    CHECK(dnnl_memory_desc_query(dst_md, dnnl_query_format_kind, &fk));
    if (fk != dnnl_format_kind_any) EXPECT(dnnl_memory_desc_equal(q_dst, dst_md));
    dnnl_alg_kind_t q_alg;
    CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_alg_kind, 0, &q_alg));
    EXPECT(q_alg == a.alg);
    float q_alpha = -1, q_beta = -1;
    CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_alpha_f32, 0, &q_alpha));
    CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_beta_f32, 0, &q_beta));
    EXPECT(q_alpha == a.alpha && q_beta == a.beta);
    dnnl_prop_kind_t q_prop;
    CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_prop_kind, 0, &q_prop));
    EXPECT(q_prop == dnnl_forward_training);
    EXPECT(dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_inputs_s32, 0) == 1);
    EXPECT(dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_outputs_s32, 0) == 1);
    expect_impl(fpd);

    layout_t ls = layout_of(src_md), ld = layout_of(q_dst);
    int64_t n = ls.nelems;
    float *x = malloc(sizeof(float) * (size_t)(n + 1)), *y = malloc(sizeof(float) * (size_t)(n + 1));
    float *dd = malloc(sizeof(float) * (size_t)(n + 1)), *g = malloc(sizeof(float) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) {
        x[i] = rounded(ls.dt, input(i));
        dd[i] = grad(i);
    }
    dnnl_memory_t src = memory(src_md), dst = in_place ? src : memory(q_dst);
    fill(src, x);
    dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    execute(fpd, 2, fargs);
    int padding_ok;
    read_back(dst, y, &padding_ok);
    if (!padding_ok) fail("forward: padding not zero", a, -1, 0, 0, 0);
    for (int64_t i = 0; i < n; i++) {
        double want = fwd_ref(a, x[i]);
        /* Integer results: computed in f32 (exactly, for these inputs), then rounded half
         * to even and saturated: exact. */
        double bound = is_int_dt(ld.dt) ? 0 : fwd_bound(a, x[i], want);
        if (!matches(ld.dt, y[i], want, bound)) fail("forward", a, i, x[i], y[i], want);
    }

    dnnl_primitive_desc_t bpd = NULL;
    const_dnnl_memory_desc_t data_md = use_dst(a.alg) ? q_dst : src_md;
    if (diff_md) {
        status = dnnl_eltwise_backward_primitive_desc_create(&bpd, engine, a.alg, diff_md,
                diff_md, data_md, a.alpha, a.beta, fpd, NULL);
        snprintf(what, sizeof what, "case %d (%s) backward", case_number, alg_name(a.alg));
        if (reference_lacks(status, what)) {
            diff_md = NULL;
        } else {
            CHECK(status);
        }
    }
    if (diff_md) {
        int d = use_dst(a.alg);
        EXPECT(dnnl_memory_desc_equal(
                dnnl_primitive_desc_query_md(bpd, d ? dnnl_query_dst_md : dnnl_query_src_md, 0),
                data_md));
        EXPECT(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0) != NULL);
        EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bpd, dnnl_query_exec_arg_md,
                                              DNNL_ARG_DIFF_DST),
                diff_md));
        CHECK(dnnl_primitive_desc_query(bpd, dnnl_query_prop_kind, 0, &q_prop));
        EXPECT(q_prop == dnnl_backward_data);
        EXPECT(dnnl_primitive_desc_query_s32(bpd, dnnl_query_num_of_inputs_s32, 0) == 2);
        expect_impl(bpd);
        layout_t lg = layout_of(diff_md);
        for (int64_t i = 0; i < n; i++)
            dd[i] = rounded(lg.dt, dd[i]);
        dnnl_memory_t ddm = memory(diff_md), dsm = in_place ? ddm : memory(diff_md);
        fill(ddm, dd);
        /* In place, the forward overwrote the source. */
        if (in_place && !d) fill(src, x);
        dnnl_exec_arg_t bargs[] = {{d ? DNNL_ARG_DST : DNNL_ARG_SRC, d ? dst : src},
                {DNNL_ARG_DIFF_DST, ddm}, {DNNL_ARG_DIFF_SRC, dsm}};
        execute(bpd, 3, bargs);
        read_back(dsm, g, &padding_ok);
        if (!padding_ok) fail("backward: padding not zero", a, -1, 0, 0, 0);
        for (int64_t i = 0; i < n; i++) {
            float xi = d ? y[i] : x[i];
            double f = bwd_factor(a, xi), want = f == 0 ? 0 : f * dd[i];
            if (!matches(lg.dt, g[i], want, bwd_bound(a, xi, f, dd[i])))
                fail("backward", a, i, xi, g[i], want);
        }
        if (!in_place) CHECK(dnnl_memory_destroy(dsm));
        CHECK(dnnl_memory_destroy(ddm));
        CHECK(dnnl_primitive_desc_destroy(bpd));
    }
    if (!in_place) CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_primitive_desc_destroy(fpd));
    free(x);
    free(y);
    free(dd);
    free(g);
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    int every_alg = !on_gpu || strcmp(argv[1], "gpu-all") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    const alg_t all[] = {{dnnl_eltwise_relu, 0.2f, 0}, {dnnl_eltwise_relu, 0, 0},
            {dnnl_eltwise_tanh, 0, 0}, {dnnl_eltwise_elu, 0.7f, 0}, {dnnl_eltwise_square, 0, 0},
            {dnnl_eltwise_abs, 0, 0}, {dnnl_eltwise_sqrt, 0, 0}, {dnnl_eltwise_linear, 1.5f, -0.5f},
            {dnnl_eltwise_soft_relu, 2.5f, 0}, {dnnl_eltwise_soft_relu, -1.f, 0},
            {dnnl_eltwise_hardsigmoid, 0.2f, 0.5f}, {dnnl_eltwise_logistic, 0, 0},
            {dnnl_eltwise_exp, 0, 0}, {dnnl_eltwise_gelu_tanh, 0, 0}, {dnnl_eltwise_swish, 0.5f, 0},
            {dnnl_eltwise_log, 0, 0}, {dnnl_eltwise_clip, -1.f, 2.f}, {dnnl_eltwise_clip_v2, -1.f, 2.f},
            {dnnl_eltwise_pow, 1.5f, 2.f}, {dnnl_eltwise_pow, 2.f, 0.5f}, {dnnl_eltwise_gelu_erf, 0, 0},
            {dnnl_eltwise_round, 0, 0}, {dnnl_eltwise_mish, 0, 0},
            {dnnl_eltwise_hardswish, 1.f / 6.f, 0.5f}, {dnnl_eltwise_relu_use_dst_for_bwd, 0.2f, 0},
            {dnnl_eltwise_tanh_use_dst_for_bwd, 0, 0}, {dnnl_eltwise_elu_use_dst_for_bwd, 0.7f, 0},
            {dnnl_eltwise_sqrt_use_dst_for_bwd, 0, 0}, {dnnl_eltwise_logistic_use_dst_for_bwd, 0, 0},
            {dnnl_eltwise_exp_use_dst_for_bwd, 0, 0},
            {dnnl_eltwise_clip_v2_use_dst_for_bwd, -1.f, 2.f}};
    /* On OpenCL every algorithm is a program build: a representative set. */
    const alg_t some[] = {{dnnl_eltwise_relu, 0.2f, 0}, {dnnl_eltwise_gelu_erf, 0, 0},
            {dnnl_eltwise_soft_relu, 2.5f, 0}, {dnnl_eltwise_pow, 1.5f, 2.f},
            {dnnl_eltwise_hardswish, 1.f / 6.f, 0.5f}, {dnnl_eltwise_round, 0, 0},
            {dnnl_eltwise_elu_use_dst_for_bwd, 0.7f, 0},
            {dnnl_eltwise_clip_v2_use_dst_for_bwd, -1.f, 2.f}};
    const alg_t *algs = every_alg ? all : some;
    size_t nalgs = every_alg ? sizeof all / sizeof *all : sizeof some / sizeof *some;

    /* Every algorithm, 1-D of an odd size (not a multiple of 4), forward and backward. */
    dnnl_dims_t d1 = {1031};
    dnnl_memory_desc_t v = md_tag(1, d1, dnnl_f32, dnnl_a);
    for (size_t k = 0; k < nalgs; k++)
        run_case(algs[k], v, v, algs[k].alg == dnnl_eltwise_round ? NULL : v, 0);

    /* Shapes and layouts (exp shows padding that is not zeroed: exp(0) = 1). */
    const alg_t ex = {dnnl_eltwise_exp, 0, 0}, sw = {dnnl_eltwise_swish, 0.7f, 0};
    dnnl_dims_t d2 = {7, 13}, d3 = {3, 5, 7}, d4 = {2, 19, 3, 5}, d5 = {2, 3, 4, 5, 3};
    dnnl_dims_t d0 = {2, 0, 3, 5};
    dnnl_memory_desc_t ab = md_tag(2, d2, dnnl_f32, dnnl_ab), ba = md_tag(2, d2, dnnl_f32, dnnl_ba);
    dnnl_memory_desc_t abc = md_tag(3, d3, dnnl_f32, dnnl_abc), acb = md_tag(3, d3, dnnl_f32, dnnl_acb);
    dnnl_memory_desc_t nchw = md_tag(4, d4, dnnl_f32, dnnl_nchw), nhwc = md_tag(4, d4, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_t blk = md_tag(4, d4, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_t any = md_tag(4, d4, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t ncdhw = md_tag(5, d5, dnnl_f32, dnnl_ncdhw), ndhwc = md_tag(5, d5, dnnl_f32, dnnl_ndhwc);
    dnnl_memory_desc_t empty = md_tag(4, d0, dnnl_f32, dnnl_nchw);
    dnnl_dims_t strides = {1, 9};
    dnnl_memory_desc_t strided = NULL;
    strided = md_strides(2, d2, dnnl_f32, strides);
    run_case(ex, ab, ba, ab, 0);
    run_case(sw, strided, ab, ba, 0);
    run_case(ex, abc, acb, acb, 0);
    run_case(sw, nchw, nchw, nhwc, 0);
    run_case(sw, nhwc, nhwc, nhwc, 1);
    run_case(ex, nchw, blk, blk, 0);
    run_case(sw, blk, blk, blk, 1);
    run_case(sw, blk, any, blk, 0);
    run_case(ex, nhwc, any, nchw, 0);
    run_case(sw, ncdhw, ndhwc, ncdhw, 0);
    run_case(ex, empty, empty, empty, 0);
    run_case(ex, empty, empty, empty, 1);

    /* Data types: f16 and bf16 both ways, integers forward. */
    dnnl_memory_desc_t h = md_tag(4, d4, dnnl_f16, dnnl_nchw), bh = md_tag(4, d4, dnnl_bf16, dnnl_nhwc);
    const alg_t ge = {dnnl_eltwise_gelu_erf, 0, 0};
    run_case(ge, h, h, h, 0);
    run_case(ge, bh, bh, bh, 1);
    const dnnl_data_type_t ints[] = {dnnl_s8, dnnl_u8, dnnl_s32};
    const alg_t ia[] = {{dnnl_eltwise_relu, 0.5f, 0}, {dnnl_eltwise_linear, 2.5f, -3.f}};
    dnnl_dims_t di = {7, 86}; /* 602 elements: every input from -300 to 300 */
    int_inputs = 1;
    for (int t = 0; t < 3; t++) {
        dnnl_memory_desc_t im = md_tag(2, di, ints[t], dnnl_ab);
        for (int k = 0; k < 2; k++)
            run_case(ia[k], im, im, NULL, 0);
        CHECK(dnnl_memory_desc_destroy(im));
    }
    /* f32 in, s8 out: 2.5x - 3 in f32, rounded and saturated once. */
    dnnl_memory_desc_t fi = md_tag(2, di, dnnl_f32, dnnl_ab), so = md_tag(2, di, dnnl_s8, dnnl_ab);
    if (ours) run_case(ia[1], fi, so, NULL, 0);
    int_inputs = 0;
    CHECK(dnnl_memory_desc_destroy(fi));
    CHECK(dnnl_memory_desc_destroy(so));

    dnnl_memory_desc_t mds[] = {v, ab, ba, abc, acb, nchw, nhwc, blk, any, ncdhw, ndhwc, empty, strided, h, bh};
    for (size_t i = 0; i < sizeof mds / sizeof *mds; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d mismatches\n", failures);
        return 1;
    }
    printf("eltwise on the %s engine: ok\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
