/* Ours only (upstream frees or keeps the object and trusts the caller): a handle the
 * caller destroyed is dead at its destroy, even while other objects keep the object
 * behind it alive, for every kind of handle; what queries hand out stays usable while
 * the object lives, whatever became of the caller's own handle of it.
 *
 *   handle_lifetime cpu   on the CPU engine
 *   handle_lifetime gpu   on the first OpenCL engine (skipped without a device)
 *
 * Cases (each a status a C caller sees):
 *   - an engine destroyed while a stream, a memory, a primitive descriptor and a
 *     primitive hold it: every use of its handle (kind query, stream, memory, primitive
 *     descriptor and reorder creation, interop getters, a second destroy) is
 *     dnnl_invalid_arguments; the engine handles from dnnl_stream_get_engine,
 *     dnnl_memory_get_engine and dnnl_query_engine are the caller's own handle while it
 *     lives (the same pointer, as upstream) and die with it; taken after the destroy
 *     they are a new handle that works (a memory made on it, the primitive run and its
 *     result checked), cannot be destroyed, and dies with the last holder;
 *   - a memory descriptor destroyed while a memory holds it, a primitive descriptor
 *     while its primitive holds it, attributes while a primitive descriptor holds them
 *     (their post-ops handle dies with them), post-ops appended to attributes;
 *   - graph: an op added to a graph, a graph whose partitions live, a partition held by
 *     its compiled partition (all partition queries refused, the compiled partition
 *     still runs), a tensor, an allocator held by an engine. */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "oneapi/dnnl/dnnl_graph.h"
#include "oneapi/dnnl/dnnl_ocl.h"

enum { N = 8 };
static const dnnl_status_t IA = dnnl_invalid_arguments;

static dnnl_engine_kind_t kind_of(dnnl_engine_t e) {
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(e, &kind));
    return kind;
}

static dnnl_memory_desc_t md_n(void) {
    dnnl_memory_desc_t md = NULL;
    const dnnl_dim_t dims[] = {N};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    return md;
}

static void write_values(dnnl_memory_t m, float first) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = first + (float)i;
    CHECK(dnnl_memory_unmap_data(m, p));
}

/* Runs the ReLU primitive `prim` from `src` into `dst` and checks dst. */
static void run_relu(dnnl_primitive_t prim, dnnl_stream_t stream, dnnl_memory_t src,
        dnnl_memory_t dst) {
    write_values(src, -3.0f);
    write_values(dst, 100.0f);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    CHECK(dnnl_primitive_execute(prim, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    float *p = NULL;
    CHECK(dnnl_memory_map_data(dst, (void **)&p));
    for (int i = 0; i < N; i++) {
        float want = -3.0f + (float)i > 0 ? -3.0f + (float)i : 0.0f;
        EXPECT(p[i] == want);
    }
    CHECK(dnnl_memory_unmap_data(dst, p));
}

static dnnl_primitive_desc_t relu_pd(dnnl_engine_t engine, const_dnnl_memory_desc_t md,
        dnnl_status_t expected) {
    dnnl_primitive_desc_t pd = NULL;
    CHECK_STATUS(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                         dnnl_eltwise_relu, md, md, 0.0f, 0.0f, NULL),
            expected);
    return pd;
}

/* A query result works like the engine and cannot be destroyed. */
static void expect_usable_engine(dnnl_engine_t e, dnnl_engine_kind_t kind,
        const_dnnl_memory_desc_t md) {
    EXPECT(kind_of(e) == kind);
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_destroy(m));
    dnnl_primitive_desc_t pd = relu_pd(e, md, dnnl_success);
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK_STATUS(dnnl_engine_destroy(e), IA);
}

