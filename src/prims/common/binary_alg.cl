/* The binary algorithms (prims::common::binary_alg): binary_op(alg, a, b, c)
 * with alg the index of BinaryAlg::cl_id, always a compile-time constant at
 * the call, so the switch folds away. c is select's condition. */
#ifndef DNNL_BINARY_ALG_CL
#define DNNL_BINARY_ALG_CL
#define BINARY_ADD 0
#define BINARY_MUL 1
#define BINARY_MAX 2
#define BINARY_MIN 3
#define BINARY_DIV 4
#define BINARY_SUB 5
#define BINARY_GE 6
#define BINARY_GT 7
#define BINARY_LE 8
#define BINARY_LT 9
#define BINARY_EQ 10
#define BINARY_NE 11
#define BINARY_SELECT 12

inline float binary_op(int alg, float a, float b, float c) {
    switch (alg) {
    case BINARY_ADD: return a + b;
    case BINARY_MUL: return a * b;
    case BINARY_MAX: return fmax(a, b);
    case BINARY_MIN: return fmin(a, b);
    case BINARY_DIV: return a / b;
    case BINARY_SUB: return a - b;
    case BINARY_GE: return a >= b ? 1.0f : 0.0f;
    case BINARY_GT: return a > b ? 1.0f : 0.0f;
    case BINARY_LE: return a <= b ? 1.0f : 0.0f;
    case BINARY_LT: return a < b ? 1.0f : 0.0f;
    case BINARY_EQ: return a == b ? 1.0f : 0.0f;
    case BINARY_NE: return a != b ? 1.0f : 0.0f;
    default: return c != 0.0f ? a : b;
    }
}

#endif
