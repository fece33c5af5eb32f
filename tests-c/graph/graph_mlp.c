/* The 5-op MLP of the graph API: MatMul + BiasAdd + ReLU -> MatMul + BiasAdd
 * -> SoftMax, built, partitioned (2 fused MatMul partitions and 1 SoftMax),
 * compiled (the SoftMax output given with layout `any` and unknown shape),
 * executed 3 times and compared with a reference computed here; the
 * weights and biases are constant tensors. Argument "cpu": the CPU engine,
 * with a counting host allocator: with the constant tensor cache on (by its flag,
 * or by a nonzero capacity for the CPU kind alone), the 4
 * prepacked constants are allocated once over the 3 runs; with it off,
 * every run allocates and frees them. Argument "gpu": OpenCL engine 0 with
 * USM tensors (a runtime without USM is skipped). */
#include "graph_util.h"

enum { M = 4, K = 8, H = 16, N = 8 };

static int allocs, frees;

static void *count_malloc(size_t size, size_t alignment) {
    allocs++;
    void *p = NULL;
    if (posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size)) return NULL;
    return p;
}

static void count_free(void *p) {
    frees++;
    free(p);
}

static float src[M * K], w1[K * H], b1[H], w2[H * N], b2[N];

static void reference(float *out) {
    float hid[M * H];
    for (int m = 0; m < M; m++)
        for (int h = 0; h < H; h++) {
            float acc = b1[h];
            for (int k = 0; k < K; k++) acc += src[m * K + k] * w1[k * H + h];
            hid[m * H + h] = acc > 0 ? acc : 0;
        }
    for (int m = 0; m < M; m++) {
        float row[N], mx = -1e30f, sum = 0;
        for (int n = 0; n < N; n++) {
            float acc = b2[n];
            for (int h = 0; h < H; h++) acc += hid[m * H + h] * w2[h * N + n];
            row[n] = acc;
            if (acc > mx) mx = acc;
        }
        for (int n = 0; n < N; n++) sum += row[n] = expf(row[n] - mx);
        for (int n = 0; n < N; n++) out[m * N + n] = row[n] / sum;
    }
}