static void engine_outlived_by_its_users(dnnl_engine_kind_t ekind) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, ekind, 0));
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_memory_desc_t md = md_n();
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_memory_create(&src, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dst, md, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t pd = relu_pd(engine, md, dnnl_success);
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));

    dnnl_engine_t from_stream = NULL, from_memory = NULL, from_pd = NULL;
    CHECK(dnnl_stream_get_engine(stream, &from_stream));
    CHECK(dnnl_memory_get_engine(src, &from_memory));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &from_pd));
    /* While the caller's handle lives, queries return it, as upstream's pointer. */
    EXPECT(from_stream == engine && from_memory == engine && from_pd == engine);

    CHECK(dnnl_engine_destroy(engine));

    /* The caller's handle is dead. */
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK_STATUS(dnnl_engine_get_kind(engine, &kind), IA);
    dnnl_stream_t s2 = NULL;
    CHECK_STATUS(dnnl_stream_create(&s2, engine, dnnl_stream_default_flags), IA);
    EXPECT(s2 == NULL);
    dnnl_memory_t m2 = NULL;
    CHECK_STATUS(dnnl_memory_create(&m2, md, engine, DNNL_MEMORY_ALLOCATE), IA);
    EXPECT(m2 == NULL);
    EXPECT(relu_pd(engine, md, IA) == NULL);
    dnnl_primitive_desc_t rpd = NULL;
    cl_context ctx = NULL;
    CHECK_STATUS(dnnl_ocl_interop_engine_get_context(engine, &ctx), IA);
    CHECK_STATUS(dnnl_engine_destroy(engine), IA);

    /* What the queries hand out after the destroy is a new handle, and works. */
    dnnl_engine_t after = NULL, all[3] = {NULL, NULL, NULL};
    CHECK(dnnl_stream_get_engine(stream, &all[0]));
    CHECK(dnnl_memory_get_engine(src, &all[1]));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &all[2]));
    after = all[0];
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&rpd, md, engine, md, after, NULL), IA);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&rpd, md, after, md, engine, NULL), IA);
    EXPECT(rpd == NULL);
    for (int i = 0; i < 3; i++) {
        EXPECT(all[i] != engine && all[i] == after);
        expect_usable_engine(all[i], ekind, md);
    }
    if (ekind == dnnl_gpu) {
        CHECK(dnnl_ocl_interop_engine_get_context(after, &ctx));
        EXPECT(ctx != NULL);
    }
    run_relu(prim, stream, src, dst);

    /* The engine dies with its last holder, and so do the query results. */
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    EXPECT(kind_of(after) == ekind);
    CHECK(dnnl_stream_destroy(stream));
    CHECK_STATUS(dnnl_engine_get_kind(after, &kind), IA);
    CHECK(dnnl_memory_desc_destroy(md));
    printf("engine destroyed while used: ok\n");
}

