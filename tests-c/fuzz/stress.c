/* Threads sharing engines and primitives.
 *
 * One engine (the CPU engine, or with `gpu` the first OpenCL engine) and nine
 * primitives of eight kinds made on it once: eltwise (GELU with a linear
 * post-op), binary (add with a broadcast source and a ReLU post-op), softmax,
 * reorder (nchw to a 16-channel-blocked layout), sum of three, concat of two,
 * matmul (batched, with bias and a binary post-op), inner product, and a bf16
 * matmul. The main thread first runs each once, alone, over fixed inputs: those
 * outputs are the reference. Then FUZZ_THREADS threads (default 16), each with
 * its own stream and its own memories over the same inputs, run
 * FUZZ_ITERATIONS executions each (default 200 on the CPU engine, 40 on
 * OpenCL) of the shared primitives in a seeded random order, their outputs
 * filled with junk bytes before each, and compare every output bit for bit
 * with the reference. Every 16th iteration a thread also makes a primitive of
 * its own from the shared descriptor (through the primitive cache, which the
 * threads share), executes it, and destroys it. Counts: executions, mismatches.
 *
 * Usage: stress [cpu|gpu]. Environment: FUZZ_THREADS, FUZZ_ITERATIONS, FUZZ_SEED. */
#include "fuzz.h"

#include <pthread.h>

enum { X_EXECUTES, X_MISMATCHES, X_THREADS };

#define NCASES 9
#define MAX_ARGS 8

typedef struct {
    const char *name;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    int nargs;
    int arg[MAX_ARGS];
    int out; /* index of the output in arg[] */
    unsigned char *ref;
    size_t ref_size;
} case_t;

static dnnl_engine_t engine;
static case_t cases[NCASES];
/* FUZZ_SELFTEST=1 (README.md): thread 3 changes one output byte once -- which
 * must fail the run. */
static int selftest;
static uint64_t iterations;

static dnnl_memory_desc_t md_tag(int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, nd, dims, dt, tag));
    return md;
}

/* Deterministic input bytes: small values of the argument's type. */
static void fill_input(void *p, size_t size, dnnl_data_type_t dt, int salt) {
    if (dt == dnnl_bf16) {
        for (size_t k = 0; k < size / 2; k++) {
            float f = (float)((int)((k * 5 + (size_t)salt) % 11) - 5) * 0.25f;
            uint32_t b;
            memcpy(&b, &f, 4);
            uint16_t h = (uint16_t)(b >> 16);
            memcpy((unsigned char *)p + 2 * k, &h, 2);
        }
        return;
    }
    for (size_t k = 0; k < size / 4; k++) {
        float f = (float)((int)((k * 5 + (size_t)salt) % 11) - 5) * 0.25f;
        memcpy((unsigned char *)p + 4 * k, &f, 4);
    }
}

/* Memories for case `c` on `engine`, inputs filled; the output filled with `junk`. */
static void make_memories(const case_t *c, dnnl_memory_t *mems) {
    for (int k = 0; k < c->nargs; k++) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(c->pd, dnnl_query_exec_arg_md, c->arg[k]);
        EXPECT(md != NULL);
        CHECK(dnnl_memory_create(&mems[k], md, engine, DNNL_MEMORY_ALLOCATE));
        if (k == c->out) continue;
        size_t size = dnnl_memory_desc_get_size(md);
        dnnl_data_type_t dt = dnnl_f32;
        CHECK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
        void *p = NULL;
        CHECK(dnnl_memory_map_data(mems[k], &p));
        fill_input(p, size, dt, c->arg[k]);
        CHECK(dnnl_memory_unmap_data(mems[k], p));
    }
}

static void set_output(dnnl_memory_t m, int byte) {
    const_dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_get_memory_desc(m, &md));
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    memset(p, byte, dnnl_memory_desc_get_size(md));
    CHECK(dnnl_memory_unmap_data(m, p));
}

/* The output's bytes (the whole buffer: padding included, which the
 * primitives write as zeros). */
static unsigned char *get_output(dnnl_memory_t m, size_t *size) {
    const_dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_get_memory_desc(m, &md));
    *size = dnnl_memory_desc_get_size(md);
    unsigned char *out = malloc(*size ? *size : 1);
    EXPECT(out);
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    memcpy(out, p, *size);
    CHECK(dnnl_memory_unmap_data(m, p));
    return out;
}

static dnnl_status_t run(dnnl_primitive_t prim, const case_t *c, dnnl_stream_t stream,
        dnnl_memory_t *mems) {
    dnnl_exec_arg_t args[MAX_ARGS];
    for (int k = 0; k < c->nargs; k++) {
        args[k].arg = c->arg[k];
        args[k].memory = mems[k];
    }
    dnnl_status_t s = dnnl_primitive_execute(prim, stream, c->nargs, args);
    if (s == dnnl_success) s = dnnl_stream_wait(stream);
    return s;
}

static void add_case(int i, const char *name, dnnl_primitive_desc_t pd, int nargs, const int *args,
        int out) {
    case_t *c = &cases[i];
    c->name = name;
    c->pd = pd;
    c->nargs = nargs;
    memcpy(c->arg, args, sizeof(int) * (size_t)nargs);
    c->out = out;
    CHECK(dnnl_primitive_create(&c->prim, pd));
}

