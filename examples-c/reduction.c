/* Reduction, in C: the L2 norm of each row of a matrix of embeddings
 * (dnnl_reduction_norm_lp_sum with p = 2: sqrt(sum |x|^2 + eps)), and the mean of
 * each column, on the engine named by the argument (cpu, the default, or gpu).
 *
 * The destination keeps the source's rank with a 1 in each reduced dimension; its
 * layout is `any`, and the library chooses the source's. The example checks every
 * result. On a gpu run without an OpenCL device it says so and exits 77 (skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

#define DNNL(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)s_); \
            exit(1); \
        } \
    } while (0)

enum { ROWS = 300, COLS = 128 };

/* Reduces src (ROWS x COLS, row-major) into dst_dims with alg; returns the results. */
static float *reduce(dnnl_engine_t engine, dnnl_stream_t stream, const float *x,
        const dnnl_dim_t *dst_dims, dnnl_alg_kind_t alg, float p, float eps, size_t n_out) {
    dnnl_dims_t src_dims = {ROWS, COLS};
    dnnl_memory_desc_t src_md = NULL, dst_any = NULL;
    DNNL(dnnl_memory_desc_create_with_tag(&src_md, 2, src_dims, dnnl_f32, dnnl_ab));
    DNNL(dnnl_memory_desc_create_with_tag(&dst_any, 2, dst_dims, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = NULL;
    DNNL(dnnl_reduction_primitive_desc_create(&pd, engine, alg, src_md, dst_any, p, eps, NULL));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    printf("%s into %ldx%ld (%s)\n", alg == dnnl_reduction_mean ? "mean" : "L2 norm",
            (long)dst_dims[0], (long)dst_dims[1], impl);
    const_dnnl_memory_desc_t dst_md = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);

    dnnl_memory_t src = NULL, dst = NULL;
    DNNL(dnnl_memory_create(&src, src_md, engine, DNNL_MEMORY_ALLOCATE));
    DNNL(dnnl_memory_create(&dst, dst_md, engine, DNNL_MEMORY_ALLOCATE));
    void *p_src = NULL;
    DNNL(dnnl_memory_map_data(src, &p_src));
    memcpy(p_src, x, sizeof(float) * ROWS * COLS);
    DNNL(dnnl_memory_unmap_data(src, p_src));

    dnnl_primitive_t prim = NULL;
    DNNL(dnnl_primitive_create(&prim, pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    DNNL(dnnl_primitive_execute(prim, stream, 2, args));
    DNNL(dnnl_stream_wait(stream));

    float *out = malloc(sizeof(float) * n_out);
    void *p_dst = NULL;
    DNNL(dnnl_memory_map_data(dst, &p_dst));
    memcpy(out, p_dst, sizeof(float) * n_out); /* a ROWSx1 or 1xCOLS tensor is dense */
    DNNL(dnnl_memory_unmap_data(dst, p_dst));

    DNNL(dnnl_primitive_destroy(prim));
    DNNL(dnnl_primitive_desc_destroy(pd));
    DNNL(dnnl_memory_destroy(src));
    DNNL(dnnl_memory_destroy(dst));
    DNNL(dnnl_memory_desc_destroy(src_md));
    DNNL(dnnl_memory_desc_destroy(dst_any));
    return out;
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: No OpenCL device is visible\n");
        return 77;
    }
    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    float *x = malloc(sizeof(float) * ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; i++)
        x[i] = (float)((i * 7919) % 2001 - 1000) / 1000.f;

    const float eps = 1e-6f;
    float *norms = reduce(engine, stream, x, (dnnl_dims_t) {ROWS, 1}, dnnl_reduction_norm_lp_sum,
            2.f, eps, ROWS);
    float *means = reduce(engine, stream, x, (dnnl_dims_t) {1, COLS}, dnnl_reduction_mean, 0.f,
            0.f, COLS);

    int bad = 0;
    for (int r = 0; r < ROWS; r++) {
        double s = 0;
        for (int c = 0; c < COLS; c++)
            s += (double)x[r * COLS + c] * x[r * COLS + c];
        double want = sqrt(s + eps);
        if (fabs(norms[r] - want) > 1e-5 * want) bad++;
    }
    for (int c = 0; c < COLS; c++) {
        double s = 0;
        for (int r = 0; r < ROWS; r++)
            s += x[r * COLS + c];
        double want = s / ROWS;
        if (fabs(means[c] - want) > 1e-5) bad++;
    }
    printf("%d results checked: %s\n", ROWS + COLS, bad ? "WRONG" : "ok");

    free(x);
    free(norms);
    free(means);
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    return bad ? 1 : 0;
}
