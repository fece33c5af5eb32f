/* The dnnl_threadpool_interop_* functions in a build without the threadpool CPU
 * runtime. Intel's such builds (the reference of <test>@ref: PyPI's onednn) do not
 * export them, so a program cannot call them there; this library exports every
 * function of the official headers, and each of these returns dnnl_unimplemented,
 * whatever its arguments, writing nothing (README, "Threadpool interop"). The
 * functions are looked up with dlsym, so that the program loads with either library:
 * with Intel's each must be absent, with ours present and answering as above. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "oneapi/dnnl/dnnl_threadpool.h"

static int failures;

static void *lookup(const char *name, int ours) {
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!ours && f != NULL) {
        fprintf(stderr, "FAIL: Intel's library (no threadpool runtime) exports %s\n", name);
        failures++;
    }
    if (ours && f == NULL) {
        fprintf(stderr, "FAIL: this library does not export %s\n", name);
        failures++;
    }
    if (!ours) printf("%s: not exported (Intel's build without the threadpool runtime)\n", name);
    return ours ? f : NULL;
}

static void expect(const char *what, dnnl_status_t got) {
    if (got != dnnl_unimplemented) {
        fprintf(stderr, "FAIL: %s returned %s, want unimplemented\n", what, check_status_str(got));
        failures++;
    } else {
        printf("%s: unimplemented\n", what);
    }
}

#define FN(name) __typeof__(name) *

int main(void) {
    int ours = library_is_ours();
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    static char fake_pool[64]; /* not a threadpool: must not be used */
    const dnnl_stream_t untouched_stream = (dnnl_stream_t)(uintptr_t)0x5eed;
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1}, c[4] = {7, 7, 7, 7};
    uint8_t ua[4] = {1, 2, 3, 4};
    int8_t sa[4] = {1, 2, 3, 4}, sb[4] = {1, 1, 1, 1};
    int32_t ic[4] = {7, 7, 7, 7}, co[2] = {0, 0};

    FN(dnnl_threadpool_interop_stream_create) stream_create =
            lookup("dnnl_threadpool_interop_stream_create", ours);
    FN(dnnl_threadpool_interop_stream_get_threadpool) get_threadpool =
            lookup("dnnl_threadpool_interop_stream_get_threadpool", ours);
    FN(dnnl_threadpool_interop_set_max_concurrency) set_max =
            lookup("dnnl_threadpool_interop_set_max_concurrency", ours);
    FN(dnnl_threadpool_interop_get_max_concurrency) get_max =
            lookup("dnnl_threadpool_interop_get_max_concurrency", ours);
    FN(dnnl_threadpool_interop_sgemm) sgemm = lookup("dnnl_threadpool_interop_sgemm", ours);
    FN(dnnl_threadpool_interop_gemm_u8s8s32) u8 =
            lookup("dnnl_threadpool_interop_gemm_u8s8s32", ours);
    FN(dnnl_threadpool_interop_gemm_s8s8s32) s8 =
            lookup("dnnl_threadpool_interop_gemm_s8s8s32", ours);

    if (ours) {
        dnnl_stream_t s = untouched_stream;
        expect("dnnl_threadpool_interop_stream_create", stream_create(&s, engine, fake_pool));
        EXPECT(s == untouched_stream);
        expect("dnnl_threadpool_interop_stream_create (NULL threadpool)",
                stream_create(&s, engine, NULL));
        EXPECT(s == untouched_stream);
        void *pool = fake_pool;
        expect("dnnl_threadpool_interop_stream_get_threadpool", get_threadpool(stream, &pool));
        EXPECT(pool == fake_pool);
        expect("dnnl_threadpool_interop_set_max_concurrency", set_max(4));
        int max = -5;
        expect("dnnl_threadpool_interop_get_max_concurrency", get_max(&max));
        EXPECT(max == -5);
        expect("dnnl_threadpool_interop_sgemm",
                sgemm('N', 'N', 2, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2, fake_pool));
        expect("dnnl_threadpool_interop_gemm_u8s8s32",
                u8('N', 'N', 'F', 2, 2, 2, 1.f, ua, 2, 0, sb, 2, 0, 0.f, ic, 2, co, fake_pool));
        expect("dnnl_threadpool_interop_gemm_s8s8s32",
                s8('N', 'N', 'F', 2, 2, 2, 1.f, sa, 2, 0, sb, 2, 0, 0.f, ic, 2, co, NULL));
        for (int i = 0; i < 4; i++) EXPECT(c[i] == 7.f && ic[i] == 7);
        /* The same GEMMs through the regular functions compute. */
        CHECK(dnnl_sgemm('N', 'N', 2, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2));
        EXPECT(c[0] == 3.f && c[3] == 7.f);
    }
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) return 1;
    printf("threadpool interop: OK\n");
    return 0;
}
