//! Result shapes of ops in functions with symbolic dims, as [`Sz`] per dim:
//! literals where the compiler knows the size, run-time expressions (and
//! the statements that check and bind them) elsewhere.
//!
//! Every rule follows the op's ONNX shape formula, the one the IR's shape
//! inference applies to static dims; operands whose *values* set a shape
//! (a Reshape target, Slice bounds, Resize scales) are read from constants
//! when generating, else from the operand at run time (see
//! `dynamic::shape_slice`, which computes those operands before planning).

mod data;
mod layout;
pub mod nn;
mod quant;
pub mod values;

use super::sz::Sz;
use ir::{Function, Module, OpData, Opcode};

/// One integer of a shape-carrying tensor: known when generating, or an
/// `i64` expression evaluated when the model runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Iv {
    /// Known.
    Lit(i64),
    /// A run-time `i64` expression.
    Expr(String),
}

impl std::fmt::Display for Iv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Iv::Lit(n) => write!(f, "{n}i64"),
            Iv::Expr(e) => f.write_str(e),
        }
    }
}

impl Iv {
    /// The value of a size.
    pub fn of_size(d: &Sz) -> Iv {
        match d {
            Sz::Lit(n) => Iv::Lit(*n as i64),
            Sz::Expr(e) => Iv::Expr(format!("({e} as i64)")),
        }
    }
}

/// The values of an operand that shapes depend on.
#[derive(Clone, Debug)]
pub enum Vals {
    /// Known when generating (a constant; floats for Resize scales).
    Lit(Vec<f64>),
    /// Integers computed from dims and inputs when the model runs.
    Sym(Vec<Iv>),
    /// Floats read when the model runs (`f64` expressions holding the
    /// element's exact value; Resize scales, float Range bounds).
    Floats(Vec<String>),
}

impl Vals {
    /// Element `j` as an `i64` expression (literal when known).
    pub fn int(&self, j: usize) -> String {
        match self {
            Vals::Lit(v) => format!("{}i64", v[j] as i64),
            Vals::Sym(v) => v[j].to_string(),
            Vals::Floats(v) => format!("({} as i64)", v[j]),
        }
    }
    /// Element `j` if known when generating.
    pub fn lit_int(&self, j: usize) -> Option<i64> {
        match self {
            Vals::Lit(v) => v.get(j).map(|&x| x as i64),
            Vals::Sym(v) => match v.get(j) {
                Some(Iv::Lit(n)) => Some(*n),
                _ => None,
            },
            Vals::Floats(_) => None,
        }
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Vals::Lit(v) => v.len(),
            Vals::Sym(v) => v.len(),
            Vals::Floats(v) => v.len(),
        }
    }
    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// All elements as integers, if known when generating.
    pub fn lit_ints(&self) -> Option<Vec<i64>> {
        (0..self.len()).map(|j| self.lit_int(j)).collect()
    }
}

/// What a shape rule sees of one op.
pub struct ShapeCx<'a> {
    /// The module (constants).
    pub m: &'a Module,
    /// The function.
    pub f: &'a Function,
    /// The op.
    pub op: &'a OpData,
    /// Dims of each operand (`None` for an absent one).
    pub ins: Vec<Option<Vec<Sz>>>,
    /// Run-time values of operands computed before planning, by operand index.
    pub rt_vals: Vec<Option<Vals>>,
    /// Statements the rule emits (checks, bindings), in order.
    pub lines: Vec<String>,
    /// A prefix unique to this op for the names it binds.
    pub tag: String,
    /// What to call the op in run-time errors.
    pub what: String,
    /// Facts about sizes this variant of the function assumes (see
    /// [`ShapeCx::decide`]).
    pub facts: Vec<(String, bool)>,
    /// Facts a rule needed that `facts` does not settle.
    pub open: Vec<String>,
    /// Facts of `facts` a rule used (each checked where it is used).
    pub used: Vec<(String, bool)>,
    /// Dims `(result, axis)` that only the op itself learns, from the data
    /// (NonZero's count): the rule gives a placeholder, the walk a shape
    /// variable the lowering assigns before writing the result.
    pub counted: Vec<(usize, usize)>,
    next: usize,
}

