/* Service functions of dnnl_common.h and dnnl.h that work without any engine:
 * verbose level, default floating-point math mode, data type sizes, primitive
 * cache capacity. */
#include <stdint.h>

#include "check.h"

int main(void) {
    int enabled = -1;
    CHECK(dnnl_set_verbose(2));
    CHECK(dnnl_verbose_profiling_enabled(&enabled));
    /* The header says 1; upstream writes its profiling flag bits (160), which a C
     * program reads as true all the same. */
    EXPECT(enabled != 0);
    if (library_is_ours()) EXPECT(enabled == 1);
    CHECK(dnnl_set_verbose(0));
    CHECK(dnnl_verbose_profiling_enabled(&enabled));
    EXPECT(enabled == 0);
    CHECK_STATUS(dnnl_set_verbose(3), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_verbose_profiling_enabled(NULL), dnnl_invalid_arguments);

    dnnl_fpmath_mode_t mode = dnnl_fpmath_mode_any;
    CHECK(dnnl_get_default_fpmath_mode(&mode));
    EXPECT(mode == dnnl_fpmath_mode_strict);
    CHECK(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_tf32));
    CHECK(dnnl_get_default_fpmath_mode(&mode));
    EXPECT(mode == dnnl_fpmath_mode_tf32);
    CHECK_STATUS(dnnl_set_default_fpmath_mode((dnnl_fpmath_mode_t)99), dnnl_invalid_arguments);
    CHECK(dnnl_get_default_fpmath_mode(&mode));
    EXPECT(mode == dnnl_fpmath_mode_tf32);
    CHECK_STATUS(dnnl_get_default_fpmath_mode(NULL), dnnl_invalid_arguments);

    EXPECT(dnnl_data_type_size(dnnl_f32) == 4);
    EXPECT(dnnl_data_type_size(dnnl_f16) == 2);
    EXPECT(dnnl_data_type_size(dnnl_s8) == 1);
    EXPECT(dnnl_data_type_size(dnnl_f64) == 8);
    EXPECT(dnnl_data_type_size(dnnl_data_type_undef) == SIZE_MAX);
    int capacity = -1;
    CHECK(dnnl_get_primitive_cache_capacity(&capacity));
    EXPECT(capacity == 1024);
    CHECK(dnnl_set_primitive_cache_capacity(0));
    CHECK(dnnl_get_primitive_cache_capacity(&capacity));
    EXPECT(capacity == 0);
    CHECK_STATUS(dnnl_set_primitive_cache_capacity(-1), dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_get_primitive_cache_capacity(NULL), dnnl_invalid_arguments);
    CHECK(dnnl_set_primitive_cache_capacity(16));
    CHECK(dnnl_get_primitive_cache_capacity(&capacity));
    EXPECT(capacity == 16);

    printf("service functions ok\n");
    return 0;
}
