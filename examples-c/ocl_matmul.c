/* A matmul primitive through OpenCL interop, in C: dst = relu(src x weights + bias).
 *
 * The program owns its OpenCL context, queue and buffers (see ocl_example.h). It
 *   1. makes an engine and a stream over its context and queue;
 *   2. wraps its three input buffers and its output buffer as memory;
 *   3. writes the inputs with non-blocking writes and runs the matmul after all
 *      three writes' events (dnnl_ocl_interop_primitive_execute with deps);
 *   4. reads the result after the returned event and checks it against a
 *      reference computed here in double.
 * The ReLU is a post-op (dnnl_post_ops_append_eltwise); the bias is broadcast
 * over the rows. With no OpenCL device it says so and exits 77 (skipped). */
#include <math.h>

#include "ocl_example.h"

#define M 128
#define K 256
#define N 96

int main(void) {
    user_ocl_t u;
    if (!user_ocl_create(&u)) return 77;

    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_ocl_interop_engine_create(&engine, u.device, u.context));
    DNNL(dnnl_ocl_interop_stream_create(&stream, engine, u.queue));

    float *a = malloc(M * K * sizeof(float)), *w = malloc(K * N * sizeof(float));
    float *bias = malloc(N * sizeof(float)), *c = malloc(M * N * sizeof(float));
    for (int i = 0; i < M * K; i++)
        a[i] = (float)((i * 7) % 13) / 6.f - 1.f;
    for (int i = 0; i < K * N; i++)
        w[i] = (float)((i * 5) % 11) / 10.f - 0.5f;
    for (int j = 0; j < N; j++)
        bias[j] = (float)j / N - 0.5f;

    cl_event writes[3];
    cl_mem a_mem = user_buffer(&u, M * K, a, &writes[0]);
    cl_mem w_mem = user_buffer(&u, K * N, w, &writes[1]);
    cl_mem b_mem = user_buffer(&u, N, bias, &writes[2]);
    cl_mem c_mem = user_buffer(&u, M * N, NULL, &(cl_event) {NULL});

    dnnl_memory_desc_t a_md, w_md, b_md, c_md;
    DNNL(dnnl_memory_desc_create_with_tag(&a_md, 2, (dnnl_dims_t) {M, K}, dnnl_f32, dnnl_ab));
    DNNL(dnnl_memory_desc_create_with_tag(&w_md, 2, (dnnl_dims_t) {K, N}, dnnl_f32, dnnl_ab));
    DNNL(dnnl_memory_desc_create_with_tag(&b_md, 2, (dnnl_dims_t) {1, N}, dnnl_f32, dnnl_ab));
    DNNL(dnnl_memory_desc_create_with_tag(&c_md, 2, (dnnl_dims_t) {M, N}, dnnl_f32, dnnl_ab));
    dnnl_memory_t src, weights, b, dst;
    DNNL(dnnl_ocl_interop_memory_create(&src, a_md, engine, dnnl_ocl_interop_buffer, a_mem));
    DNNL(dnnl_ocl_interop_memory_create(&weights, w_md, engine, dnnl_ocl_interop_buffer, w_mem));
    DNNL(dnnl_ocl_interop_memory_create(&b, b_md, engine, dnnl_ocl_interop_buffer, b_mem));
    DNNL(dnnl_ocl_interop_memory_create(&dst, c_md, engine, dnnl_ocl_interop_buffer, c_mem));

    dnnl_post_ops_t ops = NULL;
    dnnl_primitive_attr_t attr = NULL;
    DNNL(dnnl_post_ops_create(&ops));
    DNNL(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0.f, 0.f));
    DNNL(dnnl_primitive_attr_create(&attr));
    DNNL(dnnl_primitive_attr_set_post_ops(attr, ops));
    dnnl_primitive_desc_t pd = NULL;
    DNNL(dnnl_matmul_primitive_desc_create(&pd, engine, a_md, w_md, b_md, c_md, attr));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    dnnl_primitive_t matmul = NULL;
    DNNL(dnnl_primitive_create(&matmul, pd));

    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights},
            {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}};
    cl_event done = NULL;
    DNNL(dnnl_ocl_interop_primitive_execute(matmul, stream, 4, args, writes, 3, &done));
    printf("matmul %dx%dx%d (%s) enqueued after the three input writes; returned event: %s\n",
            M, N, K, impl, done ? "yes (out-of-order queue)" : "NULL (in-order queue)");
    OCL(clEnqueueReadBuffer(u.queue, c_mem, CL_TRUE, 0, M * N * sizeof(float), c, done ? 1 : 0,
            done ? &done : NULL, NULL));

    int bad = 0;
    for (int i = 0; i < M && bad < 5; i++)
        for (int j = 0; j < N && bad < 5; j++) {
            double want = bias[j];
            for (int k = 0; k < K; k++)
                want += (double)a[i * K + k] * w[k * N + j];
            want = want > 0 ? want : 0;
            if (fabs(c[i * N + j] - want) > 1e-4 * (1.0 + fabs(want))) {
                fprintf(stderr, "c[%d][%d] = %g, expected %g\n", i, j, c[i * N + j], want);
                bad++;
            }
        }
    if (!bad) printf("%d results checked: c[%d][%d] = %g\n", M * N, M - 1, N - 1, c[M * N - 1]);

    if (done) OCL(clReleaseEvent(done));
    for (int i = 0; i < 3; i++)
        OCL(clReleaseEvent(writes[i]));
    DNNL(dnnl_primitive_destroy(matmul));
    DNNL(dnnl_primitive_desc_destroy(pd));
    DNNL(dnnl_primitive_attr_destroy(attr));
    DNNL(dnnl_post_ops_destroy(ops));
    dnnl_memory_t mems[] = {src, weights, b, dst};
    dnnl_memory_desc_t mds[] = {a_md, w_md, b_md, c_md};
    cl_mem bufs[] = {a_mem, w_mem, b_mem, c_mem};
    for (int i = 0; i < 4; i++) {
        DNNL(dnnl_memory_destroy(mems[i]));
        DNNL(dnnl_memory_desc_destroy(mds[i]));
        OCL(clReleaseMemObject(bufs[i]));
    }
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    user_ocl_release(&u);
    free(a);
    free(w);
    free(bias);
    free(c);
    return bad ? 1 : 0;
}
