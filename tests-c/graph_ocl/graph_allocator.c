/* Graph allocators and tensors on the CPU engine (dnnl_graph.h):
 * dnnl_graph_allocator_create / _destroy, dnnl_graph_make_engine_with_allocator and
 * every dnnl_graph_tensor_* function, with their error cases. A counting host
 * allocator checks that a tensor's own memory (DNNL_MEMORY_ALLOCATE) comes from the
 * engine's allocator, aligned as requested, and goes back through it exactly once;
 * the allocator handle may be destroyed right after the engine is made (the engine
 * keeps a copy). A two-layer MLP (mlp.h, constant weights) then runs three
 * times on an engine with the counting allocator: its temporaries and prepared
 * weights come from it, and after everything is destroyed (and the graph caches
 * emptied) every allocation was freed exactly once. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"
#include "mlp.h"
#include "oneapi/dnnl/dnnl_graph.h"

static dnnl_graph_logical_tensor_t lt_strided(
        size_t id, dnnl_data_type_t dt, int ndims, const int64_t *dims) {
    dnnl_graph_logical_tensor_t lt;
    memset(&lt, 0, sizeof(lt));
    lt.id = id;
    lt.ndims = ndims;
    lt.data_type = dt;
    lt.property = dnnl_graph_tensor_property_variable;
    lt.layout_type = dnnl_graph_layout_type_strided;
    int64_t stride = 1;
    for (int i = ndims - 1; i >= 0; i--) {
        lt.dims[i] = dims[i];
        lt.layout.strides[i] = stride;
        stride *= dims[i];
    }
    return lt;
}

static void allocator_errors(void) {
    dnnl_graph_allocator_t a = NULL;
    CHECK_STATUS(dnnl_graph_allocator_create(NULL, count_host_malloc, count_host_free),
            dnnl_invalid_arguments);
    /* Either callback NULL: the default allocator, not an error. */
    CHECK(dnnl_graph_allocator_create(&a, NULL, count_host_free));
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK(dnnl_graph_allocator_create(&a, count_host_malloc, NULL));
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK(dnnl_graph_allocator_create(&a, NULL, NULL));
    CHECK_STATUS(dnnl_graph_allocator_destroy(a), dnnl_success);
    CHECK_STATUS(dnnl_graph_allocator_destroy(a), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_allocator_destroy(NULL), dnnl_invalid_arguments);

    CHECK(dnnl_graph_allocator_create(&a, count_host_malloc, count_host_free));
    dnnl_engine_t e = NULL;
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(NULL, dnnl_cpu, 0, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, 0, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, dnnl_any_engine, 0, a),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, 1, a),
            dnnl_invalid_arguments);
    /* A handle of another kind is no allocator. */
    dnnl_engine_t plain = NULL;
    CHECK(dnnl_engine_create(&plain, dnnl_cpu, 0));
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(
                         &e, dnnl_cpu, 0, (const_dnnl_graph_allocator_t)plain),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_allocator_destroy((dnnl_graph_allocator_t)plain),
            dnnl_invalid_arguments);
    CHECK(dnnl_engine_destroy(plain));
    EXPECT(e == NULL);
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, 0, a),
            dnnl_invalid_arguments);
    EXPECT(e == NULL);
    EXPECT(count_allocs() == 0);
    printf("allocator create/destroy/make_engine errors: ok\n");
}

/* A tensor with DNNL_MEMORY_ALLOCATE on an engine made with the counting allocator
 * (destroyed before use: the engine has its own copy). */
