/* Bad input to the recurrent primitives: each descriptor below gets the status Intel's
 * library returns (the @ref run proves each one), and leaves the primitive descriptor
 * output as it was:
 *   - inconsistent dims: T, N, SLC against weights_layer, DHC against dst, L of
 *     src_iter against the weights, a bidirectional direction with D = 1 weights,
 *     bidirectional concat with dst_layer of DHC channels;
 *   - values out of range: a cell kind or an unknown value as the vanilla activation,
 *     an activation the vanilla cell doesn't take, directions, prop kinds;
 *   - missing mandatory descriptors; LSTM's h state without its c state;
 *   - data type combinations; runtime dims;
 *   - AUGRU right to left and bidirectional (left to right only); without its
 *     attention descriptor (which Intel's library accepts);
 *   - backward with a forward prop kind; without a forward hint and with an inference
 *     hint (which Intel's library accepts); diff descriptors unlike the forward ones;
 *   - LSTM peephole and projection shapes;
 *   - int8 and the RNN quantization attributes, f16's gaps (int8_and_qparams).
 * On this library, execution: a dst_layer one element short and a missing workspace at
 * backward are refused, leaving the memory (and the bytes after it) untouched (Intel's
 * library does not check execution arguments).
 *
 * While this library answers dnnl_unimplemented to the first, valid, creation, the
 * test prints `SKIP: rnn not implemented by this library` and exits 77.
 *
 * Usage: rnn_bad_input [cpu|gpu]. */
#include "bad_input.h"

enum { T = 3, N = 2, SLC = 4, DHC = 5, L = 1, D = 1 };

/* A vanilla RNN (tanh) forward: the valid descriptors, each of which a case replaces. */
typedef struct {
    dnnl_prop_kind_t prop;
    dnnl_alg_kind_t act;
    dnnl_rnn_direction_t dir;
    const_dnnl_memory_desc_t src_layer, src_iter, wl, wi, bias, dst_layer, dst_iter;
} vanilla_t;

/* The valid descriptors, made once (bad_input.h's md() holds 64 at a time). */
static dnnl_memory_desc_t valid_mds[6];

static vanilla_t valid(void) {
    if (!valid_mds[0]) {
        dnnl_dims_t sl = {T, N, SLC}, si = {L, D, N, DHC}, wl = {L, D, SLC, 1, DHC}, wi = {L, D, DHC, 1, DHC},
                    b = {L, D, 1, DHC}, dl = {T, N, DHC};
        CHECK(dnnl_memory_desc_create_with_tag(&valid_mds[0], 3, sl, dnnl_f32, dnnl_abc));
        CHECK(dnnl_memory_desc_create_with_tag(&valid_mds[1], 4, si, dnnl_f32, dnnl_abcd));
        CHECK(dnnl_memory_desc_create_with_tag(&valid_mds[2], 5, wl, dnnl_f32, dnnl_abcde));
        CHECK(dnnl_memory_desc_create_with_tag(&valid_mds[3], 5, wi, dnnl_f32, dnnl_abcde));
        CHECK(dnnl_memory_desc_create_with_tag(&valid_mds[4], 4, b, dnnl_f32, dnnl_abcd));
        CHECK(dnnl_memory_desc_create_with_tag(&valid_mds[5], 3, dl, dnnl_f32, dnnl_abc));
    }
    vanilla_t v = {dnnl_forward_training, dnnl_eltwise_tanh, dnnl_unidirectional_left2right, valid_mds[0],
            valid_mds[1], valid_mds[2], valid_mds[3], valid_mds[4], valid_mds[5], valid_mds[1]};
    return v;
}

static dnnl_status_t create(const vanilla_t *v, dnnl_primitive_desc_t *pd) {
    return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, engine, v->prop, v->act, v->dir, v->src_layer,
            v->src_iter, v->wl, v->wi, v->bias, v->dst_layer, v->dst_iter, 0, 0.f, 0.f, NULL);
}

static void expect_vanilla(const char *what, const vanilla_t *v, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = UNTOUCHED;
    dnnl_status_t st = create(v, &pd);
    expect_pd(what, st, pd, want);
}

/* LSTM's c state: N x DHC, whatever the h state's channels. */
static const_dnnl_memory_desc_t s_c_of(const_dnnl_memory_desc_t h) {
    (void)h;
    dnnl_dims_t sc = {L, D, N, DHC};
    return md(4, sc, dnnl_f32);
}

