/* Seeded random call sequences over real objects.
 *
 * Each item is a sequence of FUZZ_CALLS_PER_SEQ random operations (default 400)
 * over a pool of live and destroyed handles: engines, streams, memory
 * descriptors (own ones, and ones borrowed from primitive descriptors and
 * memories), memories (library-allocated, and user buffers with canary bytes
 * on each side), attributes, post-ops, primitive descriptors and primitives,
 * on the CPU engine and, with argument `gpu`, on an OpenCL engine too. The
 * operations: descriptors with random dims (0, negative, 2^40, 2^62,
 * INT64_MAX, DNNL_RUNTIME_DIM_VAL), data types, format tags, strides, blobs,
 * submemories, reshapes and permutations, including values outside every enum;
 * memories, mapping, data handles; attributes and post-ops with random
 * settings; primitive descriptors of every implemented kind (eltwise fwd/bwd,
 * binary, softmax fwd/bwd, reorder within and between engines, sum, concat,
 * matmul, inner product fwd/bwd data/bwd weights), either from random pool
 * objects or from a generated valid configuration; primitives and their cache
 * blobs; executions with the right arguments or with wrong ones (too small,
 * wrong type, wrong engine, destroyed, missing, extra, wrong stream); destroys,
 * including double destroys and destroys of NULL. Every call is checked:
 *  - it returns (a crash is caught by the parent, see fuzz.h) with a valid
 *    dnnl_status_t, and no Rust panic is seen on stderr;
 *  - a call given a handle the caller destroyed returns dnnl_invalid_arguments;
 *  - destroying a live handle succeeds;
 *  - after every execution and stream wait, the canary bytes around every user
 *    buffer are intact (no write outside the caller's buffers);
 *  - an execution with the right arguments that succeeds writes every element
 *    of its outputs, the same values whatever the outputs held before (run
 *    twice, over outputs filled with different bytes, and compared);
 *  - an execution that succeeds was given, for each argument of the primitive,
 *    a live memory at least as large as the primitive's descriptor of it.
 *
 * Usage: fuzz_calls [cpu|gpu]. gpu skips (77) without an OpenCL device.
 * Environment: FUZZ_SEED, FUZZ_SEQUENCES (default 300 on cpu, 8 on gpu),
 * FUZZ_FIRST, FUZZ_CALLS_PER_SEQ, FUZZ_TRACE, FUZZ_XFAIL_STALE,
 * FUZZ_XFAIL_CONCAT_PANIC (README.md). */
#include "fuzz.h"

#include <math.h>
#include <stddef.h>

/* Expected failures (README.md): none today. Issue 18's destroyed handles
 * still accepted while another object held their object, and the panic of a
 * concat of some 1-D sources, were expected failures here until their fixes
 * were merged; FUZZ_XFAIL_STALE=1 and FUZZ_XFAIL_CONCAT_PANIC=1 would make
 * them so again. */
#define XFAIL_STALE_DEFAULT 0
#define XFAIL_CONCAT_PANIC_DEFAULT 0

enum {
    X_PD_OK, X_EXEC_OK, X_EXEC_CHECKED, X_DEAD_USES, X_STALE, X_RUNTIME_ERR, X_ORPHAN_OK, X_SKIPPED
};

static rng_t R;
static int on_gpu, xfail_stale;
/* FUZZ_SELFTEST (README.md): 1 writes a canary byte after an execution, 2
 * changes an output between the two runs, 3 crashes at call 100 -- each must
 * make the run fail, which shows that the checks can fail. */
static int selftest;
static uint64_t calls_per_seq;

/* ---- the pool ---------------------------------------------------------------- */

enum { EMPTY, LIVE, DEAD };

#define N_ENG 4
#define N_STREAM 6
#define N_MD 32
#define N_MEM 16
#define N_ATTR 6
#define N_PO 6
#define N_PD 12
#define N_PRIM 12

typedef enum {
    K_ELTWISE, K_ELTWISE_BWD, K_BINARY, K_SOFTMAX, K_SOFTMAX_BWD, K_REORDER, K_SUM, K_CONCAT,
    K_MATMUL, K_IP, K_IP_BWD_DATA, K_IP_BWD_WEIGHTS, K_COUNT
} kind_t;
static const char *kind_name[K_COUNT] = {"eltwise", "eltwise_bwd", "binary", "softmax",
        "softmax_bwd", "reorder", "sum", "concat", "matmul", "inner_product", "ip_bwd_data",
        "ip_bwd_weights"};

/* What the fuzzer set on an attribute (scales and zero points cannot be read back). */
typedef struct {
    int nscale, nzp;
    int scale_arg[8], scale_mask[8], zp_arg[8], zp_mask[8];
} quant_t;

typedef struct { dnnl_engine_t h; int st, gpu, base; } eng_slot_t;
typedef struct { dnnl_stream_t h; int st, eng; } stream_slot_t;
/* owner: -1 for the caller's own descriptors; else borrowed from pd (owner_pd)
 * or memory (owner_mem); `orphan` once that owner was destroyed. */
typedef struct { dnnl_memory_desc_t h; int st, owner_pd, owner_mem, orphan; } md_slot_t;
typedef struct { dnnl_memory_t h; int st, eng; unsigned char *buf; } mem_slot_t;
typedef struct { dnnl_primitive_attr_t h; int st; quant_t q; } attr_slot_t;
typedef struct { dnnl_post_ops_t h; int st; } po_slot_t;
typedef struct { dnnl_primitive_desc_t h; int st, kind, eng, eng2; quant_t q; } pd_slot_t;
typedef struct { dnnl_primitive_t h; int st, kind, eng, eng2; quant_t q; } prim_slot_t;

static eng_slot_t eng[N_ENG];
static stream_slot_t strm[N_STREAM];
static md_slot_t mds[N_MD];
static mem_slot_t mems[N_MEM];
static attr_slot_t attrs[N_ATTR];
static po_slot_t pos[N_PO];
static pd_slot_t pds[N_PD];
static prim_slot_t prims[N_PRIM];
/* Streams on the base engines, made once per child (never destroyed by the fuzz). */
static dnnl_stream_t base_stream[N_ENG];

#define STATE_OF(pool, i) ((i) < 0 ? EMPTY : (pool)[i].st)
#define HANDLE_OF(pool, i) ((i) < 0 ? NULL : (pool)[i].h)

/* A slot index of a pool: mostly a live one, sometimes a destroyed one, and -1
 * (NULL) now and then. -1 too when the pool is empty. */
static int pick_(const char *base, size_t stride, size_t st_off, int n, int pct_live) {
    int live[64], used[64], nl = 0, nu = 0;
    if (rng_pct(&R, 3)) return -1;
    for (int i = 0; i < n; i++) {
        int st = *(const int *)(base + (size_t)i * stride + st_off);
        if (st == LIVE) live[nl++] = i;
        if (st != EMPTY) used[nu++] = i;
    }
    if (nl && (nu == nl || rng_pct(&R, (unsigned)pct_live))) return live[rng_below(&R, (uint64_t)nl)];
    if (nu) return used[rng_below(&R, (uint64_t)nu)];
    return -1;
}
#define PICK(pool, pct) \
    pick_((const char *)(pool), sizeof((pool)[0]), offsetof(__typeof__((pool)[0]), st), \
            (int)(sizeof(pool) / sizeof((pool)[0])), (pct))

/* A slot for a new object: an empty or destroyed one, or -1 when all are live. */
static int free_slot_(const char *base, size_t stride, size_t st_off, int n) {
    int cand[64], nc = 0;
    for (int i = 0; i < n; i++)
        if (*(const int *)(base + (size_t)i * stride + st_off) != LIVE) cand[nc++] = i;
    return nc ? cand[rng_below(&R, (uint64_t)nc)] : -1;
}
#define FREE_SLOT(pool) \
    free_slot_((const char *)(pool), sizeof((pool)[0]), offsetof(__typeof__((pool)[0]), st), \
            (int)(sizeof(pool) / sizeof((pool)[0])))

static const char *st_name(int st) {
    return st == LIVE ? "" : st == DEAD ? "(destroyed)" : "(NULL)";
}

/* ---- checking statuses --------------------------------------------------------- */

/* Destroyed handles passed to one call. */
typedef struct {
    int dead;   /* the caller destroyed one of them */
    int orphan; /* borrowed from an object the caller destroyed */
} uses_t;

static void use_md(uses_t *u, int i) {
    if (i < 0 || mds[i].st == LIVE) return;
    if (mds[i].orphan)
        u->orphan = 1;
    else if (mds[i].st == DEAD)
        u->dead = 1;
}
#define USE(u, pool, i) \
    do { \
        if (STATE_OF(pool, i) == DEAD) (u)->dead = 1; \
    } while (0)

static void check(dnnl_status_t s, const uses_t *u, const char *what) {
    fuzz_result(s);
    fuzz_check_panic();
    if ((int)s < (int)dnnl_success || (int)s > (int)dnnl_invalid_data_type)
        fuzz_wrong("%s returned %d, which is not a dnnl_status_t", what, (int)s);
    if (s == dnnl_runtime_error) {
        if (FUZZ_ADD(fz->extra[X_RUNTIME_ERR], 1) < 5)
            printf("note: %s returned runtime_error (seed=0x%" PRIx64 " item %" PRIu64 " call #%" PRIu64 ")\n",
                    what, fz->seed, fz->item, fz->step - 1);
    }
    if (!u) return;
    if (u->dead) FUZZ_ADD(fz->extra[X_DEAD_USES], 1);
    if (u->dead && s != dnnl_invalid_arguments) {
        FUZZ_ADD(fz->extra[X_STALE], 1);
        if (xfail_stale)
            fuzz_xfail("%s was given a destroyed handle and returned %s, not invalid_arguments "
                       "(open problem, issue 18: a destroyed handle is still accepted while "
                       "another object holds its object)",
                    what, check_status_str(s));
        else
            fuzz_wrong("%s was given a destroyed handle and returned %s, not invalid_arguments",
                    what, check_status_str(s));
    }
    if (u->orphan && s == dnnl_success) FUZZ_ADD(fz->extra[X_ORPHAN_OK], 1);
}

/* ---- user buffers with canaries ------------------------------------------------- */

#define CANARY 64
typedef struct buf {
    unsigned char *base;
    size_t size;
    struct buf *next;
} buf_t;
static buf_t *bufs;

static unsigned char canary_byte(size_t i) {
    return (unsigned char)(0xA5 ^ (i * 29));
}

/* A zeroed buffer of `size` bytes between two canary areas; freed at the end of
 * the sequence (never earlier: a library that wrongly kept it must not write
 * into freed memory). */
static unsigned char *new_buf(size_t size) {
    buf_t *b = malloc(sizeof *b);
    EXPECT(b);
    b->base = malloc(size + 2 * CANARY);
    if (!b->base) {
        free(b);
        return NULL;
    }
    b->size = size;
    for (size_t i = 0; i < CANARY; i++) {
        b->base[i] = canary_byte(i);
        b->base[CANARY + size + i] = canary_byte(i + 1);
    }
    memset(b->base + CANARY, 0, size);
    b->next = bufs;
    bufs = b;
    return b->base + CANARY;
}

static void check_canaries(const char *after) {
    for (buf_t *b = bufs; b; b = b->next) {
        int bad = 0;
        for (size_t i = 0; i < CANARY; i++) {
            if (b->base[i] != canary_byte(i)) bad |= 1;
            if (b->base[CANARY + b->size + i] != canary_byte(i + 1)) bad |= 2;
        }
        if (!bad) continue;
        fuzz_wrong("%s wrote outside a user buffer of %zu bytes (%s)", after, b->size,
                bad == 1 ? "before it" : bad == 2 ? "after it" : "before and after it");
        for (size_t i = 0; i < CANARY; i++) {
            b->base[i] = canary_byte(i);
            b->base[CANARY + b->size + i] = canary_byte(i + 1);
        }
    }
}

static void free_bufs(void) {
    while (bufs) {
        buf_t *b = bufs;
        bufs = b->next;
        free(b->base);
        free(b);
    }
}

/* ---- random values --------------------------------------------------------------- */

static dnnl_dim_t rand_dim(void) {
    switch (rng_below(&R, 24)) {
        case 0: return 0;
        case 1: return -rng_int(&R, 1, 3);
        case 2: return (dnnl_dim_t)1 << 40;
        case 3: return (dnnl_dim_t)1 << 62;
        case 4: return DNNL_RUNTIME_DIM_VAL;
        case 5: return INT64_MAX;
        case 6: return ((dnnl_dim_t)1 << rng_int(&R, 10, 31)) + rng_int(&R, -1, 1);
        case 7: return rng_int(&R, 10, 70);
        default: return rng_int(&R, 1, 8);
    }
}

static int rand_ndims(void) {
    static const int odd[] = {-1, 0, 13, 64, INT32_MAX, INT32_MIN};
    if (rng_pct(&R, 6)) return RNG_PICK(&R, odd);
    return rng_int(&R, 1, rng_pct(&R, 80) ? 5 : 12);
}

static const dnnl_data_type_t good_dts[] = {dnnl_f32, dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16,
        dnnl_s8, dnnl_u8, dnnl_s32};

static dnnl_data_type_t rand_dt(void) {
    static const int odd[] = {dnnl_data_type_undef, dnnl_f64, dnnl_boolean, dnnl_f8_e5m2,
            dnnl_f8_e4m3, dnnl_s4, dnnl_u4, dnnl_e8m0, dnnl_f4_e2m1, dnnl_f4_e3m0, dnnl_s64, 17, 99,
            -1, dnnl_data_type_max};
    if (rng_pct(&R, 15)) return (dnnl_data_type_t)RNG_PICK(&R, odd);
    return RNG_PICK(&R, good_dts);
}

static const dnnl_format_tag_t tags_by_nd[6][8] = {
        {dnnl_a},
        {dnnl_a},
        {dnnl_ab, dnnl_ba, dnnl_AB16b16a, dnnl_BA16a16b, dnnl_AB8a4b},
        {dnnl_abc, dnnl_acb, dnnl_bac, dnnl_cba, dnnl_aBc16b, dnnl_aBc8b, dnnl_ABc4a4b},
        {dnnl_abcd, dnnl_acdb, dnnl_bacd, dnnl_aBcd8b, dnnl_aBcd16b, dnnl_ABcd16b16a,
                dnnl_ABcd4b16a4b, dnnl_Abcd16a},
        {dnnl_abcde, dnnl_acdeb, dnnl_aBcde16b},
};
static const int ntags_by_nd[6] = {1, 1, 5, 7, 8, 3};

static dnnl_format_tag_t rand_tag(int ndims) {
    if (rng_pct(&R, 10)) return (dnnl_format_tag_t)rng_int(&R, -2, (int)dnnl_format_tag_last + 2);
    if (rng_pct(&R, 5)) return dnnl_format_tag_any;
    if (ndims >= 1 && ndims <= 5) return tags_by_nd[ndims][rng_below(&R, (uint64_t)ntags_by_nd[ndims])];
    return (dnnl_format_tag_t)rng_int(&R, 0, (int)dnnl_format_tag_last);
}

