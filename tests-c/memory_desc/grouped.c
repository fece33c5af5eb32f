/* The experimental grouped memory API (DNNL_EXPERIMENTAL_GROUPED_MEMORY; this test is
 * compiled with the switch at 1): dnnl_memory_desc_create_with_grouped_encoding, the
 * descriptors it makes through the queries, sizes, equality and blobs, memory of
 * them (two buffers: values, then s32 offsets), and primitives refusing them.
 *
 * Upstream v3.13: the header declares the function (offsets: "only s32 ... currently
 * supported") and the docs (doc/advanced/grouped.md) give the layout: buffer 0 the
 * concatenated values, buffer 1 `group_count` cumulative s32 ends of the groups along
 * the variable dimension, whose entry in dims is the total. Upstream's library that
 * the reference run loads (PyPI onednn 2026.1.0) is built without the switch and does
 * not export the function: the @ref run says so and skips. What is checked here is
 * therefore our reading of the header and docs: format kind sparse, encoding
 * dnnl_grouped, 2 handles, data type s32 for buffer 1, sizes values * element size and
 * group_count * 4; invalid_arguments for a variable dimension outside the dims or no
 * group, unimplemented for offsets that are not s32 (what the header says), and
 * unimplemented from primitives that take no grouped input: what upstream's library
 * answers for the other sparse encodings where no implementation takes them (its
 * reorder, concat and sum with CSR). */
#include <dlfcn.h>
#include <string.h>

#include "md_check.h"

typedef dnnl_status_t (*create_grouped_fn)(dnnl_memory_desc_t *, int, const dnnl_dim_t *,
        dnnl_data_type_t, int, dnnl_dim_t, dnnl_data_type_t);
static create_grouped_fn create_grouped;
/* The header declares it with that type (checked without referencing the symbol). */
_Static_assert(__builtin_types_compatible_p(
                       __typeof__(&dnnl_memory_desc_create_with_grouped_encoding),
                       create_grouped_fn),
        "dnnl_memory_desc_create_with_grouped_encoding's prototype");

static int32_t q_s32(const_dnnl_memory_desc_t md, dnnl_query_t what) {
    int32_t v = -1;
    CHECK(dnnl_memory_desc_query_v2(md, what, 0, &v));
    return v;
}

static void descriptor(void) {
    /* 3 groups of 1, 3 and 5 rows of 16 f32: dims {9, 16}, offsets {1, 4, 9}. */
    dnnl_dims_t dims = {9, 16};
    dnnl_memory_desc_t md = NULL;
    CHECK(create_grouped(&md, 2, dims, dnnl_f32, 0, 3, dnnl_s32));
    EXPECT(md_ndims(md) == 2);
    EXPECT(same_dims(md_array(md, dnnl_query_dims), dims, 2));
    dnnl_format_kind_t kind = dnnl_format_kind_undef;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind));
    EXPECT(kind == dnnl_format_kind_sparse);
    dnnl_sparse_encoding_t encoding = dnnl_sparse_encoding_undef;
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_sparse_encoding, 0, &encoding));
    EXPECT(encoding == dnnl_grouped);
    EXPECT(q_s32(md, dnnl_query_num_handles_s32) == 2);
    dnnl_dim_t nnz = 0;
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_nnz_s64, 0, &nnz));
    EXPECT(nnz == 9 * 16);
    dnnl_data_type_t dt = dnnl_data_type_undef;
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_data_type, 0, &dt));
    EXPECT(dt == dnnl_f32);
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_data_type, 1, &dt));
    EXPECT(dt == dnnl_s32);
    EXPECT(dnnl_memory_desc_get_size(md) == 9 * 16 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 0) == 9 * 16 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 1) == 3 * 4);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 2) == 0);
    /* Not a blocked descriptor: no strides. */
    const dnnl_dims_t *strides = NULL;
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_strides, &strides),
            dnnl_invalid_arguments);

    /* Equality: the grouping counts. */
    dnnl_memory_desc_t same = NULL, other_groups = NULL, other_dim = NULL;
    CHECK(create_grouped(&same, 2, dims, dnnl_f32, 0, 3, dnnl_s32));
    CHECK(create_grouped(&other_groups, 2, dims, dnnl_f32, 0, 4, dnnl_s32));
    CHECK(create_grouped(&other_dim, 2, dims, dnnl_f32, 1, 3, dnnl_s32));
    EXPECT(dnnl_memory_desc_equal(md, same) == 1);
    EXPECT(dnnl_memory_desc_equal(md, other_groups) == 0);
    EXPECT(dnnl_memory_desc_equal(md, other_dim) == 0);
    EXPECT(dnnl_memory_desc_get_size_v2(other_groups, 1) == 4 * 4);

    /* Blob round trip (ours only: upstream's blob is its struct). */
    if (library_is_ours()) {
        size_t n = 0;
        CHECK(dnnl_memory_desc_get_blob(NULL, &n, md));
        uint8_t *blob = malloc(n);
        EXPECT(blob != NULL);
        CHECK(dnnl_memory_desc_get_blob(blob, &n, md));
        dnnl_memory_desc_t back = NULL;
        CHECK(dnnl_memory_desc_create_with_blob(&back, blob));
        EXPECT(dnnl_memory_desc_equal(md, back) == 1);
        CHECK(dnnl_memory_desc_destroy(back));
        free(blob);
    }
    CHECK(dnnl_memory_desc_destroy(same));
    CHECK(dnnl_memory_desc_destroy(other_groups));
    CHECK(dnnl_memory_desc_destroy(other_dim));
    CHECK(dnnl_memory_desc_destroy(md));

    /* An empty total still has its offsets; a run-time total has a run-time size. */
    CHECK(create_grouped(&md, 2, (dnnl_dims_t) {0, 16}, dnnl_bf16, 0, 2, dnnl_s32));
    EXPECT(dnnl_memory_desc_get_size_v2(md, 0) == 0);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 1) == 2 * 4);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(create_grouped(&md, 2, (dnnl_dims_t) {DNNL_RUNTIME_DIM_VAL, 16}, dnnl_f32, 0, 2,
            dnnl_s32));
    EXPECT(dnnl_memory_desc_get_size_v2(md, 0) == DNNL_RUNTIME_SIZE_VAL);
    EXPECT(dnnl_memory_desc_get_size_v2(md, 1) == 2 * 4);
    CHECK(dnnl_memory_desc_destroy(md));
    printf("grouped descriptor: queries, sizes, equality ok\n");
}

