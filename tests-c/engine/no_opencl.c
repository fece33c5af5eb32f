/* With no OpenCL platform visible (OCL_ICD_VENDORS pointing at an empty directory),
 * the library still loads: there are no GPU engines, asking for one is refused, and
 * the CPU engine works (DESIGN.md "Devices and engines": OpenCL is loaded at run time). */
#include "check.h"

int main(void) {
    EXPECT(dnnl_engine_get_count(dnnl_gpu) == 0);
    dnnl_engine_t engine = NULL;
    CHECK_STATUS(dnnl_engine_create(&engine, dnnl_gpu, 0), dnnl_invalid_arguments);
    EXPECT(engine == NULL);

    EXPECT(dnnl_engine_get_count(dnnl_cpu) == 1);
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("no OpenCL: 0 gpu engines, cpu engine works: ok\n");
    return 0;
}
