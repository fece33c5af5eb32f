/* The in-repository Level Zero driver (crates/ze-ocl-driver) through the real Level
 * Zero loader: enumeration and properties, USM of each kind, immediate and regular
 * command lists with copies and fills, a SPIR-V kernel whose argument kinds (NULL
 * pointers, value sizes, local sizes) come from its SPIR-V, events ordering work across
 * lists and queues, kernel timestamps, the native binary round trip (and bare OpenCL
 * binaries), error codes.
 *
 * Environment (set by dnnl_ze_test and tests.cmake): ZE_ENABLE_ALT_DRIVERS names the
 * driver, ZE_DRIVER_TEST_SPV the SPIR-V of kernels.cl. No dnnl call: this tests the
 * driver alone. */
#define _POSIX_C_SOURCE 200809L
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZE_CHECK_STATUS(call, expected) \
    do { \
        ze_result_t got_ = (call); \
        if (got_ != (expected)) { \
            fprintf(stderr, "%s:%d: %s returned 0x%x, expected 0x%x\n", __FILE__, __LINE__, \
                    #call, (unsigned)got_, (unsigned)(expected)); \
            exit(1); \
        } \
    } while (0)
#define ZE_CHECK(call) ZE_CHECK_STATUS(call, ZE_RESULT_SUCCESS)
#define EXPECT(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            exit(1); \
        } \
    } while (0)

enum { N = 256, GROUP = 64 };

static ze_driver_handle_t driver;
static ze_device_handle_t device;
static ze_context_handle_t context;