static dnnl_primitive_attr_t attr_with(void (*append)(dnnl_post_ops_t)) {
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_attr_t a = NULL;
    CHECK(dnnl_post_ops_create(&po));
    append(po);
    CHECK(dnnl_primitive_attr_create(&a));
    CHECK(dnnl_primitive_attr_set_post_ops(a, po));
    CHECK(dnnl_post_ops_destroy(po));
    return a;
}
static void po_linear(dnnl_post_ops_t po) {
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 0.5f, 1.0f));
}
static void po_relu(dnnl_post_ops_t po) {
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.0f, 0.0f));
}
static void po_binary(dnnl_post_ops_t po) {
    dnnl_dims_t d = {1, 1, 24};
    dnnl_memory_desc_t md = md_tag(3, d, dnnl_f32, dnnl_abc);
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_mul, md));
    CHECK(dnnl_memory_desc_destroy(md));
}

static void make_cases(void) {
    dnnl_dims_t d4 = {4, 32, 6, 5}, b4 = {1, 32, 1, 5}, half = {2, 32, 6, 5};
    dnnl_memory_desc_t x = md_tag(4, d4, dnnl_f32, dnnl_nchw), xb = md_tag(4, b4, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t blocked = md_tag(4, d4, dnnl_f32, dnnl_nChw16c), h = md_tag(4, half, dnnl_f32, dnnl_nchw);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t a = NULL;
    int src_dst[2] = {DNNL_ARG_SRC, DNNL_ARG_DST};

    a = attr_with(po_linear);
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_gelu_erf, x, x, 0.0f, 0.0f, a));
    CHECK(dnnl_primitive_attr_destroy(a));
    add_case(0, "eltwise", pd, 2, src_dst, 1);

    a = attr_with(po_relu);
    CHECK(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, x, xb, x, a));
    CHECK(dnnl_primitive_attr_destroy(a));
    int bin[3] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST};
    add_case(1, "binary", pd, 3, bin, 2);

    CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_softmax_accurate, x, x, 1, NULL));
    add_case(2, "softmax", pd, 2, src_dst, 1);

    CHECK(dnnl_reorder_primitive_desc_create(&pd, x, engine, blocked, engine, NULL));
    add_case(3, "reorder", pd, 2, src_dst, 1);

    const_dnnl_memory_desc_t three[3] = {x, x, x};
    float scales[3] = {1.0f, -0.5f, 2.0f};
    CHECK(dnnl_sum_primitive_desc_create(&pd, engine, x, 3, scales, three, NULL));
    int sum[4] = {DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1, DNNL_ARG_MULTIPLE_SRC + 2,
            DNNL_ARG_DST};
    add_case(4, "sum", pd, 4, sum, 3);

    const_dnnl_memory_desc_t two[2] = {h, h};
    CHECK(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 0, two, NULL));
    int cat[3] = {DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1, DNNL_ARG_DST};
    add_case(5, "concat", pd, 3, cat, 2);

    for (int bf = 0; bf < 2; bf++) {
        dnnl_dims_t s = {3, 17, 40}, w = {3, 40, 24}, d = {3, 17, 24}, bias = {1, 1, 24};
        dnnl_data_type_t dt = bf ? dnnl_bf16 : dnnl_f32;
        dnnl_memory_desc_t ms = md_tag(3, s, dt, dnnl_abc), mw = md_tag(3, w, dt, dnnl_acb),
                           md = md_tag(3, d, bf ? dnnl_f32 : dt, dnnl_abc),
                           mb = md_tag(3, bias, dnnl_f32, dnnl_abc);
        a = bf ? NULL : attr_with(po_binary);
        CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, ms, mw, bf ? NULL : mb, md, a));
        if (a) CHECK(dnnl_primitive_attr_destroy(a));
        int mm[5] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_BIAS,
                DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1};
        add_case(6 + bf, bf ? "matmul_bf16" : "matmul", pd, bf ? 3 : 5, mm, 2);
        CHECK(dnnl_memory_desc_destroy(ms));
        CHECK(dnnl_memory_desc_destroy(mw));
        CHECK(dnnl_memory_desc_destroy(md));
        CHECK(dnnl_memory_desc_destroy(mb));
    }

    dnnl_dims_t wd = {16, 32, 6, 5}, dd = {4, 16}, bd = {16};
    dnnl_memory_desc_t w = md_tag(4, wd, dnnl_f32, dnnl_format_tag_any),
                       dst = md_tag(2, dd, dnnl_f32, dnnl_nc), bias = md_tag(1, bd, dnnl_f32, dnnl_x);
    CHECK(dnnl_inner_product_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference, x, w,
            bias, dst, NULL));
    int ip[4] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST};
    add_case(8, "inner_product", pd, 4, ip, 3);
    CHECK(dnnl_memory_desc_destroy(w));
    CHECK(dnnl_memory_desc_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(bias));
    CHECK(dnnl_memory_desc_destroy(x));
    CHECK(dnnl_memory_desc_destroy(xb));
    CHECK(dnnl_memory_desc_destroy(blocked));
    CHECK(dnnl_memory_desc_destroy(h));
}

