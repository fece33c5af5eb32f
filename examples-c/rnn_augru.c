/* AUGRU, in C: one layer of GRU cells with an attention update gate, left to right
 * over T = 3 steps (see rnn_example.h for the shapes), forward inference on the engine
 * named by the argument (cpu, the default, or gpu), written from
 * doc/primitives/rnn.md (gates u, r, o; an attention value a_t per step and batch
 * element, in a T x N x 1 tensor):
 *   u = sigmoid(W_u x + U_u h + B_u), r = sigmoid(W_r x + U_r h + B_r),
 *   o = tanh(W_o x + U_o (r * h) + B_o),
 *   u~ = (1 - a_t) * u,  h_t = u~ * h_{t-1} + (1 - u~) * o
 * The weights are given in ldigo and the primitive chooses its own layout (`any`): they
 * are reordered where it differs. The example computes the first step by hand, and runs
 * the primitive twice (the same input gives the same output). */
#include "rnn_example.h"

int main(int argc, char **argv) {
    example_open(argc, argv);
    enum { G = 3 }; /* u, r, o */
    static float att[T * N];
    for (int i = 0; i < T * N; i++)
        att[i] = 0.1f + 0.15f * (float)i;
    static float x[T * N * C], h0[N * C], w[C * G * C], u[C * G * C], b[G * C];
    make_values(x, T * N * C, 1.f, 1);
    make_values(h0, N * C, 0.5f, 2);
    make_values(w, C * G * C, 0.4f, 3);
    make_values(u, C * G * C, 0.4f, 4);
    make_values(b, G * C, 0.2f, 5);

    dnnl_dims_t layer = {T, N, C}, state = {1, 1, N, C}, weights = {1, 1, C, G, C}, bias = {1, 1, G, C};
    dnnl_memory_desc_t layer_md = desc(3, layer, dnnl_tnc), state_md = desc(4, state, dnnl_ldnc);
    dnnl_memory_desc_t w_md = desc(5, weights, dnnl_ldigo), w_any = desc(5, weights, dnnl_format_tag_any);
    dnnl_memory_desc_t bias_md = desc(4, bias, dnnl_ldgo);

    dnnl_primitive_desc_t pd = NULL;
    dnnl_dims_t att_dims = {T, N, 1};
    dnnl_memory_desc_t att_md = desc(3, att_dims, dnnl_tnc);
    skip_if_unimplemented(dnnl_augru_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                                  dnnl_unidirectional_left2right, layer_md, state_md, att_md, w_any, w_any,
                                  bias_md, layer_md, state_md, 0, NULL),
            "augru");
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    printf("augru: T=%d N=%d C=%d, left to right (%s)\n", T, N, C, impl);

    dnnl_memory_t src = filled(layer_md, x), src_iter = filled(state_md, h0), bias_mem = filled(bias_md, b);
    dnnl_memory_t w_user = filled(w_md, w), u_user = filled(w_md, u), w_re, u_re;
    dnnl_memory_t w_mem = weights_for(pd, DNNL_ARG_WEIGHTS_LAYER, w_user, &w_re);
    dnnl_memory_t u_mem = weights_for(pd, DNNL_ARG_WEIGHTS_ITER, u_user, &u_re);
    dnnl_memory_t dst = filled(layer_md, NULL), dst_iter = filled(state_md, NULL);
    dnnl_memory_t attention = filled(att_md, att);
    dnnl_primitive_t rnn = NULL;
    DNNL(dnnl_primitive_create(&rnn, pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, src_iter},
            {DNNL_ARG_WEIGHTS_LAYER, w_mem}, {DNNL_ARG_WEIGHTS_ITER, u_mem}, {DNNL_ARG_BIAS, bias_mem},
            {DNNL_ARG_DST_LAYER, dst}, {DNNL_ARG_DST_ITER, dst_iter},
            {DNNL_ARG_AUGRU_ATTENTION, attention}};
    static float first[T * N * C], second[T * N * C];
    DNNL(dnnl_primitive_execute(rnn, stream, sizeof args / sizeof *args, args));
    DNNL(dnnl_stream_wait(stream));
    read_floats(dst, first, T * N * C);
    DNNL(dnnl_primitive_execute(rnn, stream, sizeof args / sizeof *args, args));
    DNNL(dnnl_stream_wait(stream));
    read_floats(dst, second, T * N * C);

    /* the first step by hand */
    float want[N * C];
    for (int n = 0; n < N; n++) {
        float u_[C], r_[C], wx[C];
        for (int o = 0; o < C; o++) {
            float a[G];
            for (int g = 0; g < G; g++) {
                a[g] = b[g * C + o];
                for (int i = 0; i < C; i++)
                    a[g] += x[n * C + i] * w[(i * G + g) * C + o] + (g < 2 ? h0[n * C + i] * u[(i * G + g) * C + o] : 0);
            }
            u_[o] = sigmoid(a[0]);
            r_[o] = sigmoid(a[1]);
            wx[o] = a[2]; /* W_o x + B_o */
        }
        for (int o = 0; o < C; o++) {
            float pre = wx[o];
            for (int i = 0; i < C; i++)
                pre += u[(i * G + 2) * C + o] * r_[i] * h0[n * C + i];
            float ut = (1 - att[n]) * u_[o];
            want[n * C + o] = ut * h0[n * C + o] + (1 - ut) * tanhf(pre);
        }
    }
    int bad = check_results(first, second, T * N * C, want);

    DNNL(dnnl_primitive_destroy(rnn));
    DNNL(dnnl_primitive_desc_destroy(pd));
    dnnl_memory_t mems[] = {src, src_iter, bias_mem, w_user, u_user, w_re, u_re, dst, dst_iter, attention};
    for (size_t i = 0; i < sizeof mems / sizeof *mems; i++)
        if (mems[i]) DNNL(dnnl_memory_destroy(mems[i]));
    dnnl_memory_desc_t mds[] = {layer_md, state_md, w_md, w_any, bias_md, att_md};
    for (size_t i = 0; i < sizeof mds / sizeof *mds; i++)
        DNNL(dnnl_memory_desc_destroy(mds[i]));
    example_close();
    return bad;
}
