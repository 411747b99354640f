//! Static memory planning for generated code.
//!
//! Every intermediate value of a function lives in one arena per storage
//! class (element type), at an offset fixed at compile time. The planner
//! builds the dataflow graph of the function's ops (petgraph), schedules it in
//! program order (a topological order; verified), computes each buffer's live
//! range `[def, last use]`, lets view ops (reshapes) share their operand's
//! buffer and elementwise ops write in place over an operand whose last use
//! they are, and assigns offsets best-fit, largest buffers first.
//!
//! Invariants of a [`Plan`]: two buffers of one class whose live ranges
//! overlap never overlap in memory; a function's results stay live to the
//! end; the arena of each class is at least the lower bound, the largest sum
//! of sizes live at one program point.

use ir::{DType, Function, OpId, Value};
use std::collections::{BTreeMap, HashMap};

/// Storage class of a value: the element type of its arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `f32`.
    F32,
    /// `i64`.
    I64,
    /// `i32`.
    I32,
    /// `bool`.
    Bool,
    /// `u8`.
    U8,
    /// `i8`.
    I8,
    /// `f64`.
    F64,
    /// IEEE binary16 (the kernel crate's `F16`).
    F16,
    /// bfloat16 (the kernel crate's `BF16`).
    BF16,
    /// `i16`.
    I16,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// float8 E4M3FN (the kernel crate's `F8E4M3FN`, one byte per element).
    F8E4M3FN,
    /// float8 E4M3FNUZ (the kernel crate's `F8E4M3FNUZ`, one byte per element).
    F8E4M3FNUZ,
    /// float8 E5M2 (the kernel crate's `F8E5M2`, one byte per element).
    F8E5M2,
    /// float8 E5M2FNUZ (the kernel crate's `F8E5M2FNUZ`, one byte per element).
    F8E5M2FNUZ,
    /// float8 E8M0 (the kernel crate's `F8E8M0`, one byte per element).
    F8E8M0,
    /// float4 E2M1 (the kernel crate's `F4E2M1`, one byte per element).
    F4E2M1,
    /// 4-bit signed integer (the kernel crate's `I4`, one byte per element).
    I4,
    /// 4-bit unsigned integer (the kernel crate's `U4`, one byte per element).
    U4,
    /// 2-bit signed integer (the kernel crate's `I2`, one byte per element).
    I2,
    /// 2-bit unsigned integer (the kernel crate's `U2`, one byte per element).
    U2,
}

impl Class {
    /// Every class, in weights-section order (`edgec_kernels::rt::Weights`).
    pub const ALL: [Class; 23] = [
        Class::F32,
        Class::I64,
        Class::I32,
        Class::Bool,
        Class::U8,
        Class::I8,
        Class::F64,
        Class::F16,
        Class::BF16,
        Class::I16,
        Class::U16,
        Class::U32,
        Class::U64,
        Class::F8E4M3FN,
        Class::F8E4M3FNUZ,
        Class::F8E5M2,
        Class::F8E5M2FNUZ,
        Class::F8E8M0,
        Class::F4E2M1,
        Class::I4,
        Class::U4,
        Class::I2,
        Class::U2,
    ];

