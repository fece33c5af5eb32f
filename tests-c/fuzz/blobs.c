/* Cache blob mutation (OpenCL engines; skipped without a device).
 *
 * Two blobs are made once: the engine cache blob of an engine over the
 * program's own context that compiled one eltwise primitive
 * (dnnl_ocl_interop_engine_get_cache_blob), and that primitive's blob
 * (dnnl_primitive_get_cache_blob). Then every mutation below is given back to
 * dnnl_ocl_interop_engine_create_from_cache_blob or
 * dnnl_primitive_create_from_cache_blob, with the mutated bytes placed at the
 * very end of a readable page followed by an unreadable one, so that a read
 * past the given size faults. Each must be refused with a status or, if
 * accepted, give an engine or primitive that computes the right result (the
 * eltwise on fixed inputs, compared bit for bit); a refused engine blob must
 * leave the context's reference count where it was. Never a crash.
 *
 * The mutations, for each blob:
 *  - bit flips: every bit of the structural parts (magic, version, id, entry
 *    headers and build options, lengths, checksum), and FUZZ_BLOB_SAMPLE
 *    (default 3000) seeded bits of the device binaries; every bit of the blob
 *    with FUZZ_BLOB_ALL=1;
 *  - truncations: to every length that ends inside a structural part, and to
 *    FUZZ_BLOB_SAMPLE / 4 other lengths; every length with FUZZ_BLOB_ALL=1;
 *  - flips with the checksum recomputed (so that the parser goes past it):
 *    every bit of the header (magic, version, id, counts, lengths), and
 *    FUZZ_BLOB_SAMPLE / 100 bits of the programs' keys (source hashes and build
 *    options; all of them with FUZZ_BLOB_ALL=1);
 *  - every length field set to 0, 1, the blob's size, 2^31-1, 2^32-1 and
 *    2^64-1, checksum recomputed;
 *  - FUZZ_BLOB_GARBAGE (default 400) garbage blobs: random bytes of random
 *    sizes, all zeros, all ones, the magic followed by random bytes, and the
 *    other blob (engine for primitive and back), whole or cut.
 * Forged blobs (FUZZ_BLOB_FORGED bits of the device binaries flipped and the
 * checksum recomputed; default 0) are outside the contract -- a checksum
 * detects corruption, not forgery, and the changed binary reaches the OpenCL
 * driver -- so what they do is counted apart (forged_crashes, forged_wrong)
 * and never fails the run.
 * The blob layout parsed here is the one `src/core/cache_blob.rs` writes; if
 * it cannot be parsed, the first 4 KiB and the last 64 bytes count as
 * structural.
 *
 * Usage: blobs gpu. Environment: FUZZ_SEED, FUZZ_BLOB_SAMPLE, FUZZ_BLOB_ALL,
 * FUZZ_BLOB_GARBAGE, FUZZ_BLOB_FORGED, FUZZ_FIRST, FUZZ_COUNT (README.md). */
#include "fuzz.h"

#include "interop/ocl/ocl_util.h"

enum {
    X_REFUSED, X_ACCEPTED, X_FLIPS, X_TRUNCATIONS, X_FIXED, X_GARBAGE, X_FORGED_CRASHES,
    X_FORGED_WRONG
};

#define MAX_BLOB (64u << 20)

/* What the first child leaves for the others. */
typedef struct {
    size_t size[2];     /* 0: the engine blob, 1: the primitive blob */
    uint8_t *bytes[2];  /* in the same shared mapping, after this header */
    uint64_t total;       /* mutations planned */
    uint64_t forged_from; /* the first forged one */
    int ready;
} blobs_t;
static blobs_t *shared;

/* ---- the blob layout (src/core/cache_blob.rs) ------------------------------------------ */

/* A field of the blob: where it is and how long, for the length fields. */
typedef struct {
    size_t at, width;
} field_t;

/* The class of a byte: device binary, header (magic, version, id, counts,
 * lengths, checksum), or a program's key (source hash and build options). */
