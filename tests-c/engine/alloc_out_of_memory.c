/* Allocations no device can make (issue 18): DNNL_MEMORY_ALLOCATE of 2^40 bytes, a
 * 4 TiB matmul-sized f32 tensor {2^20, 2^20}, 2^60 bytes, and one byte more than the
 * OpenCL device's largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE), through
 * dnnl_memory_create and dnnl_ocl_interop_memory_create (buffer and USM), return
 * dnnl_out_of_memory on the OpenCL engine as they do on the CPU engine (not
 * dnnl_runtime_error), write no output, and leave the engine usable. CTest also runs
 * it under ONEDNN_VERBOSE=error and matches the message naming the size and device.
 *
 *   alloc_out_of_memory cpu | gpu   (gpu: the first OpenCL engine; skipped without one) */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "oneapi/dnnl/dnnl_ocl.h"

#define SENTINEL ((dnnl_memory_t)(uintptr_t)0x5e5e5e50u)

static dnnl_memory_desc_t md_bytes(dnnl_dim_t rows, dnnl_dim_t cols, dnnl_data_type_t dt) {
    dnnl_memory_desc_t md = NULL;
    const dnnl_dim_t dims[] = {rows, cols};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dt, dnnl_ab));
    return md;
}

/* How: 0 dnnl_memory_create, 1 OpenCL buffer, 2 OpenCL USM. */
static void expect_oom(dnnl_engine_t e, const char *what, dnnl_memory_desc_t md, int how) {
    dnnl_memory_t m = SENTINEL;
    dnnl_status_t s;
    if (how == 0)
        s = dnnl_memory_create(&m, md, e, DNNL_MEMORY_ALLOCATE);
    else
        s = dnnl_ocl_interop_memory_create(&m, md, e,
                how == 1 ? dnnl_ocl_interop_buffer : dnnl_ocl_interop_usm, DNNL_MEMORY_ALLOCATE);
    if (how == 2 && s == dnnl_unimplemented) {
        printf("part skipped: %s through USM: the device has neither Intel USM nor SVM\n", what);
        return;
    }
    if (s != dnnl_out_of_memory) {
        fprintf(stderr, "%s (%s): got %s, expected out_of_memory\n", what,
                how == 0 ? "memory_create" : how == 1 ? "buffer" : "usm", dnnl_status2str(s));
        exit(1);
    }
    EXPECT(m == SENTINEL);
    printf("%s (%s): out_of_memory\n", what, how == 0 ? "memory_create" : how == 1 ? "buffer" : "usm");
}

int main(int argc, char **argv) {
    int on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    dnnl_engine_t e = NULL;
    CHECK(dnnl_engine_create(&e, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    int ways = on_gpu ? 3 : 1;

    dnnl_memory_desc_t tib = md_bytes(1 << 20, 1 << 20, dnnl_f32); /* 4 TiB */
    dnnl_memory_desc_t p40 = md_bytes((dnnl_dim_t)1 << 20, (dnnl_dim_t)1 << 20, dnnl_u8);
    dnnl_memory_desc_t p60 = md_bytes((dnnl_dim_t)1 << 30, (dnnl_dim_t)1 << 30, dnnl_u8);
    EXPECT(dnnl_memory_desc_get_size(tib) == (size_t)1 << 42);
    EXPECT(dnnl_memory_desc_get_size(p40) == (size_t)1 << 40);
    for (int how = 0; how < ways; how++) {
        expect_oom(e, "2^40 bytes", p40, how);
        expect_oom(e, "f32 {2^20, 2^20} (4 TiB)", tib, how);
        expect_oom(e, "2^60 bytes", p60, how);
    }
    if (on_gpu) {
        /* One byte more than the device's largest allocation. */
        cl_device_id dev = NULL;
        CHECK(dnnl_ocl_interop_get_device(e, &dev));
        cl_ulong largest = 0;
        EXPECT(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof largest, &largest, NULL)
                == CL_SUCCESS);
        dnnl_memory_desc_t above = md_bytes(1, (dnnl_dim_t)largest + 1, dnnl_u8);
        for (int how = 0; how < ways; how++)
            expect_oom(e, "CL_DEVICE_MAX_MEM_ALLOC_SIZE + 1 bytes", above, how);
        CHECK(dnnl_memory_desc_destroy(above));
    }

    /* The engine still allocates. */
    dnnl_memory_desc_t small = md_bytes(4, 4, dnnl_f32);
    dnnl_memory_t m = NULL;
    CHECK(dnnl_memory_create(&m, small, e, DNNL_MEMORY_ALLOCATE));
    float *p = NULL;
    CHECK(dnnl_memory_map_data(m, (void **)&p));
    EXPECT(p[0] == 0.0f && p[15] == 0.0f);
    CHECK(dnnl_memory_unmap_data(m, p));
    CHECK(dnnl_memory_destroy(m));
    CHECK(dnnl_memory_desc_destroy(small));
    CHECK(dnnl_memory_desc_destroy(tib));
    CHECK(dnnl_memory_desc_destroy(p40));
    CHECK(dnnl_memory_desc_destroy(p60));
    CHECK(dnnl_engine_destroy(e));
    printf("impossible allocations (%s): out_of_memory\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
