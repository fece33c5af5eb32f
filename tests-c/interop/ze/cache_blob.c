/* Level Zero cache blobs (dnnl_ze.h v3.13; a blob holds native binaries where the
 * driver gives them, else SPIR-V with its build options; foreign or corrupt blobs are
 * refused):
 * - dnnl_ze_interop_engine_get_cache_blob_id: NULL id -> the size (> 0); the id with
 *   exactly that size, the same each time; size + 1, size - 1, a NULL size, a NULL
 *   driver or device -> invalid_arguments;
 * - dnnl_ze_interop_engine_get_cache_blob: 0 or more bytes on a fresh engine; more than
 *   0 once a primitive has compiled its kernel, the same bytes on every call; a NULL
 *   size, a too-small size, a NULL engine -> invalid_arguments, a CPU engine ->
 *   invalid_arguments or unimplemented;
 * - dnnl_ze_interop_engine_create_from_cache_blob: an engine over the same objects
 *   whose blob is the same and which runs a primitive correctly; refused
 *   (invalid_arguments, output left NULL): bytes flipped at the start (the id), middle
 *   and end, a truncated blob, size 0, a NULL blob, an OpenCL engine's blob (where an
 *   OpenCL GPU engine exists), NULL output, driver, device or context;
 * - dnnl_primitive_get_cache_blob on a ze primitive (exact size) and
 *   dnnl_primitive_create_from_cache_blob: the primitive from the blob runs correctly,
 *   on the first engine and on the engine from the engine blob; flipped or truncated
 *   primitive blobs are refused. */
#define CL_TARGET_OPENCL_VERSION 300
#include "ze_util.h"
#include "oneapi/dnnl/dnnl_ocl.h"

#define N 3000

static uint8_t *get_blob(dnnl_engine_t engine, size_t *size) {
    *size = 0;
    CHECK(dnnl_ze_interop_engine_get_cache_blob(engine, size, NULL));
    uint8_t *blob = malloc(*size ? *size : 1);
    EXPECT(blob != NULL);
    if (*size) CHECK(dnnl_ze_interop_engine_get_cache_blob(engine, size, blob));
    return blob;
}

static void blob_id(const ze_user_t *u) {
    size_t size = 0;
    CHECK(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, u->device, &size, NULL));
    EXPECT(size > 0);
    uint8_t *id = malloc(size + 1), *id2 = malloc(size + 1);
    EXPECT(id && id2);
    CHECK(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, u->device, &size, id));
    size_t size2 = size;
    CHECK(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, u->device, &size2, id2));
    EXPECT(size2 == size && memcmp(id, id2, size) == 0);

    size_t wrong = size + 1;
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, u->device, &wrong, id2),
            dnnl_invalid_arguments);
    wrong = size - 1;
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, u->device, &wrong, id2),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, u->device, NULL, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, u->device, NULL, id2),
            dnnl_invalid_arguments);
    size2 = size;
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob_id(NULL, u->device, &size2, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob_id(u->driver, NULL, &size2, NULL),
            dnnl_invalid_arguments);
    free(id);
    free(id2);
    printf("cache blob id: %zu bytes, exact size required: ok\n", size);
}

/* dst = 0.5 * src + 2 on `e`, from `blob` when given (else compiled), checked. */
static void run_linear(dnnl_engine_t e, const uint8_t *blob, size_t size, dnnl_primitive_t *out) {
    dnnl_memory_desc_t md = ze_md_f32(N);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
            dnnl_eltwise_linear, md, md, 0.5f, 2.f, NULL));
    dnnl_primitive_t p = NULL;
    if (blob)
        CHECK(dnnl_primitive_create_from_cache_blob(&p, pd, size, blob));
    else
        CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));

    dnnl_stream_t s = NULL;
    CHECK(dnnl_stream_create(&s, e, dnnl_stream_default_flags));
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_memory_create(&src, md, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dst, md, e, DNNL_MEMORY_ALLOCATE));
    float *v = NULL;
    CHECK(dnnl_memory_map_data(src, (void **)&v));
    for (int i = 0; i < N; i++)
        v[i] = (float)(i % 50) - 25.f;
    CHECK(dnnl_memory_unmap_data(src, v));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    CHECK(dnnl_primitive_execute(p, s, 2, args));
    CHECK(dnnl_stream_wait(s));
    CHECK(dnnl_memory_map_data(dst, (void **)&v));
    for (int i = 0; i < N; i++)
        EXPECT(v[i] == 0.5f * ((float)(i % 50) - 25.f) + 2.f);
    CHECK(dnnl_memory_unmap_data(dst, v));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_stream_destroy(s));
    CHECK(dnnl_memory_desc_destroy(md));
    if (out)
        *out = p;
    else
        CHECK(dnnl_primitive_destroy(p));
}

