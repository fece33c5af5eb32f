/* dnnl_memory_map_data / _unmap_data (and _v2) on the CPU engine: the mapped pointer
 * is the data itself (the CPU engine accesses memory directly), writes through it are
 * seen afterwards, and index 1 of a dense memory is refused. */
#include "check.h"

int main(void) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {3, 7};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, dnnl_ab));

    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_ALLOCATE));
    void *handle = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &handle));

    float *mapped = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&mapped));
    EXPECT((void *)mapped == handle);
    for (int i = 0; i < 21; i++)
        mapped[i] = (float)(i * i);
    CHECK(dnnl_memory_unmap_data(mem, mapped));

    float *again = NULL;
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&again, 0));
    EXPECT((void *)again == handle);
    for (int i = 0; i < 21; i++)
        EXPECT(again[i] == (float)(i * i));
    CHECK(dnnl_memory_unmap_data_v2(mem, again, 0));

    void *p = NULL;
    CHECK_STATUS(dnnl_memory_map_data_v2(mem, &p, 1), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_map_data(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_map_data(NULL, &p), dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(mem));

    /* A user buffer maps to itself. */
    float user[21] = {0};
    CHECK(dnnl_memory_create(&mem, md, engine, user));
    CHECK(dnnl_memory_map_data(mem, &p));
    EXPECT(p == (void *)user);
    ((float *)p)[20] = 42.f;
    CHECK(dnnl_memory_unmap_data(mem, p));
    EXPECT(user[20] == 42.f);
    CHECK(dnnl_memory_destroy(mem));

    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine));
    printf("cpu memory map/unmap: ok\n");
    return 0;
}
