// The CPU GEMM's users through the public C API, for any libdnnl.so.3: matmul f32
// (square and skinny), an inner product, dnnl_sgemm (NN, TN, NT; square and skinny)
// and an LSTM inference layer (its figure: milliseconds per time step). Link once
// against ours; LD_LIBRARY_PATH swaps in another library (an older build of ours, or
// Intel's), so one program compares them:
//
//   cc -O2 -Iinclude bench-c/gemm_vs_ref.c -o /tmp/gemm_vs_ref -Ltarget/release -ldnnl
//   for lib in target/release /tmp/before .venv/lib; do
//     LD_LIBRARY_PATH=$lib /tmp/gemm_vs_ref; done
//
// (Intel's PyPI build needs OCL_ICD_VENDORS=$PWD/.venv/icd/intel for its CPU engine.)
// Each figure is the mean of about 0.4 s of runs after a warm-up.
#define _POSIX_C_SOURCE 199309L
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static dnnl_engine_t eng;
static dnnl_stream_t strm;
static const char *only;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int wanted(const char *name) { return !only || strstr(name, only); }

static dnnl_memory_t mem(const_dnnl_memory_desc_t md) {
    dnnl_memory_t m;
    if (dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success) return NULL;
    void *p;
    if (dnnl_memory_map_data(m, &p) == dnnl_success) {
        size_t n = dnnl_memory_desc_get_size(md) / 4;
        for (size_t i = 0; i < n; i++) ((float *)p)[i] = (float)(i % 97) / 97.f - 0.5f;
        dnnl_memory_unmap_data(m, p);
    }
    return m;
}

// Seconds per call of `f`: one warm-up, then about 0.4 s of calls (3 to 200).
typedef void (*call_fn)(void *);
static double timed(call_fn f, void *ctx) {
    f(ctx);
    double t0 = now();
    f(ctx);
    double once = now() - t0;
    int it = (int)(0.4 / (once > 1e-6 ? once : 1e-6));
    if (it < 3) it = 3;
    if (it > 200) it = 200;
    t0 = now();
    for (int i = 0; i < it; i++) f(ctx);
    return (now() - t0) / it;
}

struct prim {
    dnnl_primitive_t p;
    int nargs;
    dnnl_exec_arg_t args[16];
};

static void exec_prim(void *ctx) {
    struct prim *p = ctx;
    dnnl_primitive_execute(p->p, strm, p->nargs, p->args);
    dnnl_stream_wait(strm);
}

static void finish(struct prim *p, dnnl_primitive_desc_t pd) {
    for (int i = 0; i < p->nargs; i++) dnnl_memory_destroy(p->args[i].memory);
    dnnl_primitive_destroy(p->p);
    dnnl_primitive_desc_destroy(pd);
}

static const char *impl(dnnl_primitive_desc_t pd) {
    const char *s = "";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &s);
    return s;
}

static void matmul(int64_t m, int64_t k, int64_t n) {
    char name[96];
    snprintf(name, sizeof name, "matmul f32 %ldx%ldx%ld", (long)m, (long)k, (long)n);
    if (!wanted(name)) return;
    dnnl_memory_desc_t a, b, c;
    dnnl_dims_t da = {m, k}, db = {k, n}, dc = {m, n};
    dnnl_memory_desc_create_with_tag(&a, 2, da, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&b, 2, db, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&c, 2, dc, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd;
    if (dnnl_matmul_primitive_desc_create(&pd, eng, a, b, NULL, c, NULL) != dnnl_success) {
        printf("row|%s|-|refused|-\n", name);
        return;
    }
    struct prim p = {.nargs = 3};
    dnnl_primitive_create(&p.p, pd);
    p.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mem(a)};
    p.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mem(b)};
    p.args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, mem(c)};
    double t = timed(exec_prim, &p);
    printf("row|%s|%.2f|GFLOP/s|%s\n", name, 2.0 * m * k * n / t / 1e9, impl(pd));
    finish(&p, pd);
}

// Inner product forward: mb x ic -> mb x oc, weights oc x ic, with bias.
static void inner_product(int64_t mb, int64_t ic, int64_t oc) {
    char name[96];
    snprintf(name, sizeof name, "inner_product f32 mb%ld ic%ld oc%ld", (long)mb, (long)ic, (long)oc);
    if (!wanted(name)) return;
    dnnl_memory_desc_t s, w, b, d;
    dnnl_dims_t ds = {mb, ic}, dw = {oc, ic}, db = {oc}, dd = {mb, oc};
    dnnl_memory_desc_create_with_tag(&s, 2, ds, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&w, 2, dw, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&b, 1, db, dnnl_f32, dnnl_a);
    dnnl_memory_desc_create_with_tag(&d, 2, dd, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd;
    if (dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, s, w, b,
                                                         d, NULL) != dnnl_success) {
        printf("row|%s|-|refused|-\n", name);
        return;
    }
    struct prim p = {.nargs = 4};
    dnnl_primitive_create(&p.p, pd);
    p.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mem(s)};
    p.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mem(w)};
    p.args[2] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, mem(b)};
    p.args[3] = (dnnl_exec_arg_t){DNNL_ARG_DST, mem(d)};
    double t = timed(exec_prim, &p);
    printf("row|%s|%.2f|GFLOP/s|%s\n", name, 2.0 * mb * ic * oc / t / 1e9, impl(pd));
    finish(&p, pd);
}