static void descriptors(void) {
    dnnl_dims_t sl4 = {T + 1, N, SLC}, si_n = {L, D, N + 1, DHC}, wl_slc = {L, D, SLC + 1, 1, DHC},
                dl_dhc = {T, N, DHC + 1}, si_l = {L + 1, D, N, DHC}, dl = {T, N, DHC},
                wl2 = {L, 2, SLC, 1, DHC}, wi2 = {L, 2, DHC, 1, DHC}, b2 = {L, 2, 1, DHC}, si2 = {L, 2, N, DHC},
                dl2 = {T, N, 2 * DHC}, wl = {L, D, SLC, 1, DHC}, wi = {L, D, DHC, 1, DHC}, sl = {T, N, SLC},
                b = {L, D, 1, DHC}, si = {L, D, N, DHC}, wl_g = {L, D, SLC, 4, DHC};
    vanilla_t v;

    /* inconsistent dims */
    v = valid();
    v.dst_layer = md(3, sl4, dnnl_f32);
    expect_vanilla("dst_layer with T + 1", &v, dnnl_invalid_arguments);
    v = valid();
    v.src_iter = md(4, si_n, dnnl_f32);
    expect_vanilla("src_iter with N + 1", &v, dnnl_invalid_arguments);
    v = valid();
    v.wl = md(5, wl_slc, dnnl_f32);
    expect_vanilla("weights_layer with SLC + 1", &v, dnnl_invalid_arguments);
    v = valid();
    v.dst_layer = md(3, dl_dhc, dnnl_f32);
    expect_vanilla("dst_layer with DHC + 1", &v, dnnl_invalid_arguments);
    v = valid();
    v.src_iter = md(4, si_l, dnnl_f32);
    expect_vanilla("src_iter with L + 1 (weights of L)", &v, dnnl_invalid_arguments);
    v = valid();
    v.wl = md(5, wl_g, dnnl_f32);
    expect_vanilla("weights_layer with 4 gates for the vanilla cell", &v, dnnl_invalid_arguments);
    v = valid();
    v.dir = dnnl_bidirectional_concat;
    v.dst_layer = md(3, dl2, dnnl_f32);
    expect_vanilla("bidirectional concat with D = 1 weights and states", &v, dnnl_invalid_arguments);
    v = valid();
    v.dir = dnnl_bidirectional_concat;
    v.wl = md(5, wl2, dnnl_f32);
    v.wi = md(5, wi2, dnnl_f32);
    v.bias = md(4, b2, dnnl_f32);
    v.src_iter = v.dst_iter = md(4, si2, dnnl_f32);
    v.dst_layer = md(3, dl, dnnl_f32);
    expect_vanilla("bidirectional concat with a dst_layer of DHC channels", &v, dnnl_invalid_arguments);
    v.dst_layer = md(3, dl2, dnnl_f32);
    expect_vanilla("bidirectional concat, consistent", &v, dnnl_success);
    v.dir = dnnl_bidirectional_sum;
    expect_vanilla("bidirectional sum with a dst_layer of 2 * DHC channels", &v, dnnl_invalid_arguments);

    free_mds();

    /* values out of range */
    v = valid();
    v.act = dnnl_vanilla_lstm;
    expect_vanilla("a cell kind (vanilla_lstm) as the activation", &v, dnnl_invalid_arguments);
    v.act = dnnl_eltwise_gelu_tanh;
    expect_vanilla("activation gelu_tanh", &v, dnnl_invalid_arguments);
    v.act = (dnnl_alg_kind_t)12345;
    expect_vanilla("activation 12345", &v, dnnl_invalid_arguments);
    v = valid();
    v.dir = dnnl_rnn_direction_undef;
    expect_vanilla("direction undef", &v, dnnl_invalid_arguments);
    v.dir = (dnnl_rnn_direction_t)5;
    expect_vanilla("direction 5", &v, dnnl_invalid_arguments);
    v = valid();
    v.prop = dnnl_backward;
    expect_vanilla("forward creation with prop backward", &v, dnnl_invalid_arguments);
    v.prop = dnnl_backward_data;
    expect_vanilla("forward creation with prop backward_data", &v, dnnl_invalid_arguments);
    v.prop = (dnnl_prop_kind_t)12345;
    expect_vanilla("forward creation with prop 12345", &v, dnnl_invalid_arguments);

    /* missing mandatory descriptors */
    v = valid();
    v.src_layer = NULL;
    expect_vanilla("no src_layer", &v, dnnl_invalid_arguments);
    v = valid();
    v.wl = NULL;
    expect_vanilla("no weights_layer", &v, dnnl_invalid_arguments);
    v = valid();
    v.wi = NULL;
    expect_vanilla("no weights_iter", &v, dnnl_invalid_arguments);
    v = valid();
    v.dst_layer = NULL;
    expect_vanilla("no dst_layer", &v, dnnl_invalid_arguments);

    free_mds();

    /* data types */
    v = valid();
    v.wl = md(5, wl, dnnl_bf16);
    v.wi = md(5, wi, dnnl_bf16);
    expect_vanilla("f32 data with bf16 weights", &v, dnnl_unimplemented);
    v = valid();
    v.src_layer = md(3, sl, dnnl_bf16);
    expect_vanilla("bf16 src_layer, the rest f32", &v, dnnl_unimplemented);
    v = valid();
    v.bias = md(4, b, dnnl_s32);
    expect_vanilla("s32 bias", &v, dnnl_unimplemented);
    v = valid();
    v.src_layer = md(3, sl, dnnl_u8);
    v.src_iter = md(4, si, dnnl_u8);
    v.wl = md(5, wl, dnnl_s8);
    v.wi = md(5, wi, dnnl_s8);
    v.dst_layer = md(3, dl, dnnl_u8);
    v.dst_iter = md(4, si, dnnl_u8);
    expect_vanilla("int8 vanilla RNN training", &v, dnnl_unimplemented);

    /* runtime dims */
    dnnl_dims_t rt = {DNNL_RUNTIME_DIM_VAL, N, SLC}, rdl = {DNNL_RUNTIME_DIM_VAL, N, DHC};
    v = valid();
    v.src_layer = md(3, rt, dnnl_f32);
    v.dst_layer = md(3, rdl, dnnl_f32);
    expect_vanilla("runtime T", &v, dnnl_unimplemented);

    free_mds();

    /* LSTM: h and c states go together */
    dnnl_dims_t lwl = {L, D, SLC, 4, DHC}, lwi = {L, D, DHC, 4, DHC}, lb = {L, D, 4, DHC};
    const_dnnl_memory_desc_t s_l = md(3, sl, dnnl_f32), s_i = md(4, si, dnnl_f32), w_l = md(5, lwl, dnnl_f32),
                             w_i = md(5, lwi, dnnl_f32), bias = md(4, lb, dnnl_f32), d_l = md(3, dl, dnnl_f32);
    struct {
        const char *what;
        const_dnnl_memory_desc_t si, sic, di, dic;
        dnnl_status_t want;
    } lstm[] = {
            {"lstm, every state", s_i, s_i, s_i, s_i, dnnl_success},
            {"lstm src_iter without src_iter_c", s_i, NULL, s_i, s_i, dnnl_invalid_arguments},
            {"lstm dst_iter without dst_iter_c", s_i, s_i, s_i, NULL, dnnl_invalid_arguments},
            {"lstm dst_iter_c without dst_iter", s_i, s_i, NULL, s_i, dnnl_invalid_arguments},
    };
    for (size_t k = 0; k < sizeof lstm / sizeof *lstm; k++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_lstm_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                dnnl_unidirectional_left2right, s_l, lstm[k].si, lstm[k].sic, w_l, w_i, NULL, NULL, bias, d_l,
                lstm[k].di, lstm[k].dic, 0, NULL);
        expect_pd(lstm[k].what, st, pd, lstm[k].want);
    }

    /* LSTM peephole (3 gates: i, f, o) and projection (DHC x DIC) shapes */
    enum { DIC = 3 };
    dnnl_dims_t p3 = {L, D, 3, DHC}, p4 = {L, D, 4, DHC}, r_ok = {L, D, DHC, DIC}, r_bad = {L, D, DHC + 1, DIC},
                pwi = {L, D, DIC, 4, DHC}, psi = {L, D, N, DIC}, pdl = {T, N, DIC};
    struct {
        const char *what;
        const_dnnl_memory_desc_t wp, wr, wi, si, dl;
        dnnl_status_t want;
    } shapes[] = {
            {"lstm peephole of 3 gates", md(4, p3, dnnl_f32), NULL, w_i, s_i, d_l, dnnl_success},
            {"lstm peephole of 4 gates", md(4, p4, dnnl_f32), NULL, w_i, s_i, d_l, dnnl_invalid_arguments},
            {"lstm projection DHC x DIC", NULL, md(4, r_ok, dnnl_f32), md(5, pwi, dnnl_f32), md(4, psi, dnnl_f32),
                    md(3, pdl, dnnl_f32), dnnl_success},
            {"lstm projection (DHC + 1) x DIC", NULL, md(4, r_bad, dnnl_f32), md(5, pwi, dnnl_f32),
                    md(4, psi, dnnl_f32), md(3, pdl, dnnl_f32), dnnl_invalid_arguments},
            {"lstm projection with dst_layer of DHC channels", NULL, md(4, r_ok, dnnl_f32), md(5, pwi, dnnl_f32),
                    md(4, psi, dnnl_f32), d_l, dnnl_invalid_arguments},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_lstm_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                dnnl_unidirectional_left2right, s_l, shapes[k].si, s_c_of(shapes[k].si), w_l, shapes[k].wi,
                shapes[k].wp, shapes[k].wr, bias, shapes[k].dl, shapes[k].si, s_c_of(shapes[k].si), 0, NULL);
        expect_pd(shapes[k].what, st, pd, shapes[k].want);
    }
    free_mds();

    /* AUGRU: left to right only */
    s_l = md(3, sl, dnnl_f32);
    s_i = md(4, si, dnnl_f32);
    d_l = md(3, dl, dnnl_f32);
    dnnl_dims_t gwl = {L, D, SLC, 3, DHC}, gwi = {L, D, DHC, 3, DHC}, gb = {L, D, 3, DHC}, at = {T, N, 1};
    const_dnnl_memory_desc_t att = md(3, at, dnnl_f32), gw_l = md(5, gwl, dnnl_f32), gw_i = md(5, gwi, dnnl_f32),
                             g_b = md(4, gb, dnnl_f32);
    dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right, dnnl_unidirectional_right2left};
    for (int k = 0; k < 2; k++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_augru_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, dirs[k],
                s_l, s_i, att, gw_l, gw_i, g_b, d_l, s_i, 0, NULL);
        expect_pd(k ? "augru right to left" : "augru left to right", st, pd,
                k ? dnnl_invalid_arguments : dnnl_success);
    }
    {
        dnnl_dims_t bwl = {L, 2, SLC, 3, DHC}, bwi = {L, 2, DHC, 3, DHC}, bb = {L, 2, 3, DHC};
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_augru_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                dnnl_bidirectional_sum, s_l, md(4, si2, dnnl_f32), att, md(5, bwl, dnnl_f32),
                md(5, bwi, dnnl_f32), md(4, bb, dnnl_f32), d_l, md(4, si2, dnnl_f32), 0, NULL);
        expect_pd("augru bidirectional sum", st, pd, dnnl_invalid_arguments);
        pd = UNTOUCHED;
        st = dnnl_augru_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                dnnl_unidirectional_left2right, s_l, s_i, NULL, gw_l, gw_i, g_b, d_l, s_i, 0, NULL);
        /* Intel's library takes an AUGRU without its attention descriptor */
        expect_pd("augru without the attention (accepted)", st, pd, dnnl_success);
    }
}

