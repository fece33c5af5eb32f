/* Makes one rejected call and two successful ones. CTest runs this program under
 * several ONEDNN_VERBOSE / DNNL_VERBOSE settings and matches what it prints. */
#include <stdint.h>

#include "check.h"

int main(void) {
    /* Destroying NULL succeeds, as upstream, and logs nothing. */
    CHECK_STATUS(dnnl_stream_destroy(NULL), dnnl_success);
    CHECK_STATUS(dnnl_engine_destroy((dnnl_engine_t)(uintptr_t)0xdeadbee0u), dnnl_invalid_arguments);
    const dnnl_version_t *v = dnnl_version();
    printf("done %d.%d\n", v->major, v->minor);
    return 0;
}