enum { C_BINARY = 0, C_HEADER = 1, C_KEY = 2 };

typedef struct {
    uint8_t *structural; /* per byte: C_BINARY, C_HEADER or C_KEY */
    field_t lengths[64]; /* the length and count fields */
    int nlengths;
    int parsed;
} blob_layout_t;

static uint64_t le(const uint8_t *p, size_t width) {
    uint64_t v = 0;
    for (size_t k = 0; k < width; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

static void layout_of(const uint8_t *b, size_t n, blob_layout_t *l) {
    l->structural = calloc(n ? n : 1, 1);
    EXPECT(l->structural);
    l->nlengths = 0;
    l->parsed = 0;
    size_t pos = 0;
#define TAKE(len, cls) \
    do { \
        if ((len) > n - pos || n - pos < 16) goto fallback; \
        memset(l->structural + pos, (cls), (len)); \
        pos += (len); \
    } while (0)
#define LENGTH(width) \
    do { \
        if (l->nlengths < 64) l->lengths[l->nlengths++] = (field_t){pos, (width)}; \
    } while (0)
    if (n < 24 || memcmp(b, "DNNLRSEB", 8) != 0) goto fallback;
    TAKE(8, 1);
    TAKE(4, 1); /* version */
    LENGTH(4);
    uint64_t id_len = le(b + pos, 4);
    TAKE(4, 1);
    TAKE(id_len, 1);
    LENGTH(4);
    uint64_t count = le(b + pos, 4);
    TAKE(4, 1);
    for (uint64_t e = 0; e < count; e++) {
        TAKE(16, C_KEY); /* source hash */
        LENGTH(4);
        uint64_t opt_len = le(b + pos, 4);
        TAKE(4, 1);
        TAKE(opt_len, C_KEY);
        LENGTH(8);
        uint64_t bin_len = le(b + pos, 8);
        TAKE(8, 1);
        TAKE(bin_len, 0);
    }
    if (n - pos != 16) goto fallback;
    memset(l->structural + pos, 1, 16);
    l->parsed = 1;
    return;
fallback:
    memset(l->structural, 0, n);
    memset(l->structural, 1, n < 4096 ? n : 4096);
    memset(l->structural + (n > 64 ? n - 64 : 0), 1, n > 64 ? 64 : n);
    l->nlengths = 0;
#undef TAKE
#undef LENGTH
}

/* FNV-1a, 128 bits, little endian: the blob's checksum of everything before it. */
static void fix_checksum(uint8_t *b, size_t n) {
    if (n < 16) return;
    unsigned __int128 h = ((unsigned __int128)0x6c62272e07bb0142ull << 64) | 0x62b821756295c58dull;
    const unsigned __int128 prime = ((unsigned __int128)0x0000000001000000ull << 64) | 0x000000000000013Bull;
    for (size_t k = 0; k < n - 16; k++) h = (h ^ b[k]) * prime;
    for (int k = 0; k < 16; k++) b[n - 16 + (size_t)k] = (uint8_t)(h >> (8 * k));
}

/* ---- the plan: mutation `i` of a run ---------------------------------------------- */

enum { M_FLIP, M_TRUNC, M_FIXED_FLIP, M_FIXED_LENGTH, M_GARBAGE };

typedef struct {
    int kind, blob;
    uint64_t param;
} mutation_t;

typedef struct {
    mutation_t *list;
    uint64_t n, cap;
    uint64_t forged_from; /* the forged blobs are the items from here on */
} plan_t;

static void add(plan_t *p, int kind, int blob, uint64_t param) {
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4096;
        p->list = realloc(p->list, p->cap * sizeof *p->list);
        EXPECT(p->list);
    }
    p->list[p->n++] = (mutation_t){kind, blob, param};
}

static blob_layout_t layouts[2];

/* The same plan in every child: a function of the blobs and the seed. */
static plan_t make_plan(void) {
    plan_t p = {NULL, 0, 0, 0};
    int all = (int)fuzz_env_u64("FUZZ_BLOB_ALL", 0);
    uint64_t sample = fuzz_env_u64("FUZZ_BLOB_SAMPLE", 3000);
    uint64_t forged = fuzz_env_u64("FUZZ_BLOB_FORGED", 0);
    uint64_t garbage = fuzz_env_u64("FUZZ_BLOB_GARBAGE", 400);
    for (int b = 0; b < 2; b++) {
        size_t n = shared->size[b];
        const uint8_t *st = layouts[b].structural;
        rng_t r = rng_for(fz->seed, 1000 + (uint64_t)b);
        uint64_t nonstruct = 0;
        for (size_t k = 0; k < n; k++) nonstruct += !st[k];
        /* Flips. */
        for (size_t k = 0; k < n; k++)
            if (all || st[k])
                for (int bit = 0; bit < 8; bit++) add(&p, M_FLIP, b, (uint64_t)k * 8 + (uint64_t)bit);
        if (!all && nonstruct)
            for (uint64_t s = 0; s < sample; s++) {
                uint64_t k;
                do k = rng_below(&r, n);
                while (st[k]);
                add(&p, M_FLIP, b, k * 8 + rng_below(&r, 8));
            }
        /* Truncations. */
        for (size_t len = 0; len < n; len++)
            if (all || st[len] || (len > 0 && st[len - 1])) add(&p, M_TRUNC, b, len);
        if (!all && nonstruct)
            for (uint64_t s = 0; s < sample / 4; s++) add(&p, M_TRUNC, b, rng_below(&r, n));
        /* Flips with the checksum recomputed: every header bit; every key bit
         * with FUZZ_BLOB_ALL, else a sample (a changed key may make the
         * engine compile, which takes long). */
        uint64_t nkey = 0;
        for (size_t k = 0; k + 16 < n; k++) {
            if (st[k] == C_HEADER)
                for (int bit = 0; bit < 8; bit++) add(&p, M_FIXED_FLIP, b, (uint64_t)k * 8 + (uint64_t)bit);
            if (st[k] == C_KEY) {
                nkey++;
                if (all)
                    for (int bit = 0; bit < 8; bit++) add(&p, M_FIXED_FLIP, b, (uint64_t)k * 8 + (uint64_t)bit);
            }
        }
        if (!all && nkey)
            for (uint64_t s = 0; s < sample / 100; s++) {
                uint64_t k;
                do k = rng_below(&r, n - 16);
                while (st[k] != C_KEY);
                add(&p, M_FIXED_FLIP, b, k * 8 + rng_below(&r, 8));
            }
        /* Length fields set to extreme values. */
        for (int f = 0; f < layouts[b].nlengths; f++)
            for (uint64_t v = 0; v < 6; v++) add(&p, M_FIXED_LENGTH, b, (uint64_t)f * 8 + v);
        /* Garbage. */
        for (uint64_t g = 0; g < garbage; g++) add(&p, M_GARBAGE, b, g);
    }
    /* Forged blobs, last: device binaries changed and the checksum recomputed. */
    p.forged_from = p.n;
    for (int b = 0; b < 2; b++) {
        size_t n = shared->size[b];
        const uint8_t *st = layouts[b].structural;
        rng_t r = rng_for(fz->seed, 2000 + (uint64_t)b);
        uint64_t nonstruct = 0;
        for (size_t k = 0; k < n; k++) nonstruct += !st[k];
        if (nonstruct)
            for (uint64_t s = 0; s < forged; s++) {
                uint64_t k;
                do k = rng_below(&r, n);
                while (st[k]);
                add(&p, M_FIXED_FLIP, b, k * 8 + rng_below(&r, 8));
            }
    }
    return p;
}

/* ---- the child's objects -------------------------------------------------------------- */

static cl_device_id dev;
static cl_context ctx;
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static dnnl_primitive_desc_t pd;
static dnnl_memory_desc_t md;
static float input[120], expected[120];
/* A page-aligned region whose last bytes are followed by an unreadable page. */
static uint8_t *region;
static size_t region_size;
/* FUZZ_SELFTEST=1 (README.md): reads one byte past a blob, as a library that
 * overran it would -- the guard page must turn that into a reported crash. */
static int selftest;

static void make_objects(void) {
    dev = ocl_first_device_or_skip();
    ctx = ocl_context_create(dev);
    CHECK(dnnl_ocl_interop_engine_create(&engine, dev, ctx));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    dnnl_dims_t dims = {2, 3, 4, 5};
    CHECK(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_f32, dnnl_nchw));
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_eltwise_elu, md, md, 1.0f, 0.0f, NULL));
    for (int i = 0; i < 120; i++) input[i] = (float)(i % 13) * 0.375f - 2.0f;
}

