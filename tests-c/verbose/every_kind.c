/* Creates and runs one primitive of every kind the library implements (forward, and
 * a backward pass where the kind has one), for the verbose converter check
 * (converter_check.py): run under ONEDNN_VERBOSE=all, each `primitive,exec` line is
 * what the check converts into a benchdnn line.
 *
 *   every_kind cpu | gpu   (gpu: the first GPU engine; skipped without one)
 *
 * Every argument the primitive descriptor names (dnnl_query_exec_arg_md) gets a
 * zero-filled memory of its descriptor; the values do not matter here, only that
 * execution succeeds and is logged. Shapes are small and formats plain, except where a
 * kind's line is to show a chosen layout (concat and sum sources in two layouts, their
 * destination left to the library). */
#include <stdint.h>
#include <string.h>

#include "check.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static dnnl_memory_desc_t md_of(int ndims, const dnnl_dim_t *dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, tag));
    return md;
}

static dnnl_memory_desc_t md4(dnnl_dim_t a, dnnl_dim_t b, dnnl_dim_t c, dnnl_dim_t d,
        dnnl_format_tag_t tag) {
    const dnnl_dim_t dims[] = {a, b, c, d};
    return md_of(4, dims, dnnl_f32, tag);
}

static dnnl_memory_desc_t md2(dnnl_dim_t a, dnnl_dim_t b) {
    const dnnl_dim_t dims[] = {a, b};
    return md_of(2, dims, dnnl_f32, dnnl_ab);
}

/* Runs `pd` once with a zeroed memory for each argument it names (and a one-value
 * f32 memory holding 1 for each argument of `scale_args`), then destroys it. */
static void run_scaled(const char *what, dnnl_primitive_desc_t pd, const int *scale_args,
        int nscales) {
    static const int base_args[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2,
            DNNL_ARG_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_MEAN,
            DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_WORKSPACE,
            DNNL_ARG_SCRATCHPAD, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_SRC_1, DNNL_ARG_DIFF_DST,
            DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_SCALE,
            DNNL_ARG_DIFF_SHIFT, DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1,
            DNNL_ARG_MULTIPLE_SRC + 2, DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
            DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1};
    enum { MAX_ARGS = sizeof(base_args) / sizeof(base_args[0]) };
    dnnl_exec_arg_t args[MAX_ARGS + 4];
    int nargs = 0;
    for (int i = 0; i < nscales && i < 4; i++) {
        const dnnl_dim_t one[] = {1};
        dnnl_memory_desc_t md = NULL;
        CHECK(dnnl_memory_desc_create_with_tag(&md, 1, one, dnnl_f32, dnnl_a));
        dnnl_memory_t m = NULL;
        CHECK(dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE));
        float *p = NULL;
        CHECK(dnnl_memory_map_data(m, (void **)&p));
        *p = 1.f;
        CHECK(dnnl_memory_unmap_data(m, p));
        CHECK(dnnl_memory_desc_destroy(md));
        args[nargs].arg = scale_args[i];
        args[nargs].memory = m;
        nargs++;
    }
    for (int i = 0; i < MAX_ARGS; i++) {
        const_dnnl_memory_desc_t md
                = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, base_args[i]);
        if (md == NULL || dnnl_memory_desc_get_size(md) == 0) continue;
        dnnl_memory_t m = NULL;
        CHECK(dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE));
        void *p = NULL;
        CHECK(dnnl_memory_map_data(m, &p));
        memset(p, 0, dnnl_memory_desc_get_size(md));
        CHECK(dnnl_memory_unmap_data(m, p));
        args[nargs].arg = base_args[i];
        args[nargs].memory = m;
        nargs++;
    }
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    CHECK(dnnl_primitive_execute(prim, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(prim));
    for (int i = 0; i < nargs; i++)
        CHECK(dnnl_memory_destroy(args[i].memory));
    CHECK(dnnl_primitive_desc_destroy(pd));
    fprintf(stderr, "ran %s\n", what);
}