int main(int argc, char **argv) {
    int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    dnnl_engine_kind_t ekind = gpu ? dnnl_gpu : dnnl_cpu;
    dnnl_engine_t eng;
    dnnl_graph_allocator_t alloc = NULL;
    if (gpu) {
        if (dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
        CHECK(dnnl_engine_create(&eng, dnnl_gpu, 0));
    } else {
        /* PyPI's onednn (the reference runs) is a SYCL build: its CPU engine takes SYCL
         * allocators and USM, not host memory. */
        if (!library_is_ours())
            SKIP("Intel's library: its SYCL CPU engine runs graphs on USM only, not host memory");
        CHECK(dnnl_graph_allocator_create(&alloc, count_malloc, count_free));
        CHECK(dnnl_graph_make_engine_with_allocator(&eng, dnnl_cpu, 0, alloc));
        CHECK(dnnl_graph_allocator_destroy(alloc));
    }
    dnnl_stream_t strm;
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    for (int i = 0; i < M * K; i++) src[i] = (float)((i * 7) % 11) / 5.0f - 1.0f;
    for (int i = 0; i < K * H; i++) w1[i] = (float)((i * 5) % 13) / 6.0f - 1.0f;
    for (int i = 0; i < H; i++) b1[i] = 0.1f * (float)(i % 5) - 0.2f;
    for (int i = 0; i < H * N; i++) w2[i] = (float)((i * 3) % 7) / 4.0f - 0.7f;
    for (int i = 0; i < N; i++) b2[i] = 0.05f * (float)i;

    const dnnl_graph_tensor_property_t cst = dnnl_graph_tensor_property_constant;
    const dnnl_graph_layout_type_t strided = dnnl_graph_layout_type_strided;
    int64_t d_mk[] = {M, K}, d_kh[] = {K, H}, d_h[] = {H}, d_mh[] = {M, H}, d_hn[] = {H, N},
            d_n[] = {N}, d_mn[] = {M, N};
    dnnl_graph_logical_tensor_t t_src = lt_f32(1, 2, d_mk),
            t_w1 = lt_dims(2, dnnl_f32, 2, d_kh, strided, cst),
            t_b1 = lt_dims(3, dnnl_f32, 1, d_h, strided, cst), t_mm1 = lt_f32(4, 2, d_mh),
            t_ba1 = lt_f32(5, 2, d_mh), t_relu = lt_f32(6, 2, d_mh),
            t_w2 = lt_dims(7, dnnl_f32, 2, d_hn, strided, cst),
            t_b2 = lt_dims(8, dnnl_f32, 1, d_n, strided, cst), t_mm2 = lt_f32(9, 2, d_mn),
            t_ba2 = lt_f32(10, 2, d_mn), t_out;
    CHECK(dnnl_graph_logical_tensor_init(&t_out, 11, dnnl_f32, DNNL_GRAPH_UNKNOWN_NDIMS,
            dnnl_graph_layout_type_any, dnnl_graph_tensor_property_variable));

    dnnl_graph_graph_t g;
    CHECK(dnnl_graph_graph_create(&g, ekind));
    dnnl_graph_logical_tensor_t in_mm1[] = {t_src, t_w1}, in_ba1[] = {t_mm1, t_b1},
                                in_mm2[] = {t_relu, t_w2}, in_ba2[] = {t_mm2, t_b2};
    add_and_destroy(g, make_op(1, dnnl_graph_op_matmul, "mm1", 2, in_mm1, 1, &t_mm1));
    add_and_destroy(g, make_op(2, dnnl_graph_op_bias_add, "ba1", 2, in_ba1, 1, &t_ba1));
    add_and_destroy(g, make_op(3, dnnl_graph_op_relu, "relu", 1, &t_ba1, 1, &t_relu));
    add_and_destroy(g, make_op(4, dnnl_graph_op_matmul, "mm2", 2, in_mm2, 1, &t_mm2));
    add_and_destroy(g, make_op(5, dnnl_graph_op_bias_add, "ba2", 2, in_ba2, 1, &t_ba2));
    dnnl_graph_op_t sm = make_op(6, dnnl_graph_op_softmax, "softmax", 1, &t_ba2, 1, &t_out);
    int64_t axis = 1;
    CHECK(dnnl_graph_op_set_attr_s64(sm, dnnl_graph_op_attr_axis, &axis, 1));
    add_and_destroy(g, sm);
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));

    size_t np = 0;
    CHECK(dnnl_graph_graph_get_partition_num(g, &np));
    EXPECT(np == 3);
    dnnl_graph_partition_t parts[3];
    CHECK(dnnl_graph_graph_get_partitions(g, np, parts));
    const size_t want_ops[3][3] = {{1, 2, 3}, {4, 5, 0}, {6, 0, 0}};
    const size_t want_nops[3] = {3, 2, 1};
    const size_t want_ins[3][3] = {{1, 2, 3}, {6, 7, 8}, {10, 0, 0}};
    const size_t want_nins[3] = {3, 3, 1}, want_out[3] = {6, 10, 11};
    for (int p = 0; p < 3; p++) {
        size_t n, ids[3];
        uint8_t sup;
        CHECK(dnnl_graph_partition_is_supported(parts[p], &sup));
        EXPECT(sup == 1);
        CHECK(dnnl_graph_partition_get_op_num(parts[p], &n));
        EXPECT(n == want_nops[p]);
        CHECK(dnnl_graph_partition_get_ops(parts[p], n, ids));
        for (size_t i = 0; i < n; i++) EXPECT(ids[i] == want_ops[p][i]);
        CHECK(dnnl_graph_partition_get_input_ports_num(parts[p], &n));
        EXPECT(n == want_nins[p]);
        dnnl_graph_logical_tensor_t ports[3];
        CHECK(dnnl_graph_partition_get_input_ports(parts[p], n, ports));
        for (size_t i = 0; i < n; i++) EXPECT(ports[i].id == want_ins[p][i]);
        CHECK(dnnl_graph_partition_get_output_ports_num(parts[p], &n));
        EXPECT(n == 1);
        CHECK(dnnl_graph_partition_get_output_ports(parts[p], 1, ports));
        EXPECT(ports[0].id == want_out[p]);
    }
    printf("partitions: [1 2 3] -> 6, [4 5] -> 10, [6] -> 11\n");

    /* Compile each partition. */
    const dnnl_graph_logical_tensor_t *c_in0[] = {&t_src, &t_w1, &t_b1}, *c_out0[] = {&t_relu};
    const dnnl_graph_logical_tensor_t *c_in1[] = {&t_relu, &t_w2, &t_b2}, *c_out1[] = {&t_ba2};
    const dnnl_graph_logical_tensor_t *c_in2[] = {&t_ba2}, *c_out2[] = {&t_out};
    dnnl_graph_compiled_partition_t cps[3];
    for (int p = 0; p < 3; p++) CHECK(dnnl_graph_compiled_partition_create(&cps[p], parts[p]));
    CHECK(dnnl_graph_partition_compile(parts[0], cps[0], 3, (const dnnl_graph_logical_tensor_t **)c_in0, 1, (const dnnl_graph_logical_tensor_t **)c_out0, eng));
    CHECK(dnnl_graph_partition_compile(parts[1], cps[1], 3, (const dnnl_graph_logical_tensor_t **)c_in1, 1, (const dnnl_graph_logical_tensor_t **)c_out1, eng));
    CHECK(dnnl_graph_partition_compile(parts[2], cps[2], 1, (const dnnl_graph_logical_tensor_t **)c_in2, 1, (const dnnl_graph_logical_tensor_t **)c_out2, eng));
    dnnl_graph_logical_tensor_t q_out;
    CHECK(dnnl_graph_compiled_partition_query_logical_tensor(cps[2], 11, &q_out));
    EXPECT(q_out.ndims == 2 && q_out.dims[0] == M && q_out.dims[1] == N);
    EXPECT(q_out.layout_type == dnnl_graph_layout_type_strided);
    EXPECT(q_out.layout.strides[0] == N && q_out.layout.strides[1] == 1);
    printf("SoftMax output resolved to %lldx%lld, strides %lld,%lld\n", (long long)q_out.dims[0],
            (long long)q_out.dims[1], (long long)q_out.layout.strides[0],
            (long long)q_out.layout.strides[1]);

    /* Buffers and tensors. */
    buffer_t b_src, b_w1, b_b1, b_w2, b_b2, b_hid, b_ba2, b_out;
    buffer_create_or_skip(&b_src, eng, sizeof src);
    EXPECT(buffer_create(&b_w1, eng, sizeof w1) && buffer_create(&b_b1, eng, sizeof b1)
            && buffer_create(&b_w2, eng, sizeof w2) && buffer_create(&b_b2, eng, sizeof b2)
            && buffer_create(&b_hid, eng, M * H * 4) && buffer_create(&b_ba2, eng, M * N * 4)
            && buffer_create(&b_out, eng, M * N * 4));
    buffer_write(&b_src, src, sizeof src);
    buffer_write(&b_w1, w1, sizeof w1);
    buffer_write(&b_b1, b1, sizeof b1);
    buffer_write(&b_w2, w2, sizeof w2);
    buffer_write(&b_b2, b2, sizeof b2);
    dnnl_graph_tensor_t x_src, x_w1, x_b1, x_hid, x_w2, x_b2, x_ba2, x_out;
    CHECK(dnnl_graph_tensor_create(&x_src, &t_src, eng, b_src.handle));
    CHECK(dnnl_graph_tensor_create(&x_w1, &t_w1, eng, b_w1.handle));
    CHECK(dnnl_graph_tensor_create(&x_b1, &t_b1, eng, b_b1.handle));
    CHECK(dnnl_graph_tensor_create(&x_hid, &t_relu, eng, b_hid.handle));
    CHECK(dnnl_graph_tensor_create(&x_w2, &t_w2, eng, b_w2.handle));
    CHECK(dnnl_graph_tensor_create(&x_b2, &t_b2, eng, b_b2.handle));
    CHECK(dnnl_graph_tensor_create(&x_ba2, &t_ba2, eng, b_ba2.handle));
    CHECK(dnnl_graph_tensor_create(&x_out, &q_out, eng, b_out.handle));

    float want[M * N], got[M * N];
    reference(want);
    /* mode 2: on through dnnl_graph_set_constant_tensor_cache(1); mode 1: on through a
     * nonzero capacity for the engine's kind alone (as in v3.13, that turns it on);
     * mode 0: off. */
    for (int mode = 2; mode >= 0; mode--) {
        const int cache = mode != 0;
        CHECK(dnnl_graph_set_constant_tensor_cache(mode == 2));
        if (mode == 1) CHECK(dnnl_graph_set_constant_tensor_cache_capacity(ekind, 16));
        allocs = frees = 0;
        for (int run = 0; run < 3; run++) {
            const_dnnl_graph_tensor_t i0[] = {x_src, x_w1, x_b1}, o0[] = {x_hid};
            const_dnnl_graph_tensor_t i1[] = {x_hid, x_w2, x_b2}, o1[] = {x_ba2};
            const_dnnl_graph_tensor_t i2[] = {x_ba2}, o2[] = {x_out};
            CHECK(dnnl_graph_compiled_partition_execute(cps[0], strm, 3, i0, 1, o0));
            CHECK(dnnl_graph_compiled_partition_execute(cps[1], strm, 3, i1, 1, o1));
            CHECK(dnnl_graph_compiled_partition_execute(cps[2], strm, 1, i2, 1, o2));
            CHECK(dnnl_stream_wait(strm));
            memset(got, 0, sizeof got);
            buffer_read(&b_out, got, sizeof got);
            expect_close(got, want, M * N, 1e-4f, "mlp output");
            if (!gpu) {
                printf("cache %s, run %d: %d allocations, %d frees\n",
                        mode == 2 ? "on" : mode == 1 ? "on (capacity)" : "off", run, allocs, frees);
                /* 4 constants (2 weights, 2 biases) prepacked. */
                if (cache) EXPECT(allocs == 4 && frees == 0);
                else EXPECT(allocs == 4 * (run + 1) && frees == allocs);
            }
        }
    }
    printf("MLP on %s matches the reference over 3 runs, cache on and off\n", gpu ? "OpenCL" : "CPU");

    CHECK(dnnl_graph_tensor_destroy(x_src));
    CHECK(dnnl_graph_tensor_destroy(x_w1));
    CHECK(dnnl_graph_tensor_destroy(x_b1));
    CHECK(dnnl_graph_tensor_destroy(x_hid));
    CHECK(dnnl_graph_tensor_destroy(x_w2));
    CHECK(dnnl_graph_tensor_destroy(x_b2));
    CHECK(dnnl_graph_tensor_destroy(x_ba2));
    CHECK(dnnl_graph_tensor_destroy(x_out));
    for (int p = 0; p < 3; p++) {
        CHECK(dnnl_graph_compiled_partition_destroy(cps[p]));
        CHECK(dnnl_graph_partition_destroy(parts[p]));
    }
    buffer_t *all[] = {&b_src, &b_w1, &b_b1, &b_w2, &b_b2, &b_hid, &b_ba2, &b_out};
    for (int i = 0; i < 8; i++) buffer_destroy(all[i]);
    CHECK(dnnl_graph_graph_destroy(g));
    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    return 0;
}
