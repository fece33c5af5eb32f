/* Ours only (upstream dereferences such handles): a destroyed, NULL or wrong-type
 * engine handle is rejected with dnnl_invalid_arguments, never used (DESIGN.md,
 * "Objects and lifetimes"). */
#include "check.h"

int main(void) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    /* A stream handle is not an engine. */
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK_STATUS(dnnl_engine_get_kind((dnnl_engine_t)stream, &kind), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_destroy((dnnl_engine_t)stream), dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(stream));

    /* Destroy twice; use after destroy; NULL (a success, as upstream). */
    CHECK(dnnl_engine_destroy(engine));
    CHECK_STATUS(dnnl_engine_destroy(engine), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_get_kind(engine, &kind), dnnl_invalid_arguments);
    CHECK(dnnl_engine_destroy(NULL));

    printf("cpu engine handles: ok\n");
    return 0;
}
