/* Int8 inner product forward (u8/s8 source, s8 weights) through the official API,
 * against an exact integer reference computed here: a sweep over destination types
 * (f32, s32, s8, u8, bf16), bias types (none, f32, s32, s8, u8, bf16), scales (src,
 * weights common / per output channel, dst), post-ops (eltwise relu, sum with a zero
 * point, binary add per output channel, prelu per output channel), 2-D and 4-D
 * sources (nchw, weights `any`) and odd sizes. Scales are powers of two and values
 * integers or multiples of 1/8, so the f32 epilogue is exact: integer dsts match
 * exactly (rounding half to even, saturating), f32 exactly, bf16 within one rounding.
 * Then bad input with upstream's statuses (u8 weights, f16 dst, zero points, a
 * weights scales mask over input channels: unimplemented; s32 weights: invalid).
 * In a reference run on a CPU without VNNI the weights are kept in s7 [-64, 63]
 * (reference_saturates_int8(), check.h).
 *
 * Usage: ip_int8 [cpu|gpu]. With gpu, the test skips (77) when the library sees no
 * OpenCL device. */
#include "matmul/common.h"

static int on_gpu, s7;

/* common.h's helpers this test does not call. */
static inline void unused_common(void) { (void)compare, (void)values; }

enum { PO_NONE, PO_RELU, PO_SUM, PO_BINARY, PO_PRELU, PO_COUNT };

typedef struct {
    int nd; /* 2 or 4 */
    int64_t mb, ic, sp, oc; /* sp: height = width for 4-D */
    dnnl_data_type_t sdt, ddt, bdt; /* bdt undef: no bias */
    int ss, sw, sd; /* weights: 0 none, 1 common, 2 per output channel */
    int po;
} case_t;

static double int_value(dnnl_data_type_t dt, int64_t i, int seed) {
    uint64_t h = (uint64_t)(i * 2654435761u + (uint64_t)seed * 40503u);
    h ^= h >> 13;
    switch (dt) {
        case dnnl_u8: return (double)(h % 256);
        case dnnl_s8: return (double)(h % 256) - 128;
        case dnnl_s32: return (double)(h % 15) - 7;
        default: return (double)(h % 33) / 8.0 - 2.0;
    }
}

static float *fvals(int64_t n, dnnl_data_type_t dt, int seed) {
    float *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = rounded(dt, (float)int_value(dt, i, seed));
    return v;
}

static double wscale_at(const case_t *c, int64_t o) {
    return c->sw == 0 ? 1 : c->sw == 1 ? 0.25 : ldexp(1.0, (int)(o % 3) - 1);
}
static double prelu_at(int64_t o) { return o % 2 ? 0.5 : 0.25; }
static double binary_at(int64_t o) { return (double)(o % 9) / 8.0 - 0.5; }

