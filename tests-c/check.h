/* Assertions shared by the C tests (tests-c/) and examples (examples-c/).
 *
 *   CHECK(call)                  call must return dnnl_success
 *   CHECK_STATUS(call, expected) call must return `expected`
 *   EXPECT(cond)                 cond must hold
 *   SKIP(reason)                 the test cannot run here: prints the reason, exits 77
 *   library_is_ours()            1 for this library, 0 for Intel's (the reference runs,
 *                                <test>@ref, load Intel's libdnnl.so.3 instead): checks of
 *                                behaviour that is ours alone run only when it is 1
 *   reference_lacks(status, what)  1 (after a SKIP: line) when Intel's library answers
 *                                dnnl_unimplemented for a case ours runs: the case is
 *                                skipped in the reference run; 0 otherwise
 *   reference_saturates_int8()   1 in a reference run on a CPU without VNNI, where Intel's
 *                                library saturates pairs of u8 x s8 products to s16 (after
 *                                printing a note line, once); the int8 tests then keep
 *                                their s8 weights in s7 [-64, 63] (s7_of_s8()); 0 otherwise
 *   reference_has_fp16()         1 in a reference run on a CPU with AVX512-FP16, where
 *                                Intel's library implements f16 cases it refuses elsewhere
 *                                and computes f16 RNN cells otherwise (after a note line,
 *                                once); 0 otherwise
 *
 * A failed check prints file:line, the text of the call or condition and, for
 * statuses, dnnl_status2str() of what came back, then exits with 1. CTest registers
 * every test with SKIP_RETURN_CODE 77 (see cmake/DnnlCTest.cmake). */
#ifndef DNNL_TESTS_C_CHECK_H
#define DNNL_TESTS_C_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

/* Exit code that CTest reads as "skipped". */
#define DNNL_TEST_SKIP_CODE 77

static inline const char *check_status_str(dnnl_status_t status) {
    const char *s = dnnl_status2str(status);
    return s ? s : "(unknown status)";
}

static inline void check_fail_status(const char *file, int line, const char *call,
        dnnl_status_t got, dnnl_status_t expected) {
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s returned %s (%d), expected %s (%d)\n", file, line, call,
            check_status_str(got), (int)got, check_status_str(expected), (int)expected);
    exit(1);
}

#define CHECK_STATUS(call, expected) \
    do { \
        dnnl_status_t check_got_ = (call); \
        dnnl_status_t check_expected_ = (expected); \
        if (check_got_ != check_expected_) \
            check_fail_status(__FILE__, __LINE__, #call, check_got_, check_expected_); \
    } while (0)

#define CHECK(call) CHECK_STATUS(call, dnnl_success)

#define EXPECT(cond) \
    do { \
        if (!(cond)) { \
            fflush(stdout); \
            fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1); \
        } \
    } while (0)

/* Tells the two libraries apart by a deliberate, documented difference (README,
 * "Deliberate differences"): ours names dnnl_f4_e3m0, upstream's v3.13 says "unknown dt". */
static inline int library_is_ours(void) {
    const char *name = dnnl_dt2str(dnnl_f4_e3m0);
    return name != NULL && name[0] == 'f';
}

static inline int reference_lacks(dnnl_status_t status, const char *what) {
    if (status != dnnl_unimplemented || library_is_ours()) return 0;
    printf("SKIP: %s: Intel's library: unimplemented here\n", what);
    return 1;
}

/* Intel's library multiplies u8 by s8 with VPMADDUBSW on processors without VNNI (AVX2,
 * AVX-512 before Cascade Lake): each pair of products is summed and saturated to s16, and
 * s8 x s8 shifts the s8 source by +128 to u8 first. Upstream documents it and leaves it to
 * the user to keep data clear of it, e.g. s8 weights in s7 [-64, 63]
 * (doc/advanced/int8_computations.md, section 1.1; section 2 for s8 x s8). Ours computes
 * exactly everywhere, so this is 1 only in a reference run where Intel's effective ISA has
 * no VNNI: dnnl_cpu_isa_avx2_vnni (15) sets bit 8 and dnnl_cpu_isa_avx512_core_vnni (103)
 * bit 64, both kept by every ISA above them. */
static inline int reference_saturates_int8(void) {
    static int noted;
    if (library_is_ours()) return 0;
    unsigned isa = (unsigned)dnnl_get_effective_cpu_isa();
    if ((isa & 8u) || (isa & 64u)) return 0;
    if (!noted) {
        printf("note: reference run on a CPU without VNNI: s8 weights kept in [-64, 63] "
               "(Intel's library saturates u8*s8 pair sums to s16 there: upstream doc "
               "advanced/int8_computations.md)\n");
        noted = 1;
    }
    return 1;
}

/* Intel's library on a CPU with AVX512-FP16 (its effective ISA avx512_core_fp16, 495,
 * or one above it, which keep its bits): it then creates an int8 inner product with an
 * f16 destination and an f16 LSTM with a projection, both dnnl_unimplemented on other
 * CPUs and in ours (upstream's rnn.md lists the projection as unsupported for f16), and
 * its f16 LSTM and GRU cells keep values apart from ours by more than one f16 step
 * (seen on a Xeon with AMX, 2026-11-28). Checks of those cases then accept its answer. */
static inline int reference_has_fp16(void) {
    static int noted;
    if (library_is_ours()) return 0;
    unsigned isa = (unsigned)dnnl_get_effective_cpu_isa();
    if ((isa & 495u) != 495u) return 0;
    if (!noted) {
        printf("note: reference run on a CPU with AVX512-FP16: Intel's library implements "
               "f16 cases it refuses elsewhere, and its f16 RNN cells are checked by the "
               "general bound only\n");
        noted = 1;
    }
    return 1;
}

/* An s8 value moved into s7 [-64, 63]: halved (rounding down) when it lies outside. */
static inline int s7_of_s8(int v) {
    return v >= -64 && v <= 63 ? v : (v - (v < 0)) / 2;
}

#define SKIP(reason) \
    do { \
        printf("SKIP: %s\n", (reason)); \
        fflush(stdout); \
        exit(DNNL_TEST_SKIP_CODE); \
    } while (0)

#endif /* DNNL_TESTS_C_CHECK_H */
