/* dnnl_graph_make_engine_with_allocator accepts what oneDNN v3.13's library accepts
 * (probed against Intel's libdnnl.so.3; the @ref twin checks it again): the engine
 * kinds and indices of dnnl_engine_create. A CPU engine at index 0 is made and is a
 * CPU engine; an index at or past dnnl_engine_get_count(kind), dnnl_any_engine and a
 * value that is no engine kind are dnnl_invalid_arguments and leave no engine.
 * The allocator: a host allocator on ours; Intel's library is a SYCL build that
 * refuses host allocators, so its run makes a SYCL one
 * (dnnl_graph_sycl_interop_allocator_create, looked up at run time). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>

#include "graph/graph_util.h"

static void *host_malloc(size_t size, size_t alignment) {
    void *p = NULL;
    return posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size)
            ? NULL
            : p;
}

static void host_free(void *p) {
    free(p);
}

typedef void *(*sycl_malloc_f)(size_t, size_t, const void *, const void *);
typedef void (*sycl_free_f)(void *, const void *, const void *, void *);
typedef dnnl_status_t (*sycl_allocator_create_f)(dnnl_graph_allocator_t *, sycl_malloc_f, sycl_free_f);

static dnnl_graph_allocator_t make_allocator(void) {
    dnnl_graph_allocator_t a = NULL;
    if (library_is_ours()) {
        CHECK(dnnl_graph_allocator_create(&a, host_malloc, host_free));
        return a;
    }
    sycl_allocator_create_f create = (sycl_allocator_create_f)(uintptr_t)dlsym(
            RTLD_DEFAULT, "dnnl_graph_sycl_interop_allocator_create");
    if (!create) SKIP("Intel's library without dnnl_graph_sycl_interop_allocator_create");
    CHECK(create(&a, NULL, NULL)); /* the library's default SYCL allocator */
    return a;
}

int main(void) {
    dnnl_graph_allocator_t a = make_allocator();
    dnnl_engine_t e = NULL;
    CHECK(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, 0, a));
    dnnl_engine_kind_t kind;
    CHECK(dnnl_engine_get_kind(e, &kind));
    EXPECT(kind == dnnl_cpu);
    CHECK(dnnl_engine_destroy(e));
    e = NULL;
    const size_t ncpu = dnnl_engine_get_count(dnnl_cpu), ngpu = dnnl_engine_get_count(dnnl_gpu);
    EXPECT(ncpu == 1);
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, ncpu, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, dnnl_gpu, ngpu, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, dnnl_any_engine, 0, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, (dnnl_engine_kind_t)7, 0, a),
            dnnl_invalid_arguments);
    EXPECT(e == NULL);
    CHECK(dnnl_graph_allocator_destroy(a));
    printf("graph_engine_alloc: ok\n");
    return 0;
}