impl<'a> ShapeCx<'a> {
    /// A context for `op` with operand dims `ins`.
    pub fn new(m: &'a Module, f: &'a Function, op: &'a OpData, ins: Vec<Option<Vec<Sz>>>, tag: String) -> Self {
        let what = match &op.loc {
            ir::Loc::Unknown => op.opcode.name().to_string(),
            l => format!("{} [{l}]", op.opcode.name()),
        };
        let n = op.operands.len();
        ShapeCx {
            m,
            f,
            op,
            ins,
            rt_vals: vec![None; n],
            lines: vec![],
            tag,
            what,
            facts: vec![],
            open: vec![],
            used: vec![],
            counted: vec![],
            next: 0,
        }
    }
    /// Dims of operand `i`.
    pub fn dims(&self, i: usize) -> Result<&[Sz], String> {
        self.ins.get(i).and_then(|d| d.as_deref()).ok_or_else(|| format!("operand #{i} is absent"))
    }
    /// True if operand `i` is present.
    pub fn has(&self, i: usize) -> bool {
        self.ins.get(i).is_some_and(Option::is_some)
    }
    /// The values of operand `i`, if constant or computed before planning.
    pub fn vals(&self, i: usize) -> Option<Vals> {
        let v = self.op.operand(i)?;
        if let Some(c) = ir::infer::defining_const(self.m, self.f, v) {
            return c.to_f64s().map(Vals::Lit);
        }
        self.rt_vals.get(i).cloned().flatten()
    }
    /// The values of operand `i`, or an error saying why they are needed.
    /// (Values computed from data, not from shapes, would need the model
    /// to run up to that op before its memory can be planned.)
    pub fn need_vals(&self, i: usize, role: &str) -> Result<Vals, String> {
        self.vals(i)
            .ok_or_else(|| format!("its {role} (operand #{i}) is computed from data the shapes cannot wait for"))
    }
    /// Bind `expr` to a fresh name; returns it as a size.
    pub fn bind(&mut self, expr: String) -> Sz {
        let name = format!("{}_{}", self.tag, self.next);
        self.next += 1;
        self.lines.push(format!("let {name}: usize = {expr};"));
        Sz::Expr(name)
    }
    /// `a` broadcast with `b`: folded when known, else checked at run time.
    pub fn bcast(&mut self, a: &Sz, b: &Sz) -> Result<Sz, String> {
        Ok(match (a, b) {
            _ if a == b => a.clone(),
            (Sz::Lit(1), x) | (x, Sz::Lit(1)) => x.clone(),
            (Sz::Lit(x), Sz::Lit(y)) => return Err(format!("dims {x} and {y} do not broadcast")),
            _ => {
                let what = self.what.clone();
                self.bind(format!("k::shape::bcast({what:?}, {a}, {b})?"))
            }
        })
    }
    /// Numpy broadcast of several shapes.
    pub fn bcast_all(&mut self, shapes: &[Vec<Sz>]) -> Result<Vec<Sz>, String> {
        let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
        let mut out = vec![Sz::Lit(1); rank];
        for s in shapes {
            let off = rank - s.len();
            for (k, d) in s.iter().enumerate() {
                out[off + k] = self.bcast(&out[off + k], d)?;
            }
        }
        Ok(out)
    }
    /// Whether the run-time condition `cond` (an expression over sizes
    /// known before the function runs) holds in this variant. A rank that
    /// depends on a size (a Squeeze without axes, an If whose branches
    /// differ in rank) is settled this way: the function is generated once
    /// per answer and each variant checks the facts it uses where it uses
    /// them, returning "not this variant" when one does not hold.
    pub fn decide(&mut self, cond: String) -> bool {
        if let Some(&(_, v)) = self.facts.iter().find(|(c, _)| *c == cond) {
            self.used.push((cond, v));
            return v;
        }
        if !self.open.contains(&cond) {
            self.open.push(cond);
        }
        false
    }

