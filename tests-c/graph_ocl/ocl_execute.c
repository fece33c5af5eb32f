/* dnnl_graph_ocl_interop_compiled_partition_execute (+ _v2) on a two-layer MLP
 * (matmul, bias, ReLU, matmul, bias, softmax: mlp.h), with a counting USM allocator (counting_alloc.h), on an in-order and
 * (where the device has one) an out-of-order user queue.
 *
 * Checked:
 *   - the error cases: NULL compiled partition, stream, inputs or outputs; a stream
 *     of a CPU engine; a deps list with ndeps < 0 (all dnnl_invalid_arguments);
 *   - deps are honoured: the first execution waits for a user event (on the
 *     out-of-order queue its returned event is not complete until the user event
 *     is), and a NULL entry in deps is tolerated;
 *   - the returned event: owned by the caller and non-NULL on the out-of-order
 *     queue, NULL on the in-order queue; each partition runs after the previous
 *     one's event; the result, read after the last event (clFinish in-order),
 *     matches a double-precision reference, three times over (the constant
 *     weights prepared once are reused), and once more through _v2 with a user
 *     scratchpad;
 *   - the allocator: after destroying everything and emptying the graph caches,
 *     every allocation was freed exactly once, aligned as asked, and no free came
 *     before its event completed (CL_COMPLETE inside the callback).
 * USM is Intel's shared USM, else clSVMAlloc memory (PoCL, NVIDIA; Intel's runtime
 * under DNNL_OCL_USM=svm), which the host maps (clEnqueueSVMMap) to fill and read.
 * Without USM (none on CI) the error cases run, then the test exits 77 with the
 * reason: graph memory on OpenCL is USM. */
#include "counting_alloc.h"
#include "mlp.h"

static void *shared_usm(cl_device_id dev, cl_context ctx, size_t size) {
    void *p = ocl_usm_alloc(&count_usm, ctx, dev, 1, size, 64);
    EXPECT(p != NULL);
    return p;
}

/* Host access to all the MLP's buffers (SVM maps them on `q`). */
static void host_begin(const mlp_t *m, cl_command_queue q, void *const bufs[MLP_IDS]) {
    for (int i = 0; i < MLP_IDS; i++)
        ocl_usm_host_begin(&count_usm, q, bufs[i], mlp_size(m, i));
}

static void host_end(cl_command_queue q, void *const bufs[MLP_IDS]) {
    for (int i = 0; i < MLP_IDS; i++)
        ocl_usm_host_end(&count_usm, q, bufs[i]);
}

/* Tensors of partition p over bufs[id], in port order. */
static void make_tensors(const mlp_t *m, size_t p, dnnl_engine_t e, void *const bufs[MLP_IDS],
        dnnl_graph_tensor_t *ins, dnnl_graph_tensor_t *outs) {
    for (size_t i = 0; i < m->nin[p]; i++) {
        dnnl_graph_logical_tensor_t lt;
        CHECK(dnnl_graph_compiled_partition_query_logical_tensor(
                m->cps[p], m->ins[p][i].id, &lt));
        CHECK(dnnl_graph_tensor_create(&ins[i], &lt, e, bufs[lt.id]));
    }
    for (size_t i = 0; i < m->nout[p]; i++) {
        dnnl_graph_logical_tensor_t lt;
        CHECK(dnnl_graph_compiled_partition_query_logical_tensor(
                m->cps[p], m->outs[p][i].id, &lt));
        CHECK(dnnl_graph_tensor_create(&outs[i], &lt, e, bufs[lt.id]));
    }
}

static void destroy_tensors(const mlp_t *m, size_t p, dnnl_graph_tensor_t *ins,
        dnnl_graph_tensor_t *outs) {
    for (size_t i = 0; i < m->nin[p]; i++)
        CHECK(dnnl_graph_tensor_destroy(ins[i]));
    for (size_t i = 0; i < m->nout[p]; i++)
        CHECK(dnnl_graph_tensor_destroy(outs[i]));
}

