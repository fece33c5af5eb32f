/* Reduction on OpenCL devices: a work-group of LX x LY work-items handles LX
 * outputs; the LY work-items of an output stride through (a chunk of) its
 * reduction and combine through local memory.
 *
 * Built by src/prims/reduction/ocl.rs after types.cl, positions.cl and the
 * post-ops prelude, with -D macros:
 *   S_DT, D_DT        element types of the source and destination (F32 for
 *                     partial results)
 *   ALG               0 max, 1 min, 2 sum, 3 mul, 4 mean, 5 norm_lp_max,
 *                     6 norm_lp_sum, 7 norm_lp_power_p_max, 8 norm_lp_power_p_sum
 *   P, EPS            the algorithm's p and eps (exact, as bit patterns)
 *   FIRST             1 when the source holds elements (|x|^p applies to
 *                     them), 0 when it holds partial accumulators
 *   PARTIAL           1: the destination gets the accumulator of chunk c at
 *                     c * OUTPUTS + o; 0: the finished value, with post-ops
 *   PART_OFF          where partial results start in their buffer (elements)
 *   OUTPUTS, R, CH    outputs, elements reduced per output in this pass,
 *                     elements per chunk (get_group_id(1) picks the chunk)
 *   R_TOTAL           elements reduced per output in all (the mean's divisor)
 *   LX, LY            the work-group shape (LY a power of two)
 *   S_BASE, R_OFF     source offsets of output o and of reduction index r
 *   D_OFF, P<d>, NDIMS  destination offset and logical position of output o */

#define S_T CAT(T_, S_DT)
#define D_T CAT(T_, D_DT)

#if ALG == 0
#define INIT (-INFINITY)
#define COMBINE(a, b) fmax(a, b)
#elif ALG == 1
#define INIT INFINITY
#define COMBINE(a, b) fmin(a, b)
#elif ALG == 3
#define INIT 1.0f
#define COMBINE(a, b) ((a) * (b))
#else
#define INIT 0.0f
#define COMBINE(a, b) ((a) + (b))
#endif

#if FIRST && ALG >= 5
#if P_ONE
#define ACC_IN(x) fabs(x)
#elif P_TWO
#define ACC_IN(x) ((x) * (x))
#else
#define ACC_IN(x) pow(fabs(x), P)
#endif
#else
#define ACC_IN(x) (x)
#endif

float finish(float acc) {
#if ALG == 4
    return acc / (float)R_TOTAL;
#elif ALG == 5
    return pow(fmax(acc, EPS), 1.0f / P);
#elif ALG == 6
    return pow(acc + EPS, 1.0f / P);
#elif ALG == 7
    return fmax(acc, EPS);
#elif ALG == 8
    return acc + EPS;
#else
    return acc;
#endif
}

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void reduction(
        global const S_T *s, global D_T *d POST_OPS_PARAMS) {
    const long lx = get_local_id(0), ly = get_local_id(1);
    const long o = get_group_id(0) * LX + lx;
    const long c = get_group_id(1);
    float acc = INIT;
    if (o < OUTPUTS) {
        const long base = S_BASE;
        const long end = min((long)R, (c + 1) * (long)CH);
        for (long r = c * (long)CH + ly; r < end; r += LY) {
            const float x = CAT(LD_, S_DT)(s, base + R_OFF);
            acc = COMBINE(acc, ACC_IN(x));
        }
    }
#if LY > 1
    local float red[LY * LX];
    red[ly * LX + lx] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = LY / 2; k > 0; k >>= 1) {
        if (ly < k) red[ly * LX + lx] = COMBINE(red[ly * LX + lx], red[(ly + k) * LX + lx]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc = red[lx];
#endif
    if (ly != 0 || o >= OUTPUTS) return;
#if PARTIAL
    d[PART_OFF + c * OUTPUTS + o] = acc;
#else
    DECL_POSITIONS
    const long pos[NDIMS] = {LPOS};
#if POST_OPS_SUM
    const float old = CAT(LD_, PO_SUM_DT)((global CAT(T_, PO_SUM_DT) *)d, D_OFF);
#else
    const float old = 0.0f;
#endif
    const float v = post_ops(finish(acc), old, pos POST_OPS_ARGS);
    CAT(ST_, D_DT)(d, D_OFF, v);
#endif
}
