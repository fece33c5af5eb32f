/* Graph API memory safety (ours only: upstream wraps the sizes and binds
 * execute's tensors without looking at them).
 *
 *   graph_safety cpu   on the CPU engine
 *   graph_safety gpu   on OpenCL GPU engine 0 (needs USM: skipped without it)
 *
 * - logical tensor sizes that do not fit (dims {2^60+1, 4} f32 used to give
 *   16 bytes) are dnnl_invalid_arguments: get_mem_size, tensor creation with
 *   DNNL_MEMORY_ALLOCATE, partition compilation; a size that fits but cannot
 *   be allocated is dnnl_out_of_memory; a concatenated dimension that
 *   overflows is dnnl_invalid_shape;
 * - DNNL_MEMORY_ALLOCATE is no scalar value (create_scalar used to crash) and
 *   no data handle to set;
 * - compiled-partition execute refuses, before running anything, a tensor
 *   of another data type, shape, layout or engine, with no or too little
 *   memory (the OpenCL interop execute too); tensors whose logical tensor
 *   leaves dims unknown and the layout `any` (as given at compilation) are
 *   accepted, and the results are right. */
#include "graph_util.h"
#include "oneapi/dnnl/dnnl_graph_ocl.h"

#define P2(n) ((int64_t)1 << (n))

static const dnnl_status_t IA = dnnl_invalid_arguments;
static const dnnl_graph_layout_type_t STRIDED = dnnl_graph_layout_type_strided;
static const dnnl_graph_tensor_property_t VAR = dnnl_graph_tensor_property_variable;

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static void sizes(void) {
    dnnl_graph_logical_tensor_t lt;
    size_t size = 0;
    lt = lt_f32(1, 2, (int64_t[]) {2, 3});
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&lt, &size));
    EXPECT(size == 24);
    /* (2^60 + 1) * 4 f32: the byte count would wrap to 16. */
    lt = lt_f32(1, 2, (int64_t[]) {P2(60) + 1, 4});
    CHECK_STATUS(dnnl_graph_logical_tensor_get_mem_size(&lt, &size), IA);
    dnnl_graph_tensor_t t = NULL;
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &lt, eng, DNNL_MEMORY_ALLOCATE), IA);
    EXPECT(t == NULL);
    /* 2^64 bytes (would wrap to 0), and 2^63 (beyond PTRDIFF_MAX). */
    lt = lt_f32(1, 1, (int64_t[]) {P2(62)});
    CHECK_STATUS(dnnl_graph_logical_tensor_get_mem_size(&lt, &size), IA);
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &lt, eng, DNNL_MEMORY_ALLOCATE), IA);
    lt = lt_dims(1, dnnl_u8, 2, (int64_t[]) {P2(62), 2}, STRIDED, VAR);
    CHECK_STATUS(dnnl_graph_logical_tensor_get_mem_size(&lt, &size), IA);
    /* dims x strides beyond int64. */
    CHECK(dnnl_graph_logical_tensor_init_with_strides(
            &lt, 1, dnnl_f32, 2, (int64_t[]) {3, 4}, (int64_t[]) {P2(62) + 1, 1}, VAR));
    CHECK_STATUS(dnnl_graph_logical_tensor_get_mem_size(&lt, &size), IA);
    /* 2^62 bytes fit but cannot be allocated. */
    lt = lt_f32(1, 1, (int64_t[]) {P2(60)});
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&lt, &size));
    EXPECT(size == (size_t)1 << 62);
    CHECK_STATUS(dnnl_graph_tensor_create(&t, &lt, eng, DNNL_MEMORY_ALLOCATE), dnnl_out_of_memory);
    EXPECT(t == NULL);
}

