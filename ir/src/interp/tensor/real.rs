//! Numeric helpers shared by the float kernels of many families (linalg, conv,
//! pool, norm, attention, rnn, resample, signal, loss, ...): the [`Real`]
//! compute type (f32 for f32/f16/bf16 tensors, f64 for f64 tensors),
//! conversion between tensors and `Vec<Real>`, the `u64` ring of the integer
//! matrix products, attribute readers and small index utilities.

use crate::interp::{lowp, Data, EvalCtx, Tensor};
use crate::ops::InferCtx;
use crate::types::DType;
use half::{bf16, f16};

/// `x` rounded once to nearest-even as an f16 (`edgec_numeric::float16`).
pub fn f16_of(x: f64) -> f16 {
    f16::from_bits(edgec_numeric::float16::f16_bits(x))
}

/// `x` rounded once to nearest-even as a bfloat16.
pub fn bf16_of(x: f64) -> bf16 {
    bf16::from_bits(edgec_numeric::float16::bf16_bits(x))
}
use std::fmt::Debug;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// The float type a kernel computes in. f16/bf16 tensors are computed in f32 and
/// rounded once when the result is stored, as the ONNX reference does.
pub trait Real:
    Copy
    + Debug
    + Default
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + std::iter::Sum
    + 'static
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// Negative infinity.
    const NEG_INFINITY: Self;
    /// Largest finite value.
    const MAX: Self;
    /// Conversion from f64 (rounding for f32).
    fn from_f64(x: f64) -> Self;
    /// Conversion to f64 (exact).
    fn to_f64(self) -> f64;
    /// `e^x`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Round down.
    fn floor(self) -> Self;
    /// Round up.
    fn ceil(self) -> Self;
    /// `self^e`.
    fn powf(self, e: Self) -> Self;
    /// True for NaN.
    fn is_nan(self) -> bool;
    /// True unless infinite or NaN.
    fn is_finite(self) -> bool;
    /// Round half to even (numpy `rint`).
    fn round_even(self) -> Self;
    /// The maximum; NaN if either is NaN (numpy `maximum`).
    fn max_nan(self, o: Self) -> Self {
        if self.is_nan() || o.is_nan() {
            Self::from_f64(f64::NAN)
        } else if o > self {
            o
        } else {
            self
        }
    }
    /// Convert the elements of a numeric tensor.
    fn from_data(d: &Data) -> Vec<Self>;
}

macro_rules! impl_real {
    ($t:ident) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const INFINITY: Self = $t::INFINITY;
            const NEG_INFINITY: Self = $t::NEG_INFINITY;
            const MAX: Self = $t::MAX;
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn exp(self) -> Self {
                $t::exp(self)
            }
            fn ln(self) -> Self {
                $t::ln(self)
            }
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            fn tanh(self) -> Self {
                $t::tanh(self)
            }
            fn abs(self) -> Self {
                $t::abs(self)
            }
            fn floor(self) -> Self {
                $t::floor(self)
            }
            fn ceil(self) -> Self {
                $t::ceil(self)
            }
            fn powf(self, e: Self) -> Self {
                $t::powf(self, e)
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            fn round_even(self) -> Self {
                $t::round_ties_even(self)
            }
            fn from_data(d: &Data) -> Vec<Self> {
                match d {
                    Data::F32(v) => v.iter().map(|&x| x as $t).collect(),
                    Data::F16(v) => v.iter().map(|&x| x.to_f32() as $t).collect(),
                    Data::BF16(v) => v.iter().map(|&x| x.to_f32() as $t).collect(),
                    Data::F64(v) => v.iter().map(|&x| x as $t).collect(),
                    _ => (0..d.len()).map(|i| d.get_f64(i) as $t).collect(),
                }
            }
        }
    };
}
impl_real!(f32);
impl_real!(f64);

/// Call the generic float kernel `$f::<T>(args)` with `T = f64` for f64 tensors and
/// `T = f32` for f32/f16/bf16 tensors; any other element type is an error.
macro_rules! float_kernel {
    ($dt:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $dt {
            $crate::types::DType::F64 => $f::<f64>($($arg),*),
            $crate::types::DType::F32 | $crate::types::DType::F16 | $crate::types::DType::BF16 => {
                $f::<f32>($($arg),*)
            }
            other => Err(format!("element type {other} is not supported (expected a float type)")),
        }
    };
}
pub(crate) use float_kernel;

/// The elements of `t` in the compute type.
pub fn reals<T: Real>(t: &Tensor) -> Vec<T> {
    T::from_data(&t.data)
}

/// A float tensor of element type `dt` (f32, f16, bf16 or f64) from computed values.
pub fn to_tensor<T: Real>(dt: DType, shape: Vec<usize>, v: Vec<T>) -> Result<Tensor, String> {
    let data = match dt {
        DType::F32 => Data::F32(v.iter().map(|x| x.to_f64() as f32).collect()),
        DType::F64 => Data::F64(v.iter().map(|x| x.to_f64()).collect()),
        DType::F16 => Data::F16(v.iter().map(|x| f16_of(x.to_f64())).collect()),
        DType::BF16 => Data::BF16(v.iter().map(|x| bf16_of(x.to_f64())).collect()),
        other => return Err(format!("cannot store float results as {other}")),
    };
    Ok(Tensor::new(shape, data))
}

/// How computed float values become integers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntCast {
    /// Round half to even, then clamp to the type's range (ONNX `saturate_cast`).
    RoundSaturate,
    /// Truncate toward zero, clamping to the range (numpy `astype` on in-range values).
    Truncate,
}

