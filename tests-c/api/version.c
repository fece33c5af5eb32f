/* dnnl_version() reports oneDNN 3.13 and the same numbers as dnnl_version.h. */
#include <string.h>

#include "check.h"

int main(void) {
    const dnnl_version_t *v = dnnl_version();
    EXPECT(v != NULL);
    EXPECT(v->major == 3);
    EXPECT(v->minor == 13);
    EXPECT(v->major == DNNL_VERSION_MAJOR);
    EXPECT(v->minor == DNNL_VERSION_MINOR);
    /* A patch release runs programs built against an earlier one's headers (the
     * reference runs: Intel's 3.13.x under our 3.13.0 headers). */
    EXPECT(v->patch >= DNNL_VERSION_PATCH);
    if (library_is_ours()) EXPECT(v->patch == DNNL_VERSION_PATCH);
    EXPECT(v->hash != NULL);
    EXPECT(dnnl_version() == v);
    printf("dnnl_version(): %d.%d.%d (hash \"%s\")\n", v->major, v->minor, v->patch, v->hash);
    return 0;
}
