/* Shuffle (dnnl_shuffle_{forward,backward}_primitive_desc_create) through the official
 * API, compared with the documentation's definition computed here: the axis of size C
 * seen as a C/G x G row-major matrix is transposed, dst(.., u + v*C/G, ..) =
 * src(.., u*G + v, ..); backward diff_src(.., u*G + v, ..) = diff_dst(.., u + v*C/G, ..):
 *   - 1D to 5D tensors, every axis, group sizes 1, C and between;
 *   - plain, channels-last and other permuted layouts, padded strides;
 *   - forward training and inference, `any` dst (src's descriptor); backward with and
 *     without the hint, `any` diff_src (plain) and diff_dst (diff_src's);
 *   - types f32, bf16, f16, s8, u8, s32 (moved exactly: s32 values up to 2^24 apart);
 *   - queries: axis, group size, prop kind, inputs and outputs;
 *   - a long tensor (the GPU's vector path).
 *
 * Usage: shuffle_sweep [cpu|gpu]; with gpu it skips (77) without an OpenCL device. A
 * Level Zero run gets no argument but ONEDNN_GPU_RUNTIME=ze. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prim_util.h"

static int failures, n_run, n_noted;

typedef struct {
    int ndims;
    dnnl_dims_t dims;
    dnnl_format_tag_t tag; /* 0: the strides below */
    dnnl_dims_t strides;
    int axis;
    int64_t group;
} shape_t;

static const shape_t shapes[] = {
        {1, {12}, dnnl_a, {0}, 0, 3},
        {2, {5, 12}, dnnl_ab, {0}, 1, 4},
        {2, {5, 12}, dnnl_ba, {0}, 0, 5},
        {3, {2, 12, 7}, dnnl_abc, {0}, 1, 2},
        {3, {2, 12, 7}, dnnl_abc, {0}, 1, 6},
        {3, {2, 12, 7}, dnnl_acb, {0}, 1, 3},
        {3, {2, 12, 7}, dnnl_abc, {0}, 2, 7},
        {3, {2, 12, 7}, dnnl_cab, {0}, 0, 2},
        {4, {2, 12, 3, 5}, dnnl_abcd, {0}, 1, 4},
        {4, {2, 12, 3, 5}, dnnl_acdb, {0}, 1, 4},
        {4, {2, 12, 3, 5}, dnnl_abcd, {0}, 1, 1},
        {4, {2, 12, 3, 5}, dnnl_abcd, {0}, 1, 12},
        {4, {2, 12, 3, 5}, dnnl_abcd, {0}, 3, 5},
        {4, {2, 12, 3, 5}, dnnl_acbd, {0}, 2, 3},
        {4, {2, 12, 3, 5}, 0, {400, 30, 10, 2}, 1, 3},
        {5, {2, 6, 2, 3, 4}, dnnl_abcde, {0}, 1, 3},
        {5, {2, 6, 2, 3, 4}, dnnl_acdeb, {0}, 1, 2},
        {5, {2, 6, 2, 3, 4}, dnnl_abcde, {0}, 4, 2},
        {4, {3, 64, 9, 16}, dnnl_abcd, {0}, 1, 4},
        {4, {3, 64, 9, 16}, dnnl_acdb, {0}, 1, 8},
};