static void allocate_through_user_allocator(void) {
    dnnl_graph_allocator_t a = NULL;
    dnnl_engine_t e = NULL;
    CHECK(dnnl_graph_allocator_create(&a, count_host_malloc, count_host_free));
    CHECK(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, 0, a));
    CHECK(dnnl_graph_allocator_destroy(a));
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(e, &kind));
    EXPECT(kind == dnnl_cpu);

    int64_t dims[] = {3, 5};
    dnnl_graph_logical_tensor_t lt = lt_strided(1, dnnl_f32, 2, dims);
    dnnl_graph_tensor_t t = NULL, u = NULL;
    CHECK(dnnl_graph_tensor_create(&t, &lt, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_graph_tensor_create(&u, &lt, e, DNNL_MEMORY_ALLOCATE));
    EXPECT(count_allocs() == 2 && count_frees() == 0);
    EXPECT(count.entries[0].size == 3 * 5 * sizeof(float));
    void *h = NULL;
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h == count.entries[0].ptr);
    memset(h, 0, 15 * sizeof(float)); /* the memory is usable */
    /* Another handle frees the tensor's own memory, once. */
    float user[15];
    CHECK(dnnl_graph_tensor_set_data_handle(t, user));
    EXPECT(count_frees() == 1);
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h == user);
    CHECK(dnnl_graph_tensor_destroy(t));
    EXPECT(count_frees() == 1);
    /* The engine lives on while a tensor holds it. */
    CHECK(dnnl_engine_destroy(e));
    CHECK(dnnl_graph_tensor_destroy(u));
    count_check_balanced(0);
    count_report("host counting allocator");

    /* An allocator with a NULL callback is the default: nothing reaches ours. */
    int before = count_allocs();
    CHECK(dnnl_graph_allocator_create(&a, count_host_malloc, NULL));
    CHECK(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, 0, a));
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK(dnnl_graph_tensor_create(&t, &lt, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h != NULL && (uintptr_t)h % 64 == 0);
    CHECK(dnnl_graph_tensor_destroy(t));
    CHECK(dnnl_engine_destroy(e));
    EXPECT(count_allocs() == before);
    printf("DNNL_MEMORY_ALLOCATE through the engine's allocator: ok\n");
}

static void tensor_functions(void) {
    dnnl_engine_t e = NULL;
    CHECK(dnnl_engine_create(&e, dnnl_cpu, 0));
    int64_t dims[] = {2, 4};
    dnnl_graph_logical_tensor_t lt = lt_strided(7, dnnl_f32, 2, dims);
    float data[8] = {0};
    dnnl_graph_tensor_t t = NULL;

    CHECK_STATUS(dnnl_graph_tensor_create(NULL, &lt, e, data), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_create(&t, NULL, e, data), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &lt, NULL, data), dnnl_invalid_arguments);
    dnnl_graph_logical_tensor_t bad = lt;
    bad.data_type = (dnnl_data_type_t)12345;
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &bad, e, data), dnnl_invalid_arguments);
    bad = lt;
    bad.ndims = DNNL_MAX_NDIMS + 1;
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &bad, e, data), dnnl_invalid_arguments);
    /* Memory of unknown size cannot be allocated. */
    bad = lt;
    bad.layout_type = dnnl_graph_layout_type_any;
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &bad, e, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    bad = lt;
    bad.dims[1] = DNNL_GRAPH_UNKNOWN_DIM;
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &bad, e, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    EXPECT(t == NULL);
    /* ... but such a tensor may wrap the user's memory. */
    CHECK(dnnl_graph_tensor_create(&t, &bad, e, data));
    CHECK(dnnl_graph_tensor_destroy(t));

    CHECK(dnnl_graph_tensor_create(&t, &lt, e, data));
    void *h = NULL;
    CHECK_STATUS(dnnl_graph_tensor_get_data_handle(NULL, &h), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_get_data_handle(t, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h == data);
    CHECK_STATUS(dnnl_graph_tensor_set_data_handle(NULL, data), dnnl_invalid_arguments);
    CHECK(dnnl_graph_tensor_set_data_handle(t, DNNL_MEMORY_NONE));
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h == NULL);
    CHECK(dnnl_graph_tensor_set_data_handle(t, data + 4));
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h == data + 4);

    dnnl_engine_t got = NULL;
    CHECK_STATUS(dnnl_graph_tensor_get_engine(NULL, &got), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_get_engine(t, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_graph_tensor_get_engine(t, &got));
    /* A query gives its own (not owned) handle of the same engine. */
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(got, &kind));
    EXPECT(kind == dnnl_cpu);

    dnnl_graph_logical_tensor_t back;
    memset(&back, 0xff, sizeof(back));
    CHECK_STATUS(dnnl_graph_tensor_get_logical_tensor(NULL, &back), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_get_logical_tensor(t, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_graph_tensor_get_logical_tensor(t, &back));
    EXPECT(back.id == 7 && back.ndims == 2 && back.dims[0] == 2 && back.dims[1] == 4);
    EXPECT(back.data_type == dnnl_f32 && back.layout_type == dnnl_graph_layout_type_strided);
    EXPECT(back.layout.strides[0] == 4 && back.layout.strides[1] == 1);

    /* DNNL_MEMORY_NONE */
    dnnl_graph_tensor_t n = NULL;
    CHECK(dnnl_graph_tensor_create(&n, &lt, e, DNNL_MEMORY_NONE));
    CHECK(dnnl_graph_tensor_get_data_handle(n, &h));
    EXPECT(h == NULL);
    CHECK(dnnl_graph_tensor_destroy(n));

    /* A handle of another kind, a destroyed tensor. */
    CHECK_STATUS(dnnl_graph_tensor_get_data_handle((const_dnnl_graph_tensor_t)e, &h),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_destroy((dnnl_graph_tensor_t)e), dnnl_invalid_arguments);
    CHECK(dnnl_graph_tensor_destroy(t));
    CHECK_STATUS(dnnl_graph_tensor_destroy(t), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_get_data_handle(t, &h), dnnl_invalid_arguments);
    CHECK(dnnl_graph_tensor_destroy(NULL)); /* as upstream */
    CHECK(dnnl_engine_destroy(e));
    printf("tensor create/get/set/destroy and their errors: ok\n");
}

