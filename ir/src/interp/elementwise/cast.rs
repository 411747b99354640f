//! Cast and CastLike: conversions between every pair of element types.
//!
//! * float → float: rounded once to nearest-even (overflow gives ±inf).
//! * float → integer: truncated toward zero; ONNX leaves out-of-range values
//!   undefined, here they saturate and NaN becomes 0.
//! * integer → integer: wraps (two's complement); integer → float: rounded once.
//! * → float8 / float4: rounded once to nearest-even; `saturate` (default 1)
//!   clamps overflow and ±inf to ±max finite, `saturate = 0` gives inf / NaN
//!   per format; float8 E8M0 follows `round_mode` (see [`crate::interp::lowp`]).
//! * float → 4-bit / 2-bit integer: truncated, then wrapped (as the ONNX test data).
//! * bool → number: 0/1; number → bool: nonzero (NaN included) is true.
//! * number → string: as the ONNX reference (numpy `astype(str)`) prints it:
//!   shortest round-trip digits for the source type, positional notation for
//!   `1e-4 <= |x| <` 1e3 (f16), 1e6 (f32), 1e16 (f64) or 1e2 (bf16), otherwise
//!   scientific with a signed, at least two-digit exponent (`1e+20`);
//!   `nan`, `inf`, `-inf`; bools print as `True`/`False`.
//! * string → number: surrounding whitespace is ignored; floats accept plain
//!   and scientific forms and, case-insensitively, `inf`, `+inf`, `-inf`,
//!   `nan`; integers accept integer literals (wrapping) and otherwise a float
//!   literal truncated toward zero; bools accept numbers (nonzero is true) and
//!   `true`/`false`. Anything else is an error.

use super::num::*;
use crate::interp::{lowp, Data, EvalCtx, Tensor};
use crate::types::DType;

/// `onnx.Cast`: convert to the `to` element type.
pub fn cast(ctx: &EvalCtx<'_>) -> KResult {
    let to = ctx.attrs.dtype("to").ok_or("missing attribute `to`")?;
    let x = ctx.input(0)?;
    Ok(vec![Tensor::new(x.shape.clone(), cast_with(ctx, &x.data, to)?)])
}

/// `onnx.CastLike`: convert `input` to the element type of `target_type`.
pub fn cast_like(ctx: &EvalCtx<'_>) -> KResult {
    let to = ctx.input(1)?.dtype();
    let x = ctx.input(0)?;
    Ok(vec![Tensor::new(x.shape.clone(), cast_with(ctx, &x.data, to)?)])
}

/// Cast honouring the `saturate` (default 1) and `round_mode` (default `up`)
/// attributes, which only affect float8 targets.
fn cast_with(ctx: &EvalCtx<'_>, d: &Data, to: DType) -> Result<Data, String> {
    let saturate = ctx.int("saturate", 1) != 0;
    let mode = lowp::RoundMode::parse(ctx.str("round_mode", "up"))?;
    cast_data_opts(d, to, saturate, mode)
}

/// `v` encoded as low-precision float type `to` with Cast's `saturate` and
/// `round_mode` (float4 E2M1 always saturates; `saturate` is ignored for it
/// by ONNX, and it has no inf).
fn low_floats(to: DType, v: Vec<f64>, saturate: bool, mode: lowp::RoundMode) -> Data {
    let bits = |f: &dyn Fn(f64) -> u8| -> Vec<u8> { v.iter().map(|&x| f(x)).collect() };
    let raw = if to == DType::F8E8M0 {
        bits(&|x| lowp::encode_e8m0(x, saturate, mode))
    } else {
        bits(&|x| lowp::encode(to, x, saturate))
    };
    lowp::from_raw(to, raw).unwrap_or(Data::U8(vec![]))
}

/// Convert data to element type `to` with ONNX Cast semantics.
fn cast_data_opts(d: &Data, to: DType, saturate: bool, mode: lowp::RoundMode) -> Result<Data, String> {
    if let Data::String(s) = d {
        return s.iter().map(|s| parse_scalar(s, to)).collect::<Result<Vec<_>, _>>().map(|v| collect_as(v, to))?;
    }
    if to == DType::String {
        return Ok(Data::String(format_all(d)));
    }
    if to.is_low_float() && d.dtype() != DType::Bool {
        let v = match floats(d) {
            Some(v) => v,
            None => ints(d)
                .ok_or_else(|| format!("cannot cast {}", d.dtype()))?
                .into_iter()
                .map(|i| int_to_float(to, i))
                .collect(),
        };
        return Ok(low_floats(to, v, saturate, mode));
    }
    if let Some(v) = floats(d) {
        return from_floats(v, to);
    }
    let v = match d {
        Data::Bool(b) => b.iter().map(|&b| b as i128).collect(),
        _ => ints(d).ok_or_else(|| format!("cannot cast {}", d.dtype()))?,
    };
    from_ints(v, to)
}