/* The argument checks that need no USM: a partition compiled for the CPU engine. */
static void error_cases(void) {
    mlp_t m;
    dnnl_engine_t cpu = NULL;
    dnnl_stream_t cpu_stream = NULL;
    CHECK(dnnl_engine_create(&cpu, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&cpu_stream, cpu, dnnl_stream_default_flags));
    mlp_build(&m, dnnl_cpu);
    mlp_compile(&m, cpu);
    static float host[MLP_IDS][MLP_H * MLP_N * 4];
    void *bufs[MLP_IDS];
    for (int i = 0; i < MLP_IDS; i++)
        bufs[i] = host[i];
    dnnl_graph_tensor_t ins[4], outs[2];
    make_tensors(&m, 0, cpu, bufs, ins, outs);
    const_dnnl_graph_tensor_t *in = (const_dnnl_graph_tensor_t *)ins;
    const_dnnl_graph_tensor_t *out = (const_dnnl_graph_tensor_t *)outs;
    cl_event ev = NULL;
    CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute(NULL, cpu_stream,
                         m.nin[0], in, m.nout[0], out, NULL, 0, &ev),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute(m.cps[0], NULL, m.nin[0],
                         in, m.nout[0], out, NULL, 0, &ev),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute(m.cps[0], cpu_stream,
                         m.nin[0], NULL, m.nout[0], out, NULL, 0, &ev),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute(m.cps[0], cpu_stream,
                         m.nin[0], in, m.nout[0], NULL, NULL, 0, &ev),
            dnnl_invalid_arguments);
    /* The engine is not a GPU engine. */
    CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute(m.cps[0], cpu_stream,
                         m.nin[0], in, m.nout[0], out, NULL, 0, &ev),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute_v2(m.cps[0], cpu_stream,
                         m.nin[0], in, m.nout[0], out, NULL, NULL, 0, &ev),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute_v2(NULL, cpu_stream,
                         m.nin[0], in, m.nout[0], out, NULL, NULL, 0, &ev),
            dnnl_invalid_arguments);
    EXPECT(ev == NULL);
    destroy_tensors(&m, 0, ins, outs);
    mlp_destroy(&m);
    CHECK(dnnl_stream_destroy(cpu_stream));
    CHECK(dnnl_engine_destroy(cpu));
    printf("argument checks (NULL arguments, a CPU stream): ok\n");
}

/* One engine for both queues: its programs are compiled once. */
static void run(cl_device_id dev, cl_context ctx, dnnl_engine_t engine, int out_of_order) {
    const char *qname = out_of_order ? "out-of-order" : "in-order";
    cl_command_queue queue = ocl_queue_create(
            ctx, dev, out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0);
    dnnl_stream_t stream = NULL;
    CHECK(dnnl_ocl_interop_stream_create(&stream, engine, queue));

    mlp_t m;
    mlp_build(&m, dnnl_gpu);
    mlp_compile(&m, engine);
    printf("%s queue: %zu partitions\n", qname, m.nparts);

    void *bufs[MLP_IDS];
    float *host[MLP_IDS];
    for (int i = 0; i < MLP_IDS; i++) {
        bufs[i] = shared_usm(dev, ctx, mlp_size(&m, i));
        host[i] = (float *)bufs[i];
    }
    host_begin(&m, queue, bufs);
    mlp_fill(host);
    static double ref[MLP_M * MLP_N];
    mlp_reference(host, ref);
    host_end(queue, bufs);

    /* ndeps < 0 with a list. */
    {
        dnnl_graph_tensor_t ins[4], outs[2];
        make_tensors(&m, 0, engine, bufs, ins, outs);
        cl_event dep = NULL;
        CHECK_STATUS(dnnl_graph_ocl_interop_compiled_partition_execute(m.cps[0], stream,
                             m.nin[0], (const_dnnl_graph_tensor_t *)ins, m.nout[0],
                             (const_dnnl_graph_tensor_t *)outs, &dep, -1, NULL),
                dnnl_invalid_arguments);
        destroy_tensors(&m, 0, ins, outs);
    }

    cl_int err = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(ctx, &err);
    OCL_CHECK(err);
    for (int iter = 0; iter < 4; iter++) {
        int v2 = iter == 3;
        ocl_usm_host_begin(&count_usm, queue, bufs[10], mlp_size(&m, 10));
        memset(bufs[10], 0xff, mlp_size(&m, 10)); /* NaNs until written */
        ocl_usm_host_end(&count_usm, queue, bufs[10]);
        cl_event prev = iter == 0 ? gate : NULL;
        if (prev) OCL_CHECK(clRetainEvent(prev));
        for (size_t p = 0; p < m.nparts; p++) {
            dnnl_graph_tensor_t ins[4], outs[2], scratch = NULL;
            make_tensors(&m, p, engine, bufs, ins, outs);
            void *scratch_mem = NULL;
            if (v2) {
                dnnl_graph_logical_tensor_t lt;
                CHECK(dnnl_graph_compiled_partition_get_scratchpad_logical_tensor(
                        m.cps[p], &lt));
                size_t size = 0;
                CHECK(dnnl_graph_logical_tensor_get_mem_size(&lt, &size));
                if (size) {
                    scratch_mem = shared_usm(dev, ctx, size);
                    CHECK(dnnl_graph_tensor_create(&scratch, &lt, engine, scratch_mem));
                }
            }
            cl_event deps[2] = {prev, NULL}; /* a NULL entry is tolerated */
            cl_event ev = (cl_event)&ev; /* must be overwritten */
            const_dnnl_graph_tensor_t *in = (const_dnnl_graph_tensor_t *)ins;
            const_dnnl_graph_tensor_t *out = (const_dnnl_graph_tensor_t *)outs;
            if (v2)
                CHECK(dnnl_graph_ocl_interop_compiled_partition_execute_v2(m.cps[p], stream,
                        m.nin[p], in, m.nout[p], out, scratch, deps, 2, &ev));
            else
                CHECK(dnnl_graph_ocl_interop_compiled_partition_execute(
                        m.cps[p], stream, m.nin[p], in, m.nout[p], out, deps, 2, &ev));
            if (out_of_order) {
                EXPECT(ev != NULL);
                if (iter == 0 && p == 0) {
                    cl_int status = CL_COMPLETE;
                    OCL_CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof(status), &status, NULL));
                    EXPECT(status != CL_COMPLETE); /* it waits for the gate */
                }
            } else {
                EXPECT(ev == NULL);
            }
            if (prev) OCL_CHECK(clReleaseEvent(prev));
            prev = ev;
            /* The library holds what it needs: the handles may go at once. */
            destroy_tensors(&m, p, ins, outs);
            if (scratch) {
                CHECK(dnnl_graph_tensor_destroy(scratch));
                /* The scratchpad is the caller's: it must outlive the execution. */
                if (prev) OCL_CHECK(clWaitForEvents(1, &prev));
                OCL_CHECK(clFinish(queue));
                ocl_usm_free(&count_usm, ctx, scratch_mem);
            }
        }
        if (iter == 0) {
            /* Nothing could have run yet: the first partition waits for the gate. A
             * marker after everything enqueued is not complete, and (shared Intel USM
             * being readable at any time) the output is still NaN; SVM is not the
             * host's while a command may use it. */
            cl_event marker = NULL;
            OCL_CHECK(clEnqueueMarkerWithWaitList(queue, 0, NULL, &marker));
            cl_int status = CL_COMPLETE;
            OCL_CHECK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS,
                    sizeof(status), &status, NULL));
            EXPECT(status != CL_COMPLETE);
            if (count_usm.via == OCL_USM_INTEL) EXPECT(isnan(host[10][0]));
            OCL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
            OCL_CHECK(clWaitForEvents(1, &marker));
            OCL_CHECK(clReleaseEvent(marker));
        }
        if (prev) {
            OCL_CHECK(clWaitForEvents(1, &prev));
            OCL_CHECK(clReleaseEvent(prev));
        } else {
            OCL_CHECK(clFinish(queue));
        }
        ocl_usm_host_begin(&count_usm, queue, bufs[10], mlp_size(&m, 10));
        double worst = mlp_error(host[10], ref);
        ocl_usm_host_end(&count_usm, queue, bufs[10]);
        printf("%s queue, run %d%s: max |dst - ref| = %.3g\n", qname, iter,
                v2 ? " (_v2, user scratchpad)" : "", worst);
        EXPECT(worst < 1e-4);
    }
    OCL_CHECK(clReleaseEvent(gate));

    mlp_destroy(&m);
    CHECK(dnnl_stream_destroy(stream));
    OCL_CHECK(clFinish(queue));
    OCL_CHECK(clReleaseCommandQueue(queue));
    for (int i = 0; i < MLP_IDS; i++)
        ocl_usm_free(&count_usm, ctx, bufs[i]);
}

