/* Post-ops through the official API, on matmul (f32 and bf16 dst), inner
 * product forward, eltwise forward (relu), binary (add) and softmax forward:
 *   - chains of sum (scale 0.5, zero point 1), eltwise (clip / tanh), binary
 *     mul with a per-channel s8 / f32 src1, binary add with a full-size src1,
 *     prelu (per-channel weights) and binary select (_v2, u8 condition),
 *     operands passed as DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1 /
 *     SRC_2 / WEIGHTS, compared with a double reference;
 *   - dnnl_query_exec_arg_md returns the operands' descriptors;
 *   - refusals: a depthwise post-op (unimplemented), a src1 that does not
 *     broadcast to dst (never success).
 *
 * Usage: post_ops [cpu|gpu]. With gpu, the test skips (77) when the library
 * sees no OpenCL device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"

static int failures;

enum kind { MATMUL, IP, ELTWISE, BINARY, SOFTMAX };
static const char *kind_name[] = {"matmul", "inner_product", "eltwise", "binary", "softmax"};

/* The post-ops of a chain, in this order. */
enum { SUM = 1, ELT = 2, MUL = 4, ADD = 8, PRELU = 16, SELECT = 32 };

typedef struct {
    enum kind kind;
    /* Inputs (b: weights of matmul / inner product, src1 of binary; else NULL). */
    dnnl_memory_desc_t a, b, dst;
    int chain;
    dnnl_alg_kind_t elt;       /* ELT: dnnl_eltwise_clip or dnnl_eltwise_tanh */
    dnnl_data_type_t mul_dt;   /* MUL: src1's type (s8 or f32) */
    double rtol; /* of the f32 computation; the final rounding to dst's type comes on top */
} case_t;

static dnnl_format_tag_t plain(int ndims) {
    return ndims == 2 ? dnnl_ab : ndims == 3 ? dnnl_abc : dnnl_abcd;
}

static float value(int64_t i, int seed) {
    return (float)((i * 37 + seed * 11) % 19) / 8.0f - 1.125f;
}

static float *filled_values(const_dnnl_memory_desc_t md, int seed, dnnl_memory_t *m) {
    layout_t l = layout_of(md);
    float *v = malloc((size_t)(l.nelems > 0 ? l.nelems : 1) * sizeof *v);
    for (int64_t i = 0; i < l.nelems; i++)
        v[i] = rounded(l.dt, value(i, seed));
    if (m) {
        *m = memory(md);
        fill(*m, v);
    }
    return v;
}

static dnnl_status_t create(const case_t *c, const_dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd) {
    switch (c->kind) {
        case MATMUL: return dnnl_matmul_primitive_desc_create(pd, engine, c->a, c->b, NULL, c->dst, attr);
        case IP:
            return dnnl_inner_product_forward_primitive_desc_create(
                    pd, engine, dnnl_forward_inference, c->a, c->b, NULL, c->dst, attr);
        case ELTWISE:
            return dnnl_eltwise_forward_primitive_desc_create(
                    pd, engine, dnnl_forward_inference, dnnl_eltwise_relu, c->a, c->dst, 0.f, 0.f, attr);
        case BINARY: return dnnl_binary_primitive_desc_create(pd, engine, dnnl_binary_add, c->a, c->b, c->dst, attr);
        default:
            return dnnl_softmax_forward_primitive_desc_create(
                    pd, engine, dnnl_forward_inference, dnnl_softmax_accurate, c->a, c->dst, 1, attr);
    }
}

/* The primitive's own result (before post-ops), for each dst element. */
static void base_ref(const case_t *c, const float *a, const float *b, const layout_t *d, double *out) {
    layout_t la = layout_of(c->a);
    int64_t n = d->nelems;
    switch (c->kind) {
        case MATMUL: { /* a: MxK, b: KxN */
            int64_t M = d->dims[0], N = d->dims[1], K = la.dims[1];
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double s = 0;
                    for (int64_t k = 0; k < K; k++)
                        s += (double)a[i * K + k] * b[k * N + j];
                    out[i * N + j] = s;
                }
            break;
        }
        case IP: { /* a: MBxIC, b: OCxIC */
            int64_t MB = d->dims[0], OC = d->dims[1], IC = la.dims[1];
            for (int64_t i = 0; i < MB; i++)
                for (int64_t o = 0; o < OC; o++) {
                    double s = 0;
                    for (int64_t k = 0; k < IC; k++)
                        s += (double)a[i * IC + k] * b[o * IC + k];
                    out[i * OC + o] = s;
                }
            break;
        }
        case ELTWISE:
            for (int64_t i = 0; i < n; i++)
                out[i] = a[i] > 0 ? a[i] : 0;
            break;
        case BINARY:
            for (int64_t i = 0; i < n; i++)
                out[i] = (double)a[i] + b[i];
            break;
        default: { /* 2-D, axis 1 */
            int64_t R = d->dims[0], C = d->dims[1];
            for (int64_t r = 0; r < R; r++) {
                double mx = -INFINITY, s = 0;
                for (int64_t k = 0; k < C; k++)
                    mx = fmax(mx, a[r * C + k]);
                for (int64_t k = 0; k < C; k++)
                    s += exp(a[r * C + k] - mx);
                for (int64_t k = 0; k < C; k++)
                    out[r * C + k] = exp(a[r * C + k] - mx) / s;
            }
        }
    }
}