static const dnnl_alg_kind_t eltwise_algs[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh,
        dnnl_eltwise_elu, dnnl_eltwise_square, dnnl_eltwise_abs, dnnl_eltwise_sqrt,
        dnnl_eltwise_linear, dnnl_eltwise_soft_relu, dnnl_eltwise_hardsigmoid,
        dnnl_eltwise_logistic, dnnl_eltwise_exp, dnnl_eltwise_gelu_tanh, dnnl_eltwise_swish,
        dnnl_eltwise_log, dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_pow,
        dnnl_eltwise_gelu_erf, dnnl_eltwise_round, dnnl_eltwise_mish, dnnl_eltwise_hardswish};
static const dnnl_alg_kind_t eltwise_dst_algs[] = {dnnl_eltwise_relu_use_dst_for_bwd,
        dnnl_eltwise_tanh_use_dst_for_bwd, dnnl_eltwise_elu_use_dst_for_bwd,
        dnnl_eltwise_sqrt_use_dst_for_bwd, dnnl_eltwise_logistic_use_dst_for_bwd,
        dnnl_eltwise_exp_use_dst_for_bwd, dnnl_eltwise_clip_v2_use_dst_for_bwd};
static const dnnl_alg_kind_t binary_algs[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
        dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt,
        dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};

static dnnl_alg_kind_t rand_alg(const dnnl_alg_kind_t *algs, size_t n) {
    if (rng_pct(&R, 8)) {
        static const int odd[] = {0, 1, -1, 0x7fff, dnnl_binary_add, dnnl_eltwise_relu,
                dnnl_softmax_accurate, dnnl_softmax_log, dnnl_binary_select};
        return (dnnl_alg_kind_t)RNG_PICK(&R, odd);
    }
    return algs[rng_below(&R, n)];
}

static float rand_float(void) {
    static const float odd[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e30f, -1e30f, 1e-30f};
    if (rng_pct(&R, 10)) {
        if (rng_pct(&R, 30)) return NAN;
        if (rng_pct(&R, 30)) return INFINITY;
        return RNG_PICK(&R, odd);
    }
    return (float)rng_int(&R, -8, 8) * 0.25f;
}

static int rand_arg(void) {
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_DST,
            DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_DST,
            DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_SCRATCHPAD, DNNL_ARG_WORKSPACE,
            DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1, DNNL_ARG_MULTIPLE_SRC + 3,
            DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
            DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1,
            DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST,
            DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, 0, -1, 0x7fffffff, 4095};
    return RNG_PICK(&R, args);
}

static int rand_mask(void) {
    static const int masks[] = {0, 0, 0, 1, 2, 3, 4, 8, 1 << 11, -1, 1 << 12};
    return RNG_PICK(&R, masks);
}

static void fmt_dims(char *out, size_t n, int ndims, const dnnl_dim_t *dims) {
    int k = snprintf(out, n, "{");
    for (int i = 0; i < ndims && i < 12 && (size_t)k < n; i++)
        k += snprintf(out + k, n - (size_t)k, "%s%" PRId64, i ? "," : "", dims[i]);
    if ((size_t)k < n) snprintf(out + k, n - (size_t)k, "%s}", ndims > 12 ? ",..." : "");
}

/* ---- layouts: where a logical element lives ------------------------------- */


/* 0 when the descriptor is not a plain or blocked one this can walk. */
static int layout_of(const_dnnl_memory_desc_t md, layout_t *l) {
    memset(l, 0, sizeof *l);
    const dnnl_dims_t *p = NULL;
    dnnl_format_kind_t fk = dnnl_format_kind_undef;
    if (dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk) || fk != dnnl_blocked) return 0;
    if (dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &l->ndims)) return 0;
    if (dnnl_memory_desc_query(md, dnnl_query_data_type, &l->dt)) return 0;
    l->esize = dnnl_data_type_size(l->dt);
    if (l->esize == 0 || l->esize > 8 || l->dt == dnnl_s4 || l->dt == dnnl_u4
            || l->dt == dnnl_f4_e2m1 || l->dt == dnnl_f4_e3m0)
        return 0;
    if (dnnl_memory_desc_query(md, dnnl_query_dims, &p)) return 0;
    memcpy(l->dims, *p, sizeof l->dims);
    if (dnnl_memory_desc_query(md, dnnl_query_padded_offsets, &p)) return 0;
    memcpy(l->padded_offsets, *p, sizeof l->dims);
    if (dnnl_memory_desc_query(md, dnnl_query_strides, &p)) return 0;
    memcpy(l->strides, *p, sizeof l->dims);
    if (dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &l->nblks)) return 0;
    if (dnnl_memory_desc_query(md, dnnl_query_inner_blks, &p)) return 0;
    memcpy(l->blks, *p, sizeof l->dims);
    if (dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &p)) return 0;
    memcpy(l->idxs, *p, sizeof l->dims);
    if (dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &l->offset0)) return 0;
    l->nelems = 1;
    for (int d = 0; d < l->ndims; d++) {
        if (l->dims[d] < 0) return 0;
        l->nelems *= l->dims[d];
    }
    return 1;
}

/* ---- the base engines ------------------------------------------------------- */

static void make_base_engines(void) {
    memset(eng, 0, sizeof eng);
    CHECK(dnnl_engine_create(&eng[0].h, dnnl_cpu, 0));
    eng[0].st = LIVE;
    eng[0].base = 1;
    CHECK(dnnl_stream_create(&base_stream[0], eng[0].h, dnnl_stream_default_flags));
    if (on_gpu) {
        CHECK(dnnl_engine_create(&eng[1].h, dnnl_gpu, 0));
        eng[1].st = LIVE;
        eng[1].base = eng[1].gpu = 1;
        CHECK(dnnl_stream_create(&base_stream[1], eng[1].h, dnnl_stream_default_flags));
    }
}

/* ---- operations: engines and streams ----------------------------------------- */

static void op_engine_create(void) {
    int i = -1;
    for (int k = 0; k < N_ENG; k++)
        if (!eng[k].base && eng[k].st != LIVE) i = k;
    if (i < 0) return;
    static const int kinds_cpu[] = {dnnl_cpu, dnnl_cpu, dnnl_cpu, dnnl_any_engine, 3, -1};
    static const int kinds_gpu[] = {dnnl_cpu, dnnl_gpu, dnnl_gpu, dnnl_any_engine, 3, -1};
    int kind = on_gpu ? RNG_PICK(&R, kinds_gpu) : RNG_PICK(&R, kinds_cpu);
    static const size_t idx[] = {0, 0, 0, 1, 2, (size_t)-1, (size_t)1 << 40};
    size_t index = RNG_PICK(&R, idx);
    dnnl_engine_t e = NULL;
    fuzz_call("dnnl_engine_create(eng[%d], kind %d, index %zu)", i, kind, index);
    dnnl_status_t s = dnnl_engine_create(&e, (dnnl_engine_kind_t)kind, index);
    check(s, NULL, "dnnl_engine_create");
    if (s == dnnl_success) {
        eng[i].h = e;
        eng[i].st = LIVE;
        eng[i].gpu = kind == dnnl_gpu;
        eng[i].base = 0;
    }
}

static void op_engine_destroy(void) {
    int i = PICK(eng, 60);
    if (i >= 0 && eng[i].base) return;
    uses_t u = {0, 0};
    USE(&u, eng, i);
    fuzz_call("dnnl_engine_destroy(eng[%d]%s)", i, st_name(STATE_OF(eng, i)));
    dnnl_status_t s = dnnl_engine_destroy(HANDLE_OF(eng, i));
    check(s, &u, "dnnl_engine_destroy");
    if (i >= 0 && eng[i].st == LIVE) {
        if (s != dnnl_success) fuzz_wrong("destroying a live engine returned %s", check_status_str(s));
        eng[i].st = DEAD;
    }
}

static void op_engine_query(void) {
    int i = PICK(eng, 80);
    uses_t u = {0, 0};
    USE(&u, eng, i);
    dnnl_engine_kind_t kind;
    fuzz_call("dnnl_engine_get_kind(eng[%d]%s)", i, st_name(STATE_OF(eng, i)));
    check(dnnl_engine_get_kind(HANDLE_OF(eng, i), rng_pct(&R, 3) ? NULL : &kind), &u,
            "dnnl_engine_get_kind");
}

static void op_stream_create(void) {
    int i = FREE_SLOT(strm), e = PICK(eng, 85);
    if (i < 0) return;
    static const int flags[] = {dnnl_stream_default_flags, dnnl_stream_in_order,
            dnnl_stream_out_of_order, 4, dnnl_stream_in_order | 4, 0, 8,
            dnnl_stream_flags_max, -1};
    int f = RNG_PICK(&R, flags);
    uses_t u = {0, 0};
    USE(&u, eng, e);
    dnnl_stream_t s_ = NULL;
    fuzz_call("dnnl_stream_create(strm[%d], eng[%d]%s, flags %d)", i, e, st_name(STATE_OF(eng, e)), f);
    dnnl_status_t s = dnnl_stream_create(&s_, HANDLE_OF(eng, e), (unsigned)f);
    check(s, &u, "dnnl_stream_create");
    if (s == dnnl_success) {
        strm[i].h = s_;
        strm[i].st = LIVE;
        strm[i].eng = e;
    }
}

static void op_stream_destroy(void) {
    int i = PICK(strm, 60);
    uses_t u = {0, 0};
    USE(&u, strm, i);
    fuzz_call("dnnl_stream_destroy(strm[%d]%s)", i, st_name(STATE_OF(strm, i)));
    dnnl_status_t s = dnnl_stream_destroy(HANDLE_OF(strm, i));
    check(s, &u, "dnnl_stream_destroy");
    if (i >= 0 && strm[i].st == LIVE) {
        if (s != dnnl_success) fuzz_wrong("destroying a live stream returned %s", check_status_str(s));
        strm[i].st = DEAD;
    }
}

static void op_stream_use(void) {
    int i = PICK(strm, 85);
    uses_t u = {0, 0};
    USE(&u, strm, i);
    if (rng_pct(&R, 50)) {
        fuzz_call("dnnl_stream_wait(strm[%d]%s)", i, st_name(STATE_OF(strm, i)));
        check(dnnl_stream_wait(HANDLE_OF(strm, i)), &u, "dnnl_stream_wait");
    } else {
        dnnl_engine_t e = NULL;
        fuzz_call("dnnl_stream_get_engine(strm[%d]%s)", i, st_name(STATE_OF(strm, i)));
        check(dnnl_stream_get_engine(HANDLE_OF(strm, i), &e), &u, "dnnl_stream_get_engine");
    }
}

/* ---- operations: memory descriptors ------------------------------------------- */

static void put_md(int slot, dnnl_memory_desc_t h, int owner_pd, int owner_mem) {
    mds[slot].h = h;
    mds[slot].st = LIVE;
    mds[slot].owner_pd = owner_pd;
    mds[slot].owner_mem = owner_mem;
    mds[slot].orphan = 0;
}

/* Marks the descriptors borrowed from pd `pd` (or memory `mem`) as orphans. */
static void orphan_mds(int pd, int mem) {
    for (int i = 0; i < N_MD; i++) {
        if (mds[i].st != LIVE) continue;
        if ((pd >= 0 && mds[i].owner_pd == pd) || (mem >= 0 && mds[i].owner_mem == mem)) {
            mds[i].st = DEAD;
            mds[i].orphan = 1;
        }
    }
}

static void op_md_create(void) {
    int i = FREE_SLOT(mds);
    if (i < 0) return;
    dnnl_dim_t dims[128], other[128];
    int nd = rand_ndims();
    for (int d = 0; d < 128; d++) {
        dims[d] = rand_dim();
        other[d] = rng_pct(&R, 70) ? rng_int(&R, 0, 4) : rand_dim();
    }
    char ds[200];
    fmt_dims(ds, sizeof ds, nd, dims);
    dnnl_memory_desc_t md = NULL;
    dnnl_status_t s;
    uses_t u = {0, 0};
    int src = PICK(mds, 85);
    const_dnnl_memory_desc_t in = HANDLE_OF(mds, src);
    switch (rng_below(&R, 10)) {
        case 0:
        case 1:
        case 2: {
            dnnl_data_type_t dt = rand_dt();
            dnnl_format_tag_t tag = rand_tag(nd);
            fuzz_call("dnnl_memory_desc_create_with_tag(md[%d], %d, %s, dt %d, tag %d)", i, nd, ds,
                    (int)dt, (int)tag);
            s = dnnl_memory_desc_create_with_tag(&md, nd, dims, dt, tag);
            check(s, NULL, "dnnl_memory_desc_create_with_tag");
            break;
        }
        case 3:
        case 4: {
            dnnl_data_type_t dt = rand_dt();
            int null_strides = rng_pct(&R, 20);
            char ss[200];
            fmt_dims(ss, sizeof ss, nd, other);
            fuzz_call("dnnl_memory_desc_create_with_strides(md[%d], %d, %s, dt %d, strides %s)", i,
                    nd, ds, (int)dt, null_strides ? "NULL" : ss);
            s = dnnl_memory_desc_create_with_strides(&md, nd, dims, dt, null_strides ? NULL : other);
            check(s, NULL, "dnnl_memory_desc_create_with_strides");
            break;
        }
        case 5: {
            use_md(&u, src);
            for (int d = 0; d < 12; d++) dims[d] = rng_pct(&R, 80) ? rng_int(&R, 0, 4) : rand_dim();
            fmt_dims(ds, sizeof ds, 12, dims);
            fuzz_call("dnnl_memory_desc_create_submemory(md[%d], md[%d]%s, %s, offsets)", i, src,
                    st_name(STATE_OF(mds, src)), ds);
            s = dnnl_memory_desc_create_submemory(&md, in, dims, other);
            check(s, &u, "dnnl_memory_desc_create_submemory");
            break;
        }
        case 6: {
            use_md(&u, src);
            for (int d = 0; d < 12; d++) dims[d] = rng_pct(&R, 80) ? rng_int(&R, 1, 8) : rand_dim();
            fmt_dims(ds, sizeof ds, nd, dims);
            fuzz_call("dnnl_memory_desc_reshape(md[%d], md[%d]%s, %d, %s)", i, src,
                    st_name(STATE_OF(mds, src)), nd, ds);
            s = dnnl_memory_desc_reshape(&md, in, nd, dims);
            check(s, &u, "dnnl_memory_desc_reshape");
            break;
        }
        case 7: {
            use_md(&u, src);
            int perm[128];
            for (int d = 0; d < 128; d++) perm[d] = d;
            for (int d = 11; d > 0; d--) {
                int j = rng_int(&R, 0, d), t = perm[d];
                perm[d] = perm[j];
                perm[j] = t;
            }
            if (rng_pct(&R, 20)) perm[rng_below(&R, 12)] = rng_int(&R, -2, 14);
            fuzz_call("dnnl_memory_desc_permute_axes(md[%d], md[%d]%s, {%d,%d,%d,...})", i, src,
                    st_name(STATE_OF(mds, src)), perm[0], perm[1], perm[2]);
            s = dnnl_memory_desc_permute_axes(&md, in, perm);
            check(s, &u, "dnnl_memory_desc_permute_axes");
            break;
        }
        case 8: {
            use_md(&u, src);
            fuzz_call("dnnl_memory_desc_clone(md[%d], md[%d]%s)", i, src, st_name(STATE_OF(mds, src)));
            s = dnnl_memory_desc_clone(&md, in);
            check(s, &u, "dnnl_memory_desc_clone");
            break;
        }
        default: {
            /* A blob: of a live descriptor, maybe with a byte changed, or random
             * bytes. The buffer is larger than any blob, so a length read from a
             * changed blob stays inside it. */
            static uint8_t blob[1 << 16];
            memset(blob, 0, sizeof blob);
            size_t size = 0;
            use_md(&u, src);
            fuzz_call("dnnl_memory_desc_get_blob(NULL, size, md[%d]%s)", src, st_name(STATE_OF(mds, src)));
            s = dnnl_memory_desc_get_blob(NULL, &size, in);
            check(s, &u, "dnnl_memory_desc_get_blob");
            if (s == dnnl_success && size > 0 && size <= sizeof blob) {
                fuzz_call("dnnl_memory_desc_get_blob(blob, %zu, md[%d])", size, src);
                s = dnnl_memory_desc_get_blob(blob, &size, in);
                check(s, &u, "dnnl_memory_desc_get_blob");
                if (size > 0 && size <= sizeof blob && rng_pct(&R, 60))
                    blob[rng_below(&R, size)] ^= (uint8_t)(1u << rng_below(&R, 8));
            } else {
                for (size_t k = 0; k < 256; k++) blob[k] = (uint8_t)rng_u64(&R);
            }
            fuzz_call("dnnl_memory_desc_create_with_blob(md[%d], blob)", i);
            s = dnnl_memory_desc_create_with_blob(&md, blob);
            check(s, NULL, "dnnl_memory_desc_create_with_blob");
            break;
        }
    }
    if (s == dnnl_success) put_md(i, md, -1, -1);
}

