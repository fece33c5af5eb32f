/* dnnl_gemm_u8s8s32 and dnnl_gemm_s8s8s32 against an exact integer reference: M, N,
 * K of 1, 7, 33 and 130 in every combination, every transposition pair, leading
 * dimensions minimal or larger, A and B offsets zero and not (the full u8 / s8
 * ranges), each offsetc mode in either case ('F': co[0]; 'C': co[i], M values; 'R':
 * co[j], N values), alpha and beta 0, 1 and other values; then every mode and scaling
 * on one odd shape, shapes split over threads, the result rules at their edges
 * (rounding half away from zero, saturation where alpha or beta scale, wrapping where
 * they do not: see blas_ref.h), and the padding between C's rows untouched.
 *
 * In a reference run on a CPU without VNNI (reference_saturates_int8(), check.h) B is
 * kept in s7 [-64, 63], as upstream asks there, and the edge cases whose exact result
 * Intel's library gives only with VNNI are skipped with a SKIP: line saying what it
 * returned; on ours every case is checked. */
#include "blas_ref.h"

static int failures, s7, skipped;

typedef struct {
    int s8a; /* dnnl_gemm_s8s8s32 (else u8s8s32) */
    char ta, tb, oc;
    int64_t m, n, k, pad;
    int ao, bo;
    float alpha, beta;
} case_t;

static void run(case_t t) {
    int trans_a = t.ta == 'T' || t.ta == 't', trans_b = t.tb == 'T' || t.tb == 't';
    int64_t m = t.m, n = t.n, k = t.k;
    int64_t lda = (trans_a ? m : k) + t.pad, ldb = (trans_b ? k : n) + 2 * t.pad, ldc = n + t.pad;
    int64_t na = blas_span(trans_a ? k : m, trans_a ? m : k, lda);
    int64_t nb = blas_span(trans_b ? n : k, trans_b ? k : n, ldb);
    int64_t nc = blas_span(m, n, ldc);
    int64_t nco = (t.oc == 'C' || t.oc == 'c') ? m : (t.oc == 'R' || t.oc == 'r') ? n : 1;
    uint8_t *a = blas_alloc(na, 1);
    int8_t *b = blas_alloc(nb, 1);
    int32_t *c = blas_alloc(nc, 4), *c0 = blas_alloc(nc, 4), *co = blas_alloc(nco, 4);
    for (int64_t i = 0; i < na; i++) a[i] = (uint8_t)blas_hash(i, 11);
    for (int64_t i = 0; i < nb; i++) {
        int8_t v = (int8_t)(uint8_t)blas_hash(i, 12);
        b[i] = s7 ? (int8_t)s7_of_s8(v) : v;
    }
    for (int64_t i = 0; i < nc; i++) c[i] = (int32_t)(blas_hash(i, 13) % 2000001) - 1000000;
    for (int64_t i = 0; i < nco; i++) co[i] = (int32_t)(blas_hash(i, 14) % 20001) - 10000;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = n; j < ldc && i * ldc + j < nc; j++) c[i * ldc + j] = 0x5eed;
    memcpy(c0, c, (size_t)nc * 4);
    if (t.s8a)
        CHECK(dnnl_gemm_s8s8s32(t.ta, t.tb, t.oc, m, n, k, t.alpha, (const int8_t *)a, lda,
                (int8_t)t.ao, b, ldb, (int8_t)t.bo, t.beta, c, ldc, co));
    else
        CHECK(dnnl_gemm_u8s8s32(t.ta, t.tb, t.oc, m, n, k, t.alpha, a, lda, (uint8_t)t.ao, b,
                ldb, (int8_t)t.bo, t.beta, c, ldc, co));
    int bad = 0;
    for (int64_t i = 0; i < m && bad < 3; i++) {
        for (int64_t j = 0; j < n && bad < 3; j++) {
            int64_t acc = 0;
            for (int64_t kk = 0; kk < k; kk++) {
                uint8_t raw = a[blas_at(trans_a, lda, i, kk)];
                int64_t x = t.s8a ? (int64_t)(int8_t)raw : (int64_t)raw;
                int64_t y = b[blas_at(trans_b, ldb, kk, j)];
                acc += (x - t.ao) * (y - t.bo);
            }
            int32_t cof = (t.oc == 'C' || t.oc == 'c') ? co[i]
                    : (t.oc == 'R' || t.oc == 'r') ? co[j]
                                                   : co[0];
            int32_t want;
            int64_t tol = blas_int_expected(acc, t.alpha, t.beta, c0[i * ldc + j], cof, &want);
            int32_t got = c[i * ldc + j];
            if (llabs((long long)got - (long long)want) > tol) {
                fprintf(stderr,
                        "FAIL: gemm_%s8s8s32 %c%c%c M%lld N%lld K%lld pad %lld ao %d bo %d alpha %g "
                        "beta %g: C(%lld, %lld) = %d, want %d (acc %lld)\n",
                        t.s8a ? "s" : "u", t.ta, t.tb, t.oc, (long long)m, (long long)n,
                        (long long)k, (long long)t.pad, t.ao, t.bo, t.alpha, t.beta, (long long)i,
                        (long long)j, got, want, (long long)acc);
                bad++;
            }
        }
        for (int64_t j = n; j < ldc && i * ldc + j < nc; j++)
            if (c[i * ldc + j] != 0x5eed) {
                fprintf(stderr, "FAIL: gemm %c%c M%lld N%lld K%lld: padding written\n", t.ta, t.tb,
                        (long long)m, (long long)n, (long long)k);
                bad++;
                break;
            }
    }
    failures += bad;
    free(a), free(b), free(c), free(c0), free(co);
}

