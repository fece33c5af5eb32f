/* Streams on the CPU engine: dnnl_stream_create with each documented flag value
 * (official dnnl_common_types.h dnnl_stream_flags_t), _get_engine (returns the engine
 * handle itself), _wait, _destroy, and NULL arguments. */
#include "check.h"

static void round_trip(dnnl_engine_t engine, unsigned flags) {
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, flags));
    EXPECT(stream != NULL);
    dnnl_engine_t got = NULL;
    CHECK(dnnl_stream_get_engine(stream, &got));
    /* A query gives its own (not owned) handle of the same engine. */
    dnnl_engine_kind_t kind = dnnl_any_engine, got_kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine, &kind));
    CHECK(dnnl_engine_get_kind(got, &got_kind));
    EXPECT(got_kind == kind);
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_stream_destroy(stream));
}

int main(void) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));

    round_trip(engine, dnnl_stream_default_flags);
    round_trip(engine, dnnl_stream_in_order);
    round_trip(engine, dnnl_stream_out_of_order);

    /* Two live streams on one engine. */
    dnnl_stream_t s1 = NULL, s2 = NULL;
    CHECK(dnnl_stream_create(&s1, engine, dnnl_stream_in_order));
    CHECK(dnnl_stream_create(&s2, engine, dnnl_stream_out_of_order));
    EXPECT(s1 != NULL && s2 != NULL && s1 != s2);
    CHECK(dnnl_stream_destroy(s2));
    CHECK(dnnl_stream_wait(s1));

    dnnl_stream_t bad = NULL;
    dnnl_engine_t got = NULL;
    CHECK_STATUS(dnnl_stream_create(NULL, engine, dnnl_stream_in_order), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_create(&bad, NULL, dnnl_stream_in_order), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK_STATUS(dnnl_stream_get_engine(s1, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_get_engine(NULL, &got), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_wait(NULL), dnnl_invalid_arguments);

    CHECK(dnnl_stream_destroy(s1));
    CHECK(dnnl_engine_destroy(engine));
    printf("cpu streams: ok\n");
    return 0;
}
