/* Softmax forward and backward (dnnl_softmax_{forward,backward}_primitive_desc_create)
 * through the official API, compared with a reference computed here in double, every
 * element within the error bound of an f32 computation of that element (a few ulps,
 * times the row length for the sums) plus the final rounding; backward with a
 * pseudo-random diff_dst of both signs:
 *   - queries (axis, algorithm, prop kind, memory descriptors, inputs);
 *   - both algorithms, axes first / middle / last, a long row, blocked
 *     layouts with padding (the axis blocked too), f16 / bf16, a u8
 *     destination with a dst scale, dst `any`, in-place;
 *   - bad input: axis out of range, mismatched dimensions, bad algorithm
 *     and prop kind, NULL handles.
 *
 * Usage: binary_softmax [cpu|gpu]. With gpu, the test skips (77) when the
 * library sees no OpenCL device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"

static int failures;

static void execute(const_dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

/* Index of the row element j of the row through logical element idx. */
static int64_t at(const layout_t *l, int axis, int64_t idx, int64_t j) {
    int64_t inner = 1;
    for (int d = l->ndims - 1; d > axis; d--)
        inner *= l->dims[d];
    int64_t k = idx / inner % l->dims[axis];
    return idx + (j - k) * inner;
}


static void run_case(dnnl_alg_kind_t alg, const_dnnl_memory_desc_t smd,
        const_dnnl_memory_desc_t dmd, int axis, float dst_scale, int in_place) {
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (dst_scale != 0) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    dnnl_primitive_desc_t fpd = NULL;
    dnnl_status_t st = dnnl_softmax_forward_primitive_desc_create(
            &fpd, engine, dnnl_forward_training, alg, smd, dmd, axis, attr);
    CHECK(dnnl_primitive_attr_destroy(attr));
    char what[96];
    snprintf(what, sizeof what, "softmax %s axis %d (%s)", dnnl_alg_kind2str(alg), axis,
            dnnl_dt2str(layout_of(smd).dt));
    if (reference_lacks(st, what)) return;
    CHECK(st);
    /* The header says query_s32 returns the value; upstream returns 0 for anything but
     * the input and output counts. */
    if (library_is_ours()) EXPECT(dnnl_primitive_desc_query_s32(fpd, dnnl_query_axis_s32, 0) == axis);
    int q_axis = -1;
    CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_axis_s32, 0, &q_axis));
    EXPECT(q_axis == axis);
    dnnl_alg_kind_t q_alg;
    CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_alg_kind, 0, &q_alg));
    EXPECT(q_alg == alg);
    dnnl_prop_kind_t q_prop;
    CHECK(dnnl_primitive_desc_query(fpd, dnnl_query_prop_kind, 0, &q_prop));
    EXPECT(q_prop == dnnl_forward_training);
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(fpd, dnnl_query_src_md, 0), smd));
    EXPECT(dnnl_primitive_desc_query_s32(fpd, dnnl_query_num_of_inputs_s32, 0) == 1);
    const_dnnl_memory_desc_t real_dst = dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0);

    layout_t ls = layout_of(smd), ld = layout_of(real_dst);
    int64_t n = ls.nelems;
    float *x = malloc(sizeof(float) * (size_t)(n + 1)), *y = malloc(sizeof(float) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        x[i] = rounded(ls.dt, (float)((i * 37) % 101 - 50) * 0.37f + (i % 13 == 0 ? 60.f : 0.f));
    dnnl_memory_t src = memory(smd), dst = in_place ? src : memory(real_dst), sm = NULL;
    fill(src, x);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    int nargs = 2;
    dnnl_dims_t one = {1};
    dnnl_memory_desc_t scmd = md_tag(1, one, dnnl_f32, dnnl_a);
    if (dst_scale != 0) {
        sm = memory(scmd);
        fill(sm, &dst_scale);
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, sm};
    }
    execute(fpd, nargs, args);
    int padding_ok;
    read_back(dst, y, &padding_ok);
    if (!padding_ok) {
        fprintf(stderr, "forward: padding not zero\n");
        failures++;
    }
    int64_t len = ls.dims[axis];
    for (int64_t i = 0; i < n; i++) {
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < len; j++)
            m = fmax(m, x[at(&ls, axis, i, j)]);
        for (int64_t j = 0; j < len; j++)
            s += exp(x[at(&ls, axis, i, j)] - m);
        /* f32: x - m rounds (|x - m| ulps of exp's argument), exp a few ulps, the sum
         * of len positive terms len ulps, the division or log one more. */
        double d = fabs(x[i] - m), want, bound;
        if (alg == dnnl_softmax_log) {
            want = x[i] - m - log(s);
            bound = F32_EPS * (4 * fabs(want) + 2 * d + 4 * log(s) + (double)len + 16);
        } else {
            want = exp(x[i] - m) / s;
            /* Below the smallest normal f32, results may flush to zero. */
            bound = F32_EPS * want * (2 * d + (double)len + 16) + 0x1p-126;
        }
        if (dst_scale != 0) {
            want /= dst_scale;
            bound /= dst_scale;
        }
        if (!matches(ld.dt, y[i], want, bound)) {
            if (failures++ < 10)
                fprintf(stderr, "forward axis %d: element %lld: got %.9g, want %.9g (bound %.3g)\n",
                        axis, (long long)i, y[i], want, bound);
        }
    }

    /* Backward, when the destination is a floating-point type. */
    if (dst_scale == 0) {
        dnnl_primitive_desc_t bpd = NULL;
        CHECK(dnnl_softmax_backward_primitive_desc_create(
                &bpd, engine, alg, real_dst, real_dst, real_dst, axis, fpd, NULL));
        if (library_is_ours())
            EXPECT(dnnl_primitive_desc_query_s32(bpd, dnnl_query_axis_s32, 0) == axis);
        CHECK(dnnl_primitive_desc_query(bpd, dnnl_query_prop_kind, 0, &q_prop));
        EXPECT(q_prop == dnnl_backward_data);
        EXPECT(dnnl_primitive_desc_query_s32(bpd, dnnl_query_num_of_inputs_s32, 0) == 2);
        float *dd = malloc(sizeof(float) * (size_t)(n + 1)), *g = malloc(sizeof(float) * (size_t)(n + 1));
        rng_seed((uint64_t)(n * 31 + axis));
        for (int64_t i = 0; i < n; i++)
            dd[i] = rounded(ld.dt, (float)(rng_uniform() * (i % 3 == 0 ? 4.0 : 1.0)));
        dnnl_memory_t ddm = memory(real_dst), dsm = memory(real_dst);
        fill(ddm, dd);
        dnnl_exec_arg_t bargs[] = {{DNNL_ARG_DST, dst}, {DNNL_ARG_DIFF_DST, ddm}, {DNNL_ARG_DIFF_SRC, dsm}};
        execute(bpd, 3, bargs);
        read_back(dsm, g, &padding_ok);
        if (!padding_ok) {
            fprintf(stderr, "backward: padding not zero\n");
            failures++;
        }
        /* Per element, from the library's own dst y: the sum over the row has an
         * error of len ulps of the sum of magnitudes, the rest a few ulps. */
        for (int64_t i = 0; i < n; i++) {
            double s = 0, mag = 0;
            for (int64_t j = 0; j < len; j++) {
                int64_t k = at(&ls, axis, i, j);
                double t = alg == dnnl_softmax_log ? dd[k] : (double)dd[k] * y[k];
                s += t;
                mag += fabs(t);
            }
            double want, bound;
            if (alg == dnnl_softmax_log) {
                double e = exp(y[i]);
                want = dd[i] - e * s;
                bound = F32_EPS * (2 * fabs(want) + fabs(dd[i]) + e * ((double)len * mag + 8 * fabs(s)));
            } else {
                want = y[i] * (dd[i] - s);
                bound = F32_EPS * (2 * fabs(want) + y[i] * ((double)len * mag + 2 * fabs(dd[i])));
            }
            if (!matches(ld.dt, g[i], want, bound)) {
                if (failures++ < 10)
                    fprintf(stderr, "backward axis %d: element %lld: got %.9g, want %.9g (bound %.3g)\n",
                            axis, (long long)i, g[i], want, bound);
            }
        }
        CHECK(dnnl_memory_destroy(ddm));
        CHECK(dnnl_memory_destroy(dsm));
        CHECK(dnnl_primitive_desc_destroy(bpd));
        free(dd);
        free(g);
    }
    CHECK(dnnl_memory_desc_destroy(scmd));
    if (sm) CHECK(dnnl_memory_destroy(sm));
    if (!in_place) CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_primitive_desc_destroy(fpd));
    free(x);
    free(y);
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    dnnl_dims_t d4 = {2, 19, 3, 5}, dl = {3, 1029}, d0 = {2, 0, 3, 5};
    dnnl_memory_desc_t nchw = md_tag(4, d4, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t nhwc = md_tag(4, d4, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_t blk = md_tag(4, d4, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_t h = md_tag(4, d4, dnnl_f16, dnnl_nhwc);
    dnnl_memory_desc_t bf = md_tag(4, d4, dnnl_bf16, dnnl_nChw8c);
    dnnl_memory_desc_t u8 = md_tag(4, d4, dnnl_u8, dnnl_nchw);
    dnnl_memory_desc_t any = md_tag(4, d4, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t lng = md_tag(2, dl, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t empty = md_tag(4, d0, dnnl_f32, dnnl_nchw);

    const dnnl_alg_kind_t algs[] = {dnnl_softmax_accurate, dnnl_softmax_log};
    for (int k = 0; k < 2; k++) {
        for (int axis = 0; axis < 4; axis++)
            run_case(algs[k], nchw, nchw, axis, 0, 0);
        run_case(algs[k], lng, lng, 1, 0, 0);
        run_case(algs[k], blk, blk, 1, 0, 1);
    }
    run_case(dnnl_softmax_accurate, nhwc, blk, 1, 0, 0);
    run_case(dnnl_softmax_log, h, h, 3, 0, 0);
    run_case(dnnl_softmax_accurate, bf, bf, 1, 0, 0);
    run_case(dnnl_softmax_accurate, blk, any, 2, 0, 0);
    run_case(dnnl_softmax_accurate, nchw, u8, 1, 1.f / 255.f, 0);
    run_case(dnnl_softmax_accurate, empty, empty, 3, 0, 0);

    /* Bad input. */
    dnnl_primitive_desc_t pd = NULL;
    dnnl_prop_kind_t fi = dnnl_forward_inference;
    CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(&pd, engine, fi, dnnl_softmax_accurate, nchw, nchw, 4, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(&pd, engine, fi, dnnl_softmax_accurate, nchw, nchw, -1, NULL),
            dnnl_invalid_arguments);
    /* Upstream accepts a destination of other dimensions (reference runs). */
    if (library_is_ours())
        CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(&pd, engine, fi, dnnl_softmax_accurate, nchw, lng, 1, NULL),
                dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(&pd, engine, fi, dnnl_eltwise_relu, nchw, nchw, 1, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(
                         &pd, engine, dnnl_backward_data, dnnl_softmax_accurate, nchw, nchw, 1, NULL),
            dnnl_invalid_arguments);
    /* NULL handles: upstream dereferences them (reference runs crash). */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(NULL, engine, fi, dnnl_softmax_accurate, nchw, nchw, 1, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(&pd, NULL, fi, dnnl_softmax_accurate, nchw, nchw, 1, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(&pd, engine, fi, dnnl_softmax_accurate, NULL, nchw, 1, NULL),
                dnnl_invalid_arguments);
    }
    if (library_is_ours()) /* upstream accepts a diff_dst of other dimensions */
        CHECK_STATUS(dnnl_softmax_backward_primitive_desc_create(
                             &pd, engine, dnnl_softmax_accurate, nchw, lng, nchw, 1, NULL, NULL),
                dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_softmax_backward_primitive_desc_create(
                         &pd, engine, dnnl_softmax_accurate, nchw, nchw, nchw, 9, NULL, NULL),
            dnnl_invalid_arguments);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
    CHECK_STATUS(dnnl_softmax_forward_primitive_desc_create(&pd, engine, fi, dnnl_softmax_accurate, nchw, nchw, 1, attr),
            dnnl_unimplemented);
    CHECK(dnnl_primitive_attr_destroy(attr));

    dnnl_memory_desc_t mds[] = {nchw, nhwc, blk, h, bf, u8, any, lng, empty};
    for (size_t i = 0; i < sizeof mds / sizeof *mds; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d mismatches\n", failures);
        return 1;
    }
    printf("softmax on the %s engine: ok\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