static void scalar_tensors(void) {
    dnnl_graph_logical_tensor_t lt = lt_strided(9, dnnl_f32, 0, NULL);
    float value = 1.5f;
    dnnl_graph_tensor_t s = NULL;
    /* The logical tensor must say host_scalar. */
    CHECK_STATUS(dnnl_graph_tensor_create_scalar(&s, &lt, &value), dnnl_invalid_arguments);
    lt.property = dnnl_graph_tensor_property_host_scalar;
    CHECK_STATUS(dnnl_graph_tensor_create_scalar(NULL, &lt, &value), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_create_scalar(&s, NULL, &value), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_tensor_create_scalar(&s, &lt, NULL), dnnl_invalid_arguments);
    EXPECT(s == NULL);
    CHECK(dnnl_graph_tensor_create_scalar(&s, &lt, &value));
    /* The value is copied: the caller's variable may change or go. */
    value = 9.0f;
    void *h = NULL;
    CHECK(dnnl_graph_tensor_get_data_handle(s, &h));
    EXPECT(h != NULL && h != &value && *(const float *)h == 1.5f);
    float next = 2.5f;
    CHECK(dnnl_graph_tensor_set_data_handle(s, &next));
    CHECK(dnnl_graph_tensor_get_data_handle(s, &h));
    EXPECT(*(const float *)h == 2.5f);
    CHECK_STATUS(dnnl_graph_tensor_set_data_handle(s, NULL), dnnl_invalid_arguments);
    /* No engine: the value lives on the host. */
    dnnl_engine_t got = (dnnl_engine_t)&next;
    CHECK(dnnl_graph_tensor_get_engine(s, &got));
    EXPECT(got == NULL);
    dnnl_graph_logical_tensor_t back;
    CHECK(dnnl_graph_tensor_get_logical_tensor(s, &back));
    EXPECT(back.id == 9 && back.ndims == 0
            && back.property == dnnl_graph_tensor_property_host_scalar);
    CHECK(dnnl_graph_tensor_destroy(s));
    printf("scalar tensors: ok\n");
}

