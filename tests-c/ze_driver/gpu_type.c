/* ZE_OCL_DEVICE_TYPE: the in-repository Level Zero driver (crates/ze-ocl-driver) can
 * report its device as a GPU, so that a program written for Intel GPUs runs on it
 * unchanged. Such a program asks the loader for GPU drivers only: with Debian's loader
 * (Level Zero 1.4) that is zeInit(ZE_INIT_FLAG_GPU_ONLY); newer loaders' zeInitDrivers
 * with the GPU driver flag asks the same of a driver of this API version.
 *
 * dnnl_ze_test runs the driver over Intel's CPU OpenCL runtime (OCL_ICD_VENDORS names
 * it alone), whose device is a CPU. tests.cmake registers this program three times:
 *   ZE_OCL_DEVICE_TYPE=gpu   zeInit(GPU_ONLY) succeeds, the device says
 *                            ZE_DEVICE_TYPE_GPU, and primitives (eltwise, matmul) run
 *                            through our Level Zero engine, both one made over the
 *                            user's handles (dnnl_ze_interop_engine_create) and
 *                            dnnl_engine_create(dnnl_gpu, 0) with ONEDNN_GPU_RUNTIME=ze,
 *                            with results checked against references computed here;
 *   unset                    zeInit(GPU_ONLY) finds no driver (the CPU device is
 *                            reported as what it is);
 *   ZE_OCL_DEVICE_TYPE=bogus the driver refuses to initialise (no driver either). */
#include <math.h>

#include "interop/ze/ze_util.h"

enum { M = 13, K = 37, N = 11, LEN = 1000 };

static float src_value(int i) {
    return (float)((i * 7) % 23) / 4.f - 2.5f;
}

/* relu over a 1-D tensor of LEN floats in shared USM of the user's context. */
static void run_relu(const ze_user_t *u, dnnl_engine_t e) {
    ze_command_list_handle_t list = ze_immediate_list(u);
    dnnl_stream_t s = NULL;
    CHECK(dnnl_ze_interop_stream_create(&s, e, list, 0));
    dnnl_memory_desc_t md = ze_md_f32(LEN);
    float *sp = ze_alloc(u, ZE_USM_SHARED, LEN * sizeof(float));
    float *dp = ze_alloc(u, ZE_USM_SHARED, LEN * sizeof(float));
    for (int i = 0; i < LEN; i++) {
        sp[i] = src_value(i);
        dp[i] = -999.f;
    }
    dnnl_memory_t src = NULL, dst = NULL;
    void *hs[1] = {sp}, *hd[1] = {dp};
    CHECK(dnnl_ze_interop_memory_create(&src, md, e, 1, hs));
    CHECK(dnnl_ze_interop_memory_create(&dst, md, e, 1, hd));
    dnnl_primitive_t relu = ze_eltwise(e, md, dnnl_eltwise_relu, 0.f, 0.f);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    CHECK(dnnl_primitive_execute(relu, s, 2, args));
    CHECK(dnnl_stream_wait(s));
    for (int i = 0; i < LEN; i++) {
        float want = src_value(i) > 0.f ? src_value(i) : 0.f;
        if (dp[i] != want) {
            fprintf(stderr, "relu dst[%d] = %g, want %g\n", i, dp[i], want);
            exit(1);
        }
    }
    printf("relu through the interop engine: %d values right\n", LEN);
    CHECK(dnnl_primitive_destroy(relu));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(s));
    ZE_CHECK(zeMemFree(u->context, sp));
    ZE_CHECK(zeMemFree(u->context, dp));
    ZE_CHECK(zeCommandListDestroy(list));
}

static dnnl_memory_t library_memory(dnnl_engine_t e, dnnl_dim_t rows, dnnl_dim_t cols) {
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {rows, cols};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, dnnl_ab));
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

/* dst = a * b (M x K times K x N) on a library stream of `e`, memory the library
 * allocates, written and read through map/unmap. */
