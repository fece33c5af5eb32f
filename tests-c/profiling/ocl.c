/* The profiling API on OpenCL engines (each runtime):
 * - a stream made with dnnl_stream_profiling: three executions give three entries, in
 *   order, each within the host time they took; reset empties the profile;
 * - a stream over the user's queue made with CL_QUEUE_PROFILING_ENABLE profiles the
 *   same way (the queue's properties say so);
 * - a stream without profiling, the library's or over a plain user queue: refused
 *   with invalid_arguments (upstream's answer for a GPU stream that does not profile);
 * - profiling with an out-of-order stream: refused (upstream's limitation);
 * - a CPU stream: unimplemented, as upstream's library answers.
 * Profiling is experimental upstream: DNNL_EXPERIMENTAL_PROFILING declares it. */
#define _POSIX_C_SOURCE 200809L
#define DNNL_EXPERIMENTAL_PROFILING
#include "interop/ocl/ocl_util.h"
#include "profiling_util.h"

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_gpu, 0));

    /* The library's queue, made with profiling. */
    dnnl_stream_t s = NULL;
    CHECK(dnnl_stream_create(&s, engine, dnnl_stream_in_order | dnnl_stream_profiling));
    EXPECT(prof_count(s) == 0);
    uint64_t host = prof_run_three(engine, s);
    prof_check_three(s, host);
    /* Again after the reset: the new executions only. */
    host = prof_run_three(engine, s);
    prof_check_three(s, host);
    CHECK(dnnl_stream_destroy(s));
    printf("library queue with dnnl_stream_profiling: ok\n");

    /* The user's queue with CL_QUEUE_PROFILING_ENABLE. */
    cl_device_id dev = NULL;
    cl_context ctx = NULL;
    CHECK(dnnl_ocl_interop_get_device(engine, &dev));
    CHECK(dnnl_ocl_interop_engine_get_context(engine, &ctx));
    cl_command_queue q = ocl_queue_create(ctx, dev, CL_QUEUE_PROFILING_ENABLE);
    CHECK(dnnl_ocl_interop_stream_create(&s, engine, q));
    host = prof_run_three(engine, s);
    prof_check_three(s, host);
    CHECK(dnnl_stream_destroy(s));
    OCL_CHECK(clReleaseCommandQueue(q));
    printf("user queue with CL_QUEUE_PROFILING_ENABLE: ok\n");

    /* Streams that do not profile. */
    CHECK(dnnl_stream_create(&s, engine, dnnl_stream_in_order));
    prof_run_three(engine, s);
    prof_refused(s, dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(s));
    q = ocl_queue_create(ctx, dev, 0);
    CHECK(dnnl_ocl_interop_stream_create(&s, engine, q));
    prof_refused(s, dnnl_invalid_arguments);
    CHECK(dnnl_stream_destroy(s));
    OCL_CHECK(clReleaseCommandQueue(q));
    CHECK_STATUS(dnnl_stream_create(&s, engine, dnnl_stream_out_of_order | dnnl_stream_profiling),
            dnnl_invalid_arguments);
    printf("streams without profiling refused: ok\n");

    /* The CPU engine does not profile. */
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&s, cpu, dnnl_stream_default_flags));
    prof_refused(s, dnnl_unimplemented);
    CHECK(dnnl_stream_destroy(s));
    CHECK(dnnl_engine_destroy(cpu));
    /* Bad handles. */
    prof_refused(NULL, dnnl_invalid_arguments);

    CHECK(dnnl_engine_destroy(engine));
    printf("PASS\n");
    return 0;
}
