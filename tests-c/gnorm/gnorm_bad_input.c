/* Group normalization with bad input: each gets a status, never a crash, and nothing is
 * written to a refused output (the primitive descriptor pointer keeps what it held; a
 * refused execution leaves the destination and the bytes after it as they were). The
 * statuses are Intel's v3.13 answers (the @ref run checks them there):
 *   - a forward prop kind for backward and the reverse, unknown flags, batch norm's
 *     fused ReLU flags and layer norm's rms_norm, groups that do not divide the
 *     channels (or zero, or negative), a 1-D src, dst or diff tensors of other
 *     dimensions, a forward src `any`, NULL descriptors: invalid_arguments;
 *   - scales on f32 data, a sum post-op: unimplemented;
 *   - execution (ours alone: upstream does not check execution arguments): an
 *     undersized destination, statistics of the wrong shape, a missing variance:
 *     invalid_arguments, the memories untouched.
 *
 * Usage: gnorm_bad_input [cpu|gpu]. With gpu, the test skips (77) when the library sees
 * no OpenCL device. */
#include "bad_input.h"

/* A forward creation that must fail with `want`, leaving *pd as it was. */
static void fwd(const char *what, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t src,
        const_dnnl_memory_desc_t dst, dnnl_dim_t groups, unsigned flags,
        const_dnnl_primitive_attr_t attr, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = UNTOUCHED;
    dnnl_status_t st = dnnl_group_normalization_forward_primitive_desc_create(
            &pd, engine, prop, src, dst, groups, 1e-3f, flags, attr);
    expect_pd(what, st, pd, want);
}

static void bwd(const char *what, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t dsrc,
        const_dnnl_memory_desc_t ddst, const_dnnl_memory_desc_t src, dnnl_dim_t groups,
        unsigned flags, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_group_normalization_backward_primitive_desc_create(
            &pd, engine, prop, dsrc, ddst, src, groups, 1e-3f, flags, NULL, NULL);
    expect_status(what, st, want);
    if (st == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
}

static void descriptors(void) {
    const dnnl_dim_t d4[4] = {2, 6, 3, 4}, d4b[4] = {2, 6, 3, 5}, d1[1] = {6};
    const_dnnl_memory_desc_t s = md_with_tag(4, d4, dnnl_f32, dnnl_nchw);
    const_dnnl_memory_desc_t other = md_with_tag(4, d4b, dnnl_f32, dnnl_nchw);
    const_dnnl_memory_desc_t any = md_with_tag(4, d4, dnnl_f32, dnnl_format_tag_any);
    const_dnnl_memory_desc_t s1 = md_with_tag(1, d1, dnnl_f32, dnnl_a);

    fwd("forward with prop backward", dnnl_backward, s, s, 3, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with unknown flags", dnnl_forward_training, s, s, 3, 0x40, NULL, dnnl_invalid_arguments);
    fwd("forward with fuse_norm_relu", dnnl_forward_training, s, s, 3, 8, NULL, dnnl_invalid_arguments);
    fwd("forward with rms_norm", dnnl_forward_training, s, s, 3, 32, NULL, dnnl_invalid_arguments);
    fwd("4 groups of 6 channels", dnnl_forward_training, s, s, 4, 0, NULL, dnnl_invalid_arguments);
    fwd("0 groups", dnnl_forward_training, s, s, 0, 0, NULL, dnnl_invalid_arguments);
    fwd("-1 groups", dnnl_forward_training, s, s, -1, 0, NULL, dnnl_invalid_arguments);
    fwd("forward of a 1-D src", dnnl_forward_inference, s1, s1, 1, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with dst of other dims", dnnl_forward_inference, s, other, 3, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with src any", dnnl_forward_inference, any, any, 3, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with a NULL dst", dnnl_forward_inference, s, NULL, 3, 0, NULL, dnnl_invalid_arguments);

    dnnl_primitive_attr_t scales = NULL, sum = NULL;
    CHECK(dnnl_primitive_attr_create(&scales));
    CHECK(dnnl_primitive_attr_set_scales_mask(scales, DNNL_ARG_SRC, 0));
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
    CHECK(dnnl_primitive_attr_create(&sum));
    CHECK(dnnl_primitive_attr_set_post_ops(sum, po));
    CHECK(dnnl_post_ops_destroy(po));
    fwd("scales on f32 data", dnnl_forward_inference, s, s, 3, 0, scales, dnnl_unimplemented);
    fwd("a sum post-op", dnnl_forward_inference, s, s, 3, 0, sum, dnnl_unimplemented);
    /* The good ones beside them. */
    fwd("one group", dnnl_forward_training, s, s, 1, 0, NULL, dnnl_success);
    fwd("a group per channel", dnnl_forward_training, s, s, 6, 7, NULL, dnnl_success);
    CHECK(dnnl_primitive_attr_destroy(scales));
    CHECK(dnnl_primitive_attr_destroy(sum));

    bwd("backward with prop forward", dnnl_forward_training, s, s, s, 3, 0, dnnl_invalid_arguments);
    bwd("backward with unknown flags", dnnl_backward, s, s, s, 3, 0x40, dnnl_invalid_arguments);
    bwd("backward with fuse_norm_relu", dnnl_backward, s, s, s, 3, 8, dnnl_invalid_arguments);
    bwd("backward with 4 groups of 6 channels", dnnl_backward, s, s, s, 4, 0, dnnl_invalid_arguments);
    bwd("backward with diff_dst of other dims", dnnl_backward, s, other, s, 3, 0, dnnl_invalid_arguments);
    bwd("backward with a NULL src", dnnl_backward, s, s, NULL, 3, 0, dnnl_invalid_arguments);
    bwd("backward with any diffs", dnnl_backward, any, any, s, 3, 6, dnnl_success);
    bwd("backward with src any", dnnl_backward, s, s, any, 3, 6, dnnl_success);
    bwd("backward data with scale", dnnl_backward_data, s, s, s, 3, 2, dnnl_success);
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
    const dnnl_dim_t d3[4] = {2, 6, 3, 4}, small[4] = {2, 6, 3, 3}, c[2] = {2, 3}, c4[2] = {3, 2};
    const_dnnl_memory_desc_t s = md_with_tag(4, d3, dnnl_f32, dnnl_nchw);
    const_dnnl_memory_desc_t stat = md_with_tag(2, c, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_group_normalization_forward_primitive_desc_create(&pd, engine, dnnl_forward_training,
            s, s, 3, 1e-3f, 0, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t sm = mem(s), mean = mem(stat), var = mem(stat);
    size_t full = dnnl_memory_desc_get_size(s);
    struct {
        const char *what;
        const_dnnl_memory_desc_t m;
        int arg;
    } bad[] = {
            {"dst one column short", md_with_tag(4, small, dnnl_f32, dnnl_nchw), DNNL_ARG_DST},
            {"bf16 dst for an f32 primitive", md_with_tag(4, d3, dnnl_bf16, dnnl_nchw), DNNL_ARG_DST},
            {"a mean of 3x2 stats", md_with_tag(2, c4, dnnl_f32, dnnl_ab), DNNL_ARG_MEAN},
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
    return bad_input_close("gnorm_bad_input");
}
