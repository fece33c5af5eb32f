/* Counting graph allocators shared by the graph allocator tests (tests-c/graph_ocl/).
 *
 *   count_host_malloc / count_host_free   host callbacks (dnnl_graph_allocator_create)
 *   count_ocl_malloc / count_ocl_free     OpenCL USM callbacks (Intel's device USM,
 *                                         else clSVMAlloc memory: ocl_util.h)
 *                                         (dnnl_graph_ocl_interop_allocator_create);
 *                                         call count_ocl_init(&usm) first
 *   count_report(label)                   prints the record's totals
 *   count_check_balanced(timeout_ms)      every allocation freed exactly once (waiting
 *                                         up to timeout_ms for frees the library
 *                                         defers to its thread until an event completes)
 *
 * Every allocation is recorded with its size and alignment; every free is matched to
 * its allocation (a free of an unknown or already freed pointer fails the test at
 * once), and for OpenCL the event it received is recorded with its
 * CL_EVENT_COMMAND_EXECUTION_STATUS *at the time of the free*: it must be CL_COMPLETE.
 * The callbacks may run on a library thread: the record is guarded by a mutex. */
#ifndef DNNL_TESTS_C_GRAPH_COUNTING_ALLOC_H
#define DNNL_TESTS_C_GRAPH_COUNTING_ALLOC_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#ifdef COUNT_WITH_OPENCL
#include "interop/ocl/ocl_util.h"
#include "oneapi/dnnl/dnnl_graph_ocl.h"
#endif

#define COUNT_MAX 4096

typedef struct {
    void *ptr;
    void *base; /* what the underlying allocation returned (host) */
    size_t size, alignment;
    int frees;
    int freed_with_event; /* the free got a non-NULL event */
    int event_status; /* its CL_EVENT_COMMAND_EXECUTION_STATUS at free time */
} count_entry_t;

static struct {
    pthread_mutex_t lock;
    count_entry_t entries[COUNT_MAX];
    int n;
    int bad_free; /* frees of unknown or already freed pointers */
    int misaligned; /* allocations whose alignment was not a power of two */
    int incomplete_event_frees; /* frees whose event was not complete */
    int event_frees, null_event_frees;
} count = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0, 0, 0, 0, 0, 0};

static inline void count_record_alloc(void *ptr, void *base, size_t size, size_t alignment) {
    pthread_mutex_lock(&count.lock);
    if (count.n < COUNT_MAX) {
        count_entry_t *e = &count.entries[count.n++];
        memset(e, 0, sizeof(*e));
        e->ptr = ptr;
        e->base = base;
        e->size = size;
        e->alignment = alignment;
        e->event_status = 1;
    }
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) count.misaligned++;
    pthread_mutex_unlock(&count.lock);
}

/* Marks `ptr` freed; returns its entry (NULL and a recorded error when unknown or
 * already freed). */
static inline count_entry_t *count_record_free(void *ptr) {
    count_entry_t *found = NULL;
    pthread_mutex_lock(&count.lock);
    for (int i = count.n - 1; i >= 0; i--) {
        if (count.entries[i].ptr == ptr && count.entries[i].frees == 0) {
            found = &count.entries[i];
            break;
        }
    }
    if (found)
        found->frees++;
    else
        count.bad_free++;
    pthread_mutex_unlock(&count.lock);
    return found;
}

static inline int count_allocs(void) {
    pthread_mutex_lock(&count.lock);
    int n = count.n;
    pthread_mutex_unlock(&count.lock);
    return n;
}

static inline int count_frees(void) {
    int n = 0;
    pthread_mutex_lock(&count.lock);
    for (int i = 0; i < count.n; i++)
        n += count.entries[i].frees;
    pthread_mutex_unlock(&count.lock);
    return n;
}

static inline void *count_host_malloc(size_t size, size_t alignment) {
    size_t align = alignment ? alignment : 1;
    /* Over-allocate and align by hand, so the test sees whether the library's
     * requested alignment is what reaches (and is honoured by) the callback. */
    void *base = malloc(size + align);
    if (!base) return NULL;
    void *ptr = (void *)(((uintptr_t)base + align - 1) / align * align);
    count_record_alloc(ptr, base, size, alignment);
    return ptr;
}

