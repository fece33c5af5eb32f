/* An eltwise primitive (GELU) through OpenCL interop, in C.
 *
 * The program owns its OpenCL objects: a context and a queue on the library's
 * default device, and two cl_mem buffers. It
 *   1. makes an engine and a stream over its context and queue
 *      (dnnl_ocl_interop_engine_create, dnnl_ocl_interop_stream_create);
 *   2. wraps its buffers as memory (dnnl_ocl_interop_memory_create);
 *   3. writes the input with a non-blocking clEnqueueWriteBuffer, and runs the
 *      primitive after that write's event (dnnl_ocl_interop_primitive_execute
 *      with deps): on an out-of-order queue the event is the only ordering;
 *   4. reads the result after the primitive's returned event (NULL on an in-order
 *      queue, where the queue's order suffices) and checks it.
 * With no OpenCL device it says so and exits 77 (skipped). */
#include <math.h>

#include "ocl_example.h"

#define N (1 << 20)

int main(void) {
    user_ocl_t u;
    if (!user_ocl_create(&u)) return 77;

    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_ocl_interop_engine_create(&engine, u.device, u.context));
    DNNL(dnnl_ocl_interop_stream_create(&stream, engine, u.queue));

    float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 2001) / 250.f - 4.f;
    cl_event written = NULL;
    cl_mem x_mem = user_buffer(&u, N, x, &written);
    cl_mem y_mem = user_buffer(&u, N, NULL, &(cl_event) {NULL});

    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {N};
    DNNL(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    dnnl_memory_t src = NULL, dst = NULL;
    DNNL(dnnl_ocl_interop_memory_create(&src, md, engine, dnnl_ocl_interop_buffer, x_mem));
    DNNL(dnnl_ocl_interop_memory_create(&dst, md, engine, dnnl_ocl_interop_buffer, y_mem));

    dnnl_primitive_desc_t pd = NULL;
    DNNL(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_gelu_erf, md, md, 0.f, 0.f, NULL));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    dnnl_primitive_t gelu = NULL;
    DNNL(dnnl_primitive_create(&gelu, pd));

    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    cl_event done = NULL;
    DNNL(dnnl_ocl_interop_primitive_execute(gelu, stream, 2, args, &written, 1, &done));
    printf("GELU (%s) enqueued after the input's write; returned event: %s\n", impl,
            done ? "yes (out-of-order queue)" : "NULL (in-order queue)");
    OCL(clEnqueueReadBuffer(
            u.queue, y_mem, CL_TRUE, 0, N * sizeof(float), y, done ? 1 : 0, done ? &done : NULL,
            NULL));

    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        double v = x[i], want = 0.5 * v * erfc(-v / sqrt(2.0));
        if (fabs(y[i] - want) > 1e-5 + 1e-5 * fabs(want)) {
            fprintf(stderr, "y[%d] = %g, expected %g\n", i, y[i], want);
            bad++;
        }
    }
    if (!bad) printf("%d results checked: gelu(%g) = %g\n", N, x[N - 1], y[N - 1]);

    if (done) OCL(clReleaseEvent(done));
    if (written) OCL(clReleaseEvent(written));
    DNNL(dnnl_primitive_destroy(gelu));
    DNNL(dnnl_primitive_desc_destroy(pd));
    DNNL(dnnl_memory_destroy(src));
    DNNL(dnnl_memory_destroy(dst));
    DNNL(dnnl_memory_desc_destroy(md));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    OCL(clReleaseMemObject(x_mem));
    OCL(clReleaseMemObject(y_mem));
    user_ocl_release(&u);
    free(x);
    free(y);
    return bad ? 1 : 0;
}
