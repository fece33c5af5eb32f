/// @file dnnl.h
/// Compatibility header: the API lives in oneapi/dnnl/dnnl.h.
#ifndef DNNL_H
#define DNNL_H

#include "oneapi/dnnl/dnnl.h"

#endif /* DNNL_H */
