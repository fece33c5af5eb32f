/* The primitive cache starts with the capacity the environment gives. */
#include "check.h"

int main(void) {
    int capacity = -1;
    CHECK(dnnl_get_primitive_cache_capacity(&capacity));
    EXPECT(capacity == 7);
    printf("capacity from the environment: %d\n", capacity);
    return 0;
}