static dnnl_memory_t md_filled(int nd, const dnnl_dim_t *d, dnnl_data_type_t dt,
        dnnl_format_tag_t tag, const float *v) {
    dnnl_memory_desc_t md = md_tag(nd, d, dt, tag);
    dnnl_memory_t m = filled(md, v);
    CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

static void run_case(const case_t *c, const char *what) {
    int nd = c->nd;
    dnnl_dims_t sd = {c->mb, c->ic, c->sp, c->sp}, wd = {c->oc, c->ic, c->sp, c->sp};
    dnnl_dims_t dd = {c->mb, c->oc}, bd = {c->oc}, one = {1}, vd = {1, c->oc};
    int64_t k = c->ic * (nd == 4 ? c->sp * c->sp : 1);
    int with_bias = c->bdt != dnnl_data_type_undef;
    dnnl_memory_desc_t smd = md_tag(nd, sd, c->sdt, nd == 2 ? dnnl_ab : dnnl_abcd);
    dnnl_memory_desc_t wmd = md_tag(nd, wd, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_t dmd = md_tag(2, dd, c->ddt, dnnl_ab);
    dnnl_memory_desc_t bmd = with_bias ? md_tag(1, bd, c->bdt, dnnl_a) : NULL;
    dnnl_memory_desc_t vmd = md_tag(2, vd, dnnl_f32, dnnl_ab);

    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (c->ss) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    if (c->sw) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, c->sw == 2 ? 1 : 0));
    if (c->sd) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    switch (c->po) {
        case PO_RELU: CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.25f, 0.f)); break;
        case PO_SUM: CHECK(dnnl_post_ops_append_sum(po, 0.5f, 1, dnnl_data_type_undef)); break;
        case PO_BINARY: CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, vmd)); break;
        case PO_PRELU: CHECK(dnnl_post_ops_append_prelu(po, 2)); break;
        default: break;
    }
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_post_ops_destroy(po));

    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_inner_product_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, smd, wmd, bmd, dmd, attr);
    CHECK(dnnl_primitive_attr_destroy(attr));
    if (reference_lacks(st, what)) goto done;
    if (st != dnnl_success) {
        fprintf(stderr, "%s: create returned %s\n", what, check_status_str(st));
        failures++;
        goto done;
    }
    expect_impl(pd, on_gpu);
    const_dnnl_memory_desc_t wgot = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);

    float *s = fvals(c->mb * k, c->sdt, 1), *w = fvals(c->oc * k, dnnl_s8, 2);
    for (int64_t i = 0; i < c->oc * k && s7; i++) w[i] = (float)s7_of_s8((int)w[i]);
    float *old = fvals(c->mb * c->oc, c->ddt, 3), *bias = fvals(c->oc, c->bdt, 4);
    float sw_v[256], pr_v[256], bin_v[256], half = 0.5f, two = 2.0f;
    EXPECT(c->oc <= 256);
    for (int64_t o = 0; o < c->oc; o++) {
        sw_v[o] = (float)wscale_at(c, o);
        pr_v[o] = (float)prelu_at(o);
        bin_v[o] = (float)binary_at(o);
    }
    dnnl_memory_t sm = filled(smd, s), wm = filled(wgot, w), dm = filled(dmd, old);
    dnnl_memory_t bm = with_bias ? filled(bmd, bias) : NULL;
    dnnl_exec_arg_t args[12];
    dnnl_memory_t extra[6];
    int na = 0, ne = 0;
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sm};
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, wm};
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DST, dm};
    if (with_bias) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bm};
#define EXTRA(arg, m) \
    do { \
        extra[ne] = (m); \
        args[na++] = (dnnl_exec_arg_t){arg, extra[ne++]}; \
    } while (0)
    dnnl_dims_t nsw = {c->sw == 2 ? c->oc : 1};
    if (c->ss) EXTRA(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, md_filled(1, one, dnnl_f32, dnnl_a, &half));
    if (c->sw) EXTRA(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, md_filled(1, nsw, dnnl_f32, dnnl_a, sw_v));
    if (c->sd) EXTRA(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, md_filled(1, one, dnnl_f32, dnnl_a, &two));
    if (c->po == PO_BINARY)
        EXTRA(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, filled(vmd, bin_v));
    if (c->po == PO_PRELU)
        EXTRA(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_WEIGHTS, filled(vmd, pr_v));
#undef EXTRA
    run(pd, na, args);

    float *got = malloc((size_t)(c->mb * c->oc) * sizeof *got);
    int padding_ok;
    read_back(dm, got, &padding_ok);
    for (int64_t i = 0; i < c->mb; i++)
        for (int64_t o = 0; o < c->oc; o++) {
            int64_t acc = 0;
            for (int64_t kk = 0; kk < k; kk++) acc += (int64_t)s[i * k + kk] * (int64_t)w[o * k + kk];
            double f = (double)acc * (c->ss ? 0.5 : 1.0) * wscale_at(c, o);
            if (with_bias) f += bias[o];
            int64_t at = i * c->oc + o;
            switch (c->po) {
                case PO_RELU: f = f < 0 ? 0.25 * f : f; break;
                case PO_SUM: f += 0.5 * ((double)old[at] - 1); break;
                case PO_BINARY: f += binary_at(o); break;
                case PO_PRELU: f = f < 0 ? prelu_at(o) * f : f; break;
                default: break;
            }
            f /= c->sd ? 2.0 : 1.0;
            if (!matches(c->ddt, got[at], f, 0)) {
                fprintf(stderr, "%s: dst (%lld, %lld): got %.9g, want %.9g\n", what, (long long)i,
                        (long long)o, got[at], f);
                failures++;
                i = c->mb;
                break;
            }
        }
    free(got);
    free(s), free(w), free(old), free(bias);
    for (int i = 0; i < ne; i++) CHECK(dnnl_memory_destroy(extra[i]));
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_memory_destroy(dm));
    if (bm) CHECK(dnnl_memory_destroy(bm));
    CHECK(dnnl_primitive_desc_destroy(pd));
done:
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(wmd));
    CHECK(dnnl_memory_desc_destroy(dmd));
    if (bmd) CHECK(dnnl_memory_desc_destroy(bmd));
    CHECK(dnnl_memory_desc_destroy(vmd));
}

