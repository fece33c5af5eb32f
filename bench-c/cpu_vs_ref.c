// CPU primitive throughput through the public oneDNN C API, for any libdnnl.so.3.
//
// The program links libdnnl.so.3 by its SONAME with a RUNPATH to ours; started with
// LD_LIBRARY_PATH=<dir of another libdnnl.so.3> it runs that one instead, so one
// binary times both libraries (bench-c/cpu_vs_ref.sh runs it twice, as child
// processes, and prints the side-by-side table).
//
// usage: cpu_vs_ref [quick] [text]   (text: only the ops whose name contains it)
// Output: one `lib|<version>|<hash>|<effective isa>` line, then per op
// `row|<op>|<figure>|<unit>|<implementation>` (figure `-` and the status when the
// library refuses the op). GB/s count each tensor read or written once.
#define _POSIX_C_SOURCE 199309L
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static dnnl_engine_t eng;
static dnnl_stream_t strm;
static int quick;
static const char *only;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint16_t to_f16(float f) {
    // Values here are small normal numbers (|f| <= 1, or 0): no rounding subtleties.
    union { float f; uint32_t u; } v = {f};
    uint32_t sign = (v.u >> 16) & 0x8000u;
    int32_t exp = (int32_t)((v.u >> 23) & 0xff) - 127 + 15;
    if (exp <= 0) return (uint16_t)sign;
    return (uint16_t)(sign | ((uint32_t)exp << 10) | ((v.u >> 13) & 0x3ffu));
}

// Fills a memory with values in [-0.5, 0.5) of its data type.
static void fill(dnnl_memory_t m, const_dnnl_memory_desc_t md) {
    dnnl_data_type_t dt = dnnl_f32;
    dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
    size_t bytes = dnnl_memory_desc_get_size(md);
    void *p;
    if (dnnl_memory_map_data(m, &p) != dnnl_success) return;
    size_t size = dt == dnnl_f32 || dt == dnnl_s32 ? 4 : dt == dnnl_u8 || dt == dnnl_s8 ? 1 : 2;
    for (size_t i = 0; i < bytes / size; i++) {
        float x = (float)(i % 97) / 97.f - 0.5f;
        union { float f; uint32_t u; } v = {x};
        if (dt == dnnl_u8)
            ((uint8_t *)p)[i] = (uint8_t)(i % 97);
        else if (dt == dnnl_s8)
            ((int8_t *)p)[i] = (int8_t)((int)(i % 97) - 48);
        else if (dt == dnnl_s32)
            ((int32_t *)p)[i] = 0;
        else if (dt == dnnl_f32)
            ((float *)p)[i] = x;
        else if (dt == dnnl_bf16)
            ((uint16_t *)p)[i] = (uint16_t)(v.u >> 16);
        else
            ((uint16_t *)p)[i] = to_f16(x);
    }
    dnnl_memory_unmap_data(m, p);
}

static dnnl_memory_t mem(const_dnnl_memory_desc_t md) {
    dnnl_memory_t m;
    if (dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success) return NULL;
    fill(m, md);
    return m;
}

// Seconds per execution: one warm-up, then enough runs for about 0.4 s (at least 3).
static double run(dnnl_primitive_t p, int nargs, dnnl_exec_arg_t *args) {
    dnnl_primitive_execute(p, strm, nargs, args);
    dnnl_stream_wait(strm);
    double t0 = now();
    dnnl_primitive_execute(p, strm, nargs, args);
    dnnl_stream_wait(strm);
    double once = now() - t0;
    int it = (int)(0.4 / (once > 1e-6 ? once : 1e-6));
    if (it < 3) it = 3;
    if (it > 200) it = 200;
    t0 = now();
    for (int i = 0; i < it; i++) dnnl_primitive_execute(p, strm, nargs, args);
    dnnl_stream_wait(strm);
    return (now() - t0) / it;
}

static const char *impl(const_dnnl_primitive_desc_t pd) {
    const char *s = "";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &s);
    return s;
}

