/* The generic data movement of reorder, sum and concat (see plan.rs): one
 * work-item per walked destination element. Shapes, strides, blocks and
 * element types are kernel arguments, so one program serves every problem
 * (element types are switch-selected; the branch is uniform). The walk
 * follows the destination's memory order, so writes coalesce. */

#define MAXD 6
#define MAXL 8
#define MAXI 2

typedef struct {
    long off0;
    long outer[MAXD];
    long blk[MAXD];
    long shift[MAXD];
    long idim[MAXI];
    long idiv[MAXI];
    long isz[MAXI];
    long istr[MAXI];
} lay_t;

typedef struct {
    long total;
    long size[MAXL];
    long dim[MAXL];
    long unit[MAXL];
    long base[MAXD];
    long poff[MAXD];
    long dims[MAXD];
} walk_t;

#define F_SSC 1
#define F_DSC 2
#define F_SZP 4
#define F_DZP 8
#define F_SKIP_INSIDE 16

/* Element type codes: f32 f16 bf16 s32 s8 u8. */
float ld_elem(global const uchar *p, long i, int dt) {
    switch (dt) {
        case 0: return ((global const float *)p)[i];
        case 1: return vload_half(i, (global const half *)p);
        case 2: return as_float(((uint)((global const ushort *)p)[i]) << 16);
        case 3: return convert_float(((global const int *)p)[i]);
        case 4: return convert_float(((global const char *)p)[i]);
        default: return convert_float(p[i]);
    }
}

void st_elem(global uchar *p, long i, int dt, float v) {
    switch (dt) {
        case 0: ((global float *)p)[i] = v; break;
        case 1: vstore_half_rte(v, i, (global half *)p); break;
        case 2: ((global ushort *)p)[i] = f32_to_bf16(v); break;
        case 3: ((global int *)p)[i] = f32_to_s32(v); break;
        case 4: ((global char *)p)[i] = convert_char_sat_rte(v); break;
        default: p[i] = convert_uchar_sat_rte(v); break;
    }
}

long lay_off(const lay_t *l, const long *p) {
    long o = l->off0;
    for (int d = 0; d < MAXD; ++d) o += (p[d] + l->shift[d]) / l->blk[d] * l->outer[d];
    for (int b = 0; b < MAXI; ++b) {
        long q = p[l->idim[b]] + l->shift[l->idim[b]];
        o += q / l->idiv[b] % l->isz[b] * l->istr[b];
    }
    return o;
}

long mask_idx(int mask, const long *x, const walk_t *w) {
    long idx = 0;
    for (int d = 0; d < MAXD; ++d)
        if ((mask >> d) & 1) idx = idx * w->dims[d] + x[d];
    return idx;
}

kernel void xfer(global const uchar *src, lay_t sl, int sdt, global uchar *dst,
        lay_t dl, int ddt, walk_t w, float alpha, float beta, int flags,
        global const float *ssc, int ssc_mask, global const float *dsc,
        int dsc_mask, global const int *szp, int szp_mask,
        global const int *dzp, int dzp_mask) {
    long t = get_global_id(0);
    if (t >= w.total) return;
    long p[MAXD];
    for (int d = 0; d < MAXD; ++d) p[d] = w.base[d];
    long r = t;
    for (int k = MAXL - 1; k >= 0; --k) {
        long i = r % w.size[k];
        r /= w.size[k];
        p[w.dim[k]] += i * w.unit[k];
    }
    long x[MAXD];
    int inside = 1;
    for (int d = 0; d < MAXD; ++d) {
        x[d] = p[d] - w.poff[d];
        inside = inside && x[d] >= 0 && x[d] < w.dims[d];
    }
    lay_t zero_shift = dl;
    long doff = lay_off(&zero_shift, p);
    if (!inside) {
        st_elem(dst, doff, ddt, 0.0f);
        return;
    }
    if (flags & F_SKIP_INSIDE) return;
    float v = ld_elem(src, lay_off(&sl, p), sdt);
    if (flags & F_SZP) v -= convert_float(szp[mask_idx(szp_mask, x, &w)]);
    v *= alpha;
    if (flags & F_SSC) v *= ssc[mask_idx(ssc_mask, x, &w)];
    if (flags & F_DSC) v /= dsc[mask_idx(dsc_mask, x, &w)];
    if (flags & F_DZP) v += convert_float(dzp[mask_idx(dzp_mask, x, &w)]);
    if (beta != 0.0f) v += beta * ld_elem(dst, doff, ddt);
    st_elem(dst, doff, ddt, v);
}
