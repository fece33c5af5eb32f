/* The CPU ISA controls, as upstream's x64 build answers them:
 * - dnnl_set_max_cpu_isa takes the dnnl_cpu_isa_t values only, once, and only before the
 *   first primitive descriptor is created; otherwise dnnl_invalid_arguments;
 * - dnnl_get_effective_cpu_isa reports the host's best ISA within the limit;
 * - dnnl_set_cpu_isa_hints takes any value, once, before dnnl_get_cpu_isa_hints first
 *   reads it; otherwise dnnl_runtime_error.
 * With argument `env` it runs under ONEDNN_MAX_CPU_ISA=sse41 (see tests.cmake) and checks
 * that the limit holds, with no call to dnnl_set_max_cpu_isa.
 * Both modes then run eltwise gelu_erf and check its values on the limited ISA. */
#include <math.h>
#include <string.h>

#include "check.h"

static void check_gelu_erf(void) {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    enum { N = 1000 };
    dnnl_dims_t dims = {N};
    dnnl_memory_desc_t md;
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_gelu_erf, md, md, 0.f, 0.f, NULL));
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd));
    static float src[N], dst[N];
    for (int i = 0; i < N; i++) src[i] = (float)(i - N / 2) / 50.f;
    dnnl_memory_t s, d;
    CHECK(dnnl_memory_create(&s, md, engine, src));
    CHECK(dnnl_memory_create(&d, md, engine, dst));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}};
    CHECK(dnnl_primitive_execute(prim, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    for (int i = 0; i < N; i++) {
        double x = src[i], want = 0.5 * x * erfc(-x / sqrt(2.0));
        if (fabs(dst[i] - want) > 1e-5 * fabs(want) + 1e-6) {
            fprintf(stderr, "gelu_erf(%g) = %.9g, expected %.9g\n", x, dst[i], want);
            exit(1);
        }
    }
    CHECK(dnnl_memory_destroy(s));
    CHECK(dnnl_memory_destroy(d));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "env")) {
        dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
        if (isa == dnnl_cpu_isa_default) SKIP("not an x86-64 CPU (no effective ISA)");
        EXPECT(isa == dnnl_cpu_isa_sse41);
        /* The query fixed the limit. */
        CHECK_STATUS(dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2), dnnl_invalid_arguments);
        check_gelu_erf();
        EXPECT(dnnl_get_effective_cpu_isa() == dnnl_cpu_isa_sse41);
        printf("ok\n");
        return 0;
    }

    /* Not a dnnl_cpu_isa_t value: refused, and the setting stays open. */
    CHECK_STATUS(dnnl_set_max_cpu_isa((dnnl_cpu_isa_t)0x40), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_set_max_cpu_isa((dnnl_cpu_isa_t)2), dnnl_invalid_arguments);
    CHECK(dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2));
    /* Once only. */
    CHECK_STATUS(dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx512_core), dnnl_invalid_arguments);
    /* An engine does not fix it, a primitive descriptor does. */
    check_gelu_erf();
    CHECK_STATUS(dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2), dnnl_invalid_arguments);
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    if (isa == dnnl_cpu_isa_default) SKIP("not an x86-64 CPU (no effective ISA)");
    /* Within AVX2: sse41, avx or avx2. */
    EXPECT((isa & ~dnnl_cpu_isa_avx2) == 0);

    /* Hints: any value, once, before the first read. */
    CHECK(dnnl_set_cpu_isa_hints((dnnl_cpu_isa_hints_t)7));
    CHECK_STATUS(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_prefer_ymm), dnnl_runtime_error);
    EXPECT(dnnl_get_cpu_isa_hints() == (dnnl_cpu_isa_hints_t)7);
    CHECK_STATUS(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_no_hints), dnnl_runtime_error);
    EXPECT(dnnl_get_cpu_isa_hints() == (dnnl_cpu_isa_hints_t)7);
    printf("ok\n");
    return 0;
}
