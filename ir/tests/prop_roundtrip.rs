//! Property tests: randomly generated well-typed modules verify, and their text
//! form round-trips (`print(parse(print(m))) == print(m)`), both with inline
//! constants and through the binary weights sidecar.
//!
//! The generator is driven by a "choice tape" of random `u32`s: every decision
//! (how many constants, which opcode, which operand, ...) reads the next tape
//! entry, and a pseudo-random stream seeded by the tape takes over when it runs
//! out. Proptest shrinks the tape toward zeros, which the generator maps to the
//! simplest choices, so failing cases shrink to small modules.
//!
//! Ops are drawn from the whole op table; an op is kept only if its shape
//! inference accepts the randomly chosen operands and attributes, so coverage
//! grows automatically as inference for more ops is implemented.

use ir::entity::EntityId;
use ir::infer::infer_op;
use ir::ops::{AttrSpec, OpDef, Slot};
use ir::text::{parse_module, print_module, PrintOptions, Printer, WeightsMode};
use ir::verify::verify;
use ir::{Attr, AttrKind, Attrs, ConstData, Constant, DType, Dim, Function, Loc, Module, OpData, Opcode, Phase};
use ir::{Shape, Symbol, TensorType, Value};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Ops the generator must not produce, with the reason. Add an op here (and
/// report it) if its inference panics on generated input; remove it once fixed.
const EXCLUDED_FROM_GENERATOR: &[(Opcode, &str)] = &[];

/// Tries per op position before giving up on that position.
const OP_ATTEMPTS: usize = 24;

const DIM_SYMS: &[&str] = &["batch", "seq", "odd name", "N", "h.w", "_x", "nan", "inf", "1st", ""];
const NAMES: &[&str] = &["w", "bias", "my const", "a.b", "1abc", "nan", "inf", "none", "x\"y", "", "ünï", "return"];
const PARAM_NAMES: &[&str] = &["x", "input.1", "odd name", "0", "arg0", "arg1", "nan", "x_1", "", "%", "日本"];
const STRINGS: &[&str] =
    &["", "a", "a b", "quote\"d", "back\\slash", "new\nline", "tab\t", "\u{0}\u{1}\u{7f}", "ünïcødé ✓"];
const NODE_NAMES: &[&str] =
    &["conv1", "", "a\"b", "back\\slash", "ünïcødé ✓", "line\nbreak", "\u{0}", "/m/layer.0/Add"];
const OP_TYPES: &[&str] = &["Conv", "Add", "", "Weird \"Op\"", "MatMul"];
const MODULE_ATTR_KEYS: &[&str] = &["onnx.opset", "producer", "odd key", "nan", "inf", "ir_version", "x.y.z"];
const SPECIAL_F32: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MIN_POSITIVE,
    1e-45,
    f32::MAX,
    f32::MIN,
    1e20,
    123456.79,
    3.0,
];
const SPECIAL_F64: &[f64] = &[0.0, -0.0, 1.0, 0.1, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 5e-324, f64::MAX, 1e300];

/// Decisions read from a tape, falling back to a splitmix64 stream.
struct Tape<'a> {
    data: &'a [u32],
    pos: usize,
    state: u64,
}

impl<'a> Tape<'a> {
    fn new(data: &'a [u32]) -> Self {
        Tape { data, pos: 0, state: 0x9e37_79b9_7f4a_7c15 ^ data.len() as u64 }
    }
    fn next(&mut self) -> u32 {
        let v = match self.data.get(self.pos) {
            Some(&v) => v,
            None => {
                self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = self.state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                (z ^ (z >> 31)) as u32
            }
        };
        self.pos += 1;
        v
    }
    fn next_u64(&mut self) -> u64 {
        (self.next() as u64) << 32 | self.next() as u64
    }
    /// Uniform in `0..n` (0 if `n == 0`).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.next() as usize % n
        }
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() as u64 % (hi - lo + 1) as u64) as i64
    }
    /// True with probability `pct`%; a zero tape entry means false.
    fn chance(&mut self, pct: u32) -> bool {
        self.next() % 100 >= 100 - pct
    }
    fn pick<'b, T>(&mut self, xs: &'b [T]) -> &'b T {
        &xs[self.below(xs.len())]
    }
}

