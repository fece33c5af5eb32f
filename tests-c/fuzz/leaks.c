/* Reference counts and memory over create/destroy cycles.
 *
 * A cycle creates a stream, memory descriptors, memories (one the library
 * allocates and one over the caller's buffer), post-ops and attributes, an
 * eltwise (with a post-op) and a reorder primitive descriptor and primitive,
 * executes both, checks the result, and destroys everything; an engine cycle
 * creates and destroys the engine too. Phases:
 *
 * `leaks cpu` (the CPU engine):
 *   A. FUZZ_CYCLES cycles (default 1000) on one engine;
 *   B. FUZZ_CYCLES engine cycles.
 * `leaks gpu` (one OpenCL runtime; skipped without a device). The program
 * makes its own cl_context, cl_command_queue and cl_mem; the engines come from
 * its context, the streams from its queue (dnnl_ocl_interop_stream_create), and
 * the caller's memory is its cl_mem (dnnl_ocl_interop_memory_create):
 *   A. FUZZ_CYCLES cycles (default 1000) on one engine
 *      (dnnl_ocl_interop_engine_create);
 *   B. FUZZ_ENGINE_CYCLES engine cycles (default 200), each engine made from
 *      the cache blob of a first one (dnnl_ocl_interop_engine_create_from_cache_blob),
 *      so that no cycle compiles;
 *   C. FUZZ_COMPILE_CYCLES engine cycles (default 8) through
 *      dnnl_ocl_interop_engine_create, each compiling its kernels again;
 *   D. as many cycles of plain OpenCL, no library call (build a program of 20
 *      kernels, run one, release everything): what the runtime itself keeps
 *      per compilation;
 *   E. as many engine cycles through dnnl_engine_create (each engine with a
 *      context of the library's own);
 *   F. as many cycles of plain OpenCL with a new context and queue each time.
 *
 * After every cycle, CL_CONTEXT_REFERENCE_COUNT, CL_QUEUE_REFERENCE_COUNT and
 * CL_MEM_REFERENCE_COUNT of the program's objects must be back where they were
 * before the phase (PoCL drops some references from its own threads a little
 * after the work: each count gets 200 ms to settle). A difference is a leak.
 *
 * Memory: after a warm-up, the resident set size is read before and after
 * the phase's cycles. Its growth must stay under FUZZ_RSS_BOUND bytes per
 * cycle (default 64) plus 128 KiB of allocator slack; the growth per cycle is
 * printed for every phase. Phases C and E (compiling) on Intel's CPU runtime
 * get a stated looser bound of 65536 bytes per cycle (FUZZ_RSS_BOUND_COMPILE):
 * that runtime's own memory moves by tens of KiB per program build (phases D
 * and F measure it with no library call); on PoCL the bound stays strict.
 * Phases D and F are measured, not bounded; so is every phase under
 * AddressSanitizer, whose quarantine keeps freed memory.
 *
 * Usage: leaks [cpu|gpu]. Environment: FUZZ_CYCLES, FUZZ_ENGINE_CYCLES,
 * FUZZ_COMPILE_CYCLES, FUZZ_RSS_BOUND, FUZZ_RSS_BOUND_COMPILE (README.md). */
#include "fuzz.h"

#include "interop/ocl/ocl_util.h"

enum { X_CYCLES, X_REFCOUNT_CHECKS };

/* Page-size noise allowed per quarter of a phase. */
#define SLACK (16 * 1024)

static int on_gpu;
/* FUZZ_SELFTEST (README.md): 1 leaves a memory undestroyed in every cycle, 2
 * retains the program's context in every cycle -- each must fail the run. */
static int selftest;

static long rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * sysconf(_SC_PAGESIZE);
}

/* A call that must succeed: counted and traced; a failure is a wrong result
 * and ends the cycle. */
