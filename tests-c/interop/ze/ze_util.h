/* Helpers shared by the Level Zero interop tests (tests-c/interop/ze/).
 *
 *   ZE_CHECK(call)               a Level Zero call must return ZE_RESULT_SUCCESS
 *   ZE_EXPECT_FAIL(call)         a Level Zero call must fail (any error result)
 *   ze_user_or_skip()            the first driver with a device, that device, and a
 *                                fresh context: the test's own objects; SKIP (exit 77)
 *                                when no loader or driver is there
 *   ze_immediate_list(u)         an immediate command list on the compute queue group
 *   ze_regular_list(u)           a regular command list on the same group
 *   ze_queue(u)                  a command queue to execute regular lists on
 *   ze_event_pool(u, n)          a host-visible event pool of n events
 *   ze_event(pool, i)            event i of a pool, host-scoped signal and wait
 *   ze_alloc(u, kind, bytes)     host, device or shared USM of the user's context
 *   ze_engine(u)                 dnnl_ze_interop_engine_create over the user's objects
 *   ze_md_f32(n)                 a 1-D f32 memory descriptor
 *   ze_list_works(u, list)       the list still runs commands (an immediate list: at
 *                                once, no queue)
 *
 * The tests link the Level Zero loader (libze_loader.so.1). CTest runs them with
 * ZE_ENABLE_ALT_DRIVERS naming the in-repository driver (crates/ze-ocl-driver), and
 * once more with the loader's validation layer on; see cmake/DnnlCTest.cmake. */
#ifndef DNNL_TESTS_C_ZE_UTIL_H
#define DNNL_TESTS_C_ZE_UTIL_H

#include <dlfcn.h>
#include <level_zero/ze_api.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "oneapi/dnnl/dnnl_ze.h"

static inline void ze_check_fail(const char *file, int line, const char *call, ze_result_t r) {
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s failed: Level Zero result 0x%x\n", file, line, call,
            (unsigned)r);
    exit(1);
}

