//! Entry points of `dnnl.h`.

mod attr;
mod memory;
mod memory_desc;
mod primitive;
mod primitive_desc;
mod service;
mod unimplemented;