/* The primitive's output on `e` (a primitive made for pd, or from p). 0 on a failure. */
static int compute(dnnl_engine_t e, dnnl_primitive_t p, float *out) {
    dnnl_stream_t s = stream;
    int own_stream = e != engine;
    if (own_stream && dnnl_stream_create(&s, e, dnnl_stream_default_flags) != dnnl_success) return 0;
    dnnl_memory_t src = NULL, dst = NULL;
    int ok = dnnl_memory_create(&src, md, e, DNNL_MEMORY_ALLOCATE) == dnnl_success
            && dnnl_memory_create(&dst, md, e, DNNL_MEMORY_ALLOCATE) == dnnl_success;
    void *ptr = NULL;
    if (ok && dnnl_memory_map_data(src, &ptr) == dnnl_success) {
        memcpy(ptr, input, sizeof input);
        dnnl_memory_unmap_data(src, ptr);
    }
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    ok = ok && dnnl_primitive_execute(p, s, 2, args) == dnnl_success
            && dnnl_stream_wait(s) == dnnl_success;
    if (ok && dnnl_memory_map_data(dst, &ptr) == dnnl_success) {
        memcpy(out, ptr, sizeof input);
        dnnl_memory_unmap_data(dst, ptr);
    }
    dnnl_memory_destroy(src);
    dnnl_memory_destroy(dst);
    if (own_stream) dnnl_stream_destroy(s);
    return ok;
}

