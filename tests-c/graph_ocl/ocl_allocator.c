/* The graph OpenCL allocator (dnnl_graph_ocl.h) and the engines that carry one:
 * dnnl_graph_ocl_interop_allocator_create, dnnl_graph_ocl_interop_make_engine_with_allocator,
 * dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator, and
 * dnnl_graph_make_engine_with_allocator for the GPU kind, with their error cases.
 * A counting USM allocator (Intel's device USM, else clSVMAlloc memory: PoCL, NVIDIA,
 * Intel's runtime under DNNL_OCL_USM=svm) checks that a tensor's own memory
 * (DNNL_MEMORY_ALLOCATE) comes from the engine's allocator, aligned, freed exactly once;
 * the default allocator gives USM too (device USM, or SVM of the library's own). An
 * allocator that returns a pointer the host cannot read is refused (runtime_error, the
 * pointer given back to its free; ONEDNN_VERBOSE=check says why). On a device without
 * USM (none on CI) the request must fail with dnnl_unimplemented. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <sys/mman.h>

#include "counting_alloc.h"

static dnnl_graph_logical_tensor_t lt_f32(size_t id, int64_t rows, int64_t cols) {
    dnnl_graph_logical_tensor_t lt;
    memset(&lt, 0, sizeof(lt));
    lt.id = id;
    lt.ndims = 2;
    lt.dims[0] = rows;
    lt.dims[1] = cols;
    lt.data_type = dnnl_f32;
    lt.property = dnnl_graph_tensor_property_variable;
    lt.layout_type = dnnl_graph_layout_type_strided;
    lt.layout.strides[0] = cols;
    lt.layout.strides[1] = 1;
    return lt;
}

/* An engine cache blob with something in it: an eltwise primitive compiled on an
 * engine of `dev` and `ctx`. Returns its size; *blob is malloc'ed. */
static size_t make_cache_blob(cl_device_id dev, cl_context ctx, uint8_t **blob) {
    dnnl_engine_t e = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&e, dev, ctx));
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {4, 8};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, dnnl_ab));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
            dnnl_eltwise_relu, md, md, 0.f, 0.f, NULL));
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    size_t size = 0;
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(e, &size, NULL));
    EXPECT(size > 0);
    *blob = (uint8_t *)malloc(size);
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(e, &size, *blob));
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(e));
    return size;
}

static void engines(cl_device_id dev, cl_context ctx) {
    dnnl_graph_allocator_t a = NULL;
    CHECK_STATUS(dnnl_graph_ocl_interop_allocator_create(NULL, count_ocl_malloc, count_ocl_free),
            dnnl_invalid_arguments);
    /* Either callback NULL: the default allocator, not an error. */
    CHECK(dnnl_graph_ocl_interop_allocator_create(&a, NULL, count_ocl_free));
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK(dnnl_graph_ocl_interop_allocator_create(&a, count_ocl_malloc, NULL));
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK(dnnl_graph_ocl_interop_allocator_create(&a, count_ocl_malloc, count_ocl_free));

    dnnl_engine_t e = NULL;
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_with_allocator(NULL, dev, ctx, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, NULL, ctx, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, NULL, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, ctx, NULL),
            dnnl_invalid_arguments);
    EXPECT(e == NULL);

    cl_uint refs = ocl_context_refcount(ctx);
    CHECK(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, ctx, a));
    EXPECT(ocl_context_refcount(ctx) == refs + 1);
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(e, &kind));
    EXPECT(kind == dnnl_gpu);
    cl_context got_ctx = NULL;
    cl_device_id got_dev = NULL;
    CHECK(dnnl_ocl_interop_engine_get_context(e, &got_ctx));
    CHECK(dnnl_ocl_interop_get_device(e, &got_dev));
    EXPECT(got_ctx == ctx && got_dev == dev);
    CHECK(dnnl_engine_destroy(e));
    e = NULL;
    EXPECT(ocl_context_refcount_settles(ctx, refs));

    /* From a cache blob. */
    uint8_t *blob = NULL;
    size_t size = make_cache_blob(dev, ctx, &blob);
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
                         NULL, dev, ctx, a, size, blob),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
                         &e, dev, ctx, a, size, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
                         &e, dev, ctx, NULL, size, blob),
            dnnl_invalid_arguments);
    /* A corrupted blob is refused, not loaded. */
    blob[size / 2] ^= 0x5a;
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
                         &e, dev, ctx, a, size, blob),
            dnnl_invalid_arguments);
    blob[size / 2] ^= 0x5a;
    EXPECT(e == NULL);
    CHECK(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
            &e, dev, ctx, a, size, blob));
    CHECK(dnnl_engine_get_kind(e, &kind));
    EXPECT(kind == dnnl_gpu);
    CHECK(dnnl_engine_destroy(e));
    free(blob);

    /* The generic function makes GPU engines too. */
    CHECK(dnnl_graph_make_engine_with_allocator(&e, dnnl_gpu, 0, a));
    CHECK(dnnl_engine_get_kind(e, &kind));
    EXPECT(kind == dnnl_gpu);
    CHECK(dnnl_engine_destroy(e));

    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK_STATUS(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, ctx, a),
            dnnl_invalid_arguments);
    EXPECT(count_allocs() == 0);
    printf("allocator create, engines with allocators and their errors: ok\n");
}

