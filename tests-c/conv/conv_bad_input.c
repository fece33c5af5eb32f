/* Convolution and deconvolution with bad input: each gets a status, never a crash, and
 * nothing is written to a refused destination (the primitive descriptor pointer keeps
 * what it held; a refused execution leaves the destination and the bytes after it as
 * they were). The statuses are Intel's v3.13 answers (the @ref run checks them there):
 *   - shapes: channels not divisible by groups, an output size inconsistent with the
 *     strides, padding or dilation, a kernel larger than the padded input, weights or
 *     bias of the wrong rank or size, mismatched minibatch or rank: invalid_arguments;
 *   - negative or zero strides, negative dilations or paddings: invalid_arguments;
 *   - NULL strides or padding_l: invalid_arguments; NULL dilates are zeros and a NULL
 *     padding_r is padding_l (both accepted, as the queries show);
 *   - f32 src with s8 weights, run-time dimensions: unimplemented;
 *   - bad prop kinds and alg kinds: invalid_arguments;
 *   - NULL descriptors: invalid_arguments; a NULL engine (upstream dereferences it) and
 *     execution arguments (upstream does not check them: it writes past an undersized
 *     destination) are checked on ours alone.
 *
 * Usage: conv_bad_input [cpu|gpu]. With gpu, the test skips (77) when the library sees
 * no OpenCL device. */
#include "bad_input.h"

enum { FWD, BWD_D, BWD_W };

/* Everything a convolution or deconvolution primitive descriptor is made of. */
typedef struct {
    int deconv, prop;
    dnnl_prop_kind_t pk; /* FWD */
    dnnl_alg_kind_t alg;
    const_dnnl_memory_desc_t src, wei, bias, dst; /* diff_* for the backward ones */
    const dnnl_dim_t *strides, *dilates, *pl, *pr;
} desc_t;

static dnnl_status_t create(dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const desc_t *d) {
    if (d->prop == FWD)
        return d->deconv ? dnnl_deconvolution_forward_primitive_desc_create(pd, eng, d->pk, d->alg,
                                   d->src, d->wei, d->bias, d->dst, d->strides, d->dilates, d->pl,
                                   d->pr, NULL)
                         : dnnl_convolution_forward_primitive_desc_create(pd, eng, d->pk, d->alg,
                                   d->src, d->wei, d->bias, d->dst, d->strides, d->dilates, d->pl,
                                   d->pr, NULL);
    if (d->prop == BWD_D)
        return d->deconv ? dnnl_deconvolution_backward_data_primitive_desc_create(pd, eng, d->alg,
                                   d->src, d->wei, d->dst, d->strides, d->dilates, d->pl, d->pr,
                                   NULL, NULL)
                         : dnnl_convolution_backward_data_primitive_desc_create(pd, eng, d->alg,
                                   d->src, d->wei, d->dst, d->strides, d->dilates, d->pl, d->pr,
                                   NULL, NULL);
    return d->deconv ? dnnl_deconvolution_backward_weights_primitive_desc_create(pd, eng, d->alg,
                               d->src, d->wei, d->bias, d->dst, d->strides, d->dilates, d->pl,
                               d->pr, NULL, NULL)
                     : dnnl_convolution_backward_weights_primitive_desc_create(pd, eng, d->alg,
                               d->src, d->wei, d->bias, d->dst, d->strides, d->dilates, d->pl,
                               d->pr, NULL, NULL);
}

/* d must get `want`; a refused one leaves the output untouched. On success the primitive
 * descriptor is returned (the caller destroys it), else NULL. */
static dnnl_primitive_desc_t expect(const char *what, const desc_t *d, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = UNTOUCHED;
    dnnl_status_t st = create(&pd, engine, d);
    expect_status(what, st, want);
    if (st != dnnl_success && pd != UNTOUCHED) {
        fprintf(stderr, "FAIL: %s: a refusal (%s) wrote the primitive descriptor\n", what,
                check_status_str(st));
        failures++;
    }
    if (st == dnnl_success && pd != UNTOUCHED && want == dnnl_success) return pd;
    if (st == dnnl_success && pd != UNTOUCHED) CHECK(dnnl_primitive_desc_destroy(pd));
    return NULL;
}

