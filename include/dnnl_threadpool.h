/// @file dnnl_threadpool.h
/// Compatibility header: the API lives in oneapi/dnnl/dnnl_threadpool.h.
#ifndef DNNL_THREADPOOL_H
#define DNNL_THREADPOOL_H

#include "oneapi/dnnl/dnnl_threadpool.h"

#endif /* DNNL_THREADPOOL_H */