/* An LSTM or GRU with the int8 configuration (u8 data and dst, s8 weights `any`, f32
 * bias and c states), each field a case may replace. */
typedef struct {
    int gru, lbr, peephole, backward;
    dnnl_prop_kind_t prop;
    const_dnnl_memory_desc_t sl, si, sic, wl, wi, wp, b, dl, di, dic;
    const_dnnl_primitive_attr_t attr;
} q_case_t;

static dnnl_memory_desc_t any_md(int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt) {
    dnnl_memory_desc_t m;
    CHECK(dnnl_memory_desc_create_with_tag(&m, nd, dims, dt, dnnl_format_tag_any));
    return m;
}

static dnnl_status_t create_int8(const q_case_t *c, dnnl_primitive_desc_t *pd) {
    dnnl_prop_kind_t prop = c->prop;
    if (c->backward) {
        /* the diffs f32, the weights' `any` */
        int G = c->gru ? 3 : 4;
        dnnl_dims_t sl = {T, N, SLC}, si = {L, D, N, DHC}, wl = {L, D, SLC, G, DHC}, wi = {L, D, DHC, G, DHC},
                    b = {L, D, G, DHC}, dl = {T, N, DHC};
        dnnl_memory_desc_t dwl = any_md(5, wl, dnnl_f32), dwi = any_md(5, wi, dnnl_f32);
        dnnl_status_t st = dnnl_lstm_backward_primitive_desc_create(pd, engine, dnnl_backward,
                dnnl_unidirectional_left2right, c->sl, c->si, c->sic, c->wl, c->wi, NULL, NULL, c->b, c->dl,
                c->di, c->dic, md(3, sl, dnnl_f32), md(4, si, dnnl_f32), md(4, si, dnnl_f32), dwl, dwi, NULL,
                NULL, md(4, b, dnnl_f32), md(3, dl, dnnl_f32), md(4, si, dnnl_f32), md(4, si, dnnl_f32), 0, NULL,
                c->attr);
        CHECK(dnnl_memory_desc_destroy(dwl));
        CHECK(dnnl_memory_desc_destroy(dwi));
        return st;
    }
    if (c->lbr)
        return dnnl_lbr_gru_forward_primitive_desc_create(pd, engine, prop, dnnl_unidirectional_left2right,
                c->sl, c->si, c->wl, c->wi, c->b, c->dl, c->di, 0, c->attr);
    if (c->gru)
        return dnnl_gru_forward_primitive_desc_create(pd, engine, prop, dnnl_unidirectional_left2right, c->sl,
                c->si, c->wl, c->wi, c->b, c->dl, c->di, 0, c->attr);
    return dnnl_lstm_forward_primitive_desc_create(pd, engine, prop, dnnl_unidirectional_left2right, c->sl,
            c->si, c->sic, c->wl, c->wi, c->wp, NULL, c->b, c->dl, c->di, c->dic, 0, c->attr);
}