static void expect_dims(const char *what, const_dnnl_primitive_desc_t pd, dnnl_query_t q,
        const dnnl_dim_t *want) {
    const dnnl_dims_t *got = NULL;
    CHECK(dnnl_primitive_desc_query(pd, q, 0, &got));
    if ((*got)[0] != want[0] || (*got)[1] != want[1]) {
        fprintf(stderr, "FAIL: %s: query %d answers {%lld, %lld}, want {%lld, %lld}\n", what, (int)q,
                (long long)(*got)[0], (long long)(*got)[1], (long long)want[0], (long long)want[1]);
        failures++;
    }
}

/* ---- descriptors ---------------------------------------------------------------------- */

static void convolution(void) {
    /* The good one: src 2x4x7x9, weights 6x4x3x3, stride 1, padding 1: dst 2x6x7x9. */
    const dnnl_dim_t one[2] = {1, 1}, zero[2] = {0, 0};
    const_dnnl_memory_desc_t src = md(4, (dnnl_dims_t){2, 4, 7, 9}, dnnl_f32);
    const_dnnl_memory_desc_t wei = md(4, (dnnl_dims_t){6, 4, 3, 3}, dnnl_f32);
    const_dnnl_memory_desc_t bias = md(1, (dnnl_dims_t){6}, dnnl_f32);
    const_dnnl_memory_desc_t dst = md(4, (dnnl_dims_t){2, 6, 7, 9}, dnnl_f32);
    const desc_t good = {0, FWD, dnnl_forward_training, dnnl_convolution_direct, src, wei, bias,
            dst, one, zero, one, one};
    dnnl_primitive_desc_t pd = expect("convolution: the good descriptor", &good, dnnl_success);
    if (pd) CHECK(dnnl_primitive_desc_destroy(pd));
    desc_t d;

    /* Groups that do not divide the channels: IC 4 in 3 groups; OC 5 in 2 groups. */
    d = good;
    d.wei = md(5, (dnnl_dims_t){3, 2, 1, 3, 3}, dnnl_f32);
    expect("IC 4 with 3 groups", &d, dnnl_invalid_arguments);
    d = good;
    d.wei = md(5, (dnnl_dims_t){2, 3, 2, 3, 3}, dnnl_f32);
    d.bias = md(1, (dnnl_dims_t){5}, dnnl_f32);
    d.dst = md(4, (dnnl_dims_t){2, 5, 7, 9}, dnnl_f32);
    expect("OC 5 with 2 groups", &d, dnnl_invalid_arguments);
    d.dst = good.dst;
    d.bias = good.bias;
    expect("2 groups of 3 output channels (the good one grouped)", &d, dnnl_success);

    /* Output sizes the strides, padding and dilation do not give. */
    d = good;
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 10}, dnnl_f32);
    expect("OW one too large", &d, dnnl_invalid_arguments);
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 8}, dnnl_f32);
    expect("OW one too small", &d, dnnl_invalid_arguments);
    d = good;
    d.strides = (const dnnl_dim_t[]){1, 2};
    expect("stride 2 with the output of stride 1", &d, dnnl_invalid_arguments);
    d = good;
    d.dilates = (const dnnl_dim_t[]){0, 1};
    expect("dilation 1 with the output of a dense kernel", &d, dnnl_invalid_arguments);
    d = good;
    d.pr = (const dnnl_dim_t[]){1, 2};
    expect("padding_r 2 with the output of padding_r 1", &d, dnnl_invalid_arguments);

    /* A kernel wider than the padded input (14 > 9 + 1 + 1). */
    d = good;
    d.wei = md(4, (dnnl_dims_t){6, 4, 3, 14}, dnnl_f32);
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 1}, dnnl_f32);
    expect("kernel wider than the padded input, OW 1", &d, dnnl_invalid_arguments);
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 0}, dnnl_f32);
    expect("kernel wider than the padded input, OW 0", &d, dnnl_invalid_arguments);
    d.wei = md(4, (dnnl_dims_t){6, 4, 3, 11}, dnnl_f32);
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 1}, dnnl_f32);
    expect("kernel as wide as the padded input (OW 1)", &d, dnnl_success);

    /* Negative or zero strides, negative dilations and paddings. */
    d = good;
    d.strides = (const dnnl_dim_t[]){1, -1};
    expect("negative stride", &d, dnnl_invalid_arguments);
    d.strides = (const dnnl_dim_t[]){0, 1};
    expect("zero stride", &d, dnnl_invalid_arguments);
    d = good;
    d.dilates = (const dnnl_dim_t[]){-1, 0};
    expect("negative dilation", &d, dnnl_invalid_arguments);
    d.dilates = (const dnnl_dim_t[]){INT64_MAX / 2, 0};
    expect("dilation overflowing the kernel extent", &d, dnnl_invalid_arguments);
    d = good;
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 8}, dnnl_f32);
    d.pr = (const dnnl_dim_t[]){1, -1};
    expect("negative padding_r (the output consistent with it)", &d, dnnl_invalid_arguments);
    d.pr = (const dnnl_dim_t[]){1, 0};
    expect("padding_r 0 (that output)", &d, dnnl_success);
    d.pl = (const dnnl_dim_t[]){-1, 1};
    d.pr = (const dnnl_dim_t[]){1, 1};
    expect("negative padding_l", &d, dnnl_invalid_arguments);
    /* Paddings the output is consistent with: a right padding above minus the stride is
     * taken, down to it is not, and a negative left padding never is. */
    d = good;
    d.strides = (const dnnl_dim_t[]){1, 2};
    d.pl = (const dnnl_dim_t[]){1, 0};
    d.pr = (const dnnl_dim_t[]){1, -1};
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 3}, dnnl_f32);
    pd = expect("padding_r -1 with stride 2 (OW 3)", &d, dnnl_success);
    if (pd) CHECK(dnnl_primitive_desc_destroy(pd));
    d.pr = (const dnnl_dim_t[]){1, -2};
    expect("padding_r -2 with stride 2 (OW 3)", &d, dnnl_invalid_arguments);
    d.pl = (const dnnl_dim_t[]){1, -1};
    d.pr = (const dnnl_dim_t[]){1, 1};
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 4}, dnnl_f32);
    expect("padding_l -1 with stride 2 (OW 4)", &d, dnnl_invalid_arguments);
    d = good;
    d.pl = (const dnnl_dim_t[]){INT64_MAX, 1};
    expect("padding_l overflowing the padded size", &d, dnnl_invalid_arguments);

    /* Weights and bias of the wrong rank or size; mismatched minibatch and ranks. */
    d = good;
    d.wei = md(3, (dnnl_dims_t){6, 4, 3}, dnnl_f32);
    expect("3-d weights for a 2-d convolution", &d, dnnl_invalid_arguments);
    d.wei = md(6, (dnnl_dims_t){1, 1, 6, 4, 3, 3}, dnnl_f32);
    expect("6-d weights for a 2-d convolution", &d, dnnl_invalid_arguments);
    d = good;
    d.bias = md(1, (dnnl_dims_t){7}, dnnl_f32);
    expect("bias of 7 for 6 output channels", &d, dnnl_invalid_arguments);
    d.bias = md(2, (dnnl_dims_t){1, 6}, dnnl_f32);
    expect("2-d bias", &d, dnnl_invalid_arguments);
    d = good;
    d.dst = md(4, (dnnl_dims_t){3, 6, 7, 9}, dnnl_f32);
    expect("dst minibatch 3 for src minibatch 2", &d, dnnl_invalid_arguments);
    d = good;
    d.src = md(3, (dnnl_dims_t){2, 4, 7}, dnnl_f32);
    expect("3-d src with 4-d weights and dst", &d, dnnl_invalid_arguments);
    d = good;
    d.src = md(4, (dnnl_dims_t){2, 0, 7, 9}, dnnl_f32);
    d.wei = md(4, (dnnl_dims_t){6, 0, 3, 3}, dnnl_f32);
    expect("zero input channels", &d, dnnl_invalid_arguments);

    /* Types: f32 src with s8 weights. */
    d = good;
    d.wei = md(4, (dnnl_dims_t){6, 4, 3, 3}, dnnl_s8);
    expect("f32 src with s8 weights", &d, dnnl_unimplemented);

    /* Run-time dimensions. */
    d = good;
    d.src = md(4, (dnnl_dims_t){DNNL_RUNTIME_DIM_VAL, 4, 7, 9}, dnnl_f32);
    d.dst = md(4, (dnnl_dims_t){DNNL_RUNTIME_DIM_VAL, 6, 7, 9}, dnnl_f32);
    expect("run-time minibatch", &d, dnnl_unimplemented);
    d = good;
    d.wei = md(4, (dnnl_dims_t){6, 4, DNNL_RUNTIME_DIM_VAL, 3}, dnnl_f32);
    expect("run-time kernel height", &d, dnnl_unimplemented);

    /* NULL pointers: strides and padding_l are required; NULL dilates are zeros, a NULL
     * padding_r is padding_l. */
    d = good;
    d.strides = NULL;
    expect("NULL strides", &d, dnnl_invalid_arguments);
    d = good;
    d.pl = NULL;
    expect("NULL padding_l", &d, dnnl_invalid_arguments);
    d.pr = NULL;
    expect("NULL padding_l and padding_r", &d, dnnl_invalid_arguments);
    d = good;
    d.dilates = NULL;
    pd = expect("NULL dilates", &d, dnnl_success);
    if (pd) {
        expect_dims("NULL dilates", pd, dnnl_query_dilations, zero);
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    d = good;
    d.pr = NULL;
    pd = expect("NULL padding_r", &d, dnnl_success);
    if (pd) {
        expect_dims("NULL padding_r", pd, dnnl_query_padding_r, one);
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    d = good;
    d.pl = (const dnnl_dim_t[]){1, 0};
    d.pr = NULL;
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 8}, dnnl_f32);
    expect("NULL padding_r (taken as padding_l {1, 0}: OW 7, not 8)", &d, dnnl_invalid_arguments);
    d = good;
    d.src = NULL;
    expect("NULL src descriptor", &d, dnnl_invalid_arguments);
    d = good;
    d.wei = NULL;
    expect("NULL weights descriptor", &d, dnnl_invalid_arguments);
    d = good;
    d.dst = NULL;
    expect("NULL dst descriptor", &d, dnnl_invalid_arguments);
    expect_status("NULL primitive descriptor pointer", create(NULL, engine, &good),
            dnnl_invalid_arguments);
    if (library_is_ours()) {
        /* Upstream dereferences a NULL engine (a crash in the @ref run). */
        dnnl_primitive_desc_t out = UNTOUCHED;
        expect_status("NULL engine", create(&out, NULL, &good), dnnl_invalid_arguments);
        EXPECT(out == UNTOUCHED);
    }

    /* Prop kinds and alg kinds. */
    d = good;
    d.pk = dnnl_backward_data;
    expect("forward with prop kind backward_data", &d, dnnl_invalid_arguments);
    d.pk = dnnl_backward;
    expect("forward with prop kind backward", &d, dnnl_invalid_arguments);
    d.pk = dnnl_prop_kind_undef;
    expect("forward with prop kind undef", &d, dnnl_invalid_arguments);
    d.pk = (dnnl_prop_kind_t)12345;
    expect("forward with prop kind 12345", &d, dnnl_invalid_arguments);
    d = good;
    d.alg = dnnl_eltwise_relu;
    expect("alg kind eltwise_relu", &d, dnnl_invalid_arguments);
    d.alg = dnnl_deconvolution_direct;
    expect("convolution with alg kind deconvolution_direct", &d, dnnl_invalid_arguments);
    d.alg = (dnnl_alg_kind_t)999;
    expect("alg kind 999", &d, dnnl_invalid_arguments);

    /* Backward data and weights. */
    d = good;
    d.prop = BWD_D;
    d.bias = NULL;
    pd = expect("backward data: the good descriptor", &d, dnnl_success);
    if (pd) CHECK(dnnl_primitive_desc_destroy(pd));
    d.dst = md(4, (dnnl_dims_t){2, 6, 7, 10}, dnnl_f32);
    expect("backward data: diff_dst OW one too large", &d, dnnl_invalid_arguments);
    d.dst = good.dst;
    d.strides = NULL;
    expect("backward data: NULL strides", &d, dnnl_invalid_arguments);
    d.strides = one;
    d.src = NULL;
    expect("backward data: NULL diff_src descriptor", &d, dnnl_invalid_arguments);
    d.src = good.src;
    d.alg = dnnl_eltwise_relu;
    expect("backward data: alg kind eltwise_relu", &d, dnnl_invalid_arguments);
    d = good;
    d.prop = BWD_W;
    pd = expect("backward weights: the good descriptor", &d, dnnl_success);
    if (pd) CHECK(dnnl_primitive_desc_destroy(pd));
    d.bias = md(1, (dnnl_dims_t){7}, dnnl_f32);
    expect("backward weights: diff_bias of 7 for 6 output channels", &d, dnnl_invalid_arguments);
    d.bias = good.bias;
    d.pl = NULL;
    expect("backward weights: NULL padding_l", &d, dnnl_invalid_arguments);
    d.pl = one;
    d.wei = md(5, (dnnl_dims_t){3, 2, 1, 3, 3}, dnnl_f32);
    expect("backward weights: IC 4 with 3 groups", &d, dnnl_invalid_arguments);
}

