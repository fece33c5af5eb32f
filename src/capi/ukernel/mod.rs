//! Entry points of `dnnl_ukernel.h` (experimental): the BRGeMM and transform
//! ukernels and their attribute parameters, on `prims::ukernel`.

pub mod attr_params;
pub mod brgemm;
pub mod destroy;
pub mod transform;

pub use attr_params::*;
pub use brgemm::*;
pub use destroy::*;
pub use transform::*;

use crate::abi::*;
use crate::prims::ukernel::PackType;

/// A C pack type as the ukernel module speaks of it (unknown values: `Undef`).
fn pack_type(value: dnnl_pack_type_t) -> PackType {
    match value {
        dnnl_pack_type_no_trans => PackType::NoTrans,
        dnnl_pack_type_trans => PackType::Trans,
        dnnl_pack_type_pack32 => PackType::Pack32,
        _ => PackType::Undef,
    }
}