#define OK(call) \
    do { \
        fuzz_call("%s", #call); \
        dnnl_status_t ok_s_ = (call); \
        fuzz_result(ok_s_); \
        fuzz_check_panic(); \
        if (ok_s_ != dnnl_success) { \
            fuzz_wrong("%s returned %s", #call, check_status_str(ok_s_)); \
            return 0; \
        } \
    } while (0)

typedef struct {
    /* The program's OpenCL objects (gpu). */
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue queue;
    cl_mem buf;
    const uint8_t *blob;
    size_t blob_size;
    dnnl_engine_t engine; /* the engine of phase A */
    int how; /* engine cycles: 0 from the blob (or the CPU engine), 1 interop compiling,
              * 2 dnnl_engine_create (the library's own context) */
} env_t;

#define N 384 /* elements: 2x3x8x8 */

/* The objects on an engine: a stream, memories, two primitives, executed and
 * checked. 1 when all went right. */
static int objects(const env_t *env, dnnl_engine_t engine) {
    dnnl_stream_t stream = NULL;
    /* The program's queue and cl_mem, on engines over the program's context. */
    int own_objects = on_gpu && env->how != 2;
    if (own_objects)
        OK(dnnl_ocl_interop_stream_create(&stream, engine, env->queue));
    else
        OK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_dims_t dims = {2, 3, 8, 8};
    dnnl_memory_desc_t md = NULL, md_nhwc = NULL;
    OK(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_f32, dnnl_nchw));
    OK(dnnl_memory_desc_create_with_tag(&md_nhwc, 4, dims, dnnl_f32, dnnl_nhwc));
    /* src: the library's; mid: the caller's (user buffer or cl_mem); dst: the library's. */
    static float user[N];
    dnnl_memory_t src = NULL, mid = NULL, dst = NULL;
    OK(dnnl_memory_create(&src, md, engine, DNNL_MEMORY_ALLOCATE));
    if (own_objects)
        OK(dnnl_ocl_interop_memory_create(&mid, md, engine, dnnl_ocl_interop_buffer, env->buf));
    else
        OK(dnnl_memory_create(&mid, md, engine, on_gpu ? DNNL_MEMORY_ALLOCATE : user));
    OK(dnnl_memory_create(&dst, md_nhwc, engine, DNNL_MEMORY_ALLOCATE));
    void *p = NULL;
    OK(dnnl_memory_map_data(src, &p));
    for (int i = 0; i < N; i++) ((float *)p)[i] = (float)(i % 7) - 3.0f;
    OK(dnnl_memory_unmap_data(src, p));

    /* mid = 2 * relu(src) (an eltwise with a linear post-op); dst = reorder(mid). */
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_attr_t attr = NULL;
    OK(dnnl_post_ops_create(&po));
    OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 2.0f, 0.0f));
    OK(dnnl_primitive_attr_create(&attr));
    OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_primitive_desc_t pd1 = NULL, pd2 = NULL;
    OK(dnnl_eltwise_forward_primitive_desc_create(&pd1, engine, dnnl_forward_inference,
            dnnl_eltwise_relu, md, md, 0.0f, 0.0f, attr));
    OK(dnnl_reorder_primitive_desc_create(&pd2, md, engine, md_nhwc, engine, NULL));
    dnnl_primitive_t elt = NULL, reo = NULL;
    OK(dnnl_primitive_create(&elt, pd1));
    OK(dnnl_primitive_create(&reo, pd2));
    dnnl_exec_arg_t a1[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, mid}};
    dnnl_exec_arg_t a2[2] = {{DNNL_ARG_FROM, mid}, {DNNL_ARG_TO, dst}};
    OK(dnnl_primitive_execute(elt, stream, 2, a1));
    OK(dnnl_primitive_execute(reo, stream, 2, a2));
    OK(dnnl_stream_wait(stream));
    OK(dnnl_memory_map_data(dst, &p));
    int right = 1;
    for (int i = 0; i < N; i++) {
        int nc = i / 64, hw = i % 64, n = nc / 3, c = nc % 3;
        float x = (float)(i % 7) - 3.0f, want = 2.0f * (x > 0 ? x : 0.0f);
        if (((float *)p)[(n * 64 + hw) * 3 + c] != want) right = 0;
    }
    OK(dnnl_memory_unmap_data(dst, p));
    if (!right) fuzz_wrong("the cycle's result is wrong");

    OK(dnnl_primitive_destroy(elt));
    OK(dnnl_primitive_destroy(reo));
    OK(dnnl_primitive_desc_destroy(pd1));
    OK(dnnl_primitive_desc_destroy(pd2));
    OK(dnnl_primitive_attr_destroy(attr));
    OK(dnnl_post_ops_destroy(po));
    OK(dnnl_memory_destroy(src));
    OK(dnnl_memory_destroy(mid));
    if (selftest != 1) OK(dnnl_memory_destroy(dst));
    if (selftest == 2 && on_gpu) clRetainContext(env->ctx);
    OK(dnnl_memory_desc_destroy(md));
    OK(dnnl_memory_desc_destroy(md_nhwc));
    OK(dnnl_stream_destroy(stream));
    return right;
}

