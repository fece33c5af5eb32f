/* Level Zero streams (notes 2.8; dnnl_ze.h):
 * - dnnl_ze_interop_stream_create on the user's immediate list (profiling 0 and 1)
 *   and on a regular list: get_list returns that list, dnnl_stream_get_engine the
 *   engine, dnnl_stream_wait succeeds (immediate lists); after dnnl_stream_destroy the list is still the
 *   user's and still immediate (commands appended to it run with no queue) or still a
 *   regular list (it runs on the user's queue);
 * - dnnl_stream_create on a ze engine makes the library's own list, which get_list
 *   returns (non-NULL);
 * - refused with invalid_arguments: a NULL output, a NULL engine, a NULL list, a CPU
 *   engine, and, for get_list, a NULL output, a NULL stream and a CPU stream.
 * A list created in another context is foreign_list.c's business. */
#include "ze_util.h"

static void on_list(
        dnnl_engine_t e, ze_command_list_handle_t list, int profiling, int immediate) {
    dnnl_stream_t s = NULL;
    CHECK(dnnl_ze_interop_stream_create(&s, e, list, profiling));
    EXPECT(s != NULL);
    ze_command_list_handle_t got = NULL;
    CHECK(dnnl_ze_interop_stream_get_list(s, &got));
    EXPECT(got == list);
    dnnl_engine_t se = NULL;
    CHECK(dnnl_stream_get_engine(s, &se));
    /* A query gives its own (not owned) handle of the same engine. */
    ze_context_handle_t ctx = NULL, got_ctx = NULL;
    CHECK(dnnl_ze_interop_engine_get_context(e, &ctx));
    CHECK(dnnl_ze_interop_engine_get_context(se, &got_ctx));
    EXPECT(got_ctx == ctx);
    /* A regular list runs only when the user submits it: nothing to wait for here. */
    if (immediate) CHECK(dnnl_stream_wait(s));
    CHECK(dnnl_stream_destroy(s));
}

static void expect_refused(dnnl_engine_t e, ze_command_list_handle_t list, const char *what) {
    dnnl_stream_t s = NULL;
    dnnl_status_t st = dnnl_ze_interop_stream_create(&s, e, list, 0);
    if (st != dnnl_invalid_arguments) {
        fprintf(stderr, "dnnl_ze_interop_stream_create with %s returned %s, expected "
                        "invalid_arguments\n",
                what, check_status_str(st));
        exit(1);
    }
    EXPECT(s == NULL);
    printf("refused: %s\n", what);
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    dnnl_engine_t e = ze_engine(&u);

    /* Immediate list, without and with profiling. */
    ze_command_list_handle_t imm = ze_immediate_list(&u);
    on_list(e, imm, 0, 1);
    EXPECT(ze_list_works(&u, imm, NULL));
    on_list(e, imm, 1, 1);
    EXPECT(ze_list_works(&u, imm, NULL));
    printf("stream on an immediate list (profiling 0 and 1); the list is still immediate "
           "after dnnl_stream_destroy: ok\n");

    /* Regular list: still the user's regular list afterwards. */
    ze_command_list_handle_t reg = ze_regular_list(&u);
    ze_command_queue_handle_t q = ze_queue(&u);
    on_list(e, reg, 0, 0);
    EXPECT(ze_list_works(&u, reg, q));
    printf("stream on a regular list; the list runs on the user's queue afterwards: ok\n");

    /* The library's own list. */
    dnnl_stream_t own = NULL;
    CHECK(dnnl_stream_create(&own, e, dnnl_stream_default_flags));
    ze_command_list_handle_t own_list = NULL;
    CHECK(dnnl_ze_interop_stream_get_list(own, &own_list));
    EXPECT(own_list != NULL && own_list != imm && own_list != reg);
    CHECK(dnnl_stream_wait(own));
    CHECK(dnnl_stream_destroy(own));
    printf("dnnl_stream_create on a ze engine: the library's own list: ok\n");

    /* Refusals. */
    dnnl_stream_t s = NULL;
    CHECK_STATUS(dnnl_ze_interop_stream_create(NULL, e, imm, 0), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_stream_create(&s, NULL, imm, 0), dnnl_invalid_arguments);
    EXPECT(s == NULL);
    expect_refused(e, NULL, "a NULL list");
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    expect_refused(cpu, imm, "a CPU engine");

    ze_command_list_handle_t got = NULL;
    CHECK_STATUS(dnnl_ze_interop_stream_get_list(NULL, &got), dnnl_invalid_arguments);
    CHECK(dnnl_ze_interop_stream_create(&s, e, imm, 0));
    CHECK_STATUS(dnnl_ze_interop_stream_get_list(s, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(s));
    dnnl_stream_t cpu_stream = NULL;
    CHECK(dnnl_stream_create(&cpu_stream, cpu, dnnl_stream_default_flags));
    CHECK_STATUS(dnnl_ze_interop_stream_get_list(cpu_stream, &got), dnnl_invalid_arguments);
    EXPECT(got == NULL);
    CHECK(dnnl_stream_destroy(cpu_stream));
    CHECK(dnnl_engine_destroy(cpu));
    printf("get_list refuses NULL output, NULL stream, CPU stream: ok\n");

    /* The user's lists survive everything above. */
    EXPECT(ze_list_works(&u, imm, NULL));
    EXPECT(ze_list_works(&u, reg, q));
    ZE_CHECK(zeCommandListDestroy(imm));
    ZE_CHECK(zeCommandListDestroy(reg));
    ZE_CHECK(zeCommandQueueDestroy(q));
    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("ze stream: ok\n");
    return 0;
}