static void op_md_destroy(void) {
    int i = PICK(mds, 60);
    uses_t u = {0, 0};
    use_md(&u, i);
    int borrowed = i >= 0 && (mds[i].owner_pd >= 0 || mds[i].owner_mem >= 0);
    fuzz_call("dnnl_memory_desc_destroy(md[%d]%s%s)", i, st_name(STATE_OF(mds, i)),
            borrowed ? " borrowed" : "");
    dnnl_status_t s = dnnl_memory_desc_destroy(HANDLE_OF(mds, i));
    check(s, &u, "dnnl_memory_desc_destroy");
    if (i < 0 || mds[i].st != LIVE) return;
    if (borrowed) {
        /* The descriptor belongs to its primitive descriptor or memory: a caller
         * who destroys it gets a status, and the owner's stays usable. */
        if (s == dnnl_success) {
            fuzz_wrong("destroying a descriptor borrowed from a %s succeeded",
                    mds[i].owner_pd >= 0 ? "primitive descriptor" : "memory");
            mds[i].st = DEAD;
        }
        return;
    }
    if (s != dnnl_success) fuzz_wrong("destroying a live memory descriptor returned %s", check_status_str(s));
    mds[i].st = DEAD;
}

static void op_md_query(void) {
    int i = PICK(mds, 85);
    uses_t u = {0, 0};
    use_md(&u, i);
    static const int queries[] = {dnnl_query_ndims_s32, dnnl_query_dims, dnnl_query_data_type,
            dnnl_query_submemory_offset_s64, dnnl_query_padded_dims, dnnl_query_padded_offsets,
            dnnl_query_format_kind, dnnl_query_inner_nblks_s32, dnnl_query_inner_blks,
            dnnl_query_inner_idxs, dnnl_query_strides, dnnl_query_sparse_encoding,
            dnnl_query_nnz_s64, dnnl_query_num_handles_s32, 0, 1, 255, -1, 0x7fff};
    int q = RNG_PICK(&R, queries);
    uint64_t result[64];
    const_dnnl_memory_desc_t md = HANDLE_OF(mds, i);
    switch (rng_below(&R, 4)) {
        case 0:
            fuzz_call("dnnl_memory_desc_query(md[%d]%s, %d)", i, st_name(STATE_OF(mds, i)), q);
            check(dnnl_memory_desc_query(md, (dnnl_query_t)q, rng_pct(&R, 3) ? NULL : result), &u,
                    "dnnl_memory_desc_query");
            break;
        case 1: {
            int index = rng_int(&R, -1, 3);
            fuzz_call("dnnl_memory_desc_query_v2(md[%d]%s, %d, %d)", i, st_name(STATE_OF(mds, i)), q, index);
            check(dnnl_memory_desc_query_v2(md, (dnnl_query_t)q, index, result), &u,
                    "dnnl_memory_desc_query_v2");
            break;
        }
        case 2: {
            int j = PICK(mds, 85);
            fuzz_call("dnnl_memory_desc_equal(md[%d]%s, md[%d]%s)", i, st_name(STATE_OF(mds, i)), j,
                    st_name(STATE_OF(mds, j)));
            int eq = dnnl_memory_desc_equal(md, HANDLE_OF(mds, j));
            fuzz_check_panic();
            if (eq != 0 && eq != 1) fuzz_wrong("dnnl_memory_desc_equal returned %d", eq);
            break;
        }
        default: {
            int index = rng_int(&R, -1, 3);
            fuzz_call("dnnl_memory_desc_get_size_v2(md[%d]%s, %d)", i, st_name(STATE_OF(mds, i)), index);
            size_t sz = dnnl_memory_desc_get_size_v2(md, index);
            fuzz_check_panic();
            if (STATE_OF(mds, i) != LIVE && !(i >= 0 && mds[i].orphan) && sz != 0)
                fuzz_wrong("dnnl_memory_desc_get_size_v2 of a %s descriptor returned %zu",
                        i < 0 ? "NULL" : "destroyed", sz);
            break;
        }
    }
}

/* ---- operations: memories ------------------------------------------------------ */

static size_t md_size(const_dnnl_memory_desc_t md) {
    return md ? dnnl_memory_desc_get_size(md) : 0;
}

/* The bytes a caller gives a memory of `md` over its own buffer: the size,
 * plus the offset of a submemory (whose memory points into its parent's
 * buffer, upstream's contract: the size does not count the offset). */
static size_t user_size(const_dnnl_memory_desc_t md) {
    int64_t off = 0;
    dnnl_data_type_t dt = dnnl_f32;
    size_t size = md_size(md);
    if (md && dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &off) == dnnl_success
            && dnnl_memory_desc_query(md, dnnl_query_data_type, &dt) == dnnl_success && off > 0
            && off < ((int64_t)1 << 40)) {
        size_t es = dnnl_data_type_size(dt);
        size += (size_t)off * (es == 0 || es == (size_t)-1 ? 1 : es);
    }
    return size;
}

static void op_memory_create(void) {
    int i = FREE_SLOT(mems), m = PICK(mds, 85), e = PICK(eng, 85);
    if (i < 0) return;
    uses_t u = {0, 0};
    use_md(&u, m);
    USE(&u, eng, e);
    const_dnnl_memory_desc_t md = HANDLE_OF(mds, m);
    size_t size = STATE_OF(mds, m) == LIVE ? user_size(md) : 0;
    int cpu = e >= 0 && !eng[e].gpu;
    unsigned char *buf = NULL;
    void *handle;
    const char *hname;
    int how = (int)rng_below(&R, 10);
    if (how < 4 && cpu && size <= ((size_t)64 << 20) && STATE_OF(mds, m) == LIVE) {
        buf = new_buf(size);
        handle = buf ? (void *)buf : DNNL_MEMORY_ALLOCATE;
        hname = buf ? "user buffer" : "ALLOCATE";
    } else if (how < 6 || (!cpu && size > ((size_t)1 << 30) && size < ((size_t)1 << 40))) {
        /* (On OpenCL, a buffer the device accepts but the child's address
         * space cannot hold makes PoCL abort -- an assertion in
         * pocl_create_migration_commands -- instead of failing: no such sizes.) */
        handle = DNNL_MEMORY_NONE;
        hname = "NONE";
    } else {
        handle = DNNL_MEMORY_ALLOCATE;
        hname = "ALLOCATE";
    }
    dnnl_memory_t mem = NULL;
    dnnl_status_t s;
    if (rng_pct(&R, 20)) {
        static const int nh[] = {1, 1, 0, 2, -1};
        int n = RNG_PICK(&R, nh);
        void *handles[4] = {handle, handle, handle, handle};
        fuzz_call("dnnl_memory_create_v2(mem[%d], md[%d]%s size %zu, eng[%d]%s, %d, %s)", i, m,
                st_name(STATE_OF(mds, m)), size, e, st_name(STATE_OF(eng, e)), n, hname);
        s = dnnl_memory_create_v2(&mem, md, HANDLE_OF(eng, e), n, handles);
        check(s, &u, "dnnl_memory_create_v2");
    } else {
        fuzz_call("dnnl_memory_create(mem[%d], md[%d]%s size %zu, eng[%d]%s, %s)", i, m,
                st_name(STATE_OF(mds, m)), size, e, st_name(STATE_OF(eng, e)), hname);
        s = dnnl_memory_create(&mem, md, HANDLE_OF(eng, e), handle);
        check(s, &u, "dnnl_memory_create");
    }
    if (s == dnnl_success) {
        mems[i].h = mem;
        mems[i].st = LIVE;
        mems[i].eng = e;
        mems[i].buf = buf;
    }
}

static void op_memory_destroy(void) {
    int i = PICK(mems, 60);
    uses_t u = {0, 0};
    USE(&u, mems, i);
    fuzz_call("dnnl_memory_destroy(mem[%d]%s)", i, st_name(STATE_OF(mems, i)));
    dnnl_status_t s = dnnl_memory_destroy(HANDLE_OF(mems, i));
    check(s, &u, "dnnl_memory_destroy");
    if (i >= 0 && mems[i].st == LIVE) {
        if (s != dnnl_success) fuzz_wrong("destroying a live memory returned %s", check_status_str(s));
        mems[i].st = DEAD;
        orphan_mds(-1, i);
    }
}

static void op_memory_use(void) {
    int i = PICK(mems, 85);
    uses_t u = {0, 0};
    USE(&u, mems, i);
    dnnl_memory_t mem = HANDLE_OF(mems, i);
    const char *st = st_name(STATE_OF(mems, i));
    switch (rng_below(&R, 5)) {
        case 0: {
            void *p = NULL;
            fuzz_call("dnnl_memory_map_data(mem[%d]%s)", i, st);
            dnnl_status_t s = dnnl_memory_map_data(mem, &p);
            check(s, &u, "dnnl_memory_map_data");
            if (s != dnnl_success) break;
            const_dnnl_memory_desc_t md = NULL;
            size_t size = 0;
            if (dnnl_memory_get_memory_desc(mem, &md) == dnnl_success) size = md_size(md);
            if (p && size) {
                size_t n = size < 4096 ? size : 4096;
                memset(p, 0x3c, n);
                memset((unsigned char *)p + size - n, 0x3c, n);
            }
            if (rng_pct(&R, 20)) {
                fuzz_call("dnnl_memory_unmap_data(mem[%d], wrong pointer)", i);
                check(dnnl_memory_unmap_data(mem, (char *)p + 1), &u, "dnnl_memory_unmap_data");
            }
            fuzz_call("dnnl_memory_unmap_data(mem[%d])", i);
            check(dnnl_memory_unmap_data(mem, p), &u, "dnnl_memory_unmap_data");
            check_canaries("dnnl_memory_map_data/unmap_data");
            break;
        }
        case 1: {
            int j = FREE_SLOT(mds);
            const_dnnl_memory_desc_t md = NULL;
            fuzz_call("dnnl_memory_get_memory_desc(mem[%d]%s) -> md[%d]", i, st, j);
            dnnl_status_t s = dnnl_memory_get_memory_desc(mem, &md);
            check(s, &u, "dnnl_memory_get_memory_desc");
            if (s == dnnl_success && j >= 0 && i >= 0) put_md(j, (dnnl_memory_desc_t)md, -1, i);
            break;
        }
        case 2: {
            dnnl_engine_t e = NULL;
            fuzz_call("dnnl_memory_get_engine(mem[%d]%s)", i, st);
            check(dnnl_memory_get_engine(mem, &e), &u, "dnnl_memory_get_engine");
            void *h = NULL;
            fuzz_call("dnnl_memory_get_data_handle(mem[%d]%s)", i, st);
            check(dnnl_memory_get_data_handle(mem, &h), &u, "dnnl_memory_get_data_handle");
            break;
        }
        default: {
            /* A new data handle: a user buffer (CPU memories only), NULL, or NONE. */
            const_dnnl_memory_desc_t md = NULL;
            size_t size = 0;
            int cpu = i >= 0 && mems[i].eng >= 0 && !eng[mems[i].eng].gpu;
            if (STATE_OF(mems, i) == LIVE && dnnl_memory_get_memory_desc(mem, &md) == dnnl_success)
                size = user_size(md);
            void *h = NULL;
            const char *what = "NULL";
            if (cpu && rng_pct(&R, 70) && size <= ((size_t)64 << 20)) {
                h = new_buf(size);
                what = "user buffer";
            } else if (rng_pct(&R, 50)) {
                h = DNNL_MEMORY_NONE;
                what = "NONE";
            }
            fuzz_call("dnnl_memory_set_data_handle(mem[%d]%s, %s of %zu bytes)", i, st, what, size);
            check(dnnl_memory_set_data_handle(mem, h), &u, "dnnl_memory_set_data_handle");
            break;
        }
    }
}

/* ---- operations: attributes and post-ops --------------------------------------- */