static int64_t channel_of(const layout_t *d, int64_t idx) {
    for (int dd = d->ndims - 1; dd > 1; dd--)
        idx /= d->dims[dd];
    return idx % d->dims[1];
}

typedef struct {
    int arg;
    dnnl_memory_desc_t md; /* owned */
    dnnl_memory_t mem;
    float *v;
} operand_t;

static void run_case(const case_t *c, const char *what) {
    const_dnnl_memory_desc_t dmd_c = c->dst;
    layout_t d = layout_of(dmd_c);
    dnnl_dims_t chan_dims, full_dims;
    for (int i = 0; i < d.ndims; i++) {
        full_dims[i] = d.dims[i];
        chan_dims[i] = i == 1 ? d.dims[1] : 1;
    }
    dnnl_format_tag_t tag = plain(d.ndims);
    operand_t ops[8];
    int nops = 0, idx = 0;
    int i_mul = -1, i_add = -1, i_prelu = -1, i_sel1 = -1, i_sel2 = -1;
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    if (c->chain & SUM) {
        CHECK(dnnl_post_ops_append_sum(po, 0.5f, 1, dnnl_data_type_undef));
        idx++;
    }
    if (c->chain & ELT) {
        if (c->elt == dnnl_eltwise_clip) CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_clip, -1.25f, 1.5f));
        else CHECK(dnnl_post_ops_append_eltwise(po, c->elt, 0.f, 0.f));
        idx++;
    }
    if (c->chain & MUL) {
        i_mul = nops;
        ops[nops].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1;
        ops[nops++].md = md_tag(d.ndims, chan_dims, c->mul_dt, tag);
        CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_mul, ops[i_mul].md));
        idx++;
    }
    if (c->chain & ADD) {
        i_add = nops;
        ops[nops].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1;
        ops[nops++].md = md_tag(d.ndims, full_dims, dnnl_f32, tag);
        CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, ops[i_add].md));
        idx++;
    }
    if (c->chain & PRELU) {
        i_prelu = nops;
        ops[nops].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_WEIGHTS;
        ops[nops++].md = md_tag(d.ndims, chan_dims, dnnl_f32, tag);
        CHECK(dnnl_post_ops_append_prelu(po, 2));
        idx++;
    }
    if (c->chain & SELECT) {
        i_sel1 = nops;
        ops[nops].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1;
        ops[nops++].md = md_tag(d.ndims, chan_dims, dnnl_f32, tag);
        i_sel2 = nops;
        ops[nops].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_2;
        ops[nops++].md = md_tag(d.ndims, full_dims, dnnl_u8, tag);
        CHECK(dnnl_post_ops_append_binary_v2(po, dnnl_binary_select, ops[i_sel1].md, ops[i_sel2].md));
        idx++;
    }
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_post_ops_destroy(po));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = create(c, attr, &pd);
    CHECK(dnnl_primitive_attr_destroy(attr));
    if (st != dnnl_success) {
        fprintf(stderr, "%s: descriptor creation: %s\n", what, dnnl_status2str(st));
        failures++;
        for (int i = 0; i < nops; i++)
            CHECK(dnnl_memory_desc_destroy(ops[i].md));
        return;
    }
    /* The operands' descriptors, through dnnl_query_exec_arg_md. Upstream
     * describes binary operands only (prelu weights: no descriptor); ours
     * describes prelu weights too, as plain f32. */
    for (int i = 0; i < nops; i++) {
        const_dnnl_memory_desc_t q = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, ops[i].arg);
        int none = q == NULL;
        if (q != NULL) {
            int nd = -1;
            CHECK(dnnl_memory_desc_query(q, dnnl_query_ndims_s32, &nd));
            none = nd == 0;
        }
        if (i == i_prelu && none) continue;
        if (q == NULL || !dnnl_memory_desc_equal(q, ops[i].md)) {
            fprintf(stderr, "%s: exec_arg_md of arg %d: %s\n", what, ops[i].arg, q ? "differs" : "NULL");
            failures++;
        }
    }
    /* Operand values. */
    for (int i = 0; i < nops; i++) {
        layout_t l = layout_of(ops[i].md);
        ops[i].v = malloc((size_t)l.nelems * sizeof(float));
        for (int64_t k = 0; k < l.nelems; k++) {
            float v;
            if (i == i_mul) v = c->mul_dt == dnnl_s8 ? (float)(k % 5 - 2) : 0.25f * (float)(k % 7) - 0.5f;
            else if (i == i_prelu) v = 0.25f * (float)(k % 5) - 0.5f;
            else if (i == i_sel2) v = (float)(k % 3 != 0);
            else v = value(k, 5 + i);
            ops[i].v[k] = rounded(l.dt, v);
        }
        ops[i].mem = memory(ops[i].md);
        fill(ops[i].mem, ops[i].v);
    }
    dnnl_memory_t ma = NULL, mb = NULL, md = NULL;
    float *va = filled_values(c->a, 1, &ma);
    float *vb = c->b ? filled_values(c->b, 2, &mb) : NULL;
    float *old = filled_values(c->dst, 3, &md);
    double *want = malloc((size_t)d.nelems * sizeof *want), *mag = malloc((size_t)d.nelems * sizeof *mag);
    base_ref(c, va, vb, &d, want);
    for (int64_t k = 0; k < d.nelems; k++) {
        double v = want[k], m = fabs(v);
        int64_t ch = channel_of(&d, k);
        if (c->chain & SUM) v += 0.5 * ((double)old[k] - 1.0);
        m = fmax(m, fabs(v));
        if (c->chain & ELT) v = c->elt == dnnl_eltwise_clip ? fmin(fmax(v, -1.25), 1.5) : tanh(v);
        if (c->chain & MUL) v *= ops[i_mul].v[ch];
        m = fmax(m, fabs(v));
        if (c->chain & ADD) v += ops[i_add].v[k];
        m = fmax(m, fabs(v));
        if (c->chain & PRELU) v = v > 0 ? v : v * ops[i_prelu].v[ch];
        if (c->chain & SELECT) v = ops[i_sel2].v[k] != 0 ? v : ops[i_sel1].v[ch];
        want[k] = v;
        mag[k] = m;
    }
    dnnl_exec_arg_t args[12];
    int nargs = 0;
    int a_arg = c->kind == BINARY ? DNNL_ARG_SRC_0 : DNNL_ARG_SRC;
    int b_arg = c->kind == BINARY ? DNNL_ARG_SRC_1 : DNNL_ARG_WEIGHTS;
    args[nargs++] = (dnnl_exec_arg_t){a_arg, ma};
    if (mb) args[nargs++] = (dnnl_exec_arg_t){b_arg, mb};
    args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_DST, md};
    for (int i = 0; i < nops; i++)
        args[nargs++] = (dnnl_exec_arg_t){ops[i].arg, ops[i].mem};
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
    float *got = malloc((size_t)d.nelems * sizeof *got);
    int padding_ok;
    read_back(md, got, &padding_ok);
    if (!padding_ok) {
        fprintf(stderr, "%s: padding of dst not zero\n", what);
        failures++;
    }
    for (int64_t k = 0; k < d.nelems; k++) {
        if (!matches(d.dt, got[k], want[k], c->rtol * (mag[k] + fabs(want[k]) + 1.0))) {
            fprintf(stderr, "%s: element %lld: got %g, want %g\n", what, (long long)k, got[k], want[k]);
            failures++;
            break;
        }
    }
    CHECK(dnnl_primitive_desc_destroy(pd));
    for (int i = 0; i < nops; i++) {
        CHECK(dnnl_memory_destroy(ops[i].mem));
        CHECK(dnnl_memory_desc_destroy(ops[i].md));
        free(ops[i].v);
    }
    CHECK(dnnl_memory_destroy(ma));
    if (mb) CHECK(dnnl_memory_destroy(mb));
    CHECK(dnnl_memory_destroy(md));
    free(va);
    free(vb);
    free(old);
    free(want);
    free(mag);
    free(got);
}

