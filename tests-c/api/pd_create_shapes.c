/* Ours only (upstream crashes on some of these, e.g. a concat axis out of range): every
 * implemented primitive descriptor create, given every combination of a set of memory
 * descriptors in its descriptor arguments (NULL, the zero descriptor, 1-D to 12-D,
 * zero-sized, `any`, s8, run-time dimensions, transposed and blocked layouts, huge
 * dimensions), concat and softmax axes in and out of range and sum and concat source
 * counts, answers with a status: success, dnnl_invalid_arguments or dnnl_unimplemented.
 * A panic in the library would come back as dnnl_runtime_error, and fails the test.
 * Also the exact statuses of issue 18's cases: concat of a single zero descriptor
 * (it panicked) is dnnl_invalid_arguments, a single 1-D source concat succeeds.
 *
 *   pd_create_shapes cpu | gpu     (gpu: the first OpenCL engine; skipped without one) */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { NMD = 24 };
static const_dnnl_memory_desc_t mds[NMD];
static const char *names[NMD];
static dnnl_engine_t engine;
static long calls, counts[4];

static void add_md(int *n, const char *name, int ndims, const dnnl_dim_t *dims,
        dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    if (dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, tag) != dnnl_success) return;
    names[*n] = name;
    mds[(*n)++] = md;
}

