/* Wild pointers given as Level Zero objects to every dnnl_ze.h function that takes
 * one (issue 18). Where the loader wraps handles (more than one driver, or
 * ZE_ENABLE_LOADER_INTERCEPT=1: the <name>_intercept registration) it reads two words
 * through the pointer before any driver sees it, so these crashed there.
 *
 * For the driver, device, context, command list, dependency events (and the deps list
 * pointer itself) and USM pointers, the test passes: NULL (where NULL is not a
 * documented value), (void *)1, 0xdeadbeef000, a pointer into unmapped memory, a
 * PROT_NONE page, a zero-filled and a 0xa5-filled malloc buffer, and the real objects
 * of the other types; each call must return dnnl_invalid_arguments and leave its
 * output alone. One exception, what cannot be recognised: a command list that is
 * readable memory (where the loader passes handles through) or another object of the
 * same driver is taken by stream_create, and the execute on that stream must then
 * return invalid_arguments (the in-repository driver refuses the list). Functions: dnnl_ze_interop_engine_create,
 * _engine_create_from_cache_blob, _engine_get_cache_blob_id, _stream_create,
 * _memory_create, _primitive_execute.
 *
 * Then the real objects still work: engines (also from the cache blob), the cache
 * blob id, a stream on the user's list, a ReLU over the user's shared USM after a
 * user event, checked element by element. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ze_util.h"
#include "interop/wild_pointers.h"

#define N 256
#define MAX_WILD 16

static int failures;
static int refused;
/* Lists taken on trust by stream_create, refused by the driver at execute. */
static int trusted;

static void expect_ia(dnnl_status_t s, const char *call, const wild_t *w) {
    if (s != dnnl_invalid_arguments) {
        fflush(stdout);
        fprintf(stderr, "FAILED: %s with %s (%p) returned %s, expected invalid_arguments\n",
                call, w->name, w->ptr, check_status_str(s));
        failures++;
        return;
    }
    refused++;
}

/* The real objects, for "a valid object of another type". */
typedef struct {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    ze_command_list_handle_t list;
    ze_event_handle_t event;
} real_t;

/* Wild pointers (NULL first when `with_null`) plus the real objects other than
 * `self`. */