fn gen_dim(t: &mut Tape<'_>) -> Dim {
    match t.below(10) {
        0..=5 => Dim::Static(t.range(0, 4) as u64),
        6..=8 => Dim::Sym(Symbol::new(t.pick::<&str>(DIM_SYMS))),
        _ => Dim::Unknown,
    }
}

fn gen_type(t: &mut Tape<'_>) -> TensorType {
    let dtype = *t.pick(&DType::ALL);
    if t.chance(8) {
        return TensorType::unranked(dtype);
    }
    let rank = t.below(4);
    TensorType::new(dtype, Shape::from_dims((0..rank).map(|_| gen_dim(t))))
}

fn gen_f32(t: &mut Tape<'_>) -> f32 {
    if t.chance(40) {
        f32::from_bits(t.next())
    } else {
        *t.pick(SPECIAL_F32)
    }
}

fn gen_small_int(t: &mut Tape<'_>) -> i64 {
    match t.below(10) {
        0 => *t.pick(&[i64::MIN, i64::MAX, -1 << 40, 1 << 33]),
        _ => t.range(-3, 5),
    }
}

fn gen_string(t: &mut Tape<'_>) -> String {
    t.pick(STRINGS).to_string()
}

fn unique_name(t: &mut Tape<'_>, pool: &[&str], taken: impl Fn(&str) -> bool) -> String {
    let base = t.pick(pool).to_string();
    let mut name = base.clone();
    let mut k = 1;
    while taken(&name) {
        name = format!("{base}{k}");
        k += 1;
    }
    name
}

fn gen_const(t: &mut Tape<'_>, name: String) -> Constant {
    // Index-like i64 vectors are common so shape ops find usable operands.
    if t.chance(30) {
        let n = t.below(5);
        let vals: Vec<i64> = (0..n).map(|_| t.range(-2, 4)).collect();
        let dims: &[u64] = if n == 1 && t.chance(50) { &[] } else { &[n as u64] };
        return Constant::from_i64s(name, dims, &vals);
    }
    let dtype = *t.pick(&DType::ALL);
    let rank = t.below(4);
    let dims: Vec<u64> = (0..rank)
        .map(|_| {
            let lo = if t.chance(10) { 0 } else { 1 };
            t.range(lo, 3) as u64
        })
        .collect();
    let ty = TensorType::fixed(dtype, &dims);
    let n = ty.shape.num_elements().unwrap_or(0) as usize;
    let data = if dtype == DType::String {
        ConstData::Strings((0..n).map(|_| gen_string(t)).collect::<Vec<_>>().into())
    } else {
        let mut bytes = Vec::new();
        for _ in 0..n {
            match dtype {
                DType::F32 => bytes.extend(gen_f32(t).to_le_bytes()),
                DType::F64 => {
                    let x = if t.chance(40) { f64::from_bits(t.next_u64()) } else { *t.pick(SPECIAL_F64) };
                    bytes.extend(x.to_le_bytes());
                }
                DType::F16 | DType::BF16 => {
                    let bits = if t.chance(50) {
                        t.next() as u16
                    } else {
                        let x = gen_f32(t);
                        if dtype == DType::F16 {
                            half::f16::from_f32(x).to_bits()
                        } else {
                            half::bf16::from_f32(x).to_bits()
                        }
                    };
                    bytes.extend(bits.to_le_bytes());
                }
                DType::Bool => bytes.push(t.below(2) as u8),
                _ => {
                    let size = dtype.size_bytes().unwrap_or(1);
                    let v = if t.chance(50) { t.next_u64() as i64 } else { t.range(-3, 5) };
                    // Small negative values for unsigned types wrap to large ones: fine.
                    bytes.extend(&v.to_le_bytes()[..size]);
                }
            }
        }
        ConstData::Bytes(bytes.into())
    };
    Constant { name, ty, data }
}

fn gen_loc(t: &mut Tape<'_>, depth: u32) -> Loc {
    match t.below(if depth < 2 { 10 } else { 8 }) {
        0..=3 => Loc::Unknown,
        4..=7 => Loc::onnx(*t.pick(NODE_NAMES), *t.pick(OP_TYPES)),
        _ => {
            let n = t.below(4);
            Loc::Fused((0..n).map(|_| gen_loc(t, depth + 1)).collect())
        }
    }
}