/* A 2-D u8 source inner product with weights of wdt, dst of ddt and attr. */
static dnnl_status_t create(dnnl_data_type_t sdt, dnnl_data_type_t wdt, dnnl_data_type_t ddt,
        const_dnnl_primitive_attr_t attr) {
    dnnl_dims_t sd = {3, 4}, wd = {5, 4}, dd = {3, 5};
    dnnl_memory_desc_t smd = md_tag(2, sd, sdt, dnnl_ab);
    dnnl_memory_desc_t wmd = md_tag(2, wd, wdt, dnnl_ab);
    dnnl_memory_desc_t dmd = md_tag(2, dd, ddt, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_inner_product_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, smd, wmd, NULL, dmd, attr);
    if (st == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(wmd));
    CHECK(dnnl_memory_desc_destroy(dmd));
    return st;
}

static void bad_input(void) {
    CHECK(create(dnnl_u8, dnnl_s8, dnnl_s32, NULL));
    CHECK_STATUS(create(dnnl_u8, dnnl_u8, dnnl_f32, NULL), dnnl_unimplemented);
    CHECK_STATUS(create(dnnl_s8, dnnl_s32, dnnl_f32, NULL), dnnl_invalid_arguments);
    dnnl_status_t f16_dst = create(dnnl_u8, dnnl_s8, dnnl_f16, NULL);
    if (!(reference_has_fp16() && f16_dst == dnnl_success)) CHECK_STATUS(f16_dst, dnnl_unimplemented);
    dnnl_primitive_attr_t attr = NULL;
    int args[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    for (int i = 0; i < 3; i++) {
        CHECK(dnnl_primitive_attr_create(&attr));
        CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, args[i], 0));
        CHECK_STATUS(create(dnnl_u8, dnnl_s8, dnnl_f32, attr), dnnl_unimplemented);
        CHECK(dnnl_primitive_attr_destroy(attr));
    }
    /* Weights scales over input channels (mask 2), src scales per row (mask 1). */
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 2));
    CHECK_STATUS(create(dnnl_u8, dnnl_s8, dnnl_f32, attr), dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 1));
    CHECK_STATUS(create(dnnl_u8, dnnl_s8, dnnl_f32, attr), dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
    /* Scales on a float inner product. */
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 1));
    CHECK_STATUS(create(dnnl_f32, dnnl_f32, dnnl_f32, attr), dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    s7 = reference_saturates_int8();

    static const dnnl_data_type_t dsts[] = {dnnl_f32, dnnl_s32, dnnl_s8, dnnl_u8, dnnl_bf16};
    static const dnnl_data_type_t biases[] = {dnnl_data_type_undef, dnnl_f32, dnnl_s32, dnnl_s8,
            dnnl_u8, dnnl_bf16};
    char what[160];
    rng_seed(19);
    int count = on_gpu ? 25 : 80;
    for (int i = 0; i < count; i++) {
        case_t c;
        memset(&c, 0, sizeof c);
        int r = (int)(rng_uniform() * 1e6 + 1e6);
        c.nd = (r & 1) ? 4 : 2;
        c.mb = 1 + (int)((rng_uniform() + 1) * 13) % 23;
        c.ic = 1 + (int)((rng_uniform() + 1) * 20) % 37;
        c.sp = c.nd == 4 ? 1 + (r >> 1) % 3 : 1;
        c.oc = 1 + (int)((rng_uniform() + 1) * 25) % 45;
        c.sdt = (r >> 3) % 2 ? dnnl_u8 : dnnl_s8;
        c.ddt = dsts[i % 5];
        c.bdt = biases[(i / 5 + r) % 6];
        c.ss = (r >> 4) % 2;
        c.sw = (r >> 5) % 3;
        c.sd = (r >> 7) % 2;
        c.po = (i / 5 + (r >> 8)) % PO_COUNT;
        snprintf(what, sizeof what,
                "sweep %d: %dD mb %lld ic %lld sp %lld oc %lld %s -> %s bias %s scales %d%d%d po %d",
                i, c.nd, (long long)c.mb, (long long)c.ic, (long long)c.sp, (long long)c.oc,
                dnnl_dt2str(c.sdt), dnnl_dt2str(c.ddt),
                c.bdt == dnnl_data_type_undef ? "none" : dnnl_dt2str(c.bdt), c.ss, c.sw, c.sd, c.po);
        run_case(&c, what);
    }
    bad_input();

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ip_int8: all cases passed\n");
    return 0;
}
