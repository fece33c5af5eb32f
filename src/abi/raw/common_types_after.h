
/// The data handle that asks memory creation functions to allocate a buffer
/// owned by the memory object.
#define DNNL_MEMORY_ALLOCATE ((void *)(size_t)-1)

/// The data handle that asks memory creation functions not to attach any
/// buffer; set one later with dnnl_memory_set_data_handle().
#define DNNL_MEMORY_NONE (NULL)