static void op_attr(void) {
    int i = PICK(attrs, 85);
    uses_t u = {0, 0};
    USE(&u, attrs, i);
    dnnl_primitive_attr_t a = HANDLE_OF(attrs, i);
    const char *st = st_name(STATE_OF(attrs, i));
    dnnl_status_t s;
    switch (rng_below(&R, 11)) {
        case 0: {
            int j = FREE_SLOT(attrs);
            if (j < 0) break;
            dnnl_primitive_attr_t n = NULL;
            fuzz_call("dnnl_primitive_attr_create(attr[%d])", j);
            s = dnnl_primitive_attr_create(&n);
            check(s, NULL, "dnnl_primitive_attr_create");
            if (s == dnnl_success) {
                attrs[j].h = n;
                attrs[j].st = LIVE;
                memset(&attrs[j].q, 0, sizeof attrs[j].q);
            }
            break;
        }
        case 1: {
            int j = FREE_SLOT(attrs);
            if (j < 0) break;
            dnnl_primitive_attr_t n = NULL;
            fuzz_call("dnnl_primitive_attr_clone(attr[%d], attr[%d]%s)", j, i, st);
            s = dnnl_primitive_attr_clone(&n, a);
            check(s, &u, "dnnl_primitive_attr_clone");
            if (s == dnnl_success) {
                attrs[j].h = n;
                attrs[j].st = LIVE;
                attrs[j].q = attrs[i].q;
            }
            break;
        }
        case 2: {
            fuzz_call("dnnl_primitive_attr_destroy(attr[%d]%s)", i, st);
            s = dnnl_primitive_attr_destroy(a);
            check(s, &u, "dnnl_primitive_attr_destroy");
            if (i >= 0 && attrs[i].st == LIVE) {
                if (s != dnnl_success) fuzz_wrong("destroying a live attribute returned %s", check_status_str(s));
                attrs[i].st = DEAD;
            }
            break;
        }
        case 3: {
            int p = PICK(pos, 85);
            USE(&u, pos, p);
            fuzz_call("dnnl_primitive_attr_set_post_ops(attr[%d]%s, po[%d]%s)", i, st, p,
                    st_name(STATE_OF(pos, p)));
            check(dnnl_primitive_attr_set_post_ops(a, HANDLE_OF(pos, p)), &u,
                    "dnnl_primitive_attr_set_post_ops");
            break;
        }
        case 4:
        case 5: {
            int zp = rng_pct(&R, 40), arg = rand_arg(), mask = rand_mask();
            fuzz_call("dnnl_primitive_attr_set_%s_mask(attr[%d]%s, arg %d, mask %d)",
                    zp ? "zero_points" : "scales", i, st, arg, mask);
            s = zp ? dnnl_primitive_attr_set_zero_points_mask(a, arg, mask)
                   : dnnl_primitive_attr_set_scales_mask(a, arg, mask);
            check(s, &u, "dnnl_primitive_attr_set_*_mask");
            if (s == dnnl_success && i >= 0 && attrs[i].st == LIVE) {
                quant_t *q = &attrs[i].q;
                int *n = zp ? &q->nzp : &q->nscale, *args = zp ? q->zp_arg : q->scale_arg,
                    *masks = zp ? q->zp_mask : q->scale_mask;
                int k = 0;
                while (k < *n && args[k] != arg) k++;
                if (k < 8) {
                    args[k] = arg;
                    masks[k] = mask;
                    if (k == *n) (*n)++;
                }
            }
            break;
        }
        case 6: {
            static const int modes[] = {dnnl_fpmath_mode_strict, dnnl_fpmath_mode_bf16,
                    dnnl_fpmath_mode_f16, dnnl_fpmath_mode_any, dnnl_fpmath_mode_tf32, 5, -1};
            int mode = RNG_PICK(&R, modes);
            fuzz_call("dnnl_primitive_attr_set_fpmath_mode(attr[%d]%s, %d)", i, st, mode);
            check(dnnl_primitive_attr_set_fpmath_mode(a, (dnnl_fpmath_mode_t)mode), &u,
                    "dnnl_primitive_attr_set_fpmath_mode");
            break;
        }
        case 7: {
            static const int modes[] = {dnnl_scratchpad_mode_library, dnnl_scratchpad_mode_user, 2, -1};
            int mode = RNG_PICK(&R, modes);
            fuzz_call("dnnl_primitive_attr_set_scratchpad_mode(attr[%d]%s, %d)", i, st, mode);
            check(dnnl_primitive_attr_set_scratchpad_mode(a, (dnnl_scratchpad_mode_t)mode), &u,
                    "dnnl_primitive_attr_set_scratchpad_mode");
            break;
        }
        case 8: {
            int v = rng_int(&R, -1, 6);
            fuzz_call("dnnl_primitive_attr_set_accumulation_mode(attr[%d]%s, %d)", i, st, v);
            check(dnnl_primitive_attr_set_accumulation_mode(a, (dnnl_accumulation_mode_t)v), &u,
                    "dnnl_primitive_attr_set_accumulation_mode");
            fuzz_call("dnnl_primitive_attr_set_deterministic(attr[%d]%s, %d)", i, st, v);
            check(dnnl_primitive_attr_set_deterministic(a, v), &u,
                    "dnnl_primitive_attr_set_deterministic");
            break;
        }
        case 9: {
            int arg = rand_arg(), mode = rng_int(&R, -1, 2);
            fuzz_call("dnnl_primitive_attr_set_rounding(attr[%d]%s, %d, %d)", i, st, arg, mode);
            check(dnnl_primitive_attr_set_rounding(a, arg, (dnnl_rounding_mode_t)mode), &u,
                    "dnnl_primitive_attr_set_rounding");
            break;
        }
        default: {
            const_dnnl_post_ops_t p = NULL;
            fuzz_call("dnnl_primitive_attr_get_post_ops(attr[%d]%s)", i, st);
            s = dnnl_primitive_attr_get_post_ops(a, &p);
            check(s, &u, "dnnl_primitive_attr_get_post_ops");
            if (s == dnnl_success) {
                fuzz_call("dnnl_post_ops_len(borrowed post-ops)");
                int len = dnnl_post_ops_len(p);
                if (len < 0 || len > 64) fuzz_wrong("dnnl_post_ops_len returned %d", len);
            }
            break;
        }
    }
}

static void op_post_ops(void) {
    int i = PICK(pos, 85);
    uses_t u = {0, 0};
    USE(&u, pos, i);
    dnnl_post_ops_t p = HANDLE_OF(pos, i);
    const char *st = st_name(STATE_OF(pos, i));
    dnnl_status_t s;
    switch (rng_below(&R, 9)) {
        case 0:
        case 1: {
            int j = FREE_SLOT(pos);
            if (j < 0) break;
            dnnl_post_ops_t n = NULL;
            int clone = rng_pct(&R, 30);
            if (clone)
                fuzz_call("dnnl_post_ops_clone(po[%d], po[%d]%s)", j, i, st);
            else
                fuzz_call("dnnl_post_ops_create(po[%d])", j);
            s = clone ? dnnl_post_ops_clone(&n, p) : dnnl_post_ops_create(&n);
            check(s, clone ? &u : NULL, "dnnl_post_ops_create/clone");
            if (s == dnnl_success) {
                pos[j].h = n;
                pos[j].st = LIVE;
            }
            break;
        }
        case 2: {
            fuzz_call("dnnl_post_ops_destroy(po[%d]%s)", i, st);
            s = dnnl_post_ops_destroy(p);
            check(s, &u, "dnnl_post_ops_destroy");
            if (i >= 0 && pos[i].st == LIVE) {
                if (s != dnnl_success) fuzz_wrong("destroying live post-ops returned %s", check_status_str(s));
                pos[i].st = DEAD;
            }
            break;
        }
        case 3: {
            dnnl_alg_kind_t alg = rand_alg(eltwise_algs, sizeof eltwise_algs / sizeof *eltwise_algs);
            float alpha = rand_float(), beta = rand_float();
            fuzz_call("dnnl_post_ops_append_eltwise(po[%d]%s, alg %d, %g, %g)", i, st, (int)alg,
                    (double)alpha, (double)beta);
            check(dnnl_post_ops_append_eltwise(p, alg, alpha, beta), &u, "dnnl_post_ops_append_eltwise");
            break;
        }
        case 4: {
            float scale = rand_float();
            int zp = rng_pct(&R, 80) ? 0 : rng_int(&R, -3, 3);
            dnnl_data_type_t dt = rng_pct(&R, 70) ? dnnl_data_type_undef : rand_dt();
            fuzz_call("dnnl_post_ops_append_sum(po[%d]%s, %g, %d, dt %d)", i, st, (double)scale, zp, (int)dt);
            check(dnnl_post_ops_append_sum(p, scale, zp, dt), &u, "dnnl_post_ops_append_sum");
            break;
        }
        case 5: {
            int m = PICK(mds, 85);
            use_md(&u, m);
            dnnl_alg_kind_t alg = rand_alg(binary_algs, sizeof binary_algs / sizeof *binary_algs);
            fuzz_call("dnnl_post_ops_append_binary(po[%d]%s, alg %d, md[%d]%s)", i, st, (int)alg, m,
                    st_name(STATE_OF(mds, m)));
            check(dnnl_post_ops_append_binary(p, alg, HANDLE_OF(mds, m)), &u, "dnnl_post_ops_append_binary");
            break;
        }
        case 6: {
            int mask = rand_mask();
            fuzz_call("dnnl_post_ops_append_prelu(po[%d]%s, mask %d)", i, st, mask);
            check(dnnl_post_ops_append_prelu(p, mask), &u, "dnnl_post_ops_append_prelu");
            break;
        }
        case 7: {
            dnnl_dim_t k = rand_dim(), st_ = rand_dim(), pad = rand_dim();
            fuzz_call("dnnl_post_ops_append_dw(po[%d]%s, %" PRId64 ", %" PRId64 ", %" PRId64 ")", i, st,
                    k, st_, pad);
            check(dnnl_post_ops_append_dw(p, rand_dt(), rand_dt(), rand_dt(), k, st_, pad), &u,
                    "dnnl_post_ops_append_dw");
            break;
        }
        default: {
            int index = rng_int(&R, -1, 4);
            fuzz_call("dnnl_post_ops_get_kind/get_params(po[%d]%s, %d)", i, st, index);
            dnnl_primitive_kind_t kind = dnnl_post_ops_get_kind(p, index);
            (void)kind;
            dnnl_alg_kind_t alg;
            float a, b;
            check(dnnl_post_ops_get_params_eltwise(p, index, &alg, &a, &b), &u,
                    "dnnl_post_ops_get_params_eltwise");
            int32_t zp;
            dnnl_data_type_t dt;
            check(dnnl_post_ops_get_params_sum(p, index, &a, &zp, &dt), &u, "dnnl_post_ops_get_params_sum");
            const_dnnl_memory_desc_t md;
            check(dnnl_post_ops_get_params_binary(p, index, &alg, &md), &u,
                    "dnnl_post_ops_get_params_binary");
            break;
        }
    }
}

/* ---- operations: primitive descriptors ----------------------------------------- */

static void put_pd(int slot, dnnl_primitive_desc_t h, int kind, int e, int e2, const quant_t *q) {
    pds[slot].h = h;
    pds[slot].st = LIVE;
    pds[slot].kind = kind;
    pds[slot].eng = e;
    pds[slot].eng2 = e2;
    if (q)
        pds[slot].q = *q;
    else
        memset(&pds[slot].q, 0, sizeof pds[slot].q);
    FUZZ_ADD(fz->extra[X_PD_OK], 1);
}

/* A primitive descriptor of a random kind from random pool objects and values. */
static void op_pd_random(void) {
    int i = FREE_SLOT(pds);
    if (i < 0) return;
    int kind = (int)rng_below(&R, K_COUNT);
    int e = PICK(eng, 85), e2 = PICK(eng, 85), a = PICK(attrs, 80), h = PICK(pds, 70);
    int m[4];
    for (int k = 0; k < 4; k++) m[k] = PICK(mds, 85);
    uses_t u = {0, 0};
    USE(&u, eng, e);
    dnnl_engine_t E = HANDLE_OF(eng, e);
    const_dnnl_primitive_attr_t A = rng_pct(&R, 40) ? NULL : HANDLE_OF(attrs, a);
    if (!A) a = -1;
    USE(&u, attrs, a);
    const_dnnl_memory_desc_t M[4];
    for (int k = 0; k < 4; k++) M[k] = HANDLE_OF(mds, m[k]);
    const_dnnl_primitive_desc_t H = rng_pct(&R, 70) ? NULL : HANDLE_OF(pds, h);
    int hinted = kind == K_ELTWISE_BWD || kind == K_SOFTMAX_BWD || kind == K_IP_BWD_DATA
            || kind == K_IP_BWD_WEIGHTS;
    if (H && hinted) USE(&u, pds, h);
    static const int props[] = {dnnl_forward_inference, dnnl_forward_training, dnnl_backward,
            dnnl_backward_data, 0, -1};
    int prop = RNG_PICK(&R, props), axis = rng_int(&R, -2, 6);
    float alpha = rand_float(), beta = rand_float();
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t s;
    int nsrc = rng_int(&R, -1, 4);
    const_dnnl_memory_desc_t srcs[8];
    int src_slot[8];
    for (int k = 0; k < 8; k++) {
        src_slot[k] = PICK(mds, 85);
        srcs[k] = HANDLE_OF(mds, src_slot[k]);
    }
    /* Optional arguments passed as NULL (a NULL one uses no handle). */
    int null_dst = rng_pct(&R, 20), null_srcs = rng_pct(&R, 5), null_scales = rng_pct(&R, 5),
        null_bias = rng_pct(&R, 50);
    if (kind == K_SUM || kind == K_CONCAT)
        for (int k = 0; k < nsrc && !null_srcs; k++) use_md(&u, src_slot[k]);
    float scales[8];
    for (int k = 0; k < 8; k++) scales[k] = rand_float();
    fuzz_call("random %s pd(pd[%d], eng[%d]%s (dst eng[%d]%s), md[%d]%s, md[%d]%s, md[%d]%s, md[%d]%s, "
              "attr[%d]%s, prop %d, axis %d, n %d)",
            kind_name[kind], i, e, st_name(STATE_OF(eng, e)), e2, st_name(STATE_OF(eng, e2)), m[0],
            st_name(STATE_OF(mds, m[0])),
            m[1], st_name(STATE_OF(mds, m[1])), m[2], st_name(STATE_OF(mds, m[2])), m[3],
            st_name(STATE_OF(mds, m[3])), a, st_name(STATE_OF(attrs, a)), prop, axis, nsrc);
    switch (kind) {
        case K_ELTWISE:
            use_md(&u, m[0]);
            use_md(&u, m[1]);
            s = dnnl_eltwise_forward_primitive_desc_create(&pd, E, (dnnl_prop_kind_t)prop,
                    rand_alg(eltwise_algs, sizeof eltwise_algs / sizeof *eltwise_algs), M[0], M[1],
                    alpha, beta, A);
            break;
        case K_ELTWISE_BWD:
            for (int k = 0; k < 3; k++) use_md(&u, m[k]);
            s = dnnl_eltwise_backward_primitive_desc_create(&pd, E,
                    rand_alg(eltwise_algs, sizeof eltwise_algs / sizeof *eltwise_algs), M[0], M[1],
                    M[2], alpha, beta, H, A);
            break;
        case K_BINARY:
            for (int k = 0; k < 3; k++) use_md(&u, m[k]);
            if (rng_pct(&R, 20)) {
                use_md(&u, m[3]);
                s = dnnl_binary_primitive_desc_create_v2(&pd, E,
                        rng_pct(&R, 50) ? dnnl_binary_select
                                        : rand_alg(binary_algs, sizeof binary_algs / sizeof *binary_algs),
                        M[0], M[1], M[3], M[2], A);
            } else {
                s = dnnl_binary_primitive_desc_create(&pd, E,
                        rand_alg(binary_algs, sizeof binary_algs / sizeof *binary_algs), M[0], M[1], M[2], A);
            }
            break;
        case K_SOFTMAX:
            use_md(&u, m[0]);
            use_md(&u, m[1]);
            s = dnnl_softmax_forward_primitive_desc_create(&pd, E, (dnnl_prop_kind_t)prop,
                    rng_pct(&R, 90) ? dnnl_softmax_accurate + (int)rng_below(&R, 2) : rng_int(&R, -1, 3),
                    M[0], M[1], axis, A);
            break;
        case K_SOFTMAX_BWD:
            for (int k = 0; k < 3; k++) use_md(&u, m[k]);
            s = dnnl_softmax_backward_primitive_desc_create(&pd, E,
                    rng_pct(&R, 90) ? dnnl_softmax_accurate + (int)rng_below(&R, 2) : rng_int(&R, -1, 3),
                    M[0], M[1], M[2], axis, H, A);
            break;
        case K_REORDER:
            use_md(&u, m[0]);
            use_md(&u, m[1]);
            USE(&u, eng, e2);
            s = dnnl_reorder_primitive_desc_create(&pd, M[0], E, M[1], HANDLE_OF(eng, e2), A);
            break;
        case K_SUM:
            if (!null_dst) use_md(&u, m[0]);
            s = dnnl_sum_primitive_desc_create(&pd, E, null_dst ? NULL : M[0], nsrc,
                    null_scales ? NULL : scales, null_srcs ? NULL : srcs, A);
            break;
        case K_CONCAT:
            if (!null_dst) use_md(&u, m[0]);
            s = dnnl_concat_primitive_desc_create(&pd, E, null_dst ? NULL : M[0], nsrc, axis,
                    null_srcs ? NULL : srcs, A);
            break;
        case K_MATMUL:
            for (int k = 0; k < 4; k++)
                if (k != 2 || !null_bias) use_md(&u, m[k]);
            s = dnnl_matmul_primitive_desc_create(&pd, E, M[0], M[1], null_bias ? NULL : M[2], M[3], A);
            break;
        case K_IP:
            for (int k = 0; k < 4; k++)
                if (k != 2 || !null_bias) use_md(&u, m[k]);
            s = dnnl_inner_product_forward_primitive_desc_create(&pd, E, (dnnl_prop_kind_t)prop, M[0],
                    M[1], null_bias ? NULL : M[2], M[3], A);
            break;
        case K_IP_BWD_DATA:
            for (int k = 0; k < 3; k++) use_md(&u, m[k]);
            s = dnnl_inner_product_backward_data_primitive_desc_create(&pd, E, M[0], M[1], M[2], H, A);
            break;
        default:
            for (int k = 0; k < 4; k++)
                if (k != 2 || !null_bias) use_md(&u, m[k]);
            s = dnnl_inner_product_backward_weights_primitive_desc_create(&pd, E, M[0], M[1],
                    null_bias ? NULL : M[2], M[3], H, A);
            break;
    }
    check(s, &u, kind_name[kind]);
    if (s == dnnl_success)
        put_pd(i, pd, kind, e, kind == K_REORDER ? e2 : e, a >= 0 ? &attrs[a].q : NULL);
}

