//! Entry points of `dnnl_graph_ocl.h`.

mod unimplemented;