/* One element: C = alpha*(a - ao)*(b - bo)*k_times + beta*c + co, K = k_times, for the
 * result rules at their edges; `want` is what Intel's library gives (probed) with VNNI.
 * `novnni`, when not NULL, says how Intel's gives another result on a CPU without VNNI:
 * there the case runs but is not compared (a SKIP: line shows what came back). */
static void edge(int s8a, int a, int ao, int b, int bo, int64_t k, float alpha, float beta,
        int32_t c, int32_t co, int32_t want, const char *what, const char *novnni) {
    uint8_t *av = blas_alloc(k, 1);
    int8_t *bv = blas_alloc(k, 1);
    memset(av, a, (size_t)k);
    memset(bv, b, (size_t)k);
    int32_t cc = c;
    dnnl_status_t st = s8a ? dnnl_gemm_s8s8s32('N', 'N', 'F', 1, 1, k, alpha, (const int8_t *)av,
                                     k, (int8_t)ao, bv, 1, (int8_t)bo, beta, &cc, 1, &co)
                           : dnnl_gemm_u8s8s32('N', 'N', 'F', 1, 1, k, alpha, av, k, (uint8_t)ao, bv,
                                     1, (int8_t)bo, beta, &cc, 1, &co);
    if (st == dnnl_success && cc != want && novnni && s7) {
        skipped++;
        printf("SKIP: %s: Intel's library on a CPU without VNNI rounds/saturates differently "
               "(%s: C = %d, want %d)\n", what, novnni, cc, want);
    } else if (st != dnnl_success || cc != want) {
        fprintf(stderr, "FAIL: %s: status %s, C = %d, want %d\n", what, check_status_str(st), cc,
                want);
        failures++;
    }
    free(av), free(bv);
}

