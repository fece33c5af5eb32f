/* Reorders at copy speed (ocl:reorder_blocked, see blocked.rs): the host splits
 * the problem into rectangles whose offsets are linear in a few loops (a
 * blocked dimension's position is split into digits at its block sizes), and
 * runs each with one of two kernels:
 * - blk_runs: every work-item moves a run of up to 4 elements along the
 *   innermost loop (4-vectors when both sides are contiguous and aligned);
 *   the outer loops are peeled once per run, never per element;
 * - blk_tiles: a transposition: loop ka is contiguous in the destination
 *   (after the vector loop kv, if any, contiguous in both), loop kb in the
 *   source; a tile of TA x TB x V elements goes through local memory, read
 *   in source order and written in destination order, so both coalesce. All
 *   tile extents are powers of two: no division per element.
 *
 * Built per type pair: SDT, DDT (F32, F16, BF16, S32, S8, U8); RAW: same type
 * and no arithmetic, elements are copied as stored. IDX_T: int when every
 * index fits, else long. GROUP (work-items of a tile's work-group) and TILE_N
 * (elements of a tile, a multiple of GROUP). ALIGNED must be 1 (4-vectors are used only where the
 * host checked alignment). */

#define MAXL 8

#ifndef IDX_T
#define IDX_T int
#endif

#define F_ZERO 1
#define F_VEC 2
#define F_SSC 4
#define F_DSC 8
#define F_SZP 16
#define F_DZP 32

#define S_T CAT(T_, SDT)
#define D_T CAT(T_, DDT)

typedef struct {
    long size[MAXL];
    long sstr[MAXL];
    long dstr[MAXL];
    long soff0;
    long doff0;
    /* blk_runs: work-items; blk_tiles: work-groups. */
    long total;
    int nl;
    int ka;
    int kb;
    int kv;
    int lv;
    int lta;
    int ltb;
    int row;
    int flags;
    int pad;
} blk_t;

/* The per-tensor quantization (common values only) and the sum scale. */
typedef struct {
    float alpha, beta, ssc, dsc, szp, dzp;
    int flags;
} q_t;

q_t make_q(float alpha, float beta, int flags, global const float *ssc,
        global const float *dsc, global const int *szp, global const int *dzp) {
    q_t q;
    q.alpha = alpha;
    q.beta = beta;
    q.flags = flags;
    q.ssc = (flags & F_SSC) ? ssc[0] : 1.0f;
    q.dsc = (flags & F_DSC) ? dsc[0] : 1.0f;
    q.szp = (flags & F_SZP) ? convert_float(szp[0]) : 0.0f;
    q.dzp = (flags & F_DZP) ? convert_float(dzp[0]) : 0.0f;
    return q;
}

#ifdef RAW
typedef S_T val_t;
#define LDV(p, i) ((p)[i])
#define PUT(q, p, i, x) ((p)[i] = (x))
#define LD4V(p, i) (((global const CAT(S_T, 4) *)(p))[i])
#define PUT4(q, p, i, x) (((global CAT(D_T, 4) *)(p))[i] = (x))
#define ZERO4 ((CAT(D_T, 4))(0))
#define ZERO1 ((D_T)0)
#else
typedef float val_t;
#define LDV(p, i) CAT(LD_, SDT)(p, i)
#define LD4V(p, i) CAT(LD4_, SDT)(p, i)
#define ZERO4 ((float4)(0.0f))
#define ZERO1 0.0f
/* The plan's arithmetic, in the generic kernel's order (xfer.cl). */
#define XF(q, x, old) \
    do { \
        if ((q).flags & F_SZP) x -= (q).szp; \
        x *= (q).alpha; \
        if ((q).flags & F_SSC) x *= (q).ssc; \
        if ((q).beta != 0.0f) x += (q).beta * (old); \
        if ((q).flags & F_DSC) x /= (q).dsc; \
        if ((q).flags & F_DZP) x += (q).dzp; \
    } while (0)
void put1(q_t q, global D_T *p, IDX_T i, float x) {
    float old = q.beta != 0.0f ? CAT(LD_, DDT)(p, i) : 0.0f;
    XF(q, x, old);
    CAT(ST_, DDT)(p, i, x);
}
void put4(q_t q, global D_T *p, IDX_T i, float4 x) {
    float4 old = q.beta != 0.0f ? CAT(LD4_, DDT)(p, i) : (float4)(0.0f);
    XF(q, x, old);
    CAT(ST4_, DDT)(p, i, x);
}
#define PUT(q, p, i, x) put1(q, p, i, x)
#define PUT4(q, p, i, x) put4(q, p, i, x)
#endif

/* Zero fills store zeros as such (padding is zero whatever the arithmetic). */
#ifdef RAW
#define PUT_ZERO(p, i) ((p)[i] = ZERO1)
#define PUT_ZERO4(p, i) (((global CAT(D_T, 4) *)(p))[i] = ZERO4)
#else
#define PUT_ZERO(p, i) CAT(ST_, DDT)(p, i, 0.0f)
#define PUT_ZERO4(p, i) CAT(ST4_, DDT)(p, i, ZERO4)
#endif

