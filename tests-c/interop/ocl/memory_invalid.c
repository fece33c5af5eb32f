/* Argument rules of the OpenCL memory functions (notes 2.4):
 * - dnnl_ocl_interop_memory_get_mem_object: memory NULL -> success with *mem_object
 *   NULL; output NULL -> invalid_arguments; a CPU memory -> invalid_arguments;
 * - _set_mem_object, _get_memory_kind: NULL or a CPU memory -> invalid_arguments;
 * - dnnl_ocl_interop_memory_create(_v2): NULL memory/md/engine, a CPU engine, format
 *   `any`, run-time dims, an unknown memory kind -> invalid_arguments. */
#include "ocl_util.h"

int main(void) {
    cl_device_id dev = ocl_first_device_or_skip();
    cl_context ctx = NULL;
    dnnl_engine_t engine = ocl_engine_create(dev, &ctx);
    dnnl_memory_desc_t md = ocl_md_f32(32);

    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_create(&mem, md, engine, DNNL_MEMORY_ALLOCATE));

    /* get_mem_object */
    cl_mem m = (cl_mem)&m;
    CHECK(dnnl_ocl_interop_memory_get_mem_object(NULL, &m));
    EXPECT(m == NULL);
    CHECK_STATUS(dnnl_ocl_interop_memory_get_mem_object(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_ocl_mem_object(mem, NULL), dnnl_invalid_arguments);
    m = (cl_mem)&m;
    CHECK(dnnl_memory_get_ocl_mem_object(NULL, &m));
    EXPECT(m == NULL);

    /* set_mem_object, get_memory_kind */
    CHECK_STATUS(dnnl_ocl_interop_memory_set_mem_object(NULL, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_ocl_mem_object(NULL, NULL), dnnl_invalid_arguments);
    dnnl_ocl_interop_memory_kind_t kind = dnnl_ocl_interop_usm;
    CHECK_STATUS(dnnl_ocl_interop_memory_get_memory_kind(mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_get_memory_kind(NULL, &kind), dnnl_invalid_arguments);

    /* A CPU memory is not OpenCL memory. */
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    dnnl_memory_t cpu_mem = NULL;
    CHECK(dnnl_memory_create(&cpu_mem, md, cpu, DNNL_MEMORY_ALLOCATE));
    CHECK_STATUS(dnnl_ocl_interop_memory_get_mem_object(cpu_mem, &m), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_set_mem_object(cpu_mem, NULL), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_get_memory_kind(cpu_mem, &kind), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_get_ocl_mem_object(cpu_mem, &m), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_set_ocl_mem_object(cpu_mem, NULL), dnnl_invalid_arguments);
    CHECK(dnnl_memory_destroy(cpu_mem));

    /* dnnl_ocl_interop_memory_create(_v2) */
    dnnl_memory_t bad = NULL;
    void *alloc[1] = {DNNL_MEMORY_ALLOCATE};
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         &bad, md, cpu, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create_v2(
                         &bad, md, cpu, dnnl_ocl_interop_buffer, 1, alloc),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         NULL, md, engine, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         &bad, NULL, engine, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         &bad, md, NULL, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_ocl_interop_memory_create(&bad, md, engine,
                         (dnnl_ocl_interop_memory_kind_t)7, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    dnnl_memory_desc_t any = NULL;
    dnnl_dims_t dims = {32};
    CHECK(dnnl_memory_desc_create_with_tag(&any, 1, dims, dnnl_f32, dnnl_format_tag_any));
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         &bad, any, engine, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_memory_create(&bad, any, engine, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    dnnl_memory_desc_t rt = NULL;
    dnnl_dims_t rt_dims = {DNNL_RUNTIME_DIM_VAL};
    CHECK(dnnl_memory_desc_create_with_tag(&rt, 1, rt_dims, dnnl_f32, dnnl_a));
    CHECK_STATUS(dnnl_ocl_interop_memory_create(
                         &bad, rt, engine, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE),
            dnnl_invalid_arguments);
    EXPECT(bad == NULL);

    CHECK(dnnl_memory_desc_destroy(rt));
    CHECK(dnnl_memory_desc_destroy(any));
    CHECK(dnnl_engine_destroy(cpu));
    CHECK(dnnl_memory_destroy(mem));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_engine_destroy(engine));
    OCL_CHECK(clReleaseContext(ctx));
    printf("ocl memory argument checks: ok\n");
    return 0;
}