/* ---- valid configurations ----------------------------------------------------- */

/* Puts a new descriptor in the pool (when there is room) so that later calls use it too. */
static dnnl_memory_desc_t keep_md(dnnl_memory_desc_t md) {
    int j = FREE_SLOT(mds);
    if (j >= 0 && md) {
        put_md(j, md, -1, -1);
        return md;
    }
    return md; /* not kept: freed by the caller through `scratch_mds` */
}

static dnnl_memory_desc_t scratch_mds[32];
static int nscratch;

/* A descriptor for a valid configuration: a tag of the right rank, or strides
 * (dense in a random order, sometimes padded), or `any` when allowed. */
static dnnl_memory_desc_t vmd(int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt, int any_ok) {
    dnnl_memory_desc_t md = NULL;
    dnnl_status_t s;
    char ds[200];
    fmt_dims(ds, sizeof ds, nd, dims);
    if (any_ok && rng_pct(&R, 15)) {
        fuzz_call("dnnl_memory_desc_create_with_tag(%d, %s, dt %d, any)", nd, ds, (int)dt);
        s = dnnl_memory_desc_create_with_tag(&md, nd, dims, dt, dnnl_format_tag_any);
    } else if (rng_pct(&R, 25) || nd > 5) {
        int order[12];
        for (int d = 0; d < nd; d++) order[d] = d;
        if (rng_pct(&R, 50))
            for (int d = nd - 1; d > 0; d--) {
                int j = rng_int(&R, 0, d), t = order[d];
                order[d] = order[j];
                order[j] = t;
            }
        dnnl_dims_t strides;
        dnnl_dim_t stride = 1;
        for (int k = nd - 1; k >= 0; k--) {
            strides[order[k]] = stride;
            dnnl_dim_t extent = dims[order[k]] > 0 ? dims[order[k]] : 1;
            stride *= extent + (rng_pct(&R, 15) ? rng_int(&R, 1, 3) : 0);
        }
        fuzz_call("dnnl_memory_desc_create_with_strides(%d, %s, dt %d)", nd, ds, (int)dt);
        s = dnnl_memory_desc_create_with_strides(&md, nd, dims, dt, strides);
    } else {
        dnnl_format_tag_t tag = tags_by_nd[nd][rng_below(&R, (uint64_t)ntags_by_nd[nd])];
        if (rng_pct(&R, 50)) tag = tags_by_nd[nd][0];
        fuzz_call("dnnl_memory_desc_create_with_tag(%d, %s, dt %d, tag %d)", nd, ds, (int)dt, (int)tag);
        s = dnnl_memory_desc_create_with_tag(&md, nd, dims, dt, tag);
    }
    check(s, NULL, "valid descriptor");
    if (s != dnnl_success) return NULL;
    if (rng_pct(&R, 50) && FREE_SLOT(mds) >= 0) return keep_md(md);
    if (nscratch < 32) scratch_mds[nscratch++] = md;
    return md;
}

static void free_scratch_mds(void) {
    for (int k = 0; k < nscratch; k++) dnnl_memory_desc_destroy(scratch_mds[k]);
    nscratch = 0;
}

static dnnl_dim_t vdim(void) {
    if (rng_pct(&R, 4)) return 0;
    if (rng_pct(&R, 10)) return rng_int(&R, 9, 40);
    return rng_int(&R, 1, 8);
}

static void vdims(int nd, dnnl_dim_t *dims) {
    for (int d = 0; d < nd; d++) dims[d] = vdim();
}

static dnnl_data_type_t vdt(int ints_ok) {
    static const dnnl_data_type_t f[] = {dnnl_f32, dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16};
    return ints_ok && rng_pct(&R, 25) ? RNG_PICK(&R, good_dts) : RNG_PICK(&R, f);
}

/* A fresh attribute with random valid-looking post-ops and quantization for a
 * primitive of `kind` whose destination is `dst` (nd dims); NULL for none. */
static dnnl_primitive_attr_t vattr(int kind, int nd, const dnnl_dim_t *dst, quant_t *q) {
    memset(q, 0, sizeof *q);
    if (rng_pct(&R, 40)) return NULL;
    dnnl_primitive_attr_t a = NULL;
    fuzz_call("dnnl_primitive_attr_create (valid configuration)");
    if (dnnl_primitive_attr_create(&a) != dnnl_success) return NULL;
    if (rng_pct(&R, 50) && kind != K_SUM && kind != K_CONCAT) {
        dnnl_post_ops_t po = NULL;
        fuzz_call("dnnl_post_ops_create (valid configuration)");
        CHECK(dnnl_post_ops_create(&po));
        int n = rng_int(&R, 1, 3);
        for (int k = 0; k < n; k++) {
            int what = (int)rng_below(&R, 3);
            if (what == 0) {
                dnnl_alg_kind_t alg = RNG_PICK(&R, eltwise_algs);
                fuzz_call("dnnl_post_ops_append_eltwise(alg %d)", (int)alg);
                check(dnnl_post_ops_append_eltwise(po, alg, 1.0f, 0.5f), NULL, "append_eltwise");
            } else if (what == 1) {
                fuzz_call("dnnl_post_ops_append_sum(1.0)");
                check(dnnl_post_ops_append_sum(po, rng_pct(&R, 50) ? 1.0f : 0.5f, 0,
                              dnnl_data_type_undef),
                        NULL, "append_sum");
            } else if (nd > 0) {
                dnnl_dims_t d;
                for (int k2 = 0; k2 < nd; k2++) d[k2] = rng_pct(&R, 50) ? dst[k2] : 1;
                dnnl_memory_desc_t md = NULL;
                fuzz_call("dnnl_memory_desc_create_with_tag(post-op binary src1)");
                if (dnnl_memory_desc_create_with_tag(&md, nd, d, dnnl_f32, tags_by_nd[nd <= 5 ? nd : 1][0])
                        == dnnl_success) {
                    dnnl_alg_kind_t alg = RNG_PICK(&R, binary_algs);
                    fuzz_call("dnnl_post_ops_append_binary(alg %d)", (int)alg);
                    check(dnnl_post_ops_append_binary(po, alg, md), NULL, "append_binary");
                    dnnl_memory_desc_destroy(md);
                }
            }
        }
        fuzz_call("dnnl_primitive_attr_set_post_ops (valid configuration)");
        check(dnnl_primitive_attr_set_post_ops(a, po), NULL, "set_post_ops");
        dnnl_post_ops_destroy(po);
    }
    if (rng_pct(&R, 40)) {
        static const int args_by_kind[K_COUNT][3] = {
                [K_BINARY] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, 0},
                [K_SOFTMAX] = {DNNL_ARG_SRC, DNNL_ARG_DST, 0},
                [K_REORDER] = {DNNL_ARG_SRC, DNNL_ARG_DST, 0},
                [K_CONCAT] = {DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1, 0},
                [K_MATMUL] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
        };
        int arg = args_by_kind[kind][rng_below(&R, 3)];
        if (arg) {
            int mask = 0;
            if (kind == K_REORDER && rng_pct(&R, 30) && nd > 0) mask = 1 << rng_int(&R, 0, nd - 1);
            if (kind == K_MATMUL && arg == DNNL_ARG_WEIGHTS && rng_pct(&R, 40) && nd > 0)
                mask = 1 << (nd - 1);
            fuzz_call("dnnl_primitive_attr_set_scales_mask(arg %d, mask %d)", arg, mask);
            if (dnnl_primitive_attr_set_scales_mask(a, arg, mask) == dnnl_success) {
                q->scale_arg[q->nscale] = arg;
                q->scale_mask[q->nscale++] = mask;
            }
        }
    }
    if (rng_pct(&R, 20) && (kind == K_REORDER || kind == K_MATMUL)) {
        int arg = rng_pct(&R, 50) ? DNNL_ARG_SRC : DNNL_ARG_DST;
        fuzz_call("dnnl_primitive_attr_set_zero_points_mask(arg %d, 0)", arg);
        if (dnnl_primitive_attr_set_zero_points_mask(a, arg, 0) == dnnl_success) {
            q->zp_arg[q->nzp] = arg;
            q->zp_mask[q->nzp++] = 0;
        }
    }
    if (rng_pct(&R, 15)) {
        fuzz_call("dnnl_primitive_attr_set_scratchpad_mode(user)");
        dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user);
    }
    return a;
}

/* A primitive descriptor of a random kind for a generated valid configuration
 * (which the library may still refuse as unimplemented). */
