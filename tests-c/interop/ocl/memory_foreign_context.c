/* Ours only: a cl_mem of another OpenCL context (here: a second context on the same
 * device) is refused with dnnl_invalid_arguments when memory is made from it or it is
 * set into memory of the engine, and is left untouched (reference count 1). Upstream
 * accepts it and fails only at execution ("mismatched OpenCL context for
 * primitive/memory", notes 2.4); we refuse it up front. */
#include "ocl_util.h"

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    dnnl_memory_desc_t md = ocl_md_f32(64);

    cl_context other = ocl_context_create(dev);
    cl_int err = CL_SUCCESS;
    cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 64 * sizeof(float), NULL, &err);
    OCL_CHECK(err);

    dnnl_memory_t bad = NULL;
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         &bad, md, engine, dnnl_ocl_interop_buffer, foreign),
            dnnl_invalid_arguments);
    void *handles[1] = {foreign};
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, md, engine, dnnl_ocl_interop_buffer, 1, handles),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&bad, md, engine, (void *)foreign), dnnl_invalid_arguments);
    EXPECT(bad == NULL);
    EXPECT(ocl_mem_refcount_settles(foreign, 1));

    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_ALLOCATE));
    cl_mem own = NULL;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &own));
    CHECK_STATUS(dnnl_ocl_interop_memory_set_mem_object(mem, foreign), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_data_handle(mem, (void *)foreign), dnnl_invalid_arguments);
    EXPECT(ocl_mem_refcount_settles(foreign, 1));
    cl_mem still = NULL;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(mem, &still));
    EXPECT(still == own);
    CHECK(dnnl_memory_destroy(mem));

    OCL_CHECK(clReleaseMemObject(foreign));
    OCL_CHECK(clReleaseContext(other));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine));
    OCL_CHECK(clReleaseContext(ctx));
    printf("cl_mem of another context refused: ok\n");
    return 0;
}
