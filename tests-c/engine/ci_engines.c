/* The engines CI must see: run on each OpenCL runtime (engine_ci_engines@pocl,
 * @intel), there is a GPU engine whose OpenCL platform is that runtime's, and a
 * primitive runs on it with the right result. No device is a failure here, never a
 * skip: the other OpenCL tests skip without a device, and this test is what tells a
 * CI machine that lost a runtime from one where everything ran. (The runner still
 * exits 77 when the runtime is not installed at all; scripts/test.sh fails on that
 * skip, which scripts/expected-skips.txt does not list.)
 *
 * The runtime comes from OCL_ICD_VENDORS, which the runner sets to
 * <build>/icd/<runtime>. */
#include <string.h>

#include "interop/ocl/ocl_util.h"

int main(void) {
    const char *icd = getenv("OCL_ICD_VENDORS");
    EXPECT(icd != NULL);
    const char *rt = strrchr(icd, '/');
    rt = rt ? rt + 1 : icd;
    const char *want = strcmp(rt, "pocl") == 0 ? "Portable Computing Language"
            : strcmp(rt, "intel") == 0         ? "Intel(R) OpenCL"
                                               : NULL;
    if (want == NULL) {
        fprintf(stderr, "OCL_ICD_VENDORS=%s names no runtime this test knows\n", icd);
        return 1;
    }
    size_t n = dnnl_engine_get_count(dnnl_gpu);
    printf("runtime %s: %zu GPU engine(s)\n", rt, n);
    if (n == 0) {
        fprintf(stderr, "no GPU engine on the %s runtime: CI must have one\n", rt);
        return 1;
    }
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        dnnl_engine_t e = NULL;
        CHECK(dnnl_engine_create(&e, dnnl_gpu, i));
        cl_device_id dev = NULL;
        CHECK(dnnl_ocl_interop_get_device(e, &dev));
        cl_platform_id plat = NULL;
        char name[256] = {0};
        OCL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL));
        OCL_CHECK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof name - 1, name, NULL));
        printf("  gpu engine %zu: platform %s\n", i, name);
        if (strstr(name, want) == NULL) {
            CHECK(dnnl_engine_destroy(e));
            continue;
        }
        found = 1;
        /* relu over 1000 values: the engine computes. */
        dnnl_stream_t s = NULL;
        CHECK(dnnl_stream_create(&s, e, dnnl_stream_default_flags));
        dnnl_dim_t len = 1000;
        dnnl_memory_desc_t md = NULL;
        CHECK(dnnl_memory_desc_create_with_tag(&md, 1, &len, dnnl_f32, dnnl_a));
        dnnl_primitive_desc_t pd = NULL;
        CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
                dnnl_eltwise_relu, md, md, 0.f, 0.f, NULL));
        dnnl_primitive_t p = NULL;
        CHECK(dnnl_primitive_create(&p, pd));
        dnnl_memory_t src = NULL, dst = NULL;
        CHECK(dnnl_memory_create(&src, md, e, DNNL_MEMORY_ALLOCATE));
        CHECK(dnnl_memory_create(&dst, md, e, DNNL_MEMORY_ALLOCATE));
        float *v = NULL;
        CHECK(dnnl_memory_map_data(src, (void **)&v));
        for (int k = 0; k < len; k++)
            v[k] = (float)(k % 7) - 3.f;
        CHECK(dnnl_memory_unmap_data(src, v));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
        CHECK(dnnl_primitive_execute(p, s, 2, args));
        CHECK(dnnl_stream_wait(s));
        CHECK(dnnl_memory_map_data(dst, (void **)&v));
        for (int k = 0; k < len; k++)
            EXPECT(v[k] == ((float)(k % 7) - 3.f > 0 ? (float)(k % 7) - 3.f : 0.f));
        CHECK(dnnl_memory_unmap_data(dst, v));
        CHECK(dnnl_memory_destroy(src));
        CHECK(dnnl_memory_destroy(dst));
        CHECK(dnnl_primitive_destroy(p));
        CHECK(dnnl_primitive_desc_destroy(pd));
        CHECK(dnnl_memory_desc_destroy(md));
        CHECK(dnnl_stream_destroy(s));
        CHECK(dnnl_engine_destroy(e));
    }
    if (!found) {
        fprintf(stderr, "no GPU engine of platform '%s' on the %s runtime\n", want, rt);
        return 1;
    }
    printf("the %s runtime gives a working GPU engine\n", rt);
    return 0;
}