/* ---- the threads ------------------------------------------------------------------ */

typedef struct {
    int id;
} thread_arg_t;

static void *worker(void *p) {
    int id = ((thread_arg_t *)p)->id;
    rng_t r = rng_for(fz->seed, (uint64_t)id + 1);
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_memory_t mems[NCASES][MAX_ARGS];
    for (int c = 0; c < NCASES; c++) make_memories(&cases[c], mems[c]);
    for (uint64_t it = 0; it < iterations; it++) {
        int c = (int)rng_below(&r, NCASES);
        const case_t *cs = &cases[c];
        dnnl_memory_t out = mems[c][cs->out];
        set_output(out, (int)(0xA0 + (it & 0x1f)));
        dnnl_primitive_t prim = cs->prim, own = NULL;
        if (it % 16 == 15) {
            CHECK(dnnl_primitive_create(&own, cs->pd));
            prim = own;
        }
        dnnl_status_t s = run(prim, cs, stream, mems[c]);
        FUZZ_ADD(fz->calls, 4);
        FUZZ_ADD(fz->extra[X_EXECUTES], 1);
        if (s != dnnl_success) {
            fuzz_wrong("thread %d: %s returned %s", id, cs->name, check_status_str(s));
        } else {
            size_t size = 0;
            unsigned char *got = get_output(out, &size);
            if (selftest == 1 && id == 3 && it == 5 && size) got[size / 2] ^= 1;
            if (size != cs->ref_size || memcmp(got, cs->ref, size) != 0) {
                size_t at = 0;
                while (at < size && at < cs->ref_size && got[at] == cs->ref[at]) at++;
                FUZZ_ADD(fz->extra[X_MISMATCHES], 1);
                fuzz_wrong("thread %d iteration %" PRIu64 ": %s%s differs from the single-threaded "
                           "run at byte %zu of %zu",
                        id, it, cs->name, own ? " (own primitive)" : "", at, size);
            }
            free(got);
        }
        if (own) CHECK(dnnl_primitive_destroy(own));
    }
    for (int c = 0; c < NCASES; c++)
        for (int k = 0; k < cases[c].nargs; k++) CHECK(dnnl_memory_destroy(mems[c][k]));
    CHECK(dnnl_stream_destroy(stream));
    return NULL;
}

static int on_gpu;

static void body(uint64_t start, uint64_t end, void *arg) {
    (void)start;
    (void)end;
    (void)arg;
    fuzz_quiet_library();
    alarm(590);
    fuzz_call("engine and primitives");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    make_cases();
    /* The reference: each primitive alone, on the main thread. */
    fuzz_call("single-threaded reference runs");
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    for (int c = 0; c < NCASES; c++) {
        dnnl_memory_t mems[MAX_ARGS];
        make_memories(&cases[c], mems);
        set_output(mems[cases[c].out], 0x55);
        CHECK(run(cases[c].prim, &cases[c], stream, mems));
        cases[c].ref = get_output(mems[cases[c].out], &cases[c].ref_size);
        for (int k = 0; k < cases[c].nargs; k++) CHECK(dnnl_memory_destroy(mems[k]));
    }
    CHECK(dnnl_stream_destroy(stream));
    int nthreads = (int)fuzz_env_u64("FUZZ_THREADS", 16);
    if (nthreads > 256) nthreads = 256;
    pthread_t th[256];
    thread_arg_t ta[256];
    fuzz_call("%d threads x %" PRIu64 " executions", nthreads, iterations);
    for (int t = 0; t < nthreads; t++) {
        ta[t].id = t;
        EXPECT(pthread_create(&th[t], NULL, worker, &ta[t]) == 0);
        FUZZ_ADD(fz->extra[X_THREADS], 1);
    }
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    for (int c = 0; c < NCASES; c++) {
        free(cases[c].ref);
        CHECK(dnnl_primitive_destroy(cases[c].prim));
        CHECK(dnnl_primitive_desc_destroy(cases[c].pd));
    }
    fuzz_check_panic();
    CHECK(dnnl_engine_destroy(engine));
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    fuzz_init("stress", on_gpu ? "gpu" : "cpu", 7);
    fuzz_name_extra(X_EXECUTES, "executes");
    fuzz_name_extra(X_MISMATCHES, "mismatches");
    fuzz_name_extra(X_THREADS, "threads");
    iterations = fuzz_env_u64("FUZZ_ITERATIONS", on_gpu ? 40 : 200);
    selftest = (int)fuzz_env_u64("FUZZ_SELFTEST", 0);
    if (on_gpu) {
        /* Asked in a child: the parent must not start OpenCL before forking. */
        pid_t pid = fork();
        if (pid == 0) _exit(dnnl_engine_get_count(dnnl_gpu) > 0 ? 0 : 3);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) SKIP("no OpenCL device");
    }
    fuzz_run(0, 1, 600, body, NULL, on_gpu ? "stress gpu" : "stress cpu");
    return fuzz_finish();
}
