/* Memory descriptors whose sizes do not fit. Upstream's limits, which this
 * test checks (and which hold against upstream's library too): the number
 * of elements of the padded tensor must fit in a dnnl_dim_t and the size of
 * each buffer in a size_t; a descriptor beyond them is dnnl_invalid_arguments
 * at creation (before the fix, ours wrapped or saturated the size and said
 * success). A size that fits but cannot be allocated is dnnl_out_of_memory at
 * memory creation. Descriptors of format `any` have no size, but their
 * elements are counted. */
#include "md_check.h"

#define P2(n) ((int64_t)1 << (n))

static const dnnl_status_t bad = dnnl_invalid_arguments;

/* Creates with a tag; checks the status and, on success, the size. */
static void tag(int line, int ndims, const int64_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t t,
        dnnl_status_t want, size_t want_size) {
    dnnl_memory_desc_t md = NULL;
    dnnl_status_t st = dnnl_memory_desc_create_with_tag(&md, ndims, dims, dt, t);
    if (st != want) {
        fprintf(stderr, "line %d: create_with_tag returned %s, expected %s\n", line,
                check_status_str(st), check_status_str(want));
        exit(1);
    }
    if (st != dnnl_success) return;
    size_t size = dnnl_memory_desc_get_size(md);
    if (size != want_size) {
        fprintf(stderr, "line %d: size %zu, expected %zu\n", line, size, want_size);
        exit(1);
    }
    CHECK(dnnl_memory_desc_destroy(md));
}

static void strides(int line, int ndims, const int64_t *dims, dnnl_data_type_t dt,
        const int64_t *s, dnnl_status_t want) {
    dnnl_memory_desc_t md = NULL;
    dnnl_status_t st = dnnl_memory_desc_create_with_strides(&md, ndims, dims, dt, s);
    if (st != want) {
        fprintf(stderr, "line %d: create_with_strides returned %s, expected %s\n", line,
                check_status_str(st), check_status_str(want));
        exit(1);
    }
    if (md) CHECK(dnnl_memory_desc_destroy(md));
}

int main(void) {
    /* Sizes in bytes beyond size_t: the byte count used to saturate. */
    tag(__LINE__, 2, (int64_t[]) {P2(62), 8}, dnnl_f32, dnnl_ab, bad, 0);
    tag(__LINE__, 1, (int64_t[]) {P2(62)}, dnnl_f32, dnnl_a, bad, 0);
    tag(__LINE__, 1, (int64_t[]) {INT64_MAX - 2}, dnnl_f32, dnnl_a, bad, 0);
    /* Element counts beyond dnnl_dim_t, whatever the bytes. */
    tag(__LINE__, 2, (int64_t[]) {P2(62), 2}, dnnl_u8, dnnl_ab, bad, 0);
    tag(__LINE__, 2, (int64_t[]) {INT64_MAX, 2}, dnnl_u8, dnnl_ab, bad, 0);
    tag(__LINE__, 2, (int64_t[]) {INT64_MAX - 40, 2}, dnnl_s4, dnnl_Ab32a, bad, 0);
    tag(__LINE__, 2, (int64_t[]) {INT64_MAX - 3, 3}, dnnl_f32, dnnl_Ab32a, bad, 0);
    /* The largest that fit are answered exactly (they used to come out as
     * 2^61: the size went through a saturated bit count). */
    tag(__LINE__, 2, (int64_t[]) {P2(61), 1}, dnnl_f32, dnnl_ab, dnnl_success, (size_t)1 << 63);
    tag(__LINE__, 1, (int64_t[]) {P2(62)}, dnnl_u8, dnnl_a, dnnl_success, (size_t)1 << 62);
    tag(__LINE__, 1, (int64_t[]) {INT64_MAX}, dnnl_u8, dnnl_a, dnnl_success, (size_t)INT64_MAX);
    tag(__LINE__, 1, (int64_t[]) {P2(61) + 1}, dnnl_f32, dnnl_a, dnnl_success,
            ((size_t)1 << 63) + 4);
    tag(__LINE__, 1, (int64_t[]) {P2(61)}, dnnl_s4, dnnl_a, dnnl_success, (size_t)1 << 60);
    tag(__LINE__, 2, (int64_t[]) {2, 17}, dnnl_u8, dnnl_Ab32a, dnnl_success, 544);
    /* `any` has no size yet (2^64 bytes pass), but its elements must be
     * countable. */
    tag(__LINE__, 1, (int64_t[]) {P2(62)}, dnnl_f32, dnnl_format_tag_any, dnnl_success, 0);
    tag(__LINE__, 2, (int64_t[]) {P2(62), 8}, dnnl_u8, dnnl_format_tag_any, bad, 0);

    /* Strides: dims x strides beyond dnnl_dim_t, and broadcast (zero)
     * strides over more elements than a dnnl_dim_t counts. */
    strides(__LINE__, 2, (int64_t[]) {3, 5}, dnnl_f32, (int64_t[]) {P2(62), 1}, bad);
    /* 2^63 elements of extent: 2^63 bytes of u8 fit a size_t, not a dnnl_dim_t. */
    strides(__LINE__, 2, (int64_t[]) {2, 4}, dnnl_u8, (int64_t[]) {P2(62), 1}, bad);
    strides(__LINE__, 2, (int64_t[]) {P2(40), P2(40)}, dnnl_f32, (int64_t[]) {0, 0}, bad);
    strides(__LINE__, 2, (int64_t[]) {P2(40), P2(40)}, dnnl_f32, NULL, bad);
    strides(__LINE__, 2, (int64_t[]) {3, P2(61)}, dnnl_u8, (int64_t[]) {P2(61), 1}, dnnl_success);

    /* Sparse: the values buffer of nnz elements beyond size_t. */
    dnnl_memory_desc_t md = NULL;
    CHECK_STATUS(dnnl_memory_desc_create_with_csr_encoding(
                         &md, 2, (int64_t[]) {P2(62), 8}, dnnl_f32, 16, dnnl_s32, dnnl_s32),
            bad);
    CHECK_STATUS(dnnl_memory_desc_create_with_coo_encoding(
                         &md, 2, (int64_t[]) {P2(40), P2(40)}, dnnl_f32, 16, dnnl_s32),
            bad);

    /* Reshape keeps the (fitting) size of a large descriptor. */
    dnnl_memory_desc_t big = NULL, reshaped = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&big, 3, (int64_t[]) {P2(61), 1, 1}, dnnl_f32, dnnl_abc));
    CHECK(dnnl_memory_desc_reshape(&reshaped, big, 2, (int64_t[]) {P2(60), 2}));
    EXPECT(dnnl_memory_desc_get_size(reshaped) == (size_t)1 << 63);
    CHECK(dnnl_memory_desc_destroy(reshaped));
    CHECK(dnnl_memory_desc_destroy(big));

    /* A size that fits but that no allocation holds: out of memory. */
    dnnl_engine_t eng;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    dnnl_memory_desc_t huge = NULL;
    dnnl_memory_t mem = NULL;
    CHECK(dnnl_memory_desc_create_with_tag(&huge, 1, (int64_t[]) {P2(62)}, dnnl_u8, dnnl_a));
    CHECK_STATUS(dnnl_memory_create(&mem, huge, eng, DNNL_MEMORY_ALLOCATE), dnnl_out_of_memory);
    EXPECT(mem == NULL);
    CHECK(dnnl_memory_desc_destroy(huge));
    CHECK(dnnl_engine_destroy(eng));

    printf("descriptors beyond upstream's size limits refused; the largest that fit sized exactly\n");
    return 0;
}
