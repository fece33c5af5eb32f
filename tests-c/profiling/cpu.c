/* The profiling API on the CPU engine, as upstream's library answers it (this test
 * has an @ref twin): a profiling stream cannot be made, and reset and query on a CPU
 * stream are unimplemented. A NULL stream (upstream crashes) is refused by ours. */
#define _POSIX_C_SOURCE 200809L
#define DNNL_EXPERIMENTAL_PROFILING
#include "profiling_util.h"

int main(void) {
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    dnnl_stream_t s = NULL;
    CHECK_STATUS(dnnl_stream_create(&s, cpu, dnnl_stream_in_order | dnnl_stream_profiling),
            dnnl_unimplemented);
    CHECK(dnnl_stream_create(&s, cpu, dnnl_stream_default_flags));
    CHECK_STATUS(dnnl_reset_profiling(s), dnnl_unimplemented);
    int n = 7;
    CHECK_STATUS(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, NULL),
            dnnl_unimplemented);
    EXPECT(n == 7);
    if (library_is_ours()) {
        uint64_t t[1] = {0xdead};
        CHECK_STATUS(dnnl_query_profiling_data(s, dnnl_profiling_data_kind_time, &n, t),
                dnnl_unimplemented);
        EXPECT(n == 7 && t[0] == 0xdead);
        prof_refused(NULL, dnnl_invalid_arguments);
    }
    CHECK(dnnl_stream_destroy(s));
    CHECK(dnnl_engine_destroy(cpu));
    printf("PASS\n");
    return 0;
}
