/* What the OpenCL primitive examples (ocl_eltwise.c, ocl_matmul.c) share: error
 * macros, and the user's own OpenCL objects on the library's default device. */
#ifndef DNNL_EXAMPLES_OCL_EXAMPLE_H
#define DNNL_EXAMPLES_OCL_EXAMPLE_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"
#include "oneapi/dnnl/dnnl_ocl.h"

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

/* Stops the example on a failed OpenCL call. */
#define OCL(call) \
    do { \
        cl_int e_ = (call); \
        if (e_ != CL_SUCCESS) { \
            fprintf(stderr, "%s:%d: %s failed: OpenCL error %d\n", __FILE__, __LINE__, \
                    #call, (int)e_); \
            exit(1); \
        } \
    } while (0)

/* The user's side: a device (the library's default, the one of
 * dnnl_engine_create(dnnl_gpu, 0)), a context and a queue the program creates
 * itself, out-of-order where the device allows it. */
typedef struct {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    int out_of_order;
} user_ocl_t;

/* Fills `u`; returns 0 (after printing a SKIP: line) when no OpenCL device is
 * visible: the example then exits 77, the code CTest reads as "skipped". */
static inline int user_ocl_create(user_ocl_t *u) {
    if (dnnl_engine_get_count(dnnl_gpu) == 0) {
        printf("SKIP: No OpenCL device is visible: nothing to run.\n");
        return 0;
    }
    dnnl_engine_t probe = NULL;
    DNNL(dnnl_engine_create(&probe, dnnl_gpu, 0));
    DNNL(dnnl_ocl_interop_get_device(probe, &u->device));
    OCL(clRetainDevice(u->device));
    DNNL(dnnl_engine_destroy(probe));
    cl_int err = CL_SUCCESS;
    u->context = clCreateContext(NULL, 1, &u->device, NULL, NULL, &err);
    OCL(err);
    cl_command_queue_properties have = 0;
    OCL(clGetDeviceInfo(u->device, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof(have), &have,
            NULL));
    u->out_of_order = (have & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    cl_queue_properties props[]
            = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    u->queue = clCreateCommandQueueWithProperties(
            u->context, u->device, u->out_of_order ? props : NULL, &err);
    OCL(err);
    char name[256] = "";
    clGetDeviceInfo(u->device, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
    printf("device: %s, %s queue\n", name, u->out_of_order ? "out-of-order" : "in-order");
    return 1;
}

static inline void user_ocl_release(user_ocl_t *u) {
    OCL(clReleaseCommandQueue(u->queue));
    OCL(clReleaseContext(u->context));
    OCL(clReleaseDevice(u->device));
}

/* A user buffer of `n` floats, written from `host` (non-blocking): `*written`
 * is the event of the write. */
static inline cl_mem user_buffer(const user_ocl_t *u, size_t n, const float *host, cl_event *written) {
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(u->context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
    OCL(err);
    *written = NULL;
    if (host)
        OCL(clEnqueueWriteBuffer(u->queue, mem, CL_FALSE, 0, n * sizeof(float), host, 0, NULL,
                written));
    return mem;
}

#endif
