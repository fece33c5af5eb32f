/* Argument errors of dnnl_sgemm, dnnl_gemm_u8s8s32 and dnnl_gemm_s8s8s32, with the
 * status Intel's library returns (probed; this program runs against it as
 * <test>@ref): a transposition flag or offsetc other than N/n/T/t and F/f/C/c/R/r,
 * a negative M, N or K, a leading dimension below max(1, the stored width) for each
 * transposition (also when every dimension is 0), NULL A, B or C (also when M is
 * 0): dnnl_invalid_arguments, C untouched. M, N or K of 0 with valid arguments:
 * dnnl_success and C untouched (no beta scaling, no C offset). Beyond upstream, run
 * on this library only: NULL co, the packed flag 'P' and misaligned pointers are
 * dnnl_invalid_arguments (upstream crashes or computes with them). */
#include "blas_ref.h"

static int failures;
static float fa[64], fb[64], fc[64];
static uint8_t ua[64];
static int8_t sa[64], sb[64];
static int32_t ic[64], co[64];

static void reset(void) {
    for (int i = 0; i < 64; i++) {
        fa[i] = (float)(i % 5), fb[i] = 1.f, fc[i] = 7.f;
        ua[i] = (uint8_t)i, sa[i] = (int8_t)(i - 10), sb[i] = 1, ic[i] = 7, co[i] = 1000;
    }
}

/* `got` must be `want`, with C still all 7s. */
static void expect(const char *what, dnnl_status_t got, dnnl_status_t want) {
    if (got != want) {
        fprintf(stderr, "FAIL: %s: returned %s, want %s\n", what, check_status_str(got),
                check_status_str(want));
        failures++;
    }
    for (int i = 0; i < 64; i++)
        if (fc[i] != 7.f || ic[i] != 7) {
            fprintf(stderr, "FAIL: %s: C written\n", what);
            failures++;
            break;
        }
    reset();
}

#define SG(...) dnnl_sgemm(__VA_ARGS__)
#define U8(...) dnnl_gemm_u8s8s32(__VA_ARGS__)
#define S8(...) dnnl_gemm_s8s8s32(__VA_ARGS__)
#define BAD(call) expect(#call, call, dnnl_invalid_arguments)
#define NOOP(call) expect(#call, call, dnnl_success)

