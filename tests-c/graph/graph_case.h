/* The harness of the graph C tests that build graphs op by op and check them against
 * upstream's v3.13 library (graph_conv.c, graph_pool.c, graph_norm.c, graph_reduce.c):
 *   - graphs: tensors T[id] declared with def() / def_any(), ops with mkop() / mkop_n(),
 *     attributes with set_*();
 *   - partitions: expect_parts() compares the fusion policy's partitions with a string
 *     such as "[1 2 3] [4]!" (op ids ascending, `!` after an unsupported partition);
 *     compile_only() returns the status of compiling G's one partition; bf16 cases use
 *     expect_bf16_parts() and run_bf16_graph(), which a reference run skips (SKIP: line)
 *     where Intel's CPU engine reports a bf16 partition unsupported (no AVX-512);
 *   - numbers: put() / get() move tensor data (dense, in the order of the dimensions)
 *     in and out of buffers on the test's engine, run_graph() compiles and executes every
 *     partition, expect_all() compares results with a reference computed in double.
 * The including test defines main(), sets eng, strm and ekind, and counts failures.
 * One translation unit per test. */
#ifndef DNNL_TESTS_C_GRAPH_CASE_H
#define DNNL_TESTS_C_GRAPH_CASE_H

#include "graph_util.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;
static dnnl_engine_kind_t ekind;
static int failures;

#ifndef NT
#define NT 160 /* logical tensor ids: 0 .. NT-1 */
#endif
#define NONE ((size_t)-1)

/* A family of cases whose primitive this library does not have yet: its cases are left
 * out (in both libraries' runs, so the @ref twin checks the same cases) with a note
 * saying so. Returns 1 when the family waits. */
static inline int waits(int lowers, const char *what, const char *kind) {
    if (!lowers) printf("note: %s: waits for the %s primitive\n", what, kind);
    return !lowers;
}

/* ---- graphs ---------------------------------------------------------------------- */

static dnnl_graph_graph_t G;
static dnnl_graph_logical_tensor_t T[NT]; /* as declared in the graph */

static inline void new_graph(dnnl_engine_kind_t kind) {
    CHECK(dnnl_graph_graph_create(&G, kind));
}

static inline dnnl_graph_logical_tensor_t def(size_t id, dnnl_data_type_t dt, int nd, const int64_t *dims, int constant) {
    T[id] = lt_dims(id, dt, nd, dims, dnnl_graph_layout_type_strided,
            constant ? dnnl_graph_tensor_property_constant : dnnl_graph_tensor_property_variable);
    return T[id];
}

/* An output of unknown shape (nd < 0: unknown rank) and layout `any`. */
static inline void def_any(size_t id, dnnl_data_type_t dt, int nd) {
    if (nd < 0) {
        CHECK(dnnl_graph_logical_tensor_init(&T[id], id, dt, DNNL_GRAPH_UNKNOWN_NDIMS,
                dnnl_graph_layout_type_any, dnnl_graph_tensor_property_variable));
        return;
    }
    int64_t dims[DNNL_MAX_NDIMS];
    for (int i = 0; i < nd; i++) dims[i] = DNNL_GRAPH_UNKNOWN_DIM;
    T[id] = lt_dims(id, dt, nd, dims, dnnl_graph_layout_type_any,
            dnnl_graph_tensor_property_variable);
}

static inline dnnl_graph_op_t mkop(size_t id, dnnl_graph_op_kind_t kind, int nin, const size_t *in, size_t out) {
    dnnl_graph_op_t op;
    CHECK(dnnl_graph_op_create(&op, id, kind, "op"));
    for (int i = 0; i < nin; i++) CHECK(dnnl_graph_op_add_input(op, &T[in[i]]));
    if (out != NONE) CHECK(dnnl_graph_op_add_output(op, &T[out]));
    return op;
}

/* An op with nout outputs (ids in out). */
static inline dnnl_graph_op_t mkop_n(size_t id, dnnl_graph_op_kind_t kind, int nin, const size_t *in, int nout,
        const size_t *out) {
    dnnl_graph_op_t op = mkop(id, kind, nin, in, NONE);
    for (int i = 0; i < nout; i++) CHECK(dnnl_graph_op_add_output(op, &T[out[i]]));
    return op;
}

static inline void set_s64s(dnnl_graph_op_t op, dnnl_graph_op_attr_t a, int n, const int64_t *v) {
    CHECK(dnnl_graph_op_set_attr_s64(op, a, v, (size_t)n));
}
static inline void set_str(dnnl_graph_op_t op, dnnl_graph_op_attr_t a, const char *v) {
    CHECK(dnnl_graph_op_set_attr_str(op, a, v, strlen(v)));
}
static inline void set_f32(dnnl_graph_op_t op, dnnl_graph_op_attr_t a, int n, const float *v) {
    CHECK(dnnl_graph_op_set_attr_f32(op, a, v, (size_t)n));
}

