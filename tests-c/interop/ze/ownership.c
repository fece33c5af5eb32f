/* Ownership: user objects are never destroyed by the library. Level Zero has no
 * reference counts, so "never destroyed" is the whole contract.
 * The test makes its own context, immediate and regular command lists, a queue, an
 * event pool with events, and host, device and shared USM; gives them all to the
 * library (an engine, a stream on each list, memory over each USM pointer, primitives
 * executed with the user's events as dependencies, the library's own allocation and
 * stream); destroys every library object; then uses every user object (the lists run
 * commands, the events are signalled, reset and waited on, the pool gives new events,
 * the USM keeps and takes values, the context allocates), and finally destroys them
 * all, each call succeeding. */
#include <math.h>

#include "ze_util.h"

#define N 2048

typedef struct {
    ze_command_list_handle_t imm, reg;
    ze_command_queue_handle_t queue;
    ze_event_pool_handle_t pool;
    ze_event_handle_t ev[3];
    float *usm[3]; /* host, device, shared */
} user_objects_t;

static const ze_usm_kind_t kinds[3] = {ZE_USM_HOST, ZE_USM_DEVICE, ZE_USM_SHARED};

static void user_objects_create(const ze_user_t *u, user_objects_t *o) {
    o->imm = ze_immediate_list(u);
    o->reg = ze_regular_list(u);
    o->queue = ze_queue(u);
    o->pool = ze_event_pool(u, 4); /* index 3 stays free for after */
    for (int i = 0; i < 3; i++) {
        o->ev[i] = ze_event(o->pool, (uint32_t)i);
        o->usm[i] = ze_alloc(u, kinds[i], N * sizeof(float));
    }
}