static void op_pd_valid(void) {
    int i = FREE_SLOT(pds);
    if (i < 0) return;
    int kind = (int)rng_below(&R, K_COUNT);
    /* The base engines mostly; any live engine sometimes. */
    int e = on_gpu && rng_pct(&R, 50) ? 1 : 0, e2 = e;
    if (rng_pct(&R, 10)) {
        int k = PICK(eng, 100);
        if (k >= 0 && eng[k].st == LIVE) e = e2 = k;
    }
    if (kind == K_REORDER && on_gpu && rng_pct(&R, 40)) e2 = 1 - e;
    dnnl_engine_t E = eng[e].h;
    quant_t q;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t a = NULL;
    dnnl_status_t s = dnnl_unimplemented;
    int nd = rng_int(&R, 1, 5);
    dnnl_dims_t d0, d1, d2;
    vdims(nd, d0);
    switch (kind) {
        case K_ELTWISE:
        case K_ELTWISE_BWD: {
            dnnl_data_type_t dt = vdt(kind == K_ELTWISE);
            dnnl_memory_desc_t src = vmd(nd, d0, dt, 0), dst = vmd(nd, d0, rng_pct(&R, 80) ? dt : vdt(1), 1);
            if (kind == K_ELTWISE) {
                a = vattr(kind, nd, d0, &q);
                dnnl_alg_kind_t alg = RNG_PICK(&R, eltwise_algs);
                fuzz_call("dnnl_eltwise_forward_primitive_desc_create(pd[%d], eng[%d], alg %d)", i, e, (int)alg);
                s = dnnl_eltwise_forward_primitive_desc_create(&pd, E, dnnl_forward_inference, alg, src,
                        dst, 0.5f, 0.25f, a);
            } else {
                memset(&q, 0, sizeof q);
                dnnl_memory_desc_t dd = vmd(nd, d0, dt, 1);
                dnnl_alg_kind_t alg = rng_pct(&R, 30) ? RNG_PICK(&R, eltwise_dst_algs) : RNG_PICK(&R, eltwise_algs);
                fuzz_call("dnnl_eltwise_backward_primitive_desc_create(pd[%d], eng[%d], alg %d)", i, e, (int)alg);
                s = dnnl_eltwise_backward_primitive_desc_create(&pd, E, alg, dst, dd, src, 0.5f, 0.25f,
                        NULL, NULL);
            }
            break;
        }
        case K_BINARY: {
            for (int k = 0; k < nd; k++) d1[k] = rng_pct(&R, 30) ? 1 : d0[k];
            dnnl_data_type_t dt = vdt(1);
            dnnl_memory_desc_t s0 = vmd(nd, d0, dt, 0), s1 = vmd(nd, d1, rng_pct(&R, 70) ? dt : vdt(1), 0),
                               dst = vmd(nd, d0, rng_pct(&R, 70) ? dt : vdt(1), 1);
            a = vattr(kind, nd, d0, &q);
            if (rng_pct(&R, 15)) {
                dnnl_memory_desc_t c = vmd(nd, d1, rng_pct(&R, 50) ? dnnl_s8 : dnnl_u8, 0);
                fuzz_call("dnnl_binary_primitive_desc_create_v2(pd[%d], eng[%d], select)", i, e);
                s = dnnl_binary_primitive_desc_create_v2(&pd, E, dnnl_binary_select, s0, s1, c, dst, a);
            } else {
                dnnl_alg_kind_t alg = RNG_PICK(&R, binary_algs);
                fuzz_call("dnnl_binary_primitive_desc_create(pd[%d], eng[%d], alg %d)", i, e, (int)alg);
                s = dnnl_binary_primitive_desc_create(&pd, E, alg, s0, s1, dst, a);
            }
            break;
        }
        case K_SOFTMAX:
        case K_SOFTMAX_BWD: {
            dnnl_data_type_t dt = vdt(kind == K_SOFTMAX);
            dnnl_memory_desc_t src = vmd(nd, d0, rng_pct(&R, 80) ? dt : dnnl_f32, 0),
                               dst = vmd(nd, d0, dt, 1);
            int axis = rng_int(&R, 0, nd - 1);
            dnnl_alg_kind_t alg = rng_pct(&R, 50) ? dnnl_softmax_accurate : dnnl_softmax_log;
            if (kind == K_SOFTMAX) {
                a = vattr(kind, nd, d0, &q);
                fuzz_call("dnnl_softmax_forward_primitive_desc_create(pd[%d], eng[%d], axis %d)", i, e, axis);
                s = dnnl_softmax_forward_primitive_desc_create(&pd, E, dnnl_forward_inference, alg, src,
                        dst, axis, a);
            } else {
                memset(&q, 0, sizeof q);
                dnnl_memory_desc_t dd = vmd(nd, d0, dt, 1);
                fuzz_call("dnnl_softmax_backward_primitive_desc_create(pd[%d], eng[%d], axis %d)", i, e, axis);
                s = dnnl_softmax_backward_primitive_desc_create(&pd, E, alg, src, dd, dst, axis, NULL, NULL);
            }
            break;
        }
        case K_REORDER: {
            dnnl_memory_desc_t src = vmd(nd, d0, vdt(1), 0), dst = vmd(nd, d0, vdt(1), 0);
            a = vattr(kind, nd, d0, &q);
            fuzz_call("dnnl_reorder_primitive_desc_create(pd[%d], eng[%d] -> eng[%d])", i, e, e2);
            s = dnnl_reorder_primitive_desc_create(&pd, src, E, dst, eng[e2].h, a);
            break;
        }
        case K_SUM:
        case K_CONCAT: {
            int n = rng_int(&R, 1, 4), axis = rng_int(&R, 0, nd - 1);
            const_dnnl_memory_desc_t srcs[4];
            dnnl_data_type_t dt = vdt(1);
            dnnl_dims_t total;
            memcpy(total, d0, sizeof total);
            total[axis] = 0;
            for (int k = 0; k < n; k++) {
                memcpy(d1, d0, sizeof d1);
                if (kind == K_CONCAT) d1[axis] = vdim();
                total[axis] += d1[axis];
                srcs[k] = vmd(nd, d1, rng_pct(&R, 80) ? dt : vdt(1), 0);
            }
            dnnl_memory_desc_t dst = rng_pct(&R, 20) ? NULL
                                                     : vmd(nd, kind == K_SUM ? d0 : total,
                                                               rng_pct(&R, 80) ? dt : vdt(1), 1);
            if (kind == K_SUM) {
                memset(&q, 0, sizeof q);
                float scales[4] = {1.0f, 0.5f, 2.0f, -1.0f};
                fuzz_call("dnnl_sum_primitive_desc_create(pd[%d], eng[%d], n %d)", i, e, n);
                s = dnnl_sum_primitive_desc_create(&pd, E, dst, n, scales, srcs, NULL);
            } else {
                a = vattr(kind, nd, total, &q);
                fuzz_call("dnnl_concat_primitive_desc_create(pd[%d], eng[%d], n %d, axis %d)", i, e, n, axis);
                s = dnnl_concat_primitive_desc_create(&pd, E, dst, n, axis, srcs, a);
            }
            break;
        }
        case K_MATMUL: {
            nd = rng_int(&R, 2, 4);
            dnnl_dim_t M = vdim(), K = vdim(), N = vdim();
            vdims(nd, d0);
            for (int k = 0; k < nd - 2; k++) d1[k] = rng_pct(&R, 30) ? 1 : d0[k];
            d0[nd - 2] = M;
            d0[nd - 1] = K;
            d1[nd - 2] = K;
            d1[nd - 1] = N;
            memcpy(d2, d0, sizeof d2);
            d2[nd - 1] = N;
            int ints = rng_pct(&R, 25);
            dnnl_data_type_t st = ints ? (rng_pct(&R, 50) ? dnnl_s8 : dnnl_u8) : vdt(0);
            dnnl_data_type_t wt = ints ? dnnl_s8 : st;
            dnnl_data_type_t dt = ints ? RNG_PICK(&R, good_dts) : (rng_pct(&R, 70) ? st : dnnl_f32);
            dnnl_memory_desc_t src = vmd(nd, d0, st, 1), w = vmd(nd, d1, wt, 1), dst = vmd(nd, d2, dt, 1);
            dnnl_memory_desc_t bias = NULL;
            if (rng_pct(&R, 40)) {
                dnnl_dims_t db;
                for (int k = 0; k < nd; k++) db[k] = rng_pct(&R, 70) ? 1 : d2[k];
                db[nd - 1] = N;
                bias = vmd(nd, db, ints ? dnnl_f32 : dt, 0);
            }
            a = vattr(kind, nd, d2, &q);
            fuzz_call("dnnl_matmul_primitive_desc_create(pd[%d], eng[%d])", i, e);
            s = dnnl_matmul_primitive_desc_create(&pd, E, src, w, bias, dst, a);
            break;
        }
        default: { /* inner product */
            nd = rng_int(&R, 2, 5);
            vdims(nd, d0);
            dnnl_dim_t OC = vdim();
            memcpy(d1, d0, sizeof d1);
            d1[0] = OC;
            dnnl_dims_t dd = {d0[0], OC}, db = {OC};
            dnnl_data_type_t dt = rng_pct(&R, 80) ? dnnl_f32 : dnnl_bf16;
            dnnl_memory_desc_t src = vmd(nd, d0, dt, 1), w = vmd(nd, d1, dt, 1), dst = vmd(2, dd, dt, 1);
            dnnl_memory_desc_t bias = rng_pct(&R, 50) ? vmd(1, db, dt, 0) : NULL;
            if (kind == K_IP) {
                a = vattr(kind, 2, dd, &q);
                fuzz_call("dnnl_inner_product_forward_primitive_desc_create(pd[%d], eng[%d])", i, e);
                s = dnnl_inner_product_forward_primitive_desc_create(&pd, E, dnnl_forward_inference, src,
                        w, bias, dst, a);
            } else if (kind == K_IP_BWD_DATA) {
                memset(&q, 0, sizeof q);
                fuzz_call("dnnl_inner_product_backward_data_primitive_desc_create(pd[%d], eng[%d])", i, e);
                s = dnnl_inner_product_backward_data_primitive_desc_create(&pd, E, src, w, dst, NULL, NULL);
            } else {
                memset(&q, 0, sizeof q);
                fuzz_call("dnnl_inner_product_backward_weights_primitive_desc_create(pd[%d], eng[%d])", i, e);
                s = dnnl_inner_product_backward_weights_primitive_desc_create(&pd, E, src, w, bias, dst,
                        NULL, NULL);
            }
            break;
        }
    }
    check(s, NULL, kind_name[kind]);
    if (s == dnnl_success) put_pd(i, pd, kind, e, e2, &q);
    if (a) dnnl_primitive_attr_destroy(a);
    free_scratch_mds();
}

static void op_pd_other(void) {
    int i = PICK(pds, 85);
    uses_t u = {0, 0};
    USE(&u, pds, i);
    dnnl_primitive_desc_t pd = HANDLE_OF(pds, i);
    const char *st = st_name(STATE_OF(pds, i));
    dnnl_status_t s;
    switch (rng_below(&R, 6)) {
        case 0: {
            fuzz_call("dnnl_primitive_desc_destroy(pd[%d]%s)", i, st);
            s = dnnl_primitive_desc_destroy(pd);
            check(s, &u, "dnnl_primitive_desc_destroy");
            if (i >= 0 && pds[i].st == LIVE) {
                if (s != dnnl_success) fuzz_wrong("destroying a live pd returned %s", check_status_str(s));
                pds[i].st = DEAD;
                orphan_mds(i, -1);
            }
            break;
        }
        case 1: {
            int j = FREE_SLOT(pds);
            if (j < 0) break;
            dnnl_primitive_desc_t n = NULL;
            fuzz_call("dnnl_primitive_desc_clone(pd[%d], pd[%d]%s)", j, i, st);
            s = dnnl_primitive_desc_clone(&n, pd);
            check(s, &u, "dnnl_primitive_desc_clone");
            if (s == dnnl_success) put_pd(j, n, pds[i].kind, pds[i].eng, pds[i].eng2, &pds[i].q);
            break;
        }
        case 2: {
            fuzz_call("dnnl_primitive_desc_next_impl(pd[%d]%s)", i, st);
            check(dnnl_primitive_desc_next_impl(pd), &u, "dnnl_primitive_desc_next_impl");
            break;
        }
        case 3: {
            static const int queries[] = {dnnl_query_engine, dnnl_query_primitive_kind,
                    dnnl_query_num_of_inputs_s32, dnnl_query_num_of_outputs_s32,
                    dnnl_query_time_estimate_f64, dnnl_query_memory_consumption_s64,
                    dnnl_query_scratchpad_engine, dnnl_query_impl_info_str,
                    dnnl_query_reorder_src_engine, dnnl_query_reorder_dst_engine, dnnl_query_prop_kind,
                    dnnl_query_cache_blob_id_size_s64, dnnl_query_cache_blob_id, dnnl_query_strides,
                    dnnl_query_alg_kind, dnnl_query_alpha_f32, dnnl_query_beta_f32, dnnl_query_axis_s32,
                    dnnl_query_src_md, dnnl_query_dst_md, dnnl_query_weights_md,
                    dnnl_query_scratchpad_md, dnnl_query_exec_arg_md, dnnl_query_ndims_s32, 0, -1, 999};
            int q = RNG_PICK(&R, queries), index = rng_pct(&R, 80) ? rng_int(&R, 0, 2) : rand_arg();
            uint64_t result[64];
            fuzz_call("dnnl_primitive_desc_query(pd[%d]%s, %d, %d)", i, st, q, index);
            check(dnnl_primitive_desc_query(pd, (dnnl_query_t)q, index, rng_pct(&R, 3) ? NULL : result),
                    &u, "dnnl_primitive_desc_query");
            fuzz_call("dnnl_primitive_desc_query_s32(pd[%d]%s, %d, %d)", i, st, q, index);
            (void)dnnl_primitive_desc_query_s32(pd, (dnnl_query_t)q, index);
            fuzz_check_panic();
            break;
        }
        case 4: {
            static const int queries[] = {dnnl_query_src_md, dnnl_query_dst_md, dnnl_query_weights_md,
                    dnnl_query_diff_src_md, dnnl_query_diff_dst_md, dnnl_query_exec_arg_md,
                    dnnl_query_scratchpad_md, dnnl_query_workspace_md, dnnl_query_engine};
            int q = RNG_PICK(&R, queries), index = q == dnnl_query_exec_arg_md ? rand_arg() : rng_int(&R, -1, 4);
            int j = FREE_SLOT(mds);
            fuzz_call("dnnl_primitive_desc_query_md(pd[%d]%s, %d, %d) -> md[%d]", i, st, q, index, j);
            const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, (dnnl_query_t)q, index);
            fuzz_check_panic();
            if (md && STATE_OF(pds, i) != LIVE && !u.dead && i >= 0)
                fuzz_wrong("dnnl_primitive_desc_query_md answered for a NULL pd");
            if (md && u.dead) {
                FUZZ_ADD(fz->extra[X_STALE], 1);
                if (xfail_stale)
                    fuzz_xfail("dnnl_primitive_desc_query_md answered for a destroyed pd (issue 18)");
                else
                    fuzz_wrong("dnnl_primitive_desc_query_md answered for a destroyed pd");
            }
            if (md && j >= 0 && i >= 0 && pds[i].st == LIVE) put_md(j, (dnnl_memory_desc_t)md, i, -1);
            break;
        }
        default: {
            const_dnnl_primitive_attr_t a = NULL;
            fuzz_call("dnnl_primitive_desc_get_attr(pd[%d]%s)", i, st);
            check(dnnl_primitive_desc_get_attr(pd, &a), &u, "dnnl_primitive_desc_get_attr");
            break;
        }
    }
}

/* ---- operations: primitives ------------------------------------------------------ */

static void op_prim(void) {
    dnnl_status_t s;
    uses_t u = {0, 0};
    switch (rng_below(&R, 5)) {
        case 0:
        case 1: {
            int i = FREE_SLOT(prims), p = PICK(pds, 85);
            if (i < 0) break;
            USE(&u, pds, p);
            dnnl_primitive_t prim = NULL;
            fuzz_call("dnnl_primitive_create(prim[%d], pd[%d]%s %s)", i, p, st_name(STATE_OF(pds, p)),
                    p >= 0 ? kind_name[pds[p].kind] : "");
            s = dnnl_primitive_create(&prim, HANDLE_OF(pds, p));
            check(s, &u, "dnnl_primitive_create");
            if (s == dnnl_success) {
                prims[i].h = prim;
                prims[i].st = LIVE;
                prims[i].kind = pds[p].kind;
                prims[i].eng = pds[p].eng;
                prims[i].eng2 = pds[p].eng2;
                prims[i].q = pds[p].q;
            }
            break;
        }
        case 2: {
            int i = PICK(prims, 60);
            USE(&u, prims, i);
            fuzz_call("dnnl_primitive_destroy(prim[%d]%s)", i, st_name(STATE_OF(prims, i)));
            s = dnnl_primitive_destroy(HANDLE_OF(prims, i));
            check(s, &u, "dnnl_primitive_destroy");
            if (i >= 0 && prims[i].st == LIVE) {
                if (s != dnnl_success) fuzz_wrong("destroying a live primitive returned %s", check_status_str(s));
                prims[i].st = DEAD;
            }
            break;
        }
        case 3: {
            int i = PICK(prims, 85);
            USE(&u, prims, i);
            const_dnnl_primitive_desc_t pd = NULL;
            fuzz_call("dnnl_primitive_get_primitive_desc(prim[%d]%s)", i, st_name(STATE_OF(prims, i)));
            check(dnnl_primitive_get_primitive_desc(HANDLE_OF(prims, i), &pd), &u,
                    "dnnl_primitive_get_primitive_desc");
            break;
        }
        default: {
            /* A primitive's cache blob, then a primitive from it for a random pd
             * (usually another one): refused, or a primitive that works. */
            int i = PICK(prims, 90), p = PICK(pds, 90);
            USE(&u, prims, i);
            size_t size = 0;
            fuzz_call("dnnl_primitive_get_cache_blob(prim[%d]%s, size)", i, st_name(STATE_OF(prims, i)));
            s = dnnl_primitive_get_cache_blob(HANDLE_OF(prims, i), &size, NULL);
            check(s, &u, "dnnl_primitive_get_cache_blob");
            if (s != dnnl_success || size == 0 || size > ((size_t)256 << 20)) break;
            uint8_t *blob = malloc(size);
            EXPECT(blob);
            fuzz_call("dnnl_primitive_get_cache_blob(prim[%d], %zu bytes)", i, size);
            check(dnnl_primitive_get_cache_blob(prims[i].h, &size, blob), &u, "dnnl_primitive_get_cache_blob");
            int j = FREE_SLOT(prims);
            if (j >= 0) {
                uses_t u2 = {0, 0};
                USE(&u2, pds, p);
                dnnl_primitive_t prim = NULL;
                if (rng_pct(&R, 20)) blob[rng_below(&R, size)] ^= 0x10;
                fuzz_call("dnnl_primitive_create_from_cache_blob(prim[%d], pd[%d]%s, %zu bytes)", j, p,
                        st_name(STATE_OF(pds, p)), size);
                s = dnnl_primitive_create_from_cache_blob(&prim, HANDLE_OF(pds, p), size, blob);
                check(s, &u2, "dnnl_primitive_create_from_cache_blob");
                if (s == dnnl_success) {
                    prims[j].h = prim;
                    prims[j].st = LIVE;
                    prims[j].kind = pds[p].kind;
                    prims[j].eng = pds[p].eng;
                    prims[j].eng2 = pds[p].eng2;
                    prims[j].q = pds[p].q;
                }
            }
            free(blob);
            break;
        }
    }
}