#define ZE_CHECK(call) \
    do { \
        ze_result_t ze_res_ = (call); \
        if (ze_res_ != ZE_RESULT_SUCCESS) ze_check_fail(__FILE__, __LINE__, #call, ze_res_); \
    } while (0)

#define ZE_EXPECT_FAIL(call) \
    do { \
        ze_result_t ze_res_ = (call); \
        if (ze_res_ == ZE_RESULT_SUCCESS) { \
            fflush(stdout); \
            fprintf(stderr, "%s:%d: %s succeeded, expected a failure\n", __FILE__, \
                    __LINE__, #call); \
            exit(1); \
        } \
    } while (0)

/* The user's own Level Zero objects. */
typedef struct {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    uint32_t ordinal; /* a command queue group with compute */
} ze_user_t;

static inline ze_context_handle_t ze_context_create(ze_driver_handle_t driver) {
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx = NULL;
    ZE_CHECK(zeContextCreate(driver, &desc, &ctx));
    return ctx;
}

/* The ordinal of the first queue group with compute. */
static inline uint32_t ze_compute_ordinal(ze_device_handle_t dev) {
    uint32_t n = 0;
    ZE_CHECK(zeDeviceGetCommandQueueGroupProperties(dev, &n, NULL));
    EXPECT(n > 0);
    ze_command_queue_group_properties_t *props = calloc(n, sizeof *props);
    EXPECT(props != NULL);
    for (uint32_t i = 0; i < n; i++)
        props[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    ZE_CHECK(zeDeviceGetCommandQueueGroupProperties(dev, &n, props));
    uint32_t ordinal = UINT32_MAX;
    for (uint32_t i = 0; i < n && ordinal == UINT32_MAX; i++)
        if (props[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ordinal = i;
    free(props);
    EXPECT(ordinal != UINT32_MAX);
    return ordinal;
}

/* Drivers visible to the loader (at most max); SKIP when there is none. */
static inline uint32_t ze_drivers_or_skip(ze_driver_handle_t *drivers, uint32_t max) {
    /* Line by line: when a wait never returns and CTest kills the test, the log shows
     * the last step that completed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    ze_result_t r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        char why[160];
        snprintf(why, sizeof why,
                "zeInit failed (0x%x): no Level Zero driver is visible "
                "(ZE_ENABLE_ALT_DRIVERS=%s)",
                (unsigned)r, getenv("ZE_ENABLE_ALT_DRIVERS") ? getenv("ZE_ENABLE_ALT_DRIVERS")
                                                            : "(unset)");
        SKIP(why);
    }
    uint32_t n = 0;
    if (zeDriverGet(&n, NULL) != ZE_RESULT_SUCCESS || n == 0)
        SKIP("the Level Zero loader lists no driver");
    if (n > max) n = max;
    ZE_CHECK(zeDriverGet(&n, drivers));
    return n;
}

/* The first device of a driver, or NULL. */
static inline ze_device_handle_t ze_first_device(ze_driver_handle_t driver) {
    uint32_t n = 1;
    ze_device_handle_t dev = NULL;
    if (zeDeviceGet(driver, &n, &dev) != ZE_RESULT_SUCCESS || n == 0) return NULL;
    return dev;
}

static inline ze_user_t ze_user_or_skip(void) {
    ze_driver_handle_t drivers[8];
    uint32_t n = ze_drivers_or_skip(drivers, 8);
    ze_user_t u;
    memset(&u, 0, sizeof u);
    for (uint32_t i = 0; i < n && !u.device; i++) {
        u.device = ze_first_device(drivers[i]);
        u.driver = drivers[i];
    }
    if (!u.device) SKIP("no Level Zero driver has a device");
    u.context = ze_context_create(u.driver);
    u.ordinal = ze_compute_ordinal(u.device);
    return u;
}

static inline void ze_user_destroy(ze_user_t *u) {
    ZE_CHECK(zeContextDestroy(u->context));
    u->context = NULL;
}

static inline ze_command_list_handle_t ze_immediate_list_in(
        const ze_user_t *u, ze_context_handle_t ctx) {
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, u->ordinal, 0,
            0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    ZE_CHECK(zeCommandListCreateImmediate(ctx, u->device, &desc, &list));
    return list;
}

static inline ze_command_list_handle_t ze_immediate_list(const ze_user_t *u) {
    return ze_immediate_list_in(u, u->context);
}

static inline ze_command_list_handle_t ze_regular_list(const ze_user_t *u) {
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, u->ordinal, 0};
    ze_command_list_handle_t list = NULL;
    ZE_CHECK(zeCommandListCreate(u->context, u->device, &desc, &list));
    return list;
}

static inline ze_command_queue_handle_t ze_queue(const ze_user_t *u) {
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, u->ordinal, 0,
            0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q = NULL;
    ZE_CHECK(zeCommandQueueCreate(u->context, u->device, &desc, &q));
    return q;
}

/* Closes a regular list, runs it on `q` and waits for it. */
static inline void ze_run_regular(ze_command_queue_handle_t q, ze_command_list_handle_t list) {
    ZE_CHECK(zeCommandListClose(list));
    ZE_CHECK(zeCommandQueueExecuteCommandLists(q, 1, &list, NULL));
    ZE_CHECK(zeCommandQueueSynchronize(q, UINT64_MAX));
}

static inline ze_event_pool_handle_t ze_event_pool(const ze_user_t *u, uint32_t count) {
    ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
            ZE_EVENT_POOL_FLAG_HOST_VISIBLE, count};
    ze_event_pool_handle_t pool = NULL;
    ze_device_handle_t dev = u->device;
    ZE_CHECK(zeEventPoolCreate(u->context, &desc, 1, &dev, &pool));
    return pool;
}

static inline ze_event_handle_t ze_event(ze_event_pool_handle_t pool, uint32_t index) {
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, index, ZE_EVENT_SCOPE_FLAG_HOST,
            ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t ev = NULL;
    ZE_CHECK(zeEventCreate(pool, &desc, &ev));
    return ev;
}

/* Whether an event has been signalled (zeEventQueryStatus: SUCCESS or NOT_READY). */
static inline int ze_event_done(ze_event_handle_t ev) {
    ze_result_t r = zeEventQueryStatus(ev);
    if (r != ZE_RESULT_SUCCESS && r != ZE_RESULT_NOT_READY)
        ze_check_fail(__FILE__, __LINE__, "zeEventQueryStatus", r);
    return r == ZE_RESULT_SUCCESS;
}

typedef enum { ZE_USM_HOST, ZE_USM_DEVICE, ZE_USM_SHARED } ze_usm_kind_t;

static inline const char *ze_usm_name(ze_usm_kind_t kind) {
    return kind == ZE_USM_HOST ? "host" : kind == ZE_USM_DEVICE ? "device" : "shared";
}

static inline void *ze_alloc_in(
        const ze_user_t *u, ze_context_handle_t ctx, ze_usm_kind_t kind, size_t bytes) {
    ze_device_mem_alloc_desc_t ddesc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t hdesc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    switch (kind) {
        case ZE_USM_HOST: ZE_CHECK(zeMemAllocHost(ctx, &hdesc, bytes, 64, &p)); break;
        case ZE_USM_DEVICE:
            ZE_CHECK(zeMemAllocDevice(ctx, &ddesc, bytes, 64, u->device, &p));
            break;
        case ZE_USM_SHARED:
            ZE_CHECK(zeMemAllocShared(ctx, &ddesc, &hdesc, bytes, 64, u->device, &p));
            break;
    }
    EXPECT(p != NULL);
    return p;
}

static inline void *ze_alloc(const ze_user_t *u, ze_usm_kind_t kind, size_t bytes) {
    return ze_alloc_in(u, u->context, kind, bytes);
}

/* Copies bytes between any two pointers (USM or host) on an immediate list of the
 * user's context and waits for the copy. */
static inline void ze_copy(const ze_user_t *u, void *dst, const void *src, size_t bytes) {
    ze_command_list_handle_t list = ze_immediate_list(u);
    ze_event_pool_handle_t pool = ze_event_pool(u, 1);
    ze_event_handle_t done = ze_event(pool, 0);
    ZE_CHECK(zeCommandListAppendMemoryCopy(list, dst, src, bytes, done, 0, NULL));
    ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    ZE_CHECK(zeEventDestroy(done));
    ZE_CHECK(zeEventPoolDestroy(pool));
    ZE_CHECK(zeCommandListDestroy(list));
}

/* The list still takes and runs commands: a fill of a host allocation, then a copy,
 * each waited through an event. An immediate list runs them with no queue; a regular
 * list (q != NULL) is closed, run on q and reset. */
static inline int ze_list_works(const ze_user_t *u, ze_command_list_handle_t list,
        ze_command_queue_handle_t q) {
    enum { N = 64 };
    uint32_t *a = ze_alloc(u, ZE_USM_HOST, N * 4), *b = ze_alloc(u, ZE_USM_HOST, N * 4);
    for (int i = 0; i < N; i++)
        b[i] = 0;
    ze_event_pool_handle_t pool = ze_event_pool(u, 2);
    ze_event_handle_t filled = ze_event(pool, 0), copied = ze_event(pool, 1);
    uint32_t pattern = 0x5eed1234u;
    ZE_CHECK(zeCommandListAppendMemoryFill(list, a, &pattern, 4, N * 4, filled, 0, NULL));
    ZE_CHECK(zeCommandListAppendMemoryCopy(list, b, a, N * 4, copied, 1, &filled));
    if (q) {
        ze_run_regular(q, list);
        ZE_CHECK(zeCommandListReset(list));
    }
    ZE_CHECK(zeEventHostSynchronize(copied, UINT64_MAX));
    int ok = ze_event_done(filled);
    for (int i = 0; i < N; i++)
        ok = ok && b[i] == pattern;
    ZE_CHECK(zeEventDestroy(filled));
    ZE_CHECK(zeEventDestroy(copied));
    ZE_CHECK(zeEventPoolDestroy(pool));
    ZE_CHECK(zeMemFree(u->context, a));
    ZE_CHECK(zeMemFree(u->context, b));
    return ok;
}

static inline dnnl_engine_t ze_engine(const ze_user_t *u) {
    dnnl_engine_t e = NULL;
    CHECK(dnnl_ze_interop_engine_create(&e, u->driver, u->device, u->context));
    EXPECT(e != NULL);
    return e;
}

static inline dnnl_memory_desc_t ze_md_f32(dnnl_dim_t n) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {n};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    return md;
}

/* An eltwise forward primitive over md -> md. */
static inline dnnl_primitive_t ze_eltwise(dnnl_engine_t engine, const_dnnl_memory_desc_t md,
        dnnl_alg_kind_t alg, float alpha, float beta) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, alg, md, md, alpha, beta, NULL));
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    return p;
}

/* Whether the Level Zero loader this process uses exports `name` (a function of a
 * newer API version than Debian 12's loader, which implements Level Zero 1.4). */
static inline int ze_loader_has(const char *name) {
    void *loader = dlopen("libze_loader.so.1", RTLD_LAZY | RTLD_NOLOAD);
    int has = loader != NULL && dlsym(loader, name) != NULL;
    if (loader) dlclose(loader);
    return has;
}

#endif /* DNNL_TESTS_C_ZE_UTIL_H */
