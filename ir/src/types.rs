//! Element types, dimensions and tensor types.
//!
//! A dimension is static, a *named symbol* (`seq`, `batch`) or unknown. Two
//! occurrences of the same symbol in one function denote the same runtime size.
//! A shape is either ranked (a list of dims) or unranked (`[*]`). Inference
//! never invents a number: what it cannot determine is `?` or `[*]`.

use smallvec::SmallVec;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// Tensor element type. `Display`/`FromStr` use the text-format spelling.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// 32-bit IEEE float.
    F32,
    /// 16-bit IEEE float.
    F16,
    /// bfloat16.
    BF16,
    /// 64-bit IEEE float.
    F64,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 32-bit integer.
    I32,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 64-bit integer.
    U64,
    /// Boolean (one byte per element in storage).
    Bool,
    /// Variable-length UTF-8 string.
    String,
    /// float8 E4M3, finite only (no inf; NaN = all ones), bias 7.
    F8E4M3FN,
    /// float8 E4M3, finite, no negative zero (NaN = 0x80), bias 8.
    F8E4M3FNUZ,
    /// float8 E5M2 (IEEE-like, with inf and NaN), bias 15.
    F8E5M2,
    /// float8 E5M2, finite, no negative zero (NaN = 0x80), bias 16.
    F8E5M2FNUZ,
    /// float8 E8M0: unsigned power of two `2^(bits-127)`, 0xFF = NaN.
    F8E8M0,
    /// float4 E2M1 (finite only, no NaN), one element per byte in memory.
    F4E2M1,
    /// Unsigned 4-bit integer, one element per byte in memory.
    U4,
    /// Signed 4-bit integer, one element per byte in memory.
    I4,
    /// Unsigned 2-bit integer, one element per byte in memory.
    U2,
    /// Signed 2-bit integer, one element per byte in memory.
    I2,
}

impl DType {
    /// Every element type, in a fixed order (used by generators and error messages).
    pub const ALL: [DType; 24] = [
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::F64,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::Bool,
        DType::String,
        DType::F8E4M3FN,
        DType::F8E4M3FNUZ,
        DType::F8E5M2,
        DType::F8E5M2FNUZ,
        DType::F8E8M0,
        DType::F4E2M1,
        DType::U4,
        DType::I4,
        DType::U2,
        DType::I2,
    ];

    /// Text-format spelling.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F64 => "f64",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
            DType::Bool => "bool",
            DType::String => "string",
            DType::F8E4M3FN => "f8e4m3fn",
            DType::F8E4M3FNUZ => "f8e4m3fnuz",
            DType::F8E5M2 => "f8e5m2",
            DType::F8E5M2FNUZ => "f8e5m2fnuz",
            DType::F8E8M0 => "f8e8m0",
            DType::F4E2M1 => "f4e2m1",
            DType::U4 => "u4",
            DType::I4 => "i4",
            DType::U2 => "u2",
            DType::I2 => "i2",
        }
    }

    /// Parse the text-format spelling.
    pub fn from_name(s: &str) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.name() == s)
    }

    /// Bytes per element in raw storage; `None` for strings.
    pub fn size_bytes(self) -> Option<usize> {
        Some(match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ | DType::F8E8M0 => 1,
            DType::F4E2M1 | DType::U4 | DType::I4 | DType::U2 | DType::I2 => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
            DType::String => return None,
        })
    }

    /// True for floating-point types.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16 | DType::BF16 | DType::F64) || self.is_low_float()
    }

    /// True for the float8 / float4 types (stored one raw bit pattern per byte).
    pub fn is_low_float(self) -> bool {
        matches!(
            self,
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ | DType::F8E8M0 | DType::F4E2M1
        )
    }

    /// True for the 4-bit and 2-bit integer types.
    pub fn is_low_int(self) -> bool {
        matches!(self, DType::U4 | DType::I4 | DType::U2 | DType::I2)
    }

    /// True for the sub-byte and float8 types (one element per byte in memory).
    pub fn is_low_precision(self) -> bool {
        self.is_low_float() || self.is_low_int()
    }

    /// True for signed or unsigned integer types (not bool).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            DType::I8 | DType::U8 | DType::I16 | DType::U16 | DType::I32 | DType::U32 | DType::I64 | DType::U64
        ) || self.is_low_int()
    }

    /// True for numeric (float or integer) types.
    pub fn is_numeric(self) -> bool {
        self.is_float() || self.is_int()
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An interned dimension-symbol name. Comparison is by name, so order and
/// printing never depend on interning order.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Symbol(u32);

type Interner = (Vec<&'static str>, std::collections::HashMap<&'static str, u32>);

fn interner() -> &'static Mutex<Interner> {
    static I: OnceLock<Mutex<Interner>> = OnceLock::new();
    I.get_or_init(Default::default)
}

