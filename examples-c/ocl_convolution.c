/* A convolution through OpenCL interop, in C: dst = relu(conv(src, weights) + bias).
 *
 * The program owns its OpenCL context, queue and buffers (see ocl_example.h), and its
 * tensors are in the plain layouts it knows: src and dst nchw, weights oihw. It
 *   1. makes an engine and a stream over its context and queue;
 *   2. wraps its buffers as memory (dnnl_ocl_interop_memory_create) and writes the
 *      inputs with non-blocking writes;
 *   3. creates the convolution with format `any` for src, weights and dst, so that the
 *      library picks the layouts it runs fastest in; where a chosen layout is not the
 *      program's, a reorder converts into it (and, for dst, back out of it);
 *   4. enqueues every step after the events of the steps it depends on
 *      (dnnl_ocl_interop_primitive_execute: a wait list in, an event out), reads the
 *      result after the last event (clEnqueueReadBuffer) and checks it against a
 *      reference computed here in double.
 * The ReLU is a post-op (dnnl_post_ops_append_eltwise). With no OpenCL device it says
 * so and exits 77 (skipped); on a wrong result it exits 1. */
#include <math.h>

#include "ocl_example.h"

#define N 2
#define IC 3
#define OC 8
#define H 13
#define W 13
#define KH 3
#define KW 3
/* Stride 1 and padding 1 on each side keep the spatial size: OH = H, OW = W. */
#define OH H
#define OW W

/* The events of the steps so far that a step waits for; NULL ones (a library may return
 * none on an in-order queue, which orders the steps anyway) are left out. */
typedef struct {
    cl_event ev[8];
    int n;
} wait_list_t;

static void wait_for(wait_list_t *l, cl_event e) {
    if (e) l->ev[l->n++] = e;
}

/* Runs p on the program's queue after the events of `after`; returns its event. */
static cl_event run(dnnl_primitive_t p, dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t *args,
        const wait_list_t *after) {
    cl_event done = NULL;
    DNNL(dnnl_ocl_interop_primitive_execute(p, stream, nargs, args, after->n ? after->ev : NULL,
            after->n, &done));
    return done;
}

/* The memory the convolution reads or writes for `user` (whose layout is the program's):
 * `user` itself when the primitive chose that layout, else memory of the primitive's
 * layout, and in *reorder the reorder from user into it (to_user == 0) or out of it. */
