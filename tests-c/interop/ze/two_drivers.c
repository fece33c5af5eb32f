/* Objects of two different Level Zero drivers (a device of another driver, and the
 * like, must be refused).
 * CTest gives it DNNL_ZE_SECOND_DRIVER, a copy of the in-repository driver under
 * another file name, which it appends to ZE_ENABLE_ALT_DRIVERS before zeInit: the
 * loader then loads two independent instances of the driver, so there are two
 * drivers, each with its own device and contexts (and the loader translates handles,
 * as it does whenever it has more than one driver).
 * - an engine over each driver's own objects works (a memory round trip, a primitive);
 * - refused with invalid_arguments: the device of driver B with driver A (and the
 *   reverse), a context of driver B with driver A's driver and device, the cache blob
 *   id of driver A with the device of driver B, an engine from a cache blob with
 *   mixed drivers, a command list of driver B for an engine of driver A, USM of
 *   driver B for an engine of driver A, and a primitive of engine A executed on a
 *   stream of engine B. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "ze_util.h"

#define N 512

typedef struct {
    ze_user_t u;
    ze_command_list_handle_t list;
    dnnl_engine_t engine;
    dnnl_stream_t stream;
} side_t;

static void side_create(side_t *s, ze_driver_handle_t driver, ze_device_handle_t device) {
    s->u.driver = driver;
    s->u.device = device;
    s->u.context = ze_context_create(driver);
    s->u.ordinal = ze_compute_ordinal(device);
    s->list = ze_immediate_list(&s->u);
    s->engine = ze_engine(&s->u);
    CHECK(dnnl_ze_interop_stream_create(&s->stream, s->engine, s->list, 0));
}

static void side_destroy(side_t *s) {
    CHECK(dnnl_stream_destroy(s->stream));
    CHECK(dnnl_engine_destroy(s->engine));
    ZE_CHECK(zeCommandListDestroy(s->list));
    ze_user_destroy(&s->u);
}

static int failures;

/* Every case runs; the wrong ones are counted and the program fails at the end. */
static void expect_ia(dnnl_status_t s, const char *what) {
    if (s != dnnl_invalid_arguments) {
        fflush(stdout);
        fprintf(stderr, "FAILED: %s returned %s, expected invalid_arguments\n", what,
                check_status_str(s));
        failures++;
        return;
    }
    printf("refused: %s\n", what);
}

/* dst = src + 1 on the side's engine, through the side's USM; checked. */
static void side_works(side_t *s) {
    dnnl_memory_desc_t md = ze_md_f32(N);
    float *a = ze_alloc(&s->u, ZE_USM_SHARED, N * sizeof(float));
    float *b = ze_alloc(&s->u, ZE_USM_SHARED, N * sizeof(float));
    for (int i = 0; i < N; i++)
        a[i] = (float)i;
    void *ha[1] = {a}, *hb[1] = {b};
    dnnl_memory_t ma = NULL, mb = NULL;
    CHECK(dnnl_ze_interop_memory_create(&ma, md, s->engine, 1, ha));
    CHECK(dnnl_ze_interop_memory_create(&mb, md, s->engine, 1, hb));
    dnnl_primitive_t p = ze_eltwise(s->engine, md, dnnl_eltwise_linear, 1.f, 1.f);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_DST, mb}};
    ze_event_handle_t done = NULL;
    CHECK(dnnl_ze_interop_primitive_execute(p, s->stream, 2, args, 0, NULL, &done));
    EXPECT(done != NULL);
    ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    for (int i = 0; i < N; i++)
        EXPECT(b[i] == (float)i + 1.f);
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_memory_destroy(ma));
    CHECK(dnnl_memory_destroy(mb));
    CHECK(dnnl_memory_desc_destroy(md));
    ZE_CHECK(zeMemFree(s->u.context, a));
    ZE_CHECK(zeMemFree(s->u.context, b));
}

/* ZE_ENABLE_ALT_DRIVERS += "," DNNL_ZE_SECOND_DRIVER (the loader reads it at zeInit). */
static void add_second_driver(void) {
    const char *second = getenv("DNNL_ZE_SECOND_DRIVER");
    const char *first = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (!second || !*second) return;
    size_t len = (first ? strlen(first) : 0) + strlen(second) + 2;
    char *both = malloc(len);
    EXPECT(both != NULL);
    snprintf(both, len, "%s%s%s", first ? first : "", first && *first ? "," : "", second);
    EXPECT(setenv("ZE_ENABLE_ALT_DRIVERS", both, 1) == 0);
    printf("ZE_ENABLE_ALT_DRIVERS=%s\n", both);
    free(both);
}

