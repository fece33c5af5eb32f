
// This library always contains the graph API.
#define ONEDNN_BUILD_GRAPH

// The grouped memory API (dnnl_memory_desc_create_with_grouped_encoding, dnnl_grouped,
// DNNL_ARG_HINT_MAX_GROUP_SIZE) is in the library. As in upstream's headers, it is
// declared only where this switch is non-zero: define it to 1 before the first oneDNN
// include (e.g. -DDNNL_EXPERIMENTAL_GROUPED_MEMORY=1) to use it.
#ifndef DNNL_EXPERIMENTAL_GROUPED_MEMORY
#define DNNL_EXPERIMENTAL_GROUPED_MEMORY 0
#endif