/* ---- execution ---------------------------------------------------------------------- */

typedef struct {
    int arg;
    dnnl_memory_t mem;
    int out;      /* an output: DST, DIFF_SRC, DIFF_WEIGHTS, DIFF_BIAS */
    size_t need;  /* bytes the primitive's descriptor of it takes */
    unsigned char *buf; /* user buffer (CPU), or NULL */
} xarg_t;

/* Whether `arg` is written by a primitive of `kind` (DST is an input of the
 * backward kinds). */
static int is_output(int kind, int arg) {
    switch (kind) {
        case K_ELTWISE_BWD:
        case K_SOFTMAX_BWD:
        case K_IP_BWD_DATA: return arg == DNNL_ARG_DIFF_SRC;
        case K_IP_BWD_WEIGHTS: return arg == DNNL_ARG_DIFF_WEIGHTS || arg == DNNL_ARG_DIFF_BIAS;
        default: return arg == DNNL_ARG_DST;
    }
}

static float f16_of(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float f;
    if (exp == 0) {
        f = (float)man / 16777216.0f;
        return sign ? -f : f;
    }
    bits = exp == 0x1f ? sign | 0x7f800000u | (man << 13) : sign | ((exp + 112) << 23) | (man << 13);
    memcpy(&f, &bits, 4);
    return f;
}

/* Small values of type dt (exact in every floating type) over the whole buffer. */
static void fill_values(void *p, size_t size, dnnl_data_type_t dt, unsigned salt) {
    size_t es = dnnl_data_type_size(dt);
    if (es == 0 || es > 8 || es == (size_t)-1) es = 1;
    size_t n = size / es;
    for (size_t k = 0; k < n; k++) {
        int v = (int)((k * 7 + salt) % 9) - 4;
        unsigned char *e = (unsigned char *)p + k * es;
        switch (dt) {
            case dnnl_f32: {
                float f = (float)v * 0.5f;
                memcpy(e, &f, 4);
                break;
            }
            case dnnl_bf16: {
                float f = (float)v * 0.5f;
                uint32_t b;
                memcpy(&b, &f, 4);
                uint16_t h = (uint16_t)(b >> 16);
                memcpy(e, &h, 2);
                break;
            }
            case dnnl_s32: {
                int32_t x = v;
                memcpy(e, &x, 4);
                break;
            }
            case dnnl_u8: *e = (unsigned char)(v + 4); break;
            default: memset(e, (int)(signed char)v, es); break;
        }
    }
}

/* The f16 bit patterns of v*0.5 for v in -4..4, computed once. */
static uint16_t f16_table[9];
static void init_f16_table(void) {
    for (int v = -4; v <= 4; v++) {
        float f = (float)v * 0.5f;
        uint16_t h = 0;
        for (uint32_t c = 0; c < 0x7c00; c++)
            if (f16_of((uint16_t)c) == fabsf(f)) {
                h = (uint16_t)c;
                break;
            }
        f16_table[v + 4] = f < 0 ? (uint16_t)(h | 0x8000) : h;
    }
}

static void fill_input(void *p, size_t size, dnnl_data_type_t dt, unsigned salt) {
    if (dt == dnnl_f16) {
        size_t n = size / 2;
        for (size_t k = 0; k < n; k++) {
            int v = (int)((k * 7 + salt) % 9);
            memcpy((unsigned char *)p + 2 * k, &f16_table[v], 2);
        }
        return;
    }
    fill_values(p, size, dt, salt);
}

static int map_fill(dnnl_memory_t m, const_dnnl_memory_desc_t md, int out, unsigned pattern) {
    size_t size = md_size(md);
    if (size == 0) return 1;
    void *p = NULL;
    fuzz_call("dnnl_memory_map_data (fill)");
    dnnl_status_t s = dnnl_memory_map_data(m, &p);
    check(s, NULL, "dnnl_memory_map_data");
    if (s != dnnl_success) return 0;
    if (out) {
        memset(p, (int)pattern, size);
    } else {
        dnnl_data_type_t dt = dnnl_f32;
        dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
        fill_input(p, size, dt, pattern);
    }
    fuzz_call("dnnl_memory_unmap_data (fill)");
    check(dnnl_memory_unmap_data(m, p), NULL, "dnnl_memory_unmap_data");
    return 1;
}

/* The logical elements of output `m` (bytes, in row-major element order). */
static unsigned char *read_logical(dnnl_memory_t m, const_dnnl_memory_desc_t md, size_t *n_bytes) {
    layout_t l;
    *n_bytes = 0;
    if (!layout_of(md, &l) || l.nelems == 0) return NULL;
    void *p = NULL;
    fuzz_call("dnnl_memory_map_data (read)");
    dnnl_status_t s = dnnl_memory_map_data(m, &p);
    check(s, NULL, "dnnl_memory_map_data");
    if (s != dnnl_success) return NULL;
    unsigned char *out = malloc((size_t)l.nelems * l.esize);
    EXPECT(out);
    for (int64_t k = 0; k < l.nelems; k++)
        memcpy(out + (size_t)k * l.esize, (unsigned char *)p + (size_t)offset_of(&l, k) * l.esize, l.esize);
    fuzz_call("dnnl_memory_unmap_data (read)");
    check(dnnl_memory_unmap_data(m, p), NULL, "dnnl_memory_unmap_data");
    *n_bytes = (size_t)l.nelems * l.esize;
    return out;
}

/* Whether the primitive descriptor's post-ops include a sum (dst is then an input). */
static int has_sum(const_dnnl_primitive_desc_t pd) {
    const_dnnl_primitive_attr_t a = NULL;
    const_dnnl_post_ops_t po = NULL;
    if (dnnl_primitive_desc_get_attr(pd, &a) || dnnl_primitive_attr_get_post_ops(a, &po)) return 1;
    int n = dnnl_post_ops_len(po);
    for (int k = 0; k < n; k++)
        if (dnnl_post_ops_get_kind(po, k) == dnnl_sum) return 1;
    return 0;
}

/* The product of md's dims selected by mask (the number of scales / zero points). */
static dnnl_dim_t mask_count(const_dnnl_memory_desc_t md, int mask) {
    int nd = 0;
    const dnnl_dims_t *dims = NULL;
    if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd)
            || dnnl_memory_desc_query(md, dnnl_query_dims, &dims))
        return 1;
    dnnl_dim_t n = 1;
    for (int d = 0; d < nd; d++)
        if (mask & (1 << d)) n *= (*dims)[d];
    return n;
}

/* The engine an argument's memory lives on, for a primitive of slot p. */
static int arg_engine(const prim_slot_t *p, int arg) {
    int cross = p->kind == K_REORDER && p->eng != p->eng2;
    if (p->kind == K_REORDER && arg == DNNL_ARG_TO) return p->eng2;
    if (p->kind == K_REORDER && arg == DNNL_ARG_FROM) return p->eng;
    if (cross && (arg & (DNNL_ARG_ATTR_SCALES | DNNL_ARG_ATTR_ZERO_POINTS)))
        return eng[p->eng].gpu ? p->eng2 : p->eng; /* the CPU side */
    if (cross) return eng[p->eng].gpu ? p->eng : p->eng2; /* the OpenCL side */
    return p->eng;
}

static dnnl_stream_t exec_stream(const prim_slot_t *p, dnnl_stream_t *temp) {
    int e = p->eng;
    if (p->kind == K_REORDER && p->eng != p->eng2 && !eng[e].gpu) e = p->eng2;
    *temp = NULL;
    if (eng[e].base) return base_stream[e];
    fuzz_call("dnnl_stream_create (execution stream)");
    if (dnnl_stream_create(temp, eng[e].h, dnnl_stream_default_flags) != dnnl_success) return NULL;
    return *temp;
}

/* Whether the primitive works on tensors so large (more than 2^24 elements,
 * e.g. dims {2^40, 2} over strides {0, 1}, which take 8 bytes) that running it
 * would take minutes: legitimate work, but not for a fuzz run. */
static int too_much_work(const_dnnl_primitive_desc_t pd) {
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_DST, DNNL_ARG_WEIGHTS,
            DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_MULTIPLE_SRC,
            DNNL_ARG_MULTIPLE_SRC + 1};
    for (size_t k = 0; k < sizeof args / sizeof *args; k++) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, args[k]);
        int nd = 0;
        const dnnl_dims_t *dims = NULL;
        if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd)
                || dnnl_memory_desc_query(md, dnnl_query_dims, &dims))
            continue;
        double n = 1;
        for (int d = 0; d < nd; d++) n *= (double)((*dims)[d] < 0 ? 1 : (*dims)[d]);
        if (n > (double)(1 << 24)) return 1;
    }
    return 0;
}

/* Builds the arguments the primitive asks for, with new memories; 0 when it
 * cannot (a memory fails, or they would take more than 64 MiB). */
static int build_args(const prim_slot_t *p, const_dnnl_primitive_desc_t pd, xarg_t *xa, int *n) {
    static int cands[64];
    int nc = 0;
    static const int base_args[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_DST,
            DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_DST,
            DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_WORKSPACE, DNNL_ARG_SCRATCHPAD};
    for (size_t k = 0; k < sizeof base_args / sizeof *base_args; k++) cands[nc++] = base_args[k];
    for (int k = 0; k < 8; k++) cands[nc++] = DNNL_ARG_MULTIPLE_SRC + k;
    for (int k = 0; k < 4; k++) {
        cands[nc++] = DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1;
        cands[nc++] = DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_WEIGHTS;
    }
    size_t total = 0;
    *n = 0;
    for (int k = 0; k < nc + p->q.nscale + p->q.nzp; k++) {
        int arg;
        dnnl_memory_desc_t own = NULL;
        const_dnnl_memory_desc_t md;
        if (k < nc) {
            arg = cands[k];
            md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
            int nd = 0;
            if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) || nd == 0) continue;
        } else {
            int qk = k - nc, zp = qk >= p->q.nscale;
            int base = zp ? p->q.zp_arg[qk - p->q.nscale] : p->q.scale_arg[qk];
            int mask = zp ? p->q.zp_mask[qk - p->q.nscale] : p->q.scale_mask[qk];
            arg = (zp ? DNNL_ARG_ATTR_ZERO_POINTS : DNNL_ARG_ATTR_SCALES) | base;
            dnnl_dims_t d = {mask_count(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, base), mask)};
            if (d[0] <= 0) d[0] = 1;
            if (dnnl_memory_desc_create_with_tag(&own, 1, d, zp ? dnnl_s32 : dnnl_f32, dnnl_a)) return 0;
            md = own;
        }
        size_t size = md_size(md);
        total += size;
        if (total > ((size_t)64 << 20) || *n >= 40) {
            if (own) dnnl_memory_desc_destroy(own);
            return 0;
        }
        int e = arg_engine(p, arg);
        xarg_t *x = &xa[*n];
        x->arg = arg;
        x->out = is_output(p->kind, arg);
        x->need = size;
        x->buf = NULL;
        void *handle = DNNL_MEMORY_ALLOCATE;
        if (!eng[e].gpu) {
            x->buf = new_buf(user_size(md));
            if (x->buf) handle = x->buf;
        }
        fuzz_call("dnnl_memory_create (argument %d, %zu bytes, eng[%d])", arg, size, e);
        dnnl_status_t s = dnnl_memory_create(&x->mem, md, eng[e].h, handle);
        check(s, NULL, "dnnl_memory_create (argument)");
        if (own) dnnl_memory_desc_destroy(own);
        if (s != dnnl_success) return 0;
        (*n)++;
        /* Scales and zero points: positive scales, small zero points. */
        if (arg & DNNL_ARG_ATTR_SCALES) {
            void *ptr = NULL;
            if (dnnl_memory_map_data(x->mem, &ptr) == dnnl_success) {
                for (size_t j = 0; j < size / 4; j++) ((float *)ptr)[j] = 0.5f + 0.25f * (float)(j % 4);
                dnnl_memory_unmap_data(x->mem, ptr);
            }
        } else if (arg & DNNL_ARG_ATTR_ZERO_POINTS) {
            void *ptr = NULL;
            if (dnnl_memory_map_data(x->mem, &ptr) == dnnl_success) {
                for (size_t j = 0; j < size / 4; j++) ((int32_t *)ptr)[j] = (int32_t)(j % 3);
                dnnl_memory_unmap_data(x->mem, ptr);
            }
        } else if (!x->out) {
            if (!map_fill(x->mem, md, 0, (unsigned)k)) return 0;
        }
    }
    return 1;
}

static void free_args(xarg_t *xa, int n) {
    for (int k = 0; k < n; k++) dnnl_memory_destroy(xa[k].mem);
}

static dnnl_status_t execute(dnnl_primitive_t prim, dnnl_stream_t stream, int n,
        const dnnl_exec_arg_t *args, uses_t *u, const char *what) {
    fuzz_call("dnnl_primitive_execute(%s, %d args)", what, n);
    dnnl_status_t s = dnnl_primitive_execute(prim, stream, n, args);
    check(s, u, "dnnl_primitive_execute");
    if (selftest == 1 && s == dnnl_success && bufs) bufs->base[CANARY - 1] ^= 1;
    if (selftest == 3 && fz->step >= 100) raise(SIGSEGV);
    if (stream) {
        fuzz_call("dnnl_stream_wait");
        dnnl_stream_wait(stream);
        fuzz_check_panic();
    }
    check_canaries("dnnl_primitive_execute");
    return s;
}

/* Executes a live primitive twice with the right arguments, its outputs filled
 * with 0x00 and then 0xff bytes (the same bytes both times when a sum post-op
 * reads them), and checks that the two results are the same. */
