//! Logical tensors: the id, shape, data type, property and layout of a graph
//! edge (`dnnl_graph_logical_tensor_t`), and what the graph layer derives
//! from them.
//!
//! Layer: graph, bottom. Pure functions over the C struct, which is a plain
//! value (`Copy`). Upstream's rules, checked against oneDNN v3.13:
//! - `init` fills every dimension and stride with `DNNL_GRAPH_UNKNOWN_DIM`;
//!   only `ndims > DNNL_MAX_NDIMS` is refused (any negative count means
//!   "unknown"), except for the `host_scalar` property: a host scalar has 0
//!   dimensions and an f32, s32 or s64 value, anything else is refused by
//!   every `init*` function (layout types are not looked at);
//! - `init_with_dims` with a strided layout computes dense row-major strides
//!   (a zero dimension counts as 1), unless a dimension is unknown (negative):
//!   then the strides stay unknown;
//! - the memory size of a strided tensor is its largest extent
//!   `dims[d] * strides[d]` (a dimension of 1 counts 1) in bytes, the data
//!   type's size for 0 dimensions, 0 with an unknown or zero dimension;
//!   `any` and `undef` layouts have no size (`SIZE_MAX`). Deliberate
//!   difference: upstream lets the byte count wrap (dims `{2^60+1, 4}` f32
//!   give 16); we refuse a size that does not fit, or is beyond
//!   `isize::MAX`, as an invalid argument, here and wherever the graph
//!   layer sizes a tensor;
//! - equality compares id, data type, property, layout type, the dimensions
//!   and the strides (or the opaque layout id) up to `ndims`.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::{MAX_NDIMS, MemoryDesc};
use crate::core::types::DataType;

/// The C struct, under a short name.
pub type Lt = dnnl_graph_logical_tensor_t;

/// `DNNL_GRAPH_UNKNOWN_DIM`.
pub const UNKNOWN_DIM: i64 = i64::MIN;

/// The id of the scratchpad logical tensor (`SIZE_MAX`).
pub const SCRATCHPAD_ID: usize = usize::MAX;

impl std::fmt::Debug for Lt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe(self))
    }
}

/// `dnnl_graph_logical_tensor_init`.
pub fn init(
    id: usize,
    dt: dnnl_data_type_t,
    ndims: i32,
    ltype: dnnl_graph_layout_type_t,
    ptype: dnnl_graph_tensor_property_t,
) -> Result<Lt> {
    if ndims > MAX_NDIMS as i32 {
        return Err(Error::invalid(format!(
            "a logical tensor has at most {MAX_NDIMS} dimensions, {ndims} given"
        )));
    }
    if ptype == dnnl_graph_tensor_property_host_scalar {
        check_host_scalar(dt, ndims)?;
    }
    Ok(Lt {
        id,
        ndims,
        dims: [UNKNOWN_DIM; MAX_NDIMS],
        data_type: dt,
        property: ptype,
        layout_type: ltype,
        layout: dnnl_graph_logical_tensor_layout_t {
            strides: [UNKNOWN_DIM; MAX_NDIMS],
        },
    })
}

/// A host scalar has 0 dimensions and an f32, s32 or s64 value.
fn check_host_scalar(dt: dnnl_data_type_t, ndims: i32) -> Result<()> {
    if ndims != 0 {
        return Err(Error::invalid(format!(
            "a host scalar logical tensor has 0 dimensions, {ndims} given"
        )));
    }
    if !matches!(dt, dnnl_f32 | dnnl_s32 | dnnl_s64) {
        return Err(Error::invalid(format!(
            "a host scalar logical tensor is f32, s32 or s64, not {}",
            crate::core::names::enum_str(dnnl_data_type_t::ALL, dt, "dnnl_", "undef")
        )));
    }
    Ok(())
}

/// Dense row-major strides of `dims` (a zero dimension counts as 1), or
/// `None` when a dimension is unknown.
pub fn dense_strides(dims: &[i64]) -> Option<Vec<i64>> {
    if dims.iter().any(|&d| d < 0) {
        return None;
    }
    let mut strides = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].saturating_mul(dims[d + 1].max(1));
    }
    Some(strides)
}

