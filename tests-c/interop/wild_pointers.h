/* The wild pointers the wild-handle tests (interop/ocl and interop/ze) pass where a
 * user's OpenCL or Level Zero object belongs. Include after check.h (EXPECT), with
 * _DEFAULT_SOURCE defined (MAP_ANONYMOUS). */
#ifndef DNNL_TESTS_WILD_POINTERS_H
#define DNNL_TESTS_WILD_POINTERS_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    const char *name;
    void *ptr;
} wild_t;

/* Whether a byte at `p` can be read by this process (write() reports EFAULT, not a
 * fault, for memory it cannot read). */
static inline int readable_here(const void *p) {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    ssize_t r = write(fds[1], p, 1);
    close(fds[0]);
    close(fds[1]);
    return r == 1;
}

/* The pointers that are no object at all, into `w`; NULL first when `with_null`.
 * Returns how many. */
static inline size_t wild_pointers(wild_t *w, int with_null) {
    static void *unmapped, *prot_none, *zeros, *pattern;
    if (!unmapped) {
        unmapped = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        EXPECT(unmapped != MAP_FAILED);
        EXPECT(munmap(unmapped, 8192) == 0);
        prot_none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        EXPECT(prot_none != MAP_FAILED);
        zeros = calloc(1, 512);
        pattern = malloc(512);
        EXPECT(zeros && pattern);
        memset(pattern, 0xa5, 512);
    }
    size_t n = 0;
    if (with_null) w[n++] = (wild_t) {"NULL", NULL};
    w[n++] = (wild_t) {"(void *)1", (void *)1};
    /* Under AddressSanitizer this address is its shadow memory, mapped and readable:
     * no wild pointer there. */
    if (!readable_here((void *)(uintptr_t)0xdeadbeef000ull))
        w[n++] = (wild_t) {"0xdeadbeef000", (void *)(uintptr_t)0xdeadbeef000ull};
    w[n++] = (wild_t) {"a pointer into unmapped memory", (char *)unmapped + 64};
    w[n++] = (wild_t) {"a PROT_NONE page", prot_none};
    w[n++] = (wild_t) {"a zero-filled malloc buffer", zeros};
    w[n++] = (wild_t) {"a 0xa5-filled malloc buffer", pattern};
    return n;
}

#endif
