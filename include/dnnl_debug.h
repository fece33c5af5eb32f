/// @file dnnl_debug.h
/// Compatibility header: the API lives in oneapi/dnnl/dnnl_debug.h.
#ifndef DNNL_DEBUG_H
#define DNNL_DEBUG_H

#include "oneapi/dnnl/dnnl_debug.h"

#endif /* DNNL_DEBUG_H */