// Creates the primitive of `pd` (taking it), times it with fresh memories of the given
// descriptors and prints the row: `per_run` units (bytes or flops) per execution.
static void time_pd(const char *name, dnnl_status_t st, dnnl_primitive_desc_t pd, int nargs,
                    const int *arg_ids, const_dnnl_memory_desc_t *mds, double per_run,
                    const char *unit) {
    if (only && !strstr(name, only)) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        return;
    }
    dnnl_primitive_t p = NULL;
    if (st == dnnl_success) st = dnnl_primitive_create(&p, pd);
    if (st != dnnl_success) {
        printf("row|%s|-|status %d|\n", name, (int)st);
        if (pd) dnnl_primitive_desc_destroy(pd);
        fflush(stdout);
        return;
    }
    dnnl_exec_arg_t args[4];
    for (int i = 0; i < nargs; i++) {
        args[i].arg = arg_ids[i];
        args[i].memory = mem(mds[i]);
    }
    double t = run(p, nargs, args);
    printf("row|%s|%.2f|%s|%s\n", name, per_run / t / 1e9, unit, impl(pd));
    fflush(stdout);
    for (int i = 0; i < nargs; i++) dnnl_memory_destroy(args[i].memory);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

static dnnl_memory_desc_t md_tag(int nd, const int64_t *dims, dnnl_data_type_t dt,
                                 dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t d;
    for (int i = 0; i < nd; i++) d[i] = dims[i];
    dnnl_memory_desc_create_with_tag(&md, nd, d, dt, tag);
    return md;
}

static void eltwise(int64_t n, dnnl_alg_kind_t alg, const char *alg_name) {
    char name[64];
    snprintf(name, sizeof name, "eltwise %s %ldM f32", alg_name, (long)(n >> 20));
    dnnl_memory_desc_t d = md_tag(1, &n, dnnl_f32, dnnl_a);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_eltwise_forward_primitive_desc_create(
        &pd, eng, dnnl_forward_inference, alg, d, d, 0.f, 0.f, NULL);
    int ids[2] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    const_dnnl_memory_desc_t mds[2] = {d, d};
    time_pd(name, st, pd, 2, ids, mds, 8.0 * (double)n, "GB/s");
    dnnl_memory_desc_destroy(d);
}

static void binary(int64_t n) {
    char name[64];
    snprintf(name, sizeof name, "binary add %ldM f32", (long)(n >> 20));
    dnnl_memory_desc_t d = md_tag(1, &n, dnnl_f32, dnnl_a);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, d, d, d, NULL);
    int ids[3] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST};
    const_dnnl_memory_desc_t mds[3] = {d, d, d};
    time_pd(name, st, pd, 3, ids, mds, 12.0 * (double)n, "GB/s");
    dnnl_memory_desc_destroy(d);
}

static void softmax(int64_t rows, int64_t cols) {
    char name[64];
    snprintf(name, sizeof name, "softmax %ldx%ld f32", (long)rows, (long)cols);
    int64_t dims[2] = {rows, cols};
    dnnl_memory_desc_t d = md_tag(2, dims, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_softmax_forward_primitive_desc_create(
        &pd, eng, dnnl_forward_inference, dnnl_softmax_accurate, d, d, 1, NULL);
    int ids[2] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    const_dnnl_memory_desc_t mds[2] = {d, d};
    time_pd(name, st, pd, 2, ids, mds, 8.0 * (double)(rows * cols), "GB/s");
    dnnl_memory_desc_destroy(d);
}

static void reorder(const int64_t *dims, dnnl_format_tag_t from, dnnl_format_tag_t to,
                    const char *what) {
    char name[64];
    snprintf(name, sizeof name, "reorder %s %ldx%ldx%ldx%ld", what, (long)dims[0],
             (long)dims[1], (long)dims[2], (long)dims[3]);
    dnnl_memory_desc_t s = md_tag(4, dims, dnnl_f32, from), d = md_tag(4, dims, dnnl_f32, to);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, s, eng, d, eng, NULL);
    int ids[2] = {DNNL_ARG_FROM, DNNL_ARG_TO};
    const_dnnl_memory_desc_t mds[2] = {s, d};
    double n = (double)(dims[0] * dims[1] * dims[2] * dims[3]);
    time_pd(name, st, pd, 2, ids, mds, 8.0 * n, "GB/s");
    dnnl_memory_desc_destroy(s);
    dnnl_memory_desc_destroy(d);
}

