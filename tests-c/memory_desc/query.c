/* dnnl_memory_desc_query / _query_v2: every memory descriptor query, with the
 * output type upstream documents, and the queries that do not apply. */
#include "md_check.h"

static void blocked_queries(void) {
    dnnl_dims_t dims = {2, 17, 3, 5};
    dnnl_memory_desc_t md = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_bf16, dnnl_nChw8c));

    int32_t ndims = -1, nblks = -1, nhandles = -1;
    int64_t offset = -1;
    dnnl_data_type_t dt = dnnl_data_type_undef;
    dnnl_format_kind_t kind = dnnl_format_kind_undef;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &offset));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
    EXPECT(ndims == 4 && dt == dnnl_bf16 && kind == dnnl_blocked && offset == 0 && nblks == 1);

    /* Array queries give a pointer into the descriptor: the same each time. */
    const dnnl_dims_t *d1 = NULL, *d2 = NULL;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_dims, &d1));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_dims, &d2));
    EXPECT(d1 == d2 && same_dims(*d1, dims, 4));
    EXPECT(same_dims(md_array(md, dnnl_query_padded_dims), (dnnl_dims_t) {2, 24, 3, 5}, 4));
    EXPECT(same_dims(md_array(md, dnnl_query_padded_offsets), (dnnl_dims_t) {0, 0, 0, 0}, 4));
    EXPECT(same_dims(md_array(md, dnnl_query_strides), (dnnl_dims_t) {360, 120, 40, 8}, 4));
    EXPECT(md_array(md, dnnl_query_inner_blks)[0] == 8);
    EXPECT(md_array(md, dnnl_query_inner_idxs)[0] == 1);

    /* v2: the same answers, plus the number of buffers. */
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_ndims_s32, 0, &ndims));
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_num_handles_s32, 0, &nhandles));
    EXPECT(ndims == 4 && nhandles == 1);
    CHECK(dnnl_memory_desc_query_v2(md, dnnl_query_data_type, 0, &dt));
    EXPECT(dt == dnnl_bf16);
    /* Only a sparse descriptor has buffers to choose between. */
    CHECK_STATUS(dnnl_memory_desc_query_v2(md, dnnl_query_data_type, 1, &dt),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_query_v2(md, dnnl_query_ndims_s32, 1, &ndims),
            dnnl_invalid_arguments);
    /* Sparse queries of a dense descriptor. */
    dnnl_sparse_encoding_t encoding;
    int64_t nnz;
    CHECK_STATUS(dnnl_memory_desc_query_v2(md, dnnl_query_sparse_encoding, 0, &encoding),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_query_v2(md, dnnl_query_nnz_s64, 0, &nnz),
            dnnl_invalid_arguments);
    /* v1 does not know the v2 queries; neither knows non-memory queries. */
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_num_handles_s32, &nhandles),
            dnnl_unimplemented);
    void *engine = NULL;
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_engine, &engine), dnnl_unimplemented);
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_undef, &engine), dnnl_unimplemented);
    CHECK_STATUS(dnnl_memory_desc_query_v2(md, dnnl_query_src_md, 0, &engine), dnnl_unimplemented);
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_destroy(md));
}

static void layout_queries_need_blocked(void) {
    dnnl_dims_t dims = {2, 3};
    dnnl_memory_desc_t any = NULL, zero = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&any, 2, dims, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    const dnnl_dims_t *array = NULL;
    int32_t nblks = -1;
    const dnnl_query_t blocked_only[] = {dnnl_query_strides, dnnl_query_inner_blks, dnnl_query_inner_idxs};
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(dnnl_memory_desc_query(any, blocked_only[i], &array), dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_memory_desc_query(zero, blocked_only[i], &array), dnnl_invalid_arguments);
    }
    CHECK_STATUS(dnnl_memory_desc_query(any, dnnl_query_inner_nblks_s32, &nblks), dnnl_invalid_arguments);
    /* The rest applies to every descriptor. */
    EXPECT(same_dims(md_array(any, dnnl_query_dims), dims, 2));
    int32_t ndims = -1, nhandles = -1;
    CHECK(dnnl_memory_desc_query(zero, dnnl_query_ndims_s32, &ndims));
    CHECK(dnnl_memory_desc_query_v2(zero, dnnl_query_num_handles_s32, 0, &nhandles));
    EXPECT(ndims == 0 && nhandles == 1);
    dnnl_data_type_t dt = dnnl_f32;
    CHECK(dnnl_memory_desc_query(zero, dnnl_query_data_type, &dt));
    EXPECT(dt == dnnl_data_type_undef);
    CHECK(dnnl_memory_desc_destroy(any));
    CHECK(dnnl_memory_desc_destroy(zero));
}