/* int8 (u8 data, s8 weights) and the RNN quantization attributes: what Intel's library
 * refuses (training and backward, cells other than LSTM and GRU, a peephole, an f32
 * dst_iter or u8 c state, s8 data without AMX, weights scale masks other than 0 and
 * 24, the quantization attributes with f32 data) and f16's gaps (no backward, no
 * projection). Two departures, each said in its case: a weights scale array shorter
 * than the mask selects is refused here (Intel's library takes it and reads past it),
 * and int8 weights given as plain ldigo are taken here (Intel's library takes `any`,
 * its packed format, only). */
static void int8_and_qparams(void) {
    enum { G = 4, GG = 3 };
    dnnl_dims_t sl = {T, N, SLC}, si = {L, D, N, DHC}, wl = {L, D, SLC, G, DHC}, wi = {L, D, DHC, G, DHC},
                b = {L, D, G, DHC}, dl = {T, N, DHC}, wp = {L, D, 3, DHC}, gwl = {L, D, SLC, GG, DHC},
                gwi = {L, D, DHC, GG, DHC}, gb = {L, D, GG, DHC}, lb = {L, D, GG + 1, DHC};
    dnnl_memory_desc_t wl_any = any_md(5, wl, dnnl_s8), wi_any = any_md(5, wi, dnnl_s8),
                       gwl_any = any_md(5, gwl, dnnl_s8), gwi_any = any_md(5, gwi, dnnl_s8);
    float scales[2 * G * DHC];
    for (int k = 0; k < 2 * G * DHC; k++)
        scales[k] = 100.f + (float)k;
    dnnl_primitive_attr_t q, mask16, short_count, long_count;
    CHECK(dnnl_primitive_attr_create(&q));
    CHECK(dnnl_primitive_attr_set_rnn_data_qparams(q, 63.f, 64.f));
    CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(q, 1, 0, scales));
    CHECK(dnnl_primitive_attr_clone(&mask16, q));
    CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(mask16, DHC, 1 << 4, scales));
    CHECK(dnnl_primitive_attr_clone(&short_count, q));
    CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(short_count, G * DHC - 1, (1 << 3) | (1 << 4), scales));
    CHECK(dnnl_primitive_attr_clone(&long_count, q));
    CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(long_count, 2 * G * DHC, (1 << 3) | (1 << 4), scales));
    const q_case_t ok = {0, 0, 0, 0, dnnl_forward_inference, md(3, sl, dnnl_u8), md(4, si, dnnl_u8),
            md(4, si, dnnl_f32), wl_any, wi_any, NULL, md(4, b, dnnl_f32), md(3, dl, dnnl_u8), md(4, si, dnnl_u8),
            md(4, si, dnnl_f32), q};
    struct {
        const char *what;
        q_case_t c;
        dnnl_status_t want;
    } cases[32];
    int n = 0;
