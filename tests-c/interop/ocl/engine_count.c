/* GPU engines are the OpenCL devices: dnnl_engine_get_count(dnnl_gpu) equals the
 * number of available OpenCL devices of every type, and dnnl_engine_create(dnnl_gpu, i)
 * wraps the i-th in the library's order (GPU, accelerator, then CPU-type devices:
 * DESIGN.md "Devices and engines"), in a context of the library's own that holds the
 * device (notes 2.2: "dnnl_engine_create ... creates its own context"). */
#include "ocl_util.h"

int main(void) {
    cl_device_id devs[OCL_MAX_DEVICES];
    size_t n = ocl_devices(devs, OCL_MAX_DEVICES);
    if (n == 0) {
        EXPECT(dnnl_engine_get_count(dnnl_gpu) == 0);
        SKIP("no OpenCL device is visible (checked: dnnl_engine_get_count(dnnl_gpu) == 0)");
    }
    EXPECT(n <= OCL_MAX_DEVICES);
    size_t count = dnnl_engine_get_count(dnnl_gpu);
    if (count != n) {
        fprintf(stderr, "dnnl_engine_get_count(dnnl_gpu) = %zu, OpenCL lists %zu devices\n",
                count, n);
        return 1;
    }

    for (size_t i = 0; i < n; i++) {
        char desc[600];
        ocl_describe(devs[i], desc, sizeof(desc));
        dnnl_engine_t engine = NULL;
        CHECK(dnnl_engine_create(&engine, dnnl_gpu, i));
        dnnl_engine_kind_t kind = dnnl_any_engine;
        CHECK(dnnl_engine_get_kind(engine, &kind));
        EXPECT(kind == dnnl_gpu);

        cl_device_id dev = NULL;
        CHECK(dnnl_ocl_interop_get_device(engine, &dev));
        if (dev != devs[i]) {
            fprintf(stderr, "engine %zu wraps device %p, expected %p: %s\n", i, (void *)dev,
                    (void *)devs[i], desc);
            return 1;
        }
        cl_context ctx = NULL;
        CHECK(dnnl_ocl_interop_engine_get_context(engine, &ctx));
        EXPECT(ctx != NULL);
        cl_uint ndev = 0;
        OCL_CHECK(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof(ndev), &ndev, NULL));
        EXPECT(ndev >= 1 && ndev <= OCL_MAX_DEVICES);
        cl_device_id ctx_devs[OCL_MAX_DEVICES];
        OCL_CHECK(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, ndev * sizeof(cl_device_id),
                ctx_devs, NULL));
        int found = 0;
        for (cl_uint d = 0; d < ndev; d++)
            found |= ctx_devs[d] == dev;
        EXPECT(found);
        CHECK(dnnl_engine_destroy(engine));
        printf("gpu engine %zu: %s\n", i, desc);
    }

    dnnl_engine_t bad = NULL;
    CHECK_STATUS(dnnl_engine_create(&bad, dnnl_gpu, n), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    CHECK_STATUS(dnnl_engine_create(&bad, dnnl_gpu, (size_t)-1), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    printf("%zu gpu engine(s): ok\n", n);
    return 0;
}
