/* The generic data movement of reorder, sum and concat (see plan.rs): one
 * work-item per walked destination element. Shapes, strides, blocks and
 * element types are kernel arguments, so one program serves every problem
 * (element types are switch-selected; the branches are uniform). IDX_T is int
 * when every index fits (one more build for huge tensors, with long).
 *
 * The walk follows the destination's memory order, so writes coalesce. Its
 * loops carry the element strides of both tensors where an offset is linear
 * in the loop indices (F_LIN_DST / F_LIN_SRC: plain and permuted layouts, and
 * a blocked layout walked along its own blocks), so the common cases add
 * instead of dividing; otherwise the offset is computed from the layout.
 * Positions are logical; a layout's shift adds its padded offsets (and, for a
 * source, where its region starts). */

#define MAXD 6
#define MAXL 8
#define MAXI 4

#ifndef IDX_T
#define IDX_T int
#endif

typedef struct {
    long off0;
    long outer[MAXD];
    long blk[MAXD];
    long shift[MAXD];
    long idiv[MAXI];
    long isz[MAXI];
    long istr[MAXI];
    int idim[MAXI];
} lay_t;

typedef struct {
    long total;
    long size[MAXL];
    long unit[MAXL];
    long sstr[MAXL];
    long dstr[MAXL];
    long soff0;
    long doff0;
    long base[MAXD];
    long dims[MAXD];
    int dim[MAXL];
} walk_t;

#define F_SSC 1
#define F_DSC 2
#define F_SZP 4
#define F_DZP 8
#define F_SKIP_INSIDE 16
#define F_LIN_SRC 32
#define F_LIN_DST 64
#define F_BOUNDS 128

/* Element type codes: f32 f16 bf16 s32 s8 u8. */
float ld_elem(global const uchar *p, IDX_T i, int dt) {
    switch (dt) {
        case 0: return ((global const float *)p)[i];
        case 1: return vload_half(i, (global const half *)p);
        case 2: return as_float(((uint)((global const ushort *)p)[i]) << 16);
        case 3: return convert_float(((global const int *)p)[i]);
        case 4: return convert_float(((global const char *)p)[i]);
        default: return convert_float(p[i]);
    }
}

void st_elem(global uchar *p, IDX_T i, int dt, float v) {
    switch (dt) {
        case 0: ((global float *)p)[i] = v; break;
        case 1: vstore_half_rte(v, i, (global half *)p); break;
        case 2: ((global ushort *)p)[i] = f32_to_bf16(v); break;
        case 3: ((global int *)p)[i] = f32_to_s32(v); break;
        case 4: ((global char *)p)[i] = convert_char_sat_rte(v); break;
        default: p[i] = convert_uchar_sat_rte(v); break;
    }
}

IDX_T lay_off(const lay_t *l, const IDX_T *x) {
    IDX_T o = (IDX_T)l->off0;
    for (int d = 0; d < MAXD; ++d) {
        IDX_T q = x[d] + (IDX_T)l->shift[d], b = (IDX_T)l->blk[d];
        o += (b == 1 ? q : q / b) * (IDX_T)l->outer[d];
    }
    for (int k = 0; k < MAXI; ++k) {
        IDX_T s = (IDX_T)l->isz[k];
        if (s > 1) {
            int d = l->idim[k];
            IDX_T q = x[d] + (IDX_T)l->shift[d];
            o += q / (IDX_T)l->idiv[k] % s * (IDX_T)l->istr[k];
        }
    }
    return o;
}

IDX_T mask_idx(int mask, const IDX_T *x, const walk_t *w) {
    IDX_T idx = 0;
    for (int d = 0; d < MAXD; ++d)
        if ((mask >> d) & 1) idx = idx * (IDX_T)w->dims[d] + x[d];
    return idx;
}

