/* Makes one rejected call and one successful one. CTest runs this program under
 * several ONEDNN_VERBOSE / DNNL_VERBOSE settings and matches what it prints. */
#include "check.h"

int main(void) {
    CHECK_STATUS(dnnl_engine_destroy(NULL), dnnl_invalid_arguments);
    const dnnl_version_t *v = dnnl_version();
    printf("done %d.%d\n", v->major, v->minor);
    return 0;
}
