//! Helpers shared by the kernels of many families (layout, index, select,
//! generate, reduce, linalg, control, ...): typed access to [`Data`] vectors,
//! a wide numeric domain for arithmetic on any element type, multi-index
//! arithmetic and readers for integer operands.

use crate::interp::tensor::real::{bf16_of, f16_of};
use crate::interp::{lowp, Data, Tensor};
use crate::types::DType;
use half::{bf16, f16};
use std::cmp::Ordering;

/// An element type stored in one [`Data`] variant.
pub trait Elem: Clone + PartialEq + 'static {
    /// Wrap a vector into its `Data` variant.
    fn wrap(v: Vec<Self>) -> Data;
    /// The vector inside `d` if `d` has this element type.
    fn unwrap(d: &Data) -> Option<&[Self]>;
}

macro_rules! impl_elem {
    ($($t:ty => $var:ident),* $(,)?) => {$(
        impl Elem for $t {
            fn wrap(v: Vec<Self>) -> Data {
                Data::$var(v)
            }
            fn unwrap(d: &Data) -> Option<&[Self]> {
                match d {
                    Data::$var(v) => Some(v),
                    _ => None,
                }
            }
        }
    )*};
}
impl_elem!(f32 => F32, f16 => F16, bf16 => BF16, f64 => F64, i8 => I8, u8 => U8, i16 => I16, u16 => U16,
    i32 => I32, u32 => U32, i64 => I64, u64 => U64, bool => Bool, String => String);

fn concat_typed<T: Elem>(parts: &[&Data]) -> Result<Data, String> {
    let mut out: Vec<T> = Vec::new();
    for p in parts {
        let v = T::unwrap(p).ok_or_else(|| format!("cannot join {} elements with {}", parts[0].dtype(), p.dtype()))?;
        out.extend_from_slice(v);
    }
    Ok(T::wrap(out))
}

/// Concatenate the elements of several buffers of one element type.
pub fn concat_data(parts: &[&Data]) -> Result<Data, String> {
    let first = parts.first().ok_or("nothing to concatenate")?;
    fn typed<T: Elem>(_: &[T]) -> fn(&[&Data]) -> Result<Data, String> {
        concat_typed::<T>
    }
    crate::with_data!(first, v => typed(v)(parts))
}

/// Build a buffer from elements of several same-typed sources:
/// `out[i] = sources[picks[i].0][picks[i].1]`.
pub fn pick(sources: &[&Data], picks: &[(usize, usize)]) -> Result<Data, String> {
    let mut offsets = Vec::with_capacity(sources.len());
    let mut total = 0;
    for s in sources {
        offsets.push(total);
        total += s.len();
    }
    let all = concat_data(sources)?;
    Ok(all.gather(&picks.iter().map(|&(s, i)| offsets[s] + i).collect::<Vec<_>>()))
}

/// A number of any element type in a wide domain: floats as f64, integers and
/// bools as i128. Integer arithmetic wraps modulo 2^128, so truncating the
/// result to the element type gives ONNX's (numpy's) wrapping semantics.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Wide {
    /// A float value.
    F(f64),
    /// An integer (or bool) value.
    I(i128),
}

