/* With two OpenCL platforms visible (OCL_ICD_VENDORS=.venv/icd/all: PoCL and Intel's
 * CPU runtime), objects of one platform are refused by engines of the other:
 * - the engine list spans both platforms in the library's order (DESIGN.md);
 * - dnnl_ocl_interop_engine_create / dnnl_engine_create_ocl with a device that is not
 *   in the context -> invalid_arguments (notes 2.2: "device not found in the given
 *   context"), the context not retained;
 * - the two devices' cache blob ids differ, and one engine's cache blob is refused by
 *   the other device (DESIGN.md: "a blob from another device ... is refused");
 * - a queue of the other platform's context -> invalid_arguments (notes 2.3).
 * Skips when fewer than two platforms with devices are visible. */
#include "ocl_util.h"

static uint8_t *blob_id(cl_device_id dev, size_t *size) {
    CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, size, NULL));
    uint8_t *id = (uint8_t *)malloc(*size ? *size : 1);
    EXPECT(id != NULL);
    CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, size, id));
    return id;
}

int main(void) {
    cl_device_id devs[OCL_MAX_DEVICES];
    size_t n = ocl_devices(devs, OCL_MAX_DEVICES);
    if (n > OCL_MAX_DEVICES) n = OCL_MAX_DEVICES;
    cl_device_id a = NULL, b = NULL;
    for (size_t i = 0; i < n && !b; i++) {
        if (!a)
            a = devs[i];
        else if (ocl_platform_of(devs[i]) != ocl_platform_of(a))
            b = devs[i];
    }
    if (!b) SKIP("fewer than two OpenCL platforms with devices are visible");
    char da[600], db[600];
    ocl_describe(a, da, sizeof(da));
    ocl_describe(b, db, sizeof(db));
    printf("device A: %s\ndevice B: %s\n", da, db);

    /* The engine list spans both platforms, in order. */
    EXPECT(dnnl_engine_get_count(dnnl_gpu) == n);
    for (size_t i = 0; i < n; i++) {
        dnnl_engine_t e = NULL;
        CHECK(dnnl_engine_create(&e, dnnl_gpu, i));
        cl_device_id d = NULL;
        CHECK(dnnl_ocl_interop_get_device(e, &d));
        EXPECT(d == devs[i]);
        CHECK(dnnl_engine_destroy(e));
    }

    cl_context ctx_a = ocl_context_create(a);
    cl_context ctx_b = ocl_context_create(b);

    /* A device that is not in the context. */
    dnnl_engine_t bad = NULL;
    CHECK_STATUS(dnnl_ocl_interop_engine_create(&bad, a, ctx_b), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_create(&bad, b, ctx_a), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create_ocl(&bad, dnnl_gpu, a, ctx_b), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    EXPECT(ocl_context_refcount_settles(ctx_a, 1));
    EXPECT(ocl_context_refcount_settles(ctx_b, 1));
    printf("device not in the context refused: ok\n");

    /* Cache blob ids differ; a blob of A is refused on B. */
    size_t size_a = 0, size_b = 0;
    uint8_t *id_a = blob_id(a, &size_a), *id_b = blob_id(b, &size_b);
    EXPECT(size_a > 0 && size_b > 0);
    EXPECT(size_a != size_b || memcmp(id_a, id_b, size_a) != 0);
    free(id_a);
    free(id_b);

    dnnl_engine_t engine_a = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&engine_a, a, ctx_a));
    dnnl_memory_desc_t md = ocl_md_f32(256);
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine_a, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_destroy(mem));
    size_t size = 0;
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine_a, &size, NULL));
    if (size > 0) {
        uint8_t *blob = (uint8_t *)malloc(size);
        EXPECT(blob != NULL);
        CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine_a, &size, blob));
        CHECK_STATUS(dnnl_ocl_interop_engine_create_from_cache_blob(&bad, b, ctx_b, size, blob),
                dnnl_invalid_arguments);
        EXPECT(bad == NULL);
        EXPECT(ocl_context_refcount_settles(ctx_b, 1));
        /* ... and accepted on A. */
        dnnl_engine_t warm = NULL;
        CHECK(dnnl_ocl_interop_engine_create_from_cache_blob(&warm, a, ctx_a, size, blob));
        CHECK(dnnl_engine_destroy(warm));
        free(blob);
        printf("cache blob of device A refused on device B: ok\n");
    } else {
        fprintf(stderr, "engine A's cache blob is empty after dnnl_memory_create(ALLOCATE)\n");
        return 1;
    }

    /* A queue of B's context on A's engine. */
    cl_command_queue q_b = ocl_queue_create(ctx_b, b, 0);
    dnnl_stream_t s = NULL;
    CHECK_STATUS(dnnl_ocl_interop_stream_create(&s, engine_a, q_b), dnnl_invalid_arguments);
    EXPECT(s == NULL);
    EXPECT(ocl_queue_refcount_settles(q_b, 1));
    OCL_CHECK(clReleaseCommandQueue(q_b));
    printf("queue of another platform refused: ok\n");

    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine_a));
    OCL_CHECK(clReleaseContext(ctx_a));
    OCL_CHECK(clReleaseContext(ctx_b));
    printf("two platforms: ok\n");
    return 0;
}
