/* A consumer of the installed library: prints dnnl_version(), checks it is 3.13, and,
 * given an install prefix as argv[1], checks that the library it loaded lies there. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

int main(int argc, char **argv) {
    const dnnl_version_t *v = dnnl_version();
    if (v == NULL) {
        fprintf(stderr, "dnnl_version() returned NULL\n");
        return 1;
    }
    printf("dnnl_version(): %d.%d.%d (hash %s)\n", v->major, v->minor, v->patch,
            v->hash ? v->hash : "(null)");
    if (v->major != 3 || v->minor != 13) {
        fprintf(stderr, "expected version 3.13\n");
        return 1;
    }

    /* The version struct lives in the library: dladdr names the file it came from. */
    Dl_info info;
    if (dladdr(v, &info) == 0 || info.dli_fname == NULL) {
        fprintf(stderr, "dladdr found no library for dnnl_version()\n");
        return 1;
    }
    printf("library: %s\n", info.dli_fname);
    if (argc > 1) {
        char lib[PATH_MAX], prefix[PATH_MAX];
        if (realpath(info.dli_fname, lib) == NULL || realpath(argv[1], prefix) == NULL) {
            perror("realpath");
            return 1;
        }
        size_t n = strlen(prefix);
        if (strncmp(lib, prefix, n) != 0 || lib[n] != '/') {
            fprintf(stderr, "loaded %s, which is not under %s\n", lib, prefix);
            return 1;
        }
    }
    return 0;
}
