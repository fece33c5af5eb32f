/* A compiled partition runs on streams of the engine it was compiled for only.
 * Argument "cpu": two CPU engines; "gpu": two engines on one OpenCL device and
 * context (the second made through dnnl_ocl_interop_engine_create from the first's).
 *
 * oneDNN v3.13 (probed against Intel's libdnnl.so.3): executing on a stream of
 * another engine object, even one of the same kind and device, reaches its
 * primitives, which refuse a stream of another engine with dnnl_invalid_arguments;
 * its graph layer lets that error escape as a C++ exception (the process aborts).
 * Ours returns the status, dnnl_invalid_arguments, and runs nothing: the outputs
 * keep their values. The @ref twin runs the rest: on the engine's own stream the
 * partition runs, with tensors created on either engine (tensors are not tied to
 * the engine object). */
#include "graph/graph_util.h"

enum { R = 2, C = 3 };

int main(int argc, char **argv) {
    const int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    dnnl_engine_t e1, e2;
    if (gpu) {
        if (dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
        CHECK(dnnl_engine_create(&e1, dnnl_gpu, 0));
        cl_device_id dev;
        cl_context ctx;
        CHECK(dnnl_ocl_interop_get_device(e1, &dev));
        CHECK(dnnl_ocl_interop_engine_get_context(e1, &ctx));
        CHECK(dnnl_ocl_interop_engine_create(&e2, dev, ctx));
    } else {
        CHECK(dnnl_engine_create(&e1, dnnl_cpu, 0));
        CHECK(dnnl_engine_create(&e2, dnnl_cpu, 0));
    }
    EXPECT(e1 != e2);
    const int64_t dims[] = {R, C};
    dnnl_graph_logical_tensor_t a = lt_f32(0, 2, dims), c = lt_f32(1, 2, dims);
    dnnl_graph_op_t op = make_op(0, dnnl_graph_op_relu, "relu", 1, &a, 1, &c);
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_partition_create_with_op(&p, op, gpu ? dnnl_gpu : dnnl_cpu));
    CHECK(dnnl_graph_op_destroy(op));
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, p));
    const dnnl_graph_logical_tensor_t *ins[] = {&a}, *outs[] = {&c};
    CHECK(dnnl_graph_partition_compile(p, cp, 1, ins, 1, outs, e1));

    const float x[R * C] = {-1, 2, -3, 4, -5, 6}, want[R * C] = {0, 2, 0, 4, 0, 6};
    const float stale[R * C] = {9, 9, 9, 9, 9, 9};
    float got[R * C];
    buffer_t bx, by;
    buffer_create_or_skip(&bx, e1, sizeof x);
    EXPECT(buffer_create(&by, e1, sizeof got));
    buffer_write(&bx, x, sizeof x);
    dnnl_graph_tensor_t tx1, ty1, tx2, ty2;
    CHECK(dnnl_graph_tensor_create(&tx1, &a, e1, bx.handle));
    CHECK(dnnl_graph_tensor_create(&ty1, &c, e1, by.handle));
    CHECK(dnnl_graph_tensor_create(&tx2, &a, e2, bx.handle));
    CHECK(dnnl_graph_tensor_create(&ty2, &c, e2, by.handle));
    dnnl_stream_t s1, s2;
    CHECK(dnnl_stream_create(&s1, e1, dnnl_stream_default_flags));
    CHECK(dnnl_stream_create(&s2, e2, dnnl_stream_default_flags));
    const_dnnl_graph_tensor_t in1[] = {tx1}, out1[] = {ty1}, in2[] = {tx2}, out2[] = {ty2};

    if (library_is_ours()) {
        buffer_write(&by, stale, sizeof stale);
        CHECK_STATUS(dnnl_graph_compiled_partition_execute(cp, s2, 1, in1, 1, out1),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_graph_compiled_partition_execute(cp, s2, 1, in2, 1, out2),
                dnnl_invalid_arguments);
        CHECK(dnnl_stream_wait(s2));
        buffer_read(&by, got, sizeof got);
        expect_close(got, stale, R * C, 0.f, "output after the refused runs");
        printf("a stream of another engine is refused: ok\n");
    }
    /* The engine's own stream, tensors of either engine. */
    const_dnnl_graph_tensor_t *ins_of[] = {in1, in2}, *outs_of[] = {out1, out2};
    for (int t = 0; t < 2; t++) {
        buffer_write(&by, stale, sizeof stale);
        CHECK(dnnl_graph_compiled_partition_execute(cp, s1, 1, ins_of[t], 1, outs_of[t]));
        CHECK(dnnl_stream_wait(s1));
        buffer_read(&by, got, sizeof got);
        expect_close(got, want, R * C, 0.f, "relu output");
    }
    printf("the engine's own stream runs it, tensors of either engine: ok\n");

    dnnl_graph_tensor_t all[] = {tx1, ty1, tx2, ty2};
    for (int i = 0; i < 4; i++) CHECK(dnnl_graph_tensor_destroy(all[i]));
    buffer_destroy(&bx);
    buffer_destroy(&by);
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_graph_partition_destroy(p));
    CHECK(dnnl_stream_destroy(s1));
    CHECK(dnnl_stream_destroy(s2));
    CHECK(dnnl_engine_destroy(e1));
    CHECK(dnnl_engine_destroy(e2));
    printf("graph_stream_engine: ok\n");
    return 0;
}
