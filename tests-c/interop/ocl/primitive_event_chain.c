/* Three primitives chained on a user's out-of-order queue, ordered only by the
 * events given to dnnl_ocl_interop_primitive_execute:
 *   a --(write, after a user event)--> a
 *   b = 2a + 1        (eltwise linear, waits for the write)
 *   c = b^2           (eltwise square, waits for b's event)
 *   d = 3 - c         (eltwise linear, waits for {NULL, c's event}: NULL entries
 *                      in deps are tolerated)
 * b, c and d start as sentinels, so any step run early leaves a wrong value.
 * Before the user event fires, nothing may have completed; afterwards d must be
 * exact. Also: the returned events are real and owned by the caller. */
#include <math.h>

#include "ocl_util.h"

#define N (1 << 20)

static dnnl_primitive_t linear(dnnl_engine_t engine, const_dnnl_memory_desc_t md,
        dnnl_alg_kind_t alg, float alpha, float beta) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, alg, md, md, alpha, beta, NULL));
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    return p;
}

static void fill(dnnl_memory_t m, float v) {
    float *p = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    for (int i = 0; i < N; i++)
        p[i] = v;
    CHECK(dnnl_memory_unmap_data(m, p));
}

static cl_int status_of(cl_event e) {
    cl_int s = CL_COMPLETE;
    OCL_CHECK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
    return s;
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    if (!ocl_device_has_ooo(dev)) SKIP("the device has no out-of-order queues");
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    cl_command_queue queue
            = ocl_queue_create(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_ocl_interop_stream_create(&stream, engine, queue));

    dnnl_memory_desc_t md = ocl_md_f32(N);
    dnnl_memory_t a, b, c, d;
    CHECK(dnnl_memory_create(&a, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&b, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&c, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&d, md, engine, DNNL_MEMORY_ALLOCATE));
    fill(a, -100.f);
    fill(b, -7.f);
    fill(c, -7.f);
    fill(d, -7.f);
    dnnl_primitive_t p1 = linear(engine, md, dnnl_eltwise_linear, 2.f, 1.f);
    dnnl_primitive_t p2 = linear(engine, md, dnnl_eltwise_square, 0.f, 0.f);
    dnnl_primitive_t p3 = linear(engine, md, dnnl_eltwise_linear, -1.f, 3.f);

    /* The input arrives by a write that waits for the user's gate. */
    float *host = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        host[i] = (float)(i % 1000) / 250.f - 2.f;
    cl_int err = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(ctx, &err);
    OCL_CHECK(err);
    cl_mem a_mem = NULL;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(a, &a_mem));
    cl_event written = NULL;
    OCL_CHECK(clEnqueueWriteBuffer(
            queue, a_mem, CL_FALSE, 0, sizeof(float) * N, host, 1, &gate, &written));

    cl_event e1 = NULL, e2 = NULL, e3 = NULL;
    dnnl_exec_arg_t args1[] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_DST, b}};
    dnnl_exec_arg_t args2[] = {{DNNL_ARG_SRC, b}, {DNNL_ARG_DST, c}};
    dnnl_exec_arg_t args3[] = {{DNNL_ARG_SRC, c}, {DNNL_ARG_DST, d}};
    CHECK(dnnl_ocl_interop_primitive_execute(p1, stream, 2, args1, &written, 1, &e1));
    CHECK(dnnl_ocl_interop_primitive_execute(p2, stream, 2, args2, &e1, 1, &e2));
    const cl_event deps3[] = {NULL, e2};
    CHECK(dnnl_ocl_interop_primitive_execute(p3, stream, 2, args3, deps3, 2, &e3));
    EXPECT(e1 != NULL && e2 != NULL && e3 != NULL);

    /* Nothing can have run: everything hangs on the gate. */
    OCL_CHECK(clFlush(queue));
    EXPECT(status_of(e1) != CL_COMPLETE);
    EXPECT(status_of(e2) != CL_COMPLETE);
    EXPECT(status_of(e3) != CL_COMPLETE);
    OCL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
    OCL_CHECK(clWaitForEvents(1, &e3));
    EXPECT(status_of(e1) == CL_COMPLETE && status_of(e2) == CL_COMPLETE);

    float *out = NULL;
    CHECK(dnnl_memory_map_data(d, (void **)&out));
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        double x = host[i], want = 3.0 - (2.0 * x + 1.0) * (2.0 * x + 1.0);
        if (fabs(out[i] - want) > 1e-5 * (1.0 + fabs(want))) {
            fprintf(stderr, "d[%d] = %g, want %g\n", i, out[i], want);
            bad++;
        }
    }
    CHECK(dnnl_memory_unmap_data(d, out));
    EXPECT(bad == 0);

    OCL_CHECK(clReleaseEvent(e1));
    OCL_CHECK(clReleaseEvent(e2));
    OCL_CHECK(clReleaseEvent(e3));
    OCL_CHECK(clReleaseEvent(written));
    OCL_CHECK(clReleaseEvent(gate));
    CHECK(dnnl_primitive_destroy(p1));
    CHECK(dnnl_primitive_destroy(p2));
    CHECK(dnnl_primitive_destroy(p3));
    CHECK(dnnl_memory_destroy(a));
    CHECK(dnnl_memory_destroy(b));
    CHECK(dnnl_memory_destroy(c));
    CHECK(dnnl_memory_destroy(d));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    OCL_CHECK(clReleaseCommandQueue(queue));
    OCL_CHECK(clReleaseContext(ctx));
    free(host);
    printf("three primitives ordered by events on an out-of-order queue: ok\n");
    return 0;
}