impl Wide {
    /// The value as f64.
    pub fn f(self) -> f64 {
        match self {
            Wide::F(x) => x,
            Wide::I(i) => i as f64,
        }
    }
    /// True if this is a float NaN.
    pub fn is_nan(self) -> bool {
        matches!(self, Wide::F(x) if x.is_nan())
    }
    /// True if the value is non-zero (NaN counts as non-zero, like numpy).
    pub fn nonzero(self) -> bool {
        match self {
            Wide::F(x) => x != 0.0,
            Wide::I(i) => i != 0,
        }
    }
    /// `|self|`.
    pub fn abs(self) -> Wide {
        match self {
            Wide::I(a) => Wide::I(a.wrapping_abs()),
            Wide::F(x) => Wide::F(x.abs()),
        }
    }
    /// The larger value; NaN propagates (numpy `maximum`).
    pub fn max(self, o: Wide) -> Wide {
        if self.is_nan() || o.is_nan() {
            return Wide::F(f64::NAN);
        }
        if o.cmp_total(self) == Ordering::Greater {
            o
        } else {
            self
        }
    }
    /// The smaller value; NaN propagates (numpy `minimum`).
    pub fn min(self, o: Wide) -> Wide {
        if self.is_nan() || o.is_nan() {
            return Wide::F(f64::NAN);
        }
        if o.cmp_total(self) == Ordering::Less {
            o
        } else {
            self
        }
    }
    /// A total order: numeric order, NaN greater than everything and equal to
    /// itself (numpy's sort order).
    pub fn cmp_total(self, o: Wide) -> Ordering {
        match (self, o) {
            (Wide::I(a), Wide::I(b)) => a.cmp(&b),
            (a, b) => match (a.is_nan(), b.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => a.f().partial_cmp(&b.f()).unwrap_or(Ordering::Equal),
            },
        }
    }
    /// The additive identity in the domain of `dt`.
    pub fn zero(dt: DType) -> Wide {
        if dt.is_float() {
            Wide::F(0.0)
        } else {
            Wide::I(0)
        }
    }
    /// The multiplicative identity in the domain of `dt`.
    pub fn one(dt: DType) -> Wide {
        if dt.is_float() {
            Wide::F(1.0)
        } else {
            Wide::I(1)
        }
    }
    /// The smallest value of `dt` (`-inf` for floats).
    pub fn lowest(dt: DType) -> Wide {
        match dt {
            _ if dt.is_float() => Wide::F(f64::NEG_INFINITY),
            DType::I8 => Wide::I(i8::MIN as i128),
            DType::I16 => Wide::I(i16::MIN as i128),
            DType::I32 => Wide::I(i32::MIN as i128),
            DType::I64 => Wide::I(i64::MIN as i128),
            _ => Wide::I(0),
        }
    }
    /// The largest value of `dt` (`+inf` for floats).
    pub fn highest(dt: DType) -> Wide {
        Wide::I(match dt {
            _ if dt.is_float() => return Wide::F(f64::INFINITY),
            DType::I8 => i8::MAX as i128,
            DType::U8 => u8::MAX as i128,
            DType::I16 => i16::MAX as i128,
            DType::U16 => u16::MAX as i128,
            DType::I32 => i32::MAX as i128,
            DType::U32 => u32::MAX as i128,
            DType::I64 => i64::MAX as i128,
            DType::U64 => u64::MAX as i128,
            _ => 1,
        })
    }
}

impl std::ops::Add for Wide {
    type Output = Wide;
    /// Sum (integers wrap modulo 2^128).
    fn add(self, o: Wide) -> Wide {
        match (self, o) {
            (Wide::I(a), Wide::I(b)) => Wide::I(a.wrapping_add(b)),
            (a, b) => Wide::F(a.f() + b.f()),
        }
    }
}

impl std::ops::Mul for Wide {
    type Output = Wide;
    /// Product (integers wrap modulo 2^128).
    fn mul(self, o: Wide) -> Wide {
        match (self, o) {
            (Wide::I(a), Wide::I(b)) => Wide::I(a.wrapping_mul(b)),
            (a, b) => Wide::F(a.f() * b.f()),
        }
    }
}

