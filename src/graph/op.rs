//! Graph ops as a C caller builds them (`dnnl_graph_op_*`): a kind, an id, a
//! name, input and output logical tensors and typed attributes.
//!
//! Layer: graph. Upstream's setters accept anything but NULL: the attribute
//! takes the type of the setter that set it (a vector for the vector-typed
//! ids such as `scales`, `zps`, `axes`, whatever `num` is), and the op is
//! checked against its schema (`schema::check`) when it is added to a
//! graph or a partition, so that a wrong attribute type is reported there,
//! as oneDNN v3.13 does (`dnnl_invalid_graph_op`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::graph::logical_tensor::Lt;
use crate::graph::schema::{self, AttrType};

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    F32(f32),
    F32s(Vec<f32>),
    S64(i64),
    S64s(Vec<i64>),
    Bool(bool),
    Str(String),
}

impl AttrValue {
    /// The type the value was set with.
    pub fn ty(&self) -> AttrType {
        self.as_schema().ty()
    }

    /// The value as the schema checks it.
    fn as_schema(&self) -> schema::AttrValue<'_> {
        match self {
            AttrValue::F32(v) => schema::AttrValue::F32(*v),
            AttrValue::F32s(v) => schema::AttrValue::F32s(v),
            AttrValue::S64(v) => schema::AttrValue::S64(*v),
            AttrValue::S64s(v) => schema::AttrValue::S64s(v),
            AttrValue::Bool(v) => schema::AttrValue::Bool(*v),
            AttrValue::Str(v) => schema::AttrValue::Str(v),
        }
    }

    /// The value as JSON (for graph dumps).
    pub fn to_json(&self) -> String {
        fn list<T: ToString>(v: &[T]) -> String {
            let items: Vec<String> = v.iter().map(T::to_string).collect();
            format!("[{}]", items.join(", "))
        }
        match self {
            AttrValue::F32(v) => format!("{{\"type\": \"f32\", \"value\": {v}}}"),
            AttrValue::F32s(v) => format!("{{\"type\": \"f32[]\", \"value\": {}}}", list(v)),
            AttrValue::S64(v) => format!("{{\"type\": \"s64\", \"value\": {v}}}"),
            AttrValue::S64s(v) => format!("{{\"type\": \"s64[]\", \"value\": {}}}", list(v)),
            AttrValue::Bool(v) => format!("{{\"type\": \"bool\", \"value\": {v}}}"),
            AttrValue::Str(v) => format!("{{\"type\": \"string\", \"value\": {v:?}}}"),
        }
    }
}

/// An op: a plain value (graphs and partitions keep copies).
#[derive(Clone, Debug)]
pub struct Op {
    pub id: usize,
    pub kind: dnnl_graph_op_kind_t,
    pub name: String,
    pub inputs: Vec<Lt>,
    pub outputs: Vec<Lt>,
    pub attrs: BTreeMap<u32, AttrValue>,
}

/// oneDNN's name of an op kind ("MatMul", "ReLU", ...).
pub fn kind_name(kind: dnnl_graph_op_kind_t) -> &'static str {
    schema::schema(kind).map_or("Unknown", |s| s.name)
}

impl Op {
    /// A new op without tensors or attributes.
    pub fn new(id: usize, kind: dnnl_graph_op_kind_t, name: &str) -> Op {
        Op {
            id,
            kind,
            name: name.to_string(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            attrs: BTreeMap::new(),
        }
    }

    /// Sets `attr` from the f32 setter: a vector for vector-typed ids.
    pub fn set_f32(&mut self, attr: dnnl_graph_op_attr_t, values: &[f32]) {
        let value = match (schema::attr_type(attr), values) {
            (Some(AttrType::F32s), _) | (_, []) => AttrValue::F32s(values.to_vec()),
            (_, [v, ..]) => AttrValue::F32(*v),
        };
        self.attrs.insert(attr.0, value);
    }

    /// Sets `attr` from the s64 setter: a vector for vector-typed ids.
    pub fn set_s64(&mut self, attr: dnnl_graph_op_attr_t, values: &[i64]) {
        let value = match (schema::attr_type(attr), values) {
            (Some(AttrType::S64s), _) | (_, []) => AttrValue::S64s(values.to_vec()),
            (_, [v, ..]) => AttrValue::S64(*v),
        };
        self.attrs.insert(attr.0, value);
    }

    /// Sets `attr` from the bool setter.
    pub fn set_bool(&mut self, attr: dnnl_graph_op_attr_t, value: bool) {
        self.attrs.insert(attr.0, AttrValue::Bool(value));
    }

    /// Sets `attr` from the string setter.
    pub fn set_str(&mut self, attr: dnnl_graph_op_attr_t, value: &str) {
        self.attrs.insert(attr.0, AttrValue::Str(value.to_string()));
    }

    /// The op's kind name.
    pub fn kind_name(&self) -> &'static str {
        kind_name(self.kind)
    }