static inline dnnl_status_t try_add(dnnl_graph_op_t op) {
    dnnl_status_t st = dnnl_graph_add_op(G, op);
    CHECK(dnnl_graph_op_destroy(op));
    return st;
}
static inline void add(dnnl_graph_op_t op) {
    CHECK(try_add(op));
}


static inline void destroy_graph(void) {
    CHECK(dnnl_graph_graph_destroy(G));
}

/* ---- 1. partitions ------------------------------------------------------------------- */

static inline int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    size_t ids[64];
    size_t n;
    int supported;
} part_desc_t;

static inline int cmp_part(const void *a, const void *b) {
    return cmp_size(&((const part_desc_t *)a)->ids[0], &((const part_desc_t *)b)->ids[0]);
}

/* Finalizes and partitions G (fusion policy) and writes its partitions as
 * "[1 2 3] [4]!" into out: op ids ascending in each, partitions by their first op,
 * `!` after an unsupported one (the order of either library's lists does not matter). */
static inline void describe_partitions(char *out, size_t size) {
    CHECK(dnnl_graph_graph_finalize(G));
    CHECK(dnnl_graph_graph_filter(G, dnnl_graph_partition_policy_fusion));
    size_t np = 0;
    CHECK(dnnl_graph_graph_get_partition_num(G, &np));
    EXPECT(np <= 32);
    dnnl_graph_partition_t parts[32];
    part_desc_t d[32];
    CHECK(dnnl_graph_graph_get_partitions(G, np, parts));
    for (size_t p = 0; p < np; p++) {
        uint8_t sup = 0;
        CHECK(dnnl_graph_partition_get_op_num(parts[p], &d[p].n));
        EXPECT(d[p].n >= 1 && d[p].n <= 64);
        CHECK(dnnl_graph_partition_get_ops(parts[p], d[p].n, d[p].ids));
        CHECK(dnnl_graph_partition_is_supported(parts[p], &sup));
        d[p].supported = sup;
        qsort(d[p].ids, d[p].n, sizeof(size_t), cmp_size);
        CHECK(dnnl_graph_partition_destroy(parts[p]));
    }
    qsort(d, np, sizeof(d[0]), cmp_part);
    size_t at = 0;
    out[0] = 0;
    for (size_t p = 0; p < np; p++) {
        at += (size_t)snprintf(out + at, size - at, "%s[", p ? " " : "");
        for (size_t i = 0; i < d[p].n; i++)
            at += (size_t)snprintf(out + at, size - at, "%s%zu", i ? " " : "", d[p].ids[i]);
        at += (size_t)snprintf(out + at, size - at, "]%s", d[p].supported ? "" : "!");
    }
}

static inline size_t count_marks(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += *s == '!';
    return n;
}

/* Compares G's partitions with want. may_lack: a case of a data type Intel's CPU engine
 * lacks on some processors (bf16 without AVX-512 or AVX2-VNNI-2): in a reference run
 * where it reports more unsupported partitions than want has, the case is skipped with a
 * SKIP: line instead (on ours it is always compared). */
static inline void compare_parts(const char *what, const char *want, int may_lack) {
    char got[1024];
    describe_partitions(got, sizeof got);
    if (may_lack && !library_is_ours() && count_marks(got) > count_marks(want)) {
        destroy_graph();
        printf("SKIP: partitions of %s (got %s, want %s): Intel's library: unimplemented here\n",
                what, got, want);
        return;
    }
    if (want[0] == '~') { /* only the grouping counts: drop the `!` marks */
        want++;
        char *w = got;
        for (const char *r = got; *r; r++)
            if (*r != '!') *w++ = *r;
        *w = 0;
    }
    destroy_graph();
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "partitions of %s: got %s, want %s\n", what, got, want);
        failures++;
    } else {
        printf("partitions of %s: %s\n", what, got);
    }
}

static inline void expect_parts(const char *what, const char *want) {
    compare_parts(what, want, 0);
}

/* expect_parts() for a bf16 case: skipped in a reference run where Intel's library reports
 * a partition unsupported that want has supported. */
static inline void expect_bf16_parts(const char *what, const char *want) {
    compare_parts(what, want, 1);
}