static void descriptors_and_attributes(dnnl_engine_kind_t ekind) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, ekind, 0));
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    /* A memory descriptor destroyed while a memory holds it. */
    dnnl_memory_desc_t md = md_n();
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_memory_create(&src, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dst, md, engine, DNNL_MEMORY_ALLOCATE));
    const_dnnl_memory_desc_t before = NULL;
    CHECK(dnnl_memory_get_memory_desc(src, &before));
    CHECK(dnnl_memory_desc_destroy(md));
    int ndims = 0;
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims), IA);
    dnnl_memory_desc_t clone = NULL;
    CHECK_STATUS(dnnl_memory_desc_clone(&clone, md), IA);
    CHECK_STATUS(dnnl_memory_desc_destroy(md), IA);
    const_dnnl_memory_desc_t got = NULL;
    CHECK(dnnl_memory_get_memory_desc(src, &got));
    EXPECT(got == before);
    CHECK(dnnl_memory_desc_query(got, dnnl_query_ndims_s32, &ndims));
    EXPECT(ndims == 1);
    CHECK_STATUS(dnnl_memory_desc_destroy((dnnl_memory_desc_t)got), IA);

    /* Attributes destroyed while a primitive descriptor holds them; their
     * post-ops handle dies with them. */
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 1.0f, 0.0f));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_post_ops_destroy(po));
    CHECK_STATUS(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.0f, 0.0f), IA);
    CHECK_STATUS(dnnl_post_ops_destroy(po), IA);
    const_dnnl_post_ops_t view = NULL;
    CHECK(dnnl_primitive_attr_get_post_ops(attr, &view));
    EXPECT(dnnl_post_ops_len(view) == 1);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_relu, got, got, 0.0f, 0.0f, attr));
    CHECK(dnnl_primitive_attr_destroy(attr));
    dnnl_scratchpad_mode_t mode;
    CHECK_STATUS(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode), IA);
    CHECK_STATUS(dnnl_primitive_attr_destroy(attr), IA);
    EXPECT(dnnl_post_ops_len(view) == 0); /* 0 is what a dead handle gets */
    CHECK_STATUS(dnnl_post_ops_append_eltwise((dnnl_post_ops_t)view, dnnl_eltwise_relu, 0, 0), IA);
    const_dnnl_primitive_attr_t pd_attr = NULL;
    CHECK(dnnl_primitive_desc_get_attr(pd, &pd_attr));
    CHECK(dnnl_primitive_attr_get_scratchpad_mode(pd_attr, &mode));

    /* A primitive descriptor destroyed while its primitive holds it. */
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    dnnl_engine_t e = NULL;
    CHECK_STATUS(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &e), IA);
    EXPECT(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0) == NULL);
    dnnl_primitive_t p2 = NULL;
    CHECK_STATUS(dnnl_primitive_create(&p2, pd), IA);
    dnnl_primitive_desc_t pd2 = NULL;
    CHECK_STATUS(dnnl_primitive_desc_clone(&pd2, pd), IA);
    CHECK_STATUS(dnnl_primitive_desc_destroy(pd), IA);
    const_dnnl_primitive_desc_t from_prim = NULL;
    CHECK(dnnl_primitive_get_primitive_desc(prim, &from_prim));
    EXPECT(from_prim != pd);
    CHECK(dnnl_primitive_desc_query(from_prim, dnnl_query_engine, 0, &e));
    EXPECT(kind_of(e) == ekind);
    CHECK_STATUS(dnnl_primitive_desc_destroy((dnnl_primitive_desc_t)from_prim), IA);
    run_relu(prim, stream, src, dst);

    /* A destroyed primitive, memory and stream. */
    CHECK(dnnl_primitive_destroy(prim));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    CHECK_STATUS(dnnl_primitive_execute(prim, stream, 2, args), IA);
    CHECK_STATUS(dnnl_primitive_destroy(prim), IA);
    CHECK(dnnl_memory_destroy(dst));
    args[1].memory = dst;
    void *h = NULL;
    CHECK_STATUS(dnnl_memory_get_data_handle(dst, &h), IA);
    CHECK_STATUS(dnnl_memory_destroy(dst), IA);
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_stream_destroy(stream));
    CHECK_STATUS(dnnl_stream_wait(stream), IA);
    CHECK_STATUS(dnnl_stream_destroy(stream), IA);
    CHECK(dnnl_engine_destroy(engine));
    printf("descriptors, attributes, primitives: ok\n");
}

