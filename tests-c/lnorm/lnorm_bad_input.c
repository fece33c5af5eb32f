/* Layer normalization with bad input: each gets a status, never a crash, and nothing is
 * written to a refused output (the primitive descriptor pointer keeps what it held; a
 * refused execution leaves the destination and the bytes after it as they were). The
 * statuses are Intel's v3.13 answers (the @ref run checks them there):
 *   - a forward prop kind for backward and the reverse, unknown flags and batch norm's
 *     fused ReLU flags, a 1-D src, dst or diff tensors of other dimensions, a forward src
 *     `any`, NULL descriptors: invalid_arguments;
 *   - scales on f32 data or per dimension, a sum post-op, bf16 statistics, s8 scale and
 *     shift, backward data with scale or shift: unimplemented;
 *   - execution (ours alone: upstream does not check execution arguments): an
 *     undersized destination, statistics of the wrong shape, a missing variance:
 *     invalid_arguments, the memories untouched.
 *
 * Usage: lnorm_bad_input [cpu|gpu]. With gpu, the test skips (77) when the library sees
 * no OpenCL device. */
#include "bad_input.h"

/* A forward creation that must fail with `want`, leaving *pd as it was. */
static void fwd2(const char *what, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t src,
        const_dnnl_memory_desc_t dst, const_dnnl_memory_desc_t stat, dnnl_data_type_t ss_dt,
        unsigned flags, const_dnnl_primitive_attr_t attr, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = UNTOUCHED;
    dnnl_status_t st = dnnl_layer_normalization_forward_primitive_desc_create_v2(
            &pd, engine, prop, src, dst, stat, ss_dt, 1e-3f, flags, attr);
    expect_pd(what, st, pd, want);
}

#define fwd(what, prop, src, dst, stat, flags, attr, want) \
    fwd2(what, prop, src, dst, stat, dnnl_f32, flags, attr, want)

