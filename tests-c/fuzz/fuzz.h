/* What the fuzz and stress programs (the .c files of tests-c/fuzz) share:
 *
 *  - settings from the environment, with the CI defaults each program passes
 *    (fuzz_env_u64; see README.md for every variable);
 *  - a seeded generator (splitmix64): a run is fully determined by its seed;
 *  - a block of memory shared with forked children (fuzz_t): the counters, the
 *    item and the call in progress, and a ring of the last calls made, so that
 *    what a child was doing when it died survives it;
 *  - fuzz_run(): runs items [first, end) in forked children. A child that dies
 *    (a signal, a timeout, an unexpected exit code) is reported with the seed,
 *    the item and the call in progress, the last calls before it and its
 *    stderr; the run then goes on after that item in a new child;
 *  - panics: a child's stderr goes to a memory file that fuzz_check_panic()
 *    scans for Rust's "panicked at" (the library turns a panic into a status,
 *    but no input may reach one);
 *  - fuzz_finish(): the one summary line, and the exit code (0, or 1 when
 *    anything crashed, panicked, was wrong or leaked).
 *
 * Include this header first: it asks for the POSIX and GNU declarations. */
#ifndef DNNL_TESTS_C_FUZZ_H
#define DNNL_TESTS_C_FUZZ_H

#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* ---- layouts: where a logical element lives ------------------------------- */

/* A blocked layout as a descriptor's queries give it (each program fills it from
 * the library it is testing); `dt` and `esize` where the program needs them. */
typedef struct {
    int ndims, nblks;
    dnnl_dims_t dims, padded_offsets, strides, blks, idxs;
    dnnl_data_type_t dt;
    int64_t offset0, nelems;
    size_t esize;
} layout_t;

/* The element offset of logical element `idx` (row-major over dims). */
static inline int64_t offset_of(const layout_t *l, int64_t idx) {
    int64_t pos[DNNL_MAX_NDIMS], off = l->offset0, inner = 0, istride = 1;
    for (int d = l->ndims - 1; d >= 0; d--) {
        pos[d] = idx % l->dims[d] + l->padded_offsets[d];
        idx /= l->dims[d];
    }
    for (int b = l->nblks - 1; b >= 0; b--) {
        int d = (int)l->idxs[b];
        inner += pos[d] % l->blks[b] * istride;
        pos[d] /= l->blks[b];
        istride *= l->blks[b];
    }
    for (int d = 0; d < l->ndims; d++) off += pos[d] * l->strides[d];
    return off + inner;
}

/* ---- settings ------------------------------------------------------------ */

/* The value of environment variable `name` (decimal, or hex with 0x), or `dflt`. */
static inline uint64_t fuzz_env_u64(const char *name, uint64_t dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end = NULL;
    errno = 0;
    uint64_t x = strtoull(v, &end, 0);
    if (errno || !end || *end) {
        fprintf(stderr, "%s=%s is not a number\n", name, v);
        exit(2);
    }
    return x;
}

static inline double fuzz_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the generator --------------------------------------------------------- */

typedef struct {
    uint64_t s;
} rng_t;