/// All elements in the wide domain; an error for strings.
pub fn to_wide(d: &Data) -> Result<Vec<Wide>, String> {
    Ok(match d {
        Data::F32(v) => v.iter().map(|&x| Wide::F(x as f64)).collect(),
        Data::F16(v) => v.iter().map(|x| Wide::F(x.to_f64())).collect(),
        Data::BF16(v) => v.iter().map(|x| Wide::F(x.to_f64())).collect(),
        Data::F64(v) => v.iter().map(|&x| Wide::F(x)).collect(),
        Data::I8(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::U8(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::I16(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::U16(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::I32(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::U32(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::I64(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::U64(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::Bool(v) => v.iter().map(|&x| Wide::I(x as i128)).collect(),
        Data::String(_) => return Err("string elements have no numeric value".into()),
        _ if d.dtype().is_low_float() => (0..d.len()).map(|i| Wide::F(d.get_f64(i))).collect(),
        _ => (0..d.len()).map(|i| Wide::I(d.get_i64(i) as i128)).collect(),
    })
}

/// The integer value of `w`: floats truncate toward zero (saturating, NaN is 0).
fn as_int(w: Wide) -> i128 {
    match w {
        Wide::I(i) => i,
        Wide::F(x) => x as i128,
    }
}

/// Elements of type `dt` from wide values: floats round to nearest once,
/// integers wrap, bools are `!= 0`. `dt` must not be a string type.
pub fn from_wide(dt: DType, v: &[Wide]) -> Data {
    match dt {
        DType::F32 => Data::F32(v.iter().map(|w| w.f() as f32).collect()),
        DType::F16 => Data::F16(v.iter().map(|w| f16_of(w.f())).collect()),
        DType::BF16 => Data::BF16(v.iter().map(|w| bf16_of(w.f())).collect()),
        DType::F64 => Data::F64(v.iter().map(|w| w.f()).collect()),
        DType::I8 => Data::I8(v.iter().map(|&w| as_int(w) as i8).collect()),
        DType::U8 => Data::U8(v.iter().map(|&w| as_int(w) as u8).collect()),
        DType::I16 => Data::I16(v.iter().map(|&w| as_int(w) as i16).collect()),
        DType::U16 => Data::U16(v.iter().map(|&w| as_int(w) as u16).collect()),
        DType::I32 => Data::I32(v.iter().map(|&w| as_int(w) as i32).collect()),
        DType::U32 => Data::U32(v.iter().map(|&w| as_int(w) as u32).collect()),
        DType::I64 => Data::I64(v.iter().map(|&w| as_int(w) as i64).collect()),
        DType::U64 => Data::U64(v.iter().map(|&w| as_int(w) as u64).collect()),
        DType::Bool => Data::Bool(v.iter().map(|w| w.nonzero()).collect()),
        DType::String => Data::String(v.iter().map(|w| format!("{}", w.f())).collect()),
        _ if dt.is_low_float() => lowp::float_data(dt, v.iter().map(|w| w.f()), true).unwrap_or(Data::U8(vec![])),
        _ => lowp::int_data(dt, v.iter().map(|&w| as_int(w))).unwrap_or(Data::U8(vec![])),
    }
}

/// True if element `i` of `d` is "non-zero" (non-empty for strings).
pub fn is_nonzero(d: &Data, i: usize) -> bool {
    match d {
        Data::String(v) => !v[i].is_empty(),
        Data::Bool(v) => v[i],
        _ => d.get_f64(i) != 0.0,
    }
}

/// A sortable key of one element: numbers in the wide domain, strings as they are.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// A number.
    Num(Wide),
    /// A string.
    Str(String),
}

impl Key {
    /// Total order (NaN largest; numbers before strings, which never mix).
    pub fn order(&self, o: &Key) -> Ordering {
        match (self, o) {
            (Key::Num(a), Key::Num(b)) => a.cmp_total(*b),
            (Key::Str(a), Key::Str(b)) => a.cmp(b),
            (Key::Num(_), Key::Str(_)) => Ordering::Less,
            (Key::Str(_), Key::Num(_)) => Ordering::Greater,
        }
    }
}

/// The sort key of every element.
pub fn keys(d: &Data) -> Vec<Key> {
    match d {
        Data::String(v) => v.iter().map(|s| Key::Str(s.clone())).collect(),
        _ => to_wide(d).unwrap_or_default().into_iter().map(Key::Num).collect(),
    }
}

/// The multi-index of flat position `flat` in a row-major `shape`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for ax in (0..shape.len()).rev() {
        if shape[ax] > 0 {
            idx[ax] = flat % shape[ax];
            flat /= shape[ax];
        }
    }
    idx
}

/// The flat position of multi-index `idx` given row-major `strides`.
pub fn ravel(idx: &[usize], strides: &[usize]) -> usize {
    idx.iter().zip(strides).map(|(i, s)| i * s).sum()
}

/// Number of elements of `shape`.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// The contents of an integer operand (`name` in diagnostics).
pub fn int_operand(t: &Tensor, name: &str) -> Result<Vec<i64>, String> {
    if !t.dtype().is_int() {
        return Err(format!("`{name}` has element type {}, expected an integer type", t.dtype()));
    }
    Ok(t.to_i64s())
}

/// The single value of a scalar (or one-element) integer operand.
pub fn scalar_int(t: &Tensor, name: &str) -> Result<i64, String> {
    match int_operand(t, name)?.as_slice() {
        [v] => Ok(*v),
        v => Err(format!("`{name}` must hold exactly one value, found {}", v.len())),
    }
}

/// Normalize a possibly negative index into `0..n`, or an error naming `what`.
pub fn norm_index(i: i64, n: usize, what: &str) -> Result<usize, String> {
    let r = n as i64;
    if i < -r || i >= r {
        return Err(format!("{what} {i} is out of range for a dim of size {n}"));
    }
    Ok(if i < 0 { i + r } else { i } as usize)
}

/// Normalize a list of axes against `rank`, rejecting duplicates.
pub fn norm_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = crate::interp::broadcast::norm_axis(a, rank)?;
        if out.contains(&n) {
            return Err(format!("axis {a} is repeated in {axes:?}"));
        }
        out.push(n);
    }
    Ok(out)
}

/// Check that `shape` holds at most 2^28 elements (guards against runaway
/// allocations from bad shape operands); returns the element count.
pub fn check_size(shape: &[usize]) -> Result<usize, String> {
    const LIMIT: usize = 1 << 28;
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d).filter(|&n| n <= LIMIT))
        .ok_or_else(|| format!("result shape {shape:?} is too large"))
}
