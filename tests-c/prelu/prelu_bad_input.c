/* PReLU with bad input: each gets Intel's v3.13 status (the @ref run checks them there),
 * never a crash, and a refused creation writes nothing:
 *   - weights that do not broadcast to src (another rank, a dimension neither src's nor
 *     1), dst or diff_src / diff_dst of other dimensions, src `any`, a backward prop
 *     kind forward: invalid_arguments;
 *   - NULL descriptors: invalid_arguments;
 *   - a diff_weights of other (broadcastable) dimensions than the weights is accepted,
 *     as Intel's library accepts it; one that does not broadcast to src is refused by
 *     ours alone (invalid_arguments; Intel's library accepts it);
 *   - execution (ours only): an undersized dst, no dst: invalid_arguments, the dst
 *     untouched.
 *
 * Usage: prelu_bad_input [cpu|gpu]; with gpu it skips (77) without an OpenCL device. */
#include "bad_input.h"

static void create_checks(void) {
    const dnnl_dim_t s[] = {2, 3, 4}, c[] = {1, 3, 1}, one[] = {1, 1, 1}, bad_c[] = {1, 2, 1},
                     other[] = {2, 3, 5};
    const_dnnl_memory_desc_t src = md(3, s, dnnl_f32), w = md(3, c, dnnl_f32);
    const_dnnl_memory_desc_t any = md_with_tag(3, s, dnnl_f32, dnnl_format_tag_any);
    const struct {
        const char *what;
        dnnl_prop_kind_t pk;
        const_dnnl_memory_desc_t src, w, dst;
        dnnl_status_t want;
    } fwd[] = {
            {"good", dnnl_forward_training, src, w, src, dnnl_success},
            {"weights of rank 2", dnnl_forward_training, src, md(2, c + 1, dnnl_f32), src,
                    dnnl_invalid_arguments},
            {"weights dimension neither src's nor 1", dnnl_forward_training, src,
                    md(3, bad_c, dnnl_f32), src, dnnl_invalid_arguments},
            {"dst of other dimensions", dnnl_forward_training, src, w, md(3, other, dnnl_f32),
                    dnnl_invalid_arguments},
            {"src any", dnnl_forward_training, any, w, src, dnnl_invalid_arguments},
            {"prop kind backward", dnnl_backward, src, w, src, dnnl_invalid_arguments},
            {"NULL weights", dnnl_forward_training, src, NULL, src, dnnl_invalid_arguments},
    };
    for (size_t i = 0; i < sizeof fwd / sizeof *fwd; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_prelu_forward_primitive_desc_create(
                &pd, engine, fwd[i].pk, fwd[i].src, fwd[i].w, fwd[i].dst, NULL);
        expect_pd(fwd[i].what, st, pd, fwd[i].want);
    }
    const struct {
        const char *what;
        const_dnnl_memory_desc_t ds, dw, dd;
        dnnl_status_t want;
    } bwd[] = {
            {"good backward", src, w, src, dnnl_success},
            {"diff_weights scalar for per-channel weights", src, md(3, one, dnnl_f32), src,
                    dnnl_success},
            {"diff_src of other dimensions", md(3, other, dnnl_f32), w, src,
                    dnnl_invalid_arguments},
            {"diff_dst of other dimensions", src, w, md(3, other, dnnl_f32),
                    dnnl_invalid_arguments},
            {"NULL diff_dst", src, w, NULL, dnnl_invalid_arguments},
    };
    for (size_t i = 0; i < sizeof bwd / sizeof *bwd; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_prelu_backward_primitive_desc_create(
                &pd, engine, src, w, bwd[i].ds, bwd[i].dw, bwd[i].dd, NULL, NULL);
        expect_pd(bwd[i].what, st, pd, bwd[i].want);
    }
    /* Ours only: Intel's library accepts a diff_weights that does not broadcast to src
     * (1x2x1 for 2x3x4), which has no meaning; ours refuses it. */
    if (library_is_ours()) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_prelu_backward_primitive_desc_create(
                &pd, engine, src, w, src, md(3, bad_c, dnnl_f32), src, NULL, NULL);
        expect_pd("diff_weights not broadcast", st, pd, dnnl_invalid_arguments);
    }
}

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them; it writes past an undersized destination)\n");
        return;
    }
    const dnnl_dim_t s[] = {4, 8, 6}, c[] = {1, 8, 1};
    const_dnnl_memory_desc_t src = md(3, s, dnnl_f32), w = md(3, c, dnnl_f32);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_prelu_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, src, w, src, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t sm = NULL, wm = NULL;
    CHECK(dnnl_memory_create(&sm, src, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&wm, w, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, sm}};
    expect_refused_dsts(prim, 3, args, 3, s);
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

int main(int argc, char **argv) {
    bad_input_open(argc, argv);
    create_checks();
    execution();
    return bad_input_close("prelu_bad_input");
}