/* A depthwise post-op: unimplemented; a src1 that does not broadcast: refused. */
static void refusals(const case_t *c) {
    layout_t d = layout_of(c->dst);
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 1));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_status_t st = create(c, attr, &pd);
    if (st != dnnl_unimplemented) {
        fprintf(stderr, "%s: depthwise post-op: %s\n", kind_name[c->kind], dnnl_status2str(st));
        failures++;
        if (st == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
    }
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_primitive_attr_destroy(attr));

    dnnl_dims_t bad;
    for (int i = 0; i < d.ndims; i++)
        bad[i] = i == 1 ? d.dims[1] + 1 : 1;
    dnnl_memory_desc_t src1 = md_tag(d.ndims, bad, dnnl_f32, plain(d.ndims));
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, src1));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    pd = NULL;
    st = create(c, attr, &pd);
    if (st == dnnl_success) {
        fprintf(stderr, "%s: src1 that does not broadcast accepted\n", kind_name[c->kind]);
        failures++;
        CHECK(dnnl_primitive_desc_destroy(pd));
    } else if (st != dnnl_unimplemented && st != dnnl_invalid_arguments) {
        fprintf(stderr, "%s: src1 that does not broadcast: %s\n", kind_name[c->kind], dnnl_status2str(st));
        failures++;
    }
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_memory_desc_destroy(src1));
}

