/* ONEDNN_DEFAULT_FPMATH_MODE (set by CTest, any case) is the floating-point
 * math mode of new attributes until dnnl_set_default_fpmath_mode changes it. */
#include "attr_check.h"

int main(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_fpmath_mode_t mode;
    CHECK(dnnl_primitive_attr_get_fpmath_mode(attr, &mode));
    EXPECT(mode == dnnl_fpmath_mode_tf32);
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_f16));
    attr = new_attr();
    CHECK(dnnl_primitive_attr_get_fpmath_mode(attr, &mode));
    EXPECT(mode == dnnl_fpmath_mode_f16);
    CHECK(dnnl_primitive_attr_destroy(attr));
    printf("default fpmath mode from the environment: tf32\n");
    return 0;
}