static void scalars(void) {
    dnnl_graph_logical_tensor_t lt;
    CHECK(dnnl_graph_logical_tensor_init_with_dims(
            &lt, 1, dnnl_f32, 0, NULL, STRIDED, dnnl_graph_tensor_property_host_scalar));
    dnnl_graph_tensor_t t = NULL;
    CHECK_STATUS(dnnl_graph_tensor_create_scalar(&t, &lt, DNNL_MEMORY_ALLOCATE), IA);
    CHECK_STATUS(dnnl_graph_tensor_create_scalar(&t, &lt, NULL), IA);
    EXPECT(t == NULL);
    float v = 2.5f;
    CHECK(dnnl_graph_tensor_create_scalar(&t, &lt, &v));
    CHECK_STATUS(dnnl_graph_tensor_set_data_handle(t, DNNL_MEMORY_ALLOCATE), IA);
    void *h = NULL;
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(*(float *)h == 2.5f);
    CHECK(dnnl_graph_tensor_destroy(t));
    /* Nor is it a data handle of an ordinary tensor. */
    dnnl_graph_logical_tensor_t plain = lt_f32(2, 1, (int64_t[]) {4});
    CHECK(dnnl_graph_tensor_create(&t, &plain, eng, DNNL_MEMORY_NONE));
    CHECK_STATUS(dnnl_graph_tensor_set_data_handle(t, DNNL_MEMORY_ALLOCATE), IA);
    CHECK(dnnl_graph_tensor_get_data_handle(t, &h));
    EXPECT(h == NULL);
    CHECK(dnnl_graph_tensor_destroy(t));
}

/* A one-op partition compiled with `ins` -> `out`; the status of compile. */
static dnnl_status_t compile_op(dnnl_graph_op_kind_t kind, int nin,
        const dnnl_graph_logical_tensor_t *ins, dnnl_graph_logical_tensor_t out, int64_t axis,
        dnnl_graph_compiled_partition_t *cp) {
    dnnl_graph_op_t op = make_op(1, kind, "op", nin, ins, 1, &out);
    if (kind == dnnl_graph_op_concat) CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_axis, &axis, 1));
    dnnl_engine_kind_t ekind;
    CHECK(dnnl_engine_get_kind(eng, &ekind));
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_partition_create_with_op(&p, op, ekind));
    CHECK(dnnl_graph_op_destroy(op));
    CHECK(dnnl_graph_compiled_partition_create(cp, p));
    const dnnl_graph_logical_tensor_t *pin[3] = {&ins[0], nin > 1 ? &ins[1] : NULL, NULL};
    const dnnl_graph_logical_tensor_t *pout[] = {&out};
    dnnl_status_t st = dnnl_graph_partition_compile(p, *cp, nin, pin, 1, pout, eng);
    CHECK(dnnl_graph_partition_destroy(p));
    return st;
}

static void compile_sizes(void) {
    dnnl_graph_compiled_partition_t cp;
    dnnl_graph_logical_tensor_t in = lt_f32(1, 2, (int64_t[]) {P2(60) + 1, 4});
    dnnl_graph_logical_tensor_t out = lt_f32(2, 2, (int64_t[]) {P2(60) + 1, 4});
    CHECK_STATUS(compile_op(dnnl_graph_op_relu, 1, &in, out, 0, &cp), IA);
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    /* Inferred: two 2^62-element inputs concatenated. */
    dnnl_graph_logical_tensor_t cat[2] = {lt_dims(1, dnnl_u8, 1, (int64_t[]) {P2(62)}, STRIDED, VAR),
            lt_dims(2, dnnl_u8, 1, (int64_t[]) {P2(62)}, STRIDED, VAR)};
    dnnl_graph_logical_tensor_t cat_out;
    CHECK(dnnl_graph_logical_tensor_init(&cat_out, 3, dnnl_u8, -1, dnnl_graph_layout_type_any, VAR));
    CHECK_STATUS(compile_op(dnnl_graph_op_concat, 2, cat, cat_out, 0, &cp), dnnl_invalid_shape);
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
}

/* A tensor of `lt` over `b` (or DNNL_MEMORY_ALLOCATE / NONE). */
static dnnl_graph_tensor_t tensor(const dnnl_graph_logical_tensor_t *lt, void *handle) {
    dnnl_graph_tensor_t t;
    CHECK(dnnl_graph_tensor_create(&t, lt, eng, handle));
    return t;
}