static inline uint64_t rng_u64(rng_t *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The generator of item `item` of a run with seed `seed`: items are independent. */
static inline rng_t rng_for(uint64_t seed, uint64_t item) {
    rng_t r = {seed ^ (item * 0xd1342543de82ef95ull)};
    rng_u64(&r);
    return r;
}

/* Uniform in [0, n); 0 when n is 0. */
static inline uint64_t rng_below(rng_t *r, uint64_t n) {
    return n ? rng_u64(r) % n : 0;
}

static inline int rng_int(rng_t *r, int lo, int hi) { /* inclusive */
    return lo + (int)rng_below(r, (uint64_t)(hi - lo + 1));
}

static inline int rng_pct(rng_t *r, unsigned percent) {
    return rng_below(r, 100) < percent;
}

#define RNG_PICK(r, array) ((array)[rng_below((r), sizeof(array) / sizeof((array)[0]))])

/* ---- the block shared with children ------------------------------------- */

#define FUZZ_RING 24
#define FUZZ_LINE 240
#define FUZZ_EXTRA 12

typedef struct {
    /* Counters (children add to them atomically). */
    uint64_t calls;   /* library calls made */
    uint64_t crashes; /* children that died, timed out or exited wrongly */
    uint64_t wrong;   /* wrong results and broken invariants */
    uint64_t leaks;   /* reference counts or memory not back to baseline */
    uint64_t panics;  /* Rust panics seen on a child's stderr */
    uint64_t xfail;   /* known open problems seen (see fuzz_xfail) */
    uint64_t extra[FUZZ_EXTRA];
    const char *extra_name[FUZZ_EXTRA]; /* set by the parent before any fork */
    /* What the child is doing. */
    uint64_t item, step;
    uint64_t ring_pos;
    char ring[FUZZ_RING][FUZZ_LINE];
    /* Settings. */
    const char *program, *mode;
    uint64_t seed;
    int trace;     /* FUZZ_TRACE: print every call */
    int max_print; /* messages printed per kind before going quiet */
    uint64_t printed_wrong, printed_xfail, printed_panic;
    int nknown;          /* panics that are known open problems (fuzz_known_panic) */
    const char *known_where[4], *known_why[4];
    int stderr_fd; /* the real stderr, in a child whose fd 2 is captured */
    uint64_t panic_seen; /* bytes of the captured stderr already scanned */
    double started;
} fuzz_t;

static fuzz_t *fz;

#define FUZZ_ADD(field, n) __atomic_fetch_add(&(field), (uint64_t)(n), __ATOMIC_RELAXED)

/* Maps the shared block, reads FUZZ_SEED (default `default_seed`), FUZZ_TRACE,
 * and prints the settings line. `mode` names the variant (cpu, gpu). */
static inline fuzz_t *fuzz_init(const char *program, const char *mode, uint64_t default_seed) {
    fz = mmap(NULL, sizeof(fuzz_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT(fz != MAP_FAILED);
    memset(fz, 0, sizeof *fz);
    fz->program = program;
    fz->mode = mode;
    fz->seed = fuzz_env_u64("FUZZ_SEED", default_seed);
    fz->trace = (int)fuzz_env_u64("FUZZ_TRACE", 0);
    fz->max_print = (int)fuzz_env_u64("FUZZ_MAX_PRINT", 20);
    fz->stderr_fd = -1;
    fz->started = fuzz_now();
    setvbuf(stdout, NULL, _IOLBF, 0);
    return fz;
}

/* Refused calls are expected by the thousand: a child keeps the library's
 * error lines out of the output unless ONEDNN_VERBOSE asks for them. */
static inline void fuzz_quiet_library(void) {
    if (!getenv("ONEDNN_VERBOSE") && !getenv("DNNL_VERBOSE")) dnnl_set_verbose(0);
}

static inline void fuzz_name_extra(int i, const char *name) {
    fz->extra_name[i] = name;
}

/* Records call `text` (printf format) as the call in progress. */
static inline void fuzz_call(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void fuzz_call(const char *fmt, ...) {
    uint64_t pos = __atomic_fetch_add(&fz->ring_pos, 1, __ATOMIC_RELAXED);
    char *line = fz->ring[pos % FUZZ_RING];
    int n = snprintf(line, FUZZ_LINE, "#%" PRIu64 " ", fz->step);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, (size_t)(FUZZ_LINE - n), fmt, ap);
    va_end(ap);
    fz->step++;
    FUZZ_ADD(fz->calls, 1);
    if (fz->trace) printf("  %s\n", line);
}

/* Appends the status of the call in progress to its ring line. */
static inline void fuzz_result(dnnl_status_t s) {
    char *line = fz->ring[(fz->ring_pos + FUZZ_RING - 1) % FUZZ_RING];
    size_t n = strlen(line);
    if (n + 24 < FUZZ_LINE)
        snprintf(line + n, FUZZ_LINE - n, " = %s", check_status_str(s));
    if (fz->trace) printf("    -> %s\n", check_status_str(s));
}

static inline void fuzz_vreport(const char *kind, uint64_t *printed, const char *fmt, va_list ap) {
    if ((*printed)++ >= (uint64_t)fz->max_print) return;
    printf("%s: %s seed=0x%" PRIx64 " item %" PRIu64 " call #%" PRIu64 ": ", kind, fz->program,
            fz->seed, fz->item, fz->step ? fz->step - 1 : 0);
    vprintf(fmt, ap);
    printf("\n");
}

/* A wrong result or a broken invariant: counted, and printed (the first ones). */
static inline void fuzz_wrong(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void fuzz_wrong(const char *fmt, ...) {
    FUZZ_ADD(fz->wrong, 1);
    va_list ap;
    va_start(ap, fmt);
    fuzz_vreport("WRONG", &fz->printed_wrong, fmt, ap);
    va_end(ap);
}

/* A known open problem (an expected failure, switched on where the program says
 * which problem it is): counted apart, printed, and not failing the run. */
static inline void fuzz_xfail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void fuzz_xfail(const char *fmt, ...) {
    FUZZ_ADD(fz->xfail, 1);
    va_list ap;
    va_start(ap, fmt);
    fuzz_vreport("XFAIL", &fz->printed_xfail, fmt, ap);
    va_end(ap);
}

/* A leak: counted and printed. */
static inline void fuzz_leak(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void fuzz_leak(const char *fmt, ...) {
    FUZZ_ADD(fz->leaks, 1);
    va_list ap;
    va_start(ap, fmt);
    fuzz_vreport("LEAK", &fz->printed_wrong, fmt, ap);
    va_end(ap);
}

/* A panic whose message contains `where` is the known open problem `why`:
 * counted as an expected failure (xfail) rather than a panic. */
static inline void fuzz_known_panic(const char *where, const char *why) {
    if (fz->nknown < 4) {
        fz->known_where[fz->nknown] = where;
        fz->known_why[fz->nknown++] = why;
    }
}

/* Scans what the child wrote to stderr since the last scan for a Rust panic
 * message; a panic is counted (once per message) and printed with the call. */
static inline void fuzz_check_panic(void) {
    struct stat st;
    if (fz->stderr_fd < 0 || fstat(2, &st) != 0) return;
    if ((uint64_t)st.st_size <= fz->panic_seen) return;
    size_t n = (size_t)((uint64_t)st.st_size - fz->panic_seen);
    char *buf = malloc(n + 1);
    if (!buf) return;
    ssize_t got = pread(2, buf, n, (off_t)fz->panic_seen);
    if (got > 0) {
        buf[got] = 0;
        for (char *p = buf; (p = strstr(p, "panicked at")) != NULL; p++) {
            char *eol = strchr(p, '\n');
            char *eol2 = eol ? strchr(eol + 1, '\n') : NULL;
            int len = eol2 ? (int)(eol2 - p) : (int)strlen(p), known = -1;
            for (int k = 0; k < fz->nknown; k++)
                if (strncmp(p + 12, fz->known_where[k], strlen(fz->known_where[k])) == 0) known = k;
            if (known >= 0) {
                fuzz_xfail("%.*s (known open problem: %s)", len, p, fz->known_why[known]);
                continue;
            }
            FUZZ_ADD(fz->panics, 1);
            if (fz->printed_panic++ < (uint64_t)fz->max_print) {
                const char *call = fz->ring[(fz->ring_pos + FUZZ_RING - 1) % FUZZ_RING];
                printf("PANIC: %s seed=0x%" PRIx64 " item %" PRIu64 " in %s: %.*s\n",
                        fz->program, fz->seed, fz->item, call, len, p);
            }
        }
        fz->panic_seen += (uint64_t)got;
    }
    free(buf);
}

/* ---- children ---------------------------------------------------------------- */

/* Runs in a child: work on items [start, end), setting fz->item as it goes. */
typedef void (*fuzz_body_t)(uint64_t start, uint64_t end, void *arg);

static inline const char *fuzz_signame(int sig) {
    const char *s = strsignal(sig);
    return s ? s : "?";
}

/* The last bytes of the child's captured stderr, printed indented. */
static inline void fuzz_print_stderr_tail(int fd) {
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) return;
    off_t from = st.st_size > 2000 ? st.st_size - 2000 : 0;
    char buf[2001];
    ssize_t got = pread(fd, buf, (size_t)(st.st_size - from), from);
    if (got <= 0) return;
    buf[got] = 0;
    printf("  child stderr (last %zd bytes):\n", got);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        printf("    | %s\n", line);
}

static inline void fuzz_print_ring(void) {
    uint64_t end = fz->ring_pos, begin = end > FUZZ_RING ? end - FUZZ_RING : 0;
    if (end == begin) return;
    printf("  last calls (the last one was in progress):\n");
    for (uint64_t i = begin; i < end; i++) printf("    %s\n", fz->ring[i % FUZZ_RING]);
}

/* Runs `body` over items [first, end) in forked children, each limited to
 * `timeout_s` seconds of wall time (per child) and FUZZ_MEM_LIMIT_MB of address
 * space. A child that dies is reported and counted as a crash; the next child
 * starts after the item it died in. `argv0` and `args` make the reproducer line.
 * Stops after FUZZ_MAX_CRASHES crashes (default 10). */
static inline void fuzz_run(uint64_t first, uint64_t end, unsigned timeout_s, fuzz_body_t body, void *arg,
        const char *reproduce) {
    uint64_t max_crashes = fuzz_env_u64("FUZZ_MAX_CRASHES", 10);
    uint64_t mem_limit = fuzz_env_u64("FUZZ_MEM_LIMIT_MB", 4096) << 20;
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer reserves terabytes of shadow address space: no limit. */
    mem_limit = 0;
#endif
    uint64_t start = first;
    while (start < end) {
        int err_fd = memfd_create("fuzz-child-stderr", 0);
        fz->item = start;
        fz->step = 0;
        fz->ring_pos = 0;
        fflush(stdout);
        pid_t pid = fork();
        EXPECT(pid >= 0);
        if (pid == 0) {
            if (err_fd >= 0) {
                fz->stderr_fd = dup(2);
                dup2(err_fd, 2);
                fz->panic_seen = 0;
            }
            if (mem_limit) {
                struct rlimit rl = {(rlim_t)mem_limit, (rlim_t)mem_limit};
                setrlimit(RLIMIT_AS, &rl);
            }
            alarm(timeout_s);
            body(start, end, arg);
            fflush(stdout);
            fuzz_check_panic();
            _exit(0);
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            if (err_fd >= 0) close(err_fd);
            break;
        }
        FUZZ_ADD(fz->crashes, 1);
        uint64_t item = fz->item;
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
            printf("CRASH: %s seed=0x%" PRIx64 " item %" PRIu64 " call #%" PRIu64
                   ": timed out (child ran over %us)\n",
                    fz->program, fz->seed, item, fz->step ? fz->step - 1 : 0, timeout_s);
        else if (WIFSIGNALED(status))
            printf("CRASH: %s seed=0x%" PRIx64 " item %" PRIu64 " call #%" PRIu64
                   ": killed by signal %d (%s)\n",
                    fz->program, fz->seed, item, fz->step ? fz->step - 1 : 0, WTERMSIG(status),
                    fuzz_signame(WTERMSIG(status)));
        else
            printf("CRASH: %s seed=0x%" PRIx64 " item %" PRIu64 " call #%" PRIu64
                   ": exited with %d\n",
                    fz->program, fz->seed, item, fz->step ? fz->step - 1 : 0,
                    WEXITSTATUS(status));
        fuzz_print_ring();
        fuzz_print_stderr_tail(err_fd);
        printf("  reproduce: FUZZ_SEED=0x%" PRIx64 " FUZZ_FIRST=%" PRIu64
               " FUZZ_TRACE=1 %s (with one item)\n",
                fz->seed, item, reproduce);
        if (err_fd >= 0) close(err_fd);
        if (fz->crashes >= max_crashes) {
            printf("%s: stopping after %" PRIu64 " crashes (FUZZ_MAX_CRASHES)\n", fz->program,
                    fz->crashes);
            break;
        }
        start = item + 1;
    }
}

/* Prints the summary line and returns the exit code: 1 when anything crashed,
 * panicked, was wrong or leaked, else 0. */
static inline int fuzz_finish(void) {
    printf("SUMMARY %s[%s] seed=0x%" PRIx64 " calls=%" PRIu64 " crashes=%" PRIu64
           " wrong=%" PRIu64 " leaks=%" PRIu64 " panics=%" PRIu64 " xfail=%" PRIu64,
            fz->program, fz->mode, fz->seed, fz->calls, fz->crashes, fz->wrong, fz->leaks,
            fz->panics, fz->xfail);
    for (int i = 0; i < FUZZ_EXTRA; i++)
        if (fz->extra_name[i]) printf(" %s=%" PRIu64, fz->extra_name[i], fz->extra[i]);
    printf(" time=%.1fs\n", fuzz_now() - fz->started);
    return fz->crashes || fz->wrong || fz->leaks || fz->panics ? 1 : 0;
}

#endif
