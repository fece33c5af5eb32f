/* Reduction with bad input: each gets Intel's v3.13 status (the @ref run checks them
 * there), never a crash, and a refused creation writes nothing:
 *   - an identity (no dimension reduced, also all dimensions 1), a dst dimension that is
 *     neither src's nor 1, another rank, src `any`, a bad algorithm: invalid_arguments;
 *   - Lp norms with p below 1, infinite or NaN, or an integer src: invalid_arguments
 *     (p does not matter to the other algorithms, and a negative eps is accepted);
 *   - scales: unimplemented;
 *   - NULL descriptors: invalid_arguments;
 *   - execution (ours only: upstream does not check execution arguments): an undersized
 *     or mistyped dst, no dst: invalid_arguments, the dst untouched.
 *
 * Usage: reduction_bad_input [cpu|gpu]; with gpu it skips (77) without an OpenCL device. */
#include <math.h>

#include "bad_input.h"

static void create_checks(void) {
    const dnnl_dim_t s[] = {2, 3, 4}, r1[] = {2, 1, 4}, same[] = {2, 3, 4}, ones[] = {1, 1, 1},
                     wrong[] = {2, 2, 4}, bigger[] = {2, 1, 8};
    const_dnnl_memory_desc_t src = md(3, s, dnnl_f32), dst = md(3, r1, dnnl_f32);
    const_dnnl_memory_desc_t src_s8 = md(3, s, dnnl_s8);
    const_dnnl_memory_desc_t src_any = md_with_tag(3, s, dnnl_f32, dnnl_format_tag_any);
    const struct {
        const char *what;
        dnnl_alg_kind_t alg;
        const_dnnl_memory_desc_t src, dst;
        float p, eps;
        dnnl_status_t want;
    } cases[] = {
            {"good sum", dnnl_reduction_sum, src, dst, 0, 0, dnnl_success},
            {"sum with p 0.5 (p is the Lp norms' only)", dnnl_reduction_sum, src, dst, 0.5f, 0,
                    dnnl_success},
            {"lp_max with a negative eps", dnnl_reduction_norm_lp_max, src, dst, 2, -1,
                    dnnl_success},
            {"identity", dnnl_reduction_sum, src, md(3, same, dnnl_f32), 0, 0,
                    dnnl_invalid_arguments},
            {"all dimensions 1", dnnl_reduction_max, md(3, ones, dnnl_f32), md(3, ones, dnnl_f32),
                    0, 0, dnnl_invalid_arguments},
            {"dst dimension neither src's nor 1", dnnl_reduction_sum, src, md(3, wrong, dnnl_f32),
                    0, 0, dnnl_invalid_arguments},
            {"dst dimension larger than src's", dnnl_reduction_sum, src, md(3, bigger, dnnl_f32), 0,
                    0, dnnl_invalid_arguments},
            {"dst of another rank", dnnl_reduction_sum, src, md(2, r1, dnnl_f32), 0, 0,
                    dnnl_invalid_arguments},
            {"src any", dnnl_reduction_sum, src_any, dst, 0, 0, dnnl_invalid_arguments},
            {"eltwise algorithm", dnnl_eltwise_relu, src, dst, 0, 0, dnnl_invalid_arguments},
            {"undef algorithm", dnnl_alg_kind_undef, src, dst, 0, 0, dnnl_invalid_arguments},
            {"lp_max p 0.5", dnnl_reduction_norm_lp_max, src, dst, 0.5f, 0, dnnl_invalid_arguments},
            {"lp_sum p 0", dnnl_reduction_norm_lp_sum, src, dst, 0, 0, dnnl_invalid_arguments},
            {"lp_power_p_max p inf", dnnl_reduction_norm_lp_power_p_max, src, dst, INFINITY, 0,
                    dnnl_invalid_arguments},
            {"lp_power_p_sum p nan", dnnl_reduction_norm_lp_power_p_sum, src, dst, NAN, 0,
                    dnnl_invalid_arguments},
            {"lp_max of s8", dnnl_reduction_norm_lp_max, src_s8, dst, 2, 0,
                    dnnl_invalid_arguments},
            {"NULL src", dnnl_reduction_sum, NULL, dst, 0, 0, dnnl_invalid_arguments},
            {"NULL dst", dnnl_reduction_sum, src, NULL, 0, 0, dnnl_invalid_arguments},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_reduction_primitive_desc_create(&pd, engine, cases[i].alg,
                cases[i].src, cases[i].dst, cases[i].p, cases[i].eps, NULL);
        expect_pd(cases[i].what, st, pd, cases[i].want);
    }
    /* Scales are not applied by reductions. */
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    dnnl_primitive_desc_t pd = UNTOUCHED;
    dnnl_status_t st = dnnl_reduction_primitive_desc_create(
            &pd, engine, dnnl_reduction_sum, src, dst, 0, 0, attr);
    expect_pd("src scales", st, pd, dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them; it writes past an undersized destination)\n");
        return;
    }
    const dnnl_dim_t s[] = {4, 8, 6}, r[] = {4, 1, 6};
    const_dnnl_memory_desc_t src = md(3, s, dnnl_f32), dst = md(3, r, dnnl_f32);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_reduction_primitive_desc_create(&pd, engine, dnnl_reduction_sum, src, dst, 0, 0, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t sm = NULL, dm = NULL;
    CHECK(dnnl_memory_create(&sm, src, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dm, dst, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    expect_refused_dsts(prim, 2, args, 3, r);
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(dm));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

int main(int argc, char **argv) {
    bad_input_open(argc, argv);
    create_checks();
    execution();
    return bad_input_close("reduction_bad_input");
}