/* An accepted engine: an eltwise primitive on it must compute the right result. */
static void check_engine(dnnl_engine_t e, const char *what) {
    dnnl_primitive_desc_t epd = NULL;
    dnnl_primitive_t p = NULL;
    float out[120];
    if (dnnl_eltwise_forward_primitive_desc_create(&epd, e, dnnl_forward_inference, dnnl_eltwise_elu,
                md, md, 1.0f, 0.0f, NULL) != dnnl_success
            || dnnl_primitive_create(&p, epd) != dnnl_success || !compute(e, p, out))
        fuzz_wrong("%s: the engine made from it does not run an eltwise", what);
    else if (memcmp(out, expected, sizeof out) != 0)
        fuzz_wrong("%s: the engine made from it computes a wrong result", what);
    if (p) dnnl_primitive_destroy(p);
    if (epd) dnnl_primitive_desc_destroy(epd);
}

/* Gives `n` bytes (the last ones of the readable region) to the library. */
static void try_blob(int blob, const uint8_t *bytes, size_t n, const char *what) {
    uint8_t *at = region + region_size - n;
    memmove(at, bytes, n);
    if (selftest == 1 && fz->item % 1000 == 999) {
        volatile uint8_t past = at[n];
        (void)past;
    }
    if (blob == 0) {
        cl_uint refs = ocl_context_refcount(ctx);
        dnnl_engine_t e = NULL;
        fuzz_call("dnnl_ocl_interop_engine_create_from_cache_blob(%s, %zu bytes)", what, n);
        dnnl_status_t s = dnnl_ocl_interop_engine_create_from_cache_blob(&e, dev, ctx, n, at);
        fuzz_result(s);
        fuzz_check_panic();
        if (s == dnnl_success) {
            FUZZ_ADD(fz->extra[X_ACCEPTED], 1);
            check_engine(e, what);
            dnnl_engine_destroy(e);
        } else {
            FUZZ_ADD(fz->extra[X_REFUSED], 1);
            if (s != dnnl_invalid_arguments && s != dnnl_unimplemented && s != dnnl_out_of_memory)
                fuzz_wrong("%s: an engine blob refused with %s", what, check_status_str(s));
        }
        if (!ocl_context_refcount_settles(ctx, refs))
            fuzz_leak("%s: the context's reference count went from %u to %u", what, refs,
                    ocl_context_refcount(ctx));
    } else {
        dnnl_primitive_t p = NULL;
        fuzz_call("dnnl_primitive_create_from_cache_blob(%s, %zu bytes)", what, n);
        dnnl_status_t s = dnnl_primitive_create_from_cache_blob(&p, pd, n, at);
        fuzz_result(s);
        fuzz_check_panic();
        if (s == dnnl_success) {
            FUZZ_ADD(fz->extra[X_ACCEPTED], 1);
            float out[120];
            if (!compute(engine, p, out))
                fuzz_wrong("%s: the primitive made from it does not run", what);
            else if (memcmp(out, expected, sizeof out) != 0)
                fuzz_wrong("%s: the primitive made from it computes a wrong result", what);
            dnnl_primitive_destroy(p);
        } else {
            FUZZ_ADD(fz->extra[X_REFUSED], 1);
            if (s != dnnl_invalid_arguments && s != dnnl_unimplemented && s != dnnl_out_of_memory)
                fuzz_wrong("%s: a primitive blob refused with %s", what, check_status_str(s));
        }
    }
}