kernel void xfer(global const uchar *src, lay_t sl, int sdt, global uchar *dst,
        lay_t dl, int ddt, walk_t w, float alpha, float beta, int flags,
        global const float *ssc, int ssc_mask, global const float *dsc,
        int dsc_mask, global const int *szp, int szp_mask,
        global const int *dzp, int dzp_mask) {
    IDX_T t = (IDX_T)get_global_id(0);
    if (t >= (IDX_T)w.total) return;
    IDX_T x[MAXD];
    for (int d = 0; d < MAXD; ++d) x[d] = (IDX_T)w.base[d];
    IDX_T r = t, soff = (IDX_T)w.soff0, doff = (IDX_T)w.doff0;
    for (int k = MAXL - 1; k >= 0; --k) {
        IDX_T sz = (IDX_T)w.size[k];
        if (sz > 1) {
            IDX_T i = r % sz;
            r /= sz;
            x[w.dim[k]] += i * (IDX_T)w.unit[k];
            soff += i * (IDX_T)w.sstr[k];
            doff += i * (IDX_T)w.dstr[k];
        }
    }
    if (!(flags & F_LIN_DST)) doff = lay_off(&dl, x);
    if (flags & F_BOUNDS) {
        int inside = 1;
        for (int d = 0; d < MAXD; ++d)
            inside = inside && x[d] >= 0 && x[d] < (IDX_T)w.dims[d];
        if (!inside) {
            st_elem(dst, doff, ddt, 0.0f);
            return;
        }
    }
    if (flags & F_SKIP_INSIDE) return;
    if (!(flags & F_LIN_SRC)) soff = lay_off(&sl, x);
    float v = ld_elem(src, soff, sdt);
    if (flags & F_SZP) v -= convert_float(szp[mask_idx(szp_mask, x, &w)]);
    v *= alpha;
    if (flags & F_SSC) v *= ssc[mask_idx(ssc_mask, x, &w)];
    if (beta != 0.0f) v += beta * ld_elem(dst, doff, ddt);
    if (flags & F_DSC) v /= dsc[mask_idx(dsc_mask, x, &w)];
    if (flags & F_DZP) v += convert_float(dzp[mask_idx(dzp_mask, x, &w)]);
    st_elem(dst, doff, ddt, v);
}

/* A transposing pass (ocl:*_transpose): both offsets linear, no padding, no
 * quantization. Loop ka is the destination's innermost, loop kb the one along
 * which the source is most contiguous; a 32x32 tile of (ka, kb) goes through
 * local memory so that reads and writes both coalesce. The other loops are
 * the third dimension of the grid. Work-groups are 32x8. */
#define TILE 32
#define TROWS 8
kernel void xfer_tile(global const uchar *src, int sdt, global uchar *dst, int ddt,
        walk_t w, int ka, int kb, float alpha, float beta) {
    local float tile[TILE][TILE + 1];
    IDX_T na = (IDX_T)w.size[ka], nb = (IDX_T)w.size[kb];
    IDX_T a0 = (IDX_T)get_group_id(0) * TILE, b0 = (IDX_T)get_group_id(1) * TILE;
    IDX_T r = (IDX_T)get_global_id(2);
    IDX_T soff = (IDX_T)w.soff0, doff = (IDX_T)w.doff0;
    for (int k = MAXL - 1; k >= 0; --k) {
        IDX_T sz = (IDX_T)w.size[k];
        if (k != ka && k != kb && sz > 1) {
            IDX_T i = r % sz;
            r /= sz;
            soff += i * (IDX_T)w.sstr[k];
            doff += i * (IDX_T)w.dstr[k];
        }
    }
    int lx = get_local_id(0), ly = get_local_id(1);
    IDX_T sa = (IDX_T)w.sstr[ka], sb = (IDX_T)w.sstr[kb];
    IDX_T da = (IDX_T)w.dstr[ka], db = (IDX_T)w.dstr[kb];
    for (int j = ly; j < TILE; j += TROWS) {
        IDX_T a = a0 + j, b = b0 + lx;
        if (a < na && b < nb) tile[j][lx] = ld_elem(src, soff + a * sa + b * sb, sdt);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = ly; j < TILE; j += TROWS) {
        IDX_T a = a0 + lx, b = b0 + j;
        if (a < na && b < nb) {
            IDX_T o = doff + a * da + b * db;
            float v = tile[lx][j] * alpha;
            if (beta != 0.0f) v += beta * ld_elem(dst, o, ddt);
            st_elem(dst, o, ddt, v);
        }
    }
}