static void expect_refused(const ze_user_t *u, size_t size, const uint8_t *blob, const char *what) {
    dnnl_engine_t e = NULL;
    dnnl_status_t s = dnnl_ze_interop_engine_create_from_cache_blob(
            &e, u->driver, u->device, u->context, size, blob);
    if (s != dnnl_invalid_arguments) {
        fprintf(stderr, "create_from_cache_blob with %s returned %s, expected "
                        "invalid_arguments\n",
                what, check_status_str(s));
        exit(1);
    }
    EXPECT(e == NULL);
    printf("engine blob refused: %s\n", what);
}

/* The blob of an OpenCL engine, where the library has an OpenCL GPU engine; else NULL. */
static uint8_t *ocl_engine_blob(size_t *size) {
    *size = 0;
    if (dnnl_engine_get_count(dnnl_gpu) == 0) return NULL;
    dnnl_engine_t ocl = NULL;
    CHECK(dnnl_engine_create(&ocl, dnnl_gpu, 0));
    uint8_t *blob = NULL;
    if (dnnl_ocl_interop_engine_get_cache_blob(ocl, size, NULL) == dnnl_success) {
        run_linear(ocl, NULL, 0, NULL);
        CHECK(dnnl_ocl_interop_engine_get_cache_blob(ocl, size, NULL));
        blob = malloc(*size ? *size : 1);
        EXPECT(blob != NULL);
        if (*size) CHECK(dnnl_ocl_interop_engine_get_cache_blob(ocl, size, blob));
    }
    CHECK(dnnl_engine_destroy(ocl));
    if (blob && *size == 0) {
        free(blob);
        blob = NULL;
    }
    return blob;
}