impl Symbol {
    /// Intern `name`.
    pub fn new(name: &str) -> Symbol {
        let mut g = interner().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&i) = g.1.get(name) {
            return Symbol(i);
        }
        // Interned names live for the whole process; the set of dim names is small.
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        let i = g.0.len() as u32;
        g.0.push(leaked);
        g.1.insert(leaked, i);
        Symbol(i)
    }
    /// The symbol's name.
    pub fn as_str(self) -> &'static str {
        interner().lock().unwrap_or_else(|e| e.into_inner()).0[self.0 as usize]
    }
}

impl PartialOrd for Symbol {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Symbol {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}
impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_str())
    }
}

/// One dimension of a tensor shape.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Dim {
    /// A size known at compile time.
    Static(u64),
    /// A named runtime size, equal wherever the same name appears in a function.
    Sym(Symbol),
    /// A size nothing is known about.
    Unknown,
}

impl Dim {
    /// The static size, if known.
    pub fn as_static(self) -> Option<u64> {
        match self {
            Dim::Static(n) => Some(n),
            _ => None,
        }
    }
    /// True if this dim and `other` may denote the same size (no contradiction).
    pub fn compatible(self, other: Dim) -> bool {
        match (self, other) {
            (Dim::Unknown, _) | (_, Dim::Unknown) => true,
            (Dim::Static(a), Dim::Static(b)) => a == b,
            // A symbol may be bound to any size, so it does not contradict a number.
            (Dim::Sym(_), _) | (_, Dim::Sym(_)) => true,
        }
    }
    /// True if `self` is at least as precise as `other` and agrees with it.
    pub fn refines(self, other: Dim) -> bool {
        match (self, other) {
            (_, Dim::Unknown) => true,
            (a, b) => a == b,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Sym(s) => {
                let name = s.as_str();
                if crate::syntax::is_bare_ident(name) {
                    f.write_str(name)
                } else {
                    crate::syntax::write_quoted(f, name)
                }
            }
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A shape: ranked (list of dims) or unranked.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Shape {
    /// Rank and each dim are described.
    Ranked(SmallVec<[Dim; 4]>),
    /// Nothing is known, not even the rank.
    Unranked,
}

impl Shape {
    /// A ranked shape from dims.
    pub fn from_dims(dims: impl IntoIterator<Item = Dim>) -> Shape {
        Shape::Ranked(dims.into_iter().collect())
    }
    /// A fully static shape.
    pub fn fixed(dims: &[u64]) -> Shape {
        Shape::Ranked(dims.iter().map(|&d| Dim::Static(d)).collect())
    }
    /// A rank-0 shape.
    pub fn scalar() -> Shape {
        Shape::Ranked(SmallVec::new())
    }
    /// The dims, if ranked.
    pub fn dims(&self) -> Option<&[Dim]> {
        match self {
            Shape::Ranked(d) => Some(d),
            Shape::Unranked => None,
        }
    }
    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.dims().map(|d| d.len())
    }
    /// All dims as numbers, if every dim is static.
    pub fn static_dims(&self) -> Option<Vec<u64>> {
        self.dims()?.iter().map(|d| d.as_static()).collect()
    }
    /// Element count if fully static (`None` also if the count overflows `u64`).
    pub fn num_elements(&self) -> Option<u64> {
        self.static_dims()?.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
    }
    /// True if ranks and each pair of dims may agree.
    pub fn compatible(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Ranked(a), Shape::Ranked(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(*y))
            }
            _ => true,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Unranked => f.write_str("[*]"),
            Shape::Ranked(dims) => {
                f.write_str("[")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{d}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// The type of an SSA value: a tensor with an element type and a shape.
///
/// Quantized element types (scale/zero-point per tensor or per axis) will be
/// added as a further field describing the storage interpretation of `dtype`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TensorType {
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Shape,
}

impl TensorType {
    /// A tensor type.
    pub fn new(dtype: DType, shape: Shape) -> Self {
        Self { dtype, shape }
    }
    /// A fully static tensor type.
    pub fn fixed(dtype: DType, dims: &[u64]) -> Self {
        Self::new(dtype, Shape::fixed(dims))
    }
    /// A rank-0 tensor type.
    pub fn scalar(dtype: DType) -> Self {
        Self::new(dtype, Shape::scalar())
    }
    /// An unranked tensor type.
    pub fn unranked(dtype: DType) -> Self {
        Self::new(dtype, Shape::Unranked)
    }
    /// The dims, if ranked.
    pub fn dims(&self) -> Option<&[Dim]> {
        self.shape.dims()
    }
    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.shape.rank()
    }
    /// True if element types are equal and shapes may agree.
    pub fn compatible(&self, other: &TensorType) -> bool {
        self.dtype == other.dtype && self.shape.compatible(&other.shape)
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.dtype, self.shape)
    }
}
