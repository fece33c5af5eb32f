/* Shuffle on OpenCL devices: a work-item per VEC consecutive output
 * elements in the output's memory order, copied as bytes from the input
 * elements the permutation names.
 *
 * Built by src/prims/shuffle/ocl.rs with -D macros:
 *   T        the element's bits as an unsigned type (uchar, ushort, uint)
 *   VEC      elements per work-item: 1, or a run of 2, 4, 8 or 16 along the
 *            innermost dimension (contiguous, not the axis)
 *   IDX_T    int, or long where an offset may not fit
 *   N        work-items
 *   OFF_OUT  output offset of element e (an expression in e)
 *   OFF_IN   input offset of element e (the axis position permuted) */

__kernel void shuffle_permute(global const T *s, global T *d) {
    const IDX_T t = (IDX_T)get_global_id(0);
    if (t >= N) return;
    const IDX_T e = t * VEC;
#if VEC == 1
    d[OFF_OUT] = s[OFF_IN];
#else
#define SHUFFLE_CAT_(a, b) a##b
#define SHUFFLE_CAT(a, b) SHUFFLE_CAT_(a, b)
#define VLOAD SHUFFLE_CAT(vload, VEC)
#define VSTORE SHUFFLE_CAT(vstore, VEC)
    VSTORE(VLOAD(0, s + (OFF_IN)), 0, d + (OFF_OUT));
#endif
}
