/* Element types every OpenCL kernel shares (prepended to each kernel's
 * source by prims::common::cl::source).
 *
 * Storage types T_<DT> for DT in F32 F16 BF16 S32 S8 U8; scalar loads and
 * stores LD_<DT>(p, i) / ST_<DT>(p, i, v) through float; 4-vector ones
 * LD4_<DT> / ST4_<DT>, through aligned vector pointers when ALIGNED is 1.
 * f16 goes through vload_half/vstore_half (no cl_khr_fp16 needed: NVIDIA has
 * none), bf16 through ushort bit operations. Integer stores round to nearest
 * even and saturate, as oneDNN's do. */

#ifndef ALIGNED
#define ALIGNED 0
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Storage types: f16 is stored as ushort (pointer arithmetic on half needs
 * cl_khr_fp16) and handed to vload_half/vstore_half as a half pointer. */
#define T_F32 float
#define T_F16 ushort
#define T_BF16 ushort
#define T_S32 int
#define T_S8 char
#define T_U8 uchar

ushort f32_to_bf16(float f) {
    uint u = as_uint(f);
    if (isnan(f)) return (ushort)((u >> 16) | 0x40);
    return (ushort)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
ushort4 f32_to_bf16_4(float4 f) {
    return (ushort4)(f32_to_bf16(f.s0), f32_to_bf16(f.s1), f32_to_bf16(f.s2),
            f32_to_bf16(f.s3));
}
/* Saturates at the largest float below 2^31, as oneDNN does. */
int f32_to_s32(float f) {
    return convert_int_sat_rte(f > 2147483520.0f ? 2147483520.0f : f);
}
int4 f32_to_s32_4(float4 f) {
    return (int4)(f32_to_s32(f.s0), f32_to_s32(f.s1), f32_to_s32(f.s2), f32_to_s32(f.s3));
}

#define HALF_PTR(p) ((global half *)(p))

/* Scalar element i. */
#define LD_F32(p, i) ((p)[i])
#define LD_F16(p, i) vload_half((i), HALF_PTR(p))
#define LD_BF16(p, i) as_float(((uint)(p)[i]) << 16)
#define LD_S32(p, i) convert_float((p)[i])
#define LD_S8(p, i) convert_float((p)[i])
#define LD_U8(p, i) convert_float((p)[i])
#define ST_F32(p, i, v) ((p)[i] = (v))
#define ST_F16(p, i, v) vstore_half_rte((v), (i), HALF_PTR(p))
#define ST_BF16(p, i, v) ((p)[i] = f32_to_bf16(v))
#define ST_S32(p, i, v) ((p)[i] = f32_to_s32(v))
#define ST_S8(p, i, v) ((p)[i] = convert_char_sat_rte(v))
#define ST_U8(p, i, v) ((p)[i] = convert_uchar_sat_rte(v))

/* Elements 4i .. 4i+3. ALIGNED: the 4-vector at p is aligned, so plain vector
 * loads and stores (one 16-byte access for floats). */
#if ALIGNED
#define LD4_F32(p, i) (((global float4 *)(p))[i])
#define LD4_F16(p, i) vloada_half4((i), HALF_PTR(p))
#define LD4_BF16(p, i) as_float4(convert_uint4(((global ushort4 *)(p))[i]) << 16)
#define LD4_S32(p, i) convert_float4(((global int4 *)(p))[i])
#define LD4_S8(p, i) convert_float4(((global char4 *)(p))[i])
#define LD4_U8(p, i) convert_float4(((global uchar4 *)(p))[i])
#define ST4_F32(p, i, v) (((global float4 *)(p))[i] = (v))
#define ST4_F16(p, i, v) vstorea_half4_rte((v), (i), HALF_PTR(p))
#define ST4_BF16(p, i, v) (((global ushort4 *)(p))[i] = f32_to_bf16_4(v))
#define ST4_S32(p, i, v) (((global int4 *)(p))[i] = f32_to_s32_4(v))
#define ST4_S8(p, i, v) (((global char4 *)(p))[i] = convert_char4_sat_rte(v))
#define ST4_U8(p, i, v) (((global uchar4 *)(p))[i] = convert_uchar4_sat_rte(v))
#else
#define LD4_F32(p, i) vload4((i), (p))
#define LD4_F16(p, i) vload_half4((i), HALF_PTR(p))
#define LD4_BF16(p, i) as_float4(convert_uint4(vload4((i), (p))) << 16)
#define LD4_S32(p, i) convert_float4(vload4((i), (p)))
#define LD4_S8(p, i) convert_float4(vload4((i), (p)))
#define LD4_U8(p, i) convert_float4(vload4((i), (p)))
#define ST4_F32(p, i, v) vstore4((v), (i), (p))
#define ST4_F16(p, i, v) vstore_half4_rte((v), (i), HALF_PTR(p))
#define ST4_BF16(p, i, v) vstore4(f32_to_bf16_4(v), (i), (p))
#define ST4_S32(p, i, v) vstore4(f32_to_s32_4(v), (i), (p))
#define ST4_S8(p, i, v) vstore4(convert_char4_sat_rte(v), (i), (p))
#define ST4_U8(p, i, v) vstore4(convert_uchar4_sat_rte(v), (i), (p))
#endif
