/* Level Zero engines (notes 2.8; dnnl_ze.h):
 * - dnnl_ze_interop_engine_create over the user's driver, device and context gives a
 *   GPU engine whose getters return exactly those handles, as often as asked; two
 *   engines over the same objects are independent;
 * - refused with invalid_arguments, leaving the output NULL: a NULL output, a NULL
 *   driver, device or context; a device handle that is no device of the driver (the
 *   handle of the user's context, and the driver handle itself); a driver handle
 *   that is no driver (the device handle). A device of a genuinely different driver
 *   is two_drivers.c's business (it needs two drivers behind the loader);
 * - the getters refuse a NULL output, a NULL engine and a CPU engine.
 * The user's objects are not consumed: they still work after every refusal. */
#include "ze_util.h"

static void expect_refused(ze_driver_handle_t driver, ze_device_handle_t device,
        ze_context_handle_t context, const char *what) {
    dnnl_engine_t e = NULL;
    dnnl_status_t s = dnnl_ze_interop_engine_create(&e, driver, device, context);
    if (s != dnnl_invalid_arguments) {
        fprintf(stderr, "dnnl_ze_interop_engine_create with %s returned %s, expected "
                        "invalid_arguments\n",
                what, check_status_str(s));
        exit(1);
    }
    EXPECT(e == NULL);
    printf("refused: %s\n", what);
}

static void getters(dnnl_engine_t e, const ze_user_t *u) {
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(e, &kind));
    EXPECT(kind == dnnl_gpu);
    for (int rep = 0; rep < 2; rep++) {
        ze_driver_handle_t drv = NULL;
        ze_device_handle_t dev = NULL;
        ze_context_handle_t ctx = NULL;
        CHECK(dnnl_ze_interop_engine_get_driver(e, &drv));
        CHECK(dnnl_ze_interop_engine_get_device(e, &dev));
        CHECK(dnnl_ze_interop_engine_get_context(e, &ctx));
        EXPECT(drv == u->driver);
        EXPECT(dev == u->device);
        EXPECT(ctx == u->context);
    }
}

static void getters_refused(dnnl_engine_t e) {
    CHECK_STATUS(dnnl_ze_interop_engine_get_driver(e, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_device(e, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_context(e, NULL), dnnl_invalid_arguments);
    ze_driver_handle_t drv = NULL;
    ze_device_handle_t dev = NULL;
    ze_context_handle_t ctx = NULL;
    CHECK_STATUS(dnnl_ze_interop_engine_get_driver(NULL, &drv), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_device(NULL, &dev), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_context(NULL, &ctx), dnnl_invalid_arguments);

    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    CHECK_STATUS(dnnl_ze_interop_engine_get_driver(cpu, &drv), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_device(cpu, &dev), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ze_interop_engine_get_context(cpu, &ctx), dnnl_invalid_arguments);
    CHECK(dnnl_engine_destroy(cpu));
    EXPECT(drv == NULL && dev == NULL && ctx == NULL);
    printf("getters refuse NULL outputs, a NULL engine and a CPU engine: ok\n");
}

/* A memory of the engine round-trips values: the engine is usable. */
static void engine_works(dnnl_engine_t e) {
    dnnl_memory_desc_t md = ze_md_f32(256);
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, e, DNNL_MEMORY_ALLOCATE));
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < 256; i++)
        p[i] = (float)i;
    CHECK(dnnl_memory_unmap_data(mem, p));
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    for (int i = 0; i < 256; i++)
        EXPECT(p[i] == (float)i);
    CHECK(dnnl_memory_unmap_data(mem, p));
    CHECK(dnnl_memory_destroy(mem));
    CHECK(dnnl_memory_desc_destroy(md));
}

int main(void) {
    ze_user_t u = ze_user_or_skip();

    dnnl_engine_t e = ze_engine(&u);
    getters(e, &u);
    printf("engine over the user's driver, device and context; getters: ok\n");

    /* A second engine over the same objects; destroying one leaves the other whole. */
    dnnl_engine_t e2 = ze_engine(&u);
    EXPECT(e2 != e);
    getters(e2, &u);
    CHECK(dnnl_engine_destroy(e2));
    getters(e, &u);
    engine_works(e);
    printf("two engines over the same objects, independent: ok\n");

    getters_refused(e);

    dnnl_engine_t out = NULL;
    CHECK_STATUS(dnnl_ze_interop_engine_create(NULL, u.driver, u.device, u.context),
            dnnl_invalid_arguments);
    expect_refused(NULL, u.device, u.context, "a NULL driver");
    expect_refused(u.driver, NULL, u.context, "a NULL device");
    expect_refused(u.driver, u.device, NULL, "a NULL context");
    expect_refused(NULL, NULL, NULL, "all NULL");
    /* Handles of the wrong kind: with one driver behind the loader, the closest thing
     * to "a device of another driver" that can be made without a second driver is a
     * handle the driver never listed as a device (two_drivers.c does the real case). */
    expect_refused(u.driver, (ze_device_handle_t)u.context, u.context,
            "the context handle as the device (no device of the driver)");
    expect_refused(u.driver, (ze_device_handle_t)u.driver, u.context,
            "the driver handle as the device (no device of the driver)");
    expect_refused((ze_driver_handle_t)u.device, u.device, u.context,
            "the device handle as the driver (no driver of the loader)");
    EXPECT(out == NULL);

    /* Nothing of the user's was consumed by the refusals. */
    ze_command_list_handle_t list = ze_immediate_list(&u);
    EXPECT(ze_list_works(&u, list, NULL));
    ZE_CHECK(zeCommandListDestroy(list));
    getters(e, &u);
    engine_works(e);

    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("ze engine: ok\n");
    return 0;
}
