/* Level Zero memory (notes 2.8; dnnl_ze.h: USM only, NONE and ALLOCATE):
 * - dnnl_ze_interop_memory_create with the user's host, device and shared USM: the data
 *   handle is the pointer; map gives the user's values (a staging copy for device
 *   USM), unmap writes back what was written through the map; the library never frees
 *   the pointer (the user frees it after dnnl_memory_destroy, and uses it before);
 * - DNNL_MEMORY_ALLOCATE: a USM allocation of the engine's context (zeMemGetAllocProperties
 *   knows it), mapped and unmapped; DNNL_MEMORY_NONE: no data handle, map gives NULL;
 * - dnnl_memory_set_data_handle / get_data_handle with user USM of each kind, and back
 *   to NULL; dnnl_memory_create (the generic call) on a ze engine;
 * - refused with invalid_arguments: a pointer the context does not know (malloc), USM
 *   of another context, nhandles 0, negative or larger than the descriptor's handle
 *   count, a NULL handles array, NULL output, NULL descriptor, NULL engine, a CPU
 *   engine. */
#include "ze_util.h"

#define N 1000

static float value(int i, int salt) {
    return (float)((i * 7 + salt) % 97) - 48.f;
}

/* Puts values into any USM pointer (a host-side copy for device USM). */
static void put(const ze_user_t *u, ze_usm_kind_t kind, float *p, int salt) {
    float *host = malloc(N * sizeof(float));
    EXPECT(host != NULL);
    for (int i = 0; i < N; i++)
        host[i] = value(i, salt);
    if (kind == ZE_USM_DEVICE)
        ze_copy(u, p, host, N * sizeof(float));
    else
        memcpy(p, host, N * sizeof(float));
    free(host);
}

/* Whether a USM pointer holds the values of `salt`. */
static int holds(const ze_user_t *u, ze_usm_kind_t kind, const float *p, int salt) {
    float *host = malloc(N * sizeof(float));
    EXPECT(host != NULL);
    if (kind == ZE_USM_DEVICE)
        ze_copy(u, host, p, N * sizeof(float));
    else
        memcpy(host, p, N * sizeof(float));
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok = ok && host[i] == value(i, salt);
    free(host);
    return ok;
}

static int mapped_holds(dnnl_memory_t mem, int salt) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    EXPECT(p != NULL);
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok = ok && p[i] == value(i, salt);
    CHECK(dnnl_memory_unmap_data(mem, p));
    return ok;
}

static void write_through_map(dnnl_memory_t mem, int salt) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem, (void **)&p));
    EXPECT(p != NULL);
    for (int i = 0; i < N; i++)
        p[i] = value(i, salt);
    CHECK(dnnl_memory_unmap_data(mem, p));
}

static void user_usm(const ze_user_t *u, dnnl_engine_t e, const_dnnl_memory_desc_t md,
        ze_usm_kind_t kind) {
    float *p = ze_alloc(u, kind, N * sizeof(float));
    put(u, kind, p, 1);
    void *handles[1] = {p};
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_ze_interop_memory_create(&mem, md, e, 1, handles));
    void *h = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == p);
    EXPECT(mapped_holds(mem, 1));
    write_through_map(mem, 2);
    EXPECT(holds(u, kind, p, 2));
    CHECK(dnnl_memory_destroy(mem));
    /* Still the user's: readable, writable, and freed by the user. */
    EXPECT(holds(u, kind, p, 2));
    put(u, kind, p, 3);
    EXPECT(holds(u, kind, p, 3));
    ZE_CHECK(zeMemFree(u->context, p));
    printf("user %s USM: data handle, map/unmap, not freed by the library: ok\n",
            ze_usm_name(kind));
}

static void allocate_and_none(const ze_user_t *u, dnnl_engine_t e, const_dnnl_memory_desc_t md) {
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_ze_interop_memory_create(&mem, md, e, 1, alloc));
    void *h = NULL;
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h != NULL && h != DNNL_MEMORY_ALLOCATE);
    ze_memory_allocation_properties_t props = {
            ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, NULL, ZE_MEMORY_TYPE_UNKNOWN, 0, 0};
    ze_device_handle_t owner = NULL;
    ZE_CHECK(zeMemGetAllocProperties(u->context, h, &props, &owner));
    EXPECT(props.type != ZE_MEMORY_TYPE_UNKNOWN);
    write_through_map(mem, 4);
    EXPECT(mapped_holds(mem, 4));
    printf("ALLOCATE: USM of the engine's context (type %s): ok\n",
            props.type == ZE_MEMORY_TYPE_DEVICE       ? "device"
                    : props.type == ZE_MEMORY_TYPE_HOST ? "host"
                                                        : "shared");
    CHECK(dnnl_memory_destroy(mem));

    /* The generic call on a ze engine. */
    CHECK(dnnl_memory_create(&mem, md, e, DNNL_MEMORY_ALLOCATE));
    write_through_map(mem, 5);
    EXPECT(mapped_holds(mem, 5));
    CHECK(dnnl_memory_destroy(mem));

    void *none[1] = {DNNL_MEMORY_NONE};
    CHECK(dnnl_ze_interop_memory_create(&mem, md, e, 1, none));
    h = (void *)1;
    CHECK(dnnl_memory_get_data_handle(mem, &h));
    EXPECT(h == NULL);
    void *mapped = (void *)1;
    CHECK(dnnl_memory_map_data(mem, &mapped));
    EXPECT(mapped == NULL);
    CHECK(dnnl_memory_destroy(mem));
    printf("dnnl_memory_create(ALLOCATE) and NONE (no handle, map gives NULL): ok\n");
}