static void sparse_queries(void) {
    dnnl_dims_t dims = {5, 7};
    dnnl_memory_desc_t csr = NULL, coo = NULL, packed = NULL;
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&csr, 2, dims, dnnl_f32, 9, dnnl_s32, dnnl_s64));
    CHECK(dnnl_memory_desc_create_with_coo_encoding(&coo, 2, dims, dnnl_f16, 9, dnnl_s32));
    CHECK(dnnl_memory_desc_create_with_packed_encoding(&packed, 2, dims, dnnl_s8, 9));

    dnnl_sparse_encoding_t encoding = dnnl_sparse_encoding_undef;
    int64_t nnz = -1;
    int32_t nhandles = -1;
    dnnl_format_kind_t kind = dnnl_format_kind_undef;
    CHECK(dnnl_memory_desc_query(csr, dnnl_query_format_kind, &kind));
    EXPECT(kind == dnnl_format_kind_sparse);
    CHECK(dnnl_memory_desc_query_v2(csr, dnnl_query_sparse_encoding, 0, &encoding));
    CHECK(dnnl_memory_desc_query_v2(csr, dnnl_query_nnz_s64, 0, &nnz));
    CHECK(dnnl_memory_desc_query_v2(csr, dnnl_query_num_handles_s32, 0, &nhandles));
    EXPECT(encoding == dnnl_csr && nnz == 9 && nhandles == 3);
    /* Buffer data types: values, indices, pointers. */
    dnnl_data_type_t dt[3];
    for (int i = 0; i < 3; i++) CHECK(dnnl_memory_desc_query_v2(csr, dnnl_query_data_type, i, &dt[i]));
    EXPECT(dt[0] == dnnl_f32 && dt[1] == dnnl_s32 && dt[2] == dnnl_s64);
    CHECK_STATUS(dnnl_memory_desc_query_v2(csr, dnnl_query_nnz_s64, 1, &nnz), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_desc_query(csr, dnnl_query_sparse_encoding, &encoding), dnnl_unimplemented);
    const dnnl_dims_t *strides = NULL;
    CHECK_STATUS(dnnl_memory_desc_query(csr, dnnl_query_strides, &strides), dnnl_invalid_arguments);

    CHECK(dnnl_memory_desc_query_v2(coo, dnnl_query_sparse_encoding, 0, &encoding));
    CHECK(dnnl_memory_desc_query_v2(coo, dnnl_query_num_handles_s32, 0, &nhandles));
    EXPECT(encoding == dnnl_coo && nhandles == 3);
    for (int i = 0; i < 3; i++) CHECK(dnnl_memory_desc_query_v2(coo, dnnl_query_data_type, i, &dt[i]));
    EXPECT(dt[0] == dnnl_f16 && dt[1] == dnnl_s32 && dt[2] == dnnl_s32);

    CHECK(dnnl_memory_desc_query_v2(packed, dnnl_query_sparse_encoding, 0, &encoding));
    CHECK(dnnl_memory_desc_query_v2(packed, dnnl_query_nnz_s64, 0, &nnz));
    EXPECT(encoding == dnnl_packed && nnz == 9);
    CHECK(dnnl_memory_desc_destroy(csr));
    CHECK(dnnl_memory_desc_destroy(coo));
    CHECK(dnnl_memory_desc_destroy(packed));
}

int main(void) {
    blocked_queries();
    layout_queries_need_blocked();
    sparse_queries();
    printf("memory descriptor queries ok\n");
    return 0;
}