static const int all = SUM | ELT | MUL | ADD | PRELU | SELECT;

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    dnnl_dims_t mk = {5, 9}, kn = {9, 7}, mn = {5, 7};
    dnnl_dims_t ip_src = {6, 11}, ip_wei = {13, 11}, ip_dst = {6, 13};
    dnnl_dims_t d4 = {2, 19, 3, 5}, sm = {6, 13};
    dnnl_memory_desc_t mm_a = md_tag(2, mk, dnnl_f32, dnnl_ab), mm_b = md_tag(2, kn, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t mm_d = md_tag(2, mn, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t mm_ah = md_tag(2, mk, dnnl_bf16, dnnl_ab), mm_bh = md_tag(2, kn, dnnl_bf16, dnnl_ab);
    dnnl_memory_desc_t mm_dh = md_tag(2, mn, dnnl_bf16, dnnl_ab);
    dnnl_memory_desc_t ip_a = md_tag(2, ip_src, dnnl_f32, dnnl_ab), ip_b = md_tag(2, ip_wei, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t ip_d = md_tag(2, ip_dst, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t nchw = md_tag(4, d4, dnnl_f32, dnnl_nchw), blk = md_tag(4, d4, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_t nhwc = md_tag(4, d4, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_t sm_md = md_tag(2, sm, dnnl_f32, dnnl_ab);

    /* The f32 computation's error (a bf16 destination adds one bf16 ulp: matches()). */
    const double f32 = 2e-5, bf16 = 2e-5;
    const case_t cases[] = {
            {MATMUL, mm_a, mm_b, mm_d, all, dnnl_eltwise_clip, dnnl_s8, f32},
            {MATMUL, mm_a, mm_b, mm_d, all, dnnl_eltwise_tanh, dnnl_f32, f32},
            {MATMUL, mm_ah, mm_bh, mm_dh, all, dnnl_eltwise_clip, dnnl_s8, bf16},
            {MATMUL, mm_ah, mm_bh, mm_dh, SUM | ADD, dnnl_eltwise_clip, dnnl_f32, bf16},
            {IP, ip_a, ip_b, ip_d, all, dnnl_eltwise_tanh, dnnl_s8, f32},
            {IP, ip_a, ip_b, ip_d, SUM | MUL | PRELU, dnnl_eltwise_clip, dnnl_f32, f32},
            {ELTWISE, nchw, NULL, nchw, all, dnnl_eltwise_tanh, dnnl_s8, f32},
            {ELTWISE, nhwc, NULL, nhwc, MUL | SELECT, dnnl_eltwise_clip, dnnl_f32, f32},
            {BINARY, nchw, nchw, nchw, all, dnnl_eltwise_clip, dnnl_f32, f32},
            {BINARY, nchw, nchw, blk, all, dnnl_eltwise_tanh, dnnl_s8, f32},
            {SOFTMAX, sm_md, NULL, sm_md, all, dnnl_eltwise_clip, dnnl_s8, 1e-4},
            {SOFTMAX, sm_md, NULL, sm_md, ELT | MUL | ADD, dnnl_eltwise_tanh, dnnl_f32, 1e-4},
    };
    /* OpenCL: one case per kind and dst type (each chain is a program build). */
    const unsigned gpu_cases = 1u << 0 | 1u << 2 | 1u << 4 | 1u << 6 | 1u << 9 | 1u << 10;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (on_gpu && !(gpu_cases >> i & 1)) continue;
        char what[64];
        snprintf(what, sizeof what, "%s case %zu", kind_name[cases[i].kind], i);
        run_case(&cases[i], what);
    }
    const size_t kinds[] = {0, 4, 6, 8, 10};
    for (size_t i = 0; i < 5; i++)
        refusals(&cases[kinds[i]]);

    dnnl_memory_desc_t mds[] = {mm_a, mm_b, mm_d, mm_ah, mm_bh, mm_dh, ip_a, ip_b, ip_d, nchw, blk, nhwc, sm_md};
    for (size_t i = 0; i < sizeof mds / sizeof *mds; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("post-ops on the %s engine: ok\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
