/// @file dnnl_config.h
/// Compatibility header: the API lives in oneapi/dnnl/dnnl_config.h.
#ifndef DNNL_CONFIG_H
#define DNNL_CONFIG_H

#include "oneapi/dnnl/dnnl_config.h"

#endif /* DNNL_CONFIG_H */
