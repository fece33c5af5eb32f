/* Kernels of the ze driver smoke test (tests-c/ze_driver/smoke.c), compiled to SPIR-V
 * at build time with clang-15 and llvm-spirv-15. */
kernel void scale_add(global float *dst, global const float *src, float alpha,
        local float *tmp) {
    size_t i = get_global_id(0);
    tmp[get_local_id(0)] = src[i] * alpha;
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[i] = tmp[get_local_id(0)] + 1.0f;
}

kernel void iota(global int *dst) {
    dst[get_global_id(0)] = (int)get_global_id(0);
}

/* src may be NULL (a NULL global pointer argument): then dst is filled with fill. */
kernel void copy_or_fill(global int *dst, global const int *src, int fill) {
    size_t i = get_global_id(0);
    dst[i] = src ? src[i] : fill;
}
