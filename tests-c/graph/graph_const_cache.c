/* The constant tensor cache settings as oneDNN v3.13's library keeps them (probed
 * against Intel's libdnnl.so.3; the @ref twin checks it again):
 * - by default the flag is 0 and the capacity of every engine kind value is 0;
 * - a capacity is set per engine kind value, any value (any, cpu, gpu, and values
 *   no engine kind has), each read back on its own; it is in megabytes and kept in
 *   bytes, so SIZE_MAX >> 20 or more reads back as SIZE_MAX >> 20 (unlimited);
 * - the flag reads 1 while the cpu or the gpu capacity is nonzero (the others do not
 *   count): a capacity turns the cache on, capacity 0 for both turns it off;
 * - dnnl_graph_set_constant_tensor_cache(flag): positive sets the cpu and gpu
 *   capacities to SIZE_MAX >> 20, 0 sets them to 0 (the others keep theirs),
 *   negative is dnnl_invalid_arguments and changes nothing.
 * graph_mlp checks that a capacity alone turns the cache on for execution. */
#include <stdint.h>

#include "graph/graph_util.h"

#define UNLIMITED (SIZE_MAX >> 20)

static int flag(void) {
    int f = -1;
    CHECK(dnnl_graph_get_constant_tensor_cache(&f));
    return f;
}

static size_t cap(int kind) {
    size_t c = 12345;
    CHECK(dnnl_graph_get_constant_tensor_cache_capacity((dnnl_engine_kind_t)kind, &c));
    return c;
}

int main(void) {
    const int any = dnnl_any_engine, cpu = dnnl_cpu, gpu = dnnl_gpu;
    EXPECT(flag() == 0);
    EXPECT(cap(any) == 0 && cap(cpu) == 0 && cap(gpu) == 0 && cap(7) == 0 && cap(-1) == 0);
    printf("defaults: flag 0, capacities 0: ok\n");

    /* Kinds without engines keep their own values and leave the flag alone. */
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity((dnnl_engine_kind_t)7, 300));
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity((dnnl_engine_kind_t)-1, 400));
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_any_engine, 500));
    EXPECT(cap(7) == 300 && cap(-1) == 400 && cap(any) == 500);
    EXPECT(cap(cpu) == 0 && cap(gpu) == 0 && flag() == 0);
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_any_engine, 0));
    EXPECT(cap(any) == 0);

    /* The flag follows the cpu and gpu capacities. */
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_gpu, 10));
    EXPECT(flag() == 1 && cap(gpu) == 10 && cap(cpu) == 0);
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_cpu, 100));
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_gpu, 0));
    EXPECT(flag() == 1 && cap(cpu) == 100);
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_cpu, 0));
    EXPECT(flag() == 0);
    printf("capacities per kind value, the flag from cpu and gpu: ok\n");

    /* Megabytes kept as bytes: the largest value reads back as SIZE_MAX >> 20. */
    const size_t big[] = {UNLIMITED, UNLIMITED + 1, UNLIMITED + 2, SIZE_MAX - 1, SIZE_MAX};
    for (int i = 0; i < 5; i++) {
        CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_cpu, big[i]));
        EXPECT(cap(cpu) == UNLIMITED);
    }
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_cpu, UNLIMITED - 1));
    EXPECT(cap(cpu) == UNLIMITED - 1);
    printf("capacities saturate at SIZE_MAX >> 20: ok\n");

    /* The flag setter. */
    CHECK(dnnl_graph_set_constant_tensor_cache(0));
    EXPECT(flag() == 0 && cap(cpu) == 0 && cap(gpu) == 0);
    EXPECT(cap(7) == 300 && cap(-1) == 400);
    CHECK(dnnl_graph_set_constant_tensor_cache(5));
    EXPECT(flag() == 1 && cap(cpu) == UNLIMITED && cap(gpu) == UNLIMITED && cap(any) == 0);
    CHECK_STATUS(dnnl_graph_set_constant_tensor_cache(-1), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_set_constant_tensor_cache(INT32_MIN), dnnl_invalid_arguments);
    EXPECT(flag() == 1 && cap(cpu) == UNLIMITED);
    CHECK(dnnl_graph_set_constant_tensor_cache(0));
    CHECK(dnnl_graph_set_constant_tensor_cache(INT32_MAX));
    EXPECT(flag() == 1 && cap(gpu) == UNLIMITED);
    CHECK(dnnl_graph_set_constant_tensor_cache(0));
    EXPECT(flag() == 0);
    printf("dnnl_graph_set_constant_tensor_cache: ok\ngraph_const_cache: ok\n");
    return 0;
}