static dnnl_status_t run(dnnl_graph_compiled_partition_t cp, dnnl_graph_tensor_t in, dnnl_graph_tensor_t out) {
    const_dnnl_graph_tensor_t i[] = {in}, o[] = {out};
    dnnl_status_t st = dnnl_graph_compiled_partition_execute(cp, strm, 1, i, 1, o);
    if (st == dnnl_success) CHECK(dnnl_stream_wait(strm));
    return st;
}

static void execute_checks(int gpu) {
    enum { N = 6 };
    const float src[N] = {-1, 2, -3, 4, -5, 6}, want[N] = {0, 2, 0, 4, 0, 6};
    const float canary = -42.0f;
    buffer_t bin, bout;
    buffer_create_or_skip(&bin, eng, N * sizeof(float));
    EXPECT(buffer_create(&bout, eng, 4 * N * sizeof(float)));
    buffer_write(&bin, src, sizeof(src));

    dnnl_graph_logical_tensor_t in = lt_f32(1, 2, (int64_t[]) {2, 3});
    dnnl_graph_logical_tensor_t out = lt_f32(2, 2, (int64_t[]) {2, 3});
    dnnl_graph_compiled_partition_t cp;
    CHECK(compile_op(dnnl_graph_op_relu, 1, &in, out, 0, &cp));
    dnnl_graph_tensor_t tin = tensor(&in, bin.handle);

    /* Refused: the status, and the output untouched. */
    float fill[4 * N];
    for (int i = 0; i < 4 * N; i++) fill[i] = canary;
#define REFUSED(lt_expr, handle) \
    do { \
        dnnl_graph_logical_tensor_t bad_ = (lt_expr); \
        buffer_write(&bout, fill, sizeof(fill)); \
        dnnl_graph_tensor_t tb_ = tensor(&bad_, (handle)); \
        CHECK_STATUS(run(cp, tin, tb_), IA); \
        CHECK(dnnl_graph_tensor_destroy(tb_)); \
        float got_[4 * N]; \
        buffer_read(&bout, got_, sizeof(got_)); \
        for (int i_ = 0; i_ < 4 * N; i_++) EXPECT(got_[i_] == canary); \
    } while (0)
    /* Smaller shape: its kernel would write 24 bytes into 4. */
    REFUSED(lt_f32(2, 2, ((int64_t[]) {1, 1})), bout.handle);
    REFUSED(lt_f32(2, 2, ((int64_t[]) {4, 4})), bout.handle);
    REFUSED(lt_f32(2, 1, ((int64_t[]) {6})), bout.handle);
    REFUSED(lt_dims(2, dnnl_s8, 2, ((int64_t[]) {2, 3}), STRIDED, VAR), bout.handle);
    dnnl_graph_logical_tensor_t transposed;
    CHECK(dnnl_graph_logical_tensor_init_with_strides(
            &transposed, 2, dnnl_f32, 2, (int64_t[]) {2, 3}, (int64_t[]) {1, 2}, VAR));
    REFUSED(transposed, bout.handle);
    REFUSED(lt_f32(3, 2, ((int64_t[]) {2, 3})), bout.handle);
    REFUSED(out, DNNL_MEMORY_NONE);
    /* A library allocation of 4 bytes for the 24 the port needs: refused
     * (it used to be written past). */
    {
        dnnl_graph_logical_tensor_t small = lt_f32(2, 2, (int64_t[]) {1, 1});
        dnnl_graph_tensor_t ts = tensor(&small, DNNL_MEMORY_ALLOCATE);
        CHECK_STATUS(run(cp, tin, ts), IA);
        CHECK(dnnl_graph_tensor_destroy(ts));
    }
    /* An input of another shape is refused the same. */
    {
        dnnl_graph_logical_tensor_t small = lt_f32(1, 2, (int64_t[]) {1, 3});
        dnnl_graph_tensor_t ts = tensor(&small, bin.handle);
        dnnl_graph_tensor_t to = tensor(&out, bout.handle);
        CHECK_STATUS(run(cp, ts, to), IA);
        CHECK(dnnl_graph_tensor_destroy(ts));
        CHECK(dnnl_graph_tensor_destroy(to));
    }
    /* On the GPU: an input tensor on the CPU engine (a host pointer of another engine). */
    if (gpu) {
        dnnl_engine_t cpu;
        CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
        float host[N];
        memcpy(host, src, sizeof(src));
        dnnl_graph_tensor_t th, to;
        CHECK(dnnl_graph_tensor_create(&th, &in, cpu, host));
        to = tensor(&out, bout.handle);
        CHECK_STATUS(run(cp, th, to), IA);
        CHECK(dnnl_graph_tensor_destroy(th));
        CHECK(dnnl_graph_tensor_destroy(to));
        CHECK(dnnl_engine_destroy(cpu));
        /* The OpenCL interop execute checks the same way. */
        dnnl_graph_logical_tensor_t small = lt_f32(2, 2, (int64_t[]) {1, 1});
        to = tensor(&small, bout.handle);
        const_dnnl_graph_tensor_t i[] = {tin}, o[] = {to};
        cl_event ev = NULL;
        CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute(cp, strm, 1, i, 1, o, NULL, 0, &ev), IA);
        EXPECT(ev == NULL);
        CHECK(dnnl_graph_tensor_destroy(to));
    }

    /* Accepted: the port's own tensor, and tensors that say less than the
     * port (unknown dims, `any` layout, unknown ndims), as given at compile. */
    dnnl_graph_logical_tensor_t unknown_dims = lt_dims(2, dnnl_f32, 2, (int64_t[]) {-1, -1}, STRIDED, VAR);
    dnnl_graph_logical_tensor_t any_layout = lt_dims(2, dnnl_f32, 2, (int64_t[]) {2, 3}, dnnl_graph_layout_type_any, VAR);
    dnnl_graph_logical_tensor_t unknown_ndims;
    CHECK(dnnl_graph_logical_tensor_init(&unknown_ndims, 2, dnnl_f32, -1, dnnl_graph_layout_type_any, VAR));
    const dnnl_graph_logical_tensor_t *good[] = {&out, &unknown_dims, &any_layout, &unknown_ndims};
    for (int g = 0; g < 4; g++) {
        buffer_write(&bout, fill, sizeof(fill));
        dnnl_graph_tensor_t to = tensor(good[g], bout.handle);
        CHECK(run(cp, tin, to));
        CHECK(dnnl_graph_tensor_destroy(to));
        float got[4 * N];
        buffer_read(&bout, got, sizeof(got));
        expect_close(got, want, N, 0.0f, "relu");
        for (int i = N; i < 4 * N; i++) EXPECT(got[i] == canary);
    }
    /* And an output the library allocates for the port. */
    {
        dnnl_graph_tensor_t to = tensor(&out, DNNL_MEMORY_ALLOCATE);
        CHECK(run(cp, tin, to));
        CHECK(dnnl_graph_tensor_destroy(to));
    }

    CHECK(dnnl_graph_tensor_destroy(tin));
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    buffer_destroy(&bin);
    buffer_destroy(&bout);
#undef REFUSED
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (gpu) {
        if (dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
        CHECK(dnnl_engine_create(&eng, dnnl_gpu, 0));
        /* Graph memory on OpenCL is USM: without it nothing below can run. */
        buffer_t probe;
        buffer_create_or_skip(&probe, eng, 16);
        buffer_destroy(&probe);
    } else {
        CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    }
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    sizes();
    scalars();
    compile_sizes();
    execute_checks(gpu);

    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    printf("graph sizes checked, scalar handles checked, execute tensors checked (%s)\n", gpu ? "gpu" : "cpu");
    return 0;
}
