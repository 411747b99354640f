//! Comparisons (to `bool`), boolean logic, `Where` and the float predicates
//! `IsNaN`/`IsInf`, all with numpy broadcasting where they take two or more
//! operands.

use super::broadcast::{zip2, zip3};
use crate::lowp::Real;

/// A comparison producing `bool`. Any comparison involving NaN is false
/// (`Equal` included: NaN ≠ NaN).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compare {
    /// `a == b`.
    Equal,
    /// `a < b`.
    Less,
    /// `a <= b`.
    LessOrEqual,
    /// `a > b`.
    Greater,
    /// `a >= b`.
    GreaterOrEqual,
}

/// `out = a cmp b` for any ordered element type (f32, i64, i32, bool, ...).
pub fn compare<T: PartialOrd + Copy>(
    op: Compare,
    a_shape: &[usize],
    a: &[T],
    b_shape: &[usize],
    b: &[T],
    out_shape: &[usize],
    out: &mut [bool],
) {
    match op {
        Compare::Equal => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x == y),
        Compare::Less => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x < y),
        Compare::LessOrEqual => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x <= y),
        Compare::Greater => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x > y),
        Compare::GreaterOrEqual => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x >= y),
    }
}

/// A two-operand boolean op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Logic {
    /// `a && b`.
    And,
    /// `a || b`.
    Or,
    /// `a != b`.
    Xor,
}

/// `out = a op b` on bools.
pub fn logic(
    op: Logic,
    a_shape: &[usize],
    a: &[bool],
    b_shape: &[usize],
    b: &[bool],
    out_shape: &[usize],
    out: &mut [bool],
) {
    match op {
        Logic::And => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x & y),
        Logic::Or => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x | y),
        Logic::Xor => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x ^ y),
    }
}

/// `y = !x`.
pub fn not(x: &[bool], y: &mut [bool]) {
    assert_eq!(x.len(), y.len(), "not: x has {} elements, y {}", x.len(), y.len());
    y.iter_mut().zip(x).for_each(|(y, &x)| *y = !x);
}

/// `out = cond ? x : y` with three-way broadcasting, any element type.
pub fn where_<T: Copy>(
    cond_shape: &[usize],
    cond: &[bool],
    x_shape: &[usize],
    x: &[T],
    y_shape: &[usize],
    y: &[T],
    out_shape: &[usize],
    out: &mut [T],
) {
    zip3((cond_shape, cond), (x_shape, x), (y_shape, y), out_shape, out, |c, a, b| if c { a } else { b });
}

/// `y = isnan(x)`.
pub fn is_nan<T: Real>(x: &[T], y: &mut [bool]) {
    assert_eq!(x.len(), y.len(), "is_nan: x has {} elements, y {}", x.len(), y.len());
    y.iter_mut().zip(x).for_each(|(y, x)| *y = x.to_f64().is_nan());
}

/// `y = (x == +inf && detect_positive) || (x == -inf && detect_negative)`.
pub fn is_inf<T: Real>(x: &[T], detect_negative: bool, detect_positive: bool, y: &mut [bool]) {
    assert_eq!(x.len(), y.len(), "is_inf: x has {} elements, y {}", x.len(), y.len());
    y.iter_mut().zip(x).for_each(|(y, &x)| {
        let x = x.to_f64();
        *y = (detect_positive && x == f64::INFINITY) || (detect_negative && x == f64::NEG_INFINITY);
    });
}