static size_t wild_for(wild_t *w, int with_null, const real_t *r, const void *self) {
    size_t n = wild_pointers(w, with_null);
    const wild_t others[] = {{"a ze_driver_handle_t", r->driver},
            {"a ze_device_handle_t", r->device}, {"a ze_context_handle_t", r->context},
            {"a ze_command_list_handle_t", r->list}, {"a ze_event_handle_t", r->event}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (others[i].ptr != self) w[n++] = others[i];
    return n;
}

static void engine_calls(ze_driver_handle_t driver, ze_device_handle_t device,
        ze_context_handle_t context, const wild_t *w, const uint8_t *blob, size_t blob_size) {
    dnnl_engine_t e = NULL;
    expect_ia(dnnl_ze_interop_engine_create(&e, driver, device, context),
            "dnnl_ze_interop_engine_create", w);
    expect_ia(dnnl_ze_interop_engine_create_from_cache_blob(
                      &e, driver, device, context, blob_size, blob),
            "dnnl_ze_interop_engine_create_from_cache_blob", w);
    EXPECT(e == NULL);
}

static void blob_id_call(ze_driver_handle_t driver, ze_device_handle_t device, const wild_t *w) {
    size_t size = 12345;
    expect_ia(dnnl_ze_interop_engine_get_cache_blob_id(driver, device, &size, NULL),
            "dnnl_ze_interop_engine_get_cache_blob_id", w);
    EXPECT(size == 12345);
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    /* Whether the loader wraps handles (one driver here: only when forced). */
    const char *intercept = getenv("ZE_ENABLE_LOADER_INTERCEPT");
    int wraps = intercept && strcmp(intercept, "0") != 0;
    printf("the loader %s handles\n", wraps ? "wraps" : "passes through");
    ze_event_pool_handle_t pool = ze_event_pool(&u, 1);
    real_t r = {u.driver, u.device, u.context, ze_immediate_list(&u), ze_event(pool, 0)};
    ZE_CHECK(zeEventHostSignal(r.event));

    dnnl_engine_t engine = ze_engine(&u);
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_ze_interop_stream_create(&stream, engine, r.list, 0));
    dnnl_memory_desc_t md = ze_md_f32(N);
    float *src_usm = ze_alloc(&u, ZE_USM_SHARED, N * sizeof(float));
    float *dst_usm = ze_alloc(&u, ZE_USM_SHARED, N * sizeof(float));
    void *src_h[1] = {src_usm}, *dst_h[1] = {dst_usm};
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_ze_interop_memory_create(&src, md, engine, 1, src_h));
    CHECK(dnnl_ze_interop_memory_create(&dst, md, engine, 1, dst_h));
    dnnl_primitive_t prim = ze_eltwise(engine, md, dnnl_eltwise_relu, 0.f, 0.f);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    /* A real cache blob (the engine compiled the ReLU). */
    size_t blob_size = 0;
    CHECK(dnnl_ze_interop_engine_get_cache_blob(engine, &blob_size, NULL));
    EXPECT(blob_size > 0);
    uint8_t *blob = (uint8_t *)malloc(blob_size);
    EXPECT(blob != NULL);
    CHECK(dnnl_ze_interop_engine_get_cache_blob(engine, &blob_size, blob));

    wild_t w[MAX_WILD];
    size_t n = wild_for(w, 1, &r, r.driver);
    for (size_t i = 0; i < n; i++) {
        engine_calls((ze_driver_handle_t)w[i].ptr, r.device, r.context, &w[i], blob, blob_size);
        blob_id_call((ze_driver_handle_t)w[i].ptr, r.device, &w[i]);
    }
    n = wild_for(w, 1, &r, r.device);
    for (size_t i = 0; i < n; i++) {
        engine_calls(r.driver, (ze_device_handle_t)w[i].ptr, r.context, &w[i], blob, blob_size);
        blob_id_call(r.driver, (ze_device_handle_t)w[i].ptr, &w[i]);
    }
    n = wild_for(w, 1, &r, r.context);
    for (size_t i = 0; i < n; i++)
        engine_calls(r.driver, r.device, (ze_context_handle_t)w[i].ptr, &w[i], blob, blob_size);
    printf("engines, cache blob id: %d wild drivers, devices and contexts refused\n", refused);

    /* A list cannot be asked for its context with this loader (Level Zero 1.4), and
     * one of the right driver cannot be told from another object of that driver: those
     * are taken on trust by stream_create and refused by the driver at the first
     * append. Unreadable pointers always, and readable garbage where the loader wraps
     * handles, are refused at once. */
    n = wild_for(w, 1, &r, r.list);
    for (size_t i = 0; i < n; i++) {
        dnnl_stream_t s = NULL;
        dnnl_status_t st = dnnl_ze_interop_stream_create(
                &s, engine, (ze_command_list_handle_t)w[i].ptr, 0);
        int other_object = strncmp(w[i].name, "a ze_", 5) == 0;
        int garbage = strstr(w[i].name, "malloc") != NULL;
        if (st == dnnl_success && (other_object || (garbage && !wraps))) {
            expect_ia(dnnl_ze_interop_primitive_execute(prim, s, 2, args, 0, NULL, NULL),
                    "dnnl_ze_interop_primitive_execute on a stream over", &w[i]);
            CHECK(dnnl_stream_destroy(s));
            trusted++;
            continue;
        }
        expect_ia(st, "dnnl_ze_interop_stream_create", &w[i]);
        EXPECT(s == NULL);
    }

    /* USM pointers: the driver looks them up without reading through them. NULL is
     * DNNL_MEMORY_NONE there, a valid value. */
    n = wild_for(w, 0, &r, NULL);
    for (size_t i = 0; i < n; i++) {
        dnnl_memory_t m = NULL;
        void *h[1] = {w[i].ptr};
        expect_ia(dnnl_ze_interop_memory_create(&m, md, engine, 1, h),
                "dnnl_ze_interop_memory_create", &w[i]);
        EXPECT(m == NULL);
    }
    printf("streams, memories: %d wild handles refused so far (%d lists refused at execute)\n",
            refused, trusted);

    n = wild_for(w, 0, &r, r.event);
    for (size_t i = 0; i < n; i++) {
        ze_event_handle_t ret = NULL;
        ze_event_handle_t deps[2] = {NULL, (ze_event_handle_t)w[i].ptr};
        expect_ia(dnnl_ze_interop_primitive_execute(prim, stream, 2, args, 2, deps, &ret),
                "dnnl_ze_interop_primitive_execute (deps entry)", &w[i]);
        EXPECT(ret == NULL);
        /* The list itself: the pointers that cannot be read. */
        if (i < 4)
            expect_ia(dnnl_ze_interop_primitive_execute(
                              prim, stream, 2, args, 1, (ze_event_handle_t *)w[i].ptr, NULL),
                    "dnnl_ze_interop_primitive_execute (deps list)", &w[i]);
    }
    printf("execute deps: %d wild handles refused so far\n", refused);

    /* The real objects still work. */
    {
        size_t id_size = 0;
        CHECK(dnnl_ze_interop_engine_get_cache_blob_id(r.driver, r.device, &id_size, NULL));
        EXPECT(id_size > 0);
        dnnl_engine_t again = NULL, from_blob = NULL;
        CHECK(dnnl_ze_interop_engine_create(&again, r.driver, r.device, r.context));
        CHECK(dnnl_ze_interop_engine_create_from_cache_blob(
                &from_blob, r.driver, r.device, r.context, blob_size, blob));
        CHECK(dnnl_engine_destroy(again));
        CHECK(dnnl_engine_destroy(from_blob));
        for (int i = 0; i < N; i++) {
            src_usm[i] = (float)(i - N / 2) * 0.25f;
            dst_usm[i] = -777.f;
        }
        ze_event_handle_t done = NULL;
        CHECK(dnnl_ze_interop_primitive_execute(prim, stream, 2, args, 1, &r.event, &done));
        EXPECT(done != NULL);
        ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
        for (int i = 0; i < N; i++) {
            float want = src_usm[i] > 0.f ? src_usm[i] : 0.f;
            if (dst_usm[i] != want) {
                fprintf(stderr, "FAILED: relu[%d] = %g, expected %g\n", i, dst_usm[i], want);
                failures++;
                break;
            }
        }
    }

    free(blob);
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    ZE_CHECK(zeMemFree(u.context, src_usm));
    ZE_CHECK(zeMemFree(u.context, dst_usm));
    ZE_CHECK(zeEventDestroy(r.event));
    ZE_CHECK(zeEventPoolDestroy(pool));
    ZE_CHECK(zeCommandListDestroy(r.list));
    ze_user_destroy(&u);
    if (failures) {
        fprintf(stderr, "%d calls were not refused\n", failures);
        return 1;
    }
    printf("%d calls with wild handles refused; the real objects still work: ok\n", refused);
    return 0;
}