fn gen_attr_value(t: &mut Tape<'_>, kind: AttrKind, consts: &[String]) -> Option<Attr> {
    Some(match kind {
        AttrKind::Int => Attr::Int(gen_small_int(t)),
        AttrKind::Float => Attr::Float(gen_f32(t)),
        AttrKind::Str => Attr::Str(gen_string(t)),
        AttrKind::Ints => Attr::Ints((0..t.below(5)).map(|_| gen_small_int(t)).collect()),
        AttrKind::Floats => Attr::Floats((0..t.below(4)).map(|_| gen_f32(t)).collect()),
        AttrKind::Strs => Attr::Strs((0..t.below(4)).map(|_| gen_string(t)).collect()),
        AttrKind::Type => Attr::Type(*t.pick(&DType::ALL)),
        AttrKind::Sym => {
            if consts.is_empty() {
                return None;
            }
            Attr::Sym(t.pick(consts).clone())
        }
        AttrKind::Enum(vals) => Attr::Str(t.pick(vals).to_string()),
    })
}

fn gen_module_attr(t: &mut Tape<'_>) -> Attr {
    let kind = *t.pick(&[
        AttrKind::Int,
        AttrKind::Float,
        AttrKind::Str,
        AttrKind::Ints,
        AttrKind::Floats,
        AttrKind::Strs,
        AttrKind::Type,
    ]);
    gen_attr_value(t, kind, &[]).unwrap_or(Attr::Int(0))
}

fn gen_attrs(t: &mut Tape<'_>, specs: &[AttrSpec], consts: &[String]) -> Option<Attrs> {
    let mut attrs = Attrs::new();
    for spec in specs {
        if spec.required || t.chance(40) {
            match gen_attr_value(t, spec.kind, consts) {
                Some(v) => attrs.set(spec.name, v),
                None if spec.required => return None,
                None => {}
            }
        }
    }
    Some(attrs)
}

/// The number of results to request: required slots, a prefix of the optional
/// ones, 1–3 values for a variadic slot.
fn gen_result_count(t: &mut Tape<'_>, def: &OpDef) -> usize {
    let mut n = 0;
    for s in def.results {
        match s.slot {
            Slot::Required => n += 1,
            Slot::Optional => {
                if !t.chance(30) {
                    break;
                }
                n += 1;
            }
            Slot::Variadic(min) => n += t.range(min.max(1) as i64, 3) as usize,
        }
    }
    n
}

/// Pick an operand: often one with the same element type as the first operand
/// (most ops want matching types), otherwise any value.
fn pick_operand(t: &mut Tape<'_>, f: &Function, pool: &[Value], first: Option<Value>) -> Value {
    if let Some(first) = first {
        if t.chance(70) {
            let dt = f.ty(first).dtype;
            let same: Vec<Value> = pool.iter().copied().filter(|&v| f.ty(v).dtype == dt).collect();
            if !same.is_empty() {
                return *t.pick(&same);
            }
        }
    }
    *t.pick(pool)
}

fn gen_operands(t: &mut Tape<'_>, def: &OpDef, f: &Function, pool: &[Value]) -> Option<Vec<Option<Value>>> {
    let mut out: Vec<Option<Value>> = Vec::new();
    let mut first = None;
    let mut take = |t: &mut Tape<'_>, out: &mut Vec<Option<Value>>| {
        let v = pick_operand(t, f, pool, first);
        first.get_or_insert(v);
        out.push(Some(v));
    };
    for s in def.operands {
        match s.slot {
            Slot::Required => {
                if pool.is_empty() {
                    return None;
                }
                take(t, &mut out);
            }
            Slot::Optional => {
                if pool.is_empty() || t.chance(40) {
                    out.push(None);
                } else {
                    take(t, &mut out);
                }
            }
            Slot::Variadic(min) => {
                if pool.is_empty() {
                    return (min == 0).then_some(out);
                }
                for _ in 0..t.range(min.max(1) as i64, 3) {
                    take(t, &mut out);
                }
            }
        }
    }
    // Trailing omitted optional operands are usually dropped, as importers do.
    if t.chance(70) {
        while out.last() == Some(&None) {
            out.pop();
        }
    }
    Some(out)
}

