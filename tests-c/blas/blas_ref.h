/* What the BLAS-style GEMM tests (tests-c/blas/) share: deterministic data, matrices
 * stored row-major with a leading dimension (transposed or not), and the references
 * they are checked against: a double-precision sum for dnnl_sgemm, an exact integer
 * one for dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 with the result rules Intel's library
 * follows (probed on it; the same programs run against it as <test>@ref):
 *   - alpha 1 and beta 0 or 1: acc + C + co in wrapping s32 arithmetic;
 *   - otherwise alpha*acc + beta*C rounded half away from zero, saturated to s32,
 *     then co added (wrapping);
 *   - M, N or K of 0: C untouched.
 * Intel's library is checked within one unit more where alpha or beta scale: its
 * s8 x s8 kernels (larger shapes) compensate the s8 A's shift to u8 after scaling,
 * which rounds twice (seen: C one off, even where alpha*acc is an integer). */
#ifndef DNNL_TESTS_C_BLAS_REF_H
#define DNNL_TESTS_C_BLAS_REF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* A hash of (i, seed): the data of every test. */
static inline uint32_t blas_hash(int64_t i, int seed) {
    uint64_t h = (uint64_t)i * 2654435761u + (uint64_t)seed * 40503u + 12345u;
    h ^= h >> 15;
    h *= 0x2c1b3c6dU;
    h ^= h >> 12;
    return (uint32_t)h;
}

/* The elements a rows x cols matrix stored with leading dimension ld spans. */
static inline int64_t blas_span(int64_t rows, int64_t cols, int64_t ld) {
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

/* Index of op(X)(r, c) in X stored row-major with leading dimension ld. */
static inline int64_t blas_at(int trans, int64_t ld, int64_t r, int64_t c) {
    return trans ? c * ld + r : r * ld + c;
}

static inline void *blas_alloc(int64_t n, size_t size) {
    void *p = malloc((size_t)(n > 0 ? n : 1) * size);
    EXPECT(p != NULL);
    return p;
}

/* The integer result rules (see the top of this file). `want` gets the expected
 * value, and the return value is the tolerance: 0 for this library (exact: it
 * scales in double precision) and where no scaling happens; for Intel's, one unit
 * per 2^21 of the magnitude (it scales in single precision), plus one (see the top of this file). */
static inline int64_t blas_int_expected(int64_t acc, float alpha, float beta, int32_t c,
        int32_t co, int32_t *want) {
    if (alpha == 1.f && (beta == 0.f || beta == 1.f)) {
        uint32_t r = (uint32_t)acc + (beta == 1.f ? (uint32_t)c : 0u) + (uint32_t)co;
        *want = (int32_t)r;
        return 0;
    }
    double v = (double)alpha * (double)acc + (beta != 0.f ? (double)beta * c : 0.0);
    double r = round(v);
    int32_t s = r >= 2147483647.0 ? INT32_MAX
            : r <= -2147483648.0  ? INT32_MIN
                                  : (int32_t)r;
    *want = (int32_t)((uint32_t)s + (uint32_t)co);
    if (s == INT32_MAX || s == INT32_MIN) return 0;
    int64_t ulp = fabs(v) < 8388608.0 ? 0 : (int64_t)(fabs(v) / 2097152.0) + 1;
    return library_is_ours() ? 0 : ulp + 1;
}

#endif
