/* Level Zero interop, getting started: a primitive on the program's own Level Zero
 * objects.
 *
 * The program owns everything Level Zero: it
 *   1. picks a driver and a device (zeInit, zeDriverGet, zeDeviceGet) and makes a
 *      context and an immediate command list;
 *   2. makes a oneDNN engine over (driver, device, context) and a stream over the list
 *      (dnnl_ze_interop_engine_create, dnnl_ze_interop_stream_create);
 *   3. allocates device USM for the input and output and wraps it as oneDNN memory
 *      (dnnl_ze_interop_memory_create): the library never frees it;
 *   4. uploads the input with a copy that signals an event, and runs a leaky ReLU
 *      that waits for that event (dnnl_ze_interop_primitive_execute with one
 *      dependency; note that ndeps comes before deps);
 *   5. downloads the output with a copy that waits for the event the execute
 *      returned, waits for it on the host, and checks the result;
 *   6. destroys the oneDNN objects, then its own Level Zero objects.
 * Each step is printed. Without a Level Zero driver it says so and exits with 77
 * (what CTest reads as "skipped").
 *
 * On a machine without an Intel GPU, run it on the repository's test driver
 * (crates/ze-ocl-driver, over Intel's CPU OpenCL runtime; see the README):
 *   ZE_ENABLE_ALT_DRIVERS=<path to libze_ocl_driver.so> OCL_ICD_VENDORS=<intel icd dir>
 *   ./ze_interop */
#include <level_zero/ze_api.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"
#include "oneapi/dnnl/dnnl_ze.h"

/* Stops the example on a failed library call. */
#define DNNL(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    dnnl_status2str(s_)); \
            exit(1); \
        } \
    } while (0)