static int build_mds(void) {
    int n = 0;
    names[n] = "NULL";
    mds[n++] = NULL;
    const dnnl_dim_t d1[] = {4}, d2[] = {2, 3}, d2t[] = {3, 2}, d4[] = {1, 2, 3, 4},
                     d5[] = {1, 2, 3, 4, 5}, dz[] = {0, 3}, drt[] = {2, DNNL_RUNTIME_DIM_VAL},
                     db[] = {1, 16, 3, 3}, dh[] = {(dnnl_dim_t)1 << 20, (dnnl_dim_t)1 << 20},
                     d12[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
    add_md(&n, "zero", 0, d1, dnnl_f32, dnnl_format_tag_undef);
    add_md(&n, "{4}", 1, d1, dnnl_f32, dnnl_a);
    add_md(&n, "{2,3}", 2, d2, dnnl_f32, dnnl_ab);
    add_md(&n, "{3,2}", 2, d2t, dnnl_f32, dnnl_ab);
    add_md(&n, "{1,2,3,4}", 4, d4, dnnl_f32, dnnl_abcd);
    add_md(&n, "{2,3}:any", 2, d2, dnnl_f32, dnnl_format_tag_any);
    add_md(&n, "{0,3}", 2, dz, dnnl_f32, dnnl_ab);
    add_md(&n, "{2,3}:s8", 2, d2, dnnl_s8, dnnl_ab);
    add_md(&n, "{2,RT}", 2, drt, dnnl_f32, dnnl_ab);
    add_md(&n, "5-D", 5, d5, dnnl_f32, dnnl_abcde);
    add_md(&n, "{2,3}:ba", 2, d2, dnnl_f32, dnnl_ba);
    add_md(&n, "nChw16c", 4, db, dnnl_f32, dnnl_aBcd16b);
    add_md(&n, "{2^20,2^20}", 2, dh, dnnl_f32, dnnl_ab);
    add_md(&n, "12-D", 12, d12, dnnl_f32, dnnl_format_tag_any);
    const dnnl_dim_t d13[] = {1, 3}, d234[] = {2, 3, 4}, d21[] = {2, 1};
    add_md(&n, "{1,3}", 2, d13, dnnl_f32, dnnl_ab);
    add_md(&n, "{2,1}", 2, d21, dnnl_f32, dnnl_ab);
    add_md(&n, "{2,3,4}", 3, d234, dnnl_f32, dnnl_abc);
    add_md(&n, "{2,3}:f16", 2, d2, dnnl_f16, dnnl_ab);
    /* Strides: broadcast (0) and overlapping; a sub-memory with an offset. */
    const dnnl_dim_t zero_strides[] = {0, 0}, overlap[] = {1, 1};
    dnnl_memory_desc_t md = NULL;
    if (dnnl_memory_desc_create_with_strides(&md, 2, d2, dnnl_f32, zero_strides) == dnnl_success) {
        names[n] = "{2,3}:strides{0,0}";
        mds[n++] = md;
    }
    if (dnnl_memory_desc_create_with_strides(&md, 2, d2, dnnl_f32, overlap) == dnnl_success) {
        names[n] = "{2,3}:strides{1,1}";
        mds[n++] = md;
    }
    const dnnl_dim_t sub[] = {1, 2}, off[] = {1, 1};
    if (dnnl_memory_desc_create_submemory(&md, mds[3], sub, off) == dnnl_success) {
        names[n] = "{1,2} of {2,3} at {1,1}";
        mds[n++] = md;
    }
    EXPECT(n >= 18 && n <= NMD);
    return n;
}

static void record(const char *what, dnnl_status_t s, dnnl_primitive_desc_t pd, int a, int b,
        int c, int d) {
    calls++;
    if (s == dnnl_success) {
        counts[0]++;
        CHECK(dnnl_primitive_desc_destroy(pd));
        return;
    }
    if (s == dnnl_invalid_arguments || s == dnnl_unimplemented) {
        counts[s == dnnl_invalid_arguments ? 1 : 2]++;
        EXPECT(pd == NULL);
        return;
    }
    fprintf(stderr, "%s(%s, %s, %s, %s): %s\n", what, a >= 0 ? names[a] : "-",
            b >= 0 ? names[b] : "-", c >= 0 ? names[c] : "-", d >= 0 ? names[d] : "-",
            dnnl_status2str(s));
    exit(1);
}

#define CALL(what, call, a, b, c, d) \
    do { \
        dnnl_primitive_desc_t pd = NULL; \
        record(what, (call), pd, a, b, c, d); \
    } while (0)

static void sweep(int n) {
    const int axes[] = {-1, 0, 1, 3, 12};
    const float scales[3] = {1, 2, 3};
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
            CALL("reorder", dnnl_reorder_primitive_desc_create(&pd, mds[a], engine, mds[b], engine, NULL), a, b, -1, -1);
            CALL("eltwise_fwd", dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_training, dnnl_eltwise_relu, mds[a], mds[b], 0, 0, NULL), a, b, -1, -1);
            for (int x = 0; x < 5; x++)
                CALL("softmax_fwd", dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_training, dnnl_softmax_accurate, mds[a], mds[b], axes[x], NULL), a, b, x, -1);
            const_dnnl_memory_desc_t two[] = {mds[a], mds[b]};
            CALL("sum", dnnl_sum_primitive_desc_create(&pd, engine, NULL, 2, scales, two, NULL), a, b, -1, -1);
            CALL("sum1", dnnl_sum_primitive_desc_create(&pd, engine, mds[b], 1, scales, &mds[a], NULL), a, b, -1, -1);
            for (int x = 0; x < 5; x++) {
                CALL("concat", dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, axes[x], two, NULL), a, b, x, -1);
                CALL("concat1", dnnl_concat_primitive_desc_create(&pd, engine, mds[b], 1, axes[x], &mds[a], NULL), a, b, x, -1);
            }
            for (int c = 0; c < n; c++) {
                CALL("binary", dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, mds[a], mds[b], mds[c], NULL), a, b, c, -1);
                CALL("eltwise_bwd", dnnl_eltwise_backward_primitive_desc_create(&pd, engine, dnnl_eltwise_relu, mds[a], mds[b], mds[c], 0, 0, NULL, NULL), a, b, c, -1);
                CALL("softmax_bwd", dnnl_softmax_backward_primitive_desc_create(&pd, engine, dnnl_softmax_accurate, mds[a], mds[b], mds[c], 1, NULL, NULL), a, b, c, -1);
                CALL("ip_bwd_data", dnnl_inner_product_backward_data_primitive_desc_create(&pd, engine, mds[a], mds[b], mds[c], NULL, NULL), a, b, c, -1);
                const_dnnl_memory_desc_t three[] = {mds[a], mds[b], mds[c]};
                CALL("sum3", dnnl_sum_primitive_desc_create(&pd, engine, NULL, 3, scales, three, NULL), a, b, c, -1);
                CALL("sum2dst", dnnl_sum_primitive_desc_create(&pd, engine, mds[c], 2, scales, two, NULL), a, b, c, -1);
                CALL("concat2dst", dnnl_concat_primitive_desc_create(&pd, engine, mds[c], 2, 0, two, NULL), a, b, c, -1);
                CALL("concat3", dnnl_concat_primitive_desc_create(&pd, engine, NULL, 3, 1, three, NULL), a, b, c, -1);
                for (int d = 0; d < n; d++) {
                    CALL("matmul", dnnl_matmul_primitive_desc_create(&pd, engine, mds[a], mds[b], mds[c], mds[d], NULL), a, b, c, d);
                    CALL("ip_fwd", dnnl_inner_product_forward_primitive_desc_create(&pd, engine, dnnl_forward_training, mds[a], mds[b], mds[c], mds[d], NULL), a, b, c, d);
                    CALL("ip_bwd_weights", dnnl_inner_product_backward_weights_primitive_desc_create(&pd, engine, mds[a], mds[b], mds[c], mds[d], NULL, NULL), a, b, c, d);
                    CALL("binary_select", dnnl_binary_primitive_desc_create_v2(&pd, engine, dnnl_binary_select, mds[a], mds[b], mds[c], mds[d], NULL), a, b, c, d);
                }
            }
        }
    }
}