/* Compiles G's only partition for the declared tensors; returns the status. */
static inline dnnl_status_t compile_only(int nin, const size_t *in, size_t out) {
    CHECK(dnnl_graph_graph_finalize(G));
    CHECK(dnnl_graph_graph_filter(G, dnnl_graph_partition_policy_fusion));
    size_t np = 0;
    CHECK(dnnl_graph_graph_get_partition_num(G, &np));
    EXPECT(np == 1);
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_graph_get_partitions(G, 1, &p));
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, p));
    const dnnl_graph_logical_tensor_t *pin[8], *pout[1] = {&T[out]};
    for (int i = 0; i < nin; i++) pin[i] = &T[in[i]];
    dnnl_status_t st = dnnl_graph_partition_compile(p, cp, (size_t)nin, pin, 1, pout, eng);
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_graph_partition_destroy(p));
    destroy_graph();
    return st;
}


#define EPS (1.0 / 16777216.0) /* 2^-24 */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static inline double uniform(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}


static inline float *rand_f32(int64_t n, double scale) {
    float *v = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) v[i] = (float)(uniform() * scale);
    return v;
}

static inline int64_t volume(int nd, const int64_t *d) {
    int64_t v = 1;
    for (int i = 0; i < nd; i++) v *= d[i];
    return v;
}

/* Tensor data of the run: buffers by id, with the resolved logical tensor. */
static buffer_t B[NT];
static int has_buf[NT];
static dnnl_graph_logical_tensor_t R[NT];

static inline void put(size_t id, const void *data) {
    size_t size = 0;
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&T[id], &size));
    buffer_create_or_skip(&B[id], eng, size);
    buffer_write(&B[id], data, size);
    has_buf[id] = 1;
    R[id] = T[id];
}

/* Reads tensor id into data, dense in its dimensions' order: an output compiled with
 * layout `any` is in whatever strides the library chose (Intel's picks channels-last for
 * NCX convolution outputs), which R[id] says. */
static inline void get(size_t id, void *data) {
    EXPECT(has_buf[id]);
    const dnnl_graph_logical_tensor_t *l = &R[id];
    EXPECT(l->layout_type == dnnl_graph_layout_type_strided);
    size_t es = l->data_type == dnnl_f32 ? 4 : (l->data_type == dnnl_bf16 || l->data_type == dnnl_f16) ? 2 : 1;
    int64_t n = volume(l->ndims, l->dims);
    unsigned char *raw = malloc(B[id].size), *out = data;
    buffer_read(&B[id], raw, B[id].size);
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, off = 0;
        for (int d = l->ndims - 1; d >= 0; d--) {
            off += (rem % l->dims[d]) * l->layout.strides[d];
            rem /= l->dims[d];
        }
        memcpy(out + (size_t)i * es, raw + (size_t)off * es, es);
    }
    free(raw);
}

static inline void release_buffers(void) {
    for (int i = 0; i < NT; i++)
        if (has_buf[i]) {
            buffer_destroy(&B[i]);
            has_buf[i] = 0;
        }
}

/* Partitions G, expects `nparts` supported partitions, compiles each with the declared
 * tensors, runs them `runs` times in an order where each partition's inputs exist, and
 * keeps every output in B. may_lack: as compare_parts()'s; returns 0 (after a SKIP: line,
 * G destroyed, nothing run) when a reference run skips the case, else 1; a reference run
 * with every partition supported but another count runs those (a note line says so). */
