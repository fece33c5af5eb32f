/* Memory on the CPU engine: dnnl_memory_create with DNNL_MEMORY_ALLOCATE,
 * DNNL_MEMORY_NONE and a user pointer (official dnnl.h), dnnl_memory_get_memory_desc
 * (equal to the descriptor it was made from), dnnl_memory_get_engine, and the
 * descriptors and arguments it refuses (format `any`, run-time dims, NULLs). */
#include <stdint.h>

#include "check.h"

static dnnl_memory_desc_t md_f32(int ndims, const dnnl_dim_t *dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

static void expect_same_md_and_engine(dnnl_memory_t mem, const_dnnl_memory_desc_t md,
        dnnl_engine_t engine) {
    const_dnnl_memory_desc_t got_md = NULL;
    CHECK(dnnl_memory_get_memory_desc(mem, &got_md));
    EXPECT(got_md != NULL);
    EXPECT(dnnl_memory_desc_equal(got_md, md) == 1);
    EXPECT(dnnl_memory_desc_get_size(got_md) == dnnl_memory_desc_get_size(md));
    dnnl_engine_t got_engine = NULL;
    CHECK(dnnl_memory_get_engine(mem, &got_engine));
    /* A query gives its own (not owned) handle of the engine. */
    dnnl_engine_kind_t kind = dnnl_any_engine, got_kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine, &kind));
    CHECK(dnnl_engine_get_kind(got_engine, &got_kind));
    EXPECT(got_kind == kind);
}

int main(void) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    dnnl_dims_t dims = {2, 3, 4, 5};
    dnnl_memory_desc_t md = md_f32(4, dims, dnnl_nchw);
    const size_t size = dnnl_memory_desc_get_size(md);
    EXPECT(size == 2 * 3 * 4 * 5 * sizeof(float));

    /* DNNL_MEMORY_ALLOCATE: the library allocates; the buffer is usable. */
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_ALLOCATE));
    EXPECT(mem != NULL);
    expect_same_md_and_engine(mem, md, engine);
    void *handle = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &handle));
    EXPECT(handle != NULL && handle != DNNL_MEMORY_ALLOCATE);
    float *f = (float *)handle;
    for (size_t i = 0; i < size / sizeof(float); i++)
        f[i] = (float)i;
    EXPECT(f[size / sizeof(float) - 1] == (float)(size / sizeof(float) - 1));
    CHECK(dnnl_memory_destroy(mem));

    /* DNNL_MEMORY_NONE: no buffer. */
    mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_NONE));
    EXPECT(mem != NULL);
    expect_same_md_and_engine(mem, md, engine);
    handle = (void *)&handle;
    CHECK(dnnl_memory_get_data_handle(mem, &handle));
    EXPECT(handle == NULL);
    CHECK(dnnl_memory_destroy(mem));

    /* A user pointer: used as is, never freed by the library. */
    float *user = (float *)malloc(size);
    EXPECT(user != NULL);
    for (size_t i = 0; i < size / sizeof(float); i++)
        user[i] = 0.5f * (float)i;
    CHECK(dnnl_memory_create(&mem, md, engine, user));
    expect_same_md_and_engine(mem, md, engine);
    CHECK(dnnl_memory_get_data_handle(mem, &handle));
    EXPECT(handle == (void *)user);
    CHECK(dnnl_memory_destroy(mem));
    EXPECT(user[7] == 3.5f); /* still ours, untouched */
    free(user);

    /* Another layout keeps its own descriptor. */
    dnnl_memory_desc_t nhwc = md_f32(4, dims, dnnl_nhwc);
    CHECK(dnnl_memory_create(&mem, nhwc, engine, DNNL_MEMORY_ALLOCATE));
    expect_same_md_and_engine(mem, nhwc, engine);
    const_dnnl_memory_desc_t got_md = NULL;
    CHECK(dnnl_memory_get_memory_desc(mem, &got_md));
    EXPECT(dnnl_memory_desc_equal(got_md, md) == 0);
    CHECK(dnnl_memory_destroy(mem));

    /* The memory keeps its own copy of the descriptor. */
    dnnl_memory_desc_t tmp = md_f32(4, dims, dnnl_nchw);
    CHECK(dnnl_memory_create(&mem, tmp, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_desc_destroy(tmp));
    CHECK(dnnl_memory_get_memory_desc(mem, &got_md));
    EXPECT(dnnl_memory_desc_equal(got_md, md) == 1);
    CHECK(dnnl_memory_destroy(mem));

    /* Refused: format `any`, run-time dims, NULL arguments. */
    dnnl_memory_t bad = NULL;
    dnnl_memory_desc_t any = md_f32(4, dims, dnnl_format_tag_any);
    CHECK_STATUS(dnnl_memory_create(&bad, any, engine, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&bad, any, engine, DNNL_MEMORY_NONE), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    dnnl_dims_t rt_dims = {2, DNNL_RUNTIME_DIM_VAL, 4, 5};
    dnnl_memory_desc_t rt = md_f32(4, rt_dims, dnnl_nchw);
    CHECK_STATUS(dnnl_memory_create(&bad, rt, engine, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK_STATUS(dnnl_memory_create(NULL, md, engine, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&bad, NULL, engine, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&bad, md, NULL, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);

    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK_STATUS(dnnl_memory_get_memory_desc(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_engine(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_data_handle(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_memory_desc(NULL, &got_md), dnnl_invalid_arguments);
    dnnl_engine_t got_engine = NULL;
    CHECK_STATUS(dnnl_memory_get_engine(NULL, &got_engine), dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(mem));

    CHECK(dnnl_memory_desc_destroy(rt));
    CHECK(dnnl_memory_desc_destroy(any));
    CHECK(dnnl_memory_desc_destroy(nhwc));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine));
    printf("cpu memory create: ok\n");
    return 0;
}