#define CASE(text, edit, status)                                                                               \
    do {                                                                                                       \
        cases[n].what = text;                                                                                  \
        cases[n].c = ok;                                                                                       \
        q_case_t *c = &cases[n].c;                                                                          \
        edit;                                                                                                  \
        cases[n++].want = status;                                                                              \
    } while (0)
    CASE("int8 lstm inference", (void)c, dnnl_success);
    CASE("int8 lstm inference, f32 dst_layer", c->dl = md(3, dl, dnnl_f32), dnnl_success);
    CASE("int8 lstm inference, default quantization attributes", c->attr = NULL, dnnl_success);
    CASE("int8 lstm weights scales per gate and channel, more than needed", c->attr = long_count,
            dnnl_success);
    CASE("int8 lstm forward training", c->prop = dnnl_forward_training, dnnl_unimplemented);
    CASE("int8 lstm backward", c->backward = 1, dnnl_unimplemented);
    CASE("int8 lstm with an f32 dst_iter", c->di = md(4, si, dnnl_f32), dnnl_unimplemented);
    CASE("int8 lstm with f32 dst_layer and dst_iter",
            (c->dl = md(3, dl, dnnl_f32), c->di = md(4, si, dnnl_f32)), dnnl_unimplemented);
    CASE("int8 lstm with u8 src_iter_c and dst_iter_c",
            (c->sic = md(4, si, dnnl_u8), c->dic = md(4, si, dnnl_u8)), dnnl_unimplemented);
    CASE("int8 lstm with an f16 bias", c->b = md(4, b, dnnl_f16), dnnl_unimplemented);
    CASE("int8 lstm with u8 weights", (c->wl = md(5, wl, dnnl_u8), c->wi = md(5, wi, dnnl_u8)),
            dnnl_unimplemented);
    CASE("int8 lstm with a peephole", c->wp = md(4, wp, dnnl_f32), dnnl_unimplemented);
    CASE("int8 lstm with s8 data (AMX only upstream)",
            (c->sl = md(3, sl, dnnl_s8), c->si = md(4, si, dnnl_s8), c->dl = md(3, dl, dnnl_s8),
                    c->di = md(4, si, dnnl_s8)),
            dnnl_unimplemented);
    CASE("int8 lstm weights scales mask 16 (DHC only)", c->attr = mask16, dnnl_unimplemented);
    /* Intel's library takes a count short of the mask's G * DHC and reads past the
     * array at execution; this library refuses it */
    CASE("int8 lstm weights scales: G * DHC - 1 for mask 24", c->attr = short_count,
            library_is_ours() ? dnnl_invalid_arguments : dnnl_success);
    /* plain ldigo s8 weights: the layout `any` gives here; Intel's library packs them */
    CASE("int8 lstm weights given as ldigo", (c->wl = md(5, wl, dnnl_s8), c->wi = md(5, wi, dnnl_s8)),
            library_is_ours() ? dnnl_success : dnnl_unimplemented);
    CASE("int8 gru inference",
            (c->gru = 1, c->wl = gwl_any, c->wi = gwi_any, c->b = md(4, gb, dnnl_f32), c->sic = c->dic = NULL),
            dnnl_success);
    CASE("int8 lbr_gru inference",
            (c->lbr = 1, c->wl = gwl_any, c->wi = gwi_any, c->b = md(4, lb, dnnl_f32), c->sic = c->dic = NULL),
            dnnl_unimplemented);
    CASE("f32 lstm with the rnn quantization attributes",
            (c->sl = md(3, sl, dnnl_f32), c->si = md(4, si, dnnl_f32), c->wl = md(5, wl, dnnl_f32),
                    c->wi = md(5, wi, dnnl_f32), c->dl = md(3, dl, dnnl_f32), c->di = md(4, si, dnnl_f32)),
            dnnl_unimplemented);
    CASE("f16 lstm backward",
            (c->backward = 1, c->sl = md(3, sl, dnnl_f16), c->si = md(4, si, dnnl_f16),
                    c->wl = md(5, wl, dnnl_f16), c->wi = md(5, wi, dnnl_f16), c->dl = md(3, dl, dnnl_f16),
                    c->di = md(4, si, dnnl_f16), c->attr = NULL),
            dnnl_unimplemented);
