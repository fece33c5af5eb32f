/* The oneDNN v1 names (seeds/ocl_interop_guide_v1.md): dnnl_engine_create_ocl(&e,
 * dnnl_gpu, dev, ctx), dnnl_engine_get_ocl_device and dnnl_engine_get_ocl_context
 * behave as dnnl_ocl_interop_engine_create and its getters: retain on create, release
 * on destroy, exact handles without retain, NULL arguments refused. A kind other than
 * dnnl_gpu is refused (v1 made only GPU engines from OpenCL objects). */
#include "ocl_util.h"

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = ocl_context_create(dev);
    EXPECT(ocl_context_refcount_settles(ctx, 1));

    dnnl_engine_t engine = NULL;
    CHECK(dnnl_engine_create_ocl(&engine, dnnl_gpu, dev, ctx));
    EXPECT(engine != NULL);
    EXPECT(ocl_context_refcount_settles(ctx, 2));
    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine, &kind));
    EXPECT(kind == dnnl_gpu);

    cl_device_id got_dev = NULL;
    cl_context got_ctx = NULL;
    CHECK(dnnl_engine_get_ocl_device(engine, &got_dev));
    CHECK(dnnl_engine_get_ocl_context(engine, &got_ctx));
    EXPECT(got_dev == dev);
    EXPECT(got_ctx == ctx);
    EXPECT(ocl_context_refcount_settles(ctx, 2));

    /* The v1 and v3 getters agree on an engine made either way. */
    CHECK(dnnl_ocl_interop_get_device(engine, &got_dev));
    EXPECT(got_dev == dev);
    dnnl_engine_t engine3 = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&engine3, dev, ctx));
    CHECK(dnnl_engine_get_ocl_context(engine3, &got_ctx));
    EXPECT(got_ctx == ctx);
    CHECK(dnnl_engine_destroy(engine3));

    dnnl_engine_t bad = NULL;
    CHECK_STATUS(dnnl_engine_create_ocl(&bad, dnnl_gpu, NULL, ctx), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create_ocl(&bad, dnnl_gpu, dev, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create_ocl(NULL, dnnl_gpu, dev, ctx), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create_ocl(&bad, dnnl_cpu, dev, ctx), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_create_ocl(&bad, dnnl_any_engine, dev, ctx), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    EXPECT(ocl_context_refcount_settles(ctx, 2));
    CHECK_STATUS(dnnl_engine_get_ocl_device(engine, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_get_ocl_context(engine, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_get_ocl_device(NULL, &got_dev), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_get_ocl_context(NULL, &got_ctx), dnnl_invalid_arguments);

    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    CHECK_STATUS(dnnl_engine_get_ocl_device(cpu, &got_dev), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_engine_get_ocl_context(cpu, &got_ctx), dnnl_invalid_arguments);
    CHECK(dnnl_engine_destroy(cpu));

    CHECK(dnnl_engine_destroy(engine));
    EXPECT(ocl_context_refcount_settles(ctx, 1));
    OCL_CHECK(clReleaseContext(ctx));
    printf("v1 engine interop: ok\n");
    return 0;
}
