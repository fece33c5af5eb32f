//! Primitive descriptors: iteration over implementations, and queries.

#![allow(non_upper_case_globals)]

use ::core::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::handles::resolve_attr;
use crate::capi::handles::resolve_md;
use crate::core::attr::PrimitiveAttr;
use crate::core::engine::Engine;
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{Kind, PdCell, PrimitiveDesc};
use crate::core::{Error, Result};

/// Publishes a new primitive descriptor as a handle the caller owns.
pub(crate) fn publish(pd: PrimitiveDesc) -> dnnl_primitive_desc_t {
    handles::publish(Arc::new(PdCell::new(pd)))
}

/// The one path of every `dnnl_*_primitive_desc_create`: resolves the
/// engine and the attributes, builds the kind's op with `op` (which resolves
/// the kind's own arguments and applies its checks), lets the framework
/// check the attributes and choose an implementation, and publishes the
/// descriptor to `*primitive_desc` on success only.
pub(crate) fn create<K: Kind>(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
    op: impl FnOnce(&PrimitiveAttr) -> Result<K>,
) -> Result<()> {
    create_on(primitive_desc, attr, |attr| {
        let engine = handles::resolve(engine)?;
        Ok((engine, op(attr)?))
    })
}

/// [`create`] for kinds whose op names the engine (a reorder runs on one of
/// its two engines).
pub(crate) fn create_on<K: Kind>(
    primitive_desc: *mut dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
    op: impl FnOnce(&PrimitiveAttr) -> Result<(Arc<Engine>, K)>,
) -> Result<()> {
    let out = boundary::out(primitive_desc, "primitive_desc")?;
    let attr = resolve_attr(attr)?.map_or_else(PrimitiveAttr::default, |a| (*a).clone());
    let (engine, op) = op(&attr)?;
    out.write(publish(PrimitiveDesc::new(engine, Arc::new(op), attr)?));
    Ok(())
}

/// The forward op of a backward descriptor's `hint_fwd_pd`: `None` for
/// NULL; invalid arguments for a handle that is not live or not a
/// descriptor of kind `K`.
pub(crate) fn hint<K: Kind>(hint_fwd_pd: const_dnnl_primitive_desc_t) -> Result<Option<Arc<K>>> {
    if hint_fwd_pd.is_null() {
        return Ok(None);
    }
    let pd = handles::resolve(hint_fwd_pd)?.get()?;
    pd.op_as::<K>().map(Some).ok_or_else(|| {
        Error::invalid(format!(
            "hint_fwd_pd is not a {} primitive descriptor",
            K::NAME
        ))
    })
}

/// An optional descriptor: NULL means none.
pub(crate) fn optional_md(md: const_dnnl_memory_desc_t) -> Result<Option<Arc<MemoryDesc>>> {
    if md.is_null() {
        Ok(None)
    } else {
        resolve_md(md).map(Some)
    }
}

/// Moves `primitive_desc` on to the next implementation that accepts its
/// operation; `dnnl_last_impl_reached` (and no change) after the last one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_next_impl(
    primitive_desc: dnnl_primitive_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_desc_next_impl", || {
        handles::resolve(primitive_desc)?.next_impl()
    })
}

/// Copies a primitive descriptor; the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_clone(
    primitive_desc: *mut dnnl_primitive_desc_t,
    existing_primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_desc_clone", || {
        let out = boundary::out(primitive_desc, "primitive_desc")?;
        let pd = handles::resolve(existing_primitive_desc)?.get()?;
        out.write(publish(pd));
        Ok(())
    })
}

/// Writes the attributes `primitive_desc` was created with to `*attr`. They
/// belong to the primitive descriptor: do not destroy or change them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_get_attr(
    primitive_desc: const_dnnl_primitive_desc_t,
    attr: *mut const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_desc_get_attr", || {
        let out = boundary::out(attr, "attr")?;
        let pd = handles::resolve(primitive_desc)?.get()?;
        out.write(handles::expose::<dnnl_primitive_attr>(pd.attr()).cast_const());
        Ok(())
    })
}

/// The argument a `*_md` query with `index` asks for.
fn md_query_arg(what: dnnl_query_t, index: c_int) -> Option<i32> {
    let base = match what {
        dnnl_query_src_md => DNNL_ARG_SRC_0,
        dnnl_query_diff_src_md => DNNL_ARG_DIFF_SRC_0,
        dnnl_query_weights_md => DNNL_ARG_WEIGHTS_0,
        dnnl_query_diff_weights_md => DNNL_ARG_DIFF_WEIGHTS_0,
        dnnl_query_dst_md => DNNL_ARG_DST_0,
        dnnl_query_diff_dst_md => DNNL_ARG_DIFF_DST_0,
        dnnl_query_workspace_md => return (index == 0).then_some(DNNL_ARG_WORKSPACE),
        dnnl_query_scratchpad_md => return (index == 0).then_some(DNNL_ARG_SCRATCHPAD),
        dnnl_query_exec_arg_md => return Some(index),
        _ => return None,
    };
    (0..4).contains(&index).then_some(base + index)
}