static void graph_handles(dnnl_engine_kind_t ekind) {
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, ekind, 0));
    const int64_t dims[] = {N};
    dnnl_graph_logical_tensor_t in, out;
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&in, 1, dnnl_f32, 1, dims,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&out, 2, dnnl_f32, 1, dims,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));

    /* An op added to a graph, then destroyed. */
    dnnl_graph_op_t op = NULL;
    CHECK(dnnl_graph_op_create(&op, 7, dnnl_graph_op_relu, "relu"));
    CHECK(dnnl_graph_op_add_input(op, &in));
    CHECK(dnnl_graph_op_add_output(op, &out));
    dnnl_graph_graph_t g = NULL;
    CHECK(dnnl_graph_graph_create(&g, ekind));
    CHECK(dnnl_graph_add_op(g, op));
    CHECK(dnnl_graph_op_destroy(op));
    size_t id = 0;
    CHECK_STATUS(dnnl_graph_op_get_id(op, &id), IA);
    CHECK_STATUS(dnnl_graph_op_add_output(op, &in), IA);
    CHECK_STATUS(dnnl_graph_op_destroy(op), IA);

    /* A graph destroyed while its partitions live. */
    CHECK(dnnl_graph_graph_finalize(g));
    dnnl_graph_partition_t part = NULL;
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
    size_t nparts = 0;
    CHECK(dnnl_graph_graph_get_partition_num(g, &nparts));
    EXPECT(nparts == 1);
    CHECK(dnnl_graph_graph_get_partitions(g, 1, &part));
    CHECK(dnnl_graph_graph_destroy(g));
    CHECK_STATUS(dnnl_graph_graph_get_partition_num(g, &nparts), IA);
    CHECK_STATUS(dnnl_graph_graph_destroy(g), IA);

    /* A partition destroyed while its compiled partition holds it. */
    dnnl_graph_compiled_partition_t cp = NULL;
    CHECK(dnnl_graph_compiled_partition_create(&cp, part));
    const dnnl_graph_logical_tensor_t *pin[] = {&in}, *pout[] = {&out};
    CHECK(dnnl_graph_partition_compile(part, cp, 1, pin, 1, pout, engine));
    CHECK(dnnl_graph_partition_destroy(part));
    size_t num = 0;
    uint8_t sup = 0;
    dnnl_engine_kind_t pk;
    CHECK_STATUS(dnnl_graph_partition_get_op_num(part, &num), IA);
    CHECK_STATUS(dnnl_graph_partition_get_id(part, &id), IA);
    CHECK_STATUS(dnnl_graph_partition_is_supported(part, &sup), IA);
    CHECK_STATUS(dnnl_graph_partition_get_engine_kind(part, &pk), IA);
    CHECK_STATUS(dnnl_graph_partition_get_input_ports_num(part, &num), IA);
    CHECK_STATUS(dnnl_graph_partition_get_output_ports_num(part, &num), IA);
    dnnl_graph_compiled_partition_t cp2 = NULL;
    CHECK_STATUS(dnnl_graph_compiled_partition_create(&cp2, part), IA);
    CHECK_STATUS(dnnl_graph_partition_compile(part, cp, 1, pin, 1, pout, engine), IA);
    CHECK_STATUS(dnnl_graph_partition_destroy(part), IA);

    /* The compiled partition still runs (host data: CPU engine only). */
    dnnl_graph_logical_tensor_t resolved;
    CHECK(dnnl_graph_compiled_partition_query_logical_tensor(cp, 2, &resolved));
    if (ekind == dnnl_cpu) {
        float a[N], b[N];
        for (int i = 0; i < N; i++) {
            a[i] = (float)i - 3.0f;
            b[i] = 100.0f;
        }
        dnnl_graph_tensor_t ta = NULL, tb = NULL;
        CHECK(dnnl_graph_tensor_create(&ta, &in, engine, a));
        CHECK(dnnl_graph_tensor_create(&tb, &resolved, engine, b));
        dnnl_stream_t stream = NULL;
        CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
        const_dnnl_graph_tensor_t tin[] = {ta}, tout[] = {tb};
        CHECK(dnnl_graph_compiled_partition_execute(cp, stream, 1, tin, 1, tout));
        CHECK(dnnl_stream_wait(stream));
        for (int i = 0; i < N; i++)
            EXPECT(b[i] == (a[i] > 0 ? a[i] : 0.0f));
        CHECK(dnnl_graph_tensor_destroy(ta));
        void *h = NULL;
        CHECK_STATUS(dnnl_graph_tensor_get_data_handle(ta, &h), IA);
        CHECK_STATUS(dnnl_graph_tensor_destroy(ta), IA);
        CHECK_STATUS(dnnl_graph_compiled_partition_execute(cp, stream, 1, tin, 1, tout), IA);
        CHECK(dnnl_graph_tensor_destroy(tb));
        CHECK(dnnl_stream_destroy(stream));
    }
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK_STATUS(dnnl_graph_compiled_partition_query_logical_tensor(cp, 2, &resolved), IA);
    CHECK_STATUS(dnnl_graph_compiled_partition_destroy(cp), IA);

    /* An allocator destroyed while an engine holds it. */
    if (ekind == dnnl_cpu) {
        dnnl_graph_allocator_t a = NULL;
        CHECK(dnnl_graph_allocator_create(&a, NULL, NULL));
        dnnl_engine_t ge = NULL;
        CHECK(dnnl_graph_make_engine_with_allocator(&ge, dnnl_cpu, 0, a));
        CHECK(dnnl_graph_allocator_destroy(a));
        dnnl_engine_t ge2 = NULL;
        CHECK_STATUS(dnnl_graph_make_engine_with_allocator(&ge2, dnnl_cpu, 0, a), IA);
        CHECK_STATUS(dnnl_graph_allocator_destroy(a), IA);
        CHECK(dnnl_engine_destroy(ge));
    }
    CHECK(dnnl_engine_destroy(engine));
    printf("graph handles: ok\n");
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    dnnl_engine_kind_t ekind = on_gpu ? dnnl_gpu : dnnl_cpu;
    engine_outlived_by_its_users(ekind);
    descriptors_and_attributes(ekind);
    graph_handles(ekind);
    printf("handle lifetime (%s): ok\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
