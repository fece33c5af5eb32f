/* Eltwise primitive descriptors: the arguments they refuse, as upstream refuses
 * them (invalid_arguments for a bad propagation kind, algorithm, alpha/beta,
 * mismatched dimensions, NULL arguments, a source of format `any`;
 * unimplemented for a data type the primitive does not compute), the
 * descriptors they report, and iteration over implementations. CPU engine. */
#include <string.h>

#include "check.h"

static dnnl_memory_desc_t md_tag(int ndims, const dnnl_dim_t *dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, tag));
    return md;
}

int main(void) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    dnnl_dims_t dims = {2, 3, 4, 5}, other = {2, 3, 4, 6};
    dnnl_memory_desc_t f = md_tag(4, dims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t nhwc = md_tag(4, dims, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_t g = md_tag(4, other, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t any = md_tag(4, dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t s8 = md_tag(4, dims, dnnl_s8, dnnl_nchw);
    dnnl_memory_desc_t f64 = md_tag(4, dims, dnnl_f64, dnnl_nchw);
    dnnl_dims_t d3 = {2, 3, 20};
    dnnl_memory_desc_t f3 = md_tag(3, d3, dnnl_f32, dnnl_abc);
    dnnl_primitive_desc_t pd = NULL;
    const dnnl_prop_kind_t train = dnnl_forward_training;
    const dnnl_alg_kind_t relu = dnnl_eltwise_relu;

#define FWD(pk, alg, s, d, a, b) \
    dnnl_eltwise_forward_primitive_desc_create(&pd, engine, pk, alg, s, d, a, b, NULL)
#define BWD(alg, ds, dd, data, a, b) \
    dnnl_eltwise_backward_primitive_desc_create(&pd, engine, alg, ds, dd, data, a, b, NULL, NULL)

    /* Invalid arguments. */
    CHECK_STATUS(FWD(dnnl_backward_data, relu, f, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(dnnl_prop_kind_undef, relu, f, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, dnnl_pooling_max, f, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, dnnl_alg_kind_undef, f, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, relu, f, g, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, relu, f, f3, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, relu, NULL, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, relu, f, NULL, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, relu, any, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, dnnl_eltwise_clip, f, f, 1, 0), dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, dnnl_eltwise_relu_use_dst_for_bwd, f, f, -1, 0),
            dnnl_invalid_arguments);
    CHECK_STATUS(FWD(train, dnnl_eltwise_tanh, s8, s8, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_eltwise_forward_primitive_desc_create(
                         NULL, engine, train, relu, f, f, 0, 0, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(BWD(dnnl_eltwise_round, f, f, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(BWD(relu, f, g, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(BWD(relu, f, f, g, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(BWD(relu, f, f, NULL, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(BWD(relu, NULL, f, f, 0, 0), dnnl_invalid_arguments);
    CHECK_STATUS(BWD(0x1ff, f, f, f, 0, 0), dnnl_invalid_arguments);
    /* Unimplemented: integer backward, f64. */
    CHECK_STATUS(BWD(relu, s8, s8, s8, 0, 0), dnnl_unimplemented);
    CHECK_STATUS(FWD(train, relu, f64, f64, 0, 0), dnnl_unimplemented);

    /* Accepted: clip with alpha == beta, relu with negative alpha, linear on s8,
     * the _use_dst_for_bwd algorithms on s8, a zero-sized tensor. */
    CHECK(FWD(train, dnnl_eltwise_clip, f, f, 1, 1));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(FWD(dnnl_forward_inference, relu, f, f, -1, 0));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(FWD(train, dnnl_eltwise_linear, s8, s8, 2, 1));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(FWD(train, dnnl_eltwise_exp_use_dst_for_bwd, s8, s8, 0, 0));
    CHECK(dnnl_primitive_desc_destroy(pd));

    /* Attributes: the defaults are accepted; scales are not applied by eltwise,
     * nor post-ops backward (upstream refuses both too). */
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, train, relu, f, f, 0, 0, attr));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    CHECK_STATUS(dnnl_eltwise_forward_primitive_desc_create(
                         &pd, engine, train, relu, f, f, 0, 0, attr),
            dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0, 0));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK_STATUS(dnnl_eltwise_backward_primitive_desc_create(
                         &pd, engine, relu, f, f, f, 0, 0, NULL, attr),
            dnnl_unimplemented);
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_primitive_attr_destroy(attr));

    /* dst `any` takes the source's layout. */
    CHECK(FWD(train, relu, nhwc, any, 0, 0));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), nhwc));
    /* Queries that do not apply answer the zero descriptor. */
    const_dnnl_memory_desc_t none = dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0);
    int nd = -1;
    CHECK(dnnl_memory_desc_query(none, dnnl_query_ndims_s32, &nd));
    EXPECT(nd == 0);
    CHECK(dnnl_primitive_desc_destroy(pd));

    /* Implementations, until the last. Ours: the dense one first, then the
     * one for any layout (upstream's names differ). */
    CHECK(FWD(train, relu, f, f, 0, 0));
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    EXPECT(impl != NULL);
    int ours = strncmp(impl, "cpu:eltwise_", 12) == 0;
    if (ours) EXPECT(strcmp(impl, "cpu:eltwise_dense") == 0);
    dnnl_status_t next = dnnl_success;
    for (int i = 0; i < 16 && next == dnnl_success; i++) {
        next = dnnl_primitive_desc_next_impl(pd);
        if (next == dnnl_success && ours && i == 0) {
            CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
            EXPECT(strcmp(impl, "cpu:eltwise_strided") == 0);
        }
    }
    CHECK_STATUS(next, dnnl_last_impl_reached);
    dnnl_primitive_kind_t kind;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind));
    EXPECT(kind == dnnl_eltwise);

    /* Backward: without a hint too; the data argument is DST for _use_dst_for_bwd. */
    dnnl_primitive_desc_t bpd = NULL;
    CHECK(dnnl_eltwise_backward_primitive_desc_create(
            &bpd, engine, dnnl_eltwise_tanh_use_dst_for_bwd, any, nhwc, nhwc, 0, 0, NULL, NULL));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bpd, dnnl_query_dst_md, 0), nhwc));
    EXPECT(dnnl_memory_desc_equal(
            dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0), nhwc));
    CHECK(dnnl_memory_desc_query(
            dnnl_primitive_desc_query_md(bpd, dnnl_query_src_md, 0), dnnl_query_ndims_s32, &nd));
    EXPECT(nd == 0);
    EXPECT(dnnl_primitive_desc_query_s32(bpd, dnnl_query_num_of_inputs_s32, 0) == 2);
    CHECK(dnnl_primitive_desc_destroy(bpd));
    CHECK(dnnl_eltwise_backward_primitive_desc_create(
            &bpd, engine, relu, f, f, f, 0, 0, pd, NULL));
    CHECK(dnnl_primitive_desc_destroy(bpd));

    /* A primitive missing an argument refuses to execute. */
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, f, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t only_src[] = {{DNNL_ARG_SRC, mem}};
    CHECK_STATUS(dnnl_primitive_execute(prim, stream, 1, only_src), dnnl_invalid_arguments);
    dnnl_exec_arg_t in_place[] = {{DNNL_ARG_SRC, mem}, {DNNL_ARG_DST, mem}};
    CHECK(dnnl_primitive_execute(prim, stream, 2, in_place));
    CHECK(dnnl_stream_wait(stream));

    CHECK(dnnl_memory_destroy(mem));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    dnnl_memory_desc_t mds[] = {f, nhwc, g, any, s8, f64, f3};
    for (size_t i = 0; i < sizeof mds / sizeof *mds; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_engine_destroy(engine));
    printf("eltwise arguments: ok\n");
    return 0;
}
