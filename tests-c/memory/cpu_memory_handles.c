/* Ours only: destroyed, NULL and wrong-type memory handles are rejected with
 * dnnl_invalid_arguments (DESIGN.md, "Objects and lifetimes"); destroying a memory
 * leaves its engine usable, and a destroyed engine makes no memory. */
#include "check.h"

int main(void) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {16};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_ALLOCATE));

    void *h = NULL;
    /* An engine handle is not a memory. */
    CHECK_STATUS(dnnl_memory_get_data_handle((dnnl_memory_t)engine, &h), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_destroy((dnnl_memory_t)engine), dnnl_invalid_arguments);

    CHECK(dnnl_memory_destroy(mem));
    CHECK_STATUS(dnnl_memory_destroy(mem), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_data_handle(mem, &h), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_data_handle(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_map_data(mem, &h), dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(NULL)); /* as upstream */

    /* A destroyed engine makes no memory. */
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine, &kind));
    CHECK(dnnl_engine_destroy(engine));
    dnnl_memory_t bad = NULL;
    CHECK_STATUS(dnnl_memory_create(&bad, md, engine, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);

    CHECK(dnnl_memory_desc_destroy(md));
    printf("cpu memory handles: ok\n");
    return 0;
}