static void primitive_blob(dnnl_engine_t e, dnnl_engine_t warm, dnnl_primitive_t p) {
    size_t size = 0;
    CHECK(dnnl_primitive_get_cache_blob(p, &size, NULL));
    EXPECT(size > 0);
    uint8_t *blob = malloc(size);
    EXPECT(blob != NULL);
    size_t wrong = size - 1;
    CHECK_STATUS(dnnl_primitive_get_cache_blob(p, &wrong, blob), dnnl_invalid_arguments);
    CHECK(dnnl_primitive_get_cache_blob(p, &size, blob));
    run_linear(e, blob, size, NULL);
    run_linear(warm, blob, size, NULL);
    printf("primitive cache blob (%zu bytes): primitives from it run correctly on the "
           "engine and on the engine from the engine blob: ok\n",
            size);

    dnnl_memory_desc_t md = ze_md_f32(N);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
            dnnl_eltwise_linear, md, md, 0.5f, 2.f, NULL));
    uint8_t *bad = malloc(size);
    EXPECT(bad != NULL);
    const size_t positions[] = {0, size / 2, size - 1};
    for (int i = 0; i < 3; i++) {
        memcpy(bad, blob, size);
        bad[positions[i]] ^= 0x5a;
        dnnl_primitive_t q = NULL;
        CHECK_STATUS(dnnl_primitive_create_from_cache_blob(&q, pd, size, bad),
                dnnl_invalid_arguments);
        EXPECT(q == NULL);
    }
    dnnl_primitive_t q = NULL;
    CHECK_STATUS(dnnl_primitive_create_from_cache_blob(&q, pd, size - 1, blob),
            dnnl_invalid_arguments);
    EXPECT(q == NULL);
    printf("flipped and truncated primitive blobs refused: ok\n");
    free(bad);
    free(blob);
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(md));
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    blob_id(&u);

    dnnl_engine_t e = ze_engine(&u);
    size_t fresh = 0;
    free(get_blob(e, &fresh));
    printf("fresh engine: blob of %zu bytes\n", fresh);

    dnnl_primitive_t p = NULL;
    run_linear(e, NULL, 0, &p);
    size_t size = 0, size2 = 0;
    uint8_t *blob = get_blob(e, &size);
    EXPECT(size > 0);
    uint8_t *blob2 = get_blob(e, &size2);
    EXPECT(size2 == size && memcmp(blob, blob2, size) == 0);
    free(blob2);
    printf("engine cache blob after a primitive: %zu bytes, deterministic: ok\n", size);

    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob(e, NULL, NULL), dnnl_invalid_arguments);
    uint8_t *small = malloc(size);
    EXPECT(small != NULL);
    size_t too_small = size - 1;
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob(e, &too_small, small),
            dnnl_invalid_arguments);
    free(small);
    size_t any = 0;
    CHECK_STATUS(dnnl_ze_interop_engine_get_cache_blob(NULL, &any, NULL), dnnl_invalid_arguments);
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    dnnl_status_t st = dnnl_ze_interop_engine_get_cache_blob(cpu, &any, NULL);
    EXPECT(st == dnnl_invalid_arguments || st == dnnl_unimplemented);
    CHECK(dnnl_engine_destroy(cpu));
    printf("get_cache_blob size and engine rules: ok\n");

    /* An engine from the blob. */
    dnnl_engine_t warm = NULL;
    CHECK(dnnl_ze_interop_engine_create_from_cache_blob(
            &warm, u.driver, u.device, u.context, size, blob));
    EXPECT(warm != NULL);
    ze_driver_handle_t drv = NULL;
    ze_device_handle_t dev = NULL;
    ze_context_handle_t ctx = NULL;
    CHECK(dnnl_ze_interop_engine_get_driver(warm, &drv));
    CHECK(dnnl_ze_interop_engine_get_device(warm, &dev));
    CHECK(dnnl_ze_interop_engine_get_context(warm, &ctx));
    EXPECT(drv == u.driver && dev == u.device && ctx == u.context);
    uint8_t *warm_blob = get_blob(warm, &size2);
    EXPECT(size2 == size && memcmp(warm_blob, blob, size) == 0);
    free(warm_blob);
    run_linear(warm, NULL, 0, NULL);
    printf("engine from the cache blob: same objects, same blob, runs a primitive: ok\n");

    primitive_blob(e, warm, p);
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_engine_destroy(warm));

    /* Refusals. */
    uint8_t *bad = malloc(size);
    EXPECT(bad != NULL);
    const size_t positions[] = {0, 1, size / 2, size - 1};
    for (int i = 0; i < 4; i++) {
        memcpy(bad, blob, size);
        bad[positions[i]] ^= 0x5a;
        char what[64];
        snprintf(what, sizeof what, "byte %zu of %zu flipped", positions[i], size);
        expect_refused(&u, size, bad, what);
    }
    free(bad);
    expect_refused(&u, size - 1, blob, "the blob truncated by one byte");
    expect_refused(&u, size / 2, blob, "half of the blob");
    expect_refused(&u, 0, blob, "size 0");
    expect_refused(&u, size, NULL, "a NULL blob");
    size_t ocl_size = 0;
    uint8_t *ocl_blob = ocl_engine_blob(&ocl_size);
    if (ocl_blob) {
        expect_refused(&u, ocl_size, ocl_blob, "an OpenCL engine's blob");
        free(ocl_blob);
    } else {
        printf("no OpenCL GPU engine with a blob here: the OpenCL-blob case is not run\n");
    }
    dnnl_engine_t out = NULL;
    CHECK_STATUS(dnnl_ze_interop_engine_create_from_cache_blob(
                         NULL, u.driver, u.device, u.context, size, blob),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_create_from_cache_blob(
                         &out, NULL, u.device, u.context, size, blob),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_create_from_cache_blob(
                         &out, u.driver, NULL, u.context, size, blob),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_create_from_cache_blob(
                         &out, u.driver, u.device, NULL, size, blob),
            dnnl_invalid_arguments);
    EXPECT(out == NULL);
    printf("NULL output, driver, device, context refused: ok\n");

    free(blob);
    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("ze cache blob: ok\n");
    return 0;
}
