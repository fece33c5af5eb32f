/// @file dnnl_version.h
/// Compatibility header: the API lives in oneapi/dnnl/dnnl_version.h.
#ifndef DNNL_VERSION_H
#define DNNL_VERSION_H

#include "oneapi/dnnl/dnnl_version.h"

#endif /* DNNL_VERSION_H */
