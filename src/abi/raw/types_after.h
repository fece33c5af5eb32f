
/// A dimension whose value is given only at execution time.
#define DNNL_RUNTIME_DIM_VAL INT64_MIN

/// DNNL_RUNTIME_DIM_VAL as a size_t.
#define DNNL_RUNTIME_SIZE_VAL ((size_t)DNNL_RUNTIME_DIM_VAL)

/// Bit patterns of the float and int32_t values that mean "given at execution time".
static const union {
    unsigned u;
    float f;
} DNNL_RUNTIME_F32_VAL_REP = {0x7fc000d0};
static const int DNNL_RUNTIME_S32_VAL_REP = INT32_MIN;

/// A float value given only at execution time (a quiet NaN with a fixed payload).
#define DNNL_RUNTIME_F32_VAL (DNNL_RUNTIME_F32_VAL_REP.f)

/// An int32_t value given only at execution time.
#define DNNL_RUNTIME_S32_VAL DNNL_RUNTIME_S32_VAL_REP

/// The argument index of the input of binary post-op number `idx`.
#define DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) \
    (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * ((idx) + 1))
