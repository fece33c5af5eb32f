/* The profiling API on Level Zero engines (through the in-repository driver):
 * - a stream over the user's immediate list created with profiling (the last argument
 *   of dnnl_ze_interop_stream_create): three executions give three entries from the
 *   kernel timestamps, in order, each within the host time they took; reset empties
 *   the profile; once more after the reset;
 * - a stream of the library's own list made with dnnl_stream_profiling: the same;
 * - a stream without profiling: refused with invalid_arguments. */
#define _POSIX_C_SOURCE 200809L
#define DNNL_EXPERIMENTAL_PROFILING
#include "interop/ze/ze_util.h"
#include "profiling_util.h"

int main(void) {
    ze_user_t u = ze_user_or_skip();
    dnnl_engine_t e = ze_engine(&u);

    ze_command_list_handle_t list = ze_immediate_list(&u);
    dnnl_stream_t s = NULL;
    CHECK(dnnl_ze_interop_stream_create(&s, e, list, 1));
    EXPECT(prof_count(s) == 0);
    uint64_t host = prof_run_three(e, s);
    prof_check_three(s, host);
    host = prof_run_three(e, s);
    prof_check_three(s, host);
    CHECK(dnnl_stream_destroy(s));
    printf("user list with profiling: ok\n");

    CHECK(dnnl_stream_create(&s, e, dnnl_stream_in_order | dnnl_stream_profiling));
    host = prof_run_three(e, s);
    prof_check_three(s, host);
    CHECK(dnnl_stream_destroy(s));
    printf("library list with dnnl_stream_profiling: ok\n");

    CHECK(dnnl_ze_interop_stream_create(&s, e, list, 0));
    prof_run_three(e, s);
    prof_refused(s, dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(s));
    printf("stream without profiling refused: ok\n");

    ZE_CHECK(zeCommandListDestroy(list));
    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("PASS\n");
    return 0;
}
