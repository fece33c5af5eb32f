/* Wild pointers given as OpenCL objects to every function that takes one (issue 18:
 * the ICD loader reads an object's dispatch table through the pointer before any
 * driver can refuse it, so these crashed).
 *
 * For each parameter that takes a cl_device_id, cl_context, cl_command_queue, cl_mem
 * or a list of cl_event, the test passes: NULL (where NULL is not a documented
 * value), (void *)1, 0xdeadbeef000, a pointer into unmapped memory, a PROT_NONE page,
 * a zero-filled and a 0xa5-filled malloc buffer, and every real object of another
 * type; each call must return dnnl_invalid_arguments and leave its output alone.
 * Functions: dnnl_ocl_interop_engine_create, _engine_create_from_cache_blob,
 * _engine_get_cache_blob_id, _stream_create, _memory_create, _memory_create_v2,
 * _memory_set_mem_object, _primitive_execute (the deps list, and the list pointer
 * itself), the v1 names (dnnl_engine_create_ocl, dnnl_stream_create_ocl,
 * dnnl_memory_set_ocl_mem_object), dnnl_memory_create and
 * dnnl_memory_set_data_handle on a buffer memory, and the graph OpenCL functions
 * (make_engine_with_allocator, make_engine_from_cache_blob_with_allocator,
 * compiled_partition_execute's deps). An event of another context is refused too.
 *
 * Then the real objects still work: an engine from the same device and context, one
 * from the cache blob, the cache blob id, a stream on the queue, a user buffer, a
 * ReLU executed after a user event, checked element by element. The reference counts
 * of the context, queue and buffer are unchanged by the refused calls, and those of
 * the context and buffer are back where they started once everything is destroyed.
 *
 * Run with the argument `none` under an empty OCL_ICD_VENDORS directory: no OpenCL
 * platform at all; the functions that take a device or context are called with the
 * wild pointers and must refuse them too. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ocl_util.h"
#include "interop/wild_pointers.h"
#include "oneapi/dnnl/dnnl_graph.h"
#include "oneapi/dnnl/dnnl_graph_ocl.h"

#define N 64
#define MAX_WILD 16

static int failures;
static int refused;

static void expect_ia(dnnl_status_t s, const char *call, const wild_t *w) {
    if (s != dnnl_invalid_arguments) {
        fflush(stdout);
        fprintf(stderr, "FAILED: %s with %s (%p) returned %s, expected invalid_arguments\n",
                call, w->name, w->ptr, check_status_str(s));
        failures++;
        return;
    }
    refused++;
}

/* The real objects, for "a valid object of another type". */
typedef struct {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue queue;
    cl_mem mem;
    cl_event event;
} real_t;

/* Wild pointers plus the real objects other than `self`. */
static size_t wild_for(wild_t *w, int with_null, const real_t *r, const void *self) {
    size_t n = wild_pointers(w, with_null);
    if (!r) return n;
    const wild_t others[] = {{"a cl_device_id", r->dev}, {"a cl_context", r->ctx},
            {"a cl_command_queue", r->queue}, {"a cl_mem", r->mem},
            {"a cl_event", r->event}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (others[i].ptr != self) w[n++] = others[i];
    return n;
}

/* A graph allocator: the library's default one (no callbacks). */
static dnnl_graph_allocator_t default_allocator(void) {
    dnnl_graph_allocator_t alloc = NULL;
    CHECK(dnnl_graph_ocl_interop_allocator_create(&alloc, NULL, NULL));
    return alloc;
}

/* The engine-making functions, with `dev` and `ctx` (either may be wild). */
static void engine_calls(cl_device_id dev, cl_context ctx, const wild_t *w, const uint8_t *blob,
        size_t blob_size, dnnl_graph_allocator_t alloc) {
    dnnl_engine_t e = NULL;
    expect_ia(dnnl_ocl_interop_engine_create(&e, dev, ctx), "dnnl_ocl_interop_engine_create", w);
    expect_ia(dnnl_engine_create_ocl(&e, dnnl_gpu, dev, ctx), "dnnl_engine_create_ocl", w);
    expect_ia(dnnl_ocl_interop_engine_create_from_cache_blob(&e, dev, ctx, blob_size, blob),
            "dnnl_ocl_interop_engine_create_from_cache_blob", w);
    expect_ia(dnnl_graph_ocl_interop_make_engine_with_allocator(&e, dev, ctx, alloc),
            "dnnl_graph_ocl_interop_make_engine_with_allocator", w);
    expect_ia(dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator(
                      &e, dev, ctx, alloc, blob_size, blob),
            "dnnl_graph_ocl_interop_make_engine_from_cache_blob_with_allocator", w);
    EXPECT(e == NULL);
}

static void blob_id_call(cl_device_id dev, const wild_t *w) {
    size_t size = 12345;
    expect_ia(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &size, NULL),
            "dnnl_ocl_interop_engine_get_cache_blob_id", w);
    EXPECT(size == 12345);
}

