/* dnnl_ocl_interop_engine_create over a user device and context:
 * - the context is retained while the engine lives (CL_CONTEXT_REFERENCE_COUNT
 *   1 -> 2 -> 1) and so is the device (a root device's count stays 1 by the OpenCL
 *   spec; a sub-device's goes 1 -> 2 -> 1) (notes 2.1);
 * - dnnl_ocl_interop_engine_get_context / dnnl_ocl_interop_get_device return the exact
 *   handles, without retaining them (notes 2.1, 2.2);
 * - NULL device, context or output, and a non-OpenCL engine given to the getters,
 *   give dnnl_invalid_arguments (notes 2.2). */
#include "ocl_util.h"

static void sub_device(cl_device_id dev) {
    cl_uint max_sub = 0;
    clGetDeviceInfo(dev, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof(max_sub), &max_sub, NULL);
    cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_uint nsub = 0;
    if (max_sub < 2 || clCreateSubDevices(dev, props, 0, NULL, &nsub) != CL_SUCCESS
            || nsub == 0 || nsub > OCL_MAX_DEVICES) {
        printf("part skipped: the device cannot be partitioned equally, so the sub-device "
               "reference count is not checked\n");
        return;
    }
    cl_device_id subs[OCL_MAX_DEVICES];
    OCL_CHECK(clCreateSubDevices(dev, props, nsub, subs, NULL));
    cl_device_id sub = subs[0];
    for (cl_uint i = 1; i < nsub; i++)
        OCL_CHECK(clReleaseDevice(subs[i]));

    cl_context ctx = ocl_context_create(sub);
    cl_device_id listed = NULL;
    OCL_CHECK(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof(listed), &listed, NULL));
    if (listed != sub) {
        /* PoCL 3.1: a context made on a sub-device lists another device. The library
         * then rightly refuses the pair (the device is not in the context). */
        printf("part skipped: the runtime's context made on a sub-device lists another "
               "device (%p, not %p), so no engine can be made on the sub-device\n",
                (void *)listed, (void *)sub);
        OCL_CHECK(clReleaseContext(ctx));
        OCL_CHECK(clReleaseDevice(sub));
        return;
    }
    const cl_uint dev0 = ocl_device_refcount(sub), ctx0 = ocl_context_refcount(ctx);
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&engine, sub, ctx));
    EXPECT(ocl_device_refcount_settles(sub, dev0 + 1));
    EXPECT(ocl_context_refcount_settles(ctx, ctx0 + 1));
    cl_device_id got = NULL;
    CHECK(dnnl_ocl_interop_get_device(engine, &got));
    EXPECT(got == sub);
    EXPECT(ocl_device_refcount_settles(sub, dev0 + 1));
    CHECK(dnnl_engine_destroy(engine));
    EXPECT(ocl_device_refcount_settles(sub, dev0));
    EXPECT(ocl_context_refcount_settles(ctx, ctx0));
    OCL_CHECK(clReleaseContext(ctx));
    OCL_CHECK(clReleaseDevice(sub));
    printf("sub-device engine: device reference count %u -> %u -> %u: ok\n", dev0, dev0 + 1,
            dev0);
}

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = ocl_context_create(dev);

    const cl_uint ctx0 = ocl_context_refcount(ctx), dev0 = ocl_device_refcount(dev);
    EXPECT(ctx0 == 1);
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&engine, dev, ctx));
    EXPECT(engine != NULL);
    EXPECT(ocl_context_refcount_settles(ctx, 2));
    EXPECT(ocl_device_refcount_settles(dev, dev0));

    dnnl_engine_kind_t kind = dnnl_any_engine;
    CHECK(dnnl_engine_get_kind(engine, &kind));
    EXPECT(kind == dnnl_gpu);

    /* The getters return the exact handles and retain nothing. */
    cl_context got_ctx = NULL;
    cl_device_id got_dev = NULL;
    CHECK(dnnl_ocl_interop_engine_get_context(engine, &got_ctx));
    CHECK(dnnl_ocl_interop_get_device(engine, &got_dev));
    EXPECT(got_ctx == ctx);
    EXPECT(got_dev == dev);
    CHECK(dnnl_ocl_interop_engine_get_context(engine, &got_ctx));
    EXPECT(ocl_context_refcount_settles(ctx, 2));
    EXPECT(ocl_device_refcount_settles(dev, dev0));

    /* A second engine on the same context holds its own reference. */
    dnnl_engine_t engine2 = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&engine2, dev, ctx));
    EXPECT(ocl_context_refcount_settles(ctx, 3));
    CHECK(dnnl_engine_destroy(engine2));
    EXPECT(ocl_context_refcount_settles(ctx, 2));

    /* NULL arguments. */
    dnnl_engine_t bad = NULL;
    CHECK_STATUS(dnnl_ocl_interop_engine_create(&bad, NULL, ctx), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_create(&bad, dev, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_create(NULL, dev, ctx), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    EXPECT(ocl_context_refcount_settles(ctx, 2));
    CHECK_STATUS(dnnl_ocl_interop_engine_get_context(engine, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_get_device(engine, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_engine_get_context(NULL, &got_ctx), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_get_device(NULL, &got_dev), dnnl_invalid_arguments);

    /* A CPU engine has no OpenCL objects. */
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    CHECK_STATUS(dnnl_ocl_interop_engine_get_context(cpu, &got_ctx), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_get_device(cpu, &got_dev), dnnl_invalid_arguments);
    CHECK(dnnl_engine_destroy(cpu));

    CHECK(dnnl_engine_destroy(engine));
    EXPECT(ocl_context_refcount_settles(ctx, 1));
    EXPECT(ocl_device_refcount_settles(dev, dev0));
    OCL_CHECK(clReleaseContext(ctx));
    printf("context reference count 1 -> 2 -> 1, device %u throughout: ok\n", dev0);

    sub_device(dev);
    printf("ocl interop engine: ok\n");
    return 0;
}