static void run(const char *what, dnnl_primitive_desc_t pd) {
    run_scaled(what, pd, NULL, 0);
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no GPU engine");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_primitive_desc_t pd = NULL;

    dnnl_memory_desc_t x = md4(2, 8, 6, 6, dnnl_nchw);    /* activations */
    dnnl_memory_desc_t y = md4(2, 4, 6, 6, dnnl_nchw);    /* conv output */
    dnnl_memory_desc_t w = md4(4, 8, 3, 3, dnnl_oihw);    /* conv weights */
    dnnl_memory_desc_t dw = md4(8, 4, 3, 3, dnnl_oihw);   /* deconv weights */
    const dnnl_dim_t bias_dims[] = {4};
    dnnl_memory_desc_t b = md_of(1, bias_dims, dnnl_f32, dnnl_a);
    const dnnl_dim_t strides[] = {1, 1}, dil[] = {0, 0}, pad[] = {1, 1};

    /* convolution with a post-op chain */
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_convolution_forward_primitive_desc_create(&pd, engine, dnnl_forward_training,
            dnnl_convolution_direct, x, w, b, y, strides, dil, pad, pad, attr));
    run("convolution forward", pd);
    dnnl_primitive_desc_t conv_fwd = NULL;
    CHECK(dnnl_convolution_forward_primitive_desc_create(&conv_fwd, engine,
            dnnl_forward_training, dnnl_convolution_direct, x, w, b, y, strides, dil, pad,
            pad, NULL));
    CHECK(dnnl_convolution_backward_data_primitive_desc_create(&pd, engine,
            dnnl_convolution_direct, x, w, y, strides, dil, pad, pad, conv_fwd, NULL));
    run("convolution backward data", pd);
    CHECK(dnnl_convolution_backward_weights_primitive_desc_create(&pd, engine,
            dnnl_convolution_direct, x, w, b, y, strides, dil, pad, pad, conv_fwd, NULL));
    run("convolution backward weights", pd);
    CHECK(dnnl_primitive_desc_destroy(conv_fwd));

    /* deconvolution: y -> x */
    const dnnl_dim_t dbias_dims[] = {8};
    dnnl_memory_desc_t db = md_of(1, dbias_dims, dnnl_f32, dnnl_a);
    CHECK(dnnl_deconvolution_forward_primitive_desc_create(&pd, engine,
            dnnl_forward_inference, dnnl_deconvolution_direct, y, dw, db, x, strides, dil,
            pad, pad, NULL));
    run("deconvolution forward", pd);

    /* inner product */
    dnnl_memory_desc_t ip_src = md2(2, 16), ip_dst = md2(2, 4), ip_w = md2(4, 16);
    CHECK(dnnl_inner_product_forward_primitive_desc_create(&pd, engine,
            dnnl_forward_inference, ip_src, ip_w, b, ip_dst, NULL));
    run("inner product forward", pd);

    /* matmul with scales and a bias */
    dnnl_memory_desc_t mm_a = md2(3, 16), mm_b = md2(16, 4), mm_c = md2(3, 4);
    const dnnl_dim_t mm_bias_dims[] = {1, 4};
    dnnl_memory_desc_t mm_bias = md_of(2, mm_bias_dims, dnnl_f32, dnnl_ab);
    dnnl_primitive_attr_t mm_attr = NULL;
    CHECK(dnnl_primitive_attr_create(&mm_attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(mm_attr, DNNL_ARG_SRC, 0));
    CHECK(dnnl_primitive_attr_set_scales_mask(mm_attr, DNNL_ARG_WEIGHTS, 0));
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, mm_a, mm_b, mm_bias, mm_c, mm_attr));
    const int mm_scales[] = {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC,
            DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS};
    run_scaled("matmul", pd, mm_scales, 2);

    /* eltwise forward and backward */
    dnnl_primitive_desc_t elt_fwd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&elt_fwd, engine, dnnl_forward_training,
            dnnl_eltwise_elu, x, x, 0.5f, 0.f, NULL));
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_training,
            dnnl_eltwise_elu, x, x, 0.5f, 0.f, NULL));
    run("eltwise forward", pd);
    CHECK(dnnl_eltwise_backward_primitive_desc_create(&pd, engine, dnnl_eltwise_elu_use_dst_for_bwd,
            x, x, x, 1.f, 0.f, elt_fwd, NULL));
    dnnl_primitive_desc_destroy(pd);
    CHECK(dnnl_eltwise_backward_primitive_desc_create(&pd, engine, dnnl_eltwise_elu, x, x, x,
            0.5f, 0.f, elt_fwd, NULL));
    run("eltwise backward", pd);
    CHECK(dnnl_primitive_desc_destroy(elt_fwd));

    /* binary with a broadcast second source and a post-op */
    dnnl_memory_desc_t per_c = md4(1, 8, 1, 1, dnnl_nchw);
    CHECK(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, x, per_c, x, attr));
    run("binary", pd);

    /* softmax */
    CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_softmax_accurate, x, x, 1, NULL));
    run("softmax forward", pd);

    /* pooling */
    dnnl_memory_desc_t pooled = md4(2, 8, 3, 3, dnnl_nchw);
    const dnnl_dim_t kernel[] = {2, 2}, pstrides[] = {2, 2}, zero[] = {0, 0};
    CHECK(dnnl_pooling_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_pooling_max, x, pooled, pstrides, kernel, zero, zero, zero, NULL));
    run("pooling forward", pd);

    /* lrn */
    CHECK(dnnl_lrn_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_lrn_across_channels, x, x, 5, 1e-4f, 0.75f, 1.f, NULL));
    run("lrn forward", pd);

    /* batch, layer and group normalization */
    CHECK(dnnl_batch_normalization_forward_primitive_desc_create(&pd, engine,
            dnnl_forward_inference, x, x, 1e-5f,
            dnnl_use_scale | dnnl_use_shift | dnnl_use_global_stats, NULL));
    run("batch normalization forward", pd);
    const dnnl_dim_t ln_dims[] = {2, 3, 16};
    dnnl_memory_desc_t ln = md_of(3, ln_dims, dnnl_f32, dnnl_abc);
    CHECK(dnnl_layer_normalization_forward_primitive_desc_create(&pd, engine,
            dnnl_forward_inference, ln, ln, NULL, 1e-5f, dnnl_use_scale, NULL));
    run("layer normalization forward", pd);
    CHECK(dnnl_group_normalization_forward_primitive_desc_create(&pd, engine,
            dnnl_forward_inference, x, x, 4, 1e-5f, dnnl_normalization_flags_none, NULL));
    run("group normalization forward", pd);

    /* prelu, reduction, resampling, shuffle */
    CHECK(dnnl_prelu_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, x,
            per_c, x, NULL));
    run("prelu forward", pd);
    dnnl_memory_desc_t reduced = md4(2, 1, 6, 6, dnnl_nchw);
    CHECK(dnnl_reduction_primitive_desc_create(&pd, engine, dnnl_reduction_sum, x, reduced,
            0.f, 0.f, NULL));
    run("reduction", pd);
    dnnl_memory_desc_t upsampled = md4(2, 8, 12, 12, dnnl_nchw);
    CHECK(dnnl_resampling_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_resampling_linear, NULL, x, upsampled, NULL));
    run("resampling forward", pd);
    CHECK(dnnl_shuffle_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, x,
            x, 1, 2, NULL));
    run("shuffle forward", pd);

    /* reorder between layouts */
    dnnl_memory_desc_t x_nhwc = md4(2, 8, 6, 6, dnnl_nhwc);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, x, engine, x_nhwc, engine, NULL));
    run("reorder", pd);

    /* concat of three sources in two layouts, and sum of three with scales; the
     * destination is the library's choice */
    dnnl_memory_desc_t c0 = md4(2, 3, 4, 5, dnnl_nchw), c1 = md4(2, 7, 4, 5, dnnl_nhwc),
                       c2 = md4(2, 1, 4, 5, dnnl_nchw);
    const_dnnl_memory_desc_t cat_srcs[] = {c0, c1, c2};
    CHECK(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 3, 1, cat_srcs, NULL));
    run("concat", pd);
    dnnl_memory_desc_t s1 = md4(2, 3, 4, 5, dnnl_nhwc);
    const_dnnl_memory_desc_t sum_srcs[] = {c0, s1, c0};
    const float scales[] = {1.f, 2.f, 0.5f};
    CHECK(dnnl_sum_primitive_desc_create(&pd, engine, NULL, 3, scales, sum_srcs, NULL));
    run("sum", pd);

    dnnl_memory_desc_t all[] = {x, y, w, dw, b, db, ip_src, ip_dst, ip_w, mm_a, mm_b, mm_c,
            mm_bias, per_c, pooled, ln, reduced, upsampled, x_nhwc, c0, c1, c2, s1};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        CHECK(dnnl_memory_desc_destroy(all[i]));
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_primitive_attr_destroy(mm_attr));
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("every kind: ran\n");
    return 0;
}