    /// The class of an element type, if the generated code supports it.
    pub fn of(dt: DType) -> Option<Class> {
        Some(match dt {
            DType::F32 => Class::F32,
            DType::I64 => Class::I64,
            DType::I32 => Class::I32,
            DType::Bool => Class::Bool,
            DType::U8 => Class::U8,
            DType::I8 => Class::I8,
            DType::F64 => Class::F64,
            DType::F16 => Class::F16,
            DType::BF16 => Class::BF16,
            DType::I16 => Class::I16,
            DType::U16 => Class::U16,
            DType::U32 => Class::U32,
            DType::U64 => Class::U64,
            DType::F8E4M3FN => Class::F8E4M3FN,
            DType::F8E4M3FNUZ => Class::F8E4M3FNUZ,
            DType::F8E5M2 => Class::F8E5M2,
            DType::F8E5M2FNUZ => Class::F8E5M2FNUZ,
            DType::F8E8M0 => Class::F8E8M0,
            DType::F4E2M1 => Class::F4E2M1,
            DType::I4 => Class::I4,
            DType::U4 => Class::U4,
            DType::I2 => Class::I2,
            DType::U2 => Class::U2,
            _ => return None,
        })
    }
    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            Class::F32 | Class::I32 | Class::U32 => 4,
            Class::I64 | Class::F64 | Class::U64 => 8,
            Class::F16 | Class::BF16 | Class::I16 | Class::U16 => 2,
            Class::Bool | Class::U8 | Class::I8 => 1,
            _ => 1,
        }
    }
    /// The element type's name: the Rust primitive, or `f16`/`bf16` (also
    /// the field of `edgec_kernels::rt::Weights` holding the class).
    pub fn name(self) -> &'static str {
        match self {
            Class::F32 => "f32",
            Class::I64 => "i64",
            Class::I32 => "i32",
            Class::Bool => "bool",
            Class::U8 => "u8",
            Class::I8 => "i8",
            Class::F64 => "f64",
            Class::F16 => "f16",
            Class::BF16 => "bf16",
            Class::I16 => "i16",
            Class::U16 => "u16",
            Class::U32 => "u32",
            Class::U64 => "u64",
            Class::F8E4M3FN => "f8e4m3fn",
            Class::F8E4M3FNUZ => "f8e4m3fnuz",
            Class::F8E5M2 => "f8e5m2",
            Class::F8E5M2FNUZ => "f8e5m2fnuz",
            Class::F8E8M0 => "f8e8m0",
            Class::F4E2M1 => "f4e2m1",
            Class::I4 => "i4",
            Class::U4 => "u4",
            Class::I2 => "i2",
            Class::U2 => "u2",
        }
    }
    /// Rust element type, usable in generated code.
    pub fn rust(self) -> &'static str {
        match self {
            Class::F16 => "edgec_kernels::F16",
            Class::BF16 => "edgec_kernels::BF16",
            Class::F8E4M3FN => "edgec_kernels::F8E4M3FN",
            Class::F8E4M3FNUZ => "edgec_kernels::F8E4M3FNUZ",
            Class::F8E5M2 => "edgec_kernels::F8E5M2",
            Class::F8E5M2FNUZ => "edgec_kernels::F8E5M2FNUZ",
            Class::F8E8M0 => "edgec_kernels::F8E8M0",
            Class::F4E2M1 => "edgec_kernels::F4E2M1",
            Class::I4 => "edgec_kernels::I4",
            Class::U4 => "edgec_kernels::U4",
            Class::I2 => "edgec_kernels::I2",
            Class::U2 => "edgec_kernels::U2",
            _ => self.name(),
        }
    }
    /// Short suffix used in generated field names.
    pub fn suffix(self) -> &'static str {
        match self {
            Class::F32 => "f",
            Class::I64 => "i",
            Class::Bool => "b",
            _ => self.name(),
        }
    }
    /// True for the float classes.
    pub fn is_float(self) -> bool {
        matches!(self, Class::F32 | Class::F64 | Class::F16 | Class::BF16)
    }
    /// True for the integer classes (8 to 64 bits).
    pub fn is_int(self) -> bool {
        !self.is_float() && !self.is_low() && self != Class::Bool
    }
    /// True for the sub-16-bit classes (float8, float4, 4- and 2-bit
    /// integers): storage, `Cast` and quantization only, no arithmetic.
    pub fn is_low(self) -> bool {
        use Class::*;
        matches!(self, F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E8M0 | F4E2M1 | I4 | U4 | I2 | U2)
    }
    /// A Rust literal of this class for `v` (rounded like a `Cast`: floats
    /// to nearest, integers truncated and saturated, bools `v != 0`).
    pub fn literal(self, v: f64) -> String {
        let float = |x: f64, t: &str| {
            if x.is_nan() {
                format!("{t}::NAN")
            } else if x.is_infinite() {
                format!("{t}::{}INFINITY", if x < 0.0 { "NEG_" } else { "" })
            } else {
                format!("{x:?}{t}")
            }
        };
        match self {
            Class::F32 => float(v as f32 as f64, "f32"),
            Class::F64 => float(v, "f64"),
            Class::F16 | Class::BF16 => format!("{}::from_f64({})", self.rust(), float(v, "f64")),
            Class::Bool => (v != 0.0).to_string(),
            Class::I64 => format!("{}i64", v as i64),
            Class::I32 => format!("{}i32", v as i32),
            Class::I16 => format!("{}i16", v as i16),
            Class::I8 => format!("{}i8", v as i8),
            Class::U64 => format!("{}u64", v as u64),
            Class::U32 => format!("{}u32", v as u32),
            Class::U16 => format!("{}u16", v as u16),
            Class::U8 => format!("{}u8", v as u8),
            Class::I4 | Class::U4 | Class::I2 | Class::U2 => format!("{}::wrap({}i128)", self.rust(), v as i64),
            _ => format!("{}::from_f64({})", self.rust(), float(v, "f64")),
        }
    }
}

/// How an op's result may share memory with an operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Reuse {
    /// A fresh buffer.
    None,
    /// The result is operand `i` reinterpreted (same elements, new shape).
    View(usize),
    /// The result may overwrite any of these operands if it is their last use.
    InPlace(Vec<usize>),
}

/// Where a value lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Function parameter `i` (the caller's buffer).
    Param(usize),
    /// A module constant (the weights), by the op defining it.
    Const(OpId),
    /// Buffer `i` of the plan.
    Buffer(usize),
    /// Hoisted buffer `i`: computed once, at model construction, from
    /// constants only (see [`Plan::hoisted`]).
    Hoisted(usize),
    /// A value of a function with symbolic dims whose size is known only
    /// when the op defining it runs (inside a control-flow region, the
    /// result of one, or computed from such a value): its own growable
    /// buffer, outside the arena (`o_<function>_<value>` in generated code),
    /// owned by the given value (a view of an own value names its owner).
    Own(Value),
    /// A buffer of an enclosing plan, seen from a region: `len` elements of
    /// `class` at `offset` in the function's arena (already based).
    Fixed {
        /// Storage class.
        class: Class,
        /// Offset in the function's arena.
        offset: usize,
        /// Elements.
        len: usize,
    },
}