/// `dnnl_graph_logical_tensor_init_with_dims`; `dims` holds `ndims` values
/// (none for 0 dimensions).
pub fn init_with_dims(
    id: usize,
    dt: dnnl_data_type_t,
    dims: &[i64],
    ltype: dnnl_graph_layout_type_t,
    ptype: dnnl_graph_tensor_property_t,
) -> Result<Lt> {
    let mut lt = init(id, dt, dims.len() as i32, ltype, ptype)?;
    lt.dims[..dims.len()].copy_from_slice(dims);
    if ltype == dnnl_graph_layout_type_strided
        && let Some(strides) = dense_strides(dims)
    {
        set_strides(&mut lt, &strides);
    }
    Ok(lt)
}

/// `dnnl_graph_logical_tensor_init_with_strides`: a strided layout.
pub fn init_with_strides(
    id: usize,
    dt: dnnl_data_type_t,
    dims: &[i64],
    strides: &[i64],
    ptype: dnnl_graph_tensor_property_t,
) -> Result<Lt> {
    let mut lt = init(
        id,
        dt,
        dims.len() as i32,
        dnnl_graph_layout_type_strided,
        ptype,
    )?;
    lt.dims[..dims.len()].copy_from_slice(dims);
    set_strides(&mut lt, strides);
    Ok(lt)
}

fn set_strides(lt: &mut Lt, strides: &[i64]) {
    let mut all = [UNKNOWN_DIM; MAX_NDIMS];
    all[..strides.len()].copy_from_slice(strides);
    lt.layout.strides = all;
}

/// The number of dimensions, when known.
pub fn ndims(lt: &Lt) -> Option<usize> {
    usize::try_from(lt.ndims).ok().filter(|&n| n <= MAX_NDIMS)
}

/// The dimensions (empty when the count is unknown).
pub fn dims(lt: &Lt) -> &[i64] {
    &lt.dims[..ndims(lt).unwrap_or(0)]
}

/// The strides of a strided tensor (empty when the count is unknown).
pub fn strides(lt: &Lt) -> &[i64] {
    // SAFETY: both union fields are plain integers; any bit pattern is valid.
    let all = unsafe { &lt.layout.strides };
    &all[..ndims(lt).unwrap_or(0)]
}

/// Whether the number of dimensions and every dimension are known.
pub fn shape_known(lt: &Lt) -> bool {
    ndims(lt).is_some() && dims(lt).iter().all(|&d| d >= 0)
}

/// Whether the tensor has a strided layout with every stride known.
pub fn strides_known(lt: &Lt) -> bool {
    lt.layout_type == dnnl_graph_layout_type_strided
        && shape_known(lt)
        && strides(lt).iter().all(|&s| s != UNKNOWN_DIM)
}

/// Bytes of one element (0 for values that are not data types).
pub fn element_size(dt: dnnl_data_type_t) -> usize {
    DataType::try_from(dt).map_or(0, DataType::size)
}

fn is_4bit(dt: dnnl_data_type_t) -> bool {
    matches!(dt, dnnl_s4 | dnnl_u4 | dnnl_f4_e2m1 | dnnl_f4_e3m0)
}

/// `dnnl_graph_logical_tensor_get_mem_size`: see the module documentation.
/// The arithmetic is checked: a size that does not fit in `usize`, or is
/// larger than `isize::MAX` (no allocation can hold it), is an invalid
/// argument rather than a wrapped value.
pub fn mem_size(lt: &Lt) -> Result<usize> {
    if lt.layout_type != dnnl_graph_layout_type_strided {
        // An opaque layout is one of ours only after compilation, where it is
        // always resolved to strided: no id names anything else.
        return Ok(usize::MAX);
    }
    if lt.ndims == 0 {
        return Ok(element_size(lt.data_type));
    }
    let (dims, strides) = (dims(lt), strides(lt));
    if dims.is_empty() || dims.iter().any(|&d| d <= 0) {
        return Ok(0);
    }
    let too_large = || {
        Error::invalid(format!(
            "logical tensor {}: its size in bytes does not fit",
            describe(lt)
        ))
    };
    let mut elements: i64 = 0;
    for (&d, &s) in dims.iter().zip(strides) {
        let stride = if d == 1 { 1 } else { s };
        // A negative (unknown) stride spans nothing, as upstream counts it.
        if stride > 0 {
            elements = elements.max(d.checked_mul(stride).ok_or_else(too_large)?);
        }
    }
    let elements = usize::try_from(elements).map_err(|_| too_large())?;
    let bytes = if is_4bit(lt.data_type) {
        elements.div_ceil(2)
    } else {
        elements
            .checked_mul(element_size(lt.data_type))
            .ok_or_else(too_large)?
    };
    if isize::try_from(bytes).is_err() {
        return Err(too_large());
    }
    Ok(bytes)
}