static void run_matmul(dnnl_engine_t e, const char *what) {
    dnnl_stream_t s = NULL;
    CHECK(dnnl_stream_create(&s, e, dnnl_stream_default_flags));
    dnnl_memory_t a = library_memory(e, M, K), b = library_memory(e, K, N),
                  c = library_memory(e, M, N);
    float *p = NULL;
    CHECK(dnnl_memory_map_data(a, (void **)&p));
    for (int i = 0; i < M * K; i++)
        p[i] = src_value(i);
    CHECK(dnnl_memory_unmap_data(a, p));
    CHECK(dnnl_memory_map_data(b, (void **)&p));
    for (int i = 0; i < K * N; i++)
        p[i] = src_value(3 * i + 1);
    CHECK(dnnl_memory_unmap_data(b, p));

    const_dnnl_memory_desc_t amd, bmd, cmd;
    CHECK(dnnl_memory_get_memory_desc(a, &amd));
    CHECK(dnnl_memory_get_memory_desc(b, &bmd));
    CHECK(dnnl_memory_get_memory_desc(c, &cmd));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_matmul_primitive_desc_create(&pd, e, amd, bmd, NULL, cmd, NULL));
    dnnl_primitive_t mm = NULL;
    CHECK(dnnl_primitive_create(&mm, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
    CHECK(dnnl_primitive_execute(mm, s, 3, args));
    CHECK(dnnl_stream_wait(s));

    CHECK(dnnl_memory_map_data(c, (void **)&p));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int k = 0; k < K; k++)
                want += (double)src_value(i * K + k) * src_value(3 * (k * N + j) + 1);
            if (fabs(p[i * N + j] - want) > 1e-4 * (1 + fabs(want))) {
                fprintf(stderr, "%s: matmul dst[%d][%d] = %g, want %g\n", what, i, j,
                        p[i * N + j], want);
                exit(1);
            }
        }
    CHECK(dnnl_memory_unmap_data(c, p));
    printf("%s: matmul %dx%dx%d right\n", what, M, K, N);
    CHECK(dnnl_primitive_destroy(mm));
    CHECK(dnnl_memory_destroy(a));
    CHECK(dnnl_memory_destroy(b));
    CHECK(dnnl_memory_destroy(c));
    CHECK(dnnl_stream_destroy(s));
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *type = getenv("ZE_OCL_DEVICE_TYPE");
    printf("ZE_OCL_DEVICE_TYPE=%s\n", type ? type : "(unset)");
    const int want_gpu = type != NULL && strcmp(type, "gpu") == 0;

    ze_result_t r = zeInit(ZE_INIT_FLAG_GPU_ONLY);
    uint32_t n = 0;
    if (r == ZE_RESULT_SUCCESS) ZE_CHECK(zeDriverGet(&n, NULL));
    printf("zeInit(ZE_INIT_FLAG_GPU_ONLY) = 0x%x, %u driver(s)\n", (unsigned)r, n);
    if (!want_gpu) {
        /* No GPU driver: the loader's zeInit fails, or lists none. */
        EXPECT(r != ZE_RESULT_SUCCESS || n == 0);
        printf("no GPU driver, as expected\n");
        return 0;
    }
    ZE_CHECK(r);
    EXPECT(n >= 1);

    ze_user_t u;
    memset(&u, 0, sizeof u);
    n = 1;
    ZE_CHECK(zeDriverGet(&n, &u.driver));
    u.device = ze_first_device(u.driver);
    EXPECT(u.device != NULL);
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZE_CHECK(zeDeviceGetProperties(u.device, &props));
    printf("device \"%s\", type %d\n", props.name, (int)props.type);
    EXPECT(props.type == ZE_DEVICE_TYPE_GPU);
    EXPECT(strncmp(props.name, "ze-ocl: ", 8) == 0);
    u.context = ze_context_create(u.driver);
    u.ordinal = ze_compute_ordinal(u.device);

    dnnl_engine_t e = ze_engine(&u);
    run_relu(&u, e);
    run_matmul(e, "interop engine");
    CHECK(dnnl_engine_destroy(e));

    /* The library's own engine list (ONEDNN_GPU_RUNTIME=ze, set by tests.cmake). */
    EXPECT(dnnl_engine_get_count(dnnl_gpu) >= 1);
    dnnl_engine_t g = NULL;
    CHECK(dnnl_engine_create(&g, dnnl_gpu, 0));
    run_matmul(g, "dnnl_engine_create(dnnl_gpu, 0)");
    CHECK(dnnl_engine_destroy(g));

    ze_user_destroy(&u);
    printf("PASS\n");
    return 0;
}