// A plain row-major matmul of src, weights and dst types `sdt`, `wdt`, `ddt`.
static void matmul_of(int64_t m, int64_t k, int64_t n, dnnl_data_type_t sdt,
                      dnnl_data_type_t wdt, dnnl_data_type_t ddt, const char *dt_name) {
    char name[64];
    snprintf(name, sizeof name, "matmul %s %ldx%ldx%ld", dt_name, (long)m, (long)k, (long)n);
    int64_t da[2] = {m, k}, db[2] = {k, n}, dc[2] = {m, n};
    dnnl_memory_desc_t a = md_tag(2, da, sdt, dnnl_ab), b = md_tag(2, db, wdt, dnnl_ab),
                       c = md_tag(2, dc, ddt, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, a, b, NULL, c, NULL);
    int ids[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    const_dnnl_memory_desc_t mds[3] = {a, b, c};
    int integer = sdt == dnnl_u8 || sdt == dnnl_s8;
    time_pd(name, st, pd, 3, ids, mds, 2.0 * (double)m * (double)k * (double)n,
            integer ? "GOP/s" : "GFLOP/s");
    dnnl_memory_desc_destroy(a);
    dnnl_memory_desc_destroy(b);
    dnnl_memory_desc_destroy(c);
}

static void matmul(int64_t m, int64_t k, int64_t n, dnnl_data_type_t dt, const char *dt_name) {
    matmul_of(m, k, n, dt, dt, dt, dt_name);
}

// A ResNet-50 convolution (stride 1, same padding) with layouts of the library's choice.
static void conv(int64_t mb, int64_t ic, int64_t hw, int64_t oc, int64_t r) {
    char name[64];
    snprintf(name, sizeof name, "conv f32 %ldx%ldx%ldx%ld k%ld %ldx%ld", (long)mb, (long)ic,
             (long)hw, (long)hw, (long)oc, (long)r, (long)r);
    int64_t ds[4] = {mb, ic, hw, hw}, dw[4] = {oc, ic, r, r}, dd[4] = {mb, oc, hw, hw};
    dnnl_memory_desc_t s = md_tag(4, ds, dnnl_f32, dnnl_format_tag_any),
                       w = md_tag(4, dw, dnnl_f32, dnnl_format_tag_any),
                       d = md_tag(4, dd, dnnl_f32, dnnl_format_tag_any);
    dnnl_dims_t strides = {1, 1}, pad = {r / 2, r / 2};
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_convolution_forward_primitive_desc_create(
        &pd, eng, dnnl_forward_inference, dnnl_convolution_direct, s, w, NULL, d, strides, NULL,
        pad, pad, NULL);
    int ids[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    const_dnnl_memory_desc_t mds[3] = {s, w, d};
    if (st == dnnl_success) {
        mds[0] = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        mds[1] = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        mds[2] = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    }
    double flops = 2.0 * (double)(mb * oc * hw * hw) * (double)(ic * r * r);
    time_pd(name, st, pd, 3, ids, mds, flops, "GFLOP/s");
    dnnl_memory_desc_destroy(s);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(d);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "quick"))
            quick = 1;
        else
            only = argv[i];
    }
    const dnnl_version_t *v = dnnl_version();
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success
        || dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) != dnnl_success) {
        printf("no CPU engine\n");
        return 1;
    }
    printf("lib|%d.%d.%d|%s|%d\n", v->major, v->minor, v->patch, v->hash,
           (int)dnnl_get_effective_cpu_isa());
    int64_t big = (int64_t)1 << (quick ? 24 : 26);
    eltwise(big, dnnl_eltwise_relu, "relu");
    eltwise(big, dnnl_eltwise_gelu_erf, "gelu_erf");
    binary(big);
    softmax(quick ? 8192 : 32768, 1024);
    int64_t act[4] = {quick ? 4 : 16, 256, 56, 56};
    reorder(act, dnnl_nchw, dnnl_nhwc, "nchw->nhwc");
    reorder(act, dnnl_nChw16c, dnnl_nchw, "nChw16c->nchw");
    matmul(1024, 1024, 1024, dnnl_f32, "f32");
    if (!quick) matmul(2048, 2048, 2048, dnnl_f32, "f32");
    int64_t low = quick ? 1024 : 2048;
    matmul(low, low, low, dnnl_bf16, "bf16");
    matmul(low, low, low, dnnl_f16, "f16");
    matmul_of(low, low, low, dnnl_u8, dnnl_s8, dnnl_s32, "u8s8s32");
    // ResNet-50 stage 2 and stage 4 layers, batch scaled down for small hosts.
    int64_t mb = quick ? 2 : 8;
    conv(mb, 64, 56, 64, 3);
    conv(mb, 64, 56, 256, 1);
    conv(mb, 256, 14, 256, 3);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