static void set_data_handle(const ze_user_t *u, dnnl_engine_t e, const_dnnl_memory_desc_t md) {
    void *none[1] = {DNNL_MEMORY_NONE};
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_ze_interop_memory_create(&mem, md, e, 1, none));
    const ze_usm_kind_t kinds[] = {ZE_USM_HOST, ZE_USM_DEVICE, ZE_USM_SHARED};
    for (int k = 0; k < 3; k++) {
        float *p = ze_alloc(u, kinds[k], N * sizeof(float));
        put(u, kinds[k], p, 10 + k);
        CHECK(dnnl_memory_set_data_handle(mem, p));
        void *h = NULL;
        CHECK(dnnl_memory_get_data_handle(mem, &h));
        EXPECT(h == p);
        EXPECT(mapped_holds(mem, 10 + k));
        write_through_map(mem, 20 + k);
        EXPECT(holds(u, kinds[k], p, 20 + k));
        CHECK(dnnl_memory_set_data_handle(mem, NULL));
        CHECK(dnnl_memory_get_data_handle(mem, &h));
        EXPECT(h == NULL);
        /* Detached: the pointer is the user's alone. */
        ZE_CHECK(zeMemFree(u->context, p));
    }
    CHECK(dnnl_memory_destroy(mem));
    printf("set/get data handle with host, device and shared USM, and NULL: ok\n");
}

static void expect_refused(dnnl_memory_t *out, const_dnnl_memory_desc_t md, dnnl_engine_t e,
        int n, void **handles, const char *what) {
    dnnl_status_t s = dnnl_ze_interop_memory_create(out, md, e, n, handles);
    if (s != dnnl_invalid_arguments) {
        fprintf(stderr, "dnnl_ze_interop_memory_create with %s returned %s, expected "
                        "invalid_arguments\n",
                what, check_status_str(s));
        exit(1);
    }
    EXPECT(out == NULL || *out == NULL);
    printf("refused: %s\n", what);
}

static void refusals(const ze_user_t *u, dnnl_engine_t e, const_dnnl_memory_desc_t md) {
    dnnl_memory_t mem = NULL;
    float *host = malloc(N * sizeof(float));
    EXPECT(host != NULL);
    void *h[1] = {host};
    expect_refused(&mem, md, e, 1, h, "a malloc pointer (unknown to the context)");
    free(host);

    ze_context_handle_t other = ze_context_create(u->driver);
    void *foreign = ze_alloc_in(u, other, ZE_USM_DEVICE, N * sizeof(float));
    h[0] = foreign;
    expect_refused(&mem, md, e, 1, h, "device USM of another context");
    ZE_CHECK(zeMemFree(other, foreign));
    ZE_CHECK(zeContextDestroy(other));

    void *alloc[2] = {DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE};
    expect_refused(&mem, md, e, 0, alloc, "nhandles 0");
    expect_refused(&mem, md, e, -1, alloc, "nhandles -1");
    expect_refused(&mem, md, e, 2, alloc, "nhandles 2 for a one-handle descriptor");
    expect_refused(&mem, md, e, 1, NULL, "a NULL handles array");
    expect_refused(NULL, md, e, 1, alloc, "a NULL output");
    expect_refused(&mem, NULL, e, 1, alloc, "a NULL descriptor");
    expect_refused(&mem, md, NULL, 1, alloc, "a NULL engine");
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    expect_refused(&mem, md, cpu, 1, alloc, "a CPU engine");
    CHECK(dnnl_engine_destroy(cpu));
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    dnnl_engine_t e = ze_engine(&u);
    dnnl_memory_desc_t md = ze_md_f32(N);

    user_usm(&u, e, md, ZE_USM_HOST);
    user_usm(&u, e, md, ZE_USM_DEVICE);
    user_usm(&u, e, md, ZE_USM_SHARED);
    allocate_and_none(&u, e, md);
    set_data_handle(&u, e, md);
    refusals(&u, e, md);

    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(e));
    ze_user_destroy(&u);
    printf("ze memory: ok\n");
    return 0;
}
