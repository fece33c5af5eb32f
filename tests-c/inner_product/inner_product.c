/* Inner product forward, backward data and backward weights
 * (dnnl_inner_product_*_primitive_desc_create) through the official API,
 * compared with a reference computed here in double:
 *   - 2-D and 4-D sources (nchw; nhwc with weights any, which follow the
 *     source's order), with and without bias / bias gradient, f32 and bf16;
 *   - the queries (memory descriptors by query and by argument, prop kind,
 *     inputs and outputs, implementation);
 *   - bad input: mismatched shapes (dnnl_invalid_arguments), NULL handles, a
 *     bad propagation kind.
 * A case Intel's library (the @ref run) answers dnnl_unimplemented for (bf16 on a CPU
 * without AVX-512) is skipped with a SKIP: line; on ours every case must run.
 *
 * Usage: matmul_inner_product [cpu|gpu]. With gpu, the test skips (77) when
 * the library sees no OpenCL device. */
#include "matmul/common.h"

static int on_gpu;

static const_dnnl_memory_desc_t q(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int i) {
    return dnnl_primitive_desc_query_md(pd, what, i);
}

static void run_case(int ndims, const dnnl_dim_t *dims, int64_t oc, dnnl_data_type_t dt,
        dnnl_format_tag_t tag, const char *what) {
    int64_t n = dims[0], k = 1;
    for (int d = 1; d < ndims; d++)
        k *= dims[d];
    dnnl_dims_t wd, dd = {n, oc}, bd = {oc};
    memcpy(wd, dims, sizeof(dnnl_dim_t) * (size_t)ndims);
    wd[0] = oc;
    dnnl_memory_desc_t smd = md_tag(ndims, dims, dt, tag);
    dnnl_memory_desc_t wany = md_tag(ndims, wd, dt, dnnl_format_tag_any);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dt, dnnl_ab);
    dnnl_memory_desc_t bmd = md_tag(1, bd, dnnl_f32, dnnl_a);
    float *x = values(n * k, 1), *w = values(oc * k, 2), *bias = values(oc, 3);
    float *dd_v = values(n * oc, 4);
    /* The weights' logical values: the source's logical order, flattened. */

    /* Forward with bias. */
    dnnl_primitive_desc_t fwd = NULL;
    dnnl_status_t st = dnnl_inner_product_forward_primitive_desc_create(
            &fwd, engine, dnnl_forward_training, smd, wany, bmd, dmd, NULL);
    if (reference_lacks(st, what)) {
        /* bf16 on a CPU without AVX-512 (or AVX2-VNNI-2) in Intel's library. */
        free(x), free(w), free(bias), free(dd_v);
        CHECK(dnnl_memory_desc_destroy(smd));
        CHECK(dnnl_memory_desc_destroy(wany));
        CHECK(dnnl_memory_desc_destroy(dmd));
        CHECK(dnnl_memory_desc_destroy(bmd));
        return;
    }
    CHECK(st);
    expect_impl(fwd, on_gpu);
    dnnl_prop_kind_t prop;
    CHECK(dnnl_primitive_desc_query(fwd, dnnl_query_prop_kind, 0, &prop));
    EXPECT(prop == dnnl_forward_training);
    EXPECT(dnnl_memory_desc_equal(q(fwd, dnnl_query_src_md, 0), smd));
    EXPECT(dnnl_memory_desc_equal(q(fwd, dnnl_query_weights_md, 1), bmd));
    EXPECT(dnnl_memory_desc_equal(q(fwd, dnnl_query_exec_arg_md, DNNL_ARG_BIAS), bmd));
    EXPECT(dnnl_memory_desc_equal(q(fwd, dnnl_query_dst_md, 0), dmd));
    EXPECT(dnnl_primitive_desc_query_s32(fwd, dnnl_query_num_of_inputs_s32, 0) == 3);
    const_dnnl_memory_desc_t wmd = q(fwd, dnnl_query_weights_md, 0);
    dnnl_format_kind_t kind;
    CHECK(dnnl_memory_desc_query(wmd, dnnl_query_format_kind, &kind));
    EXPECT(kind == dnnl_blocked);
    dnnl_memory_t sm = filled(smd, x), wm = filled(wmd, w), bm = filled(bmd, bias);
    dnnl_memory_t dm = memory(dmd);
    dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm},
            {DNNL_ARG_DST, dm}};
    run(fwd, 4, fargs);
    double *want = calloc((size_t)(n * k + oc * k + n * oc), sizeof *want);
    double *mag = calloc((size_t)(n * k + oc * k + n * oc), sizeof *mag);
    for (int64_t i = 0; i < n; i++)
        for (int64_t o = 0; o < oc; o++) {
            double s = bias[o], a = fabs(bias[o]);
            for (int64_t kk = 0; kk < k; kk++) {
                double p = (double)x[i * k + kk] * w[o * k + kk];
                s += p;
                a += fabs(p);
            }
            want[i * oc + o] = s;
            mag[i * oc + o] = a;
        }
    char msg[128];
    snprintf(msg, sizeof msg, "%s forward", what);
    compare(msg, dm, want, mag, n * oc, k + 1);

    /* Backward data. */
    dnnl_memory_desc_t sany = md_tag(ndims, dims, dt, dnnl_format_tag_any);
    dnnl_primitive_desc_t bwd_d = NULL;
    CHECK(dnnl_inner_product_backward_data_primitive_desc_create(
            &bwd_d, engine, sany, wmd, dmd, fwd, NULL));
    CHECK(dnnl_primitive_desc_query(bwd_d, dnnl_query_prop_kind, 0, &prop));
    EXPECT(prop == dnnl_backward_data);
    EXPECT(dnnl_memory_desc_equal(q(bwd_d, dnnl_query_diff_dst_md, 0), dmd));
    EXPECT(dnnl_memory_desc_equal(q(bwd_d, dnnl_query_weights_md, 0), wmd));
    const_dnnl_memory_desc_t dsmd = q(bwd_d, dnnl_query_diff_src_md, 0);
    dnnl_memory_t ddm = filled(dmd, dd_v), dsm = memory(dsmd);
    dnnl_exec_arg_t dargs[] = {{DNNL_ARG_DIFF_DST, ddm}, {DNNL_ARG_WEIGHTS, wm},
            {DNNL_ARG_DIFF_SRC, dsm}};
    run(bwd_d, 3, dargs);
    for (int64_t i = 0; i < n; i++)
        for (int64_t kk = 0; kk < k; kk++) {
            double s = 0, a = 0;
            for (int64_t o = 0; o < oc; o++) {
                double p = (double)dd_v[i * oc + o] * w[o * k + kk];
                s += p;
                a += fabs(p);
            }
            want[i * k + kk] = s;
            mag[i * k + kk] = a;
        }
    snprintf(msg, sizeof msg, "%s backward data", what);
    compare(msg, dsm, want, mag, n * k, oc);

    /* Backward weights with the bias gradient. */
    dnnl_primitive_desc_t bwd_w = NULL;
    CHECK(dnnl_inner_product_backward_weights_primitive_desc_create(
            &bwd_w, engine, smd, wany, bmd, dmd, fwd, NULL));
    CHECK(dnnl_primitive_desc_query(bwd_w, dnnl_query_prop_kind, 0, &prop));
    EXPECT(prop == dnnl_backward_weights);
    EXPECT(dnnl_memory_desc_equal(q(bwd_w, dnnl_query_diff_weights_md, 0), wmd));
    EXPECT(dnnl_memory_desc_equal(q(bwd_w, dnnl_query_diff_weights_md, 1), bmd));
    EXPECT(dnnl_primitive_desc_query_s32(bwd_w, dnnl_query_num_of_outputs_s32, 0) == 2);
    dnnl_memory_t dwm = memory(wmd), dbm = memory(bmd);
    dnnl_exec_arg_t wargs[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DIFF_DST, ddm},
            {DNNL_ARG_DIFF_WEIGHTS, dwm}, {DNNL_ARG_DIFF_BIAS, dbm}};
    run(bwd_w, 4, wargs);
    for (int64_t o = 0; o < oc; o++)
        for (int64_t kk = 0; kk < k; kk++) {
            double s = 0, a = 0;
            for (int64_t i = 0; i < n; i++) {
                double p = (double)dd_v[i * oc + o] * x[i * k + kk];
                s += p;
                a += fabs(p);
            }
            want[o * k + kk] = s;
            mag[o * k + kk] = a;
        }
    snprintf(msg, sizeof msg, "%s backward weights", what);
    compare(msg, dwm, want, mag, oc * k, n);
    for (int64_t o = 0; o < oc; o++) {
        double s = 0, a = 0;
        for (int64_t i = 0; i < n; i++) {
            s += dd_v[i * oc + o];
            a += fabs(dd_v[i * oc + o]);
        }
        want[o] = s;
        mag[o] = a;
    }
    snprintf(msg, sizeof msg, "%s bias gradient", what);
    compare(msg, dbm, want, mag, oc, n);

    free(want);
    free(mag);
    free(x);
    free(w);
    free(bias);
    free(dd_v);
    dnnl_memory_t mems[] = {sm, wm, bm, dm, ddm, dsm, dwm, dbm};
    for (int i = 0; i < 8; i++)
        CHECK(dnnl_memory_destroy(mems[i]));
    CHECK(dnnl_primitive_desc_destroy(bwd_w));
    CHECK(dnnl_primitive_desc_destroy(bwd_d));
    CHECK(dnnl_primitive_desc_destroy(fwd));
    dnnl_memory_desc_t mds[] = {smd, wany, dmd, bmd, sany};
    for (int i = 0; i < 5; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
}

