//! Entry points of `dnnl_ocl.h`.

mod unimplemented;