int main(void) {
    reset();
    /* Flags. */
    BAD(SG('X', 'N', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    BAD(SG('N', 'x', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    BAD(SG(0, 'N', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    BAD(U8('X', 'N', 'F', 2, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    BAD(U8('N', 'N', 'X', 2, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    BAD(S8('N', 'N', 'G', 2, 3, 4, 1.f, sa, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    BAD(S8('N', 'Q', 'F', 2, 3, 4, 1.f, sa, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    /* Negative dimensions. */
    BAD(SG('N', 'N', -1, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    BAD(SG('N', 'N', 2, -3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    BAD(SG('N', 'N', 2, 3, -4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    BAD(U8('N', 'N', 'F', -2, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    BAD(S8('N', 'N', 'f', 2, 3, -1, 1.f, sa, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    /* Leading dimensions: A M x K (lda >= K) or K x M ('T': lda >= M), B K x N
     * (ldb >= N) or N x K ('T': ldb >= K), C M x N (ldc >= N). */
    BAD(SG('N', 'N', 2, 3, 4, 1.f, fa, 3, fb, 3, 0.f, fc, 3));
    BAD(SG('T', 'N', 2, 3, 4, 1.f, fa, 1, fb, 3, 0.f, fc, 3));
    BAD(SG('N', 'N', 2, 3, 4, 1.f, fa, 4, fb, 2, 0.f, fc, 3));
    BAD(SG('N', 'T', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    BAD(SG('N', 'N', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 2));
    BAD(SG('N', 'N', 2, 3, 4, 1.f, fa, -4, fb, 3, 0.f, fc, 3));
    BAD(SG('N', 'N', 0, 0, 0, 1.f, fa, 0, fb, 1, 0.f, fc, 1));
    BAD(SG('N', 'N', 2, 0, 4, 1.f, fa, 4, fb, 0, 0.f, fc, 0));
    BAD(SG('N', 'N', 2, 3, 0, 1.f, fa, 0, fb, 3, 0.f, fc, 3));
    BAD(U8('t', 'N', 'F', 2, 3, 4, 1.f, ua, 1, 0, sb, 3, 0, 0.f, ic, 3, co));
    BAD(U8('N', 't', 'R', 2, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    BAD(S8('N', 'N', 'C', 2, 3, 4, 1.f, sa, 4, 0, sb, 3, 0, 0.f, ic, 2, co));
    BAD(S8('T', 'N', 'F', 2, 3, 4, 1.f, sa, 1, 0, sb, 3, 0, 0.f, ic, 3, co));
    /* NULL matrices, also with nothing to compute. */
    BAD(SG('N', 'N', 2, 3, 4, 1.f, NULL, 4, fb, 3, 0.f, fc, 3));
    BAD(SG('N', 'N', 2, 3, 4, 1.f, fa, 4, NULL, 3, 0.f, fc, 3));
    BAD(SG('N', 'N', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, NULL, 3));
    BAD(SG('N', 'N', 0, 3, 4, 1.f, NULL, 4, NULL, 3, 0.f, NULL, 3));
    BAD(U8('N', 'N', 'F', 2, 3, 4, 1.f, NULL, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    BAD(U8('N', 'N', 'F', 2, 3, 4, 1.f, ua, 4, 0, NULL, 3, 0, 0.f, ic, 3, co));
    BAD(S8('N', 'N', 'F', 2, 3, 4, 1.f, sa, 4, 0, sb, 3, 0, 0.f, NULL, 3, co));
    BAD(S8('N', 'N', 'F', 0, 3, 4, 1.f, NULL, 4, 0, NULL, 3, 0, 0.f, NULL, 3, NULL));
    /* Nothing to compute: success, C untouched (K = 0 too, whatever beta and co). */
    NOOP(SG('N', 'N', 0, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    NOOP(SG('N', 'N', 2, 0, 4, 1.f, fa, 4, fb, 1, 0.f, fc, 1));
    NOOP(SG('N', 'N', 2, 3, 0, 1.f, fa, 1, fb, 3, 0.f, fc, 3));
    NOOP(SG('T', 'T', 2, 3, 0, 2.f, fa, 2, fb, 1, 0.5f, fc, 3));
    NOOP(SG('N', 'N', 0, 0, 0, 1.f, fa, 1, fb, 1, 0.f, fc, 1));
    NOOP(U8('N', 'N', 'F', 2, 3, 0, 1.f, ua, 1, 0, sb, 3, 0, 1.f, ic, 3, co));
    NOOP(U8('N', 'N', 'R', 0, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
    NOOP(S8('N', 'N', 'C', 2, 0, 4, 0.5f, sa, 4, 3, sb, 1, 2, 2.f, ic, 1, co));
    /* Ours only: what upstream does not check. */
    if (library_is_ours()) {
        BAD(SG('P', 'N', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
        BAD(SG('N', 'p', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
        BAD(U8('P', 'N', 'F', 2, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, co));
        BAD(U8('N', 'N', 'F', 2, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, NULL));
        BAD(S8('N', 'N', 'R', 2, 3, 4, 1.f, sa, 4, 0, sb, 3, 0, 0.f, ic, 3, NULL));
        BAD(SG('N', 'N', 2, 3, 4, 1.f, (const float *)((const char *)fa + 1), 4, fb, 3, 0.f,
                fc, 3));
        BAD(S8('N', 'N', 'F', 2, 3, 4, 1.f, sa, 4, 0, sb, 3, 0, 0.f,
                (int32_t *)((char *)ic + 2), 3, co));
        /* Nothing to compute: co is not read. */
        NOOP(U8('N', 'N', 'F', 0, 3, 4, 1.f, ua, 4, 0, sb, 3, 0, 0.f, ic, 3, NULL));
    }
    /* And a valid call computes. */
    CHECK(SG('N', 'N', 2, 3, 4, 1.f, fa, 4, fb, 3, 0.f, fc, 3));
    EXPECT(fc[0] == 0.f + 1.f + 2.f + 3.f && fc[5] == 4.f + 0.f + 1.f + 2.f);
    CHECK(U8('N', 'N', 'R', 2, 3, 1, 1.f, ua, 1, 0, sb, 3, 0, 0.f, ic, 3, co));
    EXPECT(ic[0] == 1000 && ic[4] == 1001);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("bad input: OK\n");
    return 0;
}
