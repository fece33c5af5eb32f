//! The binary algorithms (`dnnl_binary_*`): one formula each, shared by the
//! binary primitive and binary post-ops, on the CPU (in `f32`) and as
//! OpenCL C (`binary_alg.cl`, where `BINARY_<NAME>` names the same one).
//!
//! Layer: prims.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use crate::abi::*;

/// A binary algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryAlg {
    Add,
    Mul,
    Max,
    Min,
    Div,
    Sub,
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
    Ne,
    /// `src2 != 0 ? src0 : src1`: the only one with a third operand.
    Select,
}

const ALGS: [(BinaryAlg, dnnl_alg_kind_t, &str); 13] = [
    (BinaryAlg::Add, dnnl_binary_add, "ADD"),
    (BinaryAlg::Mul, dnnl_binary_mul, "MUL"),
    (BinaryAlg::Max, dnnl_binary_max, "MAX"),
    (BinaryAlg::Min, dnnl_binary_min, "MIN"),
    (BinaryAlg::Div, dnnl_binary_div, "DIV"),
    (BinaryAlg::Sub, dnnl_binary_sub, "SUB"),
    (BinaryAlg::Ge, dnnl_binary_ge, "GE"),
    (BinaryAlg::Gt, dnnl_binary_gt, "GT"),
    (BinaryAlg::Le, dnnl_binary_le, "LE"),
    (BinaryAlg::Lt, dnnl_binary_lt, "LT"),
    (BinaryAlg::Eq, dnnl_binary_eq, "EQ"),
    (BinaryAlg::Ne, dnnl_binary_ne, "NE"),
    (BinaryAlg::Select, dnnl_binary_select, "SELECT"),
];

impl BinaryAlg {
    /// Every algorithm.
    pub fn all() -> impl Iterator<Item = BinaryAlg> {
        ALGS.iter().map(|a| a.0)
    }

    /// The algorithm of a C value, if it is a binary one.
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<BinaryAlg> {
        ALGS.iter().find(|a| a.1 == alg).map(|a| a.0)
    }

    /// The C value.
    pub fn to_c(self) -> dnnl_alg_kind_t {
        ALGS.iter()
            .find(|a| a.0 == self)
            .map_or(dnnl_alg_kind_undef, |a| a.1)
    }

    /// The number OpenCL code knows it by (`BINARY_ADD` ... in `binary_alg.cl`).
    pub fn cl_name(self) -> &'static str {
        ALGS.iter().find(|a| a.0 == self).map_or("ADD", |a| a.2)
    }

    /// The index `binary_alg.cl`'s `binary_op` switches on.
    pub fn cl_id(self) -> usize {
        ALGS.iter().position(|a| a.0 == self).unwrap_or(0)
    }

    /// Whether the algorithm takes a third operand (`select`).
    pub fn is_ternary(self) -> bool {
        self == BinaryAlg::Select
    }

    /// Whether the result is a comparison (1 or 0).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryAlg::Ge
                | BinaryAlg::Gt
                | BinaryAlg::Le
                | BinaryAlg::Lt
                | BinaryAlg::Eq
                | BinaryAlg::Ne
        )
    }

    /// The formula, in `f32`; `c` is the condition of `select` (ignored by
    /// the others).
    pub fn apply(self, a: f32, b: f32, c: f32) -> f32 {
        let flag = |x: bool| if x { 1.0 } else { 0.0 };
        match self {
            BinaryAlg::Add => a + b,
            BinaryAlg::Mul => a * b,
            BinaryAlg::Max => a.max(b),
            BinaryAlg::Min => a.min(b),
            BinaryAlg::Div => a / b,
            BinaryAlg::Sub => a - b,
            BinaryAlg::Ge => flag(a >= b),
            BinaryAlg::Gt => flag(a > b),
            BinaryAlg::Le => flag(a <= b),
            BinaryAlg::Lt => flag(a < b),
            BinaryAlg::Eq => flag(a == b),
            BinaryAlg::Ne => flag(a != b),
            BinaryAlg::Select => {
                if c != 0.0 {
                    a
                } else {
                    b
                }
            }
        }
    }
}

/// OpenCL C: `float binary_op(int alg, float a, float b, float c)` with
/// `alg` a [`BinaryAlg::cl_id`] (a constant at every call, so it folds).
pub const CL_SOURCE: &str = include_str!("binary_alg.cl");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_c_value_round_trips() {
        for alg in BinaryAlg::all() {
            assert_eq!(BinaryAlg::from_c(alg.to_c()), Some(alg));
        }
        assert_eq!(BinaryAlg::from_c(dnnl_eltwise_relu), None);
    }

    #[test]
    fn formulas() {
        assert_eq!(BinaryAlg::Sub.apply(5.0, 3.0, 0.0), 2.0);
        assert_eq!(BinaryAlg::Ge.apply(3.0, 3.0, 0.0), 1.0);
        assert_eq!(BinaryAlg::Lt.apply(3.0, 3.0, 0.0), 0.0);
        assert_eq!(BinaryAlg::Select.apply(1.0, 2.0, 0.0), 2.0);
        assert_eq!(BinaryAlg::Select.apply(1.0, 2.0, -1.0), 1.0);
    }
}