/// An op accepted by shape inference, ready to append.
struct GenOp {
    opcode: Opcode,
    operands: Vec<Option<Value>>,
    attrs: Attrs,
    types: Vec<TensorType>,
}

/// Try to build one well-typed op; `None` if inference rejects the random choices.
fn try_gen_op(t: &mut Tape<'_>, m: &Module, f: &Function, pool: &[Value], consts: &[String]) -> Option<GenOp> {
    let opcode = if !consts.is_empty() && t.chance(15) { Opcode::CoreConst } else { *t.pick(Opcode::ALL) };
    if EXCLUDED_FROM_GENERATOR.iter().any(|(op, _)| *op == opcode) {
        return None;
    }
    let def = opcode.def();
    if def.regions > 0 || !Phase::Onnx.allowed_dialects().contains(&def.dialect()) {
        return None;
    }
    let operands = gen_operands(t, def, f, pool)?;
    let attrs = gen_attrs(t, def.attrs, consts)?;
    let want = gen_result_count(t, def);
    let infer_with = |n: usize| {
        let op = OpData {
            opcode,
            operands: operands.iter().copied().collect(),
            results: (0..n).map(Value::new).collect(),
            attrs: attrs.clone(),
            regions: Vec::new(),
            loc: Loc::Unknown,
        };
        infer_op(m, f, &op).ok()
    };
    let mut types = infer_with(want)?;
    if types.len() != want {
        // The op decides its result count itself (e.g. optional outputs): re-infer with that count.
        let n = types.len();
        types = infer_with(n).filter(|ts| ts.len() == n)?;
    }
    OpDef::check_arity(def.results, &vec![true; types.len()], "result").ok()?;
    Some(GenOp { opcode, operands, attrs, types })
}

fn gen_function(t: &mut Tape<'_>, m: &Module, name: String, seen: &mut BTreeSet<Opcode>) -> Function {
    let mut f = Function::new(name);
    let consts: Vec<String> = m.consts.iter().map(|(_, c)| c.name.clone()).collect();
    let mut pool: Vec<Value> = Vec::new();
    for _ in 0..t.below(5) {
        let pname = if t.chance(15) { None } else { Some(t.pick(PARAM_NAMES).to_string()) };
        pool.push(f.add_param(pname, gen_type(t)));
    }
    for _ in 0..t.below(17) {
        for _ in 0..OP_ATTEMPTS {
            if let Some(op) = try_gen_op(t, m, &f, &pool, &consts) {
                let loc = gen_loc(t, 0);
                let id = f.append_op(op.opcode, op.operands, op.attrs, op.types, loc);
                pool.extend(f.ops[id].results.iter().copied());
                seen.insert(op.opcode);
                break;
            }
        }
    }
    if !pool.is_empty() {
        for _ in 0..t.range(1, 3) {
            let v = *t.pick(&pool);
            f.body.results.push(v);
            f.result_types.push(f.ty(v).clone());
        }
    }
    f
}

/// Build a module from a choice tape; also records the opcodes used.
fn gen_module(tape: &[u32], seen: &mut BTreeSet<Opcode>) -> Module {
    let t = &mut Tape::new(tape);
    let mut m = Module::new(*t.pick(&["m", "my model", "", "model.v1", "nan"]));
    m.phase = Phase::Onnx;
    for _ in 0..t.below(4) {
        let key = *t.pick(MODULE_ATTR_KEYS);
        let v = gen_module_attr(t);
        m.attrs.set(key, v);
    }
    for _ in 0..t.below(7) {
        let name = unique_name(t, NAMES, |n| m.const_by_name(n).is_some());
        let c = gen_const(t, name);
        m.add_const(c).expect("generated constant names are unique");
    }
    for _ in 0..t.range(1, 2) {
        let name = unique_name(t, &["main", "f 2", "helper", "nan", ""], |n| m.func(n).is_some());
        let f = gen_function(t, &m, name, seen);
        m.funcs.push(f);
    }
    m
}

fn tape_strategy() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(any::<u32>(), 0..3000)
}