static void run_mutation(const mutation_t *m, uint8_t *work) {
    const uint8_t *orig = shared->bytes[m->blob];
    size_t n = shared->size[m->blob];
    const char *name = m->blob ? "primitive blob" : "engine blob";
    char what[160];
    switch (m->kind) {
        case M_FLIP:
        case M_FIXED_FLIP:
            memcpy(work, orig, n);
            work[m->param / 8] ^= (uint8_t)(1u << (m->param % 8));
            if (m->kind == M_FIXED_FLIP) fix_checksum(work, n);
            snprintf(what, sizeof what, "%s with bit %" PRIu64 " of byte %" PRIu64 " flipped%s", name,
                    m->param % 8, m->param / 8, m->kind == M_FIXED_FLIP ? " and the checksum recomputed" : "");
            FUZZ_ADD(fz->extra[m->kind == M_FLIP ? X_FLIPS : X_FIXED], 1);
            try_blob(m->blob, work, n, what);
            break;
        case M_TRUNC:
            snprintf(what, sizeof what, "%s cut to %" PRIu64 " of %zu bytes", name, m->param, n);
            FUZZ_ADD(fz->extra[X_TRUNCATIONS], 1);
            try_blob(m->blob, orig, (size_t)m->param, what);
            break;
        case M_FIXED_LENGTH: {
            const field_t *f = &layouts[m->blob].lengths[m->param / 8];
            static const uint64_t values[6] = {0, 1, 0, 0x7fffffffu, 0xffffffffu, UINT64_MAX};
            uint64_t v = m->param % 8 == 2 ? (uint64_t)n : values[m->param % 8];
            memcpy(work, orig, n);
            for (size_t k = 0; k < f->width; k++) work[f->at + k] = (uint8_t)(v >> (8 * k));
            fix_checksum(work, n);
            snprintf(what, sizeof what, "%s with the %zu-byte length at %zu set to %" PRIu64
                     " and the checksum recomputed", name, f->width, f->at, v);
            FUZZ_ADD(fz->extra[X_FIXED], 1);
            try_blob(m->blob, work, n, what);
            break;
        }
        default: {
            rng_t r = rng_for(fz->seed, 0x9a9b + m->param * 2 + (uint64_t)m->blob);
            size_t len = 0;
            const uint8_t *other = shared->bytes[1 - m->blob];
            size_t other_n = shared->size[1 - m->blob];
            switch (m->param % 5) {
                case 0:
                    len = (size_t)rng_below(&r, 2 * n + 1);
                    for (size_t k = 0; k < len; k++) work[k] = (uint8_t)rng_u64(&r);
                    snprintf(what, sizeof what, "%zu random bytes as the %s", len, name);
                    break;
                case 1:
                case 2:
                    len = m->param % 7 == 0 ? n : (size_t)rng_below(&r, n + 1);
                    memset(work, m->param % 5 == 1 ? 0 : 0xff, len);
                    snprintf(what, sizeof what, "%zu bytes of %s as the %s", len,
                            m->param % 5 == 1 ? "0x00" : "0xff", name);
                    break;
                case 3:
                    len = (size_t)rng_below(&r, n + 1);
                    for (size_t k = 0; k < len; k++) work[k] = (uint8_t)rng_u64(&r);
                    memcpy(work, orig, len < 16 ? len : 16);
                    if (rng_pct(&r, 50)) fix_checksum(work, len);
                    snprintf(what, sizeof what, "the %s's header then %zu random bytes", name, len);
                    break;
                default:
                    len = rng_pct(&r, 30) ? other_n : (size_t)rng_below(&r, other_n + 1);
                    memcpy(work, other, len);
                    snprintf(what, sizeof what, "%zu bytes of the %s given as the %s", len,
                            m->blob ? "engine blob" : "primitive blob", name);
                    break;
            }
            FUZZ_ADD(fz->extra[X_GARBAGE], 1);
            try_blob(m->blob, work, len, what);
            break;
        }
    }
}

