/* dnnl_stream_create on an OpenCL engine (dnnl_engine_create(dnnl_gpu, 0)): the
 * stream's own queue, from dnnl_ocl_interop_stream_get_command_queue, is on the
 * engine's device and context (notes 2.3, upstream test CreateC); its properties follow
 * the flags (out_of_order -> CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, profiling ->
 * CL_QUEUE_PROFILING_ENABLE; profiling with out_of_order is refused); the getter does
 * not retain; dnnl_stream_get_engine, _wait and _destroy work; a CPU stream has no
 * queue. */
#define DNNL_EXPERIMENTAL_PROFILING
#include "ocl_util.h"

static cl_command_queue_properties queue_props(cl_command_queue q) {
    cl_command_queue_properties p = 0;
    OCL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(p), &p, NULL));
    return p;
}

/* Creates a stream with `flags`, checks its queue, returns the queue's properties. */
static cl_command_queue_properties check_stream(dnnl_engine_t engine, unsigned flags) {
    cl_device_id dev = NULL;
    cl_context ctx = NULL;
    CHECK(dnnl_ocl_interop_get_device(engine, &dev));
    CHECK(dnnl_ocl_interop_engine_get_context(engine, &ctx));

    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, flags));
    EXPECT(stream != NULL);
    dnnl_engine_t got_engine = NULL;
    CHECK(dnnl_stream_get_engine(stream, &got_engine));
    /* A query gives its own (not owned) handle of the same engine. */
    cl_context got_ctx = NULL;
    cl_device_id got_dev = NULL;
    CHECK(dnnl_ocl_interop_engine_get_context(got_engine, &got_ctx));
    CHECK(dnnl_ocl_interop_get_device(got_engine, &got_dev));
    EXPECT(got_ctx == ctx && got_dev == dev);

    cl_command_queue q = NULL;
    CHECK(dnnl_ocl_interop_stream_get_command_queue(stream, &q));
    EXPECT(q != NULL);
    const cl_uint refs = ocl_queue_refcount(q);
    cl_command_queue q2 = NULL;
    CHECK(dnnl_ocl_interop_stream_get_command_queue(stream, &q2));
    EXPECT(q2 == q);
    EXPECT(ocl_queue_refcount_settles(q, refs));

    cl_device_id qdev = NULL;
    cl_context qctx = NULL;
    OCL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(qdev), &qdev, NULL));
    OCL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(qctx), &qctx, NULL));
    EXPECT(qdev == dev);
    EXPECT(qctx == ctx);
    cl_command_queue_properties props = queue_props(q);

    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_stream_destroy(stream));
    return props;
}

int main(void) {
    (void)ocl_first_device_or_skip();
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_gpu, 0));
    cl_device_id dev = NULL;
    CHECK(dnnl_ocl_interop_get_device(engine, &dev));

    cl_command_queue_properties p = check_stream(engine, dnnl_stream_default_flags);
    EXPECT(!(p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
    p = check_stream(engine, dnnl_stream_in_order);
    EXPECT(!(p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));

    if (ocl_device_has_ooo(dev)) {
        p = check_stream(engine, dnnl_stream_out_of_order);
        EXPECT(p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    } else {
        printf("part skipped: the device has no out-of-order queues\n");
    }

    p = check_stream(engine, dnnl_stream_in_order | dnnl_stream_profiling);
    EXPECT(p & CL_QUEUE_PROFILING_ENABLE);
    EXPECT(!(p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
    dnnl_stream_t bad = NULL;
    CHECK_STATUS(dnnl_stream_create(&bad, engine, dnnl_stream_out_of_order | dnnl_stream_profiling),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);

    /* The getter's argument checks. */
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    cl_command_queue q = NULL;
    CHECK_STATUS(dnnl_ocl_interop_stream_get_command_queue(stream, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_stream_get_command_queue(NULL, &q), dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(stream));

    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    dnnl_stream_t cpu_stream = NULL;
    CHECK(dnnl_stream_create(&cpu_stream, cpu, dnnl_stream_default_flags));
    CHECK_STATUS(dnnl_ocl_interop_stream_get_command_queue(cpu_stream, &q),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_stream_get_ocl_command_queue(cpu_stream, &q), dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(cpu_stream));
    CHECK(dnnl_engine_destroy(cpu));

    CHECK(dnnl_engine_destroy(engine));
    printf("streams on an OpenCL engine: ok\n");
    return 0;
}