int main(void) {
    error_cases();
    cl_device_id dev = ocl_first_device_or_skip();
    ocl_usm_t usm;
    if (!ocl_usm_get(dev, &usm))
        SKIP("the device has neither Intel USM nor coarse-grained SVM: graph memory on "
             "OpenCL is USM (the argument checks above ran)");
    count_ocl_init(&usm);
    printf("USM: %s\n", ocl_usm_name(&usm));
    cl_context ctx = ocl_context_create(dev);
    dnnl_graph_allocator_t alloc = NULL;
    dnnl_engine_t engine = NULL;
    CHECK(dnnl_graph_ocl_interop_allocator_create(&alloc, count_ocl_malloc, count_ocl_free));
    CHECK(dnnl_graph_ocl_interop_make_engine_with_allocator(&engine, dev, ctx, alloc));
    CHECK(dnnl_graph_allocator_destroy(alloc)); /* the engine has its own copy */
    run(dev, ctx, engine, 0);
    if (ocl_device_has_ooo(dev))
        run(dev, ctx, engine, 1);
    else
        printf("SKIP: the device has no out-of-order queues: in-order only\n");
    CHECK(dnnl_engine_destroy(engine));
    /* The constant weights live in the constant tensor cache, and compiled
     * partitions in theirs: emptied, they give their memory back. */
    CHECK(dnnl_graph_set_compiled_partition_cache_capacity(0));
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_gpu, 0));
    count_check_balanced(5000);
    count_report("counting USM allocator");
    EXPECT(count_allocs() > 0);
    EXPECT(count.event_frees > 0);
    OCL_CHECK(clReleaseContext(ctx));
    printf("graph_ocl_execute: ok\n");
    return 0;
}