int main(void) {
    add_second_driver();
    ze_driver_handle_t drivers[8];
    uint32_t n = ze_drivers_or_skip(drivers, 8);
    ze_device_handle_t devs[2] = {NULL, NULL};
    ze_driver_handle_t drvs[2] = {NULL, NULL};
    uint32_t found = 0;
    for (uint32_t i = 0; i < n && found < 2; i++) {
        ze_device_handle_t d = ze_first_device(drivers[i]);
        if (d) {
            drvs[found] = drivers[i];
            devs[found++] = d;
        }
    }
    if (found < 2) SKIP("fewer than two Level Zero drivers with a device are visible");
    EXPECT(drvs[0] != drvs[1] && devs[0] != devs[1]);
    printf("two drivers: %p (device %p) and %p (device %p)\n", (void *)drvs[0],
            (void *)devs[0], (void *)drvs[1], (void *)devs[1]);

    side_t a, b;
    side_create(&a, drvs[0], devs[0]);
    side_create(&b, drvs[1], devs[1]);
    side_works(&a);
    side_works(&b);
    printf("an engine over each driver's own objects works: ok\n");

    dnnl_engine_t e = NULL;
    expect_ia(dnnl_ze_interop_engine_create(&e, a.u.driver, b.u.device, a.u.context),
            "engine_create(driver A, device B, context A)");
    expect_ia(dnnl_ze_interop_engine_create(&e, b.u.driver, a.u.device, b.u.context),
            "engine_create(driver B, device A, context B)");
    EXPECT(e == NULL);
    /* Not checked: Level Zero has no query from a context to its driver, and probing
     * context B with driver A's device would hand a foreign handle to driver B (a
     * real driver may crash). The library takes the context on trust. */
    printf("not checked (no Level Zero query from a context to its driver): "
           "engine_create(driver A, device A, context B)\n");

    size_t size = 0;
    expect_ia(dnnl_ze_interop_engine_get_cache_blob_id(a.u.driver, b.u.device, &size, NULL),
            "get_cache_blob_id(driver A, device B)");
    /* Engine A's blob (it holds the kernel side_works compiled), with mixed handles. */
    size = 0;
    CHECK(dnnl_ze_interop_engine_get_cache_blob(a.engine, &size, NULL));
    EXPECT(size > 0);
    uint8_t *blob = malloc(size);
    EXPECT(blob != NULL);
    CHECK(dnnl_ze_interop_engine_get_cache_blob(a.engine, &size, blob));
    expect_ia(dnnl_ze_interop_engine_create_from_cache_blob(
                      &e, a.u.driver, b.u.device, a.u.context, size, blob),
            "create_from_cache_blob(driver A, device B, context A, engine A's blob)");
    if (e) CHECK(dnnl_engine_destroy(e));
    e = NULL;
    free(blob);

    dnnl_stream_t s = NULL;
    if (ze_loader_has("zeCommandListGetContextHandle")) {
        expect_ia(dnnl_ze_interop_stream_create(&s, a.engine, b.list, 0),
                "stream_create(engine A, an immediate list of driver B)");
        if (s) CHECK(dnnl_stream_destroy(s));
    } else {
        printf("not checked (this loader has no zeCommandListGetContextHandle, API 1.9): "
               "stream_create(engine A, an immediate list of driver B)\n");
    }

    dnnl_memory_desc_t md = ze_md_f32(N);
    void *usm_b = ze_alloc(&b.u, ZE_USM_DEVICE, N * sizeof(float));
    void *h[1] = {usm_b};
    dnnl_memory_t m = NULL;
    expect_ia(dnnl_ze_interop_memory_create(&m, md, a.engine, 1, h),
            "memory_create(engine A, device USM of driver B)");
    if (m) CHECK(dnnl_memory_destroy(m));
    ZE_CHECK(zeMemFree(b.u.context, usm_b));

    dnnl_primitive_t p = ze_eltwise(a.engine, md, dnnl_eltwise_relu, 0.f, 0.f);
    dnnl_memory_t ma = NULL;
    CHECK(dnnl_memory_create(&ma, md, a.engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_DST, ma}};
    ze_event_handle_t done = NULL;
    expect_ia(dnnl_ze_interop_primitive_execute(p, b.stream, 2, args, 0, NULL, &done),
            "primitive of engine A executed on a stream of engine B");
    CHECK(dnnl_primitive_destroy(p));
    CHECK(dnnl_memory_destroy(ma));
    CHECK(dnnl_memory_desc_destroy(md));

    /* Both sides still work. */
    side_works(&a);
    side_works(&b);
    side_destroy(&a);
    side_destroy(&b);
    if (failures) {
        fprintf(stderr, "%d case(s) of objects of another driver were not refused\n",
                failures);
        return 1;
    }
    printf("ze two drivers: ok\n");
    return 0;
}