int main(void) {
    static const int64_t dims[] = {1, 7, 33, 130};
    static const char trans[][2] = {{'N', 'N'}, {'T', 'n'}, {'n', 'T'}, {'t', 't'}};
    static const char modes[] = {'F', 'C', 'R', 'f', 'c', 'r'};
    static const float ab[][2] = {{1.f, 0.f}, {1.f, 1.f}, {0.5f, 0.f}, {2.f, -1.f}, {0.f, 1.f},
            {0.f, 0.f}, {-0.25f, 0.5f}};
    static const int offsets[][2] = {{0, 0}, {3, -7}, {200, 127}, {1, -128}};
    int runs = 0, idx = 0;
    s7 = reference_saturates_int8();
    for (int s8a = 0; s8a < 2; s8a++)
        for (int mi = 0; mi < 4; mi++)
            for (int ni = 0; ni < 4; ni++)
                for (int ki = 0; ki < 4; ki++)
                    for (int t = 0; t < 4; t++, idx++, runs++) {
                        case_t c = {s8a, trans[t][0], trans[t][1], modes[idx % 6], dims[mi],
                                dims[ni], dims[ki], idx % 3 == 1 ? 0 : 2, offsets[idx % 4][0],
                                offsets[idx % 4][1], ab[idx % 7][0], ab[idx % 7][1]};
                        /* s8 A: offsets in its range. */
                        if (s8a && c.ao > 127) c.ao = -100;
                        run(c);
                    }
    /* Every mode and scaling, both functions, on one odd shape. */
    for (int s8a = 0; s8a < 2; s8a++)
        for (int o = 0; o < 6; o++)
            for (int p = 0; p < 7; p++, runs++) {
                case_t c = {s8a, trans[p % 4][0], trans[p % 4][1], modes[o], 33, 7, 130, 3, s8a ? -9 : 9,
                        5, ab[p][0], ab[p][1]};
                run(c);
            }
    /* Shapes split over threads: rows, and columns when rows are few. */
    static const int64_t big[][3] = {{300, 257, 520}, {1, 4099, 300}, {3, 2000, 257}, {517, 3, 1000}};
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++, runs++) {
            case_t c = {t % 2, trans[t][0], trans[t][1], modes[t], big[s][0], big[s][1], big[s][2], t,
                    t == 3 ? 0 : 11, t == 2 ? 0 : -3, t == 1 ? 0.5f : 1.f, t == 0 ? 1.f : 0.f};
            run(c);
        }
    /* The result rules at their edges. Without VNNI, Intel's library gives other results
     * for some (probed on an AVX2 EPYC): its s8 x s8 GEMM shifts A by +128 to u8 and
     * compensates after scaling, rounding (half away from zero) and saturating, so -0.5
     * gives 0, -2.5 gives -2 and -0.5 + co 1 gives 1; where s32 saturates high, 2^31 - 129
     * (the shift's 128 taken off); and 127 x 127 over K = 93000 (pair sums saturated to
     * s16, a compensation beyond s32) gives 0, and -1 + co for alpha 2. */
#define HALF "it rounds before compensating the s8 A's shift to u8: negative halves round up"
#define COMPENSATED "it saturates before compensating the s8 A's shift to u8"
#define PAIRS "u8 x s8 pair sums saturate to s16, the s8 A's shift compensated after saturating"
    edge(1, 1, 0, 1, 0, 1, 0.5f, 0.f, 0, 0, 1, "0.5 rounds to 1", NULL);
    edge(1, -1, 0, 1, 0, 1, 0.5f, 0.f, 0, 0, -1, "-0.5 rounds to -1", HALF);
    edge(1, 5, 0, 1, 0, 1, 0.5f, 0.f, 0, 0, 3, "2.5 rounds to 3", NULL);
    edge(1, -5, 0, 1, 0, 1, 0.5f, 0.f, 0, 0, -3, "-2.5 rounds to -3", HALF);
    edge(1, 0, 0, 1, 0, 1, 1.f, 0.5f, 3, 0, 2, "beta 0.5 of 3 rounds to 2", NULL);
    edge(1, -1, 0, 1, 0, 1, 0.5f, 0.f, 0, 1, 0, "co added after rounding: -0.5 -> -1, + 1", HALF);
    edge(1, 0, 0, 1, 0, 1, 1.f, 2.f, 2000000000, 0, INT32_MAX, "beta 2 saturates high", COMPENSATED);
    edge(1, 0, 0, 1, 0, 1, 1.f, -1.f, INT32_MIN, 0, INT32_MAX, "beta -1 of INT32_MIN saturates", COMPENSATED);
    edge(1, 127, 0, 127, 0, 93000, -2.f, 0.f, 0, 0, INT32_MIN, "alpha -2 saturates low", PAIRS);
    edge(1, 127, 0, 127, 0, 93000, 2.f, 0.f, 0, -5, INT32_MAX - 5, "saturation, then co", PAIRS);
    edge(0, 10, 0, 1, 0, 1, 1.f, 1.f, INT32_MAX - 5, 0, INT32_MIN + 4, "alpha 1 beta 1 wraps", NULL);
    edge(0, 10, 0, 1, 0, 1, 1.f, 0.f, 0, INT32_MAX - 5, INT32_MIN + 4, "alpha 1 + co wraps", NULL);
    edge(0, 255, 0, -128, 0, 1, 1.f, 1.f, INT32_MIN + 5, 0, INT32_MAX - 32634,
            "alpha 1 beta 1 wraps low", NULL);
    edge(0, 255, 10, -128, 127, 1, 1.f, 0.f, 0, 0, (255 - 10) * (-128 - 127), "offsets", NULL);
#undef HALF
#undef COMPENSATED
#undef PAIRS
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("gemm_u8s8s32 / gemm_s8s8s32: %d cases OK, %d skipped%s\n", runs + 14 - skipped, skipped,
            s7 ? " (B in s7: Intel's library without VNNI)" : "");
    return 0;
}
