/* Helpers of the graph C tests: logical tensors, ops, partitions, and
 * buffers that hold a tensor's data on the test's engine (host memory on
 * the CPU engine, library-allocated USM on an OpenCL engine, filled and read
 * through dnnl_memory_map_data). One translation unit per test. */
#ifndef DNNL_TESTS_C_GRAPH_UTIL_H
#define DNNL_TESTS_C_GRAPH_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include "oneapi/dnnl/dnnl_graph.h"
#include "oneapi/dnnl/dnnl_ocl.h"

static inline dnnl_graph_logical_tensor_t lt_dims(size_t id, dnnl_data_type_t dt, int ndims,
        const int64_t *dims, dnnl_graph_layout_type_t layout,
        dnnl_graph_tensor_property_t prop) {
    dnnl_graph_logical_tensor_t lt;
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&lt, id, dt, ndims, dims, layout, prop));
    return lt;
}

static inline dnnl_graph_logical_tensor_t lt_f32(size_t id, int ndims, const int64_t *dims) {
    return lt_dims(id, dnnl_f32, ndims, dims, dnnl_graph_layout_type_strided,
            dnnl_graph_tensor_property_variable);
}

/* An op with its inputs and outputs (arrays of logical tensors). */
static inline dnnl_graph_op_t make_op(size_t id, dnnl_graph_op_kind_t kind, const char *name,
        int nin, const dnnl_graph_logical_tensor_t *in, int nout,
        const dnnl_graph_logical_tensor_t *out) {
    dnnl_graph_op_t op;
    CHECK(dnnl_graph_op_create(&op, id, kind, name));
    for (int i = 0; i < nin; i++) CHECK(dnnl_graph_op_add_input(op, &in[i]));
    for (int i = 0; i < nout; i++) CHECK(dnnl_graph_op_add_output(op, &out[i]));
    return op;
}

static inline void add_and_destroy(dnnl_graph_graph_t g, dnnl_graph_op_t op) {
    CHECK(dnnl_graph_add_op(g, op));
    CHECK(dnnl_graph_op_destroy(op));
}

/* Data of one tensor on an engine. */
typedef struct {
    dnnl_memory_t mem; /* owns the data */
    void *handle;      /* host pointer or USM pointer */
    size_t size;
} buffer_t;

/* `size` bytes on `eng` (USM on OpenCL engines: Intel's device USM, or shared
 * virtual memory on devices without Intel's extension, such as PoCL and NVIDIA);
 * 0 when the engine cannot give USM (the caller skips: buffer_create_or_skip). */
static inline int buffer_create(buffer_t *b, dnnl_engine_t eng, size_t size) {
    dnnl_engine_kind_t kind;
    CHECK(dnnl_engine_get_kind(eng, &kind));
    dnnl_memory_desc_t md;
    int64_t n = (int64_t)(size ? size : 1);
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, &n, dnnl_u8, dnnl_a));
    dnnl_status_t st;
    if (kind == dnnl_gpu)
        st = dnnl_ocl_interop_memory_create(&b->mem, md, eng, dnnl_ocl_interop_usm, DNNL_MEMORY_ALLOCATE);
    else
        st = dnnl_memory_create(&b->mem, md, eng, DNNL_MEMORY_ALLOCATE);
    CHECK(dnnl_memory_desc_destroy(md));
    if (st == dnnl_unimplemented) return 0;
    CHECK(st);
    CHECK(dnnl_memory_get_data_handle(b->mem, &b->handle));
    b->size = size;
    return 1;
}

/* The reason a graph test on OpenCL skips when buffer_create gives 0. */
#define GRAPH_NO_USM_SKIP \
    "this OpenCL device has neither Intel USM nor coarse-grained SVM: the graph API " \
    "runs on USM tensors only"

/* buffer_create, or SKIP (exit 77) with the reason where the engine has no USM. */
static inline void buffer_create_or_skip(buffer_t *b, dnnl_engine_t eng, size_t size) {
    if (!buffer_create(b, eng, size)) SKIP(GRAPH_NO_USM_SKIP);
}

static inline void buffer_write(buffer_t *b, const void *data, size_t size) {
    void *p;
    CHECK(dnnl_memory_map_data(b->mem, &p));
    memcpy(p, data, size);
    CHECK(dnnl_memory_unmap_data(b->mem, p));
}

static inline void buffer_read(buffer_t *b, void *data, size_t size) {
    void *p;
    CHECK(dnnl_memory_map_data(b->mem, &p));
    memcpy(data, p, size);
    CHECK(dnnl_memory_unmap_data(b->mem, p));
}

static inline void buffer_destroy(buffer_t *b) {
    CHECK(dnnl_memory_destroy(b->mem));
}

static inline void expect_close(const float *got, const float *want, int n, float tol, const char *what) {
    for (int i = 0; i < n; i++) {
        float d = fabsf(got[i] - want[i]);
        if (!(d <= tol * (1.0f + fabsf(want[i])))) {
            fprintf(stderr, "%s[%d]: got %g, want %g\n", what, i, got[i], want[i]);
            exit(1);
        }
    }
}

#endif
