/* Prints the library version and the engines it finds, and creates each engine.
 *
 * Which OpenCL devices show up as GPU engines depends on the OpenCL runtimes the ICD
 * loader sees (OCL_ICD_VENDORS); none is not an error (the CPU engine needs no
 * OpenCL). A failure to create, query or destroy an engine is reported and the
 * listing goes on; the program then exits 1. */
#include <stdio.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

static const char *status_str(dnnl_status_t s) {
    const char *str = dnnl_status2str(s);
    return str ? str : "(unknown status)";
}

static const char *kind_str(dnnl_engine_kind_t k) {
    const char *str = dnnl_engine_kind2str(k);
    return str ? str : "(unknown kind)";
}

/* Lists the engines of `kind`; returns how many calls failed. */
static int list_engines(dnnl_engine_kind_t kind) {
    int failed = 0;
    size_t count = dnnl_engine_get_count(kind);
    printf("%s engines: %zu\n", kind_str(kind), count);
    for (size_t i = 0; i < count; i++) {
        dnnl_engine_t engine = NULL;
        dnnl_status_t s = dnnl_engine_create(&engine, kind, i);
        if (s != dnnl_success) {
            printf("  %s engine %zu: dnnl_engine_create failed: %s\n", kind_str(kind), i,
                    status_str(s));
            failed++;
            continue;
        }
        dnnl_engine_kind_t got = dnnl_any_engine;
        s = dnnl_engine_get_kind(engine, &got);
        if (s == dnnl_success && got == kind) {
            printf("  %s engine %zu: created, kind %s\n", kind_str(kind), i, kind_str(got));
        } else {
            printf("  %s engine %zu: created; dnnl_engine_get_kind: %s, kind %s\n",
                    kind_str(kind), i, status_str(s), kind_str(got));
            failed++;
        }
        s = dnnl_engine_destroy(engine);
        if (s != dnnl_success) {
            printf("  %s engine %zu: dnnl_engine_destroy failed: %s\n", kind_str(kind), i,
                    status_str(s));
            failed++;
        }
    }
    return failed;
}

int main(void) {
    const dnnl_version_t *v = dnnl_version();
    if (v == NULL) {
        printf("dnnl_version() returned NULL\n");
        return 1;
    }
    printf("dnnl %d.%d.%d (hash %s, cpu runtime 0x%x, gpu runtime 0x%x)\n", v->major,
            v->minor, v->patch, v->hash ? v->hash : "(none)", v->cpu_runtime, v->gpu_runtime);
    int failed = list_engines(dnnl_cpu) + list_engines(dnnl_gpu);
    if (failed) {
        printf("%d engine call(s) failed\n", failed);
        return 1;
    }
    printf("every engine was created and destroyed\n");
    return 0;
}
