/* The CPU engine: dnnl_engine_get_count, _create, _get_kind, _destroy, and the
 * invalid-argument cases upstream shares (official dnnl_common.h: index out of range,
 * kind `any`, NULL output pointers). Stale and wrong-type handles: cpu_engine_handles.c. */
#include "check.h"

int main(void) {
    EXPECT(dnnl_engine_get_count(dnnl_cpu) == 1);
    EXPECT(dnnl_engine_get_count(dnnl_any_engine) == 0);

    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    EXPECT(engine != NULL);

    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine, &kind));
    EXPECT(kind == dnnl_cpu);

    /* A second CPU engine is a distinct object with the same kind. */
    dnnl_engine_t engine2 = NULL;
    CHECK(dnnl_engine_create(&engine2, dnnl_cpu, 0));
    EXPECT(engine2 != NULL);
    kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine2, &kind));
    EXPECT(kind == dnnl_cpu);
    CHECK(dnnl_engine_destroy(engine2));

    dnnl_engine_t bad = NULL;
    CHECK_STATUS(dnnl_engine_create(&bad, dnnl_cpu, 1), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK_STATUS(dnnl_engine_create(&bad, dnnl_any_engine, 0), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK_STATUS(dnnl_engine_create(NULL, dnnl_cpu, 0), dnnl_invalid_arguments);
    /* Upstream dereferences these (reference runs crash): ours alone. */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_engine_get_kind(engine, NULL), dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_engine_get_kind(NULL, &kind), dnnl_invalid_arguments);
    }

    CHECK(dnnl_engine_destroy(engine));
    printf("cpu engine: ok\n");
    return 0;
}