/* Stops the example on a failed Level Zero call. */
#define ZE(call) \
    do { \
        ze_result_t r_ = (call); \
        if (r_ != ZE_RESULT_SUCCESS) { \
            fprintf(stderr, "%s:%d: %s failed: Level Zero result 0x%x\n", __FILE__, \
                    __LINE__, #call, (unsigned)r_); \
            exit(1); \
        } \
    } while (0)

#define N (64 * 1024)
#define SLOPE 0.25f

/* The first driver that has a device, and that device; 0 when there is none. */
static int pick_device(ze_driver_handle_t *driver, ze_device_handle_t *device) {
    if (zeInit(0) != ZE_RESULT_SUCCESS) return 0;
    uint32_t ndrivers = 0;
    if (zeDriverGet(&ndrivers, NULL) != ZE_RESULT_SUCCESS || ndrivers == 0) return 0;
    ze_driver_handle_t drivers[16];
    if (ndrivers > 16) ndrivers = 16;
    ZE(zeDriverGet(&ndrivers, drivers));
    for (uint32_t i = 0; i < ndrivers; i++) {
        uint32_t ndevices = 1;
        if (zeDeviceGet(drivers[i], &ndevices, device) == ZE_RESULT_SUCCESS && ndevices) {
            *driver = drivers[i];
            return 1;
        }
    }
    return 0;
}

/* The ordinal of a command queue group that runs compute work. */
static uint32_t compute_ordinal(ze_device_handle_t device) {
    uint32_t n = 0;
    ZE(zeDeviceGetCommandQueueGroupProperties(device, &n, NULL));
    ze_command_queue_group_properties_t props[16];
    if (n > 16) n = 16;
    for (uint32_t i = 0; i < n; i++)
        props[i] = (ze_command_queue_group_properties_t) {
                ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES, NULL, 0, 0, 0};
    ZE(zeDeviceGetCommandQueueGroupProperties(device, &n, props));
    for (uint32_t i = 0; i < n; i++)
        if (props[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) return i;
    fprintf(stderr, "the device has no compute queue group\n");
    exit(1);
}

int main(void) {
    /* 1. The program's own driver, device, context and immediate command list. */
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t device = NULL;
    if (!pick_device(&driver, &device)) {
        printf("SKIP: No Level Zero driver with a device is visible: nothing to run "
               "(ZE_ENABLE_ALT_DRIVERS=%s).\n",
                getenv("ZE_ENABLE_ALT_DRIVERS") ? getenv("ZE_ENABLE_ALT_DRIVERS") : "unset");
        return 77;
    }
    ze_device_properties_t dprops = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZE(zeDeviceGetProperties(device, &dprops));
    printf("1. device: %s\n", dprops.name);

    ze_context_desc_t cdesc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    ZE(zeContextCreate(driver, &cdesc, &context));
    ze_command_queue_desc_t qdesc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL,
            compute_ordinal(device), 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
            ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    ZE(zeCommandListCreateImmediate(context, device, &qdesc, &list));
    printf("   context and immediate command list created\n");

    /* 2. A oneDNN engine and stream over them. */
    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_ze_interop_engine_create(&engine, driver, device, context));
    DNNL(dnnl_ze_interop_stream_create(&stream, engine, list, /*profiling=*/0));
    printf("2. engine over (driver, device, context), stream over the command list\n");

    /* 3. Device USM for the input and output, wrapped as memory. */
    ze_device_mem_alloc_desc_t ddesc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *src_usm = NULL, *dst_usm = NULL;
    ZE(zeMemAllocDevice(context, &ddesc, N * sizeof(float), 64, device, &src_usm));
    ZE(zeMemAllocDevice(context, &ddesc, N * sizeof(float), 64, device, &dst_usm));
    dnnl_memory_desc_t md = NULL;
    DNNL(dnnl_memory_desc_create_with_tag(&md, 1, (dnnl_dims_t) {N}, dnnl_f32, dnnl_a));
    dnnl_memory_t src = NULL, dst = NULL;
    DNNL(dnnl_ze_interop_memory_create(&src, md, engine, 1, &src_usm));
    DNNL(dnnl_ze_interop_memory_create(&dst, md, engine, 1, &dst_usm));
    printf("3. %d floats of device USM each for src and dst, wrapped as memory\n", N);

    /* 4. Upload (signals `uploaded`), then the primitive after `uploaded`. */
    float *host = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        host[i] = (float)(i % 200) - 100.f;
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
            ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ze_event_pool_handle_t pool = NULL;
    ZE(zeEventPoolCreate(context, &pdesc, 1, &device, &pool));
    ze_event_desc_t edesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST,
            ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t uploaded = NULL, downloaded = NULL;
    ZE(zeEventCreate(pool, &edesc, &uploaded));
    edesc.index = 1;
    ZE(zeEventCreate(pool, &edesc, &downloaded));
    ZE(zeCommandListAppendMemoryCopy(list, src_usm, host, N * sizeof(float), uploaded, 0, NULL));

    dnnl_primitive_desc_t pd = NULL;
    DNNL(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_relu, md, md, SLOPE, 0.f, NULL));
    const char *impl = NULL;
    DNNL(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    dnnl_primitive_t relu = NULL;
    DNNL(dnnl_primitive_create(&relu, pd));
    DNNL(dnnl_primitive_desc_destroy(pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    ze_event_handle_t done = NULL;
    DNNL(dnnl_ze_interop_primitive_execute(relu, stream, 2, args, 1, &uploaded, &done));
    printf("4. input upload appended; leaky ReLU (%s) appended after its event; "
           "returned event: %s\n",
            impl, done ? "yes" : "NULL");

    /* 5. Download after the returned event; wait on the host; check. */
    ZE(zeCommandListAppendMemoryCopy(list, host, dst_usm, N * sizeof(float), downloaded,
            done ? 1 : 0, done ? &done : NULL));
    if (done) ZE(zeEventHostSynchronize(done, UINT64_MAX));
    ZE(zeEventHostSynchronize(downloaded, UINT64_MAX));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float x = (float)(i % 200) - 100.f, want = x > 0 ? x : SLOPE * x;
        if (host[i] != want && bad++ < 5)
            fprintf(stderr, "dst[%d] = %g, want %g\n", i, host[i], want);
    }
    printf("5. returned event waited, output downloaded: %s\n", bad ? "WRONG" : "correct");

    /* 6. The library's objects first; then the program's own, which are still its. */
    DNNL(dnnl_primitive_destroy(relu));
    DNNL(dnnl_memory_destroy(src));
    DNNL(dnnl_memory_destroy(dst));
    DNNL(dnnl_memory_desc_destroy(md));
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    ZE(zeEventDestroy(uploaded));
    ZE(zeEventDestroy(downloaded));
    ZE(zeEventPoolDestroy(pool));
    ZE(zeMemFree(context, src_usm));
    ZE(zeMemFree(context, dst_usm));
    ZE(zeCommandListDestroy(list));
    ZE(zeContextDestroy(context));
    free(host);
    printf("6. oneDNN objects destroyed, then the program's Level Zero objects\n");
    return bad ? 1 : 0;
}
