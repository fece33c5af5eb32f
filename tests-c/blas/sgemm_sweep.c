/* dnnl_sgemm against a double-precision reference: M, N, K of 1, 7, 33 and 130 in
 * every combination, every transposition pair ('N'/'n'/'T'/'t'), leading dimensions
 * minimal or larger, alpha and beta 0, 1 and other values. C holds NaN wherever
 * beta is 0 (it must not be read), A holds NaN in the alpha 0 cases (A and B must
 * not be read), and the padding between C's rows must stay as it was. Then larger
 * shapes that the library splits over its threads (few rows and many columns too),
 * and A and C interleaved in one buffer (disjoint elements). Each element must lie
 * within a summation error bound of the reference. */
#include "blas_ref.h"

static int failures;

static void run(char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t pad, float alpha,
        float beta) {
    int trans_a = ta == 'T' || ta == 't', trans_b = tb == 'T' || tb == 't';
    int64_t lda = (trans_a ? m : k) + pad, ldb = (trans_b ? k : n) + pad * 2, ldc = n + pad;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    if (ldc < 1) ldc = 1;
    int64_t na = blas_span(trans_a ? k : m, trans_a ? m : k, lda);
    int64_t nb = blas_span(trans_b ? n : k, trans_b ? k : n, ldb);
    int64_t nc = blas_span(m, n, ldc);
    float *a = blas_alloc(na, sizeof *a), *b = blas_alloc(nb, sizeof *b);
    float *c = blas_alloc(nc, sizeof *c), *c0 = blas_alloc(nc, sizeof *c0);
    for (int64_t i = 0; i < na; i++) a[i] = (float)(blas_hash(i, 1) % 2001) / 1000.f - 1.f;
    for (int64_t i = 0; i < nb; i++) b[i] = (float)(blas_hash(i, 2) % 2001) / 1000.f - 1.f;
    for (int64_t i = 0; i < nc; i++)
        c[i] = beta == 0.f ? NAN : (float)(blas_hash(i, 3) % 2001) / 500.f - 2.f;
    /* Padding between rows: a sentinel. */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = n; j < ldc && i * ldc + j < nc; j++) c[i * ldc + j] = 12345.f;
    if (alpha == 0.f && na > 0) a[0] = NAN;
    memcpy(c0, c, (size_t)nc * sizeof *c);
    CHECK(dnnl_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
    int bad = 0;
    for (int64_t i = 0; i < m && bad < 3; i++) {
        for (int64_t j = 0; j < n && bad < 3; j++) {
            double dot = 0, mag = 0;
            if (alpha != 0.f) {
                for (int64_t kk = 0; kk < k; kk++) {
                    double x = a[blas_at(trans_a, lda, i, kk)], y = b[blas_at(trans_b, ldb, kk, j)];
                    dot += x * y;
                    mag += fabs(x * y);
                }
            }
            double old = beta == 0.f ? 0.0 : c0[i * ldc + j];
            double want = (double)alpha * dot + (double)beta * old;
            double bound = 2.0 * (k + 2) * 1.2e-7 * (fabs(alpha) * mag + fabs(beta * old)) + 1e-30;
            double got = c[i * ldc + j];
            if (!(fabs(got - want) <= bound)) {
                fprintf(stderr,
                        "FAIL: sgemm %c%c M%lld N%lld K%lld pad %lld alpha %g beta %g: C(%lld, %lld) "
                        "= %.9g, want %.9g (bound %.3g)\n",
                        ta, tb, (long long)m, (long long)n, (long long)k, (long long)pad, alpha,
                        beta, (long long)i, (long long)j, got, want, bound);
                bad++;
            }
        }
        for (int64_t j = n; j < ldc && i * ldc + j < nc; j++)
            if (c[i * ldc + j] != 12345.f) {
                fprintf(stderr, "FAIL: sgemm %c%c M%lld N%lld K%lld: padding (%lld, %lld) written\n",
                        ta, tb, (long long)m, (long long)n, (long long)k, (long long)i,
                        (long long)j);
                bad++;
                break;
            }
    }
    failures += bad;
    free(a), free(b), free(c), free(c0);
}

/* A (M x K) in columns 0..K-1 and C (M x N) in columns K..K+N-1 of one row-major
 * buffer: the matrices share cache lines and rows but no element. */
static void interleaved(void) {
    const int64_t m = 37, n = 19, k = 23, ld = k + n;
    const int64_t nb = k * n;
    float *buf = blas_alloc(m * ld, sizeof *buf), *b = blas_alloc(nb, sizeof *b);
    float *ref = blas_alloc(m * ld, sizeof *ref);
    for (int64_t i = 0; i < m * ld; i++) buf[i] = (float)(blas_hash(i, 7) % 17) - 8.f;
    for (int64_t i = 0; i < nb; i++) b[i] = (float)(blas_hash(i, 8) % 9) - 4.f;
    memcpy(ref, buf, (size_t)(m * ld) * sizeof *buf);
    CHECK(dnnl_sgemm('N', 'N', m, n, k, 1.f, buf, ld, b, n, 1.f, buf + k, ld));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double want = ref[i * ld + k + j];
            for (int64_t kk = 0; kk < k; kk++) want += (double)ref[i * ld + kk] * b[kk * n + j];
            /* Small integers: exact. */
            if (buf[i * ld + k + j] != (float)want) {
                fprintf(stderr, "FAIL: interleaved A and C: C(%lld, %lld) = %g, want %g\n",
                        (long long)i, (long long)j, buf[i * ld + k + j], want);
                failures++;
                return;
            }
        }
    /* A is unchanged. */
    for (int64_t i = 0; i < m; i++)
        for (int64_t kk = 0; kk < k; kk++)
            if (buf[i * ld + kk] != ref[i * ld + kk]) {
                fprintf(stderr, "FAIL: interleaved A and C: A written\n");
                failures++;
                return;
            }
    free(buf), free(b), free(ref);
}

int main(void) {
    static const int64_t dims[] = {1, 7, 33, 130};
    static const char trans[][2] = {{'N', 'N'}, {'T', 'n'}, {'n', 'T'}, {'t', 't'}};
    static const float ab[][2] = {{1.f, 0.f}, {1.f, 1.f}, {0.5f, -1.5f}, {-2.f, 0.f},
            {0.f, 0.5f}, {0.f, 0.f}, {1.25f, 1.f}};
    int runs = 0, idx = 0;
    for (int mi = 0; mi < 4; mi++)
        for (int ni = 0; ni < 4; ni++)
            for (int ki = 0; ki < 4; ki++)
                for (int t = 0; t < 4; t++, idx++) {
                    const float *p = ab[idx % 7];
                    run(trans[t][0], trans[t][1], dims[mi], dims[ni], dims[ki], idx % 3 == 0 ? 0 : 3,
                            p[0], p[1]);
                    runs++;
                }
    /* Every alpha / beta pair with every transposition on one odd shape. */
    for (int t = 0; t < 4; t++)
        for (int p = 0; p < 7; p++, runs++) run(trans[t][0], trans[t][1], 33, 7, 130, 5, ab[p][0], ab[p][1]);
    /* Shapes split over threads: rows, and columns when rows are few. */
    static const int64_t big[][3] = {{300, 257, 520}, {1, 4099, 300}, {3, 2000, 257}, {517, 3, 1000}};
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++, runs++)
            run(trans[t][0], trans[t][1], big[s][0], big[s][1], big[s][2], t, t == 2 ? 0.5f : 1.f,
                    t == 1 ? 1.f : 0.f);
    interleaved();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("sgemm: %d cases OK\n", runs + 1);
    return 0;
}