/// `dnnl_graph_logical_tensor_is_equal`.
pub fn is_equal(a: &Lt, b: &Lt) -> bool {
    let head = a.id == b.id
        && a.ndims == b.ndims
        && a.data_type == b.data_type
        && a.property == b.property
        && a.layout_type == b.layout_type
        && dims(a) == dims(b);
    head && match a.layout_type {
        dnnl_graph_layout_type_strided => strides(a) == strides(b),
        // SAFETY: plain integers, as above.
        dnnl_graph_layout_type_opaque => unsafe { a.layout.layout_id == b.layout.layout_id },
        _ => true,
    }
}

/// `lt` with known `dims` and, unless it is strided with known strides
/// already, dense row-major strides (how `any` resolves).
pub fn resolved(lt: &Lt, dims: &[i64]) -> Lt {
    let mut out = *lt;
    out.ndims = dims.len() as i32;
    out.dims = [UNKNOWN_DIM; MAX_NDIMS];
    out.dims[..dims.len()].copy_from_slice(dims);
    let keep = lt.layout_type == dnnl_graph_layout_type_strided
        && ndims(lt) == Some(dims.len())
        && strides(lt).iter().all(|&s| s != UNKNOWN_DIM);
    if !keep {
        out.layout_type = dnnl_graph_layout_type_strided;
        set_strides(&mut out, &dense_strides(dims).unwrap_or_default());
    }
    if out.property == dnnl_graph_tensor_property_undef {
        out.property = dnnl_graph_tensor_property_variable;
    }
    out
}

/// The memory descriptor of a resolved (strided, shape known) tensor; a
/// 0-dimensional tensor is described as one element of shape `[1]`.
pub fn to_md(lt: &Lt) -> Result<MemoryDesc> {
    if !strides_known(lt) {
        return Err(Error::invalid(format!(
            "logical tensor {} has no known shape and strides",
            lt.id
        )));
    }
    if lt.ndims == 0 {
        return MemoryDesc::with_strides(&[1], lt.data_type, Some(&[1]));
    }
    MemoryDesc::with_strides(dims(lt), lt.data_type, Some(strides(lt)))
}