static dnnl_memory_t in_layout(dnnl_engine_t engine, dnnl_memory_t user, const_dnnl_memory_desc_t chosen,
        int to_user, dnnl_primitive_t *reorder) {
    const_dnnl_memory_desc_t user_md;
    DNNL(dnnl_memory_get_memory_desc(user, &user_md));
    *reorder = NULL;
    if (dnnl_memory_desc_equal(user_md, chosen)) return user;
    dnnl_memory_t mem = NULL;
    DNNL(dnnl_memory_create(&mem, chosen, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t pd = NULL;
    if (to_user)
        DNNL(dnnl_reorder_primitive_desc_create(&pd, chosen, engine, user_md, engine, NULL));
    else
        DNNL(dnnl_reorder_primitive_desc_create(&pd, user_md, engine, chosen, engine, NULL));
    DNNL(dnnl_primitive_create(reorder, pd));
    DNNL(dnnl_primitive_desc_destroy(pd));
    return mem;
}

int main(void) {
    user_ocl_t u;
    if (!user_ocl_create(&u)) return 77;

    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_ocl_interop_engine_create(&engine, u.device, u.context));
    DNNL(dnnl_ocl_interop_stream_create(&stream, engine, u.queue));

    /* The program's data, in nchw / oihw order. */
    float *src = malloc(N * IC * H * W * sizeof(float));
    float *wei = malloc(OC * IC * KH * KW * sizeof(float));
    float *bias = malloc(OC * sizeof(float)), *dst = malloc(N * OC * OH * OW * sizeof(float));
    for (int i = 0; i < N * IC * H * W; i++)
        src[i] = (float)((i * 7) % 17) / 8.f - 1.f;
    for (int i = 0; i < OC * IC * KH * KW; i++)
        wei[i] = (float)((i * 5) % 11) / 10.f - 0.5f;
    for (int o = 0; o < OC; o++)
        bias[o] = (float)o / OC - 0.5f;

    /* 2. The program's buffers as memory; the inputs written without blocking. */
    cl_event src_written, wei_written, bias_written, none;
    cl_mem src_buf = user_buffer(&u, N * IC * H * W, src, &src_written);
    cl_mem wei_buf = user_buffer(&u, OC * IC * KH * KW, wei, &wei_written);
    cl_mem bias_buf = user_buffer(&u, OC, bias, &bias_written);
    cl_mem dst_buf = user_buffer(&u, N * OC * OH * OW, NULL, &none);
    dnnl_memory_desc_t src_md, wei_md, bias_md, dst_md;
    DNNL(dnnl_memory_desc_create_with_tag(&src_md, 4, (dnnl_dims_t) {N, IC, H, W}, dnnl_f32, dnnl_nchw));
    DNNL(dnnl_memory_desc_create_with_tag(&wei_md, 4, (dnnl_dims_t) {OC, IC, KH, KW}, dnnl_f32, dnnl_oihw));
    DNNL(dnnl_memory_desc_create_with_tag(&bias_md, 1, (dnnl_dims_t) {OC}, dnnl_f32, dnnl_a));
    DNNL(dnnl_memory_desc_create_with_tag(&dst_md, 4, (dnnl_dims_t) {N, OC, OH, OW}, dnnl_f32, dnnl_nchw));
    dnnl_memory_t user_src, user_wei, user_bias, user_dst;
    DNNL(dnnl_ocl_interop_memory_create(&user_src, src_md, engine, dnnl_ocl_interop_buffer, src_buf));
    DNNL(dnnl_ocl_interop_memory_create(&user_wei, wei_md, engine, dnnl_ocl_interop_buffer, wei_buf));
    DNNL(dnnl_ocl_interop_memory_create(&user_bias, bias_md, engine, dnnl_ocl_interop_buffer, bias_buf));
    DNNL(dnnl_ocl_interop_memory_create(&user_dst, dst_md, engine, dnnl_ocl_interop_buffer, dst_buf));

    /* 3. The convolution, its layouts left to the library, with a ReLU post-op. */
    dnnl_memory_desc_t src_any, wei_any, dst_any;
    DNNL(dnnl_memory_desc_create_with_tag(&src_any, 4, (dnnl_dims_t) {N, IC, H, W}, dnnl_f32,
            dnnl_format_tag_any));
    DNNL(dnnl_memory_desc_create_with_tag(&wei_any, 4, (dnnl_dims_t) {OC, IC, KH, KW}, dnnl_f32,
            dnnl_format_tag_any));
    DNNL(dnnl_memory_desc_create_with_tag(&dst_any, 4, (dnnl_dims_t) {N, OC, OH, OW}, dnnl_f32,
            dnnl_format_tag_any));
    dnnl_post_ops_t ops = NULL;
    dnnl_primitive_attr_t attr = NULL;
    DNNL(dnnl_post_ops_create(&ops));
    DNNL(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0.f, 0.f));
    DNNL(dnnl_primitive_attr_create(&attr));
    DNNL(dnnl_primitive_attr_set_post_ops(attr, ops));
    const dnnl_dim_t strides[2] = {1, 1}, padding[2] = {1, 1};
    dnnl_primitive_desc_t conv_pd = NULL;
    DNNL(dnnl_convolution_forward_primitive_desc_create(&conv_pd, engine, dnnl_forward_inference,
            dnnl_convolution_direct, src_any, wei_any, bias_md, dst_any, strides, NULL, padding,
            padding, attr));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(conv_pd, dnnl_query_impl_info_str, 0, &impl));
    dnnl_primitive_t conv = NULL;
    DNNL(dnnl_primitive_create(&conv, conv_pd));
    printf("convolution N=%d IC=%d %dx%d -> OC=%d %dx%d, kernel %dx%d (%s)\n", N, IC, H, W, OC, OH,
            OW, KH, KW, impl);

    /* The layouts it chose: reorders where they are not the program's. */
    dnnl_primitive_t src_reorder, wei_reorder, dst_reorder;
    dnnl_memory_t conv_src = in_layout(engine, user_src,
            dnnl_primitive_desc_query_md(conv_pd, dnnl_query_src_md, 0), 0, &src_reorder);
    dnnl_memory_t conv_wei = in_layout(engine, user_wei,
            dnnl_primitive_desc_query_md(conv_pd, dnnl_query_weights_md, 0), 0, &wei_reorder);
    dnnl_memory_t conv_dst = in_layout(engine, user_dst,
            dnnl_primitive_desc_query_md(conv_pd, dnnl_query_dst_md, 0), 1, &dst_reorder);
    printf("layouts: src %s, weights %s, dst %s\n", src_reorder ? "reordered" : "the program's",
            wei_reorder ? "reordered" : "the program's", dst_reorder ? "reordered" : "the program's");

    /* 4. Each step after the events it depends on. */
    cl_event src_ready = src_written, wei_ready = wei_written, conv_done, dst_ready;
    cl_event reordered[2] = {NULL, NULL};
    if (src_reorder) {
        wait_list_t after = {.n = 0};
        wait_for(&after, src_written);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, user_src}, {DNNL_ARG_TO, conv_src}};
        src_ready = reordered[0] = run(src_reorder, stream, 2, args, &after);
    }
    if (wei_reorder) {
        wait_list_t after = {.n = 0};
        wait_for(&after, wei_written);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, user_wei}, {DNNL_ARG_TO, conv_wei}};
        wei_ready = reordered[1] = run(wei_reorder, stream, 2, args, &after);
    }
    {
        wait_list_t after = {.n = 0};
        wait_for(&after, src_ready);
        wait_for(&after, wei_ready);
        wait_for(&after, bias_written);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, conv_src}, {DNNL_ARG_WEIGHTS, conv_wei},
                {DNNL_ARG_BIAS, user_bias}, {DNNL_ARG_DST, conv_dst}};
        dst_ready = conv_done = run(conv, stream, 4, args, &after);
    }
    cl_event back = NULL;
    if (dst_reorder) {
        wait_list_t after = {.n = 0};
        wait_for(&after, conv_done);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, conv_dst}, {DNNL_ARG_TO, user_dst}};
        dst_ready = back = run(dst_reorder, stream, 2, args, &after);
    }
    OCL(clEnqueueReadBuffer(u.queue, dst_buf, CL_TRUE, 0, N * OC * OH * OW * sizeof(float), dst,
            dst_ready ? 1 : 0, dst_ready ? &dst_ready : NULL, NULL));

    /* The reference: the definition of convolution, in double. */
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int o = 0; o < OC; o++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    double want = bias[o], mag = fabs(bias[o]);
                    for (int i = 0; i < IC; i++)
                        for (int kh = 0; kh < KH; kh++)
                            for (int kw = 0; kw < KW; kw++) {
                                int ih = oh + kh - 1, iw = ow + kw - 1;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                double p = (double)src[((n * IC + i) * H + ih) * W + iw]
                                        * wei[((o * IC + i) * KH + kh) * KW + kw];
                                want += p;
                                mag += fabs(p);
                            }
                    want = want > 0 ? want : 0;
                    float got = dst[((n * OC + o) * OH + oh) * OW + ow];
                    if (fabs(got - want) > 1e-5 * (mag + 1) && bad++ < 5)
                        fprintf(stderr, "dst[%d][%d][%d][%d] = %g, expected %g\n", n, o, oh, ow,
                                got, want);
                }
    if (!bad) {
        int positive = 0;
        for (int i = 0; i < N * OC * OH * OW; i++)
            positive += dst[i] > 0;
        printf("%d results checked: %d positive, the others zeroed by the ReLU\n",
                N * OC * OH * OW, positive);
    }

    cl_event events[] = {src_written, wei_written, bias_written, reordered[0], reordered[1],
            conv_done, back};
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        if (events[i]) OCL(clReleaseEvent(events[i]));
    dnnl_primitive_t prims[] = {src_reorder, wei_reorder, dst_reorder, conv};
    for (int i = 0; i < 4; i++)
        if (prims[i]) DNNL(dnnl_primitive_destroy(prims[i]));
    dnnl_memory_t owned[] = {conv_src != user_src ? conv_src : NULL,
            conv_wei != user_wei ? conv_wei : NULL, conv_dst != user_dst ? conv_dst : NULL,
            user_src, user_wei, user_bias, user_dst};
    for (int i = 0; i < 7; i++)
        if (owned[i]) DNNL(dnnl_memory_destroy(owned[i]));
    DNNL(dnnl_primitive_desc_destroy(conv_pd));
    DNNL(dnnl_primitive_attr_destroy(attr));
    DNNL(dnnl_post_ops_destroy(ops));
    dnnl_memory_desc_t mds[] = {src_md, wei_md, bias_md, dst_md, src_any, wei_any, dst_any};
    for (int i = 0; i < 7; i++)
        DNNL(dnnl_memory_desc_destroy(mds[i]));
    cl_mem bufs[] = {src_buf, wei_buf, bias_buf, dst_buf};
    for (int i = 0; i < 4; i++)
        OCL(clReleaseMemObject(bufs[i]));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    user_ocl_release(&u);
    free(src);
    free(wei);
    free(bias);
    free(dst);
    return bad ? 1 : 0;
}