/// The memory descriptor a query names: the op's, or the zero descriptor when
/// the primitive has no such argument (as upstream answers).
fn query_md(pd: &PrimitiveDesc, what: dnnl_query_t, index: c_int) -> Option<Arc<MemoryDesc>> {
    let custom = match what {
        dnnl_query_src_md => pd.op().src_arg(index),
        _ => None,
    }
    .or_else(|| pd.op().md_query_arg(what, index));
    let arg = custom.or_else(|| md_query_arg(what, index))?;
    if arg == DNNL_ARG_SCRATCHPAD {
        return Some(pd.scratchpad_md().clone());
    }
    Some(
        pd.op()
            .arg_md(arg)
            .cloned()
            .unwrap_or_else(|| pd.scratchpad_md().clone()),
    )
}

/// Writes `value` to the caller's `result`, which must point to a `T`.
fn write<T>(result: *mut c_void, value: T) -> Result<()> {
    boundary::out(result.cast::<T>(), "result")?.write(value);
    Ok(())
}

fn query(pd: &PrimitiveDesc, what: dnnl_query_t, index: c_int, result: *mut c_void) -> Result<()> {
    let op = pd.op();
    match what {
        dnnl_query_engine | dnnl_query_scratchpad_engine => {
            write(result, handles::expose::<dnnl_engine>(pd.engine()))
        }
        dnnl_query_reorder_src_engine | dnnl_query_reorder_dst_engine => {
            let engine = op.query_engine(what).ok_or_else(|| {
                Error::unimplemented("the query applies to reorder primitive descriptors only")
            })?;
            write(result, handles::expose::<dnnl_engine>(&engine))
        }
        dnnl_query_primitive_kind => write(result, op.kind()),
        dnnl_query_num_of_inputs_s32 => write(result, op.inputs().len() as c_int),
        dnnl_query_num_of_outputs_s32 => write(result, op.outputs().len() as c_int),
        // The memory the library allocates for the primitive: its scratchpad,
        // unless the user provides it (as upstream counts).
        dnnl_query_memory_consumption_s64 => {
            let library = pd.scratchpad_md().is_zero();
            write(
                result,
                if library {
                    pd.scratchpad_size() as i64
                } else {
                    0
                },
            )
        }
        dnnl_query_impl_info_str => write::<*const c_char>(result, pd.impl_name().as_ptr()),
        dnnl_query_prop_kind => write(result, op.prop_kind()),
        dnnl_query_alg_kind if op.alg_kind() != dnnl_alg_kind_undef => write(result, op.alg_kind()),
        _ => {
            if let Some(value) = op.query_f32(what) {
                return write(result, value);
            }
            if let Some(value) = op.query_s32(what) {
                return write(result, value as c_int);
            }
            if let Some(value) = op.query_s64(what) {
                return write(result, value);
            }
            if let Some(values) = op.query_f32s(what) {
                return write::<*const f32>(result, values.as_ptr());
            }
            if let Some(dims) = op.query_dims(what) {
                return write::<*const dnnl_dims_t>(result, dims);
            }
            if let Some(md) = query_md(pd, what, index) {
                return write::<const_dnnl_memory_desc_t>(
                    result,
                    handles::expose::<dnnl_memory_desc>(&md).cast_const(),
                );
            }
            Err(Error::unimplemented(format!(
                "query {} does not apply to this primitive descriptor",
                what.0
            )))
        }
    }
}

/// Answers query `what` (with `index` for memory descriptors, or the
/// argument for `dnnl_query_exec_arg_md`) into `*result`, whose type the query
/// fixes. Handles written (engine, memory descriptors) belong to the
/// primitive descriptor; the implementation string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_query(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_desc_query", || {
        let pd = handles::resolve(primitive_desc)?.get()?;
        query(&pd, what, index, result)
    })
}

/// The memory descriptor query `what` with `index` names, or NULL when the
/// query is not a memory descriptor query. Owned by the primitive descriptor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_query_md(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> const_dnnl_memory_desc_t {
    boundary::guard_value("dnnl_primitive_desc_query_md", ::core::ptr::null(), || {
        let Ok(pd) = handles::resolve(primitive_desc).and_then(|c| c.get()) else {
            return ::core::ptr::null();
        };
        query_md(&pd, what, index).map_or(::core::ptr::null(), |md| {
            handles::expose::<dnnl_memory_desc>(&md).cast_const()
        })
    })
}

/// The integer answer of query `what` (e.g. `dnnl_query_num_of_inputs_s32`), or 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_query_s32(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> c_int {
    boundary::guard_value("dnnl_primitive_desc_query_s32", 0, || {
        let mut value: c_int = 0;
        let Ok(pd) = handles::resolve(primitive_desc).and_then(|c| c.get()) else {
            return 0;
        };
        match what {
            dnnl_query_num_of_inputs_s32 | dnnl_query_num_of_outputs_s32 => {
                let _ = query(&pd, what, index, (&mut value as *mut c_int).cast());
                value
            }
            _ => pd.op().query_s32(what).unwrap_or(0),
        }
    })
}

/// Releases the caller's primitive descriptor handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_destroy(
    primitive_desc: dnnl_primitive_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_desc_destroy", || {
        handles::retire(primitive_desc)
    })
}
