/* Helpers shared by the attribute tests (tests-c/attr/). */
#ifndef DNNL_TESTS_C_ATTR_CHECK_H
#define DNNL_TESTS_C_ATTR_CHECK_H

#include "check.h"

/* A 2D descriptor with a plain tag. */
static inline dnnl_memory_desc_t md2d(dnnl_dim_t d0, dnnl_dim_t d1, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {d0, d1};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dt, tag));
    return md;
}

/* The zero descriptor (no dimensions). */
static inline dnnl_memory_desc_t md_zero(void) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {0};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 0, dims, dnnl_data_type_undef, dnnl_format_tag_undef));
    return md;
}

static inline int md_ndims(const_dnnl_memory_desc_t md) {
    int ndims = -1;
    CHECK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims));
    return ndims;
}

static inline dnnl_primitive_attr_t new_attr(void) {
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    return attr;
}

static inline dnnl_post_ops_t new_post_ops(void) {
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    return po;
}

#endif /* DNNL_TESTS_C_ATTR_CHECK_H */