/* ---- children ------------------------------------------------------------------------- */

/* The first child: makes the blobs and the plan's size. */
static void make_blobs(uint64_t start, uint64_t end, void *arg) {
    (void)start;
    (void)end;
    (void)arg;
    fuzz_quiet_library();
    make_objects();
    dnnl_primitive_t p = NULL;
    fuzz_call("dnnl_primitive_create (eltwise)");
    CHECK(dnnl_primitive_create(&p, pd));
    size_t size[2] = {0, 0};
    fuzz_call("dnnl_ocl_interop_engine_get_cache_blob");
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine, &size[0], NULL));
    fuzz_call("dnnl_primitive_get_cache_blob");
    CHECK(dnnl_primitive_get_cache_blob(p, &size[1], NULL));
    EXPECT(size[0] <= MAX_BLOB && size[1] <= MAX_BLOB);
    CHECK(dnnl_ocl_interop_engine_get_cache_blob(engine, &size[0], shared->bytes[0]));
    CHECK(dnnl_primitive_get_cache_blob(p, &size[1], shared->bytes[1]));
    shared->size[0] = size[0];
    shared->size[1] = size[1];
    for (int b = 0; b < 2; b++) layout_of(shared->bytes[b], size[b], &layouts[b]);
    plan_t plan = make_plan();
    shared->total = plan.n;
    shared->forged_from = plan.forged_from;
    shared->ready = 1;
    for (int b = 0; b < 2; b++) {
        uint64_t st = 0;
        for (size_t k = 0; k < size[b]; k++) st += layouts[b].structural[k] != C_BINARY;
        printf("%s: %zu bytes, %" PRIu64 " structural (%s), %d length fields\n",
                b ? "primitive blob" : "engine blob", size[b], st,
                layouts[b].parsed ? "parsed" : "NOT parsed: first 4 KiB and last 64 bytes",
                layouts[b].nlengths);
    }
    dnnl_primitive_destroy(p);
}

