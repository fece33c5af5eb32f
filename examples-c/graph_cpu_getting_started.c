/* Getting started with the graph API on the CPU engine, in C: two convolutions with
 * bias and ReLU and a residual Add (graph_example.h draws the graph).
 *
 * The program
 *   1. creates a CPU engine and a stream;
 *   2. builds the graph, finalizes it, and asks for its partitions (the groups of
 *      ops the library runs as one: here conv0 + BiasAdd + ReLU, and conv1 + BiasAdd
 *      + ReLU + Add), skipping any the library does not support;
 *   3. compiles each partition for the engine with the shapes of its inputs and
 *      outputs, creates tensors over the program's data and executes the partitions
 *      in order, the first one's output feeding the second;
 *   4. checks the result against a reference computed here.
 * The data lives in memory objects the library allocates (dnnl_memory_create with
 * DNNL_MEMORY_ALLOCATE): host memory on a CPU engine (and USM on oneDNN's SYCL CPU
 * builds, which take no other memory). */
#include "graph_example.h"
#include "oneapi/dnnl/dnnl.h"

int main(void) {
    /* 1. Engine and stream. */
    dnnl_engine_t engine = NULL;
    dnnl_stream_t stream = NULL;
    DNNL(dnnl_engine_create(&engine, dnnl_cpu, 0));
    DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    /* 2. The graph and its partitions. */
    dnnl_graph_logical_tensor_t lts[N_LT];
    example_tensors(lts);
    dnnl_graph_graph_t graph = example_graph(dnnl_cpu, lts);
    DNNL(dnnl_graph_graph_filter(graph, dnnl_graph_partition_policy_fusion));
    size_t nparts = 0;
    DNNL(dnnl_graph_graph_get_partition_num(graph, &nparts));
    dnnl_graph_partition_t *parts = calloc(nparts, sizeof(*parts));
    DNNL(dnnl_graph_graph_get_partitions(graph, nparts, parts));
    printf("%zu partition(s)\n", nparts);

    /* The data: one memory object per tensor. */
    dnnl_memory_t mem[N_LT];
    float *host[N_LT];
    size_t sizes[N_LT];
    for (int i = 0; i < N_LT; i++) {
        DNNL(dnnl_graph_logical_tensor_get_mem_size(&lts[i], &sizes[i]));
        int64_t bytes = (int64_t)sizes[i];
        dnnl_memory_desc_t md = NULL;
        DNNL(dnnl_memory_desc_create_with_tag(&md, 1, &bytes, dnnl_u8, dnnl_a));
        DNNL(dnnl_memory_create(&mem[i], md, engine, DNNL_MEMORY_ALLOCATE));
        DNNL(dnnl_memory_desc_destroy(md));
        host[i] = calloc(1, sizes[i]);
    }
    example_inputs(host, sizes);
    for (int i = 0; i < N_LT; i++) {
        void *p = NULL;
        DNNL(dnnl_memory_map_data(mem[i], &p));
        memcpy(p, host[i], sizes[i]);
        DNNL(dnnl_memory_unmap_data(mem[i], p));
    }

    /* 3. Compile and execute each partition. */
    for (size_t p = 0; p < nparts; p++) {
        uint8_t supported = 0;
        DNNL(dnnl_graph_partition_is_supported(parts[p], &supported));
        size_t nops = 0, nin = 0, nout = 0;
        DNNL(dnnl_graph_partition_get_op_num(parts[p], &nops));
        size_t *ops = calloc(nops, sizeof(*ops));
        DNNL(dnnl_graph_partition_get_ops(parts[p], nops, ops));
        printf("partition %zu: ops", p);
        for (size_t i = 0; i < nops; i++) printf(" %zu", ops[i]);
        printf("%s\n", supported ? "" : " (not supported: skipped)");
        free(ops);
        if (!supported) continue;
        DNNL(dnnl_graph_partition_get_input_ports_num(parts[p], &nin));
        DNNL(dnnl_graph_partition_get_output_ports_num(parts[p], &nout));
        dnnl_graph_logical_tensor_t *ins = calloc(nin, sizeof(*ins));
        dnnl_graph_logical_tensor_t *outs = calloc(nout, sizeof(*outs));
        const dnnl_graph_logical_tensor_t **in_ptrs = calloc(nin, sizeof(*in_ptrs));
        const dnnl_graph_logical_tensor_t **out_ptrs = calloc(nout, sizeof(*out_ptrs));
        DNNL(dnnl_graph_partition_get_input_ports(parts[p], nin, ins));
        DNNL(dnnl_graph_partition_get_output_ports(parts[p], nout, outs));
        for (size_t i = 0; i < nin; i++) in_ptrs[i] = &ins[i];
        for (size_t i = 0; i < nout; i++) out_ptrs[i] = &outs[i];
        dnnl_graph_compiled_partition_t cp = NULL;
        DNNL(dnnl_graph_compiled_partition_create(&cp, parts[p]));
        DNNL(dnnl_graph_partition_compile(parts[p], cp, nin, in_ptrs, nout, out_ptrs, engine));

        dnnl_graph_tensor_t *tin = calloc(nin, sizeof(*tin)), *tout = calloc(nout, sizeof(*tout));
        for (size_t i = 0; i < nin; i++) {
            void *handle = NULL;
            DNNL(dnnl_memory_get_data_handle(mem[ins[i].id], &handle));
            DNNL(dnnl_graph_tensor_create(&tin[i], &ins[i], engine, handle));
        }
        for (size_t i = 0; i < nout; i++) {
            void *handle = NULL;
            DNNL(dnnl_memory_get_data_handle(mem[outs[i].id], &handle));
            DNNL(dnnl_graph_tensor_create(&tout[i], &outs[i], engine, handle));
        }
        DNNL(dnnl_graph_compiled_partition_execute(cp, stream, nin,
                (const_dnnl_graph_tensor_t *)tin, nout, (const_dnnl_graph_tensor_t *)tout));
        DNNL(dnnl_stream_wait(stream));
        for (size_t i = 0; i < nin; i++) DNNL(dnnl_graph_tensor_destroy(tin[i]));
        for (size_t i = 0; i < nout; i++) DNNL(dnnl_graph_tensor_destroy(tout[i]));
        DNNL(dnnl_graph_compiled_partition_destroy(cp));
        free(tin), free(tout), free(ins), free(outs), free(in_ptrs), free(out_ptrs);
    }

    /* 4. The result. */
    void *p = NULL;
    DNNL(dnnl_memory_map_data(mem[11], &p));
    memcpy(host[11], p, sizes[11]);
    DNNL(dnnl_memory_unmap_data(mem[11], p));
    double worst = example_check(host);
    printf("max |dst - reference| = %.3g\n", worst);

    for (size_t i = 0; i < nparts; i++) DNNL(dnnl_graph_partition_destroy(parts[i]));
    free(parts);
    DNNL(dnnl_graph_graph_destroy(graph));
    for (int i = 0; i < N_LT; i++) {
        DNNL(dnnl_memory_destroy(mem[i]));
        free(host[i]);
    }
    DNNL(dnnl_stream_destroy(stream));
    DNNL(dnnl_engine_destroy(engine));
    if (nparts != 2 || !(worst <= 1e-4)) {
        printf("FAILED\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
