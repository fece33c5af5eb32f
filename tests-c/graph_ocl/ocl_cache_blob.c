/* dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator accepts what
 * oneDNN v3.13 accepts (read from its headers and persistent-cache documentation: the
 * blob is checked for NULL only; an empty one means "nothing cached"):
 * - an empty blob (size 0, a non-NULL pointer): an engine that builds its programs as
 *   it needs them;
 * - the device's cache blob id (dnnl_ocl_interop_engine_get_cache_blob_id) given as
 *   the blob: the same;
 * - a NULL blob is dnnl_invalid_arguments, whatever the size.
 * Each engine made carries the allocator: a tensor's own memory comes from it, and it
 * runs a primitive (the engine works). Deliberate difference, kept: a corrupted blob
 * or one of another device is refused (ocl_allocator checks that). */
#include "counting_alloc.h"

/* An engine that works: a ReLU primitive runs on it, and a graph tensor's memory
 * comes from the counting allocator (when the device has USM). */
static void engine_works(dnnl_engine_t e, int has_usm) {
    dnnl_engine_kind_t kind;
    CHECK(dnnl_engine_get_kind(e, &kind));
    EXPECT(kind == dnnl_gpu);
    dnnl_memory_desc_t md;
    dnnl_dims_t dims = {8};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(
            &pd, e, dnnl_forward_inference, dnnl_eltwise_relu, md, md, 0.f, 0.f, NULL));
    dnnl_primitive_t p;
    CHECK(dnnl_primitive_create(&p, pd));
    dnnl_memory_t m;
    CHECK(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    float *v;
    CHECK(dnnl_memory_map_data(m, (void **)&v));
    for (int i = 0; i < 8; i++) v[i] = (float)(i - 4);
    CHECK(dnnl_memory_unmap_data(m, v));
    dnnl_stream_t s;
    CHECK(dnnl_stream_create(&s, e, dnnl_stream_default_flags));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}};
    CHECK(dnnl_primitive_execute(p, s, 2, args));
    CHECK(dnnl_stream_wait(s));
    CHECK(dnnl_memory_map_data(m, (void **)&v));
    for (int i = 0; i < 8; i++) EXPECT(v[i] == (i < 4 ? 0.f : (float)(i - 4)));
    CHECK(dnnl_memory_unmap_data(m, v));
    CHECK(dnnl_stream_destroy(s));
    CHECK(dnnl_memory_destroy(m));
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_primitive_desc_destroy(pd));
    if (has_usm) {
        dnnl_graph_logical_tensor_t lt;
        CHECK(dnnl_graph_logical_tensor_init_with_dims(&lt, 1, dnnl_f32, 1, dims,
                dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));
        int before = count_allocs();
        dnnl_graph_tensor_t t;
        CHECK(dnnl_graph_tensor_create(&t, &lt, e, DNNL_MEMORY_ALLOCATE));
        EXPECT(count_allocs() == before + 1);
        CHECK(dnnl_graph_tensor_destroy(t));
    }
    CHECK(dnnl_memory_desc_destroy(md));
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = ocl_context_create(dev);
    ocl_usm_t usm;
    int has_usm = ocl_usm_get(dev, &usm);
    count_ocl_init(&usm);
    dnnl_graph_allocator_t a;
    CHECK(dnnl_graph_ocl_interop_allocator_create(&a, count_ocl_malloc, count_ocl_free));
    dnnl_engine_t e = NULL;

    const uint8_t empty[1] = {0};
    CHECK(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
            &e, dev, ctx, a, 0, empty));
    engine_works(e, has_usm);
    CHECK(dnnl_engine_destroy(e));
    e = NULL;
    printf("an empty cache blob: ok\n");

    size_t id_size = 0;
    CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &id_size, NULL));
    EXPECT(id_size > 0);
    uint8_t *id = (uint8_t *)malloc(id_size);
    CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &id_size, id));
    CHECK(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
            &e, dev, ctx, a, id_size, id));
    engine_works(e, has_usm);
    CHECK(dnnl_engine_destroy(e));
    e = NULL;
    free(id);
    printf("the cache blob id as the blob: ok\n");

    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
                         &e, dev, ctx, a, 0, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
                         &e, dev, ctx, a, 16, NULL),
            dnnl_invalid_arguments);
    EXPECT(e == NULL);
    printf("a NULL blob is refused: ok\n");

    CHECK(dnnl_graph_allocator_destroy(a));
    count_check_balanced(5000);
    OCL_CHECK(clReleaseContext(ctx));
    printf("graph_ocl_cache_blob: ok\n");
    return 0;
}