static inline int run_graph_parts(const char *what, size_t nparts, int runs, int may_lack) {
    CHECK(dnnl_graph_graph_finalize(G));
    CHECK(dnnl_graph_graph_filter(G, dnnl_graph_partition_policy_fusion));
    size_t np = 0;
    CHECK(dnnl_graph_graph_get_partition_num(G, &np));
    if (may_lack && !library_is_ours()) {
        dnnl_graph_partition_t lp[16];
        int lacks = 0;
        EXPECT(np <= 16);
        CHECK(dnnl_graph_graph_get_partitions(G, np, lp));
        for (size_t p = 0; p < np; p++) {
            uint8_t sup = 0;
            CHECK(dnnl_graph_partition_is_supported(lp[p], &sup));
            lacks |= !sup;
            CHECK(dnnl_graph_partition_destroy(lp[p]));
        }
        if (lacks) {
            destroy_graph();
            printf("SKIP: %s (%zu partitions, one unsupported): Intel's library: unimplemented "
                   "here\n", what, np);
            return 0;
        }
        if (np != nparts) {
            /* All supported, but not fused as they are with bf16 support: run them. */
            printf("note: %s: Intel's library makes %zu partitions here, not %zu (not fused "
                   "on this CPU): results checked all the same\n", what, np, nparts);
            nparts = np;
        }
    }
    if (np != nparts) {
        fprintf(stderr, "%s: %zu partitions, want %zu\n", what, np, nparts);
        exit(1);
    }
    dnnl_graph_partition_t parts[8];
    dnnl_graph_compiled_partition_t cps[8];
    int done[8] = {0};
    EXPECT(np <= 8);
    CHECK(dnnl_graph_graph_get_partitions(G, np, parts));
    for (int run = 0; run < runs; run++) {
        for (size_t k = 0; k < np; k++) done[k] = 0;
        for (size_t left = np; left > 0;) {
            size_t before = left;
            for (size_t p = 0; p < np; p++) {
                if (done[p]) continue;
                size_t nin = 0, nout = 0;
                dnnl_graph_logical_tensor_t ins[16], outs[8];
                CHECK(dnnl_graph_partition_get_input_ports_num(parts[p], &nin));
                CHECK(dnnl_graph_partition_get_output_ports_num(parts[p], &nout));
                EXPECT(nin <= 16 && nout <= 8);
                CHECK(dnnl_graph_partition_get_input_ports(parts[p], nin, ins));
                CHECK(dnnl_graph_partition_get_output_ports(parts[p], nout, outs));
                int ready = 1;
                for (size_t i = 0; i < nin; i++) ready &= has_buf[ins[i].id];
                if (!ready) continue;
                const dnnl_graph_logical_tensor_t *pin[16], *pout[8];
                for (size_t i = 0; i < nin; i++) pin[i] = &R[ins[i].id];
                for (size_t i = 0; i < nout; i++) pout[i] = &T[outs[i].id];
                if (run == 0) {
                    uint8_t sup = 0;
                    CHECK(dnnl_graph_partition_is_supported(parts[p], &sup));
                    EXPECT(sup == 1);
                    CHECK(dnnl_graph_compiled_partition_create(&cps[p], parts[p]));
                    CHECK(dnnl_graph_partition_compile(parts[p], cps[p], nin, pin, nout, pout, eng));
                }
                dnnl_graph_tensor_t ti[16], to[8];
                for (size_t i = 0; i < nin; i++)
                    CHECK(dnnl_graph_tensor_create(&ti[i], pin[i], eng, B[ins[i].id].handle));
                for (size_t i = 0; i < nout; i++) {
                    size_t id = outs[i].id;
                    CHECK(dnnl_graph_compiled_partition_query_logical_tensor(cps[p], id, &R[id]));
                    if (!has_buf[id]) {
                        size_t size = 0;
                        CHECK(dnnl_graph_logical_tensor_get_mem_size(&R[id], &size));
                        EXPECT(buffer_create(&B[id], eng, size));
                        has_buf[id] = 1;
                    }
                    CHECK(dnnl_graph_tensor_create(&to[i], &R[id], eng, B[id].handle));
                }
                CHECK(dnnl_graph_compiled_partition_execute(cps[p], strm, nin,
                        (const_dnnl_graph_tensor_t *)ti, nout, (const_dnnl_graph_tensor_t *)to));
                CHECK(dnnl_stream_wait(strm));
                for (size_t i = 0; i < nin; i++) CHECK(dnnl_graph_tensor_destroy(ti[i]));
                for (size_t i = 0; i < nout; i++) CHECK(dnnl_graph_tensor_destroy(to[i]));
                done[p] = 1;
                left--;
            }
            EXPECT(left < before); /* every partition's inputs come from somewhere */
        }
    }
    for (size_t p = 0; p < np; p++) {
        CHECK(dnnl_graph_compiled_partition_destroy(cps[p]));
        CHECK(dnnl_graph_partition_destroy(parts[p]));
    }
    destroy_graph();
    return 1;
}

static inline void run_graph(const char *what, size_t nparts, int runs) {
    run_graph_parts(what, nparts, runs, 0);
}

/* run_graph() for a bf16 case: 0 when a reference run skips it (see compare_parts()); a
 * reference run takes the partitions Intel's library makes when all are supported. */
static inline int run_bf16_graph(const char *what, size_t nparts, int runs) {
    return run_graph_parts(what, nparts, runs, 1);
}

/* Every element of got within bound[i] (plus half an ulp) of want. */
static inline void expect_all(const char *what, const float *got, const double *want, const double *bound, int64_t n) {
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double tol = bound[i] + EPS * fabs(want[i]) + 1e-30;
        if (!(fabs(got[i] - want[i]) <= tol)) {
            if (bad++ < 5)
                fprintf(stderr, "%s[%lld]: got %.9g, want %.9g (bound %.3g)\n", what, (long long)i,
                        got[i], want[i], tol);
        }
    }
    if (bad) {
        fprintf(stderr, "%s: %d of %lld elements wrong\n", what, bad, (long long)n);
        failures++;
    } else {
        printf("%s: %lld elements ok\n", what, (long long)n);
    }
}

#endif