fn from_floats(v: Vec<f64>, to: DType) -> Result<Data, String> {
    if to.is_float() {
        float_data(to, v)
    } else if to == DType::Bool {
        Ok(Data::Bool(v.into_iter().map(|x| x != 0.0).collect()))
    } else {
        int_data(to, v.into_iter().map(|x| float_to_int(to, x)).collect())
    }
}

fn from_ints(v: Vec<i128>, to: DType) -> Result<Data, String> {
    if to.is_float() {
        float_data(to, v.into_iter().map(|x| int_to_float(to, x)).collect())
    } else if to == DType::Bool {
        Ok(Data::Bool(v.into_iter().map(|x| x != 0).collect()))
    } else {
        int_data(to, v)
    }
}

/// One parsed string element.
enum Parsed {
    F(f64),
    I(i128),
    B(bool),
    S(String),
}

fn parse_scalar(s: &str, to: DType) -> Result<Parsed, String> {
    let t = s.trim();
    let bad = || format!("cannot parse string {s:?} as {to}");
    Ok(match to {
        DType::String => Parsed::S(s.to_string()),
        // Parse f32 directly so the decimal is rounded only once.
        DType::F32 => Parsed::F(t.parse::<f32>().map_err(|_| bad())? as f64),
        _ if to.is_float() => Parsed::F(t.parse::<f64>().map_err(|_| bad())?),
        DType::Bool => Parsed::B(match t.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => t.parse::<f64>().map_err(|_| bad())? != 0.0,
        }),
        _ => match t.parse::<i128>() {
            Ok(i) => Parsed::I(i),
            Err(_) => Parsed::I(float_to_int(to, t.parse::<f64>().map_err(|_| bad())?)),
        },
    })
}

fn collect_as(v: Vec<Parsed>, to: DType) -> Result<Data, String> {
    let mut f = Vec::new();
    let mut i = Vec::new();
    let mut b = Vec::new();
    let mut s = Vec::new();
    for p in v {
        match p {
            Parsed::F(x) => f.push(x),
            Parsed::I(x) => i.push(x),
            Parsed::B(x) => b.push(x),
            Parsed::S(x) => s.push(x),
        }
    }
    Ok(match to {
        DType::String => Data::String(s),
        DType::Bool => Data::Bool(b),
        _ if to.is_float() => float_data(to, f)?,
        _ => int_data(to, i)?,
    })
}

/// Every element printed as the ONNX reference prints it.
fn format_all(d: &Data) -> Vec<String> {
    if let Some(v) = floats(d) {
        return v.into_iter().map(|x| format_float(x, d.dtype())).collect();
    }
    match d {
        Data::Bool(v) => v.iter().map(|&b| if b { "True" } else { "False" }.to_string()).collect(),
        Data::String(v) => v.clone(),
        _ => ints(d).unwrap_or_default().into_iter().map(|i| i.to_string()).collect(),
    }
}

/// `x` (a value of float type `dt`) printed like numpy's `str()`.
pub(crate) fn format_float(x: f64, dt: DType) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = x.abs();
    let (digits, exp) = shortest_digits(a, dt);
    let cutoff = match dt {
        DType::BF16 => 1e2,
        DType::F16 => 1e3,
        DType::F32 => 1e6,
        _ => 1e16,
    };
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if a == 0.0 || (1e-4..cutoff).contains(&a) {
        format!("{sign}{}", positional(&digits, exp))
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

/// The shortest decimal digits that read back as `a` in type `dt`, and the
/// decimal exponent of the first digit (`a = d.ddd × 10^exp`).
fn shortest_digits(a: f64, dt: DType) -> (String, i32) {
    let sci = match dt {
        DType::F64 => format!("{a:e}"),
        DType::F32 => format!("{:e}", a as f32),
        _ => (0..17)
            .map(|p| format!("{a:.p$e}"))
            .find(|s| s.parse::<f64>().is_ok_and(|r| round_to(dt, r) == a))
            .unwrap_or_else(|| format!("{a:e}")),
    };
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let mut digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    (digits, exp.parse().unwrap_or(0))
}

/// Digits `d1 d2 ...` with first-digit exponent `exp` in positional notation,
/// always with a fractional part (`1.0`, `0.00015`, `123.5`).
fn positional(digits: &str, exp: i32) -> String {
    if exp < 0 {
        return format!("0.{}{digits}", "0".repeat((-exp - 1) as usize));
    }
    let int_len = exp as usize + 1;
    if digits.len() <= int_len {
        format!("{digits}{}.0", "0".repeat(int_len - digits.len()))
    } else {
        format!("{}.{}", &digits[..int_len], &digits[int_len..])
    }
}