/// One arena buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// Its storage class.
    pub class: Class,
    /// Elements.
    pub len: usize,
    /// Schedule index of the defining op (0 for parameters placed in the arena).
    pub def: usize,
    /// Schedule index of the last use (`ops.len()` for results).
    pub last: usize,
    /// Offset in the class's arena, in elements.
    pub offset: usize,
}

/// The memory plan of one function.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Ops in schedule order.
    pub schedule: Vec<OpId>,
    /// Where every value used or defined by a scheduled op lives.
    pub storage: HashMap<Value, Storage>,
    /// Arena buffers.
    pub buffers: Vec<Buffer>,
    /// Values whose op writes over its operand's buffer (in place).
    pub in_place: HashMap<Value, usize>,
    /// Elements of each class's arena.
    pub arena: BTreeMap<Class, usize>,
    /// The lower bound per class: most elements live at one program point.
    pub lower_bound: BTreeMap<Class, usize>,
    /// Elements of all buffers per class (no reuse at all).
    pub total: BTreeMap<Class, usize>,
    /// Ops computed at construction (every operand a constant or hoisted), in order.
    pub hoist_schedule: Vec<OpId>,
    /// Their results: one buffer each, never reused (offsets sequential per class).
    pub hoisted: Vec<Buffer>,
    /// Elements of each class's constant arena.
    pub const_arena: BTreeMap<Class, usize>,
    /// Where this plan's buffers start in the function's arena (0 for a
    /// function body; above the enclosing plan's buffers for a region).
    pub base: BTreeMap<Class, usize>,
    /// Plans of the regions of each control-flow op, by op.
    pub regions: HashMap<OpId, Vec<Plan>>,
    /// End of the arena this plan and its regions use, per class (base included).
    pub extent: BTreeMap<Class, usize>,
    /// Function results that are a parameter or a constant (or a view of
    /// one): result index → the buffer the function copies them into last.
    pub result_copies: BTreeMap<usize, usize>,
}

impl Plan {
    /// Bytes of all arenas.
    pub fn arena_bytes(&self) -> usize {
        self.arena.iter().map(|(c, n)| c.bytes() * n).sum()
    }
    /// Bytes of the lower bound (summed over classes).
    pub fn lower_bound_bytes(&self) -> usize {
        self.lower_bound.iter().map(|(c, n)| c.bytes() * n).sum()
    }
    /// Bytes of all intermediates without reuse.
    pub fn total_bytes(&self) -> usize {
        self.total.iter().map(|(c, n)| c.bytes() * n).sum()
    }
    /// The buffer of `v`, if it lives in the arena.
    pub fn buffer(&self, v: Value) -> Option<&Buffer> {
        match self.storage.get(&v)? {
            Storage::Buffer(b) => self.buffers.get(*b),
            _ => None,
        }
    }
}

/// Errors of planning.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PlanError {
    /// A value without a static size or a supported element type.
    #[error("{what} has type {ty}: generated code needs static shapes of numbers (f16/bf16/f32/f64, 8- to 64-bit integers) or bool{hint}")]
    Unsupported {
        /// The value, described.
        what: String,
        /// Its type.
        ty: String,
        /// What to do about it, if anything helps.
        hint: String,
    },
    /// The program order is not a topological order of the dataflow graph.
    #[error("internal: ops are not in dataflow order")]
    NotTopological,
}

/// Static size and class of `v`.
pub fn sized(f: &Function, v: Value, what: impl Fn() -> String) -> Result<(Class, usize), PlanError> {
    let ty = f.ty(v);
    let n = ty.shape.num_elements();
    match (Class::of(ty.dtype), n) {
        (Some(c), Some(n)) => Ok((c, n as usize)),
        _ => {
            let syms: Vec<String> = ty
                .dims()
                .unwrap_or(&[])
                .iter()
                .filter_map(|d| if let ir::Dim::Sym(s) = d { Some(s.as_str().to_string()) } else { None })
                .collect();
            let hint = match syms.first() {
                Some(s) => format!(" (dim `{s}` is symbolic: compile with --bucket {s}=SIZE,SIZE,...)"),
                None => String::new(),
            };
            Err(PlanError::Unsupported { what: what(), ty: ty.to_string(), hint })
        }
    }
}

mod build;
mod offsets;

pub use build::{plan_function, PlanOptions};
pub use offsets::{class_index, live_ranges};

impl Plan {
    /// Bytes of the constant arenas (values hoisted to construction).
    pub fn const_bytes(&self) -> usize {
        self.const_arena.iter().map(|(c, n)| c.bytes() * n).sum()
    }
}
