/* Engine cache blobs (notes 2.6; DESIGN.md "Execution": the blob is the engine's
 * program cache as device binaries, with an id naming platform, device, driver and
 * library version, and a checksum):
 * - dnnl_ocl_interop_engine_get_cache_blob_id: NULL id -> the size (> 0); the id with
 *   exactly that size; a NULL size, a wrong size or a NULL device -> invalid_arguments;
 *   the same id each time;
 * - dnnl_ocl_interop_engine_get_cache_blob: 0 or more bytes on a fresh engine; after
 *   dnnl_memory_create(ALLOCATE) (which compiles the memory initialisation kernel into
 *   the engine's program cache) more than 0, the same bytes on every call; a NULL size
 *   or a too-small size -> invalid_arguments; a CPU engine -> unimplemented or
 *   invalid_arguments;
 * - dnnl_ocl_interop_engine_create_from_cache_blob: works with that blob and gives an
 *   engine whose blob is the same; refuses (invalid_arguments) NULL engine, device,
 *   context or blob, a zero size, a truncated blob and blobs with a flipped byte, and
 *   then retains nothing. */
#include "ocl_util.h"

static uint8_t *get_blob(dnnl_engine_t engine, size_t *size) {
    *size = 0;
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine, size, NULL));
    uint8_t *blob = (uint8_t *)malloc(*size ? *size : 1);
    EXPECT(blob != NULL);
    if (*size) CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine, size, blob));
    return blob;
}

static void blob_id(cl_device_id dev) {
    size_t size = 0;
    CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &size, NULL));
    EXPECT(size > 0);
    uint8_t *id = (uint8_t *)malloc(size + 1);
    uint8_t *id2 = (uint8_t *)malloc(size + 1);
    EXPECT(id && id2);
    CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &size, id));
    size_t size2 = size;
    CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &size2, id2));
    EXPECT(size2 == size);
    EXPECT(memcmp(id, id2, size) == 0);

    size_t wrong = size + 1;
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &wrong, id2),
            dnnl_invalid_arguments);
    wrong = size - 1;
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &wrong, id2),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob_id(dev, NULL, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob_id(dev, NULL, id2),
            dnnl_invalid_arguments);
    size2 = size;
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob_id(NULL, &size2, NULL),
            dnnl_invalid_arguments);
    free(id);
    free(id2);
    printf("cache blob id: %zu bytes: ok\n", size);
}

