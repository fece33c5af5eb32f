//! Entry points of `dnnl.h`.

pub mod attr;
pub mod attr_quant;
pub mod binary;
pub mod convolution;
pub mod eltwise;
pub mod inner_product;
pub mod matmul;
pub mod memory;
pub mod memory_desc;
pub mod post_ops;
pub mod primitive;
pub mod primitive_desc;
pub mod reorder;
pub mod service;
pub mod softmax;
pub mod sum_concat;
pub mod unimplemented;

pub use attr::*;
pub use attr_quant::*;
pub use binary::*;
pub use convolution::*;
pub use eltwise::*;
pub use inner_product::*;
pub use matmul::*;
pub use memory::*;
pub use memory_desc::*;
pub use post_ops::*;
pub use primitive::*;
pub use primitive_desc::*;
pub use reorder::*;
pub use service::*;
pub use softmax::*;
pub use sum_concat::*;
pub use unimplemented::*;
