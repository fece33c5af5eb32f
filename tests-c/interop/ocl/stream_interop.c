/* dnnl_ocl_interop_stream_create on user queues (notes 2.1, 2.3):
 * - an in-order and an out-of-order queue are each retained while the stream lives
 *   (CL_QUEUE_REFERENCE_COUNT 1 -> 2 -> 1), and dnnl_ocl_interop_stream_get_command_queue
 *   returns the queue itself without retaining it;
 * - the v1 names dnnl_stream_create_ocl / dnnl_stream_get_ocl_command_queue do the same;
 * - a queue of another context, NULL arguments and a CPU engine are refused;
 * - the stream's order comes from the queue: an execution through
 *   dnnl_ocl_interop_primitive_execute returns no event on the in-order queue and an
 *   event on the out-of-order one (only once primitives exist; skipped before). */
#include "ocl_util.h"

/* Runs a ReLU on `stream` through dnnl_ocl_interop_primitive_execute; checks that the
 * returned event is NULL on an in-order stream and a real event on an out-of-order
 * one. Returns 0 when primitives are not available yet. */
static int check_order_by_execution(dnnl_engine_t engine, dnnl_stream_t stream, int ooo) {
    dnnl_memory_desc_t md = ocl_md_f32(64);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t s = dnnl_eltwise_forward_primitive_desc_create(&pd, engine,
            dnnl_forward_inference, dnnl_eltwise_relu, md, md, 0.f, 0.f, NULL);
    if (s == dnnl_unimplemented) {
        CHECK(dnnl_memory_desc_destroy(md));
        return 0;
    }
    CHECK(s);
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_memory_create(&src, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dst, md, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    cl_event ev = (cl_event)&ev; /* must be overwritten */
    CHECK(dnnl_ocl_interop_primitive_execute(prim, stream, 2, args, NULL, 0, &ev));
    if (ooo) {
        EXPECT(ev != NULL && ev != (cl_event)&ev);
        OCL_CHECK(clWaitForEvents(1, &ev));
        OCL_CHECK(clReleaseEvent(ev));
    } else {
        EXPECT(ev == NULL);
    }
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(md));
    return 1;
}

static void wrap_queue(dnnl_engine_t engine, cl_command_queue q, int ooo, int v1) {
    EXPECT(ocl_queue_refcount_settles(q, 1));
    dnnl_stream_t stream = NULL;
    if (v1)
        CHECK(dnnl_stream_create_ocl(&stream, engine, q));
    else
        CHECK(dnnl_ocl_interop_stream_create(&stream, engine, q));
    EXPECT(stream != NULL);
    EXPECT(ocl_queue_refcount_settles(q, 2));

    cl_command_queue got = NULL;
    if (v1)
        CHECK(dnnl_stream_get_ocl_command_queue(stream, &got));
    else
        CHECK(dnnl_ocl_interop_stream_get_command_queue(stream, &got));
    EXPECT(got == q);
    EXPECT(ocl_queue_refcount_settles(q, 2));
    dnnl_engine_t got_engine = NULL;
    CHECK(dnnl_stream_get_engine(stream, &got_engine));
    /* A query gives its own (not owned) handle of the same engine. */
    cl_context ctx = NULL, got_ctx = NULL;
    CHECK(dnnl_ocl_interop_engine_get_context(engine, &ctx));
    CHECK(dnnl_ocl_interop_engine_get_context(got_engine, &got_ctx));
    EXPECT(got_ctx == ctx);

    static int reported = 0;
    if (!check_order_by_execution(engine, stream, ooo) && !reported++)
        printf("part skipped: no eltwise primitive could be created on this device, so "
               "the streams' order is not observed through execution\n");
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_stream_destroy(stream));
    EXPECT(ocl_queue_refcount_settles(q, 1));
    printf("%s %s queue: reference count 1 -> 2 -> 1: ok\n",
            v1 ? "dnnl_stream_create_ocl," : "dnnl_ocl_interop_stream_create,",
            ooo ? "out-of-order" : "in-order");
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);

    cl_command_queue in_order = ocl_queue_create(ctx, dev, 0);
    wrap_queue(engine, in_order, 0, 0);
    wrap_queue(engine, in_order, 0, 1);
    if (ocl_device_has_ooo(dev)) {
        cl_command_queue ooo
                = ocl_queue_create(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        wrap_queue(engine, ooo, 1, 0);
        wrap_queue(engine, ooo, 1, 1);
        OCL_CHECK(clReleaseCommandQueue(ooo));
    } else {
        printf("part skipped: the device has no out-of-order queues\n");
    }

    /* A queue of another context on the same device. */
    cl_context other_ctx = ocl_context_create(dev);
    cl_command_queue foreign = ocl_queue_create(other_ctx, dev, 0);
    dnnl_stream_t bad = NULL;
    CHECK_STATUS(dnnl_ocl_interop_stream_create(&bad, engine, foreign), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_create_ocl(&bad, engine, foreign), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    EXPECT(ocl_queue_refcount_settles(foreign, 1));
    OCL_CHECK(clReleaseCommandQueue(foreign));
    OCL_CHECK(clReleaseContext(other_ctx));

    /* NULL arguments, and an engine that is not OpenCL. */
    CHECK_STATUS(dnnl_ocl_interop_stream_create(&bad, engine, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_stream_create(&bad, NULL, in_order), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_stream_create(NULL, engine, in_order), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_create_ocl(&bad, engine, NULL), dnnl_invalid_arguments);
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    CHECK_STATUS(dnnl_ocl_interop_stream_create(&bad, cpu, in_order), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_create_ocl(&bad, cpu, in_order), dnnl_invalid_arguments);
    CHECK(dnnl_engine_destroy(cpu));
    EXPECT(bad == NULL);
    EXPECT(ocl_queue_refcount_settles(in_order, 1));

    /* The refused attempts left the queue usable. */
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_ocl_interop_stream_create(&stream, engine, in_order));
    EXPECT(ocl_queue_refcount_settles(in_order, 2));
    CHECK(dnnl_stream_destroy(stream));
    EXPECT(ocl_queue_refcount_settles(in_order, 1));

    OCL_CHECK(clReleaseCommandQueue(in_order));
    CHECK(dnnl_engine_destroy(engine));
    EXPECT(ocl_context_refcount_settles(ctx, 1));
    OCL_CHECK(clReleaseContext(ctx));
    printf("ocl interop streams: ok\n");
    return 0;
}