/// A tensor of any numeric element type (or bool) from f64 values. Float targets
/// round once; integer targets follow `how`; bool is `x != 0`.
pub fn to_tensor_any(dt: DType, shape: Vec<usize>, v: &[f64], how: IntCast) -> Result<Tensor, String> {
    let int = |x: f64| if how == IntCast::RoundSaturate { x.round_ties_even() } else { x.trunc() };
    macro_rules! ints {
        ($t:ty) => {
            v.iter().map(|&x| int(x) as $t).collect() // `as` saturates and maps NaN to 0
        };
    }
    let data = match dt {
        DType::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        DType::F64 => Data::F64(v.to_vec()),
        DType::F16 => Data::F16(v.iter().map(|&x| f16_of(x)).collect()),
        DType::BF16 => Data::BF16(v.iter().map(|&x| bf16_of(x)).collect()),
        DType::I8 => Data::I8(ints!(i8)),
        DType::U8 => Data::U8(ints!(u8)),
        DType::I16 => Data::I16(ints!(i16)),
        DType::U16 => Data::U16(ints!(u16)),
        DType::I32 => Data::I32(ints!(i32)),
        DType::U32 => Data::U32(ints!(u32)),
        DType::I64 => Data::I64(ints!(i64)),
        DType::U64 => Data::U64(ints!(u64)),
        DType::Bool => Data::Bool(v.iter().map(|&x| x != 0.0).collect()),
        DType::String => return Err("string tensors are not supported here".into()),
        _ if dt.is_low_float() => lowp::float_data(dt, v.iter().copied(), true).ok_or("internal: not low float")?,
        _ => {
            let (lo, hi) = lowp::int_range(dt).ok_or("internal: not a low int")?;
            let vals = v.iter().map(|&x| if x.is_nan() { 0 } else { (int(x) as i128).clamp(lo, hi) });
            lowp::int_data(dt, vals).ok_or("internal: not a low int")?
        }
    };
    Ok(Tensor::new(shape, data))
}

/// An [`InferCtx`] over the kernel's attributes only, so kernels can reuse the
/// attribute parsing (and validation) of the inference code.
pub fn attr_ctx<'a>(ctx: &EvalCtx<'a>) -> InferCtx<'a> {
    InferCtx { operands: &[], consts: &[], attrs: ctx.attrs, num_results: ctx.num_results(), attr_const: None }
}

/// Product of dims, or an error if it overflows.
pub fn numel(shape: &[usize]) -> Result<usize, String> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).ok_or_else(|| format!("shape {shape:?} is too large"))
}

/// Advance a row-major multi-index within `shape`; false after the last one.
pub fn next_index(idx: &mut [usize], shape: &[usize]) -> bool {
    for ax in (0..shape.len()).rev() {
        idx[ax] += 1;
        if idx[ax] < shape[ax] {
            return true;
        }
        idx[ax] = 0;
    }
    false
}

/// `(outer, n, inner)`: the products of the dims before, at and after `axis`.
pub fn split_at_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// An integer attribute that must be ≥ `min`.
pub fn int_at_least(ctx: &EvalCtx<'_>, name: &str, default: i64, min: i64) -> Result<i64, String> {
    let v = ctx.int(name, default);
    if v < min {
        return Err(format!("attribute `{name}` = {v} must be ≥ {min}"));
    }
    Ok(v)
}

/// Addition and multiplication for matrix products: IEEE for floats, wrapping
/// (two's complement, as numpy) for integers carried in a `u64`.
pub trait Ring: Copy {
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// `self + o`.
    fn add(self, o: Self) -> Self;
    /// `self * o`.
    fn mul(self, o: Self) -> Self;
}

impl Ring for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn add(self, o: Self) -> Self {
        self + o
    }
    fn mul(self, o: Self) -> Self {
        self * o
    }
}
impl Ring for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn add(self, o: Self) -> Self {
        self + o
    }
    fn mul(self, o: Self) -> Self {
        self * o
    }
}
impl Ring for u64 {
    const ZERO: Self = 0;
    const ONE: Self = 1;
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    fn mul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
}

/// Round an f32 value to the precision of `dt` (f16 and bf16; other types unchanged).
pub fn round_to(dt: DType, x: f32) -> f32 {
    match dt {
        DType::F16 => f16::from_f32(x).to_f32(),
        DType::BF16 => bf16::from_f32(x).to_f32(),
        _ => x,
    }
}

/// The elements of an integer (or bool) tensor as two's-complement `u64` bit patterns.
pub fn int_bits(d: &Data) -> Vec<u64> {
    (0..d.len()).map(|i| d.get_i64(i) as u64).collect()
}

/// An integer tensor of type `dt` from `u64` bit patterns, truncated to the
/// type's width (i.e. wrapped modulo 2^bits).
pub fn from_int_bits(dt: DType, shape: Vec<usize>, v: &[u64]) -> Result<Tensor, String> {
    macro_rules! wrap {
        ($t:ty) => {
            v.iter().map(|&x| x as $t).collect()
        };
    }
    let data = match dt {
        DType::I8 => Data::I8(wrap!(i8)),
        DType::U8 => Data::U8(wrap!(u8)),
        DType::I16 => Data::I16(wrap!(i16)),
        DType::U16 => Data::U16(wrap!(u16)),
        DType::I32 => Data::I32(wrap!(i32)),
        DType::U32 => Data::U32(wrap!(u32)),
        DType::I64 => Data::I64(wrap!(i64)),
        DType::U64 => Data::U64(v.to_vec()),
        other => return Err(format!("cannot store integer results as {other}")),
    };
    Ok(Tensor::new(shape, data))
}