static inline void count_host_free(void *ptr) {
    count_entry_t *e = count_record_free(ptr);
    if (e) free(e->base);
}

#ifdef COUNT_WITH_OPENCL
static ocl_usm_t count_usm;

static inline void count_ocl_init(const ocl_usm_t *usm) {
    count_usm = *usm;
}

static inline void *count_ocl_malloc(size_t size, size_t alignment, cl_device_id dev, cl_context ctx) {
    /* Device USM through Intel's extension, else clSVMAlloc memory (what a user on
     * PoCL or NVIDIA returns). A runtime that refuses the alignment of an SVM request
     * (PoCL takes at most 128 bytes) gets a larger one, aligned by hand. */
    void *base = ocl_usm_alloc(&count_usm, ctx, dev, 0, size, (cl_uint)alignment);
    void *ptr = base;
    if (!base && count_usm.via == OCL_USM_SVM && alignment > 1) {
        base = ocl_usm_alloc(&count_usm, ctx, dev, 0, size + alignment, 0);
        if (!base) return NULL;
        ptr = (void *)(((uintptr_t)base + alignment - 1) / alignment * alignment);
    }
    if (!base) return NULL;
    count_record_alloc(ptr, base, size, alignment);
    return ptr;
}

static inline void count_ocl_free(void *ptr, cl_device_id dev, cl_context ctx, cl_event event) {
    (void)dev;
    cl_int status = 1;
    if (event)
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                NULL);
    count_entry_t *e = count_record_free(ptr);
    pthread_mutex_lock(&count.lock);
    if (event) {
        count.event_frees++;
        if (status != CL_COMPLETE) count.incomplete_event_frees++;
    } else {
        count.null_event_frees++;
    }
    if (e) {
        e->freed_with_event = event != NULL;
        e->event_status = status;
    }
    void *base = e ? e->base : NULL;
    pthread_mutex_unlock(&count.lock);
    if (base) ocl_usm_free(&count_usm, ctx, base);
}
#endif

static inline double count_now_ms(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static inline void count_report(const char *label) {
    pthread_mutex_lock(&count.lock);
    size_t bytes = 0, max_align = 0;
    for (int i = 0; i < count.n; i++) {
        bytes += count.entries[i].size;
        if (count.entries[i].alignment > max_align) max_align = count.entries[i].alignment;
    }
    printf("%s: %d allocations (%zu bytes, alignments up to %zu), frees: %d with an event "
           "(all complete: %s), %d with NULL, %d bad\n",
            label, count.n, bytes, max_align, count.event_frees,
            count.incomplete_event_frees ? "no" : "yes", count.null_event_frees,
            count.bad_free);
    pthread_mutex_unlock(&count.lock);
}

/* Every allocation was freed exactly once (waiting up to timeout_ms for deferred
 * frees), no free was bad, every alignment was a power of two and honoured, and no
 * free came before its event completed. */
static inline void count_check_balanced(double timeout_ms) {
    double until = count_now_ms() + timeout_ms;
    while (count_frees() < count_allocs() && count_now_ms() < until) {}
    pthread_mutex_lock(&count.lock);
    for (int i = 0; i < count.n; i++) {
        const count_entry_t *e = &count.entries[i];
        if (e->frees != 1 || (uintptr_t)e->ptr % (e->alignment ? e->alignment : 1) != 0) {
            fprintf(stderr, "allocation %d (%p, %zu bytes, alignment %zu) freed %d times\n",
                    i, e->ptr, e->size, e->alignment, e->frees);
            exit(1);
        }
    }
    EXPECT(count.bad_free == 0);
    EXPECT(count.misaligned == 0);
    EXPECT(count.incomplete_event_frees == 0);
    pthread_mutex_unlock(&count.lock);
}

#endif /* DNNL_TESTS_C_GRAPH_COUNTING_ALLOC_H */