#undef CASE
    for (int k = 0; k < n; k++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = create_int8(&cases[k].c, &pd);
        expect_pd(cases[k].what, st, pd, cases[k].want);
    }
    free_mds();

    /* f16 LSTM with a projection: unimplemented (rnn.md) */
    enum { DIC = 3 };
    dnnl_dims_t r = {L, D, DHC, DIC}, pwi = {L, D, DIC, G, DHC}, psi = {L, D, N, DIC}, pdl = {T, N, DIC};
    dnnl_primitive_desc_t pd = UNTOUCHED;
    dnnl_status_t st = dnnl_lstm_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_unidirectional_left2right, md(3, sl, dnnl_f16), md(4, psi, dnnl_f16), md(4, si, dnnl_f16),
            md(5, wl, dnnl_f16), md(5, pwi, dnnl_f16), NULL, md(4, r, dnnl_f16), md(4, b, dnnl_f16),
            md(3, pdl, dnnl_f16), md(4, psi, dnnl_f16), md(4, si, dnnl_f16), 0, NULL);
    expect_pd("f16 lstm with a projection", st, pd,
            reference_has_fp16() && st == dnnl_success ? dnnl_success : dnnl_unimplemented);
    free_mds();

    dnnl_memory_desc_t own[] = {wl_any, wi_any, gwl_any, gwi_any};
    for (int k = 0; k < 4; k++)
        CHECK(dnnl_memory_desc_destroy(own[k]));
    dnnl_primitive_attr_t attrs[] = {q, mask16, short_count, long_count};
    for (int k = 0; k < 4; k++)
        CHECK(dnnl_primitive_attr_destroy(attrs[k]));
}

