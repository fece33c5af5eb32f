/// @file dnnl_types.h
/// Compatibility header: the API lives in oneapi/dnnl/dnnl_types.h.
#ifndef DNNL_TYPES_H
#define DNNL_TYPES_H

#include "oneapi/dnnl/dnnl_types.h"

#endif /* DNNL_TYPES_H */