typedef ze_result_t (*version_string_fn)(ze_driver_handle_t, char *, size_t *);

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc((size_t)n);
    EXPECT(data && fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void test_enumeration(void) {
    uint32_t n = 0;
    ZE_CHECK(zeDriverGet(&n, NULL));
    EXPECT(n >= 1);
    n = 1;
    ZE_CHECK(zeDriverGet(&n, &driver));

    ze_api_version_t version;
    ZE_CHECK(zeDriverGetApiVersion(driver, &version));
    EXPECT(ZE_MAJOR_VERSION(version) == 1);

    ze_driver_properties_t dprops = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    ZE_CHECK(zeDriverGetProperties(driver, &dprops));
    int nonzero = 0;
    for (int i = 0; i < ZE_MAX_DRIVER_UUID_SIZE; i++) nonzero |= dprops.uuid.id[i];
    EXPECT(nonzero);

    uint32_t next = 0;
    ZE_CHECK(zeDriverGetExtensionProperties(driver, &next, NULL));
    EXPECT(next >= 1);
    ze_driver_extension_properties_t ext[8];
    next = next > 8 ? 8 : next;
    ZE_CHECK(zeDriverGetExtensionProperties(driver, &next, ext));
    EXPECT(strcmp(ext[0].name, "ZE_intel_get_driver_version_string") == 0);
    version_string_fn get_version = NULL;
    ZE_CHECK(zeDriverGetExtensionFunctionAddress(
            driver, "zeIntelGetDriverVersionString", (void **)&get_version));
    size_t len = 0;
    ZE_CHECK(get_version(driver, NULL, &len));
    char text[256] = {0};
    EXPECT(len > 1 && len <= sizeof(text));
    ZE_CHECK(get_version(driver, text, &len));
    EXPECT(strlen(text) == len - 1 && strstr(text, "ze-ocl-driver"));
    void *none = NULL;
    ZE_CHECK_STATUS(zeDriverGetExtensionFunctionAddress(driver, "zeNoSuchFunction", &none),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);

    n = 0;
    ZE_CHECK(zeDeviceGet(driver, &n, NULL));
    EXPECT(n == 1);
    ZE_CHECK(zeDeviceGet(driver, &n, &device));

    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZE_CHECK(zeDeviceGetProperties(device, &props));
    EXPECT(strncmp(props.name, "ze-ocl: ", 8) == 0);
    EXPECT(props.maxMemAllocSize > 0);
    printf("device: %s (type %d, vendor 0x%x)\n", props.name, (int)props.type, props.vendorId);

    ze_device_compute_properties_t compute = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZE_CHECK(zeDeviceGetComputeProperties(device, &compute));
    EXPECT(compute.maxTotalGroupSize >= GROUP && compute.maxGroupSizeX >= GROUP);
    EXPECT(compute.numSubGroupSizes >= 1);

    ze_device_module_properties_t module = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ZE_CHECK(zeDeviceGetModuleProperties(device, &module));
    EXPECT(module.spirvVersionSupported >= ZE_MAKE_VERSION(1, 0));
    EXPECT(module.fp32flags & ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST);

    uint32_t groups = 0;
    ZE_CHECK(zeDeviceGetCommandQueueGroupProperties(device, &groups, NULL));
    EXPECT(groups == 1);
    ze_command_queue_group_properties_t group
            = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    ZE_CHECK(zeDeviceGetCommandQueueGroupProperties(device, &groups, &group));
    EXPECT(group.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
    EXPECT(group.maxMemoryFillPatternSize >= 4 && group.numQueues >= 1);

    uint32_t mems = 0;
    ZE_CHECK(zeDeviceGetMemoryProperties(device, &mems, NULL));
    EXPECT(mems == 1);
    ze_device_memory_properties_t mem = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    ZE_CHECK(zeDeviceGetMemoryProperties(device, &mems, &mem));
    EXPECT(mem.totalSize > 0);
}

static void test_memory(void) {
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hdesc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *host = NULL, *dev = NULL, *shared = NULL;
    ZE_CHECK(zeMemAllocHost(context, &hdesc, 4096, 64, &host));
    ZE_CHECK(zeMemAllocDevice(context, &ddesc, 4096, 64, device, &dev));
    ZE_CHECK(zeMemAllocShared(context, &ddesc, &hdesc, 4096, 64, device, &shared));
    EXPECT(((uintptr_t)host & 63) == 0 && ((uintptr_t)dev & 63) == 0);

    struct {
        void *ptr;
        ze_memory_type_t type;
        int has_device;
    } cases[] = {{host, ZE_MEMORY_TYPE_HOST, 0}, {dev, ZE_MEMORY_TYPE_DEVICE, 1},
            {shared, ZE_MEMORY_TYPE_SHARED, 1}};
    uint64_t ids[3];
    for (int i = 0; i < 3; i++) {
        ze_memory_allocation_properties_t props
                = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
        ze_device_handle_t owner = NULL;
        ZE_CHECK(zeMemGetAllocProperties(context, (char *)cases[i].ptr + 100, &props, &owner));
        EXPECT(props.type == cases[i].type);
        EXPECT(cases[i].has_device ? owner == device : owner == NULL);
        ids[i] = props.id;
        void *base = NULL;
        size_t size = 0;
        ZE_CHECK(zeMemGetAddressRange(context, (char *)cases[i].ptr + 100, &base, &size));
        EXPECT(base == cases[i].ptr && size >= 4096);
    }
    EXPECT(ids[0] != ids[1] && ids[1] != ids[2]);

    int on_stack = 0;
    ze_memory_allocation_properties_t props = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ZE_CHECK(zeMemGetAllocProperties(context, &on_stack, &props, NULL));
    EXPECT(props.type == ZE_MEMORY_TYPE_UNKNOWN);

    ZE_CHECK(zeMemFree(context, host));
    ZE_CHECK(zeMemFree(context, dev));
    ZE_CHECK(zeMemFree(context, shared));
}

static ze_event_pool_handle_t pool;

static ze_event_handle_t make_event(uint32_t index) {
    ze_event_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = index,
            .signal = ZE_EVENT_SCOPE_FLAG_HOST, .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t e;
    ZE_CHECK(zeEventCreate(pool, &desc, &e));
    return e;
}

static void *alloc_shared(size_t size) {
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hdesc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    ZE_CHECK(zeMemAllocShared(context, &ddesc, &hdesc, size, 0, device, &p));
    return p;
}

static void *alloc_device(size_t size) {
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    void *p = NULL;
    ZE_CHECK(zeMemAllocDevice(context, &ddesc, size, 0, device, &p));
    return p;
}

static ze_command_list_handle_t immediate_list(void) {
    ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
            .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_list_handle_t list;
    ZE_CHECK(zeCommandListCreateImmediate(context, device, &desc, &list));
    return list;
}

static ze_command_list_handle_t regular_list(void) {
    ze_command_list_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t list;
    ZE_CHECK(zeCommandListCreate(context, device, &desc, &list));
    return list;
}

static ze_command_queue_handle_t queue(void) {
    ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
            .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_queue_handle_t q;
    ZE_CHECK(zeCommandQueueCreate(context, device, &desc, &q));
    return q;
}

static void test_copy_fill(void) {
    unsigned char *dev = alloc_device(N), *host = alloc_shared(N);
    ze_event_handle_t done = make_event(0);

    /* Immediate: fill device memory, copy it back; the copy signals `done`. */
    ze_command_list_handle_t imm = immediate_list();
    unsigned char byte = 0xab;
    ZE_CHECK(zeCommandListAppendMemoryFill(imm, dev, &byte, 1, N, NULL, 0, NULL));
    ZE_CHECK(zeCommandListAppendBarrier(imm, NULL, 0, NULL));
    ZE_CHECK(zeCommandListAppendMemoryCopy(imm, host, dev, N, done, 0, NULL));
    ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 0xab);
    ZE_CHECK(zeCommandListDestroy(imm));
    ZE_CHECK(zeEventHostReset(done));
    ZE_CHECK_STATUS(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);

    /* Regular: a float pattern, then a 3-byte pattern over a tail, executed twice. */
    ze_command_list_handle_t list = regular_list();
    ze_command_queue_handle_t q = queue();
    float three = 3.0f;
    unsigned char abc[3] = {'a', 'b', 'c'};
    ZE_CHECK(zeCommandListAppendMemoryFill(list, dev, &three, sizeof(three), N, NULL, 0, NULL));
    ZE_CHECK(zeCommandListAppendMemoryFill(list, dev + N - 10, abc, 3, 10, NULL, 0, NULL));
    ZE_CHECK(zeCommandListAppendMemoryCopy(list, host, dev, N, NULL, 0, NULL));
    ZE_CHECK(zeCommandListClose(list));
    for (int run = 0; run < 2; run++) {
        memset(host, 0, N);
        ZE_CHECK(zeCommandQueueExecuteCommandLists(q, 1, &list, NULL));
        ZE_CHECK(zeCommandQueueSynchronize(q, UINT64_MAX));
        float f;
        memcpy(&f, host + 4, sizeof(f));
        EXPECT(f == 3.0f);
        for (int i = 0; i < 10; i++) EXPECT(host[N - 10 + i] == abc[i % 3]);
    }
    /* A closed list takes no more commands; reset reopens it. */
    ZE_CHECK_STATUS(zeCommandListAppendBarrier(list, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZE_CHECK(zeCommandListReset(list));
    ZE_CHECK(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    ZE_CHECK(zeCommandListDestroy(list));
    ZE_CHECK(zeCommandQueueDestroy(q));
    ZE_CHECK(zeEventDestroy(done));
    ZE_CHECK(zeMemFree(context, dev));
    ZE_CHECK(zeMemFree(context, host));
}

static ze_module_handle_t build_module(ze_module_format_t format, const void *data, size_t size) {
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = format,
            .inputSize = size, .pInputModule = data, .pBuildFlags = "-ze-opt-level=2"};
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zeModuleCreate(context, device, &desc, &module, &log);
    if (r != ZE_RESULT_SUCCESS) {
        size_t n = 0;
        zeModuleBuildLogGetString(log, &n, NULL);
        char *text = calloc(1, n + 1);
        zeModuleBuildLogGetString(log, &n, text);
        fprintf(stderr, "zeModuleCreate: 0x%x\n%s\n", (unsigned)r, text);
        exit(1);
    }
    size_t n = 0;
    ZE_CHECK(zeModuleBuildLogGetString(log, &n, NULL));
    EXPECT(n >= 1);
    ZE_CHECK(zeModuleBuildLogDestroy(log));
    return module;
}

static ze_kernel_handle_t make_kernel(ze_module_handle_t module, const char *name) {
    ze_kernel_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_kernel_handle_t k;
    ZE_CHECK(zeKernelCreate(module, &desc, &k));
    return k;
}

/* Runs scale_add(dst, src, alpha) over N items on `list` (immediate), checks dst. */
static void run_scale_add(ze_module_handle_t module, ze_command_list_handle_t list) {
    float *src = alloc_shared(N * sizeof(float)), *dst = alloc_shared(N * sizeof(float));
    for (int i = 0; i < N; i++) src[i] = (float)i;
    ze_kernel_handle_t k = make_kernel(module, "scale_add");
    ze_kernel_properties_t props = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ZE_CHECK(zeKernelGetProperties(k, &props));
    EXPECT(props.numKernelArgs == 4);
    uint32_t gx, gy, gz;
    ZE_CHECK(zeKernelSuggestGroupSize(k, N, 1, 1, &gx, &gy, &gz));
    EXPECT(gx >= 1 && N % gx == 0 && gy == 1 && gz == 1);
    ZE_CHECK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    float alpha = 2.0f;
    ZE_CHECK(zeKernelSetArgumentValue(k, 0, sizeof(dst), &dst));
    ZE_CHECK(zeKernelSetArgumentValue(k, 1, sizeof(src), &src));
    ZE_CHECK(zeKernelSetArgumentValue(k, 2, sizeof(alpha), &alpha));
    ZE_CHECK(zeKernelSetArgumentValue(k, 3, GROUP * sizeof(float), NULL));
    ZE_CHECK_STATUS(zeKernelSetArgumentValue(k, 4, sizeof(alpha), &alpha),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    /* Wrong sizes and a value for a local argument are refused (from the SPIR-V's
     * parameter types), and leave the arguments set above in place. */
    double wide = 2.0;
    ZE_CHECK_STATUS(zeKernelSetArgumentValue(k, 2, sizeof(wide), &wide),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    ZE_CHECK_STATUS(zeKernelSetArgumentValue(k, 0, sizeof(int), &dst),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    ZE_CHECK_STATUS(zeKernelSetArgumentValue(k, 3, GROUP * sizeof(float), &alpha),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_event_handle_t done = make_event(1);
    ze_group_count_t count = {N / GROUP, 1, 1};
    ZE_CHECK(zeCommandListAppendLaunchKernel(list, k, &count, done, 0, NULL));
    ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    for (int i = 0; i < N; i++) EXPECT(dst[i] == 2.0f * (float)i + 1.0f);
    ze_kernel_timestamp_result_t ts;
    ZE_CHECK(zeEventQueryKernelTimestamp(done, &ts));
    EXPECT(ts.global.kernelEnd >= ts.global.kernelStart);
    ZE_CHECK(zeEventDestroy(done));
    ZE_CHECK(zeKernelDestroy(k));
    ZE_CHECK(zeMemFree(context, src));
    ZE_CHECK(zeMemFree(context, dst));
}

/* copy_or_fill(dst, src, fill): src given, then src NULL (by a NULL value and by a
 * zero address): a NULL global pointer reaches the kernel as NULL. */
static void test_null_pointer_argument(ze_module_handle_t module, ze_command_list_handle_t list) {
    int *src = alloc_shared(N * sizeof(int)), *dst = alloc_shared(N * sizeof(int));
    for (int i = 0; i < N; i++) src[i] = 3 * i;
    ze_kernel_handle_t k = make_kernel(module, "copy_or_fill");
    ZE_CHECK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    int fill = -7;
    const int *null_src = NULL;
    ZE_CHECK(zeKernelSetArgumentValue(k, 0, sizeof(dst), &dst));
    ZE_CHECK(zeKernelSetArgumentValue(k, 2, sizeof(fill), &fill));
    ze_group_count_t count = {N / GROUP, 1, 1};
    for (int round = 0; round < 3; round++) {
        memset(dst, 0, N * sizeof(int));
        if (round == 0) ZE_CHECK(zeKernelSetArgumentValue(k, 1, sizeof(src), &src));
        if (round == 1) ZE_CHECK(zeKernelSetArgumentValue(k, 1, sizeof(src), NULL));
        if (round == 2) ZE_CHECK(zeKernelSetArgumentValue(k, 1, sizeof(null_src), &null_src));
        ze_event_handle_t done = make_event(5);
        ZE_CHECK(zeCommandListAppendLaunchKernel(list, k, &count, done, 0, NULL));
        ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
        ZE_CHECK(zeEventDestroy(done));
        for (int i = 0; i < N; i++) EXPECT(dst[i] == (round == 0 ? 3 * i : fill));
    }
    ZE_CHECK(zeKernelDestroy(k));
    ZE_CHECK(zeMemFree(context, src));
    ZE_CHECK(zeMemFree(context, dst));
}

/* The length of the driver's header in front of the OpenCL binary in a native binary
 * (crates/ze-ocl-driver/src/binary.rs: "ZEOCLBIN", u32 version, u32 kernel count, per
 * kernel u32 name length + name + u32 parameter count + 2 u32 per parameter). */
static uint32_t next_word(const unsigned char *bin, size_t size, size_t *at) {
    uint32_t word;
    EXPECT(*at + 4 <= size);
    memcpy(&word, bin + *at, 4);
    *at += 4;
    return word;
}

static size_t native_header_size(const unsigned char *bin, size_t size) {
    EXPECT(size > 16 && !memcmp(bin, "ZEOCLBIN", 8));
    size_t at = 12;
    for (uint32_t kernels = next_word(bin, size, &at); kernels > 0; kernels--) {
        at += next_word(bin, size, &at);
        at += 8 * (size_t)next_word(bin, size, &at);
    }
    EXPECT(at < size);
    return at;
}

/* Native binaries other than ours: a bare OpenCL binary builds, and its arguments are
 * either known to the runtime or refused as unsupported (never guessed); a header cut
 * short is an invalid native binary. */
static void test_foreign_binaries(const unsigned char *bin, size_t size) {
    size_t header = native_header_size(bin, size);
    ze_module_handle_t bare = build_module(ZE_MODULE_FORMAT_NATIVE, bin + header, size - header);
    ze_kernel_handle_t k = make_kernel(bare, "iota");
    void *p = NULL;
    ze_result_t r = zeKernelSetArgumentValue(k, 0, sizeof(p), &p);
    EXPECT(r == ZE_RESULT_SUCCESS || r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    printf("bare OpenCL binary: argument kinds %s\n",
            r == ZE_RESULT_SUCCESS ? "from the runtime" : "unknown (arguments refused)");
    ZE_CHECK(zeKernelDestroy(k));
    ZE_CHECK(zeModuleDestroy(bare));
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
            .format = ZE_MODULE_FORMAT_NATIVE, .inputSize = 16, .pInputModule = bin};
    ze_module_handle_t m = NULL;
    ZE_CHECK_STATUS(zeModuleCreate(context, device, &desc, &m, NULL),
            ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
}

static void test_events_order_lists(ze_module_handle_t module) {
    int *data = alloc_shared(N * sizeof(int)), *copy = alloc_shared(N * sizeof(int));
    memset(data, 0, N * sizeof(int));
    memset(copy, 0, N * sizeof(int));
    ze_event_handle_t host_gate = make_event(2), produced = make_event(3), done = make_event(4);

    /* Consumer list on queue B: waits for `produced`, then copies data -> copy. */
    ze_command_list_handle_t consumer = regular_list();
    ZE_CHECK(zeCommandListAppendWaitOnEvents(consumer, 1, &produced));
    ZE_CHECK(zeCommandListAppendMemoryCopy(consumer, copy, data, N * sizeof(int), done, 0, NULL));
    ZE_CHECK(zeCommandListClose(consumer));
    /* Producer list on queue A: waits for the host, then iota into data, signals. */
    ze_kernel_handle_t k = make_kernel(module, "iota");
    ZE_CHECK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    ZE_CHECK(zeKernelSetArgumentValue(k, 0, sizeof(data), &data));
    ze_command_list_handle_t producer = regular_list();
    ze_group_count_t count = {N / GROUP, 1, 1};
    ZE_CHECK(zeCommandListAppendLaunchKernel(producer, k, &count, produced, 1, &host_gate));
    ZE_CHECK(zeCommandListClose(producer));

    ze_command_queue_handle_t qa = queue(), qb = queue();
    /* The consumer is submitted first; nothing may run before the host opens the gate. */
    ZE_CHECK(zeCommandQueueExecuteCommandLists(qb, 1, &consumer, NULL));
    ZE_CHECK(zeCommandQueueExecuteCommandLists(qa, 1, &producer, NULL));
    sleep_ms(50);
    ZE_CHECK_STATUS(zeEventQueryStatus(produced), ZE_RESULT_NOT_READY);
    ZE_CHECK_STATUS(zeEventHostSynchronize(done, 1000000), ZE_RESULT_NOT_READY);
    ZE_CHECK_STATUS(zeCommandQueueSynchronize(qb, 1000), ZE_RESULT_NOT_READY);
    for (int i = 0; i < N; i++) EXPECT(data[i] == 0 && copy[i] == 0);

    ZE_CHECK(zeEventHostSignal(host_gate));
    ZE_CHECK(zeEventHostSynchronize(done, UINT64_MAX));
    ZE_CHECK(zeEventQueryStatus(produced));
    for (int i = 0; i < N; i++) EXPECT(copy[i] == i);

    /* Again after resetting the events: the same lists, the same order. */
    ZE_CHECK(zeCommandQueueSynchronize(qa, UINT64_MAX));
    ZE_CHECK(zeCommandQueueSynchronize(qb, UINT64_MAX));
    ZE_CHECK(zeEventHostReset(host_gate));
    ZE_CHECK(zeEventHostReset(produced));
    ZE_CHECK(zeEventHostReset(done));
    memset(data, 0, N * sizeof(int));
    memset(copy, 0, N * sizeof(int));
    ZE_CHECK(zeCommandQueueExecuteCommandLists(qb, 1, &consumer, NULL));
    ZE_CHECK(zeCommandQueueExecuteCommandLists(qa, 1, &producer, NULL));
    sleep_ms(20);
    ZE_CHECK_STATUS(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    ZE_CHECK(zeEventHostSignal(host_gate));
    ZE_CHECK(zeCommandQueueSynchronize(qb, UINT64_MAX));
    for (int i = 0; i < N; i++) EXPECT(copy[i] == i);

    ZE_CHECK(zeCommandQueueSynchronize(qa, UINT64_MAX));
    ZE_CHECK(zeCommandListDestroy(consumer));
    ZE_CHECK(zeCommandListDestroy(producer));
    ZE_CHECK(zeCommandQueueDestroy(qa));
    ZE_CHECK(zeCommandQueueDestroy(qb));
    ZE_CHECK(zeKernelDestroy(k));
    ZE_CHECK(zeEventDestroy(host_gate));
    ZE_CHECK(zeEventDestroy(produced));
    ZE_CHECK(zeEventDestroy(done));
    ZE_CHECK(zeMemFree(context, data));
    ZE_CHECK(zeMemFree(context, copy));
}

static void test_errors(ze_module_handle_t module) {
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZE_CHECK_STATUS(zeDeviceGetProperties(NULL, &props), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZE_CHECK_STATUS(zeDeviceGetProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_context_handle_t ctx = NULL;
    ZE_CHECK_STATUS(zeContextCreate(NULL, NULL, &ctx), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZE_CHECK_STATUS(zeContextCreate(driver, NULL, &ctx), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    void *p = NULL;
    ZE_CHECK_STATUS(zeMemAllocDevice(NULL, &ddesc, 64, 0, device, &p),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZE_CHECK_STATUS(zeMemAllocDevice(context, &ddesc, 64, 0, device, NULL),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZE_CHECK_STATUS(zeCommandListAppendBarrier(NULL, NULL, 0, NULL),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZE_CHECK_STATUS(zeEventHostSignal(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_kernel_desc_t kdesc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "no_such"};
    ze_kernel_handle_t k = NULL;
    ZE_CHECK_STATUS(zeKernelCreate(module, &kdesc, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    /* Not SPIR-V: the module is refused, with a build log. */
    static const unsigned char junk[64] = {1, 2, 3, 4};
    ze_module_desc_t mdesc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
            .format = ZE_MODULE_FORMAT_IL_SPIRV, .inputSize = sizeof(junk), .pInputModule = junk};
    ze_module_handle_t m = NULL;
    ze_result_t r = zeModuleCreate(context, device, &mdesc, &m, NULL);
    EXPECT(r != ZE_RESULT_SUCCESS && m == NULL);
}

int main(void) {
    const char *spv_path = getenv("ZE_DRIVER_TEST_SPV");
    if (!spv_path) {
        printf("SKIP: ZE_DRIVER_TEST_SPV is not set (clang-15/llvm-spirv-15 missing at configure)\n");
        return 77;
    }
    ze_result_t r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "zeInit returned 0x%x with ZE_ENABLE_ALT_DRIVERS=%s\n", (unsigned)r,
                getenv("ZE_ENABLE_ALT_DRIVERS") ? getenv("ZE_ENABLE_ALT_DRIVERS") : "(unset)");
        return 1;
    }
    test_enumeration();
    ze_context_desc_t cdesc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ZE_CHECK(zeContextCreate(driver, &cdesc, &context));
    ZE_CHECK(zeContextGetStatus(context));
    test_memory();

    ze_event_pool_desc_t pdesc = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
            .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP,
            .count = 8};
    ZE_CHECK(zeEventPoolCreate(context, &pdesc, 1, &device, &pool));
    test_copy_fill();

    size_t spv_size = 0;
    void *spv = read_file(spv_path, &spv_size);
    EXPECT(spv != NULL);
    ze_module_handle_t module = build_module(ZE_MODULE_FORMAT_IL_SPIRV, spv, spv_size);
    uint32_t nk = 0;
    ZE_CHECK(zeModuleGetKernelNames(module, &nk, NULL));
    EXPECT(nk == 3);
    const char *names[3];
    ZE_CHECK(zeModuleGetKernelNames(module, &nk, names));
    for (const char *want[] = {"scale_add", "iota", "copy_or_fill"}, **w = want; w < want + 3; w++)
        EXPECT(!strcmp(names[0], *w) || !strcmp(names[1], *w) || !strcmp(names[2], *w));
    ze_command_list_handle_t imm = immediate_list();
    run_scale_add(module, imm);
    test_null_pointer_argument(module, imm);
    test_events_order_lists(module);

    /* Native binary round trip: the binary builds a module whose kernel runs. */
    size_t bin_size = 0;
    ZE_CHECK(zeModuleGetNativeBinary(module, &bin_size, NULL));
    EXPECT(bin_size > 0);
    unsigned char *bin = malloc(bin_size);
    ZE_CHECK(zeModuleGetNativeBinary(module, &bin_size, bin));
    ze_module_handle_t native = build_module(ZE_MODULE_FORMAT_NATIVE, bin, bin_size);
    run_scale_add(native, imm);
    test_null_pointer_argument(native, imm);
    test_foreign_binaries(bin, bin_size);
    printf("native binary: %zu bytes (SPIR-V %zu bytes)\n", bin_size, spv_size);

    test_errors(module);

    ZE_CHECK(zeCommandListDestroy(imm));
    ZE_CHECK(zeModuleDestroy(native));
    ZE_CHECK(zeModuleDestroy(module));
    ZE_CHECK(zeEventPoolDestroy(pool));
    ZE_CHECK(zeContextDestroy(context));
    free(bin);
    free(spv);
    printf("ze driver smoke test passed\n");
    return 0;
}
