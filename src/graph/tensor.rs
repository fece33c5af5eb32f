//! TEMPORARY stand-in for feat/galloc's graph tensors (replaced at merge).

use std::ffi::c_void;
use std::sync::Arc;

use crate::abi::*;
use crate::core::engine::Engine;
use crate::runtime::ocl::Event;

pub struct Tensor {
    lt: dnnl_graph_logical_tensor_t,
    engine: Arc<Engine>,
    handle: usize,
}

impl Tensor {
    pub fn stand_in(
        lt: dnnl_graph_logical_tensor_t,
        engine: Arc<Engine>,
        handle: usize,
    ) -> Arc<Tensor> {
        Arc::new(Tensor { lt, engine, handle })
    }

    pub fn logical_tensor(&self) -> &dnnl_graph_logical_tensor_t {
        &self.lt
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    pub fn data_handle(&self) -> *mut c_void {
        self.handle as *mut c_void
    }

    pub fn is_host_scalar(&self) -> bool {
        false
    }

    pub fn note_use(&self, _event: &Event) {}
}
