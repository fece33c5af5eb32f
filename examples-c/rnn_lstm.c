/* LSTM, in C: one layer of LSTM cells (no peephole, no projection), left to right
 * over T = 3 steps (see rnn_example.h for the shapes), forward inference with the
 * cell state in and out, on the engine named by the argument (cpu, the default, or
 * gpu), written from doc/primitives/rnn.md (gates in the order i, f, c~, o):
 *   i = sigmoid(W_i x + U_i h + B_i), f = sigmoid(W_f x + U_f h + B_f),
 *   c~ = tanh(W_c x + U_c h + B_c), o = sigmoid(W_o x + U_o h + B_o),
 *   c_t = f * c_{t-1} + i * c~,  h_t = tanh(c_t) * o
 * The weights are given in ldigo and the primitive chooses its own layout (`any`): they
 * are reordered where it differs. The example computes the first step by hand, and runs
 * the primitive twice (the same input gives the same output). */
#include "rnn_example.h"

int main(int argc, char **argv) {
    example_open(argc, argv);
    enum { G = 4 }; /* i, f, c~, o */
    static float c0[N * C];
    make_values(c0, N * C, 0.5f, 6);
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
    skip_if_unimplemented(dnnl_lstm_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                                  dnnl_unidirectional_left2right, layer_md, state_md, state_md, w_any, w_any, NULL,
                                  NULL, bias_md, layer_md, state_md, state_md, 0, NULL),
            "lstm");
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    printf("lstm: T=%d N=%d C=%d, left to right (%s)\n", T, N, C, impl);

    dnnl_memory_t src = filled(layer_md, x), src_iter = filled(state_md, h0), bias_mem = filled(bias_md, b);
    dnnl_memory_t w_user = filled(w_md, w), u_user = filled(w_md, u), w_re, u_re;
    dnnl_memory_t w_mem = weights_for(pd, DNNL_ARG_WEIGHTS_LAYER, w_user, &w_re);
    dnnl_memory_t u_mem = weights_for(pd, DNNL_ARG_WEIGHTS_ITER, u_user, &u_re);
    dnnl_memory_t dst = filled(layer_md, NULL), dst_iter = filled(state_md, NULL);
    dnnl_memory_t src_iter_c = filled(state_md, c0), dst_iter_c = filled(state_md, NULL);
    dnnl_primitive_t rnn = NULL;
    DNNL(dnnl_primitive_create(&rnn, pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, src_iter},
            {DNNL_ARG_WEIGHTS_LAYER, w_mem}, {DNNL_ARG_WEIGHTS_ITER, u_mem}, {DNNL_ARG_BIAS, bias_mem},
            {DNNL_ARG_DST_LAYER, dst}, {DNNL_ARG_DST_ITER, dst_iter},
            {DNNL_ARG_SRC_ITER_C, src_iter_c}, {DNNL_ARG_DST_ITER_C, dst_iter_c}};
    static float first[T * N * C], second[T * N * C];
    DNNL(dnnl_primitive_execute(rnn, stream, sizeof args / sizeof *args, args));
    DNNL(dnnl_stream_wait(stream));
    read_floats(dst, first, T * N * C);
    DNNL(dnnl_primitive_execute(rnn, stream, sizeof args / sizeof *args, args));
    DNNL(dnnl_stream_wait(stream));
    read_floats(dst, second, T * N * C);

    /* the first step by hand */
    float want[N * C];
    for (int n = 0; n < N; n++)
        for (int o = 0; o < C; o++) {
            float a[G];
            for (int g = 0; g < G; g++) {
                a[g] = b[g * C + o];
                for (int i = 0; i < C; i++)
                    a[g] += x[n * C + i] * w[(i * G + g) * C + o] + h0[n * C + i] * u[(i * G + g) * C + o];
            }
            float c = sigmoid(a[1]) * c0[n * C + o] + sigmoid(a[0]) * tanhf(a[2]);
            want[n * C + o] = tanhf(c) * sigmoid(a[3]);
        }
    int bad = check_results(first, second, T * N * C, want);

    DNNL(dnnl_primitive_destroy(rnn));
    DNNL(dnnl_primitive_desc_destroy(pd));
    dnnl_memory_t mems[] = {src, src_iter, bias_mem, w_user, u_user, w_re, u_re, dst, dst_iter, src_iter_c, dst_iter_c};
    for (size_t i = 0; i < sizeof mems / sizeof *mems; i++)
        if (mems[i]) DNNL(dnnl_memory_destroy(mems[i]));
    dnnl_memory_desc_t mds[] = {layer_md, state_md, w_md, w_any, bias_md};
    for (size_t i = 0; i < sizeof mds / sizeof *mds; i++)
        DNNL(dnnl_memory_desc_destroy(mds[i]));
    example_close();
    return bad;
}