/* Phase A: the objects on the phase's engine. */
static int objects_cycle(const env_t *env) {
    return objects(env, env->engine);
}

/* Phases B and C: an engine and its objects. */
static int engine_cycle(const env_t *env) {
    dnnl_engine_t engine = NULL;
    if (!on_gpu)
        OK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    else if (env->how == 1)
        OK(dnnl_ocl_interop_engine_create(&engine, env->dev, env->ctx));
    else if (env->how == 2)
        OK(dnnl_engine_create(&engine, dnnl_gpu, 0));
    else
        OK(dnnl_ocl_interop_engine_create_from_cache_blob(&engine, env->dev, env->ctx,
                env->blob_size, env->blob));
    int right = objects(env, engine);
    OK(dnnl_engine_destroy(engine));
    return right;
}

/* Phase D: plain OpenCL, a program of 20 kernels built, one run, all released. */
static char plain_src[8192];

static int plain_cycle(const env_t *env) {
    cl_int err = CL_SUCCESS;
    const char *src = plain_src;
    cl_context ctx = env->ctx;
    cl_command_queue queue = env->queue;
    if (env->how == 2) {
        /* Phase F: a context and a queue of its own each time. */
        ctx = clCreateContext(NULL, 1, &env->dev, NULL, NULL, &err);
        if (err != CL_SUCCESS) return 0;
        queue = clCreateCommandQueueWithProperties(ctx, env->dev, NULL, &err);
        if (err != CL_SUCCESS) return 0;
    }
    fuzz_call("clCreateProgramWithSource, clBuildProgram, clCreateKernel, clEnqueueNDRangeKernel");
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (err != CL_SUCCESS) return 0;
    if (clBuildProgram(prog, 1, &env->dev, "", NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(prog);
        return 0;
    }
    cl_kernel k = clCreateKernel(prog, "k0", &err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    clSetKernelArg(k, 0, sizeof b, &b);
    size_t global = N;
    clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    clFinish(queue);
    clReleaseMemObject(b);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    if (env->how == 2) {
        clReleaseCommandQueue(queue);
        clReleaseContext(ctx);
    }
    return 1;
}

/* ---- a phase ---------------------------------------------------------------------- */

typedef struct {
    cl_uint ctx, queue, mem;
} refs_t;

static refs_t refs_of(const env_t *env) {
    refs_t r = {0, 0, 0};
    if (!on_gpu) return r;
    FUZZ_ADD(fz->extra[X_REFCOUNT_CHECKS], 3);
    r.ctx = ocl_context_refcount(env->ctx);
    r.queue = ocl_queue_refcount(env->queue);
    r.mem = ocl_mem_refcount(env->buf);
    return r;
}

/* Whether the counts come back to `base` (each given 200 ms to settle). */
static int refs_settle(const env_t *env, refs_t base) {
    if (!on_gpu) return 1;
    FUZZ_ADD(fz->extra[X_REFCOUNT_CHECKS], 3);
    return ocl_context_refcount_settles(env->ctx, base.ctx)
            && ocl_queue_refcount_settles(env->queue, base.queue)
            && ocl_mem_refcount_settles(env->buf, base.mem);
}

/* Runs `warmup` then `n` cycles of `fn`, checking the reference counts after
 * each against those after the warm-up (where the engine lives through the
 * phase, its own holdings are no leak) or before it (`strict_refs`). Returns
 * the steady growth of the resident set per cycle: the smallest growth of the
 * four quarters of the `n` cycles, per cycle. A leak grows every quarter; a
 * one-time step of the allocator (a table that doubles, an arena) only one. */
static double phase(const char *name, uint64_t warmup, uint64_t n, int (*fn)(const env_t *),
        const env_t *env, double bound, int strict_refs) {
    refs_t before = refs_of(env), base = before;
    uint64_t leaks_before = fz->leaks;
    double t0 = fuzz_now();
    uint64_t q = n / 4 ? n / 4 : 1;
    long q_rss[5] = {0};
    q_rss[1] = q_rss[2] = q_rss[3] = q_rss[0] = rss_bytes();
    for (uint64_t i = 0; i < warmup + n; i++) {
        if (i >= warmup && (i - warmup) % q == 0 && (i - warmup) / q < 4)
            q_rss[(i - warmup) / q] = rss_bytes();
        if (i == warmup && !strict_refs) {
            base = refs_of(env);
            if (memcmp(&base, &before, sizeof base) != 0)
                printf("%s: while the engine lives it holds %+d context and %+d queue references "
                       "(its programs and work in flight)\n",
                        name, (int)base.ctx - (int)before.ctx, (int)base.queue - (int)before.queue);
        }
        fz->step = 0;
        fz->ring_pos = 0;
        if (!fn(env)) break;
        FUZZ_ADD(fz->extra[X_CYCLES], 1);
        if ((i >= warmup || strict_refs) && !refs_settle(env, base)) {
            refs_t now = refs_of(env);
            fuzz_leak("%s: after cycle %" PRIu64 ": context refs %u (before: %u), queue refs %u "
                      "(%u), cl_mem refs %u (%u)",
                    name, i, now.ctx, base.ctx, now.queue, base.queue, now.mem, base.mem);
            base = now;
        }
    }
    q_rss[4] = rss_bytes();
    long least = q_rss[1] - q_rss[0];
    for (int k = 1; k < 4; k++)
        if (q_rss[k + 1] - q_rss[k] < least) least = q_rss[k + 1] - q_rss[k];
    /* A quarter that shrank means no steady growth. */
    double per = least > 0 ? (double)least / (double)q : 0.0;
    double total = n ? (double)(q_rss[4] - q_rss[0]) / (double)n : 0.0;
    printf("%s: %" PRIu64 " cycles (after %" PRIu64 " to warm up) in %.1fs; references back to "
           "baseline after %s; resident set %+ld KiB (quarters %+ld %+ld %+ld %+ld KiB) = %+.0f bytes "
           "per cycle, steady growth (the least quarter's) %+.0f bytes per cycle",
            name, n, warmup, fuzz_now() - t0,
            fz->leaks == leaks_before ? "every cycle" : "NOT every cycle", (q_rss[4] - q_rss[0]) / 1024,
            (q_rss[1] - q_rss[0]) / 1024, (q_rss[2] - q_rss[1]) / 1024, (q_rss[3] - q_rss[2]) / 1024,
            (q_rss[4] - q_rss[3]) / 1024, total, per);
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's quarantine holds freed memory: the resident set says
     * nothing here (LeakSanitizer checks the CPU-only run instead). */
    bound = 0;
#endif
    if (bound > 0 && n >= 4) {
        printf(" (bound %.0f)\n", bound);
        if (per > bound + (double)SLACK / (double)q)
            fuzz_leak("%s: the resident set grows by %.0f bytes per cycle in every quarter (bound "
                      "%.0f, plus %d KiB of page noise per quarter)",
                    name, per, bound, SLACK / 1024);
    } else {
        printf(" (measured, not bounded)\n");
    }
    return per;
}

/* ---- the child -------------------------------------------------------------------- */

/* The cache blob of an engine that compiled what the cycles use. */
static uint8_t *make_blob(env_t *env, size_t *size) {
    dnnl_engine_t engine = NULL;
    *size = 0;
    if (dnnl_ocl_interop_engine_create(&engine, env->dev, env->ctx) != dnnl_success) return NULL;
    uint8_t *blob = NULL;
    if (objects(env, engine)
            && dnnl_ocl_interop_engine_get_cache_blob(engine, size, NULL) == dnnl_success) {
        blob = malloc(*size ? *size : 1);
        EXPECT(blob);
        if (dnnl_ocl_interop_engine_get_cache_blob(engine, size, blob) != dnnl_success) {
            free(blob);
            blob = NULL;
        }
    }
    dnnl_engine_destroy(engine);
    return blob;
}

static void body(uint64_t start, uint64_t end, void *arg) {
    (void)start;
    (void)end;
    (void)arg;
    fuzz_quiet_library();
    alarm(590);
    uint64_t cycles = fuzz_env_u64("FUZZ_CYCLES", 1000);
    double bound = (double)fuzz_env_u64("FUZZ_RSS_BOUND", 64);
    env_t env;
    memset(&env, 0, sizeof env);
    if (!on_gpu) {
        CHECK(dnnl_engine_create(&env.engine, dnnl_cpu, 0));
        phase("A: objects on one CPU engine", 2000, cycles, objects_cycle, &env, bound, 0);
        CHECK(dnnl_engine_destroy(env.engine));
        phase("B: CPU engines and their objects", 2000, cycles, engine_cycle, &env, bound, 1);
        return;
    }
    uint64_t engine_cycles = fuzz_env_u64("FUZZ_ENGINE_CYCLES", 200);
    uint64_t compile_cycles = fuzz_env_u64("FUZZ_COMPILE_CYCLES", 8);
    env.dev = ocl_first_device_or_skip();
    env.ctx = ocl_context_create(env.dev);
    env.queue = ocl_queue_create(env.ctx, env.dev, 0);
    cl_int err = CL_SUCCESS;
    env.buf = clCreateBuffer(env.ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    OCL_CHECK(err);
    char platform[256] = "";
    clGetPlatformInfo(ocl_platform_of(env.dev), CL_PLATFORM_NAME, sizeof platform, platform, NULL);
    int intel = strstr(platform, "Intel") != NULL;
    double compile_bound = (double)fuzz_env_u64("FUZZ_RSS_BOUND_COMPILE", intel ? 65536 : 64);
    printf("OpenCL platform: %s\n", platform);

    CHECK(dnnl_ocl_interop_engine_create(&env.engine, env.dev, env.ctx));
    phase("A: objects on one OpenCL engine", 100, cycles, objects_cycle, &env, bound, 0);
    CHECK(dnnl_engine_destroy(env.engine));
    env.engine = NULL;

    size_t size = 0;
    uint8_t *blob = make_blob(&env, &size);
    if (!blob) {
        fuzz_wrong("could not make the engine cache blob");
        return;
    }
    env.blob = blob;
    env.blob_size = size;
    env.how = 0;
    phase("B: OpenCL engines from a cache blob, and their objects", 20, engine_cycles, engine_cycle,
            &env, bound, 1);
    env.how = 1;
    double ours = phase("C: OpenCL engines compiling, and their objects", 2, compile_cycles,
            engine_cycle, &env, compile_bound, 1);
    int o = 0;
    for (int k = 0; k < 20; k++)
        o += snprintf(plain_src + o, sizeof plain_src - (size_t)o,
                "__kernel void k%d(__global float *x) { size_t i = get_global_id(0); float a = x[i];"
                " for (int j = 0; j < 4; j++) a = a * 1.5f + %d.0f * sin(a); x[i] = a; }\n",
                k, k);
    double own = phase("D: plain OpenCL program builds, no library call", 2, compile_cycles,
            plain_cycle, &env, 0, 1);
    env.how = 2;
    double ours2 = phase("E: engines of dnnl_engine_create (own contexts), and their objects", 2,
            compile_cycles, engine_cycle, &env, compile_bound, 1);
    double own2 = phase("F: plain OpenCL contexts and program builds, no library call", 2,
            compile_cycles, plain_cycle, &env, 0, 1);
    printf("steady growth per compiling cycle: %+.0f bytes (C, the library, interop engines), "
           "%+.0f (D, the runtime alone, same context); %+.0f (E, the library, own contexts), "
           "%+.0f (F, the runtime alone, new contexts)\n",
            ours, own, ours2, own2);
    free(blob);
    clReleaseMemObject(env.buf);
    clReleaseCommandQueue(env.queue);
    clReleaseContext(env.ctx);
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    fuzz_init("leaks", on_gpu ? "gpu" : "cpu", 1);
    fuzz_name_extra(X_CYCLES, "cycles");
    fuzz_name_extra(X_REFCOUNT_CHECKS, "refcount_checks");
    selftest = (int)fuzz_env_u64("FUZZ_SELFTEST", 0);
    if (on_gpu) {
        /* Asked in a child: the parent must not start OpenCL before forking. */
        pid_t pid = fork();
        if (pid == 0) _exit(ocl_devices(NULL, 0) > 0 ? 0 : 3);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) SKIP("no OpenCL device");
    }
    fuzz_run(0, 1, 600, body, NULL, on_gpu ? "leaks gpu" : "leaks cpu");
    return fuzz_finish();
}