/* No OpenCL platform: only the functions that take a device or a context. */
static int run_without_opencl(void) {
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    if (err == CL_SUCCESS && nplat > 0) {
        fprintf(stderr, "FAILED: `none` expects no OpenCL platform, %u are visible "
                        "(OCL_ICD_VENDORS should name an empty directory)\n",
                nplat);
        return 1;
    }
    uint8_t blob[64];
    memset(blob, 0x11, sizeof blob);
    dnnl_graph_allocator_t alloc = default_allocator();
    wild_t w[MAX_WILD];
    size_t n = wild_pointers(w, 1);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (!w[i].ptr && !w[j].ptr) continue;
            engine_calls((cl_device_id)w[i].ptr, (cl_context)w[j].ptr,
                    w[i].ptr ? &w[i] : &w[j], blob, sizeof blob, alloc);
        }
        blob_id_call((cl_device_id)w[i].ptr, &w[i]);
    }
    CHECK(dnnl_graph_allocator_destroy(alloc));
    if (failures) return 1;
    printf("no OpenCL platform: %d calls with wild handles refused: ok\n", refused);
    return 0;
}

/* A ReLU over N floats on `engine`. */
static dnnl_primitive_t relu(dnnl_engine_t engine, dnnl_memory_desc_t md) {
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_relu, md, md, 0.f, 0.f, NULL));
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    return p;
}

/* The engine's cache blob, after it compiled something (malloc'ed; *size set). */
static uint8_t *engine_blob(dnnl_engine_t engine, size_t *size) {
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine, size, NULL));
    EXPECT(*size > 0);
    uint8_t *blob = (uint8_t *)malloc(*size);
    EXPECT(blob != NULL);
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine, size, blob));
    return blob;
}

/* A compiled partition (a ReLU on the CPU engine): the graph OpenCL execute reads its
 * deps before it looks at the partition's engine or tensors. */
