/* dnnl_debug.h names enumerators as upstream does: no dnnl_ prefix, "undef" for
 * the *_undef values, the first-declared name for aliases, "unknown <kind>" for
 * values that are not enumerators. */
#include <string.h>

#include "check.h"

#define EXPECT_STR(call, expected) \
    do { \
        const char *got_ = (call); \
        if (got_ == NULL || strcmp(got_, (expected)) != 0) { \
            fprintf(stderr, "%s:%d: %s gave \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #call, \
                    got_ ? got_ : "(null)", (expected)); \
            exit(1); \
        } \
    } while (0)

int main(void) {
    EXPECT_STR(dnnl_status2str(dnnl_success), "success");
    EXPECT_STR(dnnl_status2str(dnnl_invalid_data_type), "invalid_data_type");
    EXPECT_STR(dnnl_status2str((dnnl_status_t)4242), "unknown status");
    EXPECT_STR(dnnl_dt2str(dnnl_bf16), "bf16");
    EXPECT_STR(dnnl_dt2str(dnnl_data_type_undef), "undef");
    EXPECT_STR(dnnl_dt2str((dnnl_data_type_t)4242), "unknown dt");
    EXPECT_STR(dnnl_fpmath_mode2str(dnnl_fpmath_mode_strict), "strict");
    EXPECT_STR(dnnl_accumulation_mode2str(dnnl_accumulation_mode_relaxed), "relaxed");
    EXPECT_STR(dnnl_engine_kind2str(dnnl_gpu), "gpu");
    EXPECT_STR(dnnl_engine_kind2str(dnnl_any_engine), "any");
    EXPECT_STR(dnnl_sparse_encoding2str(dnnl_csr), "csr");
    EXPECT_STR(dnnl_fmt_tag2str(dnnl_nchw), "abcd");
    EXPECT_STR(dnnl_fmt_tag2str(dnnl_nhwc), "acdb");
    EXPECT_STR(dnnl_fmt_tag2str(dnnl_OIhw16i16o), "ABcd16b16a");
    EXPECT_STR(dnnl_fmt_tag2str(dnnl_format_tag_any), "any");
    EXPECT_STR(dnnl_fmt_tag2str(dnnl_format_tag_undef), "undef");
    EXPECT_STR(dnnl_prop_kind2str(dnnl_forward), "forward_training");
    EXPECT_STR(dnnl_prim_kind2str(dnnl_matmul), "matmul");
    EXPECT_STR(dnnl_alg_kind2str(dnnl_binary_select), "binary_select");
    EXPECT_STR(dnnl_rnn_flags2str(dnnl_rnn_flags_undef), "undef");
    EXPECT_STR(dnnl_rnn_direction2str(dnnl_bidirectional_concat), "bidirectional_concat");
    EXPECT_STR(dnnl_scratchpad_mode2str(dnnl_scratchpad_mode_library), "library");
    EXPECT_STR(dnnl_rounding_mode2str(dnnl_rounding_mode_stochastic), "stochastic");
    EXPECT_STR(dnnl_quantization_mode2str(dnnl_quantization_mode_dynamic_mx), "dynamic_mx");
    EXPECT_STR(dnnl_cpu_isa2str(dnnl_cpu_isa_avx2), "cpu_isa_avx2");
    EXPECT_STR(dnnl_cpu_isa_hints2str(dnnl_cpu_isa_prefer_ymm), "cpu_isa_prefer_ymm");
    EXPECT_STR(dnnl_runtime2str(DNNL_RUNTIME_OCL), "OpenCL");
    EXPECT_STR(dnnl_runtime2str(12345u), "unknown");
    EXPECT_STR(dnnl_fmt_kind2str(dnnl_blocked), "blocked");
    EXPECT_STR(dnnl_fmt_kind2str(dnnl_format_kind_any), "any");
    printf("debug strings as upstream\n");
    return 0;
}