/// A short description for messages and verbose lines:
/// `id:dt:layout:dims:strides` as in `3:f32:strided:2x3:3s1`.
pub fn describe(lt: &Lt) -> String {
    let dt = crate::core::names::enum_str(dnnl_data_type_t::ALL, lt.data_type, "dnnl_", "undef");
    let dims = match ndims(lt) {
        None => "?".to_string(),
        Some(_) => dims(lt)
            .iter()
            .map(|&d| {
                if d < 0 {
                    "?".to_string()
                } else {
                    d.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("x"),
    };
    let layout = match lt.layout_type {
        dnnl_graph_layout_type_strided => {
            let s = strides(lt)
                .iter()
                .map(|&s| {
                    if s == UNKNOWN_DIM {
                        "?".to_string()
                    } else {
                        s.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("s");
            format!("strided:{dims}:{s}")
        }
        dnnl_graph_layout_type_any => format!("any:{dims}"),
        dnnl_graph_layout_type_opaque => format!("opaque:{dims}"),
        _ => format!("undef:{dims}"),
    };
    let prop = match lt.property {
        dnnl_graph_tensor_property_constant => ":constant",
        dnnl_graph_tensor_property_host_scalar => ":host_scalar",
        _ => "",
    };
    format!("{}:{dt}:{layout}{prop}", lt.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRIDED: dnnl_graph_layout_type_t = dnnl_graph_layout_type_strided;
    const VAR: dnnl_graph_tensor_property_t = dnnl_graph_tensor_property_variable;

    #[test]
    fn init_leaves_everything_unknown() {
        let lt = init(1, dnnl_f32, -1, STRIDED, VAR).unwrap();
        assert_eq!(lt.dims[0], UNKNOWN_DIM);
        assert!(init(1, dnnl_f32, 13, STRIDED, VAR).is_err());
        assert!(init(1, dnnl_f32, -2, STRIDED, VAR).is_ok());
        assert_eq!(
            mem_size(&init(1, dnnl_f32, 2, dnnl_graph_layout_type_any, VAR).unwrap()).unwrap(),
            usize::MAX
        );
    }

    #[test]
    fn dense_strides_treat_zero_as_one() {
        let lt = init_with_dims(1, dnnl_f32, &[2, 0, 4], STRIDED, VAR).unwrap();
        assert_eq!(strides(&lt), &[4, 4, 1]);
        assert_eq!(mem_size(&lt).unwrap(), 0);
        let lt = init_with_dims(1, dnnl_f32, &[2, -1, 4], STRIDED, VAR).unwrap();
        assert_eq!(strides(&lt), &[UNKNOWN_DIM; 3]);
    }

    #[test]
    fn sizes() {
        let lt = init_with_strides(1, dnnl_f32, &[2, 3], &[1, 2], VAR).unwrap();
        assert_eq!(mem_size(&lt).unwrap(), 24);
        let lt = init_with_dims(1, dnnl_f32, &[], STRIDED, VAR).unwrap();
        assert_eq!(mem_size(&lt).unwrap(), 4);
        let lt = init_with_dims(1, dnnl_s4, &[5], STRIDED, VAR).unwrap();
        assert_eq!(mem_size(&lt).unwrap(), 3);
    }

    #[test]
    fn sizes_that_do_not_fit_are_refused() {
        // (2^60 + 1) * 4 elements of 4 bytes: the byte count would wrap to 16.
        let lt = init_with_dims(1, dnnl_f32, &[(1 << 60) + 1, 4], STRIDED, VAR).unwrap();
        assert!(matches!(mem_size(&lt), Err(Error::InvalidArguments(_))));
        // 2^64 bytes (would wrap to 0), and 2^63 (fits usize, not isize).
        let lt = init_with_dims(1, dnnl_f32, &[1 << 62], STRIDED, VAR).unwrap();
        assert!(mem_size(&lt).is_err());
        let lt = init_with_dims(1, dnnl_u8, &[1 << 62, 2], STRIDED, VAR).unwrap();
        assert!(mem_size(&lt).is_err());
        // dims x strides overflowing i64.
        let lt = init_with_strides(1, dnnl_u8, &[4, 3], &[1 << 62, 1], VAR).unwrap();
        assert!(mem_size(&lt).is_err());
        // The largest sizes that fit are answered exactly.
        let lt = init_with_dims(1, dnnl_u8, &[i64::MAX], STRIDED, VAR).unwrap();
        assert_eq!(mem_size(&lt).unwrap(), isize::MAX as usize);
        let lt = init_with_dims(1, dnnl_s4, &[i64::MAX], STRIDED, VAR).unwrap();
        assert_eq!(mem_size(&lt).unwrap(), (i64::MAX as usize).div_ceil(2));
    }

    #[test]
    fn equality_ignores_values_past_ndims() {
        let a = init_with_dims(1, dnnl_f32, &[2, 3], STRIDED, VAR).unwrap();
        let mut b = a;
        b.dims[5] = 42;
        assert!(is_equal(&a, &b));
        b.property = dnnl_graph_tensor_property_constant;
        assert!(!is_equal(&a, &b));
        let c = init_with_dims(2, dnnl_f32, &[2, 3], STRIDED, VAR).unwrap();
        assert!(!is_equal(&a, &c));
    }

    #[test]
    fn resolving_any_gives_dense_strides() {
        let lt = init(
            7,
            dnnl_f32,
            -1,
            dnnl_graph_layout_type_any,
            dnnl_graph_tensor_property_undef,
        )
        .unwrap();
        let r = resolved(&lt, &[2, 3, 4]);
        assert_eq!(r.layout_type, STRIDED);
        assert_eq!(strides(&r), &[12, 4, 1]);
        assert_eq!(r.property, VAR);
    }
}