/* Tensors of partition p over bufs[id], in port order. */
static void mlp_tensors(const mlp_t *m, size_t p, dnnl_engine_t e, float *const bufs[MLP_IDS],
        dnnl_graph_tensor_t *ins, dnnl_graph_tensor_t *outs) {
    dnnl_graph_logical_tensor_t lt;
    for (size_t i = 0; i < m->nin[p]; i++) {
        CHECK(dnnl_graph_compiled_partition_query_logical_tensor(
                m->cps[p], m->ins[p][i].id, &lt));
        CHECK(dnnl_graph_tensor_create(&ins[i], &lt, e, bufs[lt.id]));
    }
    for (size_t i = 0; i < m->nout[p]; i++) {
        CHECK(dnnl_graph_compiled_partition_query_logical_tensor(
                m->cps[p], m->outs[p][i].id, &lt));
        CHECK(dnnl_graph_tensor_create(&outs[i], &lt, e, bufs[lt.id]));
    }
}

static void mlp_on_counting_allocator(void) {
    int before = count_allocs();
    dnnl_graph_allocator_t a = NULL;
    dnnl_engine_t e = NULL;
    dnnl_stream_t s = NULL;
    CHECK(dnnl_graph_allocator_create(&a, count_host_malloc, count_host_free));
    CHECK(dnnl_graph_make_engine_with_allocator(&e, dnnl_cpu, 0, a));
    CHECK(dnnl_graph_allocator_destroy(a));
    CHECK(dnnl_stream_create(&s, e, dnnl_stream_default_flags));
    mlp_t m;
    mlp_build(&m, dnnl_cpu);
    mlp_compile(&m, e);
    float *bufs[MLP_IDS];
    for (int i = 0; i < MLP_IDS; i++)
        bufs[i] = (float *)malloc(mlp_size(&m, i));
    mlp_fill(bufs);
    static double ref[MLP_M * MLP_N];
    mlp_reference(bufs, ref);
    for (int iter = 0; iter < 3; iter++) {
        memset(bufs[10], 0xff, mlp_size(&m, 10));
        for (size_t p = 0; p < m.nparts; p++) {
            dnnl_graph_tensor_t ins[4], outs[2];
            mlp_tensors(&m, p, e, bufs, ins, outs);
            CHECK(dnnl_graph_compiled_partition_execute(m.cps[p], s, m.nin[p],
                    (const_dnnl_graph_tensor_t *)ins, m.nout[p],
                    (const_dnnl_graph_tensor_t *)outs));
            for (size_t i = 0; i < m.nin[p]; i++)
                CHECK(dnnl_graph_tensor_destroy(ins[i]));
            for (size_t i = 0; i < m.nout[p]; i++)
                CHECK(dnnl_graph_tensor_destroy(outs[i]));
        }
        CHECK(dnnl_stream_wait(s));
        double worst = mlp_error(bufs[10], ref);
        printf("MLP on the CPU engine, run %d (%zu partitions): max |dst - ref| = %.3g, "
               "%d allocations so far\n",
                iter, m.nparts, worst, count_allocs() - before);
        EXPECT(worst < 1e-4);
    }
    mlp_destroy(&m);
    CHECK(dnnl_stream_destroy(s));
    CHECK(dnnl_engine_destroy(e));
    CHECK(dnnl_graph_set_compiled_partition_cache_capacity(0));
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_cpu, 0));
    for (int i = 0; i < MLP_IDS; i++)
        free(bufs[i]);
    EXPECT(count_allocs() > before);
    count_check_balanced(0);
    count_report("host counting allocator after the MLP");
}

int main(void) {
    allocator_errors();
    allocate_through_user_allocator();
    tensor_functions();
    scalar_tensors();
    mlp_on_counting_allocator();
    printf("graph_allocator: ok\n");
    return 0;
}
