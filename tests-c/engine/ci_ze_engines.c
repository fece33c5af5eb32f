/* The Level Zero engine CI must see: through the loader with the in-repository test
 * driver (engine_ci_ze_engines@ze, @ze-validation), a driver with a device named
 * "ze-ocl: ...", an engine over it through dnnl_ze_interop_engine_create, and, under
 * ONEDNN_GPU_RUNTIME=ze, a GPU engine from dnnl_engine_create. No driver or device is
 * a failure here, never a skip (the runner still exits 77 when the loader or Intel's
 * OpenCL runtime is not installed; scripts/test.sh fails on that skip). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "interop/ze/ze_util.h"

int main(void) {
    /* Read once per process, at the first engine call: set before any. */
    EXPECT(setenv("ONEDNN_GPU_RUNTIME", "ze", 1) == 0);
    EXPECT(zeInit(0) == ZE_RESULT_SUCCESS);
    uint32_t nd = 0;
    EXPECT(zeDriverGet(&nd, NULL) == ZE_RESULT_SUCCESS);
    printf("%u Level Zero driver(s)\n", nd);
    if (nd == 0) {
        fprintf(stderr, "no Level Zero driver: CI must see the test driver\n");
        return 1;
    }
    ze_driver_handle_t drivers[8];
    if (nd > 8) nd = 8;
    ZE_CHECK(zeDriverGet(&nd, drivers));
    int found = 0;
    for (uint32_t i = 0; i < nd && !found; i++) {
        uint32_t ndev = 0;
        ZE_CHECK(zeDeviceGet(drivers[i], &ndev, NULL));
        ze_device_handle_t devs[8];
        if (ndev > 8) ndev = 8;
        ZE_CHECK(zeDeviceGet(drivers[i], &ndev, devs));
        for (uint32_t j = 0; j < ndev && !found; j++) {
            ze_device_properties_t props;
            memset(&props, 0, sizeof props);
            props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
            ZE_CHECK(zeDeviceGetProperties(devs[j], &props));
            printf("  driver %u device %u: %s\n", i, j, props.name);
            if (strncmp(props.name, "ze-ocl: ", 8) != 0) continue;
            found = 1;
            ze_context_handle_t ctx = ze_context_create(drivers[i]);
            dnnl_engine_t e = NULL;
            CHECK(dnnl_ze_interop_engine_create(&e, drivers[i], devs[j], ctx));
            dnnl_engine_kind_t kind;
            CHECK(dnnl_engine_get_kind(e, &kind));
            EXPECT(kind == dnnl_gpu);
            CHECK(dnnl_engine_destroy(e));
            ZE_CHECK(zeContextDestroy(ctx));
        }
    }
    if (!found) {
        fprintf(stderr, "no device of the test driver (named 'ze-ocl: ...')\n");
        return 1;
    }
    size_t n = dnnl_engine_get_count(dnnl_gpu);
    printf("ONEDNN_GPU_RUNTIME=ze: %zu GPU engine(s)\n", n);
    EXPECT(n >= 1);
    dnnl_engine_t e = NULL;
    CHECK(dnnl_engine_create(&e, dnnl_gpu, 0));
    CHECK(dnnl_engine_destroy(e));
    printf("the Level Zero test driver gives a working engine\n");
    return 0;
}