static void expect_refused(cl_device_id dev, cl_context ctx, size_t size, const uint8_t *blob,
        const char *what) {
    const cl_uint refs = ocl_context_refcount(ctx);
    dnnl_engine_t e = NULL;
    dnnl_status_t s = dnnl_ocl_interop_engine_create_from_cache_blob(&e, dev, ctx, size, blob);
    if (s != dnnl_invalid_arguments) {
        fprintf(stderr, "create_from_cache_blob with %s returned %s, expected "
                        "invalid_arguments\n",
                what, check_status_str(s));
        exit(1);
    }
    EXPECT(e == NULL);
    EXPECT(ocl_context_refcount_settles(ctx, refs));
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    blob_id(dev);

    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);

    /* A fresh engine may have nothing to put in its blob. */
    size_t fresh = 0;
    uint8_t *fresh_blob = get_blob(engine, &fresh);
    printf("fresh engine: blob of %zu bytes\n", fresh);
    free(fresh_blob);

    /* Allocating memory compiles the initialisation kernel into the program cache. */
    dnnl_memory_desc_t md = ocl_md_f32(1024);
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_destroy(mem));

    size_t size = 0, size2 = 0;
    uint8_t *blob = get_blob(engine, &size);
    if (size == 0) {
        fprintf(stderr, "the engine's cache blob is empty after dnnl_memory_create(ALLOCATE)\n");
        return 1;
    }
    uint8_t *blob2 = get_blob(engine, &size2);
    EXPECT(size2 == size);
    EXPECT(memcmp(blob, blob2, size) == 0);
    free(blob2);
    printf("engine cache blob: %zu bytes, deterministic: ok\n", size);

    /* Size rules of get_cache_blob. */
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob(engine, NULL, NULL),
            dnnl_invalid_arguments);
    uint8_t *small = (uint8_t *)malloc(size);
    EXPECT(small != NULL);
    size_t too_small = size - 1;
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob(engine, &too_small, small),
            dnnl_invalid_arguments);
    free(small);
    size_t any_size = 0;
    CHECK_STATUS(dnnl_ocl_interop_engine_get_cache_blob(NULL, &any_size, NULL),
            dnnl_invalid_arguments);

    /* A warm start from the blob (the exact reference counts are engine_interop.c's
     * business: here, the new engine holds the context and gives it back). */
    const cl_uint refs = ocl_context_refcount(ctx);
    dnnl_engine_t warm = NULL;
    CHECK(dnnl_ocl_interop_engine_create_from_cache_blob(&warm, dev, ctx, size, blob));
    EXPECT(warm != NULL);
    EXPECT(ocl_context_refcount(ctx) > refs);
    cl_device_id got_dev = NULL;
    cl_context got_ctx = NULL;
    CHECK(dnnl_ocl_interop_get_device(warm, &got_dev));
    CHECK(dnnl_ocl_interop_engine_get_context(warm, &got_ctx));
    EXPECT(got_dev == dev && got_ctx == ctx);
    uint8_t *warm_blob = get_blob(warm, &size2);
    EXPECT(size2 == size);
    EXPECT(memcmp(warm_blob, blob, size) == 0);
    free(warm_blob);
    /* The warm engine works. */
    CHECK(dnnl_memory_create(&mem, md, warm, DNNL_MEMORY_ALLOCATE));
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    p[0] = 1.f;
    CHECK(dnnl_memory_unmap_data(mem, p));
    CHECK(dnnl_memory_destroy(mem));
    CHECK(dnnl_engine_destroy(warm));
    EXPECT(ocl_context_refcount_settles(ctx, refs));
    printf("engine from the cache blob: same blob: ok\n");

    /* Refused blobs and arguments. */
    uint8_t *bad = (uint8_t *)malloc(size);
    EXPECT(bad != NULL);
    const size_t positions[] = {0, size / 2, size - 1};
    for (size_t i = 0; i < sizeof(positions) / sizeof(positions[0]); i++) {
        memcpy(bad, blob, size);
        bad[positions[i]] ^= 0x5a;
        char what[64];
        snprintf(what, sizeof(what), "byte %zu of %zu flipped", positions[i], size);
        expect_refused(dev, ctx, size, bad, what);
    }
    expect_refused(dev, ctx, size - 1, blob, "the blob truncated by one byte");
    expect_refused(dev, ctx, size / 2, blob, "half of the blob");
    expect_refused(dev, ctx, 0, blob, "size 0");
    expect_refused(dev, ctx, size, NULL, "a NULL blob");
    dnnl_engine_t e = NULL;
    CHECK_STATUS(dnnl_ocl_interop_engine_create_from_cache_blob(NULL, dev, ctx, size, blob),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_create_from_cache_blob(&e, NULL, ctx, size, blob),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_create_from_cache_blob(&e, dev, NULL, size, blob),
            dnnl_invalid_arguments);
    EXPECT(e == NULL);
    EXPECT(ocl_context_refcount_settles(ctx, refs));
    free(bad);
    printf("corrupted, truncated and NULL blobs refused: ok\n");

    /* A CPU engine has no OpenCL cache blob. */
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    size_t cpu_size = 0;
    dnnl_status_t s = dnnl_ocl_interop_engine_get_cache_blob(cpu, &cpu_size, NULL);
    if (s != dnnl_unimplemented && s != dnnl_invalid_arguments) {
        fprintf(stderr, "get_cache_blob on a CPU engine returned %s, expected unimplemented "
                        "or invalid_arguments\n",
                check_status_str(s));
        return 1;
    }
    CHECK(dnnl_engine_destroy(cpu));

    free(blob);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine));
    EXPECT(ocl_context_refcount_settles(ctx, 1));
    OCL_CHECK(clReleaseContext(ctx));
    printf("cache blob: ok\n");
    return 0;
}