static void bwd(const char *what, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t dsrc,
        const_dnnl_memory_desc_t ddst, const_dnnl_memory_desc_t src,
        const_dnnl_memory_desc_t stat, unsigned flags, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_layer_normalization_backward_primitive_desc_create(
            &pd, engine, prop, dsrc, ddst, src, stat, 1e-3f, flags, NULL, NULL);
    expect_status(what, st, want);
    if (st == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
}

static void descriptors(void) {
    const dnnl_dim_t d3[3] = {2, 3, 8}, d3b[3] = {2, 3, 9}, d2[2] = {2, 3}, d1[1] = {6};
    const_dnnl_memory_desc_t s = md_with_tag(3, d3, dnnl_f32, dnnl_tnc);
    const_dnnl_memory_desc_t other = md_with_tag(3, d3b, dnnl_f32, dnnl_tnc);
    const_dnnl_memory_desc_t any = md_with_tag(3, d3, dnnl_f32, dnnl_format_tag_any);
    const_dnnl_memory_desc_t s1 = md_with_tag(1, d1, dnnl_f32, dnnl_a);
    const_dnnl_memory_desc_t st = md_with_tag(2, d2, dnnl_f32, dnnl_ab);
    const_dnnl_memory_desc_t st_bf16 = md_with_tag(2, d2, dnnl_bf16, dnnl_ab);
    const_dnnl_memory_desc_t s8 = md_with_tag(3, d3, dnnl_s8, dnnl_tnc);

    fwd("forward with prop backward", dnnl_backward, s, s, st, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with unknown flags", dnnl_forward_training, s, s, st, 0x40, NULL, dnnl_invalid_arguments);
    fwd("forward with fuse_norm_relu", dnnl_forward_training, s, s, st, 8, NULL, dnnl_invalid_arguments);
    fwd("forward with fuse_norm_add_relu", dnnl_forward_inference, s, s, st, 16, NULL, dnnl_invalid_arguments);
    fwd("forward of a 1-D src", dnnl_forward_inference, s1, s1, NULL, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with dst of other dims", dnnl_forward_inference, s, other, NULL, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with src any", dnnl_forward_inference, any, any, NULL, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with a NULL src", dnnl_forward_inference, NULL, s, NULL, 0, NULL, dnnl_invalid_arguments);
    fwd("bf16 statistics", dnnl_forward_training, s, s, st_bf16, 0, NULL, dnnl_unimplemented);
    fwd2("s8 scale and shift", dnnl_forward_training, s, s, st, dnnl_s8, 6, NULL, dnnl_unimplemented);

    dnnl_primitive_attr_t scales = NULL, mask1 = NULL, sum = NULL;
    CHECK(dnnl_primitive_attr_create(&scales));
    CHECK(dnnl_primitive_attr_set_scales_mask(scales, DNNL_ARG_SRC, 0));
    CHECK(dnnl_primitive_attr_create(&mask1));
    CHECK(dnnl_primitive_attr_set_scales_mask(mask1, DNNL_ARG_DST, 1));
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
    CHECK(dnnl_primitive_attr_create(&sum));
    CHECK(dnnl_primitive_attr_set_post_ops(sum, po));
    CHECK(dnnl_post_ops_destroy(po));
    fwd("scales on f32 data", dnnl_forward_inference, s, s, NULL, 0, scales, dnnl_unimplemented);
    fwd("dst scales per dimension", dnnl_forward_inference, s, s8, NULL, 0, mask1, dnnl_unimplemented);
    fwd("a sum post-op", dnnl_forward_inference, s, s, NULL, 0, sum, dnnl_unimplemented);
    /* The good ones beside them. */
    fwd("scales on int8 data", dnnl_forward_inference, s, s8, NULL, 0, scales, dnnl_success);
    fwd("statistics of another layout", dnnl_forward_training, s, s, md_with_tag(2, d2, dnnl_f32, dnnl_ba), 0, NULL, dnnl_success);
    CHECK(dnnl_primitive_attr_destroy(scales));
    CHECK(dnnl_primitive_attr_destroy(mask1));
    CHECK(dnnl_primitive_attr_destroy(sum));

    bwd("backward with prop forward", dnnl_forward_training, s, s, s, st, 0, dnnl_invalid_arguments);
    bwd("backward with unknown flags", dnnl_backward, s, s, s, st, 0x40, dnnl_invalid_arguments);
    bwd("backward with fuse_norm_relu", dnnl_backward, s, s, s, st, 8, dnnl_invalid_arguments);
    bwd("backward with diff_dst of other dims", dnnl_backward, s, other, s, st, 0, dnnl_invalid_arguments);
    bwd("backward with a NULL diff_src", dnnl_backward, NULL, s, s, st, 0, dnnl_invalid_arguments);
    bwd("backward data with scale", dnnl_backward_data, s, s, s, st, 2, dnnl_unimplemented);
    bwd("backward data with shift", dnnl_backward_data, s, s, s, st, 4, dnnl_unimplemented);
    bwd("backward with any diffs", dnnl_backward, any, any, s, st, 6, dnnl_success);
}

/* ---- execution (ours: upstream does not check execution arguments) ------------------ */

static dnnl_memory_t mem(const_dnnl_memory_desc_t m) {
    dnnl_memory_t x = NULL;
    CHECK(dnnl_memory_create(&x, m, engine, DNNL_MEMORY_ALLOCATE));
    return x;
}

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them)\n");
        return;
    }
    const dnnl_dim_t d3[3] = {2, 3, 8}, small[3] = {2, 3, 7}, c[2] = {2, 3}, c4[2] = {3, 2};
    const_dnnl_memory_desc_t s = md_with_tag(3, d3, dnnl_f32, dnnl_tnc);
    const_dnnl_memory_desc_t stat = md_with_tag(2, c, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_layer_normalization_forward_primitive_desc_create(&pd, engine, dnnl_forward_training,
            s, s, stat, 1e-3f, 0, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t sm = mem(s), mean = mem(stat), var = mem(stat);
    size_t full = dnnl_memory_desc_get_size(s);
    struct {
        const char *what;
        const_dnnl_memory_desc_t m;
        int arg;
    } bad[] = {
            {"dst one channel short", md_with_tag(3, small, dnnl_f32, dnnl_tnc), DNNL_ARG_DST},
            {"bf16 dst for an f32 primitive", md_with_tag(3, d3, dnnl_bf16, dnnl_tnc), DNNL_ARG_DST},
            {"a mean of 3x2 rows", md_with_tag(2, c4, dnnl_f32, dnnl_ab), DNNL_ARG_MEAN},
    };
    dnnl_memory_t dm = mem(s);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm},
            {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char what[96];
        snprintf(what, sizeof what, "execution with %s", bad[i].what);
        expect_refused_output(prim, 4, args, bad[i].arg == DNNL_ARG_DST ? 1 : 2, bad[i].m,
                full + 64, what);
    }
    dnnl_exec_arg_t no_var[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_MEAN, mean}};
    expect_status("execution without the variance", dnnl_primitive_execute(prim, stream, 3, no_var),
            dnnl_invalid_arguments);
    CHECK(dnnl_stream_wait(stream));
    dnnl_memory_t ms[] = {sm, mean, var, dm};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        CHECK(dnnl_memory_destroy(ms[i]));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

int main(int argc, char **argv) {
    bad_input_open(argc, argv);
    descriptors();
    execution();
    return bad_input_close("lnorm_bad_input");
}