static void op_exec_right(void) {
    int i = PICK(prims, 100);
    if (i < 0 || prims[i].st != LIVE) return;
    prim_slot_t *p = &prims[i];
    if (p->eng < 0 || p->eng2 < 0 || eng[p->eng].st != LIVE || eng[p->eng2].st != LIVE) return;
    const_dnnl_primitive_desc_t pd = NULL;
    fuzz_call("dnnl_primitive_get_primitive_desc(prim[%d])", i);
    dnnl_status_t s = dnnl_primitive_get_primitive_desc(p->h, &pd);
    check(s, NULL, "dnnl_primitive_get_primitive_desc");
    if (s != dnnl_success) return;
    xarg_t xa[40];
    int n = 0;
    if (too_much_work(pd)) {
        FUZZ_ADD(fz->extra[X_SKIPPED], 1);
        return;
    }
    dnnl_stream_t temp = NULL, stream = exec_stream(p, &temp);
    if (!stream || !build_args(p, pd, xa, &n)) {
        FUZZ_ADD(fz->extra[X_SKIPPED], 1);
        free_args(xa, n);
        if (temp) dnnl_stream_destroy(temp);
        return;
    }
    int sum = has_sum(pd);
    dnnl_exec_arg_t args[40];
    for (int k = 0; k < n; k++) {
        args[k].arg = xa[k].arg;
        args[k].memory = xa[k].mem;
    }
    unsigned char *first[40] = {0};
    size_t first_n[40] = {0};
    int ok = 1;
    char what[64];
    snprintf(what, sizeof what, "prim[%d] %s", i, kind_name[p->kind]);
    for (int run = 0; run < 2 && ok; run++) {
        for (int k = 0; k < n; k++)
            if (xa[k].out) {
                const_dnnl_memory_desc_t md = NULL;
                dnnl_memory_get_memory_desc(xa[k].mem, &md);
                map_fill(xa[k].mem, md, 1, sum ? 0x00 : run ? 0xff : 0x00);
            }
        s = execute(p->h, stream, n, args, NULL, what);
        if (s != dnnl_success) {
            /* The right arguments refused: worth a look, not a failure (an
             * implementation may refuse at execution, e.g. out of memory). */
            if (fz->extra[X_SKIPPED] < 3)
                printf("note: %s refused its own arguments: %s\n", what, check_status_str(s));
            FUZZ_ADD(fz->extra[X_SKIPPED], 1);
            ok = 0;
            break;
        }
        FUZZ_ADD(fz->extra[X_EXEC_OK], 1);
        for (int k = 0; k < n; k++) {
            if (!xa[k].out) continue;
            const_dnnl_memory_desc_t md = NULL;
            dnnl_memory_get_memory_desc(xa[k].mem, &md);
            size_t nb = 0;
            unsigned char *got = read_logical(xa[k].mem, md, &nb);
            if (selftest == 2 && run == 1 && got && nb) got[nb - 1] ^= 1;
            if (run == 0) {
                first[k] = got;
                first_n[k] = nb;
                continue;
            }
            if (got && first[k] && nb == first_n[k] && memcmp(got, first[k], nb) != 0) {
                size_t at = 0;
                while (at < nb && got[at] == first[k][at]) at++;
                fuzz_wrong("%s: output %d differs between two runs over outputs filled with "
                           "different bytes (first at byte %zu of %zu): an element was not written",
                        what, xa[k].arg, at, nb);
            }
            FUZZ_ADD(fz->extra[X_EXEC_CHECKED], 1);
            free(got);
        }
    }
    for (int k = 0; k < n; k++) free(first[k]);
    free_args(xa, n);
    if (temp) dnnl_stream_destroy(temp);
}

/* Executes a primitive (live or not) with arguments of which some are wrong. */
static void op_exec_wrong(void) {
    int i = PICK(prims, 90);
    uses_t u = {0, 0};
    USE(&u, prims, i);
    prim_slot_t *p = i >= 0 ? &prims[i] : NULL;
    xarg_t xa[40];
    int n = 0;
    dnnl_stream_t temp = NULL, stream = NULL;
    const_dnnl_primitive_desc_t pd = NULL;
    if (p && p->st == LIVE && p->eng >= 0 && p->eng2 >= 0 && eng[p->eng].st == LIVE && eng[p->eng2].st == LIVE
            && dnnl_primitive_get_primitive_desc(p->h, &pd) == dnnl_success) {
        stream = exec_stream(p, &temp);
        if (!build_args(p, pd, xa, &n)) {
            free_args(xa, n);
            n = 0;
        }
    }
    dnnl_exec_arg_t args[48];
    int adead[48] = {0}; /* the memory of args[k] is one the caller destroyed */
    int nargs = n, stream_dead = 0;
    for (int k = 0; k < n; k++) {
        args[k].arg = xa[k].arg;
        args[k].memory = xa[k].mem;
    }
    /* Mutations: 1 to 3 of them. */
    int nm = rng_int(&R, 1, 3);
    char desc[160] = "";
    size_t dl = 0;
    for (int k = 0; k < nm; k++) {
        int what = (int)rng_below(&R, 6);
        if (what == 0 && nargs > 0) { /* another memory from the pool */
            int slot = (int)rng_below(&R, (uint64_t)nargs), m = PICK(mems, 80);
            adead[slot] = STATE_OF(mems, m) == DEAD;
            args[slot].memory = HANDLE_OF(mems, m);
            dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " arg %d<-mem[%d]%s", args[slot].arg, m,
                    st_name(STATE_OF(mems, m)));
        } else if (what == 1 && nargs > 0) { /* one missing */
            int slot = (int)rng_below(&R, (uint64_t)nargs);
            dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " no arg %d", args[slot].arg);
            args[slot] = args[--nargs];
            adead[slot] = adead[nargs];
        } else if (what == 2 && nargs < 46) { /* an extra one */
            int m = PICK(mems, 80);
            adead[nargs] = STATE_OF(mems, m) == DEAD;
            args[nargs].arg = rand_arg();
            args[nargs].memory = HANDLE_OF(mems, m);
            dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " extra arg %d=mem[%d]%s", args[nargs].arg,
                    m, st_name(STATE_OF(mems, m)));
            nargs++;
        } else if (what == 3) { /* another stream */
            int st = PICK(strm, 80);
            stream_dead = STATE_OF(strm, st) == DEAD;
            stream = HANDLE_OF(strm, st);
            dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " strm[%d]%s", st, st_name(STATE_OF(strm, st)));
        } else if (what == 4 && nargs > 0) { /* a duplicate */
            if (nargs < 46) {
                int from = (int)rng_below(&R, (uint64_t)nargs);
                args[nargs] = args[from];
                adead[nargs] = adead[from];
                dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " duplicate arg %d", args[nargs].arg);
                nargs++;
            }
        } else { /* a NULL memory */
            if (nargs > 0) {
                int slot = (int)rng_below(&R, (uint64_t)nargs);
                args[slot].memory = NULL;
                adead[slot] = 0;
                dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " arg %d NULL", args[slot].arg);
            }
        }
        if (dl >= sizeof desc) dl = sizeof desc - 1;
    }
    int n_pass = nargs;
    const dnnl_exec_arg_t *pass = args;
    if (rng_pct(&R, 5)) {
        n_pass = rng_pct(&R, 50) ? -1 : 0;
        dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " nargs %d", n_pass);
    } else if (rng_pct(&R, 3)) {
        pass = NULL;
        dl += (size_t)snprintf(desc + dl, sizeof desc - dl, " args NULL");
    }
    /* The destroyed handles this execution is given. */
    if (stream_dead) u.dead = 1;
    for (int k = 0; pass && k < n_pass; k++)
        if (adead[k]) u.dead = 1;
    char what[240];
    snprintf(what, sizeof what, "prim[%d]%s, wrong:%s", i, st_name(STATE_OF(prims, i)), desc);
    dnnl_status_t s = execute(HANDLE_OF(prims, i), stream, n_pass, pass, &u, what);
    if (s == dnnl_success && p && pd && pass && n_pass > 0) {
        /* Accepted: every argument of the primitive that was passed must be a
         * live memory at least as large as the primitive's descriptor of it (of
         * an argument passed twice, one of them). */
        int empty = 0;
        for (int k = 0; k < n; k++)
            if (xa[k].out && xa[k].need == 0) empty = 1;
        for (int k = 0; k < n && !empty; k++) {
            /* Scales and zero points of an empty argument are never read. */
            int base = xa[k].arg & ~(DNNL_ARG_ATTR_SCALES | DNNL_ARG_ATTR_ZERO_POINTS);
            int skip = 0;
            if (base != xa[k].arg)
                for (int b = 0; b < n; b++)
                    if (xa[b].arg == base && xa[b].need == 0) skip = 1;
            int seen = 0, good = 0, resolved = 0;
            size_t have = 0;
            for (int j = 0; j < nargs; j++) {
                if (args[j].arg != xa[k].arg) continue;
                seen++;
                const_dnnl_memory_desc_t md = NULL;
                if (!args[j].memory || dnnl_memory_get_memory_desc(args[j].memory, &md) != dnnl_success)
                    continue;
                resolved = 1;
                have = md_size(md);
                if (have >= xa[k].need) good = 1;
            }
            if (seen && !good && !skip && xa[k].need > 0)
                fuzz_wrong("%s: execution accepted %s for argument %d, which takes %zu bytes", what,
                        resolved ? "a smaller memory" : "a NULL or dead memory", xa[k].arg, xa[k].need);
        }
    }
    free_args(xa, n);
    if (temp) dnnl_stream_destroy(temp);
}

/* ---- a sequence ------------------------------------------------------------------ */

/* Destroys everything the sequence made (live handles must go with success). */
static void cleanup(void) {
    for (int i = 0; i < N_PRIM; i++)
        if (prims[i].st == LIVE) {
            fuzz_call("cleanup: dnnl_primitive_destroy(prim[%d])", i);
            dnnl_status_t s = dnnl_primitive_destroy(prims[i].h);
            check(s, NULL, "dnnl_primitive_destroy");
            if (s) fuzz_wrong("destroying a live primitive returned %s", check_status_str(s));
        }
    for (int i = 0; i < N_PD; i++)
        if (pds[i].st == LIVE) {
            fuzz_call("cleanup: dnnl_primitive_desc_destroy(pd[%d])", i);
            dnnl_status_t s = dnnl_primitive_desc_destroy(pds[i].h);
            check(s, NULL, "dnnl_primitive_desc_destroy");
            if (s) fuzz_wrong("destroying a live pd returned %s", check_status_str(s));
        }
    for (int i = 0; i < N_MEM; i++)
        if (mems[i].st == LIVE) {
            fuzz_call("cleanup: dnnl_memory_destroy(mem[%d])", i);
            dnnl_status_t s = dnnl_memory_destroy(mems[i].h);
            check(s, NULL, "dnnl_memory_destroy");
            if (s) fuzz_wrong("destroying a live memory returned %s", check_status_str(s));
        }
    for (int i = 0; i < N_MD; i++)
        if (mds[i].st == LIVE && mds[i].owner_pd < 0 && mds[i].owner_mem < 0) {
            fuzz_call("cleanup: dnnl_memory_desc_destroy(md[%d])", i);
            dnnl_status_t s = dnnl_memory_desc_destroy(mds[i].h);
            check(s, NULL, "dnnl_memory_desc_destroy");
            if (s) fuzz_wrong("destroying a live memory descriptor returned %s", check_status_str(s));
        }
    for (int i = 0; i < N_ATTR; i++)
        if (attrs[i].st == LIVE) {
            fuzz_call("cleanup: dnnl_primitive_attr_destroy(attr[%d])", i);
            check(dnnl_primitive_attr_destroy(attrs[i].h), NULL, "dnnl_primitive_attr_destroy");
        }
    for (int i = 0; i < N_PO; i++)
        if (pos[i].st == LIVE) {
            fuzz_call("cleanup: dnnl_post_ops_destroy(po[%d])", i);
            check(dnnl_post_ops_destroy(pos[i].h), NULL, "dnnl_post_ops_destroy");
        }
    for (int i = 0; i < N_STREAM; i++)
        if (strm[i].st == LIVE) {
            fuzz_call("cleanup: dnnl_stream_destroy(strm[%d])", i);
            check(dnnl_stream_destroy(strm[i].h), NULL, "dnnl_stream_destroy");
        }
    for (int i = 0; i < N_ENG; i++)
        if (eng[i].st == LIVE && !eng[i].base) {
            fuzz_call("cleanup: dnnl_engine_destroy(eng[%d])", i);
            check(dnnl_engine_destroy(eng[i].h), NULL, "dnnl_engine_destroy");
            eng[i].st = EMPTY;
        } else if (!eng[i].base) {
            eng[i].st = EMPTY;
        }
    check_canaries("the sequence");
    free_bufs();
    memset(strm, 0, sizeof strm);
    memset(mds, 0, sizeof mds);
    memset(mems, 0, sizeof mems);
    memset(attrs, 0, sizeof attrs);
    memset(pos, 0, sizeof pos);
    memset(pds, 0, sizeof pds);
    memset(prims, 0, sizeof prims);
}

static void sequence(uint64_t item) {
    R = rng_for(fz->seed, item);
    for (uint64_t c = 0; fz->step < calls_per_seq && c < calls_per_seq; c++) {
        uint64_t op = rng_below(&R, 100);
        if (op < 3) op_engine_create();
        else if (op < 5) op_engine_destroy();
        else if (op < 7) op_engine_query();
        else if (op < 10) op_stream_create();
        else if (op < 12) op_stream_destroy();
        else if (op < 14) op_stream_use();
        else if (op < 24) op_md_create();
        else if (op < 28) op_md_destroy();
        else if (op < 32) op_md_query();
        else if (op < 37) op_memory_create();
        else if (op < 40) op_memory_destroy();
        else if (op < 44) op_memory_use();
        else if (op < 49) op_attr();
        else if (op < 54) op_post_ops();
        else if (op < 58) op_pd_random();
        else if (op < 68) op_pd_valid();
        else if (op < 72) op_pd_other();
        else if (op < 80) op_prim();
        else if (op < 92) op_exec_right();
        else op_exec_wrong();
    }
    cleanup();
}

static void body(uint64_t start, uint64_t end, void *arg) {
    (void)arg;
    fuzz_quiet_library();
    make_base_engines();
    init_f16_table();
    for (uint64_t item = start; item < end; item++) {
        fz->item = item;
        fz->step = 0;
        fz->ring_pos = 0;
        alarm(120);
        sequence(item);
    }
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    fuzz_init("fuzz_calls", on_gpu ? "gpu" : "cpu", 0x5eed);
    fuzz_name_extra(X_PD_OK, "pds");
    fuzz_name_extra(X_EXEC_OK, "executes_ok");
    fuzz_name_extra(X_EXEC_CHECKED, "outputs_checked");
    fuzz_name_extra(X_DEAD_USES, "destroyed_handle_uses");
    fuzz_name_extra(X_STALE, "destroyed_handle_accepted");
    fuzz_name_extra(X_RUNTIME_ERR, "runtime_errors");
    fuzz_name_extra(X_ORPHAN_OK, "orphan_accepted");
    fuzz_name_extra(X_SKIPPED, "executes_skipped");
    xfail_stale = (int)fuzz_env_u64("FUZZ_XFAIL_STALE", XFAIL_STALE_DEFAULT);
    if (fuzz_env_u64("FUZZ_XFAIL_CONCAT_PANIC", XFAIL_CONCAT_PANIC_DEFAULT))
        fuzz_known_panic("src/prims/concat/mod.rs",
                "issue 18: concat of some 1-D or 0-D sources panics in prims/concat (fix on "
                "another branch)");
    calls_per_seq = fuzz_env_u64("FUZZ_CALLS_PER_SEQ", 400);
    selftest = (int)fuzz_env_u64("FUZZ_SELFTEST", 0);
    uint64_t first = fuzz_env_u64("FUZZ_FIRST", 0);
    uint64_t count = fuzz_env_u64("FUZZ_SEQUENCES", getenv("FUZZ_FIRST") ? 1 : on_gpu ? 8 : 300);
    if (on_gpu) {
        /* Asked in a child: the parent must not start OpenCL before forking. */
        pid_t pid = fork();
        if (pid == 0) _exit(dnnl_engine_get_count(dnnl_gpu) > 0 ? 0 : 3);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) SKIP("no OpenCL device");
    }
    printf("fuzz_calls[%s]: seed=0x%" PRIx64 " sequences %" PRIu64 "..%" PRIu64
           " of %" PRIu64 " calls each\n",
            fz->mode, fz->seed, first, first + count - 1, calls_per_seq);
    char repro[128];
    snprintf(repro, sizeof repro, "fuzz_calls %s", fz->mode);
    fuzz_run(first, first + count, 600, body, NULL, repro);
    return fuzz_finish();
}