kernel void blk_runs(global const uchar *srcb, global uchar *dstb, blk_t w, float alpha,
        float beta, global const float *ssc, global const float *dsc,
        global const int *szp, global const int *dzp) {
    IDX_T t = (IDX_T)get_global_id(0);
    if (t >= (IDX_T)w.total) return;
    global const S_T *src = (global const S_T *)srcb;
    global D_T *dst = (global D_T *)dstb;
    int last = w.nl - 1;
    IDX_T n0 = (IDX_T)w.size[last];
    IDX_T runs0 = (n0 + 3) >> 2;
    IDX_T i0 = (t % runs0) << 2, r = t / runs0;
    IDX_T s0 = (IDX_T)w.sstr[last], d0 = (IDX_T)w.dstr[last];
    IDX_T soff = (IDX_T)w.soff0 + i0 * s0, doff = (IDX_T)w.doff0 + i0 * d0;
    for (int k = last - 1; k >= 0; --k) {
        IDX_T sz = (IDX_T)w.size[k];
        IDX_T i = r % sz;
        r /= sz;
        soff += i * (IDX_T)w.sstr[k];
        doff += i * (IDX_T)w.dstr[k];
    }
    q_t q = make_q(alpha, beta, w.flags, ssc, dsc, szp, dzp);
    if (w.flags & F_VEC) {
        if (w.flags & F_ZERO)
            PUT_ZERO4(dst, doff >> 2);
        else
            PUT4(q, dst, doff >> 2, LD4V(src, soff >> 2));
        return;
    }
    int cnt = (int)min((IDX_T)4, n0 - i0);
    for (int j = 0; j < cnt; ++j) {
        if (w.flags & F_ZERO)
            PUT_ZERO(dst, doff + j * d0);
        else
            PUT(q, dst, doff + j * d0, LDV(src, soff + j * s0));
    }
}

/* Work-groups of GROUP work-items; `tile` holds TA rows of `row` elements
 * (TB x V, padded so that the column walk of the write phase hits distinct
 * banks). */
kernel void blk_tiles(global const uchar *srcb, global uchar *dstb, blk_t w, float alpha,
        float beta, global const float *ssc, global const float *dsc,
        global const int *szp, global const int *dzp, local val_t *tile) {
    global const S_T *src = (global const S_T *)srcb;
    global D_T *dst = (global D_T *)dstb;
    IDX_T g = (IDX_T)get_group_id(0);
    int lid = (int)get_local_id(0);
    IDX_T na = (IDX_T)w.size[w.ka], nb = (IDX_T)w.size[w.kb];
    IDX_T nta = (na + ((IDX_T)1 << w.lta) - 1) >> w.lta;
    IDX_T ntb = (nb + ((IDX_T)1 << w.ltb) - 1) >> w.ltb;
    IDX_T ta = g % nta;
    g /= nta;
    IDX_T tb = g % ntb;
    g /= ntb;
    IDX_T soff = (IDX_T)w.soff0, doff = (IDX_T)w.doff0;
    for (int k = w.nl - 1; k >= 0; --k) {
        if (k == w.ka || k == w.kb || k == w.kv) continue;
        IDX_T sz = (IDX_T)w.size[k];
        IDX_T i = g % sz;
        g /= sz;
        soff += i * (IDX_T)w.sstr[k];
        doff += i * (IDX_T)w.dstr[k];
    }
    IDX_T a0 = ta << w.lta, b0 = tb << w.ltb;
    int la = (int)min(na - a0, (IDX_T)1 << w.lta);
    int lb = (int)min(nb - b0, (IDX_T)1 << w.ltb);
    IDX_T sa = (IDX_T)w.sstr[w.ka], db = (IDX_T)w.dstr[w.kb];
    /* sstr[kb] and dstr[ka] are both V. */
    soff += a0 * sa + (b0 << w.lv);
    doff += (a0 << w.lv) + b0 * db;
    int lv = w.lv, row = w.row;
    int n = 1 << (w.lta + w.ltb + lv);
    int lr = w.ltb + lv, mr = (1 << lr) - 1;
    /* Read: source rows (fixed ia) of TB x V contiguous elements. */
#pragma unroll
    for (int k = 0; k < TILE_N / GROUP; ++k) {
        int e = lid + k * GROUP;
        int ia = e >> lr, rem = e & mr;
        if (e < n && ia < la && (rem >> lv) < lb)
            tile[ia * row + rem] = LDV(src, soff + ia * sa + rem);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    q_t q = make_q(alpha, beta, w.flags, ssc, dsc, szp, dzp);
    int lc = w.lta + lv, mc = (1 << lc) - 1, mv = (1 << lv) - 1;
    /* Write: destination rows (fixed ib) of TA x V contiguous elements. */
#pragma unroll
    for (int k = 0; k < TILE_N / GROUP; ++k) {
        int e = lid + k * GROUP;
        int ib = e >> lc, rem = e & mc;
        int ia = rem >> lv;
        if (e < n && ia < la && ib < lb)
            PUT(q, dst, doff + ib * db + rem, tile[ia * row + (ib << lv) + (rem & mv)]);
    }
}