/* Everything the library may touch, created and destroyed. */
static void library_session(const ze_user_t *u, user_objects_t *o) {
    dnnl_engine_t e = ze_engine(u);
    dnnl_stream_t si = NULL, sr = NULL, own = NULL;
    CHECK(dnnl_ze_interop_stream_create(&si, e, o->imm, 0));
    CHECK(dnnl_ze_interop_stream_create(&sr, e, o->reg, 1));
    CHECK(dnnl_stream_create(&own, e, dnnl_stream_default_flags));

    dnnl_memory_desc_t md = ze_md_f32(N);
    dnnl_memory_t mem[3], lib = NULL;
    for (int i = 0; i < 3; i++) {
        void *h[1] = {o->usm[i]};
        CHECK(dnnl_ze_interop_memory_create(&mem[i], md, e, 1, h));
    }
    CHECK(dnnl_memory_create(&lib, md, e, DNNL_MEMORY_ALLOCATE));
    float *p = NULL;
    CHECK(dnnl_memory_map_data(mem[0], (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = (float)(i % 17);
    CHECK(dnnl_memory_unmap_data(mem[0], p));

    /* host -> device (x2), after ev[0]; device -> shared (+1), after ev[1] and the first;
     * the regular list copies shared -> the library's allocation. */
    dnnl_primitive_t twice = ze_eltwise(e, md, dnnl_eltwise_linear, 2.f, 0.f);
    dnnl_primitive_t plus1 = ze_eltwise(e, md, dnnl_eltwise_linear, 1.f, 1.f);
    dnnl_primitive_t copy = ze_eltwise(e, md, dnnl_eltwise_linear, 1.f, 0.f);
    ZE_CHECK(zeEventHostSignal(o->ev[0]));
    ZE_CHECK(zeEventHostSignal(o->ev[1]));
    dnnl_exec_arg_t a1[] = {{DNNL_ARG_SRC, mem[0]}, {DNNL_ARG_DST, mem[1]}};
    dnnl_exec_arg_t a2[] = {{DNNL_ARG_SRC, mem[1]}, {DNNL_ARG_DST, mem[2]}};
    dnnl_exec_arg_t a3[] = {{DNNL_ARG_SRC, mem[2]}, {DNNL_ARG_DST, lib}};
    ze_event_handle_t r1 = NULL, r2 = NULL, r3 = NULL;
    CHECK(dnnl_ze_interop_primitive_execute(twice, si, 2, a1, 1, &o->ev[0], &r1));
    ze_event_handle_t deps2[2] = {o->ev[1], r1};
    CHECK(dnnl_ze_interop_primitive_execute(plus1, si, 2, a2, 2, deps2, &r2));
    ZE_CHECK(zeEventHostSynchronize(r2, UINT64_MAX));
    CHECK(dnnl_ze_interop_primitive_execute(copy, sr, 2, a3, 0, NULL, &r3));
    ze_run_regular(o->queue, o->reg);
    ZE_CHECK(zeCommandListReset(o->reg));
    ZE_CHECK(zeEventHostSynchronize(r3, UINT64_MAX));
    CHECK(dnnl_memory_map_data(lib, (void **)&p));
    for (int i = 0; i < N; i++)
        EXPECT(p[i] == 2.f * (float)(i % 17) + 1.f);
    CHECK(dnnl_memory_unmap_data(lib, p));

    CHECK(dnnl_primitive_destroy(twice));
    CHECK(dnnl_primitive_destroy(plus1));
    CHECK(dnnl_primitive_destroy(copy));
    for (int i = 0; i < 3; i++)
        CHECK(dnnl_memory_destroy(mem[i]));
    CHECK(dnnl_memory_destroy(lib));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(si));
    CHECK(dnnl_stream_destroy(sr));
    CHECK(dnnl_stream_destroy(own));
    CHECK(dnnl_engine_destroy(e));
    printf("library objects over the user's objects made, used and destroyed\n");
}

/* Every user object still works. */
static void user_objects_use(const ze_user_t *u, user_objects_t *o) {
    EXPECT(ze_list_works(u, o->imm, NULL));
    EXPECT(ze_list_works(u, o->reg, o->queue));
    printf("immediate list, regular list and queue still work: ok\n");

    /* The USM kept the library's results, and takes new values. */
    float *host = malloc(N * sizeof(float));
    EXPECT(host != NULL);
    ze_copy(u, host, o->usm[1], N * sizeof(float));
    for (int i = 0; i < N; i++)
        EXPECT(host[i] == 2.f * (float)(i % 17));
    for (int i = 0; i < N; i++)
        EXPECT(o->usm[2][i] == 2.f * (float)(i % 17) + 1.f);
    for (int i = 0; i < N; i++)
        host[i] = (float)-i;
    ze_copy(u, o->usm[1], host, N * sizeof(float));
    ze_copy(u, o->usm[0], o->usm[1], N * sizeof(float));
    for (int i = 0; i < N; i++)
        EXPECT(o->usm[0][i] == (float)-i);
    free(host);
    printf("host, device and shared USM keep and take values: ok\n");

    /* Events: reset, gate a copy on the immediate list, signalled by the host. */
    for (int i = 0; i < 3; i++)
        ZE_CHECK(zeEventHostReset(o->ev[i]));
    EXPECT(!ze_event_done(o->ev[0]) && !ze_event_done(o->ev[2]));
    ZE_CHECK(zeCommandListAppendMemoryCopy(
            o->imm, o->usm[2], o->usm[0], N * sizeof(float), o->ev[2], 1, &o->ev[0]));
    ZE_CHECK(zeEventHostSignal(o->ev[0]));
    ZE_CHECK(zeEventHostSynchronize(o->ev[2], UINT64_MAX));
    for (int i = 0; i < N; i++)
        EXPECT(o->usm[2][i] == (float)-i);
    /* The pool still makes events. */
    ze_event_handle_t fresh = ze_event(o->pool, 3);
    ZE_CHECK(zeEventHostSignal(fresh));
    EXPECT(ze_event_done(fresh));
    ZE_CHECK(zeEventDestroy(fresh));
    printf("events and event pool still work: ok\n");

    /* The context still allocates. */
    void *more = ze_alloc(u, ZE_USM_DEVICE, 4096);
    ZE_CHECK(zeMemFree(u->context, more));
}

static void user_objects_destroy(const ze_user_t *u, user_objects_t *o) {
    for (int i = 0; i < 3; i++) {
        ZE_CHECK(zeEventDestroy(o->ev[i]));
        ZE_CHECK(zeMemFree(u->context, o->usm[i]));
    }
    ZE_CHECK(zeEventPoolDestroy(o->pool));
    ZE_CHECK(zeCommandListDestroy(o->imm));
    ZE_CHECK(zeCommandListDestroy(o->reg));
    ZE_CHECK(zeCommandQueueDestroy(o->queue));
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    user_objects_t o;
    user_objects_create(&u, &o);
    library_session(&u, &o);
    user_objects_use(&u, &o);
    user_objects_destroy(&u, &o);
    ZE_CHECK(zeContextDestroy(u.context));
    printf("ze ownership: every user object outlives the library's and is destroyed by "
           "the user: ok\n");
    return 0;
}