static dnnl_graph_compiled_partition_t cpu_partition(dnnl_engine_t cpu) {
    int64_t dims[1] = {N};
    dnnl_graph_logical_tensor_t in, out;
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&in, 0, dnnl_f32, 1, dims,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&out, 1, dnnl_f32, 1, dims,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));
    dnnl_graph_op_t op = NULL;
    CHECK(dnnl_graph_op_create(&op, 0, dnnl_graph_op_relu, "relu"));
    CHECK(dnnl_graph_op_add_input(op, &in));
    CHECK(dnnl_graph_op_add_output(op, &out));
    dnnl_graph_graph_t g = NULL;
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    CHECK(dnnl_graph_add_op(g, op));
    CHECK(dnnl_graph_op_destroy(op));
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
    dnnl_graph_partition_t part = NULL;
    size_t nparts = 0;
    CHECK(dnnl_graph_graph_get_partition_num(g, &nparts));
    EXPECT(nparts == 1);
    CHECK(dnnl_graph_graph_get_partitions(g, 1, &part));
    dnnl_graph_compiled_partition_t cp = NULL;
    CHECK(dnnl_graph_compiled_partition_create(&cp, part));
    const dnnl_graph_logical_tensor_t *ins[1] = {&in}, *outs[1] = {&out};
    CHECK(dnnl_graph_partition_compile(part, cp, 1, ins, 1, outs, cpu));
    CHECK(dnnl_graph_partition_destroy(part));
    CHECK(dnnl_graph_graph_destroy(g));
    return cp;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "none") == 0) return run_without_opencl();

    cl_device_id dev = ocl_first_device_or_skip();
    char desc[600];
    ocl_describe(dev, desc, sizeof desc);
    printf("device: %s\n", desc);
    cl_int err = CL_SUCCESS;
    real_t r;
    r.dev = dev;
    r.ctx = ocl_context_create(dev);
    r.queue = ocl_queue_create(r.ctx, dev, 0);
    r.mem = clCreateBuffer(r.ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    OCL_CHECK(err);
    r.event = clCreateUserEvent(r.ctx, &err);
    OCL_CHECK(err);
    OCL_CHECK(clSetUserEventStatus(r.event, CL_COMPLETE));
    cl_uint ctx_refs = ocl_context_refcount(r.ctx), mem_refs = ocl_mem_refcount(r.mem);

    /* An engine with something compiled (a library-allocated memory is zeroed by a
     * kernel), for a real cache blob. */
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_ocl_interop_engine_create(&engine, dev, r.ctx));
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_ocl_interop_stream_create(&stream, engine, r.queue));
    dnnl_memory_desc_t md = ocl_md_f32(N);
    dnnl_memory_t src = NULL, dst = NULL;
    CHECK(dnnl_memory_create(&src, md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_ocl_interop_memory_create(&dst, md, engine, dnnl_ocl_interop_buffer, r.mem));
    dnnl_primitive_t prim = relu(engine, md);
    size_t blob_size = 0;
    uint8_t *blob = engine_blob(engine, &blob_size);
    dnnl_graph_allocator_t alloc = default_allocator();
    wild_t w[MAX_WILD];
    /* What the library holds now: a refused handle must not change it. */
    cl_uint ctx_held = ocl_context_refcount(r.ctx), queue_held = ocl_queue_refcount(r.queue),
            mem_held = ocl_mem_refcount(r.mem);

    /* Engines: a wild device with the real context, and the reverse. */
    size_t n = wild_for(w, 1, &r, r.dev);
    for (size_t i = 0; i < n; i++) {
        engine_calls((cl_device_id)w[i].ptr, r.ctx, &w[i], blob, blob_size, alloc);
        blob_id_call((cl_device_id)w[i].ptr, &w[i]);
    }
    n = wild_for(w, 1, &r, r.ctx);
    for (size_t i = 0; i < n; i++)
        engine_calls(dev, (cl_context)w[i].ptr, &w[i], blob, blob_size, alloc);
    printf("engines, cache blob id: %d wild devices and contexts refused\n", refused);

    /* Streams. */
    n = wild_for(w, 1, &r, r.queue);
    for (size_t i = 0; i < n; i++) {
        dnnl_stream_t s = NULL;
        expect_ia(dnnl_ocl_interop_stream_create(&s, engine, (cl_command_queue)w[i].ptr),
                "dnnl_ocl_interop_stream_create", &w[i]);
        expect_ia(dnnl_stream_create_ocl(&s, engine, (cl_command_queue)w[i].ptr),
                "dnnl_stream_create_ocl", &w[i]);
        EXPECT(s == NULL);
    }

    /* Buffers (NULL is DNNL_MEMORY_NONE there, a valid value). */
    n = wild_for(w, 0, &r, r.mem);
    for (size_t i = 0; i < n; i++) {
        dnnl_memory_t m = NULL;
        expect_ia(dnnl_ocl_interop_memory_create(
                          &m, md, engine, dnnl_ocl_interop_buffer, w[i].ptr),
                "dnnl_ocl_interop_memory_create", &w[i]);
        void *handles[1] = {w[i].ptr};
        expect_ia(dnnl_ocl_interop_memory_create_v2(
                          &m, md, engine, dnnl_ocl_interop_buffer, 1, handles),
                "dnnl_ocl_interop_memory_create_v2", &w[i]);
        expect_ia(dnnl_memory_create(&m, md, engine, w[i].ptr), "dnnl_memory_create", &w[i]);
        EXPECT(m == NULL);
        expect_ia(dnnl_ocl_interop_memory_set_mem_object(dst, (cl_mem)w[i].ptr),
                "dnnl_ocl_interop_memory_set_mem_object", &w[i]);
        expect_ia(dnnl_memory_set_ocl_mem_object(dst, (cl_mem)w[i].ptr),
                "dnnl_memory_set_ocl_mem_object", &w[i]);
        expect_ia(dnnl_memory_set_data_handle(dst, w[i].ptr), "dnnl_memory_set_data_handle",
                &w[i]);
        cl_mem still = NULL;
        CHECK(dnnl_ocl_interop_memory_get_mem_object(dst, &still));
        EXPECT(still == r.mem);
    }
    /* USM pointers that are neither USM nor readable host memory: refused where the
     * device has USM, Intel's or SVM (where it has none, every USM memory is
     * unimplemented). */
    ocl_usm_t usm;
    if (ocl_usm_get(dev, &usm)) {
        n = wild_pointers(w, 0);
        for (size_t i = 0; i < n; i++) {
            if (w[i].ptr != (void *)1 && w[i].ptr != (void *)(uintptr_t)0xdeadbeef000ull
                    && strstr(w[i].name, "unmapped") == NULL
                    && strstr(w[i].name, "PROT") == NULL)
                continue;
            dnnl_memory_t m = NULL;
            expect_ia(dnnl_ocl_interop_memory_create(
                              &m, md, engine, dnnl_ocl_interop_usm, w[i].ptr),
                    "dnnl_ocl_interop_memory_create (usm)", &w[i]);
            EXPECT(m == NULL);
        }
    } else {
        printf("neither Intel USM nor SVM: USM memory is unimplemented here, "
               "wild USM pointers not tried\n");
    }
    printf("streams, memories: %d wild handles refused so far\n", refused);

    /* Dependency events: a wild entry, and a wild list pointer. */
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    dnnl_engine_t cpu = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    dnnl_graph_compiled_partition_t cp = cpu_partition(cpu);
    const_dnnl_graph_tensor_t no_tensors[1] = {NULL};
    n = wild_for(w, 0, &r, r.event);
    for (size_t i = 0; i < n; i++) {
        cl_event ret = NULL;
        cl_event deps[2] = {NULL, (cl_event)w[i].ptr};
        expect_ia(dnnl_ocl_interop_primitive_execute(prim, stream, 2, args, deps, 2, &ret),
                "dnnl_ocl_interop_primitive_execute (deps entry)", &w[i]);
        expect_ia(dnnl_graph_ocl_interop_compiled_partition_execute(
                          cp, stream, 0, no_tensors, 0, no_tensors, deps, 2, &ret),
                "dnnl_graph_ocl_interop_compiled_partition_execute (deps entry)", &w[i]);
        EXPECT(ret == NULL);
    }
    n = wild_pointers(w, 0);
    for (size_t i = 0; i < n; i++) {
        /* The list itself: only the pointers that cannot be read. */
        if (w[i].ptr != (void *)1 && w[i].ptr != (void *)(uintptr_t)0xdeadbeef000ull
                && strstr(w[i].name, "unmapped") == NULL && strstr(w[i].name, "PROT") == NULL)
            continue;
        expect_ia(dnnl_ocl_interop_primitive_execute(
                          prim, stream, 2, args, (const cl_event *)w[i].ptr, 1, NULL),
                "dnnl_ocl_interop_primitive_execute (deps list)", &w[i]);
        expect_ia(dnnl_graph_ocl_interop_compiled_partition_execute(cp, stream, 0, no_tensors,
                          0, no_tensors, (const cl_event *)w[i].ptr, 1, NULL),
                "dnnl_graph_ocl_interop_compiled_partition_execute (deps list)", &w[i]);
    }
    {
        /* An event of another context of the same device. */
        cl_context other = ocl_context_create(dev);
        cl_event foreign = clCreateUserEvent(other, &err);
        OCL_CHECK(err);
        OCL_CHECK(clSetUserEventStatus(foreign, CL_COMPLETE));
        wild_t fw = {"an event of another context", foreign};
        expect_ia(dnnl_ocl_interop_primitive_execute(prim, stream, 2, args, &foreign, 1, NULL),
                "dnnl_ocl_interop_primitive_execute", &fw);
        OCL_CHECK(clReleaseEvent(foreign));
        OCL_CHECK(clReleaseContext(other));
    }
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_engine_destroy(cpu));
    printf("execute deps: %d wild handles refused so far\n", refused);
    EXPECT(ocl_context_refcount_settles(r.ctx, ctx_held));
    EXPECT(ocl_queue_refcount_settles(r.queue, queue_held));
    EXPECT(ocl_mem_refcount_settles(r.mem, mem_held));

    /* The real objects still work. */
    {
        size_t id_size = 0;
        CHECK(dnnl_ocl_interop_engine_get_cache_blob_id(dev, &id_size, NULL));
        EXPECT(id_size > 0);
        dnnl_engine_t again = NULL, from_blob = NULL, graph_engine = NULL;
        CHECK(dnnl_ocl_interop_engine_create(&again, dev, r.ctx));
        CHECK(dnnl_ocl_interop_engine_create_from_cache_blob(
                &from_blob, dev, r.ctx, blob_size, blob));
        CHECK(dnnl_graph_ocl_interop_make_engine_with_allocator(
                &graph_engine, dev, r.ctx, alloc));
        CHECK(dnnl_engine_destroy(again));
        CHECK(dnnl_engine_destroy(from_blob));
        CHECK(dnnl_engine_destroy(graph_engine));

        float in[N], out[N];
        for (int i = 0; i < N; i++)
            in[i] = (float)(i - N / 2) * 0.5f;
        cl_mem src_mem = NULL;
        CHECK(dnnl_ocl_interop_memory_get_mem_object(src, &src_mem));
        OCL_CHECK(clEnqueueWriteBuffer(r.queue, src_mem, CL_TRUE, 0, sizeof in, in, 0, NULL,
                NULL));
        CHECK(dnnl_ocl_interop_primitive_execute(prim, stream, 2, args, &r.event, 1, NULL));
        CHECK(dnnl_stream_wait(stream));
        OCL_CHECK(clEnqueueReadBuffer(r.queue, r.mem, CL_TRUE, 0, sizeof out, out, 0, NULL,
                NULL));
        for (int i = 0; i < N; i++) {
            float want = in[i] > 0.f ? in[i] : 0.f;
            if (out[i] != want) {
                fprintf(stderr, "FAILED: relu[%d] = %g, expected %g\n", i, out[i], want);
                failures++;
                break;
            }
        }
    }

    CHECK(dnnl_graph_allocator_destroy(alloc));
    free(blob);
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    /* Not the queue's: PoCL 3.1 keeps a reference to the queue for each command the
     * test enqueued itself (clEnqueueWriteBuffer, clEnqueueReadBuffer) past clFinish. */
    EXPECT(ocl_context_refcount_settles(r.ctx, ctx_refs));
    EXPECT(ocl_mem_refcount_settles(r.mem, mem_refs));
    OCL_CHECK(clReleaseEvent(r.event));
    OCL_CHECK(clReleaseMemObject(r.mem));
    OCL_CHECK(clReleaseCommandQueue(r.queue));
    OCL_CHECK(clReleaseContext(r.ctx));
    if (failures) {
        fprintf(stderr, "%d calls were not refused\n", failures);
        return 1;
    }
    printf("%d calls with wild handles refused; the real objects still work: ok\n", refused);
    return 0;
}