/* Backward: a forward hint is required, and a training one. */
static void backward_hints(void) {
    vanilla_t v = valid();
    dnnl_dims_t wl = {L, D, SLC, 1, DHC}, wi = {L, D, DHC, 1, DHC};
    const_dnnl_memory_desc_t wl_any = md_with_tag(5, wl, dnnl_f32, dnnl_format_tag_any),
                             wi_any = md_with_tag(5, wi, dnnl_f32, dnnl_format_tag_any);
    v.wl = wl_any;
    v.wi = wi_any;
    dnnl_primitive_desc_t fwd_train = NULL, fwd_inf = NULL;
    CHECK(create(&v, &fwd_train));
    v.prop = dnnl_forward_inference;
    CHECK(create(&v, &fwd_inf));
    struct {
        const char *what;
        dnnl_prop_kind_t prop;
        const_dnnl_primitive_desc_t hint;
        dnnl_status_t want;
    } cases[] = {
            {"backward with a training hint", dnnl_backward, fwd_train, dnnl_success},
            /* Intel's library creates these (no hint, or an inference one) */
            {"backward without a hint (accepted)", dnnl_backward, NULL, dnnl_success},
            {"backward with an inference hint (accepted)", dnnl_backward, fwd_inf, dnnl_success},
            {"backward creation with prop forward_training", dnnl_forward_training, fwd_train,
                    dnnl_invalid_arguments},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_vanilla_rnn_backward_primitive_desc_create(&pd, engine, cases[k].prop,
                dnnl_eltwise_tanh, dnnl_unidirectional_left2right, v.src_layer, v.src_iter, wl_any, wi_any, v.bias,
                v.dst_layer, v.dst_iter, v.src_layer, v.src_iter, wl_any, wi_any, v.bias, v.dst_layer, v.dst_iter,
                0, 0.f, 0.f, cases[k].hint, NULL);
        expect_pd(cases[k].what, st, pd, cases[k].want);
    }

    /* diff descriptors that disagree with the forward ones */
    dnnl_dims_t sl_t = {T + 1, N, SLC}, wl_slc = {L, D, SLC + 1, 1, DHC}, dl_c = {T, N, DHC + 1};
    struct {
        const char *what;
        const_dnnl_memory_desc_t dsl, dwl, ddl;
    } diffs[] = {
            {"diff_src_layer with T + 1", md(3, sl_t, dnnl_f32), wl_any, v.dst_layer},
            {"diff_weights_layer with SLC + 1", v.src_layer, md_with_tag(5, wl_slc, dnnl_f32, dnnl_format_tag_any),
                    v.dst_layer},
            {"diff_dst_layer with DHC + 1", v.src_layer, wl_any, md(3, dl_c, dnnl_f32)},
    };
    for (size_t k = 0; k < sizeof diffs / sizeof *diffs; k++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_vanilla_rnn_backward_primitive_desc_create(&pd, engine, dnnl_backward,
                dnnl_eltwise_tanh, dnnl_unidirectional_left2right, v.src_layer, v.src_iter, wl_any, wi_any, v.bias,
                v.dst_layer, v.dst_iter, diffs[k].dsl, v.src_iter, diffs[k].dwl, wi_any, v.bias, diffs[k].ddl,
                v.dst_iter, 0, 0.f, 0.f, fwd_train, NULL);
        expect_pd(diffs[k].what, st, pd, dnnl_invalid_arguments);
    }
    CHECK(dnnl_primitive_desc_destroy(fwd_train));
    CHECK(dnnl_primitive_desc_destroy(fwd_inf));
    free_mds();
}

/* Execution. On this library only (Intel's does not check execution arguments): an
 * undersized or mistyped dst_layer and a backward without its workspace are refused and
 * write nothing. On both: the same primitives then run with valid arguments (which
 * proves the arguments the refusals start from are right). */