    /// Checks the op against its schema as upstream's `add_op` does
    /// (`schema::check_op`): arity, attribute names and types, required
    /// attributes, the string values upstream checks, and the op-level rules
    /// (`dnnl_invalid_graph_op`).
    pub fn check(&self) -> Result<()> {
        let attrs: Vec<(dnnl_graph_op_attr_t, schema::AttrValue)> = self
            .attrs
            .iter()
            .map(|(&a, v)| (dnnl_graph_op_attr_t(a), v.as_schema()))
            .collect();
        schema::check_op(self.kind, self.inputs.len(), self.outputs.len(), &attrs).map_err(|why| {
            Error::InvalidGraphOp(format!("op {} ({}): {why}", self.id, self.name).into())
        })
    }

    fn attr(&self, attr: dnnl_graph_op_attr_t) -> Option<&AttrValue> {
        self.attrs.get(&attr.0)
    }

    /// An f32 attribute, or the schema's default, or `default`.
    pub fn f32_or(&self, attr: dnnl_graph_op_attr_t, default: f32) -> f32 {
        match self.attr(attr) {
            Some(AttrValue::F32(v)) => *v,
            _ => match schema::schema(self.kind).and_then(|s| s.default_of(attr)) {
                Some(schema::AttrDefault::F32(v)) => v,
                _ => default,
            },
        }
    }

    /// An s64 attribute, or the schema's default, or `default`.
    pub fn s64_or(&self, attr: dnnl_graph_op_attr_t, default: i64) -> i64 {
        match self.attr(attr) {
            Some(AttrValue::S64(v)) => *v,
            _ => match schema::schema(self.kind).and_then(|s| s.default_of(attr)) {
                Some(schema::AttrDefault::S64(v)) => v,
                _ => default,
            },
        }
    }

    /// A bool attribute, or the schema's default, or `default`.
    pub fn bool_or(&self, attr: dnnl_graph_op_attr_t, default: bool) -> bool {
        match self.attr(attr) {
            Some(AttrValue::Bool(v)) => *v,
            _ => match schema::schema(self.kind).and_then(|s| s.default_of(attr)) {
                Some(schema::AttrDefault::Bool(v)) => v,
                _ => default,
            },
        }
    }

    /// A string attribute, or the schema's default, or `default`.
    pub fn str_or(&self, attr: dnnl_graph_op_attr_t, default: &'static str) -> String {
        match self.attr(attr) {
            Some(AttrValue::Str(v)) => v.clone(),
            _ => match schema::schema(self.kind).and_then(|s| s.default_of(attr)) {
                Some(schema::AttrDefault::Str(v)) => v.to_string(),
                _ => default.to_string(),
            },
        }
    }

    /// An f32 vector attribute (empty when unset).
    pub fn f32s(&self, attr: dnnl_graph_op_attr_t) -> Vec<f32> {
        match self.attr(attr) {
            Some(AttrValue::F32s(v)) => v.clone(),
            Some(AttrValue::F32(v)) => vec![*v],
            _ => Vec::new(),
        }
    }

    /// An s64 vector attribute, `None` when unset.
    pub fn s64s(&self, attr: dnnl_graph_op_attr_t) -> Option<Vec<i64>> {
        match self.attr(attr) {
            Some(AttrValue::S64s(v)) => Some(v.clone()),
            Some(AttrValue::S64(v)) => Some(vec![*v]),
            _ => None,
        }
    }
}

/// The object behind a `dnnl_graph_op_t`: the C API changes it in place.
pub struct OpCell(Mutex<Op>);

impl OpCell {
    /// A new op.
    pub fn new(op: Op) -> Arc<OpCell> {
        Arc::new(OpCell(Mutex::new(op)))
    }

    /// A copy of the op.
    pub fn get(&self) -> Result<Op> {
        Ok(self.0.lock()?.clone())
    }

    /// Changes the op.
    pub fn update<R>(&self, f: impl FnOnce(&mut Op) -> R) -> Result<R> {
        Ok(f(&mut *self.0.lock()?))
    }
}