static void deconvolution(void) {
    /* The good one: src 2x6x7x9, weights 4x6x3x3 (OC 4, IC 6), stride 1, padding 1:
     * dst 2x4x7x9. */
    const dnnl_dim_t one[2] = {1, 1}, zero[2] = {0, 0};
    const_dnnl_memory_desc_t src = md(4, (dnnl_dims_t){2, 6, 7, 9}, dnnl_f32);
    const_dnnl_memory_desc_t wei = md(4, (dnnl_dims_t){4, 6, 3, 3}, dnnl_f32);
    const_dnnl_memory_desc_t bias = md(1, (dnnl_dims_t){4}, dnnl_f32);
    const_dnnl_memory_desc_t dst = md(4, (dnnl_dims_t){2, 4, 7, 9}, dnnl_f32);
    const desc_t good = {1, FWD, dnnl_forward_training, dnnl_deconvolution_direct, src, wei, bias,
            dst, one, zero, one, one};
    dnnl_primitive_desc_t pd = expect("deconvolution: the good descriptor", &good, dnnl_success);
    if (pd) CHECK(dnnl_primitive_desc_destroy(pd));
    desc_t d;
    d = good;
    d.dst = md(4, (dnnl_dims_t){2, 4, 7, 10}, dnnl_f32);
    expect("deconvolution: dst OW one too large", &d, dnnl_invalid_arguments);
    d = good;
    d.wei = md(4, (dnnl_dims_t){6, 4, 3, 3}, dnnl_f32);
    expect("deconvolution: weights with OC and IC exchanged", &d, dnnl_invalid_arguments);
    d = good;
    d.wei = md(5, (dnnl_dims_t){4, 1, 1, 3, 3}, dnnl_f32);
    expect("deconvolution: IC 6 with 4 groups", &d, dnnl_invalid_arguments);
    d = good;
    d.bias = md(1, (dnnl_dims_t){6}, dnnl_f32);
    expect("deconvolution: bias of IC (6), not OC (4)", &d, dnnl_invalid_arguments);
    d = good;
    d.strides = (const dnnl_dim_t[]){-1, 1};
    expect("deconvolution: negative stride", &d, dnnl_invalid_arguments);
    d.strides = NULL;
    expect("deconvolution: NULL strides", &d, dnnl_invalid_arguments);
    d = good;
    d.dilates = NULL;
    pd = expect("deconvolution: NULL dilates", &d, dnnl_success);
    if (pd) CHECK(dnnl_primitive_desc_destroy(pd));
    d = good;
    d.pr = NULL;
    pd = expect("deconvolution: NULL padding_r", &d, dnnl_success);
    if (pd) {
        expect_dims("deconvolution: NULL padding_r", pd, dnnl_query_padding_r, one);
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    d = good;
    d.pk = dnnl_backward_weights;
    expect("deconvolution forward with prop kind backward_weights", &d, dnnl_invalid_arguments);
    d = good;
    d.alg = dnnl_convolution_direct;
    expect("deconvolution with alg kind convolution_direct", &d, dnnl_invalid_arguments);
    d.alg = dnnl_deconvolution_winograd;
    expect("deconvolution_winograd", &d, dnnl_unimplemented);
    d = good;
    d.prop = BWD_D;
    d.bias = NULL;
    d.strides = NULL;
    expect("deconvolution backward data: NULL strides", &d, dnnl_invalid_arguments);
    d.strides = one;
    d.src = md(4, (dnnl_dims_t){2, 6, 7, 8}, dnnl_f32);
    expect("deconvolution backward data: diff_src OW one too small", &d, dnnl_invalid_arguments);
    d = good;
    d.prop = BWD_W;
    d.dst = md(4, (dnnl_dims_t){3, 4, 7, 9}, dnnl_f32);
    expect("deconvolution backward weights: minibatch 3 and 2", &d, dnnl_invalid_arguments);
}

/* ---- execution (ours: upstream does not check execution arguments) ------------------ */

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them; it writes past an undersized destination)\n");
        return;
    }
    const dnnl_dim_t one[2] = {1, 1};
    const_dnnl_memory_desc_t src = md(4, (dnnl_dims_t){2, 4, 7, 9}, dnnl_f32);
    const_dnnl_memory_desc_t wei = md(4, (dnnl_dims_t){6, 4, 3, 3}, dnnl_f32);
    const_dnnl_memory_desc_t dst = md(4, (dnnl_dims_t){2, 6, 7, 9}, dnnl_f32);
    const desc_t good = {0, FWD, dnnl_forward_inference, dnnl_convolution_direct, src, wei, NULL,
            dst, one, NULL, one, one};
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = create(&pd, engine, &good);
    if (st != dnnl_success) {
        fprintf(stderr, "FAIL: execution: the good descriptor returned %s\n", check_status_str(st));
        failures++;
        return;
    }
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t sm = NULL, wm = NULL;
    CHECK(dnnl_memory_create(&sm, src, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&wm, wei, engine, DNNL_MEMORY_ALLOCATE));
    size_t full = dnnl_memory_desc_get_size(dst);
    /* Undersized destinations: one column short, one image short; a bf16 one (half the
     * bytes); the right size in another layout; none at all. */
    struct {
        const char *what;
        const_dnnl_memory_desc_t m;
    } bad[] = {
            {"dst one column short", md(4, (dnnl_dims_t){2, 6, 7, 8}, dnnl_f32)},
            {"dst one image short", md(4, (dnnl_dims_t){1, 6, 7, 9}, dnnl_f32)},
            {"bf16 dst for an f32 primitive", md(4, (dnnl_dims_t){2, 6, 7, 9}, dnnl_bf16)},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned char *buf = NULL;
        dnnl_memory_t dm = canary_memory(bad[i].m, &buf, full + 64);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
        st = dnnl_primitive_execute(prim, stream, 3, args);
        CHECK(dnnl_stream_wait(stream));
        if (st != dnnl_invalid_arguments) {
            fprintf(stderr, "FAIL: execution with a %s returned %s, want invalid_arguments\n",
                    bad[i].what, check_status_str(st));
            failures++;
        }
        if (!untouched(dm, buf, full + 64)) {
            fprintf(stderr, "FAIL: execution with a %s wrote to it or past it\n", bad[i].what);
            failures++;
        }
        CHECK(dnnl_memory_destroy(dm));
        free(buf);
    }
    dnnl_exec_arg_t no_dst[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}};
    expect_status("execution without a dst", dnnl_primitive_execute(prim, stream, 2, no_dst),
            dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    convolution();
    deconvolution();
    execution();
    free_mds();
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "conv_bad_input: %d failures\n", failures);
        return 1;
    }
    printf("conv_bad_input on %s: every bad input refused with upstream's status\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
