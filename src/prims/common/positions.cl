/* Padded positions p0..p11 of the element (or row) a work-item handles, for
 * kernels that walk any layout (prepended after types.cl by the kernels that
 * use it: prims::common::cl_walk::CL_POSITIONS).
 *
 * The kernel's options give P<d> as expressions of the work-item index (see
 * prims::common::cl_walk); dimensions it leaves out are at 0. DECL_POSITIONS
 * declares p0..p11 from them. */

#ifndef P0
#define P0 0
#endif
#ifndef P1
#define P1 0
#endif
#ifndef P2
#define P2 0
#endif
#ifndef P3
#define P3 0
#endif
#ifndef P4
#define P4 0
#endif
#ifndef P5
#define P5 0
#endif
#ifndef P6
#define P6 0
#endif
#ifndef P7
#define P7 0
#endif
#ifndef P8
#define P8 0
#endif
#ifndef P9
#define P9 0
#endif
#ifndef P10
#define P10 0
#endif
#ifndef P11
#define P11 0
#endif
#define DECL_POSITIONS \
    const long p0 = P0, p1 = P1, p2 = P2, p3 = P3, p4 = P4, p5 = P5, p6 = P6, p7 = P7, \
               p8 = P8, p9 = P9, p10 = P10, p11 = P11;