static void execution(void) {
    int ours = library_is_ours();
    vanilla_t v = valid();
    dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
    CHECK(create(&v, &fpd));
    dnnl_primitive_t fwd = NULL;
    CHECK(dnnl_primitive_create(&fwd, fpd));
    /* the dst_layer last, as expect_refused_dsts wants */
    int ids[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_BIAS, DNNL_ARG_DST_ITER, DNNL_ARG_WORKSPACE, DNNL_ARG_DST_LAYER};
    dnnl_exec_arg_t args[8];
    for (int k = 0; k < 8; k++) {
        const_dnnl_memory_desc_t m = ids[k] == DNNL_ARG_WORKSPACE
                ? dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0)
                : dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, ids[k]);
        dnnl_memory_t mem = NULL;
        CHECK(dnnl_memory_create(&mem, m, engine, DNNL_MEMORY_ALLOCATE));
        void *p = NULL;
        CHECK(dnnl_memory_map_data(mem, &p));
        memset(p, 0, dnnl_memory_desc_get_size(m));
        CHECK(dnnl_memory_unmap_data(mem, p));
        args[k] = (dnnl_exec_arg_t){ids[k], mem};
    }
    dnnl_dims_t dl = {T, N, DHC};
    if (ours) expect_refused_dsts(fwd, 8, args, 3, dl);
    CHECK(dnnl_primitive_execute(fwd, stream, 8, args));
    CHECK(dnnl_stream_wait(stream));

    dnnl_dims_t wl = {L, D, SLC, 1, DHC}, wi = {L, D, DHC, 1, DHC};
    const_dnnl_memory_desc_t wl_any = md_with_tag(5, wl, dnnl_f32, dnnl_format_tag_any),
                             wi_any = md_with_tag(5, wi, dnnl_f32, dnnl_format_tag_any);
    CHECK(dnnl_vanilla_rnn_backward_primitive_desc_create(&bpd, engine, dnnl_backward, dnnl_eltwise_tanh,
            dnnl_unidirectional_left2right, v.src_layer, v.src_iter, wl_any, wi_any, v.bias, v.dst_layer, v.dst_iter,
            v.src_layer, v.src_iter, wl_any, wi_any, v.bias, v.dst_layer, v.dst_iter, 0, 0.f, 0.f, fpd, NULL));
    dnnl_primitive_t bwd = NULL;
    CHECK(dnnl_primitive_create(&bwd, bpd));
    /* the workspace last: the refused run leaves it out; diff_src_layer over canary bytes */
    int bids[] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DIFF_DST_LAYER, DNNL_ARG_DIFF_DST_ITER,
            DNNL_ARG_DIFF_SRC_ITER, DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER, DNNL_ARG_DIFF_BIAS,
            DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_WORKSPACE};
    enum { NB = sizeof bids / sizeof *bids };
    dnnl_exec_arg_t bargs[NB];
    unsigned char *buf = NULL;
    size_t bytes = 0;
    for (int k = 0; k < NB; k++) {
        dnnl_memory_t m = NULL;
        if (bids[k] == DNNL_ARG_WORKSPACE) {
            m = args[6].memory;
        } else {
            const_dnnl_memory_desc_t bmd = dnnl_primitive_desc_query_md(bpd, dnnl_query_exec_arg_md, bids[k]);
            if (bids[k] == DNNL_ARG_DIFF_SRC_LAYER) {
                bytes = dnnl_memory_desc_get_size(bmd) + 64;
                m = canary_memory(bmd, &buf, bytes);
            } else {
                CHECK(dnnl_memory_create(&m, bmd, engine, DNNL_MEMORY_ALLOCATE));
                void *p = NULL;
                CHECK(dnnl_memory_map_data(m, &p));
                memset(p, 0, dnnl_memory_desc_get_size(bmd));
                CHECK(dnnl_memory_unmap_data(m, p));
            }
        }
        bargs[k] = (dnnl_exec_arg_t){bids[k], m};
    }
    if (ours) {
        expect_status("backward without the workspace", dnnl_primitive_execute(bwd, stream, NB - 1, bargs),
                dnnl_invalid_arguments);
        CHECK(dnnl_stream_wait(stream));
        if (!untouched(bargs[NB - 2].memory, buf, bytes)) {
            fprintf(stderr, "FAIL: backward without the workspace wrote diff_src_layer or past it\n");
            failures++;
        }
    }
    CHECK(dnnl_primitive_execute(bwd, stream, NB, bargs));
    CHECK(dnnl_stream_wait(stream));
    for (int k = 0; k < NB - 1; k++)
        CHECK(dnnl_memory_destroy(bargs[k].memory));
    free(buf);
    for (int k = 0; k < 8; k++)
        CHECK(dnnl_memory_destroy(args[k].memory));
    CHECK(dnnl_primitive_destroy(bwd));
    CHECK(dnnl_primitive_desc_destroy(bpd));
    CHECK(dnnl_primitive_destroy(fwd));
    CHECK(dnnl_primitive_desc_destroy(fpd));
}

int main(int argc, char **argv) {
    bad_input_open(argc, argv);
    /* the first creation, valid: this library skips the test while it has no RNN */
    vanilla_t v = valid();
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = create(&v, &pd);
    if (st == dnnl_unimplemented && library_is_ours()) SKIP("rnn not implemented by this library");
    CHECK_STATUS(st, dnnl_success);
    CHECK(dnnl_primitive_desc_destroy(pd));

    descriptors();
    /* the int8 and f16 statuses are those of Intel's CPU library (its @ref run); this
     * library's GPU engines answer the same (upstream's run int8 LSTM only: rnn.md) */
    int8_and_qparams();
    backward_hints();
    execution();
    for (int k = 0; k < 6; k++)
        CHECK(dnnl_memory_desc_destroy(valid_mds[k]));
    return bad_input_close("rnn_bad_input");
}
