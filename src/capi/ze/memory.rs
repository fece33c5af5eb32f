//! Level Zero memory: USM, the library's or the user's.

use ::core::ffi::{c_int, c_void};

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::memory::handles_from_c;
use crate::capi::handles;
use crate::capi::handles::resolve_md;
use crate::core::memory::Memory;

/// Creates a memory object on a Level Zero engine with one handle per
/// buffer the descriptor needs (`nhandles` of them). Each handle is a USM
/// pointer of the engine's context (host, device or shared, as
/// `zeMemGetAllocProperties` says; never freed by the library; a pointer
/// that is not USM of the context is `dnnl_invalid_arguments`),
/// `DNNL_MEMORY_ALLOCATE` (zeroed device USM, owned and freed by the
/// library) or `DNNL_MEMORY_NONE` (no buffer yet). Mapping device USM goes
/// through a host copy. The caller owns `*memory`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_memory_create(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_memory_create", || {
        let out = boundary::out(memory, "memory")?;
        // SAFETY: the C contract: `handles` holds `nhandles` pointers.
        let handles = unsafe { handles_from_c(nhandles, handles) }?;
        let md = resolve_md(memory_desc)?;
        let engine = handles::resolve(engine)?;
        engine.ze("Level Zero interop memory")?;
        let created = Memory::create(engine, (*md).clone(), None, &handles)?;
        out.write(handles::publish(created));
        Ok(())
    })
}
