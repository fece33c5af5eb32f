/* dnnl_set_jit_dump, dnnl_set_jit_profiling_flags and dnnl_set_jit_profiling_jitdumpdir
 * answer as Intel's x64 Linux build does (its @ref run proves the statuses): any dump
 * value and any directory (NULL included) succeed; profiling flags succeed for any
 * combination of the four DNNL_JIT_PROFILE_* bits and are dnnl_invalid_arguments with
 * any other bit. This library generates no code at run time, so they change nothing
 * else: a primitive still runs after them. */
#include "check.h"

int main(void) {
    CHECK(dnnl_set_jit_dump(0));
    CHECK(dnnl_set_jit_dump(1));
    CHECK(dnnl_set_jit_dump(-1));
    for (unsigned flags = 0; flags < 16; ++flags) CHECK(dnnl_set_jit_profiling_flags(flags));
    CHECK(dnnl_set_jit_profiling_flags(DNNL_JIT_PROFILE_LINUX_PERF | DNNL_JIT_PROFILE_VTUNE));
    CHECK_STATUS(dnnl_set_jit_profiling_flags(16), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_set_jit_profiling_flags(0x80000000u), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_set_jit_profiling_flags(~0u), dnnl_invalid_arguments);
    CHECK(dnnl_set_jit_profiling_flags(DNNL_JIT_PROFILE_NONE));
    CHECK(dnnl_set_jit_profiling_jitdumpdir(NULL));
    CHECK(dnnl_set_jit_profiling_jitdumpdir("/nonexistent/dir"));
    CHECK(dnnl_set_jit_profiling_jitdumpdir(""));

    /* The library still works: a ReLU eltwise on the CPU engine. */
    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {4};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 1, dims, dnnl_f32, dnnl_a));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_relu, md, md, 0.0f, 0.0f, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    float src[4] = {-1.0f, 2.0f, -3.0f, 4.0f}, dst[4] = {0};
    dnnl_memory_t s = NULL, d = NULL;
    CHECK(dnnl_memory_create(&s, md, engine, src));
    CHECK(dnnl_memory_create(&d, md, engine, dst));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}};
    CHECK(dnnl_primitive_execute(prim, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    EXPECT(dst[0] == 0.0f && dst[1] == 2.0f && dst[2] == 0.0f && dst[3] == 4.0f);
    CHECK(dnnl_memory_destroy(s));
    CHECK(dnnl_memory_destroy(d));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("ok\n");
    return 0;
}
