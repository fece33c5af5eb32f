/// @file dnnl_ocl.h
/// Compatibility header: the API lives in oneapi/dnnl/dnnl_ocl.h.
#ifndef DNNL_OCL_H
#define DNNL_OCL_H

#include "oneapi/dnnl/dnnl_ocl.h"

#endif /* DNNL_OCL_H */