struct sgemm_args {
    char ta, tb;
    dnnl_dim_t m, n, k;
    float *a, *b, *c;
};

static void exec_sgemm(void *ctx) {
    struct sgemm_args *g = ctx;
    dnnl_dim_t lda = g->ta == 'N' ? g->k : g->m;
    dnnl_dim_t ldb = g->tb == 'N' ? g->n : g->k;
    dnnl_sgemm(g->ta, g->tb, g->m, g->n, g->k, 1.0f, g->a, lda, g->b, ldb, 0.5f, g->c, g->n);
}

static void sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k) {
    char name[96];
    snprintf(name, sizeof name, "sgemm %c%c %ldx%ldx%ld", ta, tb, (long)m, (long)n, (long)k);
    if (!wanted(name)) return;
    struct sgemm_args g = {ta, tb, m, n, k, malloc(sizeof(float) * m * k),
                           malloc(sizeof(float) * k * n), malloc(sizeof(float) * m * n)};
    for (int64_t i = 0; i < m * k; i++) g.a[i] = (float)(i % 89) / 89.f - 0.5f;
    for (int64_t i = 0; i < k * n; i++) g.b[i] = (float)(i % 83) / 83.f - 0.5f;
    memset(g.c, 0, sizeof(float) * m * n);
    double t = timed(exec_sgemm, &g);
    printf("row|%s|%.2f|GFLOP/s|dnnl_sgemm\n", name, 2.0 * m * n * k / t / 1e9);
    free(g.a);
    free(g.b);
    free(g.c);
}

// LSTM forward inference, one layer left to right: t steps, batch mb, c channels.
static void lstm(int64_t t, int64_t mb, int64_t c) {
    char name[96];
    snprintf(name, sizeof name, "lstm f32 T%ld N%ld C%ld", (long)t, (long)mb, (long)c);
    if (!wanted(name)) return;
    dnnl_memory_desc_t src, wl, wi, bias, dst;
    dnnl_dims_t ds = {t, mb, c}, dwl = {1, 1, c, 4, c}, dbias = {1, 1, 4, c};
    dnnl_memory_desc_create_with_tag(&src, 3, ds, dnnl_f32, dnnl_tnc);
    dnnl_memory_desc_create_with_tag(&dst, 3, ds, dnnl_f32, dnnl_tnc);
    dnnl_memory_desc_create_with_tag(&wl, 5, dwl, dnnl_f32, dnnl_ldigo);
    dnnl_memory_desc_create_with_tag(&wi, 5, dwl, dnnl_f32, dnnl_ldigo);
    dnnl_memory_desc_create_with_tag(&bias, 4, dbias, dnnl_f32, dnnl_ldgo);
    dnnl_primitive_desc_t pd;
    if (dnnl_lstm_forward_primitive_desc_create(
            &pd, eng, dnnl_forward_inference, dnnl_unidirectional_left2right, src, NULL, NULL, wl,
            wi, NULL, NULL, bias, dst, NULL, NULL, 0, NULL) != dnnl_success) {
        printf("row|%s|-|refused|-\n", name);
        return;
    }
    struct prim p = {.nargs = 5};
    dnnl_primitive_create(&p.p, pd);
    p.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC_LAYER, mem(src)};
    p.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS_LAYER, mem(wl)};
    p.args[2] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS_ITER, mem(wi)};
    p.args[3] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, mem(bias)};
    p.args[4] = (dnnl_exec_arg_t){DNNL_ARG_DST_LAYER, mem(dst)};
    const_dnnl_memory_desc_t scratch =
        dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SCRATCHPAD);
    if (scratch && dnnl_memory_desc_get_size(scratch) > 0) {
        p.args[p.nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, mem(scratch)};
    }
    double s = timed(exec_prim, &p);
    printf("row|%s|%.3f|ms/step|%s\n", name, s * 1e3 / (double)t, impl(pd));
    finish(&p, pd);
}

int main(int argc, char **argv) {
    only = argc > 1 ? argv[1] : NULL;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) return 1;
    if (dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) != dnnl_success) return 1;
    const dnnl_version_t *v = dnnl_version();
    printf("lib|%d.%d.%d|%s\n", v->major, v->minor, v->patch, v->hash);
    matmul(1024, 1024, 1024);
    matmul(2048, 2048, 2048);
    matmul(64, 4096, 4096);
    matmul(4096, 4096, 64);
    inner_product(256, 4096, 1024);
    inner_product(64, 1024, 4096);
    sgemm('N', 'N', 1024, 1024, 1024);
    sgemm('T', 'N', 1024, 1024, 1024);
    sgemm('N', 'T', 1024, 1024, 1024);
    sgemm('N', 'N', 2048, 2048, 2048);
    sgemm('N', 'N', 64, 4096, 4096);
    lstm(50, 64, 1024);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