static void bad_input(void) {
    dnnl_dims_t sd = {2, 3}, wd = {4, 3}, wbad = {4, 5}, dd = {2, 4}, dbad = {2, 5}, bd = {4};
    dnnl_memory_desc_t smd = md_tag(2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wmd = md_tag(2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wb = md_tag(2, wbad, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t db = md_tag(2, dbad, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t bmd = md_tag(1, bd, dnnl_f32, dnnl_a);
    dnnl_primitive_desc_t pd = NULL;
    CHECK_STATUS(dnnl_inner_product_forward_primitive_desc_create(
                         &pd, engine, dnnl_forward_training, smd, wb, NULL, dmd, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_inner_product_forward_primitive_desc_create(
                         &pd, engine, dnnl_forward_training, smd, wmd, NULL, db, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_inner_product_forward_primitive_desc_create(
                         &pd, engine, dnnl_backward_data, smd, wmd, bmd, dmd, NULL),
            dnnl_invalid_arguments);
    /* NULL handles: upstream dereferences them (reference runs crash). */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_inner_product_forward_primitive_desc_create(
                             NULL, engine, dnnl_forward_training, smd, wmd, bmd, dmd, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_inner_product_forward_primitive_desc_create(
                             &pd, NULL, dnnl_forward_training, smd, wmd, bmd, dmd, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_inner_product_backward_data_primitive_desc_create(
                             &pd, engine, smd, NULL, dmd, NULL, NULL),
                dnnl_invalid_arguments);
    }
    CHECK_STATUS(dnnl_inner_product_backward_weights_primitive_desc_create(
                         &pd, engine, smd, wmd, bmd, db, NULL, NULL),
            dnnl_invalid_arguments);
    /* No bias gradient: NULL is allowed. */
    CHECK(dnnl_inner_product_backward_weights_primitive_desc_create(
            &pd, engine, smd, wmd, NULL, dmd, NULL, NULL));
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) == 1);
    CHECK(dnnl_primitive_desc_destroy(pd));
    dnnl_memory_desc_t mds[] = {smd, wmd, wb, dmd, db, bmd};
    for (int i = 0; i < 6; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    dnnl_dims_t d2 = {7, 33}, d4 = {3, 5, 4, 3};
    run_case(2, d2, 19, dnnl_f32, dnnl_ab, "2-D f32");
    run_case(4, d4, 9, dnnl_f32, dnnl_nchw, "4-D nchw f32");
    run_case(4, d4, 6, dnnl_bf16, dnnl_nhwc, "4-D nhwc bf16");
    bad_input();

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("inner product: all cases passed\n");
    return 0;
}