    /// Integer attribute `k` (default `d`).
    pub fn int(&self, k: &str, d: i64) -> i64 {
        self.op.attrs.int(k).unwrap_or(d)
    }
}

/// Normalize a possibly negative axis for `rank` (a scalar takes axis 0).
pub fn axis(a: i64, rank: usize) -> Result<usize, String> {
    let scalar_zero = rank == 0 && a == 0;
    let n = if scalar_zero { Some(0) } else { edgec_numeric::axis::normalize_axis(a, rank) };
    n.ok_or_else(|| format!("axis {a} is out of range for rank {rank}"))
}

/// The result shapes of `sc.op`, one `Vec<Sz>` per result.
pub fn result_shapes(sc: &mut ShapeCx<'_>) -> Result<Vec<Vec<Sz>>, String> {
    let op = sc.op;
    if let Some(s) = quant::shapes(sc)? {
        return Ok(s);
    }
    if let Some(s) = nn::shapes(sc)? {
        return Ok(s);
    }
    if let Some(s) = layout::shapes(sc)? {
        return Ok(s);
    }
    if let Some(s) = data::shapes(sc)? {
        return Ok(s);
    }
    let same = |sc: &ShapeCx<'_>| -> Result<Vec<Vec<Sz>>, String> { Ok(vec![sc.dims(0)?.to_vec()]) };
    match op.opcode {
        _ if is_unary_same(op.opcode) => same(sc),
        // Elementwise ops (the op table's flag): their operands broadcast.
        _ if op.opcode.def().flags & ir::ops::flags::ELEMENTWISE != 0 && op.results.len() == 1 => {
            let shapes: Vec<Vec<Sz>> = sc.ins.iter().flatten().cloned().collect();
            Ok(vec![sc.bcast_all(&shapes)?])
        }
        _ => Err(format!("{} with symbolic dims is not supported by the Rust backend yet", op.opcode.name())),
    }
}

/// Ops (not elementwise) whose one result has operand 0's shape.
fn is_unary_same(o: Opcode) -> bool {
    use Opcode::*;
    matches!(
        o,
        CastLike
            | Softmax
            | LogSoftmax
            | Hardmax
            | LpNormalization
            | InstanceNormalization
            | GroupNormalization
            | MeanVarianceNormalization
            | LRN
            | RMSNormalization
            | CumSum
            | CumProd
            | Trilu
            | ReverseSequence
            | ScatterElements
            | ScatterND
            | EyeLike
            | RotaryEmbedding
    )
}

/// The operands whose *values* (not only shapes) set `op`'s result shape.
pub fn value_operands(op: &OpData) -> &'static [usize] {
    use Opcode::*;
    match op.opcode {
        Reshape | Expand | Tile | OneHot | TopK | Split | Squeeze | Unsqueeze | CenterCropPad => &[1],
        ReduceMean | ReduceSum | ReduceMax | ReduceMin | ReduceProd | ReduceL1 | ReduceL2 | ReduceSumSquare
        | ReduceLogSumExp | ReduceLogSum => &[1],
        Slice => &[1, 2, 3, 4],
        Pad => &[1, 3],
        ConstantOfShape => &[0],
        Range => &[0, 1, 2],
        Resize => &[1, 2, 3],
        Upsample => &[1],
        _ => &[],
    }
}

/// True if `op`'s result shape is known only when the model runs: a value
/// operand (see [`value_operands`]) is not a constant, or the shape depends
/// on the input data itself (NonZero, Unique, NonMaxSuppression, Compress:
/// see [`ShapeCx::counted`]).
pub fn has_runtime_shape_operands(m: &Module, f: &Function, op: &OpData) -> bool {
    use Opcode::*;
    matches!(op.opcode, NonZero | Unique | NonMaxSuppression | Compress)
        || value_operands(op)
            .iter()
            .any(|&i| op.operand(i).is_some_and(|v| ir::infer::defining_const(m, f, v).is_none()))
}