static void body(uint64_t start, uint64_t end, void *arg) {
    (void)arg;
    fuzz_quiet_library();
    make_objects();
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    EXPECT(compute(engine, p, expected));
    dnnl_primitive_destroy(p);
    for (int b = 0; b < 2; b++) layout_of(shared->bytes[b], shared->size[b], &layouts[b]);
    plan_t plan = make_plan();
    EXPECT(plan.n == shared->total);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), most = 2 * shared->size[0] + 2 * shared->size[1] + 16;
    region_size = (most + page - 1) / page * page;
    uint8_t *map = mmap(NULL, region_size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(map != MAP_FAILED);
    EXPECT(mprotect(map + region_size, page, PROT_NONE) == 0);
    region = map;
    uint8_t *work = malloc(region_size);
    EXPECT(work);
    for (uint64_t i = start; i < end; i++) {
        fz->item = i;
        fz->step = 0;
        fz->ring_pos = 0;
        alarm(60);
        run_mutation(&plan.list[i], work);
    }
    free(work);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fuzz_init("blobs", "gpu", 0xb10b);
    selftest = (int)fuzz_env_u64("FUZZ_SELFTEST", 0);
    fuzz_name_extra(X_REFUSED, "refused");
    fuzz_name_extra(X_ACCEPTED, "accepted");
    fuzz_name_extra(X_FLIPS, "bit_flips");
    fuzz_name_extra(X_TRUNCATIONS, "truncations");
    fuzz_name_extra(X_FIXED, "checksum_fixed");
    fuzz_name_extra(X_GARBAGE, "garbage");
    if (fuzz_env_u64("FUZZ_BLOB_FORGED", 0)) {
        fuzz_name_extra(X_FORGED_CRASHES, "forged_crashes");
        fuzz_name_extra(X_FORGED_WRONG, "forged_wrong");
    }
    shared = mmap(NULL, 4096 + 2 * (size_t)MAX_BLOB, PROT_READ | PROT_WRITE,
            MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    EXPECT(shared != MAP_FAILED);
    shared->bytes[0] = (uint8_t *)shared + 4096;
    shared->bytes[1] = shared->bytes[0] + MAX_BLOB;
    {
        /* Asked in a child: the parent must not start OpenCL before forking. */
        pid_t pid = fork();
        if (pid == 0) _exit(ocl_devices(NULL, 0) > 0 ? 0 : 3);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) SKIP("no OpenCL device");
    }
    fuzz_run(0, 1, 600, make_blobs, NULL, "blobs gpu");
    if (!shared->ready) {
        printf("blobs: could not make the blobs\n");
        fz->wrong++;
        return fuzz_finish();
    }
    uint64_t total = shared->total, forged = shared->forged_from;
    printf("blobs: %" PRIu64 " mutations and %" PRIu64 " forged blobs\n", forged, total - forged);
    uint64_t first = fuzz_env_u64("FUZZ_FIRST", 0);
    uint64_t count = fuzz_env_u64("FUZZ_COUNT", total);
    uint64_t end = first + count > total ? total : first + count;
    if (first < forged) fuzz_run(first, end < forged ? end : forged, 600, body, NULL, "blobs gpu");
    if (end > forged) {
        /* Forged blobs are outside the contract: a checksum detects corruption,
         * not forgery, and a changed device binary reaches the driver, which may
         * crash or compute garbage. What happens is counted and printed apart
         * and does not fail the run. */
        uint64_t c0 = fz->crashes, w0 = fz->wrong;
        printf("blobs: forged blobs (device binaries changed, checksum recomputed): outside the "
               "contract, counted apart\n");
        fuzz_run(first > forged ? first : forged, end, 600, body, NULL, "blobs gpu");
        fz->extra[X_FORGED_CRASHES] = fz->crashes - c0;
        fz->extra[X_FORGED_WRONG] = fz->wrong - w0;
        fz->crashes = c0;
        fz->wrong = w0;
    }
    return fuzz_finish();
}
