/* LRN on OpenCL devices: a work-item per element, in the output's memory
 * order, summing its window. Backward: lrn_bwd_terms stores per element
 * omega^-beta and diff_dst * src * omega^(-beta - 1) in the scratchpad
 * (dense, in the walk's order), lrn_bwd sums the latter over each window.
 *
 * Built by src/prims/lrn/ocl.rs after types.cl, with -D macros:
 *   DT                 the element type of every tensor
 *   NDIMS, N           dimensions, elements
 *   DIMS_INIT          the dimensions (comma separated)
 *   DIV_INIT           per dimension, the walk's divisor: position d of
 *                      work-item t is t / DIV[d] % DIMS[d] (and DIV[d] is
 *                      its stride in the dense scratchpad)
 *   SX_INIT, X_OFF0    src strides and first element
 *   SG_INIT, G_OFF0    diff_dst's (backward)
 *   SO_INIT, O_OFF0    the output's (dst, diff_src)
 *   ACROSS             1 across channels, 0 within a channel
 *   REACH              the window's reach on each side, -1 for no window
 *   WIN, WIN_TOTAL     within a channel: 2 * REACH + 1, and its power of
 *                      the number of spatial dimensions
 * Kernel arguments: alpha divided by the window's divisor, beta, k. */

#define DATA_T CAT(T_, DT)
#define LD(p, i) CAT(LD_, DT)(p, i)
#define ST(p, i, v) CAT(ST_, DT)(p, i, v)

constant long DIMS[NDIMS] = {DIMS_INIT};
constant long DIV[NDIMS] = {DIV_INIT};
constant long SX[NDIMS] = {SX_INIT};
constant long SO[NDIMS] = {SO_INIT};
#ifdef BWD
constant long SG[NDIMS] = {SG_INIT};
#endif

void lrn_position(long t, long *pos) {
    for (int d = 0; d < NDIMS; d++)
        pos[d] = t / DIV[d] % DIMS[d];
}

long lrn_offset(const long *pos, constant long *st, long base) {
    for (int d = 0; d < NDIMS; d++)
        base += pos[d] * st[d];
    return base;
}

/* The sum over the window of pos of f(offset), where the offset of pos is
 * `base` and the strides `st`; `EXPR` reads `off`. */
#if REACH < 0
#define WINDOW_SUM(acc, pos, st, base, EXPR) \
    do { \
    } while (0)
#elif ACROSS
#define WINDOW_SUM(acc, pos, st, base, EXPR) \
    do { \
        const long lo_ = max(pos[1] - REACH, 0L), hi_ = min(pos[1] + REACH, DIMS[1] - 1); \
        for (long c_ = lo_; c_ <= hi_; c_++) { \
            const long off = (base) + (c_ - pos[1]) * st[1]; \
            acc += (EXPR); \
        } \
    } while (0)
#else
#define WINDOW_SUM(acc, pos, st, base, EXPR) \
    do { \
        for (int w_ = 0; w_ < WIN_TOTAL; w_++) { \
            int r_ = w_, in_ = 1; \
            long off = (base); \
            for (int d_ = NDIMS - 1; d_ >= 2; d_--) { \
                const long dl_ = r_ % WIN - REACH; \
                r_ /= WIN; \
                const long p_ = pos[d_] + dl_; \
                in_ &= (p_ >= 0) & (p_ < DIMS[d_]); \
                off += dl_ * st[d_]; \
            } \
            if (in_) acc += (EXPR); \
        } \
    } while (0)
#endif

float lrn_omega(global const DATA_T *x, const long *pos, long xo, float ad, float k) {
    float sum = 0.0f;
    WINDOW_SUM(sum, pos, SX, xo, LD(x, off) * LD(x, off));
    return k + ad * sum;
}

#ifndef BWD
__kernel void lrn_fwd(
        global const DATA_T *x, global DATA_T *y, float ad, float beta, float k) {
    const long t = get_global_id(0);
    if (t >= N) return;
    long pos[NDIMS];
    lrn_position(t, pos);
    const long xo = lrn_offset(pos, SX, X_OFF0);
    const float om = lrn_omega(x, pos, xo, ad, k);
    ST(y, lrn_offset(pos, SO, O_OFF0), LD(x, xo) * pow(om, -beta));
}

#else
__kernel void lrn_bwd_terms(global const DATA_T *x, global const DATA_T *g,
        global float *scratch, float ad, float beta, float k) {
    const long t = get_global_id(0);
    if (t >= N) return;
    long pos[NDIMS];
    lrn_position(t, pos);
    const long xo = lrn_offset(pos, SX, X_OFF0);
    const float om = lrn_omega(x, pos, xo, ad, k);
    const float scaled = pow(om, -beta);
    scratch[t] = scaled;
    scratch[N + t] = LD(g, lrn_offset(pos, SG, G_OFF0)) * LD(x, xo) * scaled / om;
}

__kernel void lrn_bwd(global const DATA_T *x, global const DATA_T *g, global DATA_T *dx,
        global const float *scratch, float ad, float beta) {
    const long t = get_global_id(0);
    if (t >= N) return;
    long pos[NDIMS];
    lrn_position(t, pos);
    global const float *terms = scratch + N;
    float sum = 0.0f;
    WINDOW_SUM(sum, pos, DIV, t, terms[off]);
    const float v = LD(g, lrn_offset(pos, SG, G_OFF0)) * scratch[t]
            - 2.0f * ad * beta * LD(x, lrn_offset(pos, SX, X_OFF0)) * sum;
    ST(dx, lrn_offset(pos, SO, O_OFF0), v);
}
#endif