/// At least `cases` cases; `PROPTEST_CASES` may ask for more.
fn runner(cases: u32) -> TestRunner {
    let base = Config::default();
    TestRunner::new(Config { cases: base.cases.max(cases), failure_persistence: None, ..base })
}

/// Panic with the failure reason (the module text), not the raw tape.
fn report(result: Result<(), TestError<Vec<u32>>>) {
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, tape)) => panic!("{reason}\n(minimal failing tape has {} entries)", tape.len()),
        Err(TestError::Abort(reason)) => panic!("aborted: {reason}"),
    }
}

fn verified(m: &Module, what: &str) -> Result<(), TestCaseError> {
    match verify(m) {
        Ok(()) => Ok(()),
        Err(e) => Err(TestCaseError::fail(format!("{what} does not verify:\n{}\n{e}", e.render(m)))),
    }
}

fn check_text_roundtrip(m: &Module) -> Result<(), TestCaseError> {
    verified(m, "generated module")?;
    let t1 = print_module(m);
    let parsed = parse_module(&t1, "gen.eir", None)
        .map_err(|e| TestCaseError::fail(format!("printed module does not parse: {e}\n{t1}")))?;
    let t2 = print_module(&parsed.module);
    prop_assert_eq!(&t1, &t2, "print(parse(print(m))) != print(m)");
    verified(&parsed.module, "re-parsed module")
}

fn check_sidecar_roundtrip(m: &Module) -> Result<(), TestCaseError> {
    let opts = PrintOptions { weights: WeightsMode::Sidecar { file: "w.bin".into(), inline_limit: 4 }, locs: true };
    let printed = Printer::new(opts).print(m);
    let sidecar = printed.sidecar.clone().ok_or_else(|| TestCaseError::fail("sidecar mode returned no sidecar"))?;
    let loader = |name: &str| if name == "w.bin" { Ok(sidecar.clone()) } else { Err("no such file".to_string()) };
    let parsed = parse_module(&printed.text, "gen.eir", Some(&loader))
        .map_err(|e| TestCaseError::fail(format!("sidecar-printed module does not parse: {e}\n{}", printed.text)))?;
    prop_assert_eq!(print_module(m), print_module(&parsed.module), "sidecar round trip changed the module");
    verified(&parsed.module, "module re-parsed through the sidecar")
}

#[test]
fn generated_modules_verify_and_round_trip_through_text() {
    let seen = RefCell::new(BTreeSet::new());
    let result = runner(256).run(&tape_strategy(), |tape| {
        let m = gen_module(&tape, &mut seen.borrow_mut());
        check_text_roundtrip(&m)
    });
    report(result);
    let seen = seen.into_inner();
    eprintln!(
        "prop_roundtrip: {} of {} opcodes generated: {}",
        seen.len(),
        Opcode::ALL.len(),
        seen.iter().map(|op| op.name()).collect::<Vec<_>>().join(" ")
    );
}

#[test]
fn generated_modules_round_trip_through_the_weights_sidecar() {
    let result = runner(256).run(&tape_strategy(), |tape| {
        let m = gen_module(&tape, &mut BTreeSet::new());
        check_sidecar_roundtrip(&m)
    });
    report(result);
}

/// Guards the generator itself: with a fixed seed it must keep reaching a broad
/// set of ops (the threshold tracks which ops have shape inference today).
#[test]
fn generator_covers_many_opcodes_with_fixed_seed() {
    const MIN_DISTINCT_OPCODES: usize = 30;
    let mut runner = TestRunner::deterministic();
    let strategy = tape_strategy();
    let mut seen = BTreeSet::new();
    let mut ops = 0;
    for _ in 0..200 {
        let tape = strategy.new_tree(&mut runner).expect("tape strategy never rejects").current();
        let m = gen_module(&tape, &mut seen);
        ops += m.funcs.iter().map(|f| f.body.ops.len()).sum::<usize>();
    }
    eprintln!("fixed seed: {} distinct opcodes in {ops} ops", seen.len());
    assert!(
        seen.len() >= MIN_DISTINCT_OPCODES,
        "generator reached only {} distinct opcodes: {:?}",
        seen.len(),
        seen.iter().map(|op| op.name()).collect::<Vec<_>>()
    );
}