static dnnl_memory_desc_t plain(dnnl_dim_t a, dnnl_dim_t b) {
    dnnl_memory_desc_t md = NULL;
    const dnnl_dim_t dims[] = {a, b};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, dnnl_ab));
    return md;
}

/* Every kind with valid shapes and one attribute from the sweep. */
static void with_attr(const_dnnl_primitive_attr_t attr, int which) {
    dnnl_memory_desc_t x = plain(2, 3), w = plain(3, 4), y = plain(2, 4), ipw = plain(4, 3);
    const_dnnl_memory_desc_t two[] = {x, x};
    const float scales[2] = {1, 1};
    CALL("attr:matmul", dnnl_matmul_primitive_desc_create(&pd, engine, x, w, NULL, y, attr), which, -1, -1, -1);
    CALL("attr:ip_fwd", dnnl_inner_product_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, x, ipw, NULL, y, attr), which, -1, -1, -1);
    CALL("attr:eltwise", dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, dnnl_eltwise_relu, x, x, 0, 0, attr), which, -1, -1, -1);
    CALL("attr:binary", dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_mul, x, x, x, attr), which, -1, -1, -1);
    CALL("attr:softmax", dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, dnnl_softmax_accurate, x, x, 1, attr), which, -1, -1, -1);
    CALL("attr:reorder", dnnl_reorder_primitive_desc_create(&pd, x, engine, x, engine, attr), which, -1, -1, -1);
    CALL("attr:concat", dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 0, two, attr), which, -1, -1, -1);
    CALL("attr:sum", dnnl_sum_primitive_desc_create(&pd, engine, NULL, 2, scales, two, attr), which, -1, -1, -1);
    CHECK(dnnl_memory_desc_destroy(x));
    CHECK(dnnl_memory_desc_destroy(w));
    CHECK(dnnl_memory_desc_destroy(y));
    CHECK(dnnl_memory_desc_destroy(ipw));
}

/* Attributes whose post-ops, scales and zero points carry the sweep's
 * descriptors, masks, arguments and groups. */
