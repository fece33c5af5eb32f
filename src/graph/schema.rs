//! TEMPORARY stand-in for feat/gschema's op schemas (replaced at merge):
//! the interface only, accepting every op.

use crate::abi::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrType {
    F32,
    F32s,
    S64,
    S64s,
    Bool,
    Str,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttrDefault {
    F32(f32),
    S64(i64),
    Bool(bool),
    Str(&'static str),
}

#[derive(Debug)]
pub struct OpSchema {
    pub kind: dnnl_graph_op_kind_t,
    pub name: &'static str,
}

impl OpSchema {
    pub fn default_of(&self, _attr: dnnl_graph_op_attr_t) -> Option<AttrDefault> {
        None
    }
}

pub fn schema(_kind: dnnl_graph_op_kind_t) -> Option<&'static OpSchema> {
    None
}

pub fn attr_type(attr: dnnl_graph_op_attr_t) -> Option<AttrType> {
    match attr.0 {
        0x01..=0x1f => Some(AttrType::F32),
        0x20..=0x2f => Some(AttrType::F32s),
        0x30..=0x3f => Some(AttrType::S64),
        0x40..=0x5f => Some(AttrType::S64s),
        0x60..=0x7f => Some(AttrType::Bool),
        0x80..=0xfe => Some(AttrType::Str),
        _ => None,
    }
}

pub struct OpView<'a> {
    pub kind: dnnl_graph_op_kind_t,
    pub n_inputs: usize,
    pub n_outputs: usize,
    pub attrs: &'a [(dnnl_graph_op_attr_t, AttrType)],
}

pub fn check(_op: &OpView) -> Result<(), String> {
    Ok(())
}

pub fn check_str_value(
    _kind: dnnl_graph_op_kind_t,
    _attr: dnnl_graph_op_attr_t,
    _value: &str,
) -> Result<(), String> {
    Ok(())
}

pub fn attr_name(_attr: dnnl_graph_op_attr_t) -> Option<&'static str> {
    None
}
