/* Differential test against upstream's library: prints every property of
 * the descriptors made by every format tag and by thousands of random
 * create_with_strides / submemory / reshape / permute calls, plus every
 * query's status. Run on both libraries, the outputs must be identical
 * (compare_with_reference.cmake; registered with -DDNNL_REFERENCE_LIBDIR).
 * The deliberate differences (negative strides, run-time dims with default
 * strides) are not generated. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static int R(int n) { return (int)(rnd() % (uint64_t)n); }
static void dump(const_dnnl_memory_desc_t md) {
    int nd=-1, nb=-1, nh=-1; dnnl_data_type_t dt=0; dnnl_format_kind_t fk=0; int64_t off=-1;
    const dnnl_dims_t *d=0,*pd=0,*po=0,*st=0,*ib=0,*ii=0;
    int s7 = dnnl_memory_desc_query(md, dnnl_query_strides, &st);
    dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd);
    dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
    dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk);
    dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &off);
    dnnl_memory_desc_query(md, dnnl_query_dims, &d);
    dnnl_memory_desc_query(md, dnnl_query_padded_dims, &pd);
    dnnl_memory_desc_query(md, dnnl_query_padded_offsets, &po);
    int s8 = dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nb);
    dnnl_memory_desc_query(md, dnnl_query_inner_blks, &ib);
    dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &ii);
    dnnl_memory_desc_query_v2(md, dnnl_query_num_handles_s32, 0, &nh);
    printf("  nd=%d dt=%s fk=%d off=%lld nh=%d size=%zu,%zu,%zu", nd, dnnl_dt2str(dt), fk, (long long)off, nh,
        dnnl_memory_desc_get_size(md), dnnl_memory_desc_get_size_v2(md, 1), dnnl_memory_desc_get_size_v2(md, 2));
    printf(" dims="); for (int i=0;i<nd;i++) printf("%lld,", (long long)(*d)[i]);
    printf(" pd="); for (int i=0;i<nd;i++) printf("%lld,", (long long)(*pd)[i]);
    printf(" po="); for (int i=0;i<nd;i++) printf("%lld,", (long long)(*po)[i]);
    if (!s7) { printf(" st="); for (int i=0;i<nd;i++) printf("%lld,", (long long)(*st)[i]); }
    if (!s8) { printf(" blks="); for (int i=0;i<nb;i++) printf("%lld:%lld,", (long long)(*ib)[i], (long long)(*ii)[i]); }
    printf("\n");
}
static const dnnl_dim_t RT = DNNL_RUNTIME_DIM_VAL;
static dnnl_memory_desc_t tag_md(int nd, const dnnl_dim_t *d, dnnl_data_type_t dt, dnnl_format_tag_t t, int print) {
    dnnl_memory_desc_t md = NULL; int s = dnnl_memory_desc_create_with_tag(&md, nd, d, dt, t);
    if (print) { printf(" tag %d nd %d dt %d -> %d\n", t, nd, dt, s); if (!s) dump(md); }
    return s ? NULL : md;
}
static int tag_ndims(dnnl_format_tag_t t) {
    dnnl_dim_t d[12] = {4,4,4,4,4,4,4,4,4,4,4,4};
    for (int nd = 1; nd <= 12; nd++) { dnnl_memory_desc_t m = tag_md(nd, d, dnnl_f32, t, 0); if (m) { dnnl_memory_desc_destroy(m); return nd; } }
    return 0;
}
int main(void) {
    const dnnl_dim_t base[12] = {3, 17, 5, 7, 2, 9, 3, 2, 3, 2, 2, 2};
    printf("== tags\n");
    for (int t = 0; t <= (int)dnnl_format_tag_last + 1; t++) {
        int nd = tag_ndims(t);
        printf("tag %d (%s) nd %d\n", t, dnnl_fmt_tag2str(t), nd);
        if (!nd) continue;
        dnnl_dim_t d[12]; memcpy(d, base, sizeof d);
        dnnl_memory_desc_t m;
        if ((m = tag_md(nd, d, dnnl_f32, t, 1))) dnnl_memory_desc_destroy(m);
        if ((m = tag_md(nd, d, dnnl_s4, t, 1))) dnnl_memory_desc_destroy(m);
        d[nd > 1 ? 1 : 0] = 0; if ((m = tag_md(nd, d, dnnl_bf16, t, 1))) dnnl_memory_desc_destroy(m);
        memcpy(d, base, sizeof d); d[0] = RT; if ((m = tag_md(nd, d, dnnl_u8, t, 1))) dnnl_memory_desc_destroy(m);
        memcpy(d, base, sizeof d); d[nd-1] = RT; if ((m = tag_md(nd, d, dnnl_u8, t, 1))) dnnl_memory_desc_destroy(m);
        if (nd > 2) { memcpy(d, base, sizeof d); d[nd-2] = 0; if ((m = tag_md(nd, d, dnnl_u4, t, 1))) dnnl_memory_desc_destroy(m); }
    }
    printf("== strides\n");
    const dnnl_dim_t svals[] = {0, 1, 2, 3, 4, 5, 6, 8, 12, 24, 60, RT};
    for (int i = 0; i < 3000; i++) {
        int nd = 1 + R(4); dnnl_dim_t d[12], st[12];
        for (int k = 0; k < nd; k++) { d[k] = R(10) == 0 ? 0 : (R(15) == 0 ? RT : 1 + R(4)); st[k] = svals[R(12)]; }
        dnnl_data_type_t dt = R(3) == 0 ? dnnl_s4 : dnnl_f32;
        dnnl_memory_desc_t md = NULL; int nulls = R(4) == 0, rt = 0;
        for (int k = 0; k < nd; k++) rt |= d[k] == RT;
        if (rt) nulls = 0;
        int s = dnnl_memory_desc_create_with_strides(&md, nd, d, dt, nulls ? NULL : st);
        printf("str %d nd %d dt %d null %d d=", i, nd, dt, nulls); for (int k=0;k<nd;k++) printf("%lld,", (long long)d[k]);
        printf(" st="); for (int k=0;k<nd;k++) printf("%lld,", (long long)st[k]); printf(" -> %d\n", s);
        if (!s) { dump(md); dnnl_memory_desc_destroy(md); }
    }
    printf("== transforms\n");
    /* parents: tags of 2..5 dims, plain and blocked */
    const dnnl_format_tag_t tags[] = {dnnl_ab, dnnl_ba, dnnl_abc, dnnl_acb, dnnl_cba, dnnl_abcd, dnnl_acdb, dnnl_nChw8c, dnnl_nChw16c,
        dnnl_OIhw16i16o, dnnl_aBc4b, dnnl_ABc4b16a4b, dnnl_Abcd8a, dnnl_abcde, dnnl_aBcde8b, dnnl_AB16b16a, dnnl_BA16a16b, dnnl_Ab32a,
        dnnl_format_tag_any, dnnl_bacd, dnnl_cdba, dnnl_aBcd16b};
    const int ntags = sizeof(tags)/sizeof(tags[0]);
    for (int i = 0; i < 4000; i++) {
        dnnl_format_tag_t t = tags[R(ntags)];
        int nd = t == dnnl_format_tag_any ? 2 + R(3) : tag_ndims(t);
        dnnl_dim_t d[12];
        for (int k = 0; k < nd; k++) d[k] = R(4) == 0 ? 1 : (R(3) == 0 ? 16 * (1 + R(2)) : 1 + R(6));
        if (R(30) == 0) d[R(nd)] = 0;
        dnnl_data_type_t dt = R(6) == 0 ? dnnl_s4 : dnnl_f32;
        dnnl_memory_desc_t p = tag_md(nd, d, dt, t, 0);
        printf("tr %d tag %d dt %d d=", i, t, dt); for (int k=0;k<nd;k++) printf("%lld,", (long long)d[k]); printf(" parent %s\n", p ? "ok" : "fail");
        if (!p) continue;
        int op = R(3);
        dnnl_memory_desc_t o = NULL; int s;
        if (op == 0) {
            dnnl_dim_t sd[12], so[12];
            for (int k = 0; k < nd; k++) {
                int mode = R(4);
                if (mode == 0) { so[k] = 0; sd[k] = d[k]; }
                else if (mode == 1) { so[k] = R((int)d[k] + 1); sd[k] = R((int)(d[k] - so[k]) + 1); }
                else if (mode == 2) { so[k] = (R(3)) * 8; sd[k] = R(3) * 8 + R(2); }
                else { so[k] = R((int)d[k] + 2) - (R(10) == 0); sd[k] = d[k] - so[k] + (R(8) == 0); }
            }
            s = dnnl_memory_desc_create_submemory(&o, p, sd, so);
            printf(" sub sd="); for (int k=0;k<nd;k++) printf("%lld,", (long long)sd[k]);
            printf(" so="); for (int k=0;k<nd;k++) printf("%lld,", (long long)so[k]);
        } else if (op == 1) {
            /* target: random split/merge of dims, with 1s */
            dnnl_dim_t od[12]; int ond = 0;
            int k = 0;
            while (k < nd && ond < 11) {
                int choice = R(5);
                if (choice == 0 && ond < 10) od[ond++] = 1;
                if (choice == 1 && k + 1 < nd) { od[ond++] = d[k] * d[k+1]; k += 2; continue; }
                if (choice == 2 && d[k] % 2 == 0 && ond < 10) { od[ond++] = 2; od[ond++] = d[k] / 2; k++; continue; }
                if (choice == 3 && d[k] == 1 && R(2)) { k++; continue; }
                od[ond++] = d[k]; k++;
            }
            if (ond == 0) od[ond++] = 1;
            if (R(20) == 0) od[0] += 1;
            s = dnnl_memory_desc_reshape(&o, p, ond, od);
            printf(" reshape od="); for (int j=0;j<ond;j++) printf("%lld,", (long long)od[j]);
        } else {
            int perm[12]; for (int k = 0; k < nd; k++) perm[k] = k;
            for (int k = nd - 1; k > 0; k--) { int j = R(k + 1); int tmp = perm[k]; perm[k] = perm[j]; perm[j] = tmp; }
            if (R(10) == 0) perm[R(nd)] = R(nd + 1);
            s = dnnl_memory_desc_permute_axes(&o, p, perm);
            printf(" permute p="); for (int k=0;k<nd;k++) printf("%d,", perm[k]);
        }
        printf(" -> %d\n", s);
        if (!s) { dump(o); printf("  eq parent %d\n", dnnl_memory_desc_equal(o, p)); dnnl_memory_desc_destroy(o); }
        dnnl_memory_desc_destroy(p);
    }
    printf("== queries\n");
    {
        dnnl_memory_desc_t mds[6]; dnnl_dim_t d[4] = {2, 17, 3, 5};
        dnnl_memory_desc_create_with_tag(&mds[0], 4, d, dnnl_f32, dnnl_nChw16c);
        dnnl_memory_desc_create_with_tag(&mds[1], 4, d, dnnl_f32, dnnl_format_tag_any);
        dnnl_memory_desc_create_with_tag(&mds[2], 0, d, dnnl_f32, dnnl_format_tag_any);
        dnnl_memory_desc_create_host_scalar(&mds[3], dnnl_s32);
        dnnl_memory_desc_create_with_csr_encoding(&mds[4], 2, d, dnnl_f32, 7, dnnl_s32, dnnl_s64);
        dnnl_memory_desc_create_with_coo_encoding(&mds[5], 2, d, dnnl_f16, 7, dnnl_s32);
        for (int m = 0; m < 6; m++) {
            printf("md %d v1:", m);
            for (int q = 0; q < 0x120; q++) { if (q > 40 && q < 128) continue; int64_t buf[8]; printf("%d", dnnl_memory_desc_query(mds[m], q, buf)); }
            printf("\nmd %d v2:", m);
            for (int q = 0; q < 0x120; q++) { if (q > 40 && q < 128) continue; int64_t buf[8]; printf("%d", dnnl_memory_desc_query_v2(mds[m], q, 0, buf)); }
            printf("\nmd %d v2 idx1:", m);
            for (int q = 0; q < 0x120; q++) { if (q > 40 && q < 128) continue; int64_t buf[8]; printf("%d", dnnl_memory_desc_query_v2(mds[m], q, 1, buf)); }
            printf("\n"); dump(mds[m]);
            dnnl_data_type_t t; for (int i = 0; i < 4; i++) { int s = dnnl_memory_desc_query_v2(mds[m], dnnl_query_data_type, i, &t); printf(" dt[%d]=%d,%s", i, s, s ? "-" : dnnl_dt2str(t)); }
            printf("\n");
        }
    }
    return 0;
}