static void refusals(void) {
    dnnl_dims_t dims = {9, 16};
    dnnl_memory_desc_t md = NULL;
    CHECK_STATUS(create_grouped(NULL, 2, dims, dnnl_f32, 0, 3, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(create_grouped(&md, 2, dims, dnnl_f32, -1, 3, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(create_grouped(&md, 2, dims, dnnl_f32, 2, 3, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(create_grouped(&md, 2, dims, dnnl_f32, 0, 0, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(create_grouped(&md, 2, dims, dnnl_f32, 0, -2, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(create_grouped(&md, 2, (dnnl_dims_t) {9, -16}, dnnl_f32, 0, 3, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(create_grouped(&md, 2, dims, dnnl_data_type_undef, 0, 3, dnnl_s32),
            dnnl_invalid_arguments);
    CHECK_STATUS(create_grouped(&md, 13, dims, dnnl_f32, 0, 3, dnnl_s32),
            dnnl_invalid_arguments);
    /* Offsets other than s32: not supported (the header's note). */
    CHECK_STATUS(create_grouped(&md, 2, dims, dnnl_f32, 0, 3, dnnl_s64), dnnl_unimplemented);
    CHECK_STATUS(create_grouped(&md, 2, dims, dnnl_f32, 0, 3, dnnl_s8), dnnl_unimplemented);
    /* No dims: the zero descriptor, as every constructor. */
    CHECK(create_grouped(&md, 0, NULL, dnnl_f32, 0, 3, dnnl_s32));
    EXPECT(md_ndims(md) == 0);
    CHECK(dnnl_memory_desc_destroy(md));
    printf("grouped descriptor: refusals ok\n");
}

/* Memory of a grouped descriptor: the user's two buffers (host memory on the CPU
 * engine; on a GPU engine the CPU-engine half only, user pointers being USM there), and
 * two the library allocates. */
static void memory(dnnl_engine_t engine) {
    dnnl_dims_t dims = {9, 4};
    dnnl_memory_desc_t md = NULL;
    CHECK(create_grouped(&md, 2, dims, dnnl_f32, 0, 3, dnnl_s32));
    float values[9 * 4];
    int32_t offsets[3] = {1, 4, 9};
    for (int i = 0; i < 9 * 4; i++)
        values[i] = (float)i;
    void *handles[2] = {values, offsets};
    dnnl_memory_t mem = NULL;
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine, &kind));
    if (kind == dnnl_cpu) {
    /* One handle for a descriptor of two is refused. */
    CHECK_STATUS(dnnl_memory_create_v2(&mem, md, engine, 1, handles), dnnl_invalid_arguments);
    CHECK(dnnl_memory_create_v2(&mem, md, engine, 2, handles));
    void *h = NULL;
    CHECK(dnnl_memory_get_data_handle_v2(mem, &h, 0));
    EXPECT(h == values);
    CHECK(dnnl_memory_get_data_handle_v2(mem, &h, 1));
    EXPECT(h == offsets);
    int32_t *mapped = NULL;
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&mapped, 1));
    EXPECT(mapped[0] == 1 && mapped[1] == 4 && mapped[2] == 9);
    CHECK(dnnl_memory_unmap_data_v2(mem, mapped, 1));
    const_dnnl_memory_desc_t got = NULL;
    CHECK(dnnl_memory_get_memory_desc(mem, &got));
    EXPECT(dnnl_memory_desc_equal(got, md) == 1);
    CHECK(dnnl_memory_destroy(mem));
    }

    void *allocate[2] = {DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE};
    CHECK(dnnl_memory_create_v2(&mem, md, engine, 2, allocate));
    float *v = NULL;
    int32_t *o = NULL;
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&v, 0));
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&o, 1));
    EXPECT(v != NULL && o != NULL && (void *)v != (void *)o);
    for (int i = 0; i < 9 * 4; i++)
        v[i] = -(float)i;
    for (int i = 0; i < 3; i++)
        o[i] = offsets[i];
    CHECK(dnnl_memory_unmap_data_v2(mem, v, 0));
    CHECK(dnnl_memory_unmap_data_v2(mem, o, 1));
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&v, 0));
    CHECK(dnnl_memory_map_data_v2(mem, (void **)&o, 1));
    EXPECT(v[35] == -35.f && o[2] == 9);
    CHECK(dnnl_memory_unmap_data_v2(mem, v, 0));
    CHECK(dnnl_memory_unmap_data_v2(mem, o, 1));
    CHECK(dnnl_memory_destroy(mem));
    CHECK(dnnl_memory_desc_destroy(md));
    printf("grouped memory: user and library buffers ok\n");
}

/* Primitives that take no grouped input refuse it with dnnl_unimplemented. */
static void primitives(dnnl_engine_t engine) {
    dnnl_dims_t dims = {9, 16}, wdims = {16, 8}, odims = {9, 8};
    dnnl_memory_desc_t g = NULL, dense = NULL, w = NULL, dst = NULL, gdst = NULL;
    CHECK(create_grouped(&g, 2, dims, dnnl_f32, 0, 3, dnnl_s32));
    CHECK(create_grouped(&gdst, 2, odims, dnnl_f32, 0, 3, dnnl_s32));
    CHECK(dnnl_memory_desc_create_with_tag(&dense, 2, dims, dnnl_f32, dnnl_ab));
    CHECK(dnnl_memory_desc_create_with_tag(&w, 2, wdims, dnnl_f32, dnnl_ab));
    CHECK(dnnl_memory_desc_create_with_tag(&dst, 2, odims, dnnl_f32, dnnl_ab));
    dnnl_primitive_desc_t pd = NULL;
    CHECK_STATUS(dnnl_eltwise_forward_primitive_desc_create(&pd, engine,
                         dnnl_forward_inference, dnnl_eltwise_relu, g, g, 0.f, 0.f, NULL),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, g, engine, dense, engine, NULL),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_reorder_primitive_desc_create(&pd, dense, engine, g, engine, NULL),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, g, w, NULL, gdst, NULL),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, g, w, NULL, dst, NULL),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, g, dense,
                         dense, NULL),
            dnnl_unimplemented);
    const_dnnl_memory_desc_t srcs[2] = {g, dense};
    CHECK_STATUS(dnnl_concat_primitive_desc_create(&pd, engine, NULL, 2, 0, srcs, NULL),
            dnnl_unimplemented);
    float scales[2] = {1.f, 1.f};
    CHECK_STATUS(dnnl_sum_primitive_desc_create(&pd, engine, dense, 2, scales, srcs, NULL),
            dnnl_unimplemented);
    CHECK(dnnl_memory_desc_destroy(g));
    CHECK(dnnl_memory_desc_destroy(gdst));
    CHECK(dnnl_memory_desc_destroy(dense));
    CHECK(dnnl_memory_desc_destroy(w));
    CHECK(dnnl_memory_desc_destroy(dst));
    printf("grouped descriptors refused by primitives ok\n");
}

int main(void) {
    /* Looked up, not linked: the reference run's library lacks it. */
    create_grouped = (create_grouped_fn)dlsym(
            RTLD_DEFAULT, "dnnl_memory_desc_create_with_grouped_encoding");
    if (!create_grouped) {
        EXPECT(!library_is_ours());
        SKIP("this libdnnl.so.3 is built without ONEDNN_EXPERIMENTAL_GROUPED_MEMORY "
             "(dnnl_memory_desc_create_with_grouped_encoding is not exported)");
    }
    descriptor();
    refusals();
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    memory(engine);
    primitives(engine);
    CHECK(dnnl_engine_destroy(engine));
    /* The same on a GPU engine where one is visible (the @pocl and @intel runs). */
    if (dnnl_engine_get_count(dnnl_gpu) > 0) {
        CHECK(dnnl_engine_create(&engine, dnnl_gpu, 0));
        memory(engine);
        primitives(engine);
        CHECK(dnnl_engine_destroy(engine));
    } else {
        printf("no GPU engine: CPU engine only\n");
    }
    printf("PASS\n");
    return 0;
}
