//! Internal enums for C enum values, checked once at the boundary.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use crate::abi::*;
use crate::core::error::{Error, Result};

/// An element data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    F16,
    Bf16,
    F32,
    S32,
    S8,
    U8,
    F64,
    Boolean,
    F8E5m2,
    F8E4m3,
    S4,
    U4,
    E8m0,
    F4E2m1,
    F4E3m0,
    S64,
}

impl TryFrom<dnnl_data_type_t> for DataType {
    type Error = Error;

    fn try_from(value: dnnl_data_type_t) -> Result<Self> {
        Ok(match value {
            dnnl_f16 => DataType::F16,
            dnnl_bf16 => DataType::Bf16,
            dnnl_f32 => DataType::F32,
            dnnl_s32 => DataType::S32,
            dnnl_s8 => DataType::S8,
            dnnl_u8 => DataType::U8,
            dnnl_f64 => DataType::F64,
            dnnl_boolean => DataType::Boolean,
            dnnl_f8_e5m2 => DataType::F8E5m2,
            dnnl_f8_e4m3 => DataType::F8E4m3,
            dnnl_s4 => DataType::S4,
            dnnl_u4 => DataType::U4,
            dnnl_e8m0 => DataType::E8m0,
            dnnl_f4_e2m1 => DataType::F4E2m1,
            dnnl_f4_e3m0 => DataType::F4E3m0,
            dnnl_s64 => DataType::S64,
            other => return Err(Error::invalid(format!("{} is not a data type", other.0))),
        })
    }
}

impl DataType {
    /// Bytes per element; the 4-bit types report 1, the byte that holds them.
    pub fn size(self) -> usize {
        match self {
            DataType::F64 | DataType::S64 => 8,
            DataType::F32 | DataType::S32 => 4,
            DataType::F16 | DataType::Bf16 => 2,
            DataType::S8
            | DataType::U8
            | DataType::Boolean
            | DataType::F8E5m2
            | DataType::F8E4m3
            | DataType::E8m0
            | DataType::S4
            | DataType::U4
            | DataType::F4E2m1
            | DataType::F4E3m0 => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_data_type_converts_and_others_do_not() {
        for (name, value) in dnnl_data_type_t::ALL {
            let converted = DataType::try_from(*value);
            let name = name.to_str().unwrap();
            let expected_ok = !matches!(name, "dnnl_data_type_undef" | "dnnl_data_type_max");
            assert_eq!(converted.is_ok(), expected_ok, "{name}");
        }
        assert!(DataType::try_from(dnnl_data_type_t(12345)).is_err());
    }
}
