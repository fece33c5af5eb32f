/* Matmul with every descriptor given as format `any`: the strides the primitive
 * descriptor resolves them to, for shapes with dimensions of 1 (M, K or N of 1, a
 * batch of 1, broadcast batches) and batch dimensions, f32 and bf16.
 *
 * src, dst and bias must come back exactly as Intel's library gives them (row-major,
 * a dimension of 1 getting the stride of the dimensions inside it). Its weights are
 * its implementation's own choice (blocked, or K innermost, depending on the CPU's
 * instructions): against it only their dimensions and type are checked; ours gives
 * row-major weights, checked exactly.
 *
 * Usage: matmul_any [cpu|gpu]. With gpu, the test skips (77) when the library sees
 * no OpenCL device. */
#include <stdio.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "check.h"

static dnnl_engine_t engine;
static int on_gpu;

static dnnl_memory_desc_t md_any(int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, nd, dims, dt, dnnl_format_tag_any));
    return md;
}

typedef struct {
    int nd;
    dnnl_dim_t src[4], wei[4], bias[4]; /* bias[0] == 0: no bias */
    dnnl_dim_t src_st[4], wei_st[4], bias_st[4], dst_st[4];
} case_t;

static const case_t cases[] = {
        {2, {1, 3}, {3, 5}, {0}, {3, 1}, {5, 1}, {0}, {5, 1}},
        {2, {4, 1}, {1, 5}, {0}, {1, 1}, {5, 1}, {0}, {5, 1}},
        {2, {4, 3}, {3, 1}, {0}, {3, 1}, {1, 1}, {0}, {1, 1}},
        {2, {1, 1}, {1, 1}, {0}, {1, 1}, {1, 1}, {0}, {1, 1}},
        {2, {1, 3}, {3, 1}, {1, 1}, {3, 1}, {1, 1}, {1, 1}, {1, 1}},
        {2, {4, 3}, {3, 5}, {4, 5}, {3, 1}, {5, 1}, {5, 1}, {5, 1}},
        {3, {2, 4, 3}, {2, 3, 5}, {1, 1, 5}, {12, 3, 1}, {15, 5, 1}, {5, 5, 1}, {20, 5, 1}},
        {3, {2, 4, 3}, {1, 3, 5}, {0}, {12, 3, 1}, {15, 5, 1}, {0}, {20, 5, 1}},
        {3, {1, 4, 3}, {2, 3, 5}, {0}, {12, 3, 1}, {15, 5, 1}, {0}, {20, 5, 1}},
        {3, {2, 1, 3}, {2, 3, 1}, {0}, {3, 3, 1}, {3, 1, 1}, {0}, {1, 1, 1}},
        {3, {2, 4, 1}, {2, 1, 5}, {0}, {4, 1, 1}, {5, 5, 1}, {0}, {20, 5, 1}},
        {4, {2, 1, 4, 5}, {1, 3, 5, 6}, {0}, {20, 20, 5, 1}, {90, 30, 6, 1}, {0},
                {72, 24, 6, 1}},
        {4, {1, 1, 1, 5}, {1, 1, 5, 1}, {0}, {5, 5, 5, 1}, {5, 5, 1, 1}, {0}, {1, 1, 1, 1}},
};

/* Whether md is a plain (no inner blocks) descriptor of `dims`, type dt and, where
 * `strides` is given, those strides; says what differs. */
static int check_md(const_dnnl_memory_desc_t md, int nd, const dnnl_dim_t *dims,
        dnnl_data_type_t dt, const dnnl_dim_t *strides, const char *what) {
    int got_nd = -1, nblks = -1;
    dnnl_data_type_t got_dt = dnnl_data_type_undef;
    const dnnl_dims_t *got_dims = NULL, *got_st = NULL;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &got_nd));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_data_type, &got_dt));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_dims, &got_dims));
    int ok = got_nd == nd && got_dt == dt;
    for (int i = 0; ok && i < nd; i++)
        ok = (*got_dims)[i] == dims[i];
    if (ok && strides) {
        dnnl_format_kind_t fk = dnnl_format_kind_undef;
        CHECK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk));
        ok = fk == dnnl_blocked;
        if (ok) {
            CHECK(dnnl_memory_desc_query(md, dnnl_query_strides, &got_st));
            CHECK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
            ok = nblks == 0;
        }
        for (int i = 0; ok && i < nd; i++)
            ok = (*got_st)[i] == strides[i];
    }
    if (!ok) {
        fprintf(stderr, "%s: got ndims %d dt %d", what, got_nd, (int)got_dt);
        for (int i = 0; got_st && i < got_nd && i < DNNL_MAX_NDIMS; i++)
            fprintf(stderr, "%s%lld", i ? "," : " strides ", (long long)(*got_st)[i]);
        fprintf(stderr, " (inner blocks %d)\n", nblks);
    }
    return ok;
}

static int run_case(const case_t *c, dnnl_data_type_t dt, const char *name) {
    int nd = c->nd;
    dnnl_dims_t dst;
    for (int i = 0; i < nd - 2; i++)
        dst[i] = c->src[i] > c->wei[i] ? c->src[i] : c->wei[i];
    dst[nd - 2] = c->src[nd - 2];
    dst[nd - 1] = c->wei[nd - 1];
    int with_bias = c->bias[0] != 0;
    dnnl_memory_desc_t s = md_any(nd, c->src, dt);
    dnnl_memory_desc_t w = md_any(nd, c->wei, dt);
    dnnl_memory_desc_t d = md_any(nd, dst, dt);
    dnnl_memory_desc_t b = with_bias ? md_any(nd, c->bias, dnnl_f32) : NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, engine, s, w, b, d, NULL);
    int ok = 1;
    if (!reference_lacks(st, name)) {
        CHECK(st);
        char what[96];
        snprintf(what, sizeof what, "%s src", name);
        ok &= check_md(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), nd, c->src, dt,
                c->src_st, what);
        snprintf(what, sizeof what, "%s weights", name);
        ok &= check_md(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), nd, c->wei, dt,
                library_is_ours() ? c->wei_st : NULL, what);
        snprintf(what, sizeof what, "%s dst", name);
        ok &= check_md(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), nd, dst, dt,
                c->dst_st, what);
        if (with_bias) {
            snprintf(what, sizeof what, "%s bias", name);
            ok &= check_md(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), nd,
                    c->bias, dnnl_f32, c->bias_st, what);
        }
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    CHECK(dnnl_memory_desc_destroy(s));
    CHECK(dnnl_memory_desc_destroy(w));
    CHECK(dnnl_memory_desc_destroy(d));
    if (b) CHECK(dnnl_memory_desc_destroy(b));
    return ok;
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_bf16};
    int bad = 0;
    for (size_t t = 0; t < sizeof dts / sizeof *dts; t++)
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            char name[64];
            snprintf(name, sizeof name, "case %zu (%s)", i, dnnl_dt2str(dts[t]));
            bad += !run_case(&cases[i], dts[t], name);
        }
    CHECK(dnnl_engine_destroy(engine));
    if (bad) {
        fprintf(stderr, "%d cases resolved other strides\n", bad);
        return 1;
    }
    printf("matmul_any: all cases passed\n");
    return 0;
}