static void execute(const_dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

/* The row-major number of element i with its position on the axis replaced by c. */
static int64_t with_axis(const shape_t *s, int64_t i, int64_t c) {
    int64_t pos[DNNL_MAX_NDIMS], f = 0;
    for (int d = s->ndims - 1; d >= 0; d--) {
        pos[d] = i % s->dims[d];
        i /= s->dims[d];
    }
    pos[s->axis] = c;
    for (int d = 0; d < s->ndims; d++)
        f = f * s->dims[d] + pos[d];
    return f;
}

static int64_t axis_pos(const shape_t *s, int64_t i) {
    for (int d = s->ndims - 1; d > s->axis; d--)
        i /= s->dims[d];
    return i % s->dims[s->axis];
}

/* Distinct values where the type holds them. */
static float value(dnnl_data_type_t dt, int64_t i) {
    switch (dt) {
        case dnnl_s8: return (float)(i % 251 - 125);
        case dnnl_u8: return (float)(i % 251);
        case dnnl_bf16: return (float)(i % 256 - 128);
        case dnnl_f16: return (float)(i % 2048) * 0.5f;
        default: return (float)i;
    }
}

static dnnl_memory_desc_t make_md(const shape_t *s, dnnl_data_type_t dt) {
    return s->tag ? md_tag(s->ndims, s->dims, dt, s->tag) : md_strides(s->ndims, s->dims, dt, s->strides);
}

static void run_case(const shape_t *s, dnnl_data_type_t dt, int bwd, dnnl_prop_kind_t pk, int any,
        int with_hint) {
    char what[200];
    snprintf(what, sizeof what, "shuffle %s %dD %ldx%ld.. tag %d axis %d group %ld %s%s%s",
            bwd ? "backward" : dnnl_prop_kind2str(pk), s->ndims, (long)s->dims[0],
            (long)s->dims[s->ndims > 1], (int)s->tag, s->axis, (long)s->group, dnnl_dt2str(dt),
            any ? " any" : "", with_hint ? " hint" : "");
    dnnl_memory_desc_t data = make_md(s, dt);
    dnnl_memory_desc_t amd = md_tag(s->ndims, s->dims, dt, dnnl_format_tag_any);
    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    dnnl_status_t st = dnnl_success;
    if (!bwd || with_hint)
        st = dnnl_shuffle_forward_primitive_desc_create(&fpd, engine,
                bwd ? dnnl_forward_training : pk, data, any && !bwd ? amd : data, s->axis,
                s->group, NULL);
    /* Backward `any`: diff_dst (it takes diff_src's descriptor). */
    if (st == dnnl_success && bwd)
        st = dnnl_shuffle_backward_primitive_desc_create(
                &pd, engine, data, any ? amd : data, s->axis, s->group, fpd, NULL);
    if (st == dnnl_unimplemented && !library_is_ours()) {
        printf("note: %s: unimplemented by this library\n", what);
        n_noted++;
        if (fpd) CHECK(dnnl_primitive_desc_destroy(fpd));
        CHECK(dnnl_memory_desc_destroy(data));
        CHECK(dnnl_memory_desc_destroy(amd));
        return;
    }
    CHECK(st);
    if (!bwd) pd = fpd;
    n_run++;
    int bad = 0;
    dnnl_prop_kind_t q_pk;
    int q_axis = -1;
    dnnl_dim_t q_group = -1;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &q_pk));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_axis_s32, 0, &q_axis));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_group_size_s64, 0, &q_group));
    if (q_pk != (bwd ? dnnl_backward_data : pk) || q_axis != s->axis || q_group != s->group) {
        fprintf(stderr, "FAIL %s: queries: prop kind %d, axis %d, group size %ld\n", what, (int)q_pk,
                q_axis, (long)q_group);
        bad++;
    }
    if (dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) != 1
            || dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) != 1) {
        fprintf(stderr, "FAIL %s: not one input and one output\n", what);
        bad++;
    }
    dnnl_query_t in_q = bwd ? dnnl_query_diff_dst_md : dnnl_query_src_md;
    dnnl_query_t out_q = bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md;
    if (!dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, in_q, 0), data)
            || !dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, out_q, 0), data)) {
        fprintf(stderr, "FAIL %s: the tensors' descriptors are not the data's\n", what);
        bad++;
    }

    layout_t l = layout_of(data);
    int64_t n = l.nelems, c = s->dims[s->axis], rows = c / s->group;
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        x[i] = value(dt, i);
    dnnl_memory_t in = memory(data), out = memory(data);
    fill(in, x);
    int padding_ok = 1;
    dnnl_exec_arg_t args[] = {{bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, in},
            {bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, out}};
    execute(pd, 2, args);
    read_back(out, y, &padding_ok);
    for (int64_t i = 0; i < n && bad < 5; i++) {
        int64_t p = axis_pos(s, i), from;
        if (!bwd) {
            /* dst(u + v*C/G) = src(u*G + v) */
            from = p % rows * s->group + p / rows;
        } else {
            /* diff_src(u*G + v) = diff_dst(u + v*C/G) */
            from = p / s->group + p % s->group * rows;
        }
        float want = x[with_axis(s, i, from)];
        if (memcmp(&y[i], &want, sizeof want) != 0) {
            fprintf(stderr, "FAIL %s: element %ld (axis position %ld): got %.9g, want %.9g\n", what,
                    (long)i, (long)p, y[i], want);
            bad++;
        }
    }
    if (bad) failures++;
    CHECK(dnnl_memory_destroy(in));
    CHECK(dnnl_memory_destroy(out));
    if (bwd) CHECK(dnnl_primitive_desc_destroy(pd));
    if (fpd) CHECK(dnnl_primitive_desc_destroy(fpd));
    CHECK(dnnl_memory_desc_destroy(data));
    CHECK(dnnl_memory_desc_destroy(amd));
    free(x);
    free(y);
}

int main(int argc, char **argv) {
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    const char *where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    int on_gpu = strcmp(where, "cpu") != 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    const int nshapes = (int)(sizeof shapes / sizeof *shapes);
    for (int si = 0; si < nshapes; si++) {
        run_case(&shapes[si], dnnl_f32, 0, dnnl_forward_training, 0, 0);
        run_case(&shapes[si], dnnl_f32, 1, dnnl_forward_training, 0, si % 2);
    }
    run_case(&shapes[9], dnnl_f32, 0, dnnl_forward_inference, 1, 0);
    run_case(&shapes[14], dnnl_f32, 0, dnnl_forward_training, 1, 0);
    run_case(&shapes[9], dnnl_f32, 1, dnnl_forward_training, 1, 1);
    run_case(&shapes[14], dnnl_f32, 1, dnnl_forward_training, 1, 0);
    const dnnl_data_type_t types[] = {dnnl_bf16, dnnl_f16, dnnl_s8, dnnl_u8, dnnl_s32};
    const int typed[] = {5, 9, 17, 19};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        for (size_t j = 0; j < sizeof typed / sizeof *typed; j++)
            for (int bwd = 0; bwd < 2; bwd++)
                run_case(&shapes[typed[j]], types[k], bwd, dnnl_forward_training, 0, 0);
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("shuffle_sweep on %s: %d primitives run, %d noted (unimplemented by this library), "
           "%d failures\n",
            where, n_run, n_noted, failures);
    return failures ? 1 : 0;
}