/* Tensors with DNNL_MEMORY_ALLOCATE on an engine with the counting USM allocator. */
static void allocate(cl_device_id dev, cl_context ctx, int has_usm) {
    dnnl_graph_allocator_t a = NULL;
    dnnl_engine_t e = NULL;
    CHECK(dnnl_graph_ocl_interop_allocator_create(&a, count_ocl_malloc, count_ocl_free));
    CHECK(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, ctx, a));
    CHECK(dnnl_graph_allocator_destroy(a)); /* the engine has its own copy */
    dnnl_graph_logical_tensor_t lt = lt_f32(1, 16, 33);
    dnnl_graph_tensor_t t = NULL;

    /* A tensor may always wrap the user's pointer. */
    float host[4];
    CHECK(dnnl_graph_tensor_create(&t, &lt, e, host));
    dnnl_engine_t got = NULL;
    CHECK(dnnl_graph_tensor_get_engine(t, &got));
    /* A query gives its own (not owned) handle of the same engine. */
    cl_context got_ctx = NULL;
    CHECK(dnnl_ocl_interop_engine_get_context(got, &got_ctx));
    EXPECT(got_ctx == ctx);
    CHECK(dnnl_graph_tensor_destroy(t));
    t = NULL;

    if (!has_usm) {
        CHECK_STATUS(dnnl_graph_tensor_create(&t, &lt, e, DNNL_MEMORY_ALLOCATE),
                dnnl_unimplemented);
        EXPECT(t == NULL && count_allocs() == 0);
        CHECK(dnnl_engine_destroy(e));
        printf("SKIP: the device has neither Intel USM nor coarse-grained SVM: graph memory "
               "on OpenCL is USM, so DNNL_MEMORY_ALLOCATE returns dnnl_unimplemented "
               "(checked) and the counting USM allocator part does not run\n");
        return;
    }
    const int svm = count_usm.via == OCL_USM_SVM;
    CHECK(dnnl_graph_tensor_create(&t, &lt, e, DNNL_MEMORY_ALLOCATE));
    EXPECT(count_allocs() == 1 && count.entries[0].size == 16 * 33 * sizeof(float));
    void *h = NULL;
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h == count.entries[0].ptr);
    cl_unified_shared_memory_type_intel type = 0;
    if (!svm) {
        OCL_CHECK(count_usm.get_alloc_info(
                ctx, h, CL_MEM_ALLOC_TYPE_INTEL, sizeof(type), &type, NULL));
        EXPECT(type == CL_MEM_TYPE_DEVICE_INTEL);
    }
    /* Nothing used it: the free gets no event. */
    CHECK(dnnl_graph_tensor_destroy(t));
    CHECK(dnnl_engine_destroy(e));
    count_check_balanced(5000);
    EXPECT(count.null_event_frees == 1);
    count_report(svm ? "counting SVM allocator" : "counting USM allocator");

    /* The default allocator gives USM too (through SVM: the library's clSVMAlloc). */
    CHECK(dnnl_graph_ocl_interop_allocator_create(&a, NULL, NULL));
    CHECK(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, ctx, a));
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK(dnnl_graph_tensor_create(&t, &lt, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h != NULL && h != DNNL_MEMORY_ALLOCATE && (uintptr_t)h % 64 == 0);
    if (!svm) {
        OCL_CHECK(count_usm.get_alloc_info(
                ctx, h, CL_MEM_ALLOC_TYPE_INTEL, sizeof(type), &type, NULL));
        EXPECT(type == CL_MEM_TYPE_DEVICE_INTEL);
    }
    CHECK(dnnl_graph_tensor_destroy(t));
    CHECK(dnnl_engine_destroy(e));
    EXPECT(count_allocs() == 1);
    printf("DNNL_MEMORY_ALLOCATE through the USM allocators (%s): ok\n",
            ocl_usm_name(&count_usm));
}

/* An allocator whose malloc returns a page the host cannot read: no USM of any kind. */
static void *wild_page;
static int wild_frees;

static void *wild_malloc(size_t size, size_t alignment, cl_device_id dev, cl_context ctx) {
    (void)size, (void)alignment, (void)dev, (void)ctx;
    return wild_page;
}

static void wild_free(void *ptr, cl_device_id dev, cl_context ctx, cl_event event) {
    (void)dev, (void)ctx, (void)event;
    if (ptr == wild_page) wild_frees++;
}

static void wild_allocator(cl_device_id dev, cl_context ctx) {
    wild_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(wild_page != MAP_FAILED);
    dnnl_graph_allocator_t a = NULL;
    dnnl_engine_t e = NULL;
    CHECK(dnnl_graph_ocl_interop_allocator_create(&a, wild_malloc, wild_free));
    CHECK(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, ctx, a));
    CHECK(dnnl_graph_allocator_destroy(a));
    dnnl_graph_logical_tensor_t lt = lt_f32(1, 4, 4);
    dnnl_graph_tensor_t t = NULL;
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &lt, e, DNNL_MEMORY_ALLOCATE),
            dnnl_runtime_error);
    EXPECT(t == NULL);
    EXPECT(wild_frees == 1);
    CHECK(dnnl_engine_destroy(e));
    munmap(wild_page, 4096);
    printf("an allocator returning unreadable memory: refused, its pointer freed: ok\n");
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = ocl_context_create(dev);
    ocl_usm_t usm;
    int has_usm = ocl_usm_get(dev, &usm);
    count_ocl_init(&usm);
    engines(dev, ctx);
    allocate(dev, ctx, has_usm);
    if (has_usm) wild_allocator(dev, ctx);
    OCL_CHECK(clReleaseContext(ctx));
    printf("graph_ocl_allocator: ok\n");
    return 0;
}
