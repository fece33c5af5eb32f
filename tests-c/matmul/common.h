/* What the matmul and inner product C tests share (inner_product/ includes it
 * as "matmul/common.h"): deterministic values
 * (multiples of 1/8, exact in f16 and bf16), running a primitive and
 * comparing with a reference. Include after prim_util.h. */
#ifndef DNNL_TESTS_C_MATMUL_COMMON_H
#define DNNL_TESTS_C_MATMUL_COMMON_H

#include "prim_util.h"

static int failures;

/* prim_util.h's helpers these tests do not call (static: unused ones warn). */
static inline void unused_helpers(void) { (void)rounded; }

static float *values(int64_t n, int seed) {
    float *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)((i * 37 + seed * 11) % 19) / 8.0f - 1.125f;
    return v;
}

static dnnl_memory_t filled(const_dnnl_memory_desc_t md, const float *v) {
    dnnl_memory_t m = memory(md);
    fill(m, v);
    return m;
}

/* Creates the primitive of pd, executes it with args, waits. */
static void run(const_dnnl_primitive_desc_t pd, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

/* Compares n values of m with want: each within the error of an f32 accumulation of
 * len terms (len + 2 ulps of mag, the sum of the terms' magnitudes), plus the final
 * rounding to m's type (one ulp for f16 and bf16). */
static void compare(const char *what, dnnl_memory_t m, const double *want, const double *mag,
        int64_t n, int64_t len) {
    const_dnnl_memory_desc_t md;
    dnnl_data_type_t dt;
    CHECK(dnnl_memory_get_memory_desc(m, &md));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    float *got = malloc((size_t)(n > 0 ? n : 1) * sizeof *got);
    int padding_ok;
    read_back(m, got, &padding_ok);
    for (int64_t i = 0; i < n; i++) {
        double bound = F32_EPS * (double)(len + 2) * mag[i];
        if (!matches(dt, got[i], want[i], bound)) {
            fprintf(stderr, "%s: element %lld: got %.9g, want %.9g (bound %.3g)\n", what,
                    (long long)i, got[i], want[i], bound);
            failures++;
            break;
        }
    }
    free(got);
}

static void expect_impl(const_dnnl_primitive_desc_t pd, int on_gpu) {
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    EXPECT(impl != NULL);
    /* Upstream's names differ (reference runs): only ours are checked. */
    if (strncmp(impl, "cpu:", 4) == 0 || strncmp(impl, "ocl:", 4) == 0) {
        /* GPU: the tensor-core kernel on NVIDIA (f16/bf16), else the tiled. */
        const int gpu_ok = strcmp(impl, "ocl:gemm_tiled") == 0 || strcmp(impl, "ocl:gemm_mma") == 0;
        EXPECT(on_gpu ? gpu_ok : strcmp(impl, "cpu:gemm") == 0);
    }
}

#endif