static void attr_sweep(int n) {
    const int masks[] = {0, 1, 2, 3, 0xfff, -1, 0x7fffffff};
    const int args[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_MULTIPLE_SRC,
            DNNL_ARG_MULTIPLE_SRC + 1, DNNL_ARG_MULTIPLE_SRC + 7, DNNL_ARG_SRC_1, 0x7fffffff};
    const dnnl_dim_t groups[][2] = {{1, 1}, {2, 1}, {1, 3}, {(dnnl_dim_t)1 << 40, 1}};
    for (int m = 1; m < n; m++) {
        for (int v = 0; v < 2; v++) {
            dnnl_primitive_attr_t attr = NULL;
            dnnl_post_ops_t po = NULL;
            CHECK(dnnl_primitive_attr_create(&attr));
            CHECK(dnnl_post_ops_create(&po));
            dnnl_status_t s = v == 0
                    ? dnnl_post_ops_append_binary(po, dnnl_binary_add, mds[m])
                    : dnnl_post_ops_append_binary_v2(po, dnnl_binary_select, mds[m], mds[m]);
            if (s == dnnl_success && dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success)
                with_attr(attr, m);
            CHECK(dnnl_post_ops_destroy(po));
            CHECK(dnnl_primitive_attr_destroy(attr));
        }
    }
    for (int k = 0; k < 7; k++) {
        for (int kind = 0; kind < 3; kind++) {
            dnnl_primitive_attr_t attr = NULL;
            dnnl_post_ops_t po = NULL;
            CHECK(dnnl_primitive_attr_create(&attr));
            CHECK(dnnl_post_ops_create(&po));
            dnnl_status_t s = kind == 0 ? dnnl_post_ops_append_prelu(po, masks[k])
                    : kind == 1 ? dnnl_post_ops_append_sum(po, 1.0f, masks[k], dnnl_data_type_undef)
                                : dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32,
                                          masks[k], masks[k] & 3, masks[k] & 7);
            if (s == dnnl_success && dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success)
                with_attr(attr, -1);
            CHECK(dnnl_post_ops_destroy(po));
            CHECK(dnnl_primitive_attr_destroy(attr));
        }
        for (int a = 0; a < 8; a++) {
            for (int g = 0; g < 5; g++) {
                for (int zp = 0; zp < 2; zp++) {
                    dnnl_primitive_attr_t attr = NULL;
                    CHECK(dnnl_primitive_attr_create(&attr));
                    dnnl_status_t s;
                    if (zp)
                        s = g == 4 ? dnnl_primitive_attr_set_zero_points_mask(attr, args[a], masks[k])
                                   : dnnl_primitive_attr_set_zero_points(attr, args[a], masks[k], 2, groups[g], dnnl_s32);
                    else
                        s = g == 4 ? dnnl_primitive_attr_set_scales_mask(attr, args[a], masks[k])
                                   : dnnl_primitive_attr_set_scales(attr, args[a], masks[k], 2, groups[g], dnnl_f32);
                    if (s == dnnl_success) with_attr(attr, -1);
                    CHECK(dnnl_primitive_attr_destroy(attr));
                }
            }
        }
    }
}

/* Issue 18: the exact statuses. */
static void exact(void) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_desc_t zero = NULL, one_d = NULL;
    const dnnl_dim_t d1[] = {4};
    CHECK(dnnl_memory_desc_create_with_tag(&zero, 0, d1, dnnl_f32, dnnl_format_tag_undef));
    CHECK(dnnl_memory_desc_create_with_tag(&one_d, 1, d1, dnnl_f32, dnnl_a));
    const_dnnl_memory_desc_t z[] = {zero, zero}, o[] = {one_d, one_d};
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 1, 0, z, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 0, z, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, zero, 1, 0, o, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 1, 1, o, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 1, -1, o, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 0, 0, o, NULL),
            dnnl_invalid_arguments);
    EXPECT(pd == NULL);
    CHECK(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 1, 0, o, NULL));
    EXPECT(dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0)) == 16);
    CHECK(dnnl_primitive_desc_destroy(pd));
    pd = NULL;
    CHECK(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 0, o, NULL));
    EXPECT(dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0)) == 32);
    CHECK(dnnl_primitive_desc_destroy(pd));
    pd = NULL;
    const float scales[2] = {1, 1};
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, NULL, 1, scales, z, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, zero, 1, scales, o, NULL),
            dnnl_invalid_arguments);
    EXPECT(pd == NULL);
    CHECK(dnnl_memory_desc_destroy(zero));
    CHECK(dnnl_memory_desc_destroy(one_d));
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    exact();
    int n = build_mds();
    sweep(n);
    attr_sweep(n);
    for (int i = 1; i < n; i++)
        CHECK(dnnl_memory_desc_destroy((dnnl_memory_desc_t)mds[i]));
    CHECK(dnnl_engine_destroy(engine));
    printf("%ld primitive descriptor creates over %d descriptors: %ld created, %ld invalid, "
           "%ld unimplemented, none panicked\n",
            calls, n, counts[0], counts[1], counts[2]);
    return 0;
}
