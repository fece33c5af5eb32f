/* Ours only: rejected stream flags and handles. Flags asking for in-order and
 * out-of-order execution at once, or holding bits no dnnl_stream_flags_t value has,
 * give dnnl_invalid_arguments (upstream does not check); destroyed, NULL or wrong-type
 * stream handles are rejected (DESIGN.md, "Objects and lifetimes"). */
#include "check.h"

int main(void) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));

    dnnl_stream_t bad = NULL;
    CHECK_STATUS(dnnl_stream_create(&bad, engine, dnnl_stream_in_order | dnnl_stream_out_of_order),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK_STATUS(dnnl_stream_create(&bad, engine, dnnl_stream_in_order | 0x100u),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_create(&bad, engine, 0x8000u), dnnl_invalid_arguments);
    EXPECT(bad == NULL);

    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_engine_t got = NULL;
    /* An engine handle is not a stream. */
    CHECK_STATUS(dnnl_stream_wait((dnnl_stream_t)engine), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_get_engine((dnnl_stream_t)engine, &got), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_destroy((dnnl_stream_t)engine), dnnl_invalid_arguments);

    /* Destroy twice; use after destroy; NULL (a success, as upstream). */
    CHECK(dnnl_stream_destroy(stream));
    CHECK_STATUS(dnnl_stream_destroy(stream), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_wait(stream), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_get_engine(stream, &got), dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(NULL));

    /* A destroyed engine makes no stream. */
    CHECK(dnnl_engine_destroy(engine));
    CHECK_STATUS(dnnl_stream_create(&bad, engine, dnnl_stream_in_order), dnnl_invalid_arguments);
    EXPECT(bad == NULL);

    printf("cpu stream invalid arguments: ok\n");
    return 0;
}
