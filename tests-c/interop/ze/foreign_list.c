/* A command list foreign to the engine, which must be refused with invalid
 * arguments: dnnl_ze_interop_stream_create with an immediate and with a regular list
 * created in another context of the same driver and device must return
 * invalid_arguments and leave the output NULL; the lists stay the user's and work.
 *
 * Level Zero 1.4 (the API of Debian's loader, libze1 1.8) has no query from a command
 * list to its context (zeCommandListGetContextHandle arrives with API 1.9), so the
 * library has to find this out some other way; this program is kept apart from
 * stream.c so that its outcome is visible on its own. */
#include "ze_util.h"

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
    if (!ze_loader_has("zeCommandListGetContextHandle"))
        SKIP("this Level Zero loader (API before 1.9) has no zeCommandListGetContextHandle: "
             "no query tells a command list's context, so a foreign list cannot be detected");
    dnnl_engine_t e = ze_engine(&u);

    ze_user_t other = u;
    other.context = ze_context_create(u.driver);
    ze_command_list_handle_t imm = ze_immediate_list(&other);
    expect_refused(e, imm, "an immediate list created in another context");
    EXPECT(ze_list_works(&other, imm, NULL));

    ze_command_list_handle_t reg = ze_regular_list(&other);
    ze_command_queue_handle_t q = ze_queue(&other);
    expect_refused(e, reg, "a regular list created in another context");
    EXPECT(ze_list_works(&other, reg, q));

    ZE_CHECK(zeCommandListDestroy(imm));
    ZE_CHECK(zeCommandListDestroy(reg));
    ZE_CHECK(zeCommandQueueDestroy(q));
    ze_user_destroy(&other);
    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("ze foreign list: ok\n");
    return 0;
}
